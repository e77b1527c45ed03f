// `train --preset NAME [--set key=value]... [--steps N] [--seed S] [--out DIR]`: the Trainer, headless.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { WebGpuBackend } from '../../gpu/webgpuBackend';
import { checkGpuBudget, memoryShare } from '../../rl/memoryBudget';
import { modelConfigFor } from '../../rl/pretrain';
import { writeCheckpoint } from '../../model/checkpoint';
import { slotNames, Trainer, type EvalRecord } from '../../rl/trainer';
import { parseFlags, requireFlag, type FlagSpec } from '../args';
import { chooseBackend, log as say, prepareOutDir, writeAtomic } from '../io';
import { parseChange, type MemberChange } from '../../rl/population';
import { parseSets, setup, startSlots, type RunSetup } from './runSetup';
import type { Backend } from '../../backend';
import type { WarmStarts } from '../../rl/warmStart';
import type { StepPoint } from '../../rl/dualStatic';
import type { GPTConfig } from '../../model/params';
import { comparePlayers } from '../../rl/compare';
import { SkipStreak } from '../../rl/faults';
import { RunFault } from '../../errors';
import { envRecord, presetTrainableSlot } from '../../rl/checkpointFit';

export const trainFlags: FlagSpec = {
  preset: { kind: 'string', help: 'a preset name (see README)' },
  set: { kind: 'list', help: 'config override key=value (repeatable)' },
  steps: { kind: 'int', help: 'training steps (overrides the preset)' },
  seed: { kind: 'int', help: 'run seed' },
  out: { kind: 'string', help: 'output directory (default runs/<preset>-<time>)' },
  backend: { kind: 'string', help: 'webgpu | cpu | wasm (cpu: the reference; wasm: the WebAssembly SIMD engine)' },
  at: { kind: 'list', help: 'a live change from a step on, STEP:key=value (repeatable), e.g. 50:lambdaTok=0.1' },
};

const pick = (e: EvalRecord) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'lambdaTok'));

export async function train(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, trainFlags, 'train');
  const overrides: Record<string, unknown> = parseSets(flags.set as string[] | undefined);
  if (flags.steps !== undefined) overrides.steps = flags.steps;
  if (flags.seed !== undefined) overrides.seed = flags.seed;
  const s = setup(requireFlag(flags, 'preset', 'train'), overrides);
  const changes = ((flags.at as string[] | undefined) ?? []).map((t) => parseChange(t, 1, s.config));
  const out = (flags.out as string | undefined) ?? join('runs', `${s.preset.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  prepareOutDir(out, '--out', ['config.json', 'metrics.jsonl', 'evals.jsonl', 'last.safetensors', 'best.safetensors']);
  const backend = await chooseBackend(flags.backend);
  try {
    let rolloutRows = Infinity;
    if (backend instanceof WebGpuBackend) {
      // refused before the warm start when a tensor or the whole run cannot fit this GPU even with its rollouts
      // generated in chunks (host memory as the proxy for its share)
      rolloutRows = checkGpuBudget(s.config, modelConfigFor(s.env, s.config), slotNames(s.env).length, backend.limits, memoryShare(totalmem() / 2 ** 30)).chunkRows;
      if (Number.isFinite(rolloutRows)) say(`the rollouts and evals are generated ${rolloutRows} rows at a time (all at once would not fit this GPU)`);
    }
    return (await trainRun(backend, s, out, { changes, rolloutRows })).summary;
  } finally {
    backend.destroy();
  }
}

/** What trainRun returns: train's summary, and each step's tokens and lambda_tok (for sweeps). */
export interface TrainResult { summary: TrainSummary; history: StepPoint[] }
export type TrainSummary = Record<string, unknown> & { final: Record<string, number>; best: Record<string, number> | null; wallSeconds: number };

/** How a run is made: `quiet` logs evals and every 10th step only (sweeps run many); `warm` a warm start made
 * already (a sweep's runs share it); `changes` live changes from a step on (a population member's); `label`
 * prefixes its log lines (members log side by side). */
export interface TrainRunOptions { quiet?: boolean; warm?: WarmStarts; changes?: MemberChange[]; label?: string; rolloutRows?: number }

/**
 * One run from the preset's warm start into `out` (config.json, metrics.jsonl, evals.jsonl, best and
 * last checkpoints).
 */
export async function trainRun(backend: Backend, s: RunSetup, out: string, opts: TrainRunOptions = {}): Promise<TrainResult> {
  const { quiet = false, changes = [] } = opts;
  const log = opts.label ? (m: string) => say(`[${opts.label}] ${m}`) : say;
  mkdirSync(out, { recursive: true });
  const t0 = performance.now();
  const history: StepPoint[] = [];
  const warmStart = opts.warm ?? await startSlots(backend, s);
  const trainer = new Trainer(backend, s.env, s.config, warmStart.slots);
  if (opts.rolloutRows !== undefined) trainer.rolloutRows = opts.rolloutRows;
  const applied: MemberChange[] = [];
  writeFileSync(join(out, 'config.json'), JSON.stringify({ preset: s.preset.name, backend: backend.name, config: s.config }, null, 2) + '\n');
  writeFileSync(join(out, 'metrics.jsonl'), '');
  writeFileSync(join(out, 'evals.jsonl'), '');
  const logEval = (e: EvalRecord) => {
    appendFileSync(join(out, 'evals.jsonl'), JSON.stringify(e) + '\n');
    log(`eval step ${e.step}: accuracy ${e.accuracy.toFixed(3)} tokens ${e.tokens.toFixed(2)} reward ${e.reward.toFixed(3)} ${Object.entries(e).filter(([k]) => !['step', 'accuracy', 'tokens', 'turns', 'lambdaTok', 'reward'].includes(k)).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(' ')}`);
    for (const c of trainer.curriculum.filter((x) => x.step === e.step)) log(`curriculum: ${c.label} from step ${c.step}`);
  };
  const warm = await trainer.evaluate();
  logEval(warm);
  for (const b of trainer.baselines()) log(`baseline ${b.name}: accuracy ${b.accuracy.toFixed(3)} ${Object.entries(b.extras).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(' ')}`);
  const streak = new SkipStreak();
  const updates = Math.min(s.config.minibatches, s.config.promptsPerStep * s.config.groupSize);
  for (let i = 0; i < s.config.steps; i++) {
    for (const c of changes.filter((x) => x.step === i)) {
      trainer.setHyperparams(c.partial);
      applied.push(c);
      log(`change at step ${i}: ${Object.entries(c.partial).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    }
    const before = trainer.skippedUpdates, flagsBefore = trainer.flags.length;
    const m = await trainer.step();
    history.push({ step: m.step, tokens: m.tokens, lambdaTok: m.lambda_tok });
    appendFileSync(join(out, 'metrics.jsonl'), JSON.stringify({ ...m, env: trainer.lastEnvMetrics }) + '\n');
    for (const f of trainer.flags.slice(flagsBefore)) log(`flag: ${f.message}`);
    // the same streak that pauses the page: going on would only repeat skipped updates
    const stop = streak.record(trainer.flags.slice(flagsBefore), trainer.skippedUpdates - before, updates);
    if (stop) throw new RunFault(`train stopped at step ${m.step + 1}: ${stop}. Lower lr or the temperature; the metrics so far are in ${out}`);
    if (!quiet || (m.step + 1) % 10 === 0) log(`step ${m.step + 1}/${s.config.steps} reward ${m.reward.toFixed(3)} r_task ${m.r_task.toFixed(3)} tokens ${m.tokens.toFixed(2)} silence ${m.silence_rate.toFixed(2)} clip ${m.clip_frac.toFixed(2)} lambda ${m.lambda_tok.toFixed(3)} ${m.step_time_ms.toFixed(0)} ms`);
    if ((i + 1) % s.config.evalEvery === 0 && i + 1 < s.config.steps) {
      const nFlags = trainer.flags.length;
      logEval(await trainer.evaluate());
      for (const f of trainer.flags.slice(nFlags)) log(`flag: ${f.message}`);
    }
  }
  const final = s.config.steps > 0 ? await trainer.evaluate() : warm;
  if (s.config.steps > 0) logEval(final);
  const gpt: GPTConfig = trainer.model.config;
  const extras = { ...envRecord(s.config, presetTrainableSlot(s.preset)), preset: s.preset.name, run_config: JSON.stringify(s.config) };
  writeAtomic(join(out, 'last.safetensors'), writeCheckpoint({ config: gpt, weights: await trainer.readWeights('last'), vocab: [...s.env.vocab], extras: { ...extras, step: String(trainer.stepCount) } }));
  writeAtomic(join(out, 'best.safetensors'), writeCheckpoint({ config: gpt, weights: await trainer.readWeights('best'), vocab: [...s.env.vocab], extras: { ...extras, step: String(trainer.bestEval?.step ?? 0) } }));
  // AgentPO: the frozen Actor alone, with the untrained Collaborator, and with this run's best one
  // an env with a comparison of players (AgentPO): the frozen player alone, with the untrained helper, and with this run's best one
  const comparison = s.env.comparison
    ? await comparePlayers(backend, s.env, s.config, warmStart.slots, await trainer.readWeights('best'),
      trainer.bestEval?.step ?? 0, `trained collaborator (best eval, step ${trainer.bestEval?.step ?? 0})`)
    : null;
  if (comparison) for (const r of comparison.rows) log(`${r.name}: accuracy ${r.accuracy.toFixed(3)} [${r.lo.toFixed(3)}, ${r.hi.toFixed(3)}] tokens ${r.tokens.toFixed(2)} (n ${r.n})`);
  const summary = {
    preset: s.preset.name, backend: backend.name, steps: trainer.stepCount, wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
    warmStart: pick(warm), final: pick(final), best: trainer.bestEval ? pick(trainer.bestEval) : null,
    bestStep: trainer.bestEval?.step ?? null, finalStep: trainer.stepCount,
    lambdaTok: trainer.lambdaTok, skippedUpdates: trainer.skippedUpdates, flags: trainer.flags.map((f) => f.message),
    degenerate: trainer.degenerate, curriculum: trainer.curriculum, baselines: trainer.baselines(), out,
    changes: applied, warmStartSource: warmStart.source, ...(warmStart.notices?.length ? { warmStartNotices: warmStart.notices } : {}),
    ...(comparison ? { comparison: comparison.rows } : {}),
  };
  trainer.destroy();
  return { summary, history };
}
