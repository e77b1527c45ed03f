// bench --compare's PyTorch twin (scripts/torch_rl_step.py): finding a Python whose torch imports, the script's
// arguments for a case (the same model, batch, sequence lengths and warm-up), and its JSON checked.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * One generate call's shape for the PyTorch twin: `count` sequences, `context` tokens in, `new` positions generated;
 * `distinct` contexts, each `count / distinct` sequences in a row (a group's episodes: one prefill each, as here).
 */
export interface GenBatch { count: number; context: number; new: number; distinct: number }

/** What the twin needs of a measured case (benchCompare.ts CaseResult). */
export interface TwinCase {
  model: string; vocabSize: number; blockSize: number; P: number; G: number; warmup?: number;
  shape: { gen: GenBatch[]; trainRows: number; minibatches: number }; generation: { path: string };
  settings: { lr: number; epsLow: number; epsHigh: number; gradClip: number; weightDecay: number; temperature: number };
}

export const TORCH_SCRIPT = join(import.meta.dirname, '..', '..', '..', 'scripts', 'torch_rl_step.py');

export interface TorchResult {
  ms_per_step: number; steps: number; device: string; device_name: string; torch: string; generation_path: string;
  phases_ms?: Record<string, number>; threads?: number; blas?: string;
}

/** Checks the script's JSON (stdout); throws with what is wrong. */
export function parseTorchResult(stdout: string): TorchResult {
  const line = stdout.trim().split('\n').pop() ?? '';
  let o: unknown;
  try { o = JSON.parse(line); } catch { throw new Error(`not JSON: ${JSON.stringify(line.slice(0, 200))}`); }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error('not a JSON object');
  const r = o as Record<string, unknown>;
  if (typeof r.ms_per_step !== 'number' || !(r.ms_per_step > 0) || !Number.isFinite(r.ms_per_step)) throw new Error(`ms_per_step must be a positive number, got ${JSON.stringify(r.ms_per_step)}`);
  if (typeof r.steps !== 'number' || !Number.isInteger(r.steps) || r.steps < 1) throw new Error(`steps must be a whole number >= 1, got ${JSON.stringify(r.steps)}`);
  for (const k of ['device', 'device_name', 'torch', 'generation_path']) if (typeof r[k] !== 'string') throw new Error(`${k} must be a string, got ${JSON.stringify(r[k])}`);
  return r as unknown as TorchResult;
}

/** Where PyTorch runs: a CPU engine is compared with PyTorch on the CPU at a set thread count; WebGPU with its default (CUDA where present). */
export interface TorchPlace { device: 'cpu'; threads: number }

/** The script's arguments for one case: the same model, batch, sequence lengths, generation path and optimizer settings. */
export function torchArgs(c: TwinCase, reps: number, seed: number, place?: TorchPlace): string[] {
  const [nLayer, nHead, nEmbd] = c.model.split('x');
  return [
    '--n-layer', nLayer, '--n-head', nHead, '--n-embd', nEmbd, '--vocab-size', String(c.vocabSize), '--block-size', String(c.blockSize),
    '--prompts', String(c.P), '--group', String(c.G), '--minibatches', String(c.shape.minibatches),
    '--gen', c.shape.gen.map((g) => `${g.count}:${g.context}:${g.new}:${g.distinct}`).join(','), '--train-rows', String(c.shape.trainRows),
    '--gen-path', c.generation.path.startsWith('recompute') ? 'recompute' : 'kvcache',
    '--lr', String(c.settings.lr), '--eps-low', String(c.settings.epsLow), '--eps-high', String(c.settings.epsHigh),
    '--grad-clip', String(c.settings.gradClip), '--weight-decay', String(c.settings.weightDecay), '--temperature', String(c.settings.temperature),
    '--steps', String(reps), '--warmup', String(c.warmup ?? 1), '--seed', String(seed),
    ...(place ? ['--device', place.device, '--threads', String(place.threads)] : []),
  ];
}

export type TorchStatus = { available: true; version: string; device: string; blas?: string } | { available: false; reason: string };

function run(python: string, args: string[], timeoutMs: number) {
  return spawnSync(python, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 << 20 });
}

/** `python script --probe`: whether torch imports (and on what device the script would time). */
export function probeTorch(python: string, script: string): TorchStatus {
  const r = run(python, [script, '--probe'], 120_000);
  if (r.error) return { available: false, reason: `${python} could not be run (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` };
  if (r.status !== 0) return { available: false, reason: (r.stderr.trim().split('\n').pop() || `${script} --probe exited ${r.status}`) };
  try {
    const o = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { torch?: unknown; device_name?: unknown; blas?: unknown };
    if (typeof o.torch !== 'string') throw new Error('no torch version');
    return { available: true, version: o.torch, device: String(o.device_name ?? '?'), ...(typeof o.blas === 'string' ? { blas: o.blas } : {}) };
  } catch (e) {
    return { available: false, reason: `${script} --probe printed something else (${(e as Error).message})` };
  }
}

/**
 * The Pythons tried when --python is not given: the first on PATH, then the system's. A pyenv or
 * venv python3 often lacks torch while Debian's python3-torch is under /usr/bin/python3.
 */
export const DEFAULT_PYTHONS = ['python3', '/usr/bin/python3'];

/** The first of `pythons` whose torch imports; else every reason, so a missing torch is reported in words. */
export function findTorch(pythons: string[], script: string): { python: string; status: TorchStatus } {
  const reasons: string[] = [];
  for (const python of [...new Set(pythons)]) {
    const status = probeTorch(python, script);
    if (status.available) return { python, status };
    reasons.push(status.reason);
  }
  return { python: pythons[0], status: { available: false, reason: `PyTorch was not found: ${reasons.join('; ')}` } };
}

export function runTorch(python: string, script: string, args: string[]): TorchResult {
  const r = run(python, [script, ...args], 600_000);
  if (r.error) throw new Error(`${python} ${script}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${script} exited ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return parseTorchResult(r.stdout);
}
