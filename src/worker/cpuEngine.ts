// The page's CPU engine: the WebAssembly SIMD kernels (src/simd) where this browser validates
// simd128, else the plain JavaScript reference, said once (console and the run's note). The
// reference stays the oracle of the tests and the CLI's `--backend cpu`. startCpuEngine runs it on
// several threads where the page is cross-origin isolated (cpuThreads.ts), else on one, saying why.
import type { Backend } from '../backend';
import { CpuBackend } from '../reference/cpuBackend';
import { simdValidates } from '../simd/kernels';
import { WasmBackend } from '../simd/wasmBackend';

export interface CpuEngine {
  backend: Backend;
  /** Why the reference runs instead of the SIMD engine (null: the SIMD engine runs). */
  note: string | null;
}

let warned = false;

export interface CpuEngineOptions {
  /** Whether WebAssembly SIMD validates here (tests pass false). */
  simd?: () => boolean;
  /** The SIMD engine's constructor (tests pass one that throws). */
  create?: () => Backend;
  warn?: (message: string) => void;
}

export function cpuEngine({ simd = simdValidates, create = () => new WasmBackend(), warn = console.warn }: CpuEngineOptions = {}): CpuEngine {
  let why: string;
  if (simd()) {
    try {
      return { backend: create(), note: null };
    } catch (e) {
      why = `the WebAssembly SIMD engine did not start (${(e as Error).message})`;
    }
  } else why = 'this browser does not validate WebAssembly SIMD (simd128)';
  const note = `${why}: computing on the plain JavaScript CPU reference, several times slower`;
  if (!warned) { // once per worker: every later run on the CPU has the same reason
    warned = true;
    warn(note);
  }
  return { backend: new CpuBackend(), note };
}

export interface StartCpuEngineOptions extends CpuEngineOptions {
  /** The thread count and why it is one (cpuThreads.ts pageThreads). */
  threads?: number;
  threadNote?: string | null;
  /** The threaded engine's start (tests pass one that rejects). */
  startThreaded?: (threads: number) => Promise<Backend>;
}

let threadWarned = false;

/**
 * The CPU engine on `threads` threads where simd128 validates and threads > 1, its pool started without blocking
 * (WasmBackend.start); else, or when the pool does not start, cpuEngine() on one thread. A reason for one thread
 * (threadNote, or the pool's failure) joins the engine's note, said once per worker.
 */
export async function startCpuEngine({ threads = 1, threadNote = null, startThreaded = (n) => WasmBackend.start({ threads: n }), ...one }: StartCpuEngineOptions = {}): Promise<CpuEngine> {
  const warn = one.warn ?? console.warn;
  let why = threadNote;
  if (threads > 1 && (one.simd ?? simdValidates)()) {
    try {
      return { backend: await startThreaded(threads), note: null };
    } catch (e) {
      why = `one thread: the CPU engine's ${threads} threads did not start (${(e as Error).message})`;
    }
  }
  const engine = cpuEngine(one);
  if (why !== null && !threadWarned) { // once per worker, as the engine's own note
    threadWarned = true;
    warn(why);
  }
  return { backend: engine.backend, note: [why, engine.note].filter((n) => n !== null).join('; ') || null };
}

/** Threads the CPU engine backend `b` runs on (null: not the WebAssembly engine), the chunks its worker threads ran, and its kernels' build. */
export function cpuThreadsOf(b: Backend): { count: number; workerChunks: number; variant: 'simd' | 'fma' } | null {
  if (b.name !== 'wasm') return null;
  const w = b as unknown as { threads?: number; workerChunks?: number; variant?: 'simd' | 'fma' };
  return { count: w.threads ?? 1, workerChunks: w.workerChunks ?? 0, variant: w.variant ?? 'simd' };
}

/** Which CPU engine a backend is (null: not a CPU engine). */
export function cpuEngineOf(b: Backend): 'wasm' | 'reference' | null {
  return b.name === 'wasm' ? 'wasm' : b.name === 'cpu' ? 'reference' : null;
}
