// `train --preset NAME [--set key=value]... [--steps N] [--seed S] [--out DIR]`: the Trainer, headless.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { WebGpuBackend } from '../../gpu/webgpuBackend';
import { checkGpuBudget, memoryShare } from '../../rl/memoryBudget';
import { modelConfigFor } from '../../rl/pretrain';
import { writeCheckpoint } from '../../model/checkpoint';
import { slotNames } from '../../rl/slots';
import { Trainer } from '../../rl/trainer';
import { type EvalRecord } from '../../rl/runRecord';
import { engineName, type FlagSpec, parseFlags, requireFlag } from '../args';
import { chooseBackend, log as say, outOrDefault, prepareOutDir, wasmThreads, writeAtomic } from '../io';
import { chooseByTiming, type EngineChoice } from '../engineChoice';
import { timeWarmStep } from '../../rl/engineTiming';
import { BACKEND_HELP } from '../io';
import { parseChange, type MemberChange } from '../../rl/population';
import { parseSets, recipeOverrides, setup, startSlots, type RunSetup } from './runSetup';
import type { Backend } from '../../backend';
import type { WarmStarts } from '../../rl/warmStart';
import type { StepPoint } from '../../rl/dualStatic';
import type { TrainResult, TrainSummary } from '../trainResult';
import { comparePlayers } from '../../rl/compare';
import { SkipStreak } from '../../rl/faults';
import { InputError, RunFault } from '../../contract/errors';
import { evalRecordProblem } from '../../rl/evalRanges';
import { envRecord, presetTrainableSlot } from '../../rl/checkpointFit';
import { checkChangeSteps, checkShorthands } from '../flagChecks';
import { checkCpuBudget, cpuLimitBytes } from '../cpuBudget';
import { loadResume, removeStaleTemps, restoreInto, resumeEveryMs, RESUME_MEMBER_FILES, saveResult, saveResume, type SavedRun } from '../resumeState';
import { JOB_FILE } from '../jobResume';
import { openTrain } from '../trainResume';
import { trainableSlot } from '../../rl/warmStart';

export const trainFlags: FlagSpec = {
  preset: { kind: 'string', help: 'a preset name (see README)' },
  set: { kind: 'list', help: 'config override key=value (repeatable)' },
  steps: { kind: 'int', help: 'training steps (overrides the preset)' },
  seed: { kind: 'int', help: 'run seed' },
  out: { kind: 'string', help: 'output directory (default runs/<preset>-<time>)' },
  backend: { kind: 'string', help: BACKEND_HELP },
  recipe: { kind: 'bool', help: 'apply the setting\'s recipe (steps, temperature, a start penalty: docs/recipe.md); the default off a preset\'s calibrated point; fields given with --set or --steps stay' },
  'no-recipe': { kind: 'bool', help: 'train the setting as typed, without its recipe' },
  at: { kind: 'list', help: 'a live change from a step on, STEP:key=value (repeatable), e.g. 50:lambdaTok=0.1' },
  fresh: { kind: 'bool', help: 'start anew in an --out that holds an earlier train (removes its files); without it the same train continues there from its saved state, and other settings are refused' },
};

const pick = (e: EvalRecord) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'lambdaTok'));

export async function train(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, trainFlags, 'train');
  const overrides: Record<string, unknown> = parseSets(flags.set as string[] | undefined);
  checkShorthands('train', flags, overrides, { steps: 'steps', seed: 'seed' });
  if (flags.steps !== undefined) overrides.steps = flags.steps;
  if (flags.seed !== undefined) overrides.seed = flags.seed;
  const presetName = requireFlag(flags, 'preset', 'train');
  // off a preset's calibrated point the setting's recipe applies by default (docs/recipe.md); --no-recipe trains it as typed
  if (flags.recipe === true && flags['no-recipe'] === true) throw new InputError('train: --recipe and --no-recipe contradict each other; give one');
  let recipe: { applied: string[]; kept: string[] } | null = null;
  if (flags['no-recipe'] !== true) {
    const r = recipeOverrides(presetName, overrides);
    if (r.applied.length > 0) say(`recipe: off the preset's calibrated point, so its recipe applies (--no-recipe trains the setting as typed): ${r.applied.map((l) => `${l.field} = ${l.value}`).join(', ')}`);
    for (const l of r.applied) say(`recipe: ${l.field} = ${l.value}: ${l.why}`);
    for (const l of r.kept) say(`recipe: ${l.field} kept at your ${String(overrides[l.field])} (the recipe says ${l.value}: ${l.why})`);
    if (flags.recipe === true && r.applied.length + r.kept.length === 0) say('recipe: this setting is the preset\'s calibrated point (or one the rule does not cover): nothing to change');
    if (r.applied.length + r.kept.length > 0) recipe = { applied: r.applied.map((l) => l.field), kept: r.kept.map((l) => l.field) };
    Object.assign(overrides, r.overrides);
  }
  const s = setup(presetName, overrides);
  const changes = ((flags.at as string[] | undefined) ?? []).map((t) => parseChange(t, 1, s.config));
  checkChangeSteps('train', (flags.at as string[] | undefined) ?? [], changes, [s.config.steps]);
  const out = outOrDefault(flags.out, s.preset.name);
  prepareOutDir(out, '--out', ['config.json', 'metrics.jsonl', 'evals.jsonl', 'last.safetensors', 'best.safetensors', ...RESUME_MEMBER_FILES, JOB_FILE]);
  // no --backend and a hardware GPU: a warm step of each at this run's shapes picks the faster (engineChoice.ts)
  let engineChoice: EngineChoice | null = null;
  const backend = await chooseBackend(flags.backend, async (candidates) => {
    const key = [...candidates.map((c) => (c instanceof WebGpuBackend ? c.adapterInfo : `${c.name}:${wasmThreads()}`)), JSON.stringify(modelConfigFor(s.env, s.config)), `P${s.config.promptsPerStep}xG${s.config.groupSize}`].join('|');
    const r = await chooseByTiming(candidates, key, (b) => timeWarmStep(b, s.env, s.config));
    engineChoice = r.choice;
    say(`engine: ${r.choice.line}`);
    return r.backend;
  });
  try {
    let rolloutRows = Infinity;
    if (backend instanceof WebGpuBackend) {
      // refused before the warm start when a tensor or the whole run cannot fit this GPU even with its rollouts
      // generated in chunks (host memory as the proxy for its share)
      rolloutRows = checkGpuBudget(s.config, modelConfigFor(s.env, s.config), slotNames(s.env).length, backend.limits, memoryShare(totalmem() / 2 ** 30)).chunkRows;
      if (Number.isFinite(rolloutRows)) say(`the rollouts and evals are generated ${rolloutRows} rows at a time (all at once would not fit this GPU)`);
    } else checkCpuBudget(s.config, modelConfigFor(s.env, s.config), slotNames(s.env).length, cpuLimitBytes(undefined));
    // the same command into the same --out continues from the saved state; other settings are refused (trainResume.ts)
    const job = openTrain(out, s, (flags.at as string[] | undefined) ?? [], backend, flags.fresh === true);
    if (job.finished) return { ...job.finished, ...(recipe ? { recipe } : {}) };
    let summary: TrainSummary;
    try {
      summary = (await trainRun(backend, s, out, { changes, rolloutRows, resume: true, stepping: job.watch })).summary;
    } finally { job.stopWatch(); }
    job.done();
    return { ...summary, ...(engineChoice ? { engineChoice } : {}), ...(recipe ? { recipe } : {}) };
  } finally {
    backend.destroy();
  }
}


/** How a run is made: `quiet` logs evals and every 10th step only (sweeps run many); `warm` a warm start made
 * already (a sweep's runs share it); `changes` live changes from a step on (a population member's); `label`
 * prefixes its log lines (members log side by side). */
export interface TrainRunOptions {
  quiet?: boolean; warm?: WarmStarts; changes?: MemberChange[]; label?: string; rolloutRows?: number; resume?: boolean;
  /** Called as the first step starts (after the warm start, which may be a long pretraining that never yields to a signal handler). */
  stepping?: () => void;
  /** Called once the steps and the final eval are done, before the Trainer is destroyed (a lesson's check reads its members' flags and best eval). */
  inspect?: (trainer: Trainer) => void;
}

/**
 * One member of a run: its setup, its folder, its warm start (absent: made here) and its log label. `resume` (a lone
 * run of a job, resumeState.ts): continues from the state saved in its folder, saves its state at every eval and at
 * most every GSPO_RESUME_EVERY_MS (10 s) between, and leaves result.json when it finishes.
 */
export interface RunMember { s: RunSetup; out: string; warm?: WarmStarts; label?: string; resume?: boolean }

/**
 * One run from the preset's warm start into `out` (config.json, metrics.jsonl, evals.jsonl, best and
 * last checkpoints): a population of one. Throws a RunFault when its updates are skipped step after step.
 */
export async function trainRun(backend: Backend, s: RunSetup, out: string, opts: TrainRunOptions = {}): Promise<TrainResult> {
  const [r] = await trainMembers(backend, [{ s, out, warm: opts.warm, label: opts.label, resume: opts.resume }], opts.changes ?? [], opts);
  if ('fault' in r) throw new RunFault(r.fault);
  return r;
}

/**
 * A run of K >= 1 members stepping together (one Trainer: K > 1 stacks them, populationPlan.ts), each member's
 * folder getting what a lone run writes. `changes` name a member (its index) or all (null). Returns each member's
 * result, or its fault when its updates were skipped step after step (a lone run stops there; a stacked member
 * cannot leave the batch, so it steps on with its updates skipped and is reported as stopped).
 */
export async function trainMembers(backend: Backend, members: RunMember[], changes: MemberChange[], opts: Omit<TrainRunOptions, 'warm' | 'changes' | 'label'> = {}): Promise<(TrainResult | { fault: string })[]> {
  const t0 = performance.now(), s0 = members[0].s, K = members.length, quiet = opts.quiet ?? K > 1;
  const logs = members.map((m) => (m.label ? (x: string) => say(`[${m.label}] ${x}`) : say));
  const warms: WarmStarts[] = [];
  for (const m of members) warms.push(m.warm ?? await startSlots(backend, m.s));
  const slot = slotNames(s0.env)[0];
  // a lone run of a job resumes from the state in its folder (not with a curriculum: its streak is not in the state)
  const resumable = K === 1 && members[0].resume === true && !s0.env.curriculum;
  if (resumable) removeStaleTemps(members[0].out);
  const saved: SavedRun | null = resumable ? loadResume(members[0].out, s0.preset.name, s0.config, logs[0]) : null;
  // resumed: built from its best weights (the Trainer's best checkpoint), then restored to the last ones and the counters
  const startSlots0 = saved ? { ...warms[0].slots, [trainableSlot(warms[0].slots) ?? slot]: { ...warms[0].slots[trainableSlot(warms[0].slots) ?? slot], weights: saved.best } } : warms[0].slots;
  const trainer = K === 1 ? new Trainer(backend, s0.env, s0.config, startSlots0)
    : new Trainer(backend, s0.env, members.map((m) => m.s.config), warms.map((w) => w.slots[slot].weights));
  try {
    if (opts.rolloutRows !== undefined) trainer.rolloutRows = opts.rolloutRows;
    const histories: StepPoint[][] = members.map(() => []), applied: MemberChange[][] = members.map(() => []);
    const faults: (string | null)[] = members.map(() => null), streaks = members.map(() => new SkipStreak());
    for (const m of members) {
      mkdirSync(m.out, { recursive: true });
      writeFileSync(join(m.out, 'config.json'), JSON.stringify({ preset: m.s.preset.name, backend: engineName(backend.name), config: m.s.config }, null, 2) + '\n');
      if (saved) continue;
      writeFileSync(join(m.out, 'metrics.jsonl'), '');
      writeFileSync(join(m.out, 'evals.jsonl'), '');
    }
    if (saved) {
      // the files as they were at the saved step: its metrics lines, its evals (as they were written)
      restoreInto(trainer, saved);
      const at = saved.counters.step, out0 = members[0].out;
      let lines: string[] = [];
      try { lines = readFileSync(join(out0, 'metrics.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== ''); } catch { /* none kept */ }
      const kept = lines.filter((l) => { try { return (JSON.parse(l) as { step: number }).step < at; } catch { return false; } });
      writeFileSync(join(out0, 'metrics.jsonl'), kept.map((l) => l + '\n').join(''));
      writeFileSync(join(out0, 'evals.jsonl'), trainer.members[0].evals.map((e) => JSON.stringify(e) + '\n').join(''));
      histories[0].push(...saved.counters.history);
      for (const c of changes.filter((x) => x.step < at)) applied[0].push(c);
      logs[0](`resumed at step ${at} of ${s0.config.steps} from ${join(out0, 'resume.safetensors')}${kept.length !== at ? ` (metrics.jsonl keeps ${kept.length} of its ${at} steps' lines)` : ''}`);
    }
    const every = resumeEveryMs();
    let lastSave = performance.now();
    const logEvals = (recs: EvalRecord[]) => recs.forEach((e, k) => {
      // the writer checks what every reader checks (src/rl/evalRanges.ts): a figure out of its range is never written
      const bad = evalRecordProblem(e as unknown as Record<string, number>);
      if (bad) throw new RunFault(`eval at step ${e.step}: ${bad}; the run's figures cannot be trusted, so it stops`);
      appendFileSync(join(members[k].out, 'evals.jsonl'), JSON.stringify(e) + '\n');
      logs[k](`eval step ${e.step}: accuracy ${e.accuracy.toFixed(3)} tokens ${e.tokens.toFixed(2)} reward ${e.reward.toFixed(3)} ${Object.entries(e).filter(([x]) => !['step', 'accuracy', 'tokens', 'turns', 'lambdaTok', 'reward'].includes(x)).map(([x, v]) => `${x} ${v.toFixed(2)}`).join(' ')}`);
      for (const c of trainer.curriculum.filter((x) => x.step === e.step)) logs[k](`curriculum: ${c.label} from step ${c.step}`);
      for (const f of trainer.members[k].flags.filter((x) => x.step === e.step && (x.kind === 'collapse' || x.kind === 'degenerate'))) logs[k](`flag: ${f.message}`);
    });
    const warm = saved ? [trainer.members[0].evals[0]] : await trainer.evaluateAll();
    if (!saved) logEvals(warm);
    for (const b of trainer.baselines()) say(`baseline ${b.name}: accuracy ${b.accuracy.toFixed(3)} ${Object.entries(b.extras).map(([x, v]) => `${x} ${v.toFixed(2)}`).join(' ')}`);
    const steps = s0.config.steps;
    opts.stepping?.();
    for (let i = trainer.stepCount; i < steps; i++) {
      for (const c of changes.filter((x) => x.step === i)) {
        // a lone run's changes are its own (a sweep member's keep their index in the sweep, for its record)
        trainer.setHyperparams(c.partial, K === 1 ? null : c.member);
        for (let k = 0; k < K; k++) if (K === 1 || c.member === null || c.member === k) applied[k].push(c);
        say(`change at step ${i}${c.member === null || K === 1 ? '' : ` (member ${members[c.member].label ?? c.member})`}: ${Object.entries(c.partial).map(([x, v]) => `${x}=${v}`).join(' ')}`);
      }
      // a turn of the event loop: on the CPU engine a step never leaves the microtask queue, and Ctrl-C's handler (jobResume.ts) waits for one
      await new Promise((r) => setImmediate(r));
      const before = trainer.members.map((m) => ({ skipped: m.skippedUpdates, flags: m.flags.length }));
      const ms = await trainer.stepAll();
      const updates = Math.min(trainer.config.minibatches, trainer.config.promptsPerStep * trainer.config.groupSize);
      ms.forEach((m, k) => {
        const member = trainer.members[k], out = members[k].out, newFlags = member.flags.slice(before[k].flags);
        histories[k].push({ step: m.step, tokens: m.tokens, lambdaTok: m.lambda_tok });
        appendFileSync(join(out, 'metrics.jsonl'), JSON.stringify({ ...m, env: member.lastEnvMetrics }) + '\n');
        for (const f of newFlags) logs[k](`flag: ${f.message}`);
        // the same streak that pauses the page: going on would only repeat skipped updates
        const stop = streaks[k].record(newFlags, member.skippedUpdates - before[k].skipped, updates);
        if (stop && !faults[k]) faults[k] = `train stopped at step ${m.step + 1}: ${stop}. Lower lr or the temperature; the metrics so far are in ${out}`;
        if (!quiet || (m.step + 1) % 10 === 0) logs[k](`step ${m.step + 1}/${steps} reward ${m.reward.toFixed(3)} r_task ${m.r_task.toFixed(3)} tokens ${m.tokens.toFixed(2)} silence ${m.silence_rate.toFixed(2)} clip ${m.clip_frac.toFixed(2)} lambda ${m.lambda_tok.toFixed(3)} ${m.step_time_ms.toFixed(0)} ms`);
      });
      if (faults.every((f) => f !== null)) break; // every member stopped (a lone run: at once)
      const evaluated = (i + 1) % s0.config.evalEvery === 0 && i + 1 < steps;
      if (evaluated) logEvals(await trainer.evaluateAll());
      if (resumable && (evaluated || performance.now() - lastSave >= every)) {
        await saveResume(members[0].out, trainer, 0, s0.preset.name, s0.config, histories[0]);
        lastSave = performance.now();
      }
    }
    if (K === 1 && faults[0]) return [{ fault: faults[0] }];
    const final = trainer.stepCount > 0 && trainer.evals[trainer.evals.length - 1]?.step !== trainer.stepCount ? await trainer.evaluateAll() : warm;
    if (final !== warm) logEvals(final);
    opts.inspect?.(trainer);
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
      // an env with a comparison of players (AgentPO, a lone run): the frozen player alone, with the untrained helper, and with this run's best one
      const comparison = K === 1 && s0.env.comparison
        ? await comparePlayers(backend, s0.env, s0.config, warms[0].slots, await trainer.readWeights('best'),
          member.bestEval?.step ?? 0, `trained collaborator (best eval, step ${member.bestEval?.step ?? 0})`)
        : null;
      if (comparison) for (const r of comparison.rows) logs[k](`${r.name}: accuracy ${r.accuracy.toFixed(3)} [${r.lo.toFixed(3)}, ${r.hi.toFixed(3)}] tokens ${r.tokens.toFixed(2)} (n ${r.n})`);
      const summary = {
        preset: m.s.preset.name, backend: engineName(backend.name), steps: trainer.stepCount, wallSeconds,
        warmStart: pick(warm[k]), final: pick(final[k]), best: member.bestEval ? pick(member.bestEval) : null,
        bestStep: member.bestEval?.step ?? null, finalStep: trainer.stepCount,
        lambdaTok: member.lambdaTok, skippedUpdates: member.skippedUpdates, flags: member.flags.map((f) => f.message),
        degenerate: member.degenerate, curriculum: trainer.curriculum, baselines: trainer.baselines(), out: m.out,
        changes: applied[k], warmStartSource: warms[k].source, ...(warms[k].notices?.length ? { warmStartNotices: warms[k].notices } : {}),
        ...(comparison ? { comparison: comparison.rows } : {}), ...(K > 1 ? { stacked: { members: K } } : {}),
      };
      results.push({ summary, history: histories[k] });
      // kept by the job even where no state was saved on the way (a stacked member, a curriculum): a finished run is not retrained
      if (m.resume === true) saveResult(m.out, m.s.preset.name, m.s.config, { summary, history: histories[k] });
    }
    return results;
  } finally {
    trainer.destroy();
  }
}
