// `bench [--backend reference|cpu|webgpu] [--json] [--quick]`: per-kernel time and GFLOP/s or GB/s at a few
// sizes, and one whole training step (forward, GSPO loss, backward, AdamW) at the
// default model size. With no --backend, every engine (the reference, the CPU engine, WebGPU where
// present) runs in one process so their ratios are measured under the same load. The engines carry every
// command's names (args.ts engineName) in the flags, the tables and the JSON.
// `bench --compare`: the RL step at the page's model sizes against the dispatch floor
// and PyTorch (benchCompare.ts; docs/speed.md); with `--backend reference,cpu` several engines
// and PyTorch side by side (benchEngines.ts).
import type { Backend, Tensor } from '../../backend';
import { CpuBackend } from '../../reference/cpuBackend';
import { GPT } from '../../model/gpt';
import { AdamW, ADAMW_RL } from '../../model/optimizer';
import { paramCount, type GPTConfig } from '../../model/params';
import { mulberry32 } from '../../model/random';
import { PolicyObjective, type ObjectiveConfig } from '../../rl/objective';
import { randomPolicyBatch } from '../../rl/randomBatch';
import { InputError } from '../../contract/errors';
import { engineName, parseFlags, type FlagSpec } from '../args';
import { Trainer } from '../../rl/trainer';
import { findPreset, presetConfig } from '../../envs/presets';
import { createEnv } from '../../envs/registry';
import { BACKEND_CHOICES, checkBackendFlag, chooseBackend, log, webgpuBackend } from '../io';
import { WasmBackend } from '../../simd/wasmBackend';
import { benchCompare, checkCompareFlags, formatCompare, type CompareOptions } from './benchCompare';
import { DEFAULT_PYTHONS, TORCH_SCRIPT } from './benchTorch';
import { benchEngines, formatEngines, parseEngineList } from './benchEngines';
import { benchPopulation, formatPopulation } from './benchPopulation';
import { benchLimit, formatOfLimit, limitWords, type Limit } from './benchLimit';

export const benchFlags: FlagSpec = {
  backend: { kind: 'string', help: 'reference | cpu | webgpu (default: all three; cpu is the CPU engine, WebAssembly SIMD; reference the plain TypeScript reference; wasm = cpu); with --compare a list, e.g. reference,cpu: the engines side by side' },
  json: { kind: 'bool', help: 'print JSON instead of a table' },
  quick: { kind: 'bool', help: 'smaller sizes, fewer repetitions' },
  compare: { kind: 'bool', help: 'RL step at the page\'s model sizes: phases, GFLOP/s, GPU work, % of the dispatch floor, PyTorch side by side (docs/speed.md)' },
  'torch-script': { kind: 'string', help: 'with --compare: the PyTorch twin to run (default scripts/torch_rl_step.py)' },
  python: { kind: 'string', help: 'with --compare: the Python that runs it (default: python3, else /usr/bin/python3, the first whose torch imports)' },
  threads: { kind: 'int', help: 'the CPU engine\'s threads and, with --compare, PyTorch\'s (torch.set_num_threads); default 1 for both (GSPO_THREADS sets the engine\'s)' },
};

export const BENCH_MODEL: GPTConfig = { nLayer: 2, nHead: 4, nEmbd: 64, blockSize: 48, vocabSize: 32 };

interface Case {
  name: string;
  size: string;
  flops?: number; // per run
  bytes?: number; // per run
  setup: (b: Backend) => { run: () => void; done?: () => Promise<unknown> };
}

export interface Row { kernel: string; size: string; ms: Record<string, number>; gflops?: Record<string, number>; gbs?: Record<string, number>; perRun?: Record<string, number> }

type Counted = Backend & { counters?: Record<string, number> };

function rand(b: Backend, n: number, seed: number, scale = 1): Tensor {
  const r = mulberry32(seed), t = b.alloc(n);
  b.write(t, Float32Array.from({ length: n }, () => (r() - 0.5) * 2 * scale));
  return t;
}

function cases(quick: boolean): Case[] {
  const list: Case[] = [];
  // the default model's Linear shapes (proj 64 -> 64, MLP 64 -> 256 and 256 -> 64), then more rows
  const sizes = quick ? [[256, 64, 256]] : [[256, 64, 64], [256, 64, 256], [256, 256, 64], [1024, 64, 256], [3072, 64, 256]];
  for (const [N, IC, OC] of sizes) {
    list.push({ name: 'matmul_forward', size: `${N}x${IC}x${OC}`, flops: 2 * N * IC * OC, setup: (b) => {
      const out = b.alloc(N * OC), inp = rand(b, N * IC, 1), w = rand(b, OC * IC, 2), bias = rand(b, OC, 3);
      return { run: () => b.matmulForward(out, inp, w, bias, N, IC, OC) };
    } });
    list.push({ name: 'matmul_backward', size: `${N}x${IC}x${OC}`, flops: 4 * N * IC * OC, setup: (b) => {
      const dinp = b.alloc(N * IC), dw = b.alloc(OC * IC), db = b.alloc(OC), dout = rand(b, N * OC, 4), inp = rand(b, N * IC, 5), w = rand(b, OC * IC, 6);
      return { run: () => b.matmulBackward(dinp, dw, db, dout, inp, w, N, IC, OC) };
    } });
  }
  const BT = quick ? 480 : 3072, C = 64, B = BT / 48, T = 48, NH = 4, V = 32;
  list.push({ name: 'layernorm_forward', size: `${BT}x${C}`, bytes: 2 * BT * C * 4, setup: (b) => {
    const out = b.alloc(BT * C), m = b.alloc(BT), r = b.alloc(BT), inp = rand(b, BT * C, 7), w = rand(b, C, 8), bias = rand(b, C, 9);
    return { run: () => b.layernormForward(out, m, r, inp, w, bias, BT, C) };
  } });
  list.push({ name: 'attention_forward', size: `B${B} T${T} C${C} H${NH}`, flops: 4 * B * NH * T * T * (C / NH), setup: (b) => {
    const out = b.alloc(BT * C), att = b.alloc(B * NH * T * T), qkv = rand(b, BT * 3 * C, 10);
    return { run: () => b.attentionForward(out, att, qkv, B, T, C, NH) };
  } });
  list.push({ name: 'attention_backward', size: `B${B} T${T} C${C} H${NH}`, flops: 8 * B * NH * T * T * (C / NH), setup: (b) => {
    const out = b.alloc(BT * C), att = b.alloc(B * NH * T * T), qkv = rand(b, BT * 3 * C, 10), dqkv = b.alloc(BT * 3 * C), dpre = b.alloc(B * NH * T * T), dout = rand(b, BT * C, 11);
    b.attentionForward(out, att, qkv, B, T, C, NH);
    return { run: () => b.attentionBackward(dqkv, dpre, dout, qkv, att, B, T, C, NH) };
  } });
  list.push({ name: 'gelu_forward', size: `${BT * 4 * C}`, bytes: 2 * BT * 4 * C * 4, setup: (b) => {
    const out = b.alloc(BT * 4 * C), inp = rand(b, BT * 4 * C, 12);
    return { run: () => b.geluForward(out, inp, BT * 4 * C) };
  } });
  list.push({ name: 'logprob_forward', size: `${BT}x${V}`, bytes: BT * V * 4, setup: (b) => {
    const lp = b.alloc(BT), ent = b.alloc(BT), logits = rand(b, BT * V, 13, 3), tg = b.alloc(BT, 'i32');
    b.write(tg, Int32Array.from({ length: BT }, (_, i) => i % V));
    return { run: () => b.logprobForward(lp, ent, logits, tg, BT, V, 1) };
  } });
  const n = paramCount(BENCH_MODEL);
  list.push({ name: 'adamw', size: `${n}`, bytes: 5 * n * 4 * 2, setup: (b) => {
    const p = rand(b, n, 14), g = rand(b, n, 15), m = b.alloc(n), v = b.alloc(n), mask = b.alloc(n), scale = b.alloc(1);
    b.write(scale, [1]);
    let step = 0;
    return { run: () => b.adamw(p, g, m, v, mask, scale, n, { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, step: ++step }) };
  } });
  const S = quick ? 16 : 64;
  const cfg: ObjectiveConfig = { algorithm: 'gspo', epsLow: 3e-4, epsHigh: 4e-4, beta: 0, advantage: 'group', temperature: 1 };
  list.push({ name: 'train_step (fwd+GSPO+bwd+AdamW)', size: `S${S} T${T} L2 C64 H4 V32`, setup: (b) => {
    const model = new GPT(b, BENCH_MODEL, undefined, 1), obj = new PolicyObjective(b), opt = new AdamW(b, model, ADAMW_RL);
    const batch = randomPolicyBatch({ vocabSize: BENCH_MODEL.vocabSize, S, T, groupSize: 8, maskFrom: T / 2, oldLogpNoise: 0.01, seed: 7 });
    return {
      run: () => { model.zeroGrad(); obj.record(model, batch, cfg); opt.measure(); opt.apply(); b.submit(); },
      done: () => obj.readStats(batch), // the step's one readback
    };
  } });
  return list;
}

/** GPU work per run of a case: dispatches, submissions, readbacks, buffers and bind groups created (0 once warm). */
function delta(before: Record<string, number> | undefined, after: Record<string, number> | undefined): Record<string, number> | undefined {
  if (!before || !after) return undefined;
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
}

/** One whole RL step of the relay-silence preset (default model, P x G episodes), from random weights. */
async function rlStep(b: Counted, quick: boolean) {
  const cfg = presetConfig(findPreset('relay-silence'), quick ? { promptsPerStep: 4, evalEpisodes: 32 } : { evalEpisodes: 64 });
  const trainer = new Trainer(b, createEnv(cfg), cfg);
  await trainer.step(); // warm-up: pipelines, buffers
  const before = b.counters ? { ...b.counters } : undefined;
  const t0 = performance.now();
  const reps = quick ? 1 : 2;
  for (let i = 0; i < reps; i++) await trainer.step();
  const ms = (performance.now() - t0) / reps;
  const perStep = delta(before, b.counters);
  const phases = { ...trainer.phases };
  await trainer.evaluate();
  const evalMs = trainer.phases.eval;
  trainer.destroy();
  const per = perStep && Object.fromEntries(Object.entries(perStep).map(([k, v]) => [k, v / reps]));
  return { size: `P${cfg.promptsPerStep} G${cfg.groupSize} L${cfg.nLayer} C${cfg.nEmbd}`, ms, stepsPerSec: 1000 / ms, phases: { ...phases, eval: evalMs }, evalEpisodes: cfg.evalEpisodes, perStep: per };
}

async function time(b: Counted, c: Case, minSeconds: number, maxReps: number): Promise<{ ms: number; perRun?: Record<string, number> }> {
  const { run, done } = c.setup(b);
  // warm-up: pipelines and pools, and on the wasm engine V8's tier-up: a kernel first runs as baseline (Liftoff) code,
  // 3-10x slower, until it has been called enough; one call would time the baseline code (256x64x64: 8 GFLOP/s over
  // 10 calls against 36 once optimized)
  const warm = performance.now();
  for (let w = 0; w < maxReps && (w < 1 || performance.now() - warm < (minSeconds * 1000) / 2); w++) {
    run();
    b.submit();
    await (done ? done() : b.sync());
  }
  let reps = 0, perRun: Record<string, number> | undefined;
  const t0 = performance.now();
  while (reps < maxReps && (reps < 2 || performance.now() - t0 < minSeconds * 1000)) {
    const before = b.counters ? { ...b.counters } : undefined;
    run();
    if (done) await done(); // a step ends with its readback
    else if (b.name === 'webgpu') { b.submit(); await b.sync(); }
    perRun = delta(before, b.counters);
    reps++;
  }
  return { ms: (performance.now() - t0) / reps, perRun };
}

export async function bench(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, benchFlags, 'bench');
  // the engines and PyTorch on the same threads: --threads sets both, else one each (other commands default to every core)
  if (flags.threads !== undefined) process.env.GSPO_THREADS = String(flags.threads);
  else if ((process.env.GSPO_THREADS ?? '').trim() === '') process.env.GSPO_THREADS = '1';
  const which = flags.backend as string | undefined;
  checkCompareFlags(flags);
  const engines = which?.includes(',') ? parseEngineList(which) : undefined;
  if (engines && flags.compare !== true) throw new InputError(`bench: --backend takes a list ("${which}") only with --compare; without --compare leave --backend out to run every engine`);
  if (!engines) checkBackendFlag(which, BACKEND_CHOICES);
  if (which === 'webgpu' && flags.threads !== undefined) throw new InputError('bench: --threads applies beside the CPU engine or the reference; beside webgpu PyTorch runs on its default device');
  const opts: CompareOptions = {
    quick: flags.quick === true, pythons: flags.python !== undefined ? [flags.python as string] : DEFAULT_PYTHONS,
    script: (flags['torch-script'] as string | undefined) ?? TORCH_SCRIPT, threads: flags.threads as number | undefined,
  };
  if (engines) {
    const r = await benchEngines(engines, opts);
    if (flags.json) return r;
    process.stdout.write(formatEngines(r));
    return undefined;
  }
  if (flags.compare === true) {
    const b = await chooseBackend(which);
    try {
      const r = await benchCompare(b, opts);
      if (!flags.json) process.stdout.write(formatCompare(r)); // the cases first: the population's rows come after
      const population = await benchPopulation(b, flags.quick === true);
      if (flags.json) return { ...r, population };
      process.stdout.write(formatPopulation(population));
      return undefined;
    } finally {
      b.destroy();
    }
  }
  const backends: Backend[] = [];
  if (which === undefined || which === 'cpu') backends.push(new CpuBackend());
  if (which === undefined || which === 'wasm') backends.push(new WasmBackend());
  if (which === undefined || which === 'webgpu') {
    const { backend, reason } = await webgpuBackend();
    if (backend) backends.push(backend);
    else if (which === 'webgpu') throw new InputError(`--backend webgpu: no WebGPU adapter (${reason})`);
    else log(`notice: no WebGPU adapter (${reason}); benchmarking the CPU engines only`);
  }
  const quick = flags.quick === true;
  // the 128-bit limit of this core, measured first (each CPU engine's kernels run on one thread here)
  const limit = backends.some((b) => b.name !== 'webgpu') ? benchLimit(quick) : null;
  const rows: Row[] = [];
  for (const c of cases(quick)) {
    const row: Row = { kernel: c.name, size: c.size, ms: {} };
    for (const b of backends) {
      log(`bench ${engineName(b.name)}: ${c.name} ${c.size}`);
      const { ms, perRun } = await time(b, c, quick ? 0.2 : 0.5, quick ? 5 : 50);
      row.ms[engineName(b.name)] = ms;
      if (perRun && c.name.startsWith('train_step')) row.perRun = perRun;
      if (c.flops) (row.gflops ??= {})[engineName(b.name)] = c.flops / ms / 1e6;
      if (c.bytes) (row.gbs ??= {})[engineName(b.name)] = c.bytes / ms / 1e6;
    }
    rows.push(row);
  }
  const rl: Record<string, Awaited<ReturnType<typeof rlStep>>> = {};
  for (const b of backends) {
    log(`bench ${engineName(b.name)}: rl step (relay-silence)`);
    rl[engineName(b.name)] = await rlStep(b, quick);
  }
  const device = backends.map((b) => `${engineName(b.name)}${'adapterInfo' in b ? ` (${(b as { adapterInfo: string }).adapterInfo})` : ''}`);
  const result = { backends: device, rows, rlStep: rl, limit };
  for (const b of backends) b.destroy();
  if (flags.json) return result;
  if (limit) {
    process.stdout.write(`128-bit limit of this core: ${limitWords(limit)} (the best of ${limit.runs} runs of ` +
      `${(limit.flopPerRun / 1e6).toFixed(0)} MFLOP: ${limit.flopPerIter / 8} independent f32x4 chains, shaders/simd/peak.ts); ` +
      `"% of limit": a CPU kernel's GFLOP/s over it (one thread)\n\n`);
  }
  printTable(rows, backends.map((b) => engineName(b.name)), limit);
  for (const [name, r] of Object.entries(rl)) {
    const ph = Object.entries(r.phases).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ');
    process.stdout.write(`\n${name}: RL step (relay-silence ${r.size}) ${r.ms.toFixed(0)} ms = ${r.stepsPerSec.toFixed(3)} steps/s; phases: ${ph} (eval of ${r.evalEpisodes})` +
      (r.perStep ? `; per step: ${Object.entries(r.perStep).map(([k, v]) => `${k} ${v}`).join(', ')}` : '') + '\n');
  }
  for (const r of rows) if (r.perRun) process.stdout.write(`\nwebgpu, per ${r.kernel}: ${Object.entries(r.perRun).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
  return undefined;
}

/** The per-kernel table; with a limit, each CPU engine's GFLOP/s as a percentage of it (webgpu: none). */
export function printTable(rows: Row[], names: string[], limit: Limit | null = null): void {
  // the reference's time over each other engine's: how much faster than the reference
  const others = names.includes('reference') ? names.filter((n) => n !== 'reference') : [];
  const cpus = limit ? names.filter((n) => n !== 'webgpu') : [];
  const head = ['kernel', 'size', ...names.map((n) => `${n} ms`), ...names.map((n) => `${n} GFLOP/s|GB/s`), ...cpus.map((n) => `${n} % of limit`),
    ...others.map((n) => `reference/${n}`)];
  const body = rows.map((r) => [
    r.kernel, r.size,
    ...names.map((n) => r.ms[n].toFixed(3)),
    ...names.map((n) => (r.gflops ? `${r.gflops[n].toFixed(2)} GFLOP/s` : r.gbs ? `${r.gbs[n].toFixed(2)} GB/s` : '-')),
    ...cpus.map((n) => formatOfLimit(r.gflops?.[n], limit!.gflops)),
    ...others.map((n) => `${(r.ms.reference / r.ms[n]).toFixed(2)}x`),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write([line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n') + '\n');
}
