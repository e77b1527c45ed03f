// Adapter and device: ask for the limits the kernels need (up to what the
// adapter offers) and watch for device loss and uncaptured errors.

export interface DeviceHealth {
  lost: boolean;
  lostReason: string | null;
  /** Uncaptured errors since the last `takeErrors` (validation, out-of-memory, internal). */
  errors: string[];
}

export interface GpuDevice {
  device: GPUDevice;
  adapter: GPUAdapter; // held so it outlives the device (Dawn's Node binding frees collected objects)
  adapterInfo: string;
  /** A CPU implementation (SwiftShader, llvmpipe): kernels with workgroup barriers cost it far more than a GPU. */
  cpuAdapter: boolean;
  health: DeviceHealth;
}

// What the kernels use: at most 8 storage buffers per entry point (the
// default), 8 KiB of workgroup memory (matmul tiles), 256 invocations.
const NEEDED = {
  maxStorageBuffersPerShaderStage: 8,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
} as const;

// Bigger buffers help large batches; take whatever the adapter allows.
const TAKE_ADAPTER_MAX = ['maxStorageBufferBindingSize', 'maxBufferSize'] as const;

export class NoAdapterError extends Error {
  constructor() {
    super('WebGPU: no adapter available');
    this.name = 'NoAdapterError';
  }
}

/**
 * `limits: 'default'` takes WebGPU's default buffer limits (128 MiB binding, 256 MiB buffer) instead of the
 * adapter's largest: what many phones offer, for tests that the engine and its budget hold there.
 */
export async function requestGpuDevice(gpu: GPU, { limits = 'adapter', features = [] }: { limits?: 'adapter' | 'default'; features?: GPUFeatureName[] } = {}): Promise<GpuDevice> {
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new NoAdapterError();
  const requiredLimits: Record<string, number> = {};
  for (const [name, need] of Object.entries(NEEDED)) {
    const have = adapter.limits[name as keyof GPUSupportedLimits] as number;
    if (have < need) throw new Error(`WebGPU adapter limit ${name} = ${have}, need ${need}`);
    requiredLimits[name] = need;
  }
  if (limits === 'adapter') for (const name of TAKE_ADAPTER_MAX) requiredLimits[name] = adapter.limits[name];
  const missing = features.filter((f) => !adapter.features.has(f));
  if (missing.length > 0) throw new Error(`WebGPU adapter lacks the feature(s) ${missing.join(', ')}`);
  const device = await adapter.requestDevice({ requiredLimits, requiredFeatures: features, label: 'gspo' });
  const info = adapter.info;
  const adapterInfo = [info?.vendor, info?.architecture, info?.device, info?.description].filter(Boolean).join(' ') || 'unknown adapter';
  // (older browsers lack isFallbackAdapter; SwiftShader also names itself in the architecture)
  const cpuAdapter = info?.isFallbackAdapter === true || /swiftshader|llvmpipe|lavapipe/i.test(adapterInfo);
  const health: DeviceHealth = { lost: false, lostReason: null, errors: [] };
  void device.lost.then((lost) => {
    health.lost = true;
    health.lostReason = `${lost.reason}: ${lost.message}`;
    if (lost.reason !== 'destroyed') console.error(`WebGPU device lost (${health.lostReason})`);
  });
  device.addEventListener('uncapturederror', (event) => {
    const message = (event as GPUUncapturedErrorEvent).error.message;
    health.errors.push(message);
    console.error(`WebGPU error: ${message}`);
  });
  return { device, adapter, adapterInfo, cpuAdapter, health };
}
