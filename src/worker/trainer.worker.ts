// The trainer in a Web Worker, behind comlink. WebGPU when navigator.gpu offers
// an adapter (unless the page asked for the CPU), else the CPU reference; warm
// starts fetched from this origin's /checkpoints/ (public/checkpoints), and
// pretrained here when there is none.
import * as Comlink from 'comlink';
import type { Backend } from '../backend';
import { probeWebGpu } from '../gpu/probe';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { shaders } from '../gpu/shaders.browser';
import { CpuBackend } from '../reference/cpuBackend';
import type { BackendPreference } from './protocol';
import { TrainerApi } from './trainerApi';

async function makeBackend(prefer: BackendPreference): Promise<Backend> {
  const gpu = self.navigator.gpu;
  if (gpu && prefer !== 'cpu') {
    const adapter = await gpu.requestAdapter().catch(() => null);
    if (adapter) {
      try {
        return await WebGpuBackend.create(gpu, shaders);
      } catch (e) {
        console.warn(`WebGPU backend failed (${(e as Error).message}); training on the CPU`);
      }
    }
  }
  return new CpuBackend();
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

Comlink.expose(new TrainerApi(makeBackend, loadWarmStart, () => probeWebGpu(self.navigator.gpu)));
