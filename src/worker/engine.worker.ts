// The engine in a Web Worker, behind comlink: the page asks, the worker computes.
// (The Trainer's start/pause/step API joins this with the RL loop.)
import * as Comlink from 'comlink';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { shaders } from '../gpu/shaders.browser';
import { probeWebGpu, type GpuProbe } from '../gpu/probe';
import { selfCheck, type SelfCheckResult } from '../rl/selfCheck';
import { chooseBackend, indexedDbVerdictStore } from './gpuChoice';
import { cpuEngine } from './cpuEngine';
import type { BackendPreference } from './protocol';

const api = {
  async probe(): Promise<GpuProbe> {
    return probeWebGpu(self.navigator.gpu);
  },
  /**
   * One training step on the engine the run would use, against the CPU reference: WebGPU ('auto'), or the CPU
   * engine when that was chosen, when there is no WebGPU, or when its pipelines or the engine check fail (`note`
   * says which kernel), as the training worker chooses.
   */
  async selfCheck(prefer: BackendPreference = 'auto'): Promise<SelfCheckResult & { adapter: string; note: string | null }> {
    const { backend, note } = prefer === 'cpu' ? cpuEngine()
      : await chooseBackend({ gpu: self.navigator.gpu, shaders, store: indexedDbVerdictStore(self.indexedDB) });
    try {
      const r = await selfCheck(backend);
      return { ...r, adapter: backend instanceof WebGpuBackend ? backend.adapterInfo : backend.name === 'wasm' ? 'CPU, WebAssembly SIMD' : 'CPU', note };
    } finally {
      backend.destroy();
    }
  },
};

export type EngineApi = typeof api;
Comlink.expose(api);
