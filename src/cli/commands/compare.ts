// `compare --preset P --losses A,B[,..] [--seed S] [--steps N] [--set k=v]... [--out DIR] [--backend cpu|webgpu]`:
// the same run once per loss variant, on the same seed and warm start, one after another, each in
// DIR/<variant>/ (train's files), and compare.json with each run's settings, evals and final / best eval.
// The runs differ in the loss alone (src/contract/losses.ts twinSettings: the clip range moves only when the
// importance level changes between sequence and token scale), the page's runs-table twin in the CLI.
import { join } from 'node:path';
import { clip, InputError } from '../../contract/errors';
import { checkRuns, type FailedRun } from '../jobRuns';
import { LOSS_IDS, twinSettings, type LossId } from '../../contract/losses';
import { type EvalRecord } from '../../rl/runRecord';
import { engineName, type FlagSpec, parseFlags, requireFlag } from '../args';
import { log, outOrDefault, writeAtomic, BACKEND_HELP } from '../io';
import { MEMBER_FILES, prepareJobTree } from '../outputTree';
import { JOB_FILE, onInterrupt, openJob } from '../jobResume';
import { finishedResult, RESUME_MEMBER_FILES } from '../resumeState';
import type { TrainResult } from '../trainResult';
import { parseSets, setup, startSlots } from './runSetup';
import { laneDevice, placeRuns, runLanes, settled, type LaneRun } from '../runLanes';
import { checkShorthands } from '../flagChecks';
import { readEvalsFile } from '../evalsFile';

export const compareFlags: FlagSpec = {
  preset: { kind: 'string', help: 'a preset name (see README)' },
  losses: { kind: 'string', help: 'two or more loss variants to train on the same seed, e.g. gspo,grpo' },
  seed: { kind: 'int', help: 'the seed every run shares (default: the preset\'s)' },
  steps: { kind: 'int', help: 'training steps (overrides the preset)' },
  set: { kind: 'list', help: 'config override key=value for every run (repeatable; not algorithm)' },
  out: { kind: 'string', help: 'output directory (default runs/compare-<preset>-<time>)' },
  backend: { kind: 'string', help: BACKEND_HELP },
  fresh: { kind: 'bool', help: 'start anew in an --out that holds an earlier compare (removes its files); without it the same compare continues there, and other settings are refused' },
};

/** --losses: at least two distinct variants of the loss table. */
export function parseLosses(text: string): LossId[] {
  const ids = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  for (const id of ids) if (!(LOSS_IDS as string[]).includes(id)) throw new InputError(`compare: --losses: "${clip(id)}" is not a loss variant (known: ${LOSS_IDS.join(', ')})`);
  if (new Set(ids).size !== ids.length) throw new InputError(`compare: --losses names a variant twice ("${clip(text)}")`);
  if (ids.length < 2) throw new InputError(`compare: --losses needs at least two variants, e.g. gspo,grpo; got "${clip(text)}"`);
  return ids as LossId[];
}

const evalPoint = (e: EvalRecord) => ({ step: e.step, accuracy: e.accuracy, tokens: e.tokens, reward: e.reward });

export async function compare(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, compareFlags, 'compare');
  const preset = requireFlag(flags, 'preset', 'compare');
  const losses = parseLosses(requireFlag(flags, 'losses', 'compare'));
  const overrides: Record<string, unknown> = parseSets(flags.set as string[] | undefined);
  if ('algorithm' in overrides) throw new InputError('compare: --set algorithm=... conflicts with --losses (each run takes its variant from --losses)');
  checkShorthands('compare', flags, overrides, { steps: 'steps', seed: 'seed' });
  if (flags.steps !== undefined) overrides.steps = flags.steps;
  if (flags.seed !== undefined) overrides.seed = flags.seed;
  const base = setup(preset, overrides); // checks every override once, before any run
  // each run: the base config with the loss changed (every setting validated again by setup, the same table)
  const runs = losses.map((loss) => {
    const own = { ...overrides, ...twinSettings(base.config, loss) };
    return { loss, own, s: setup(preset, own) };
  });
  const out = outOrDefault(flags.out, `compare-${preset}`);
  prepareJobTree(out, ['compare.json', JOB_FILE], losses, [...MEMBER_FILES, ...RESUME_MEMBER_FILES]); // every variant's folder and file, before anything trains
  // one run after another (--members 1) on the backend `train` would choose; every run is checked before the warm start
  const { device, backend } = await laneDevice(flags.backend, true);
  let stopWatch = () => {};
  try {
    // what decides the results: the same command continues (finished runs kept, the others from their saved state)
    const settings: Record<string, unknown> = {
      preset, losses, seed: flags.seed, steps: flags.steps, backend: 'gpu' in device ? 'webgpu' : device.engine === 'wasm' ? 'cpu' : 'reference',
      ...Object.fromEntries(Object.entries(parseSets(flags.set as string[] | undefined)).map(([k, v]) => [`--set ${k}`, v])),
    };
    const job = openJob(out, 'compare', settings, losses, ['compare.json'], flags.fresh === true);
    if (job.finished !== null) return job.finished;
    const lanes: LaneRun[] = runs.map(({ loss, own, s }) => ({ s, preset, overrides: own as LaneRun['overrides'], out: join(out, loss), label: loss, changes: [], resume: true }));
    const kept: (TrainResult | null)[] = runs.map(({ s }, i) => finishedResult(lanes[i].out, preset, s.config));
    for (const [i, k] of kept.entries()) if (k) log(`compare: ${runs[i].loss} finished in an earlier try, kept`);
    const todo = lanes.map((_, i) => i).filter((i) => kept[i] === null), toTrain = todo.map((i) => lanes[i]);
    const outcomes: ReturnType<typeof settled>[] = kept.map((k) => k ?? { fault: 'not trained' });
    if (toTrain.length) {
      const plan = placeRuns(toTrain, device, { members: 1 });
      stopWatch = onInterrupt('compare', out, () => losses); // from the warm start on
      // one warm start for all: the loss changes nothing the warm start depends on
      const warm = await startSlots(backend, base);
      for (const l of toTrain) l.warm = warm;
      const got = await runLanes(toTrain, device, plan, {
        started: ([j]) => { const i = todo[j]; log(`--- ${runs[i].loss} (seed ${runs[i].s.config.seed}, eps ${runs[i].s.config.epsLow} / ${runs[i].s.config.epsHigh}) ---`); },
      });
      todo.forEach((i, j) => { outcomes[i] = settled(got[j]); });
    }
    const failed: FailedRun[] = [];
    const rows = runs.flatMap(({ loss, s }, i) => {
      const r = outcomes[i];
      if ('fault' in r) { failed.push({ label: loss, message: r.fault }); log(`${loss}: failed: ${r.fault}`); return []; }
      const evals = readEvalsFile(join(lanes[i].out, 'evals.jsonl')).map(evalPoint);
      return [{ loss, algorithm: s.config.algorithm, epsLow: s.config.epsLow, epsHigh: s.config.epsHigh, seed: s.config.seed, out: lanes[i].out, final: r.summary.final, best: r.summary.best, evals }];
    });
    for (const r of rows) log(`${r.loss.padEnd(10)} final accuracy ${Number(r.final.accuracy).toFixed(3)} tokens ${Number(r.final.tokens).toFixed(2)}${r.best ? ` | best accuracy ${Number(r.best.accuracy).toFixed(3)} tokens ${Number(r.best.tokens).toFixed(2)} (step ${r.best.step})` : ''}`);
    const result = { preset, seed: base.config.seed, steps: base.config.steps, backend: engineName(backend.name), runs: rows, out, ...(failed.length ? { failed } : {}) };
    writeAtomic(join(out, 'compare.json'), JSON.stringify(result, null, 2) + '\n');
    if (failed.length === 0) job.done(); // a compare with failed runs stays open: run it again to retry them
    checkRuns('compare', runs.length, failed, join(out, 'compare.json'));
    return result;
  } finally {
    stopWatch();
    backend.destroy();
  }
}
