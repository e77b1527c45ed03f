// Which WebGPU adapter this browser (or Node) offers, in words a person can read.
/** fallback: the browser says the adapter is its software fallback (isFallbackAdapter). */
export type GpuProbe = { ok: true; adapter: string; fallback?: boolean } | { ok: false; reason: string };

type InfoLike = Partial<Pick<GPUAdapterInfo, 'vendor' | 'architecture' | 'device' | 'description'>> & { isFallbackAdapter?: boolean };
// older browsers: no adapter.info, but requestAdapterInfo(); isFallbackAdapter moved from the adapter to its info
type AdapterLike = { info?: InfoLike; requestAdapterInfo?: () => Promise<InfoLike>; isFallbackAdapter?: boolean };

export async function probeWebGpu(gpu: GPU | undefined): Promise<GpuProbe> {
  if (!gpu) return { ok: false, reason: 'this browser has no navigator.gpu' };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { ok: false, reason: 'navigator.gpu found no adapter (GPU blocklisted or disabled)' };
    const a = adapter as unknown as AdapterLike;
    const i: InfoLike = a.info ?? (await a.requestAdapterInfo?.().catch(() => undefined)) ?? {};
    const name = [i.vendor, i.architecture, i.device, i.description].filter((s) => s && s.length > 0).join(' ');
    const fallback = i.isFallbackAdapter === true || a.isFallbackAdapter === true;
    return { ok: true, adapter: name || 'unnamed adapter', ...(fallback ? { fallback } : {}) };
  } catch (e) {
    return { ok: false, reason: `requestAdapter failed: ${(e as Error).message}` };
  }
}
