// `bench --compare`: the RL step at the page's model sizes (the default 2 x 4 x 64 at
// P32 x G8 and P128 x G16, the largest 8 x 8 x 256 at P32 x G8) with its phases,
// GFLOP/s (src/model/flops.ts), GPU work per step, the dispatch floor measured in the
// same run, and PyTorch's time for the same step (scripts/torch_rl_step.py) when
// torch imports. docs/speed.md explains every figure.
import type { Backend } from '../../backend';
import type { RunConfig } from '../../config';
import { InputError } from '../../contract/errors';
import { findPreset, presetConfig } from '../../envs/presets';
import { createEnv } from '../../envs/registry';
import { rlStepFlopKinds, rlStepFlopParts, type RlStepShape } from '../../model/flops';
import type { GPT } from '../../model/gpt';
import { sequenceShapes } from '../../rl/member';
import { groupRun } from '../../rl/rollout';
import { Trainer } from '../../rl/trainer';
import { log } from '../io';
import { engineName } from '../args';
import type { KernelVariant } from '../../simd/kernels';
import { benchLimit, betterLimit, type Limit } from './benchLimit';
import { formatLimitShare, splitByOp, type OpSplit } from './benchParts';
import { fmt, table } from './benchTable';
import { findTorch, runTorch, torchArgs, type GenBatch, type TorchPlace, type TorchResult } from './benchTorch';


type Counted = Backend & { counters?: Readonly<Record<string, number>>; adapterInfo?: string };

export interface CompareCase { name: string; nLayer: number; nHead: number; nEmbd: number; P: number; G: number }

/** The page's default model and its largest (src/config.ts: nLayer <= 8, nEmbd <= 256; heads do not change the FLOPs). */
export function compareCases(quick: boolean): CompareCase[] {
  const def = { nLayer: 2, nHead: 4, nEmbd: 64 }, big = { nLayer: 8, nHead: 8, nEmbd: 256 };
  return quick
    ? [{ name: 'default', ...def, P: 1, G: 2 }, { name: 'default, batch x8', ...def, P: 4, G: 4 }, { name: 'largest', ...big, P: 1, G: 2 }]
    : [{ name: 'default', ...def, P: 32, G: 8 }, { name: 'default, batch x8', ...def, P: 128, G: 16 }, { name: 'largest', ...big, P: 32, G: 8 }];
}

/** A full-size case by short name (default, batch, largest), for the profiling scripts. */
export function benchCase(short: string): CompareCase {
  const i = ['default', 'batch', 'largest'].indexOf(short);
  if (i < 0) throw new InputError(`the case is one of default, batch, largest; got ${short}`);
  return compareCases(false)[i];
}

export interface Floor { dispatchUs: number; submitMs: number; dispatchesTimed: number }

/**
 * The cost of a trivial dispatch and of one submit + sync round trip on this device, timed here:
 * N tiny GELU dispatches (one workgroup each) then a sync, against one dispatch then a sync.
 */
export async function measureFloor(b: Counted, quick: boolean): Promise<Floor | null> {
  if (!b.counters) return null;
  const n = 64, N = quick ? 200 : 2000, inp = b.alloc(n), out = b.alloc(n);
  b.write(inp, Float32Array.from({ length: n }, (_, i) => i / n));
  b.geluForward(out, inp, n);
  await b.sync(); // warm-up: pipeline, bind group
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const trips: number[] = [];
  for (let i = 0; i < (quick ? 5 : 20); i++) {
    const t0 = performance.now();
    b.geluForward(out, inp, n);
    await b.sync();
    trips.push(performance.now() - t0);
  }
  const submitMs = median(trips);
  const per: number[] = [];
  let dispatchesTimed = 0;
  for (let r = 0; r < 3; r++) {
    const d0 = b.counters.dispatches, t0 = performance.now();
    for (let i = 0; i < N; i++) b.geluForward(out, inp, n);
    await b.sync();
    const ms = performance.now() - t0, d = b.counters.dispatches - d0;
    dispatchesTimed = d;
    per.push(Math.max(0, ms - submitMs) / d);
  }
  b.free(inp);
  b.free(out);
  return { dispatchUs: median(per) * 1000, submitMs, dispatchesTimed };
}

export interface CaseResult {
  name: string; model: string; P: number; G: number; vocabSize: number; blockSize: number;
  /** Steps timed, after `warmup` untimed ones. */
  steps: number; warmup: number; ms: number; stepsPerSec: number;
  phases: { rollout: number; reward: number; update: number }; evalMs: number; evalEpisodes: number;
  flops: number; gflops: number;
  /** The step's FLOP by part (the reward computes none): rollout + update = flops. */
  flopParts: { rollout: number; update: number };
  /** On the CPU engine: the same steps again with every op timed (benchParts.ts). */
  opSplit?: OpSplit;
  perStep?: Record<string, number>;
  floorMs?: number; pctOfFloor?: number;
  generation: { path: string; fedTokens: number; forwardRows: number };
  /**
   * What `flops` counts, per step: tokens fed in generation (each sequence's context + generated - 1, a context
   * that `share` sequences hold counted 1 / share in each) and the sum of n (n + 1) over those sequences' n (the
   * same share of the context's c (c + 1)); the context positions before each context's last, whose last layer runs
   * its q, k, v alone (prefillRows, the sum of c - 1, and prefillPairs, of (c - 1) c, the same share of each); loss
   * positions (rows x T per minibatch) and the sum of rows x T (T + 1). flops = (fed + 3 loss) (24 L C^2 + 2 C V)
   * - prefillRows (18 C^2 + 2 C V) + 2 L C (fedPairs + 3 lossPairs) - 2 C prefillPairs, 4 for 3 with a reference forward.
   */
  counted: { fedTokens: number; fedPairs: number; prefillRows: number; prefillPairs: number; lossPositions: number; lossPairs: number; refForward: boolean };
  shape: { gen: GenBatch[]; trainRows: number; T: number; minibatches: number };
  /** The optimizer and loss settings of the step (relay-silence's), passed to the PyTorch twin. */
  settings: { lr: number; epsLow: number; epsHigh: number; gradClip: number; weightDecay: number; temperature: number };
}

/** Wraps each policy's forward and prefill to count the rows (B x T) they run: the generation path shows in it. */
function countForwardRows(models: GPT[]): { rows: () => number; reset: () => void } {
  let rows = 0;
  for (const m of models) {
    const forward = m.forward.bind(m), prefill = m.prefill.bind(m);
    (m as { forward: GPT['forward'] }).forward = (...a) => { rows += a[1] * a[2]; return forward(...a); };
    (m as { prefill: GPT['prefill'] }).prefill = (...a) => { rows += (a[1] / (a[6] ?? 1)) * a[2]; return prefill(...a); };
  }
  return { rows: () => rows, reset: () => { rows = 0; } };
}

/** A case's run config (relay-silence at the case's model and batch); scripts/profileStep.ts and threadSpinAB.ts step it too. */
export function caseConfig(c: CompareCase, quick: boolean): RunConfig {
  return presetConfig(findPreset('relay-silence'), {
    nLayer: c.nLayer, nHead: c.nHead, nEmbd: c.nEmbd, promptsPerStep: c.P, groupSize: c.G, evalEpisodes: quick ? c.P * c.G : 64,
  });
}

export async function measureCase(b: Counted, c: CompareCase, floor: Floor | null, quick: boolean): Promise<CaseResult> {
  const cfg = caseConfig(c, quick), rule = stepsRule(quick), fresh = () => new Trainer(b, createEnv(cfg), cfg);
  // the JIT's warm-up (stepsRule) on a run then discarded: the timed steps are a fresh run's, the work they always measured
  let jitSteps = 0;
  const first = fresh();
  try {
    for (const t0 = performance.now(); moreSteps(jitSteps, performance.now() - t0, rule.jit); jitSteps++) await first.step();
  } finally {
    first.destroy();
  }
  const trainer = fresh();
  const fwd = countForwardRows(trainer.policies.map((p) => p.model));
  try {
    // warm-up: pipelines, buffers, and the activation sets of the shapes a step meets (the first steps after one warm-up
    // ran 1.1x the later ones on the CPU engine, its arena still growing)
    for (let i = 0; i < rule.warmup; i++) await trainer.step();
    const warmup = jitSteps + rule.warmup, reps = rule.timed;
    const before = b.counters ? { ...b.counters } : undefined;
    const phases = { rollout: 0, reward: 0, update: 0 };
    let flops = 0, fed = 0, fedPairs = 0, prefillRows = 0, prefillPairs = 0, lossRows = 0, lossPositions = 0, lossPairs = 0;
    const flopParts = { rollout: 0, update: 0 };
    fwd.reset();
    const t0 = performance.now();
    const shapeOfStep = (): RlStepShape => ({
      sequences: sequenceShapes(trainer.lastRollout!.rollout.sequences),
      minibatches: trainer.lossShapes, refForward: cfg.beta > 0,
    });
    for (let i = 0; i < reps; i++) {
      const m = await trainer.step();
      flops += m.step_flops;
      const parts = rlStepFlopParts(trainer.model.config, shapeOfStep());
      flopParts.rollout += parts.rollout;
      flopParts.update += parts.update;
      for (const k of Object.keys(phases) as (keyof typeof phases)[]) phases[k] += trainer.phases[k];
      for (const q of sequenceShapes(trainer.lastRollout!.rollout.sequences)) {
        if (q.generated <= 0) continue;
        // n positions fed, the context's c of them shared by q.share sequences (src/model/flops.ts)
        const n = q.context + q.generated - 1, c = q.context, f = 1 / q.share;
        fed += n - c + c * f;
        fedPairs += n * (n + 1) - c * (c + 1) + c * (c + 1) * f;
        prefillRows += (c - 1) * f;
        prefillPairs += (c - 1) * c * f;
      }
      lossRows += trainer.lossRows;
      lossPositions += trainer.lossShapes.reduce((a, s) => a + s.rows * s.T, 0);
      lossPairs += trainer.lossShapes.reduce((a, s) => a + s.rows * s.T * (s.T + 1), 0);
    }
    const ms = (performance.now() - t0) / reps;
    const after = b.counters;
    const perStep = before && after ? Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / reps])) : undefined;
    const T = Math.max(1, Math.floor(lossPositions / Math.max(1, lossRows))); // the loss rows' mean length (rows are cut per minibatch), rounded down
    const trainForwardRows = lossPositions * (cfg.beta > 0 ? 2 : 1);
    const genRows = (fwd.rows() - trainForwardRows) / reps;
    fed /= reps;
    // the recompute path runs a whole block per generated position: many more rows than tokens fed
    const path = genRows > 1.5 * fed ? 'recompute (a forward over the padded block per generated position, no KV cache)'
      : 'incremental (each token fed about once: a KV cache or equivalent)';
    // the CPU engine's step by kind of op: the same number of steps again, every op timed (after the untimed figures above)
    const opSplit = b.name === 'wasm'
      ? await splitByOp(b, async () => { await trainer.step(); return rlStepFlopKinds(trainer.model.config, shapeOfStep()); }, reps)
      : undefined;
    await trainer.evaluate();
    const seqs = trainer.lastRollout!.rollout.sequences;
    const turns = [...new Set(seqs.map((q) => q.turn))].sort((x, y) => x - y);
    const gen = turns.map((t) => {
      const qs = seqs.filter((q) => q.turn === t);
      // the groups the generator prefills once (groupRun): none on the recompute path, nor where the prefill is one fused op
      const T = Math.min(trainer.model.config.blockSize, Math.max(...qs.map((q) => q.context.length + q.maxNew)));
      const fusedPrefill = trainer.model.fusedDecode(qs.length, T, true);
      const shared = path.startsWith('incremental') && !fusedPrefill ? groupRun(qs.map((q) => q.context)) : 1;
      return { count: qs.length, context: Math.round(qs.reduce((a, q) => a + q.context.length, 0) / qs.length), new: Math.max(...qs.map((q) => q.maxNew)), distinct: qs.length / shared };
    });
    const stepFlops = flops / reps;
    // a zeroing clear is a dispatch too (of the zero kernel; the counters keep it apart from the ops' kernels)
    const floorMs = floor && perStep ? (perStep.dispatches + perStep.clears) * floor.dispatchUs / 1000 + perStep.submissions * floor.submitMs : undefined;
    return {
      name: c.name, model: `${c.nLayer}x${c.nHead}x${c.nEmbd}`, P: c.P, G: c.G, vocabSize: trainer.model.config.vocabSize, blockSize: trainer.model.config.blockSize,
      steps: reps, warmup, ms, stepsPerSec: 1000 / ms,
      phases: { rollout: phases.rollout / reps, reward: phases.reward / reps, update: phases.update / reps },
      evalMs: trainer.phases.eval, evalEpisodes: cfg.evalEpisodes,
      flops: stepFlops, gflops: stepFlops / ms / 1e6, flopParts: { rollout: flopParts.rollout / reps, update: flopParts.update / reps }, opSplit, perStep,
      floorMs, pctOfFloor: floorMs ? (100 * ms) / floorMs : undefined,
      generation: { path, fedTokens: fed, forwardRows: genRows },
      counted: { fedTokens: fed, fedPairs: fedPairs / reps, prefillRows: prefillRows / reps, prefillPairs: prefillPairs / reps, lossPositions: lossPositions / reps, lossPairs: lossPairs / reps, refForward: cfg.beta > 0 },
      shape: { gen, trainRows: Math.round(lossRows / reps), T, minibatches: cfg.minibatches },
      settings: { lr: cfg.lr, epsLow: cfg.epsLow, epsHigh: cfg.epsHigh, gradClip: cfg.gradClip, weightDecay: cfg.weightDecay, temperature: cfg.temperature },
    };
  } finally {
    trainer.destroy();
  }
}

// ---- the command ----

export interface CompareResult {
  backend: string; device: string;
  floor: Floor | null;
  cases: CaseResult[];
  batchRatio: { stepTime: number; gflops: number; of: string } | null;
  /** The CPU engine's 128-bit limit of one core, measured in the same run, and the engine's threads (null elsewhere). */
  limit: { core: Limit; threads: number } | null;
  /** Absent where the PyTorch comparison is made once beside several engines (benchEngines.ts). */
  torch?: TorchCompare;
}

export interface TorchCompare {
  available: boolean; reason?: string; version?: string; python?: string; blas?: string; place?: TorchPlace;
  results: { case: string; ms?: number; ratio?: number; error?: string; result?: TorchResult }[];
}

export interface CompareOptions { quick: boolean; pythons: string[]; script: string; threads?: number }

/** How many steps a run takes: at least `min`, then more while it is under `seconds`, at most `max`. */
export interface StepsBound { min: number; max: number; seconds: number }
/**
 * A case's steps: `jit` on a trainer then discarded, then `warmup` untimed and `timed` timed steps of a fresh one (PyTorch's
 * twin takes as many untimed steps as both, and as many timed). The JIT's warm-up: on the CPU engine V8 compiles the
 * host's hot functions (the rollout's, the trainer's) with TurboFan on a thread of its own through the first 20-odd
 * steps of the default case, 50-100 ms of compiling each for a few of them, again after deopts; on 2 cores that
 * thread takes the second thread's core, and those steps ran 1.3x to 1.6x the others (`node --trace-opt
 * --trace-deopt`, docs/cpu-engine.md "Figures"). A step of seconds (the largest case, or any case on the reference)
 * spreads those compiles thin, so it is bounded in time. The timed steps stay a fresh run's 4th to 6th: the work
 * every figure here has measured (a longer run's steps change as the policy learns: its messages shorten).
 */
export function stepsRule(quick: boolean): { jit: StepsBound; warmup: number; timed: number } {
  return quick ? { jit: { min: 0, max: 0, seconds: 0 }, warmup: 1, timed: 1 } : { jit: { min: 1, max: 25, seconds: 5 }, warmup: 3, timed: 3 };
}
/** Whether a run of `n` steps so far, `ms` long, takes another. */
export function moreSteps(n: number, ms: number, r: StepsBound): boolean {
  return n < r.min || (n < r.max && ms < r.seconds * 1000);
}

/** This project's figures on one engine, without PyTorch. */
export async function measureEngine(b: Counted, quick: boolean): Promise<CompareResult> {
  log(`bench --compare on ${engineName(b.name)}${b.adapterInfo ? ` (${b.adapterInfo})` : ''}: measuring the dispatch floor`);
  // the CPU engine's limit is measured before the cases and after them, and the better kept: one measurement of a few
  // tens of milliseconds may meet the machine busy (V8's own threads after a large case: 45 against 52-58 GFLOP/s)
  const limitFirst = b.name === 'wasm' ? benchLimit(quick, (b as { variant?: KernelVariant }).variant) : null;
  const floor = await measureFloor(b, quick);
  const cases: CaseResult[] = [];
  for (const c of compareCases(quick)) {
    log(`bench --compare: ${c.name} ${c.nLayer}x${c.nHead}x${c.nEmbd} P${c.P} G${c.G}`);
    cases.push(await measureCase(b, c, floor, quick));
  }
  const base = cases[0], grown = cases[1];
  const batchRatio = { stepTime: grown.ms / base.ms, gflops: grown.gflops / base.gflops, of: `P${grown.P} G${grown.G} / P${base.P} G${base.G}` };
  // a CPU engine's line says its threads: PyTorch's are on its own line, and the two may differ (GSPO_THREADS without --threads)
  const threads = (b as { threads?: number }).threads;
  const name = engineName(b.name);
  // the share of the limit is the CPU engine's question (the reference is plain JavaScript; WebGPU has its floor)
  const limit = limitFirst ? { core: betterLimit(limitFirst, benchLimit(quick, limitFirst.variant)), threads: threads ?? 1 } : null;
  return { backend: name, device: b.adapterInfo ?? (threads !== undefined ? `${name}, ${threads} thread${threads === 1 ? '' : 's'}` : name), floor, cases, batchRatio, limit };
}

/** PyTorch's time for each case at the case's shapes; `ratio` is the case's ms over PyTorch's. */
export function compareTorch(cases: CaseResult[], opts: CompareOptions, place: TorchPlace | undefined): TorchCompare {
  const torch: TorchCompare = { available: false, results: [] };
  const { python, status } = findTorch(opts.pythons, opts.script);
  if (!status.available) { torch.reason = status.reason; return torch; }
  Object.assign(torch, { available: true, version: status.version, python, blas: status.blas, place });
  for (const c of cases) {
    log(`bench --compare: PyTorch ${c.name} (${python}, ${place ? `${place.device}, ${place.threads} thread(s)` : status.device})`);
    try {
      const r = runTorch(python, opts.script, torchArgs(c, c.steps, 0, place));
      torch.results.push({ case: c.name, ms: r.ms_per_step, ratio: c.ms / r.ms_per_step, result: r });
    } catch (e) {
      torch.results.push({ case: c.name, error: (e as Error).message });
    }
  }
  return torch;
}

/** PyTorch beside a CPU engine runs on the CPU at `threads` (default 1: the engines here are single-threaded). */
export const torchPlace = (engine: string, threads: number | undefined): TorchPlace | undefined =>
  engine !== 'webgpu' ? { device: 'cpu', threads: threads ?? 1 } : undefined;

export async function benchCompare(b: Counted, opts: CompareOptions): Promise<CompareResult> {
  const r = await measureEngine(b, opts.quick);
  const place = torchPlace(b.name, opts.threads);
  if (!place && opts.threads !== undefined) log(`notice: --threads ignored: beside ${engineName(b.name)} PyTorch runs on its default device`);
  return { ...r, torch: compareTorch(r.cases, opts, place) };
}


export function formatCompare(r: CompareResult): string {
  let out = `RL step (relay-silence, random weights) on ${r.backend} (${r.device}), each case the mean of its timed steps after its untimed ones (steps: timed + warm-up)\n`;
  if (r.floor) out += `dispatch floor: ${r.floor.dispatchUs.toFixed(2)} us per dispatch (${r.floor.dispatchesTimed} trivial dispatches timed), ${r.floor.submitMs.toFixed(3)} ms per submit + sync round trip\n`;
  out += '\n' + table(
    ['case', 'model', 'P x G', 'step ms', 'steps/s', 'rollout', 'reward', 'update', 'eval', 'GFLOP/step', 'GFLOP/s', 'dispatch', 'clear', 'submit', 'readback', 'upload', 'floor ms', '% floor', 'steps'],
    r.cases.map((c) => [
      c.name, c.model, `${c.P} x ${c.G}`, fmt(c.ms), fmt(c.stepsPerSec, 3), fmt(c.phases.rollout), fmt(c.phases.reward), fmt(c.phases.update),
      `${fmt(c.evalMs)} (${c.evalEpisodes})`, fmt(c.flops / 1e9, 3), fmt(c.gflops, 2),
      fmt(c.perStep?.dispatches, 0), fmt(c.perStep?.clears, 0), fmt(c.perStep?.submissions, 0), fmt(c.perStep?.readbacks, 0), fmt(c.perStep?.uploads, 0),
      fmt(c.floorMs), c.pctOfFloor === undefined ? '-' : `${c.pctOfFloor.toFixed(0)}%`, `${c.steps} + ${c.warmup ?? 1}`,
    ]),
  );
  out += '(phase and eval times in ms; eval: one greedy evaluation of (N) episodes, not part of the step; GPU work per step: dispatch = the ops\' kernels, clear = zeroing dispatches, counted apart; the floor counts both)\n';
  if (r.batchRatio) out += `batch x8 (${r.batchRatio.of}): step time ${r.batchRatio.stepTime.toFixed(2)}x, GFLOP/s ${r.batchRatio.gflops.toFixed(2)}x\n`;
  out += `generation here: ${r.cases[0]?.generation.path}\n`;
  if (r.limit) out += formatLimitShare(r.cases, r.limit.core, r.limit.threads);
  const torch = r.torch;
  if (!torch) return out;
  if (!torch.available) out += `PyTorch: not compared (${torch.reason})\n`;
  else {
    const rows = r.cases.map((c) => {
      const t = torch.results.find((x) => x.case === c.name);
      return [c.name, c.model, `${c.P} x ${c.G}`, fmt(c.ms), t?.ms === undefined ? '-' : fmt(t.ms), t?.ratio === undefined ? (t?.error ? `error: ${t.error}` : '-') : `${t.ratio.toFixed(2)}x`];
    });
    const first = torch.results.find((x) => x.result)?.result;
    out += `\nPyTorch ${torch.version}${first ? ` on ${first.device} (${first.device_name}); generation there: ${first.generation_path}` : ''}\n`;
    if (first?.blas && first.device === 'cpu') out += `BLAS: ${first.blas}\n`;
    out += table(['case', 'model', 'P x G', 'this ms', 'torch ms', 'this / torch'], rows);
  }
  return out;
}

export function checkCompareFlags(flags: Record<string, unknown>): void {
  for (const k of ['torch-script', 'python', 'threads']) if (flags[k] !== undefined && flags.compare !== true) throw new InputError(`bench: --${k} only applies with --compare`);
  for (const k of ['torch-script', 'python']) if (flags[k] === '') throw new InputError(`bench: --${k} needs a non-empty value`);
  if (flags.threads !== undefined && !((flags.threads as number) >= 1)) throw new InputError(`bench: --threads must be at least 1, got ${flags.threads}`);
}
