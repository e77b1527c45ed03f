// A sweep's runs as one stacked population on one device (src/rl/populationTrainer.ts): every member
// steps in lock step, and each member's folder gets what `train` writes for a lone run (config.json,
// metrics.jsonl, evals.jsonl, last and best checkpoints) and its summary.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../../backend';
import { writeCheckpoint } from '../../model/checkpoint';
import { envRecord, presetTrainableSlot } from '../../rl/checkpointFit';
import { SkipStreak } from '../../rl/faults';
import type { MemberChange } from '../../rl/population';
import { Trainer } from '../../rl/trainer';
import type { StepPoint } from '../../rl/dualStatic';
import { slotNames } from '../../rl/slots';
import { type EvalRecord } from '../../rl/runRecord';
import type { WarmStarts } from '../../rl/warmStart';
import { log as say, writeAtomic } from '../io';
import type { RunSetup } from './runSetup';
import type { TrainResult } from './train';

export interface StackedMember { s: RunSetup; out: string; warm: WarmStarts; label: string }

const pick = (e: EvalRecord) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'lambdaTok'));

/**
 * Trains the members together; `changes` are the sweep's live changes (member index or all). Returns each member's
 * result, or its fault message when it stopped (its updates skipped step after step, as `train` stops a lone run).
 */
export async function trainStacked(backend: Backend, members: StackedMember[], changes: MemberChange[]): Promise<(TrainResult | { fault: string })[]> {
  const t0 = performance.now(), s0 = members[0].s, K = members.length;
  const slot = slotNames(s0.env)[0];
  const trainer = new Trainer(backend, s0.env, members.map((m) => m.s.config), members.map((m) => m.warm.slots[slot].weights));
  const histories: StepPoint[][] = members.map(() => []);
  const applied: MemberChange[][] = members.map(() => []);
  const faults: (string | null)[] = members.map(() => null);
  const streaks = members.map(() => new SkipStreak());
  try {
    members.forEach((m) => {
      mkdirSync(m.out, { recursive: true });
      writeFileSync(join(m.out, 'config.json'), JSON.stringify({ preset: m.s.preset.name, backend: backend.name, config: m.s.config }, null, 2) + '\n');
      writeFileSync(join(m.out, 'metrics.jsonl'), '');
      writeFileSync(join(m.out, 'evals.jsonl'), '');
    });
    const logEvals = (recs: EvalRecord[]) => recs.forEach((e, k) => {
      appendFileSync(join(members[k].out, 'evals.jsonl'), JSON.stringify(e) + '\n');
      say(`[${members[k].label}] eval step ${e.step}: accuracy ${e.accuracy.toFixed(3)} tokens ${e.tokens.toFixed(2)} reward ${e.reward.toFixed(3)}`);
    });
    const warm = await trainer.evaluateAll();
    logEvals(warm);
    const steps = s0.config.steps, updates = Math.min(s0.config.minibatches, s0.config.promptsPerStep * s0.config.groupSize);
    for (let i = 0; i < steps; i++) {
      for (const c of changes.filter((x) => x.step === i)) {
        trainer.setHyperparams(c.partial, c.member);
        for (let k = 0; k < K; k++) if (c.member === null || c.member === k) applied[k].push(c);
        say(`change at step ${i}${c.member === null ? '' : ` (member ${members[c.member].label})`}: ${Object.entries(c.partial).map(([k, v]) => `${k}=${v}`).join(' ')}`);
      }
      const before = trainer.members.map((m) => ({ skipped: m.skippedUpdates, flags: m.flags.length }));
      const ms = await trainer.stepAll();
      ms.forEach((m, k) => {
        const member = trainer.members[k];
        histories[k].push({ step: m.step, tokens: m.tokens, lambdaTok: m.lambda_tok });
        appendFileSync(join(members[k].out, 'metrics.jsonl'), JSON.stringify({ ...m, env: member.lastEnvMetrics }) + '\n');
        for (const f of member.flags.slice(before[k].flags)) say(`[${members[k].label}] flag: ${f.message}`);
        const stop = streaks[k].record(member.flags.slice(before[k].flags), member.skippedUpdates - before[k].skipped, updates);
        // a stacked member cannot leave the batch: it steps on (its updates skipped) and is reported as stopped
        if (stop && !faults[k]) faults[k] = `train stopped at step ${m.step + 1}: ${stop}. Lower lr or the temperature; the metrics so far are in ${members[k].out}`;
      });
      if ((i + 1) % 10 === 0) say(`population step ${i + 1}/${steps}: ${ms.map((m, k) => `${members[k].label} r_task ${m.r_task.toFixed(3)} tokens ${m.tokens.toFixed(2)}`).join('; ')}`);
      if ((i + 1) % s0.config.evalEvery === 0 && i + 1 < steps) logEvals(await trainer.evaluateAll());
    }
    const final = steps > 0 ? await trainer.evaluateAll() : warm;
    if (steps > 0) logEvals(final);
    const wallSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const results: (TrainResult | { fault: string })[] = [];
    for (const [k, m] of members.entries()) {
      const member = trainer.members[k], fault = faults[k];
      if (fault) { results.push({ fault }); continue; }
      const extras = { ...envRecord(m.s.config, presetTrainableSlot(m.s.preset)), preset: m.s.preset.name, run_config: JSON.stringify(m.s.config) };
      const ck = async (which: 'last' | 'best', step: number) => writeCheckpoint({
        config: trainer.model.config, weights: await trainer.readWeights(which, k), vocab: [...m.s.env.vocab], extras: { ...extras, step: String(step) },
      });
      writeAtomic(join(m.out, 'last.safetensors'), await ck('last', trainer.stepCount));
      writeAtomic(join(m.out, 'best.safetensors'), await ck('best', member.bestEval?.step ?? 0));
      const summary = {
        preset: m.s.preset.name, backend: backend.name, steps: trainer.stepCount, wallSeconds,
        warmStart: pick(warm[k]), final: pick(final[k]), best: member.bestEval ? pick(member.bestEval) : null,
        bestStep: member.bestEval?.step ?? null, finalStep: trainer.stepCount,
        lambdaTok: member.lambdaTok, skippedUpdates: member.skippedUpdates, flags: member.flags.map((f) => f.message),
        degenerate: member.degenerate, curriculum: [], baselines: trainer.baselines(), out: m.out,
        changes: applied[k], warmStartSource: m.warm.source, ...(m.warm.notices?.length ? { warmStartNotices: m.warm.notices } : {}),
        stacked: { members: K },
      };
      results.push({ summary, history: histories[k] });
    }
    return results;
  } finally {
    trainer.destroy();
  }
}
