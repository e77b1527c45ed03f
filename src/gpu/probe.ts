// Which WebGPU adapter this browser (or Node) offers, in words a person can read.
export type GpuProbe = { ok: true; adapter: string } | { ok: false; reason: string };

export async function probeWebGpu(gpu: GPU | undefined): Promise<GpuProbe> {
  if (!gpu) return { ok: false, reason: 'this browser has no navigator.gpu' };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { ok: false, reason: 'navigator.gpu found no adapter (GPU blocklisted or disabled)' };
    const i = adapter.info;
    const name = [i.vendor, i.architecture, i.device, i.description].filter((s) => s && s.length > 0).join(' ');
    return { ok: true, adapter: name || 'unnamed adapter' };
  } catch (e) {
    return { ok: false, reason: `requestAdapter failed: ${(e as Error).message}` };
  }
}
