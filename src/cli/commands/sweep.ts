// `sweep --preset P (--lambdas L,.. | --budgets B,.. | --over key=v,..) [--seeds S,..] [--vs-static]
// [--set k=v ...] [--at STEP:k=v[@M] ...] [--members N] [--sequential] [--out DIR]`: one `train` run per
// (value, seed), each in its own folder, and sweep.json with every run's final and best eval, its wall
// time, and the accuracy-vs-tokens frontier across the runs (final evals on the same held-out set).
// The runs train where placement.ts puts them (runLanes.ts): on the CPU engines one worker thread per
// member, as many at once as fit in memory, each bit for bit the run it would be alone; on --backend webgpu
// one stacked population stepping in lock step in one set of dispatches when the runs stack (each member
// its lone run to float tolerance), else one run after another. --sequential is one member at a time.
// --vs-static (with --budgets) follows each dual run with a static run at the lambda_tok the dual settled
// on, and compares them.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { clip, hasKey, InputError } from '../../contract/errors';
import { checkRuns, type FailedRun } from '../jobRuns';
import { checkChangeSteps, confirmRuns, RUNS_WITHOUT_YES } from '../flagChecks';
import { parseChange, changesFor, type MemberChange } from '../../rl/population';
import { laneDevice, placeRuns, runLanes, settled, type LanePlan, type LaneRun } from '../runLanes';
import { warmKey } from '../warmPool';
import { parseField, type RunConfig } from '../../config';
import { defaultSweep, parseOver, parseValues, planSweep, type SweepRun, type SweepSpec } from '../../rl/sweep';
import { paretoFrontier } from '../../rl/pareto';
import { settleReport, type SettleReport } from '../../rl/dualStatic';
import type { WarmStarts } from '../../rl/warmStart';
import { engineName, type FlagSpec, parseFlags, requireFlag } from '../args';
import { checkBackendFlag, log, outOrDefault, writeAtomic } from '../io';
import { MEMBER_FILES, prepareJobTree } from '../outputTree';
import { JOB_FILE, onInterrupt, openJob } from '../jobResume';
import { finishedResult, RESUME_MEMBER_FILES } from '../resumeState';
import { parseSets, recipeOverrides, setup, startSlots, type RunSetup } from './runSetup';
import type { TrainResult } from '../trainResult';

export const sweepFlags: FlagSpec = {
  preset: { kind: 'string', help: 'a preset name (see README)' },
  lambdas: { kind: 'string', help: 'lambda_tok values, e.g. 0,0.01,0.03,0.1,0.3 (fixed penalty)' },
  budgets: { kind: 'string', help: 'dual budgets B, e.g. 4,2,1 (lambda_tok by the dual update)' },
  over: { kind: 'string', help: 'any numeric config field and its values, e.g. scouts=1,2,3,4' },
  seeds: { kind: 'string', help: 'run seeds, e.g. 1,2 (default: the preset\'s)' },
  'vs-static': { kind: 'bool', help: 'with --budgets: also run the static lambda_tok each dual run settled on, and compare' },
  set: { kind: 'list', help: 'config override key=value for every run (repeatable)' },
  out: { kind: 'string', help: 'output directory (default runs/sweep-<preset>-<time>)' },
  backend: { kind: 'string', help: 'cpu | webgpu | reference (default and cpu: the CPU engine, members over the cores; wasm = cpu; reference: the plain TypeScript reference; webgpu: one stacked population in lock step when the runs stack, else one run after another)' },
  sequential: { kind: 'bool', help: 'one run after another (--members 1), on the chosen backend' },
  members: { kind: 'int', help: 'members training at once (default: all that fit in memory; webgpu: the most stacked in lock step)' },
  'memory-limit': { kind: 'int', help: 'MiB the population may use (default: 3/4 of the memory available now)' },
  at: { kind: 'list', help: 'a live change from a step on, to every member or to member M (plan order, from 0): STEP:key=value[@M] (repeatable)' },
  recipe: { kind: 'bool', help: 'each run with its own setting\'s recipe (docs/recipe.md: steps, temperature, a start penalty), the default off a preset\'s calibrated point; fields given with --set stay' },
  'no-recipe': { kind: 'bool', help: 'train each setting as typed, without its recipe (--vs-static does: its pairs train the same steps)' },
  yes: { kind: 'bool', help: `start a sweep of more than ${RUNS_WITHOUT_YES} runs (without it, such a sweep prints its size and stops)` },
  fresh: { kind: 'bool', help: 'start anew in an --out that holds an earlier sweep (removes its files); without it the same sweep continues there, and other settings are refused' },
};

export function specFrom(flags: Record<string, unknown>, base: RunConfig): SweepSpec {
  const given = (['lambdas', 'budgets', 'over'] as const).filter((f) => flags[f] !== undefined);
  if (given.length > 1) throw new InputError(`sweep: give one of --lambdas, --budgets, --over (got ${given.map((g) => '--' + g).join(' and ')})`);
  const seeds = flags.seeds === undefined ? [] : parseValues(String(flags.seeds), 'seed', '--seeds');
  if (flags.lambdas !== undefined) return { axis: 'lambdaTok', values: parseValues(String(flags.lambdas), 'lambdaTok', '--lambdas'), seeds };
  if (flags.budgets !== undefined) return { axis: 'budget', values: parseValues(String(flags.budgets), 'budget', '--budgets'), seeds };
  if (flags.over !== undefined) {
    const o = parseOver(String(flags.over));
    if (o.key === 'seed' && seeds.length > 0) throw new InputError('sweep: --over seed=... and --seeds both give the seeds; give one');
    return { axis: o.key, values: o.values, seeds };
  }
  return { ...defaultSweep(base), seeds };
}


interface RunRecord {
  label: string; value: number; seed: number | null; out: string; wallSeconds: number;
  final: Record<string, number>; best: Record<string, number> | null; settle: SettleReport; changes: MemberChange[];
}

/** A planned run with its overrides (the recipe's too, with --recipe), checked setup, folder and live changes. */
interface Planned { run: SweepRun; overrides: Record<string, unknown>; s: RunSetup; dir: string; changes: MemberChange[] }

const dirOf = (label: string) => label.replace(/[^A-Za-z0-9_.=-]+/g, '_');
/** The folder of a dual run's static twin (--vs-static). */
const staticDir = (run: SweepRun) => `static-B=${run.value}${run.seed !== null ? `_seed_${run.seed}` : ''}`;

/**
 * More runs than this in one sweep is a mistake (64 values x 64 seeds would be 4,096 runs). Not the cap on a
 * population (placement.ts MAX_MEMBERS): a sweep longer than one population trains in waves of at most that many.
 */
export const MAX_SWEEP_RUNS = 256;

export async function sweep(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, sweepFlags, 'sweep');
  const presetName = requireFlag(flags, 'preset', 'sweep');
  const sets = parseSets(flags.set as string[] | undefined);
  const base = setup(presetName, sets);
  const spec = specFrom(flags, base.config);
  const vsStatic = flags['vs-static'] === true;
  if (vsStatic && spec.axis !== 'budget') throw new InputError('sweep: --vs-static needs --budgets (it compares each dual run with a static lambda_tok)');
  if (vsStatic && flags.recipe === true) throw new InputError('sweep: --recipe and --vs-static: the static runs must train as many steps as the dual runs they are compared with, and the recipe would change them; give one');
  if (flags.recipe === true && flags['no-recipe'] === true) throw new InputError('sweep: --recipe and --no-recipe contradict each other; give one');
  // off a preset's calibrated point each member gets its own setting's recipe by default, as train does (docs/recipe.md)
  const useRecipe = flags['no-recipe'] !== true && !vsStatic;
  checkBackendFlag(flags.backend);
  const plan = planSweep(spec);
  if (plan.length * (vsStatic ? 2 : 1) > MAX_SWEEP_RUNS) throw new InputError(`sweep: ${plan.length * (vsStatic ? 2 : 1)} runs (${spec.values.length} values x ${Math.max(1, spec.seeds.length)} seeds${vsStatic ? ' x 2 with --vs-static' : ''}) is more than ${MAX_SWEEP_RUNS}; split it into smaller sweeps`);
  // a --set the plan overrides with another value would be silently lost
  for (const run of plan) {
    for (const [k, v] of Object.entries(run.overrides)) {
      if (hasKey(sets, k) && base.config[k as keyof RunConfig] !== v) throw new InputError(`sweep: --set ${k}=${clip(sets[k], 40)} and the sweep (run "${run.label}": ${k}=${String(v)}) both set ${k}; give one`);
    }
  }
  const atTexts = (flags.at as string[] | undefined) ?? [];
  const changes = atTexts.map((t) => parseChange(t, plan.length, base.config));
  // every run's config is checked before anything runs, so a bad combination fails at once
  const recipeLog: string[] = []; // said once every flag and path has passed its checks (an error stays one line)
  const overridesOf = (run: SweepRun): Record<string, unknown> => {
    const given = { ...sets, ...run.overrides };
    if (!useRecipe) return given;
    const r = recipeOverrides(presetName, given); // each member its own setting's recipe
    if (r.applied.length > 0 && flags.recipe !== true) recipeLog.push(`recipe: [${run.label}] off the preset's calibrated point, so its recipe applies (--no-recipe trains the setting as typed): ${r.applied.map((l) => `${l.field} = ${l.value}`).join(', ')}`);
    for (const l of r.applied) recipeLog.push(`recipe: [${run.label}] ${l.field} = ${l.value}: ${l.why}`);
    for (const l of r.kept) recipeLog.push(`recipe: [${run.label}] ${l.field} kept at your ${String(given[l.field])} (the recipe says ${l.value})`);
    if (flags.recipe === true && r.applied.length + r.kept.length === 0) recipeLog.push(`recipe: [${run.label}] the preset's calibrated point (or a setting the rule does not cover): nothing to change`);
    return r.overrides;
  };
  const planned: Planned[] = plan.map((run, i) => {
    const overrides = overridesOf(run);
    return { run, overrides, s: setup(presetName, overrides), dir: dirOf(run.label), changes: changesFor(changes, i) };
  });
  checkChangeSteps('sweep', atTexts, changes, planned.map((p) => p.s.config.steps));
  confirmRuns('sweep', planned.length * (vsStatic ? 2 : 1), planned.reduce((n, p) => n + p.s.config.steps, 0) * (vsStatic ? 2 : 1), flags.yes === true);
  const out = outOrDefault(flags.out, `sweep-${presetName}`);
  // the whole tree before anything trains: every member folder (the static twins' too) and every file a run writes
  const memberDirs = [...planned.map((p) => p.dir), ...(vsStatic ? planned.map((p) => staticDir(p.run)) : [])];
  prepareJobTree(out, ['sweep.json', JOB_FILE], memberDirs, [...MEMBER_FILES, ...RESUME_MEMBER_FILES]);
  const sequential = flags.sequential === true;
  if (sequential && (flags.members !== undefined || flags['memory-limit'] !== undefined)) throw new InputError('sweep: --members and --memory-limit size a population; --sequential runs one run at a time');
  // --sequential is a population of one member at a time (without --backend on WebGPU when there is one, as train chooses)
  const { device, backend } = await laneDevice(flags.backend, sequential);
  const lanesOf = (wave: Planned[]): LaneRun[] => wave.map((p) => ({ s: p.s, preset: presetName, overrides: p.overrides, out: join(out, p.dir), label: p.run.label, changes: p.changes }));
  const placeFor = (wave: Planned[]) => placeRuns(lanesOf(wave), device, { members: sequential ? 1 : flags.members, memoryFlag: flags['memory-limit'] });
  let lanePlan: LanePlan;
  try {
    lanePlan = placeFor(planned); // refused before the warm start, naming K and the limit
  } catch (e) {
    backend.destroy();
    throw e;
  }
  // what decides the results (not how many train at once): the same command continues, other settings are refused
  const settings: Record<string, unknown> = {
    preset: presetName, axis: spec.axis, values: spec.values, seeds: spec.seeds, 'vs-static': vsStatic, recipe: useRecipe, at: atTexts,
    backend: 'gpu' in device ? 'webgpu' : device.engine === 'wasm' ? 'cpu' : 'reference',
    ...Object.fromEntries(Object.entries(sets).map(([k, v]) => [`--set ${k}`, v])),
  };
  let job: ReturnType<typeof openJob>;
  try {
    job = openJob(out, 'sweep', settings, memberDirs, ['sweep.json'], flags.fresh === true);
  } catch (e) {
    backend.destroy();
    throw e;
  }
  if (job.finished !== null) {
    backend.destroy();
    return job.finished;
  }
  for (const line of recipeLog) log(line);
  const K = plan.length, first = lanePlan.waves[0].placement;
  log(lanePlan.mode === 'stacked-population' ? `sweep: a stacked population of ${K} members on WebGPU, ${lanePlan.membersAtOnce} in lock step at once (one set of dispatches per step)`
    : lanePlan.mode === 'population' ? `sweep: a population of ${K} members, ${lanePlan.membersAtOnce} at once (about ${Math.ceil(first.memberBytes / 2 ** 20)} MiB each; ${availableParallelism()} cores), ${flags.backend === 'cpu' ? 'the CPU reference' : 'the CPU engine (WebAssembly SIMD)'}`
    : 'gpu' in device && first.refusal && !sequential ? `sweep: on WebGPU the runs go one after another: ${first.refusal}`
    : `sweep: ${K} runs one after another on ${engineName(backend.name)}`);
  mkdirSync(out, { recursive: true });
  const t0 = performance.now();
  const warm = new Map<string, WarmStarts>();
  const warmFor = async (s: RunSetup): Promise<WarmStarts> => {
    const key = warmKey(s.config);
    if (!warm.has(key)) warm.set(key, await startSlots(backend, s));
    return warm.get(key)!;
  };
  const runs: RunRecord[] = [];
  const failed: FailedRun[] = [];
  const pairs: unknown[] = [];
  const total = plan.length * (vsStatic ? 2 : 1);
  let done = 0;

  const record = (p: Planned, r: TrainResult, budget: number | null): RunRecord => ({
    label: p.run.label, value: p.run.value, seed: p.run.seed, out: join(out, p.dir), wallSeconds: r.summary.wallSeconds,
    final: r.summary.final, best: r.summary.best, settle: settleReport(r.history, budget), changes: p.changes,
  });
  const logged = (rec: RunRecord) => log(`sweep: ${rec.label}: final accuracy ${rec.final.accuracy.toFixed(3)} tokens ${rec.final.tokens.toFixed(2)} (${rec.wallSeconds} s)`);

  /** Trains a wave of runs where the placement puts them; each one's result, null where it stopped with a fault. */
  const trainAll = async (all: Planned[], placed: LanePlan): Promise<(TrainResult | null)[]> => {
    // a run that finished in an earlier try of this sweep (same settings) is kept as it is
    const kept = all.map((p) => finishedResult(join(out, p.dir), presetName, p.s.config));
    for (const [i, r] of kept.entries()) if (r) { done++; log(`sweep: member ${all[i].run.label} finished in an earlier try, kept (${done}/${total})`); }
    const idx = all.map((_, i) => i).filter((i) => kept[i] === null), wave = idx.map((i) => all[i]);
    if (wave.length === 0) return kept;
    if (wave.length < all.length) placed = placeFor(wave);
    const lanes = lanesOf(wave);
    for (const r of lanes) { r.warm = await warmFor(r.s); r.resume = true; }
    const outcomes = await runLanes(lanes, device, placed, {
      started: (idx) => log(`sweep: training ${idx.map((i) => wave[i].run.label).join(', ')}${idx.length > 1 ? ' as one stacked population' : ''}`),
      done: (i, o) => {
        done++;
        log(`sweep: member ${wave[i].run.label} ${o.ok ? 'finished' : 'stopped'} (${done}/${total}, ${Math.round((performance.now() - t0) / 1000)} s)`);
      },
    });
    const trained = outcomes.map((o, i) => {
      const r = settled(o);
      if (!('fault' in r)) return r;
      failed.push({ label: wave[i].run.label, message: r.fault });
      log(`sweep: ${wave[i].run.label} stopped: ${r.fault}`);
      return null;
    });
    const results = [...kept];
    idx.forEach((i, j) => { results[i] = trained[j]; });
    return results;
  };
  const stopWatch = onInterrupt('sweep', out, () => memberDirs);

  try {
    const results = await trainAll(planned, lanePlan);
    const statics: { dual: RunRecord; p: Planned; lambda: number }[] = [];
    results.forEach((r, i) => {
      if (!r) return;
      const p = planned[i];
      const rec = record(p, r, spec.axis === 'budget' ? p.run.value : null);
      runs.push(rec);
      logged(rec);
      if (!vsStatic) return;
      const lambda = Number(rec.settle.meanLambdaLastThird.toFixed(4));
      const run: SweepRun = { ...p.run, label: `static lambda_tok=${lambda} (for B=${p.run.value})${p.run.seed !== null ? ` seed ${p.run.seed}` : ''}`,
        overrides: { ...p.run.overrides, lambdaMode: 'manual', lambdaTok: parseField('lambdaTok', lambda) } };
      const dir = staticDir(p.run);
      const overrides = { ...sets, ...run.overrides };
      statics.push({ dual: rec, lambda, p: { run, overrides, s: setup(presetName, overrides), dir, changes: p.changes } });
    });
    if (statics.length) {
      const wave = statics.map((x) => x.p);
      const staticResults = await trainAll(wave, placeFor(wave));
      staticResults.forEach((r, i) => {
        if (!r) return;
        const { dual, p, lambda } = statics[i];
        const st = record(p, r, p.run.value);
        runs.push(st);
        logged(st);
        pairs.push({ budget: p.run.value, seed: p.run.seed, staticLambdaTok: lambda, dual: pairView(dual), static: pairView(st) });
      });
    }
  } finally {
    stopWatch();
    backend.destroy();
  }
  const points = runs.map((r) => ({ label: r.label, value: r.value, seed: r.seed, accuracy: r.final.accuracy, tokens: r.final.tokens, out: r.out }));
  const summary = {
    preset: presetName, axis: spec.axis, values: spec.values, seeds: spec.seeds, set: sets, backend: engineName(backend.name),
    mode: lanePlan.mode, membersAtOnce: lanePlan.membersAtOnce,
    wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
    runs, frontier: paretoFrontier(points), ...(vsStatic ? { dualVsStatic: pairs } : {}), ...(failed.length ? { failed } : {}),
  };
  writeAtomic(join(out, 'sweep.json'), JSON.stringify(summary, null, 2) + '\n');
  log(`sweep: wrote ${join(out, 'sweep.json')}`);
  if (failed.length === 0) job.done(); // a sweep with failed runs stays open: run it again to retry them
  checkRuns('sweep', total, failed, join(out, 'sweep.json'));
  return summary;
}

/** What the dual-vs-static comparison shows of a run. */
function pairView(r: RunRecord) {
  return {
    finalAccuracy: r.final.accuracy, finalTokens: r.final.tokens, tokensLastThird: r.settle.tokensLastThird,
    budgetGap: r.settle.budgetGap, stepsToSettle: r.settle.stepsToSettle, meanLambdaLastThird: r.settle.meanLambdaLastThird, wallSeconds: r.wallSeconds,
  };
}
