// The engine in a Web Worker, behind comlink: the page asks, the worker computes.
// (The Trainer's start/pause/step API joins this with the RL loop.)
import * as Comlink from 'comlink';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { shaders } from '../gpu/shaders.browser';
import { probeWebGpu, type GpuProbe } from '../gpu/probe';
import { CpuBackend } from '../reference/cpuBackend';
import { selfCheck, type SelfCheckResult } from '../rl/selfCheck';

const api = {
  async probe(): Promise<GpuProbe> {
    return probeWebGpu(self.navigator.gpu);
  },
  /** One training step on WebGPU (or the CPU when there is none) against the CPU reference. */
  async selfCheck(): Promise<SelfCheckResult & { adapter: string }> {
    const gpu = self.navigator.gpu;
    const backend = gpu ? await WebGpuBackend.create(gpu, shaders) : new CpuBackend();
    try {
      const r = await selfCheck(backend);
      return { ...r, adapter: backend instanceof WebGpuBackend ? backend.adapterInfo : 'CPU' };
    } finally {
      backend.destroy();
    }
  },
};

export type EngineApi = typeof api;
Comlink.expose(api);
