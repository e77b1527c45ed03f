// What the trainer worker in the browser computes on and loads from: WebGPU when navigator.gpu offers an adapter whose pipelines build and
// whose self-check passes (unless the CPU was asked for), else the CPU engine (WebAssembly SIMD, on several threads
// where the page is cross-origin isolated; the reference where simd128 does not validate); warm starts
// fetched from this origin's /checkpoints/ (public/checkpoints).
import type { Backend } from '../backend';
import { shaders } from '../gpu/shaders.browser';
import { startCpuEngine, type CpuEngine } from './cpuEngine';
import { pageThreads, threadHost } from './cpuThreads';
import { chooseBackend, indexedDbVerdictStore } from './gpuChoice';
import type { BackendPreference } from './protocol';
import { fetchWarmStart } from './warmFetch';

// Why WebGPU was there but the CPU was chosen (pipelines failing at load, or the engine self-check), or why the CPU
// engine is the reference, for the page.
let note: string | null = null;

export const backendNote = (): string | null => note;

/** lanes: the training workers running at once on this page (this one included), among which the cores are divided. */
export async function makeBackend(prefer: BackendPreference, lanes = 1): Promise<Backend> {
  note = null;
  const cpu = (): Promise<CpuEngine> => {
    const { threads, note: threadNote } = pageThreads(threadHost(lanes));
    return startCpuEngine({ threads, threadNote });
  };
  if (prefer === 'cpu') {
    const engine = await cpu();
    note = engine.note;
    return engine.backend;
  }
  const choice = await chooseBackend({ gpu: self.navigator.gpu, shaders, store: indexedDbVerdictStore(self.indexedDB), cpu });
  note = choice.note;
  if (choice.note) console.warn(choice.note);
  return choice.backend;
}

/** public/checkpoints/<file> from this origin; null when it is not there (404, or the dev server's HTML fallback). */
export function loadWarmStart(file: string): Promise<Uint8Array | null> {
  return fetchWarmStart(new URL(`${import.meta.env.BASE_URL}checkpoints/${encodeURIComponent(file)}`, self.location.origin));
}
