// Loading the WebGPU backend: the device, every shader compiled, and (`prepare: 'all'`) every pipeline variant this
// adapter's layouts can dispatch built up front, so a pipeline the browser rejects is named before a run instead of
// failing mid-step.
import { requestGpuDevice } from './device';
import { rowMode } from './kernels/rows';
import { pipelineVariants } from './kernels/variants';
import type { PipelineFailure } from './pipelines';
import { GpuProfiler } from './profiler';
import { GpuRuntime } from './runtime';

/** Pipelines that failed to compile or validate at load, each named (shader:entry:constants). */
export class PipelineLoadError extends Error {
  constructor(readonly failures: PipelineFailure[]) {
    super(`WebGPU pipelines failed at load: ${failures.map((f) => `${f.key} (${f.message})`).join('; ')}`);
    this.name = 'PipelineLoadError';
  }
}

/**
 * `prepare: 'lazy'` skips building every pipeline variant at load (each is then built on first use): for test processes
 * on a CPU adapter, where a build costs most of a second and a test file needs a few of them. `limits: 'default'`: see
 * requestGpuDevice. `profile`: time every dispatch with timestamp queries (profiler.ts; needs the adapter's 'timestamp-query').
 */
export interface BackendOptions { prepare?: 'all' | 'lazy'; limits?: 'adapter' | 'default'; profile?: boolean }

/** The runtime over a new device, its shaders compiled (and its pipelines built); destroyed again when any fails. */
export async function loadRuntime(gpu: GPU, shaders: Record<string, string>,
  { prepare = 'all', limits = 'adapter', profile = false }: BackendOptions): Promise<{ rt: GpuRuntime; adapterInfo: string }> {
  const { device, adapter, adapterInfo, cpuAdapter, health } = await requestGpuDevice(gpu, { limits, features: profile ? ['timestamp-query'] : [] });
  const rt = new GpuRuntime(device, health, shaders, cpuAdapter);
  if (profile) rt.profiler = new GpuProfiler(device);
  rt.keepAlive.push(gpu, adapter);
  try {
    await rt.pipelines.checkAll();
    if (prepare === 'all') {
      const failures = await rt.pipelines.prepare(pipelineVariants(rowMode(rt)));
      if (failures.length > 0) throw new PipelineLoadError(failures);
    }
  } catch (e) {
    rt.destroy();
    throw e;
  }
  return { rt, adapterInfo };
}
