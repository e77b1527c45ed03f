// The trainer in a Web Worker, behind comlink. WebGPU when navigator.gpu offers
// an adapter (unless the page asked for the CPU), else the CPU reference; warm
// starts fetched from this origin's /checkpoints/ (public/checkpoints), and
// pretrained here when there is none.
import * as Comlink from 'comlink';
import type { Backend } from '../backend';
import { probeWebGpu } from '../gpu/probe';
import { shaders } from '../gpu/shaders.browser';
import { CpuBackend } from '../reference/cpuBackend';
import { chooseBackend, indexedDbVerdictStore } from './gpuChoice';
import type { BackendPreference } from './protocol';
import { TrainerApi } from './trainerApi';

// Why WebGPU was there but the CPU was chosen (pipelines failing at load, or the engine self-check), for the page.
let backendNote: string | null = null;

async function makeBackend(prefer: BackendPreference): Promise<Backend> {
  backendNote = null;
  if (prefer === 'cpu') return new CpuBackend();
  const choice = await chooseBackend({ gpu: self.navigator.gpu, shaders, store: indexedDbVerdictStore(self.indexedDB) });
  backendNote = choice.note;
  if (choice.note) console.warn(choice.note);
  return choice.backend;
}

/** public/checkpoints/<file> from this origin; null when it is not there (404, or the dev server's HTML fallback). */
async function loadWarmStart(file: string): Promise<Uint8Array | null> {
  const url = new URL(`${import.meta.env.BASE_URL}checkpoints/${encodeURIComponent(file)}`, self.location.origin);
  const res = await fetch(url, { credentials: 'same-origin' });
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`GET ${url.pathname}: HTTP ${res.status}`);
  if ((res.headers.get('content-type') ?? '').includes('text/html')) return null;
  return new Uint8Array(await res.arrayBuffer());
}

Comlink.expose(new TrainerApi(makeBackend, loadWarmStart, () => probeWebGpu(self.navigator.gpu), () => backendNote));
