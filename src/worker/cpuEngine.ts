// The page's CPU engine: the WebAssembly SIMD kernels (src/simd) where this browser validates
// simd128, else the plain JavaScript reference, said once (console and the run's note). The
// reference stays the oracle of the tests and the CLI's `--backend cpu`.
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

/** Which CPU engine a backend is (null: not a CPU engine). */
export function cpuEngineOf(b: Backend): 'wasm' | 'reference' | null {
  return b.name === 'wasm' ? 'wasm' : b.name === 'cpu' ? 'reference' : null;
}
