// Node-side I/O for the CLI: backend choice, files read whole and written atomically.
import { accessSync, constants, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Backend } from '../backend';
import type { WebGpuBackend } from '../gpu/webgpuBackend';
import { clip, InputError } from '../contract/errors';
import { CpuBackend } from '../reference/cpuBackend';
import { checkThreads, MAX_THREADS } from '../simd/threads';
import { softwareRenderer } from '../gpu/software';
import { availableParallelism } from 'node:os';
import { WasmBackend } from '../simd/wasmBackend';
import { readCheckpoint, type Checkpoint } from '../model/checkpoint';
import { SafetensorsError } from '../model/safetensors';
import { readInputBytes } from './inputFile';
import { fsMessage, isFsError, writeFailed } from './fsErrors';

export const MAX_CHECKPOINT_BYTES = 512 << 20;

export function log(msg: string): void {
  process.stderr.write(msg + '\n');
}

/** A regular file of at most maxBytes (the checks are readInputBytes's, src/cli/inputFile.ts). */
export function readFileChecked(path: string, what: string, maxBytes: number): Uint8Array {
  return readInputBytes(path, what, maxBytes);
}

export function loadCheckpoint(path: string): Checkpoint {
  const bytes = readFileChecked(path, 'checkpoint', MAX_CHECKPOINT_BYTES);
  try {
    return readCheckpoint(bytes);
  } catch (e) {
    if (e instanceof SafetensorsError) throw new InputError(`checkpoint "${path}": ${e.message}`);
    throw e;
  }
}

/** A file-system failure on a path the person named: one line (exit 2), naming the path. */
function fsError(path: string, e: unknown): InputError {
  if (e instanceof InputError) return e;
  const err = e as NodeJS.ErrnoException;
  if (isFsError(err)) return new InputError(writeFailed(err, path));
  return new InputError(`cannot write "${clip(path, 200)}": ${err.code ?? ''} ${clip(String(err.message ?? e), 200)}`.replace(/\s+/g, ' ').trim());
}

/**
 * Whether a folder takes new entries: access(W_OK) says yes for root on a read-only mount's
 * permissions and for places a security module refuses, so an empty folder is made and removed.
 */
function probeWritable(dir: string, name: string): void {
  try { accessSync(dir, constants.W_OK | constants.X_OK); } catch (e) { throw new InputError(`${name} cannot be written: ${fsMessage(e as NodeJS.ErrnoException, dir)}`); }
  let probe: string;
  try { probe = mkdtempSync(join(dir, '.gspo-write-check-')); } catch (e) { throw new InputError(`${name} cannot be written: ${fsMessage(e as NodeJS.ErrnoException, dir)}`); }
  rmSync(probe, { recursive: true, force: true });
}

const isDir = (p: string): boolean | null => { try { return statSync(p).isDirectory(); } catch { return null; } };
const isLink = (p: string): boolean => { try { return lstatSync(p).isSymbolicLink(); } catch { return false; } };

/**
 * Checks, before any work, that `path` can be an output folder: an existing folder, or a path
 * whose nearest existing ancestor is a writable folder (tried with an empty folder made and
 * removed); that none of `files` inside it is a folder and none of `folders` a file. Throws an
 * InputError naming `what` and the path. Call it before the first write.
 */
/** Where a command writes when --out is not given: runs/<name>-<time>, the time with no ':' or '.' (valid on every file system). */
export const outOrDefault = (flag: unknown, name: string): string => (flag as string | undefined) ?? join('runs', `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);

export function prepareOutDir(path: string, what = '--out', files: readonly string[] = [], folders: readonly string[] = []): void {
  const name = `${what} "${clip(path, 200)}"`;
  if (path === '') throw new InputError(`${what} is empty`);
  let p = resolve(path);
  const here = isDir(p);
  if (here === false) throw new InputError(`${name} is a file, not a folder`);
  if (here === null) {
    if (isLink(p)) throw new InputError(`${name} is a link to nowhere`);
    while (isDir(p) === null && dirname(p) !== p) p = dirname(p);
    if (isDir(p) === false) throw new InputError(`${name} cannot be made: "${clip(p, 200)}" is a file, not a folder`);
  }
  probeWritable(p, name);
  if (here) {
    for (const f of files) {
      if (isDir(join(path, f))) throw new InputError(`${name}: "${clip(join(path, f), 200)}" is a folder, so the file cannot be written there`);
    }
    for (const f of folders) {
      if (isDir(join(path, f)) === false) throw new InputError(`${name}: "${clip(join(path, f), 200)}" is a file where a run's folder must go`);
    }
  }
}

/** Checks, writing nothing, that `path` can be written as a file: not a folder, in a folder prepareOutDir accepts. */
export function prepareOutFile(path: string, what = '--out'): void {
  if (path === '') throw new InputError(`${what} is empty`);
  if (isDir(path)) throw new InputError(`${what} "${clip(path, 200)}" is a folder, not a file`);
  prepareOutDir(dirname(resolve(path)), `${what}'s folder`);
}

/**
 * Nothing is written half-way: the data goes to a file in a fresh mkdtemp folder beside the
 * target (a name no one could have planted a link under), then a rename. On failure the
 * temp folder goes and the error (an InputError) names the path.
 */
export function writeAtomic(path: string, data: Uint8Array | string): void {
  writeAllAtomic([{ path, data }]);
}

/**
 * Several files, all or nothing as far as a file system allows: every one is written to a temp
 * folder first, and only when all are written are they renamed into place. Missing parent folders
 * are made; if a write fails, the folders this call made are removed again.
 */
export function writeAllAtomic(files: readonly { path: string; data: Uint8Array | string }[]): void {
  const made: string[] = [];
  const temps: { tmp: string; dir: string; path: string }[] = [];
  let current = files[0]?.path ?? '', renamed = 0;
  try {
    for (const f of files) {
      current = f.path;
      const first = mkdirSync(dirname(f.path), { recursive: true });
      if (first) made.push(first);
      const dir = mkdtempSync(join(dirname(f.path), `.${basename(f.path).slice(0, 60)}.tmp-`));
      const tmp = join(dir, 'data');
      temps.push({ tmp, dir, path: f.path });
      writeFileSync(tmp, f.data, { flag: 'wx', mode: 0o644 });
    }
    // a folder in a target's place would fail its rename half-way through: refused before any
    for (const t of temps) if (isDir(t.path)) { current = t.path; throw new InputError(`cannot write "${clip(t.path, 200)}": it is a folder`); }
    for (const t of temps) { current = t.path; renameSync(t.tmp, t.path); renamed++; }
  } catch (e) {
    if (renamed === 0) for (const m of made.reverse()) rmSync(m, { recursive: true, force: true });
    throw fsError(current, e);
  } finally {
    for (const t of temps) rmSync(t.dir, { recursive: true, force: true });
  }
}

/** Internal names (args.ts backendFlagValue): 'wasm' is the CPU engine (typed `cpu` or `wasm`), 'cpu' the reference (typed `reference`). */
export type BackendChoice = 'webgpu' | 'cpu' | 'wasm';
export const BACKEND_CHOICES = 'webgpu, cpu (the CPU engine: WebAssembly SIMD on every core; wasm is the same) or reference (the plain TypeScript reference, slow)';

/** The --backend help of the commands that take any engine. */
export const BACKEND_HELP = 'cpu | webgpu | reference (default: WebGPU on a hardware GPU, timed against the CPU engine by train; else cpu, the CPU engine on every core; wasm = cpu; reference: the plain TypeScript reference)';

/** Throws the one message for a --backend value that is none of the choices. */
export function checkBackendFlag(flag: unknown, choices = BACKEND_CHOICES): asserts flag is BackendChoice | undefined {
  if (flag !== undefined && flag !== 'webgpu' && flag !== 'cpu' && flag !== 'wasm') throw new InputError(`--backend must be ${choices}, got "${String(flag)}"`);
}

/** The reference (internal 'cpu') or the CPU engine (internal 'wasm', on wasmThreads threads). */
export function cpuEngine(choice: 'cpu' | 'wasm' = 'wasm', env: Record<string, string | undefined> = process.env): Backend {
  return choice === 'wasm' ? new WasmBackend({ threads: wasmThreads(env) }) : new CpuBackend();
}

/**
 * More threads than this stop paying for the default model here: measured only up to 2 on this project's 2-core
 * machines (2 threads: 1.63x at 2x4x64, 1.93x at 8x8x256, docs/cpu-engine.md); beyond, each thread's share of a
 * small model's matmuls shrinks while the hand-outs stay, so the default stops at 8 (GSPO_THREADS or --threads go higher).
 */
export const DEFAULT_THREADS_CAP = 8;

/**
 * The CPU engine's thread count: GSPO_THREADS (which --threads sets, src/cli/main.ts) when given, else every core
 * (os.availableParallelism()) up to DEFAULT_THREADS_CAP. An env variable under the flag, so every command that
 * takes --backend (and the member threads a population spawns) gets it without a new option in each parser.
 */
export function wasmThreads(env: Record<string, string | undefined> = process.env, cores: number = availableParallelism()): number {
  const v = env.GSPO_THREADS;
  if (v === undefined || v.trim() === '') return Math.max(1, Math.min(cores, DEFAULT_THREADS_CAP));
  const n = Number(v);
  try {
    return checkThreads(/^\s*\d+\s*$/.test(v) ? n : Number.NaN, 'GSPO_THREADS');
  } catch {
    throw new InputError(`GSPO_THREADS (or --threads) must be an integer from 1 to ${MAX_THREADS}, got "${v}"`);
  }
}

export async function webgpuBackend(): Promise<{ backend: WebGpuBackend | null; reason: string }> {
  const { createNodeBackend } = await import('../gpu/node');
  return createNodeBackend();
}

/**
 * The engine a command runs on. An explicit --backend always wins. Without one: WebGPU on a hardware adapter, and the
 * CPU engine (every core) where there is no adapter or only a software renderer (SwiftShader, llvmpipe: slower than the
 * CPU engine by far, e.g. 44 s a step against 0.1 s), said in one line. `measure` (train: a warm step of each at the
 * run's own shapes, engineChoice.ts) picks between a hardware adapter and the CPU engine by their timings instead.
 */
export async function chooseBackend(flag: unknown, measure?: (candidates: Backend[]) => Promise<Backend>): Promise<Backend> {
  checkBackendFlag(flag);
  if (flag === 'cpu' || flag === 'wasm') return cpuEngine(flag);
  const { backend, reason } = await webgpuBackend();
  if (flag === 'webgpu') {
    if (backend) return backend;
    throw new InputError(`--backend webgpu: no WebGPU adapter (${reason})`);
  }
  const soft = backend ? softwareRenderer(backend.adapterInfo) : null;
  if (backend && soft === null) return measure ? measure([backend, cpuEngine('wasm')]) : backend;
  backend?.destroy();
  const engine = cpuEngine('wasm');
  log(`notice: ${backend ? `WebGPU here is ${soft}, a software renderer` : `no WebGPU adapter (${reason})`}: using the CPU engine (WebAssembly SIMD, ${wasmThreads()} thread${wasmThreads() === 1 ? '' : 's'}); --backend webgpu uses it anyway`);
  return engine;
}
