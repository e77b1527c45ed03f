// Software WebGPU adapters: the GPU emulated on the CPU (SwiftShader in
// Chrome, llvmpipe/lavapipe in Mesa, WARP on Windows). Training there is
// usually slower than the CPU engine, so the page trains on the CPU engine
// there unless the person asks for WebGPU.
import type { GpuState } from './types';

const SOFTWARE = [
  { re: /swiftshader/i, name: 'SwiftShader' },
  { re: /llvmpipe|lavapipe/i, name: 'llvmpipe' },
  { re: /softpipe/i, name: 'softpipe' },
  { re: /\bwarp\b|basic render driver/i, name: 'WARP' },
];

/** The software renderer an adapter description names (or 'a fallback adapter' when the browser flags it so), or null for a hardware GPU. */
export function softwareRenderer(adapter: string, fallback = false): string | null {
  return SOFTWARE.find((s) => s.re.test(adapter))?.name ?? (fallback ? 'a fallback adapter' : null);
}

/** The software renderer of the probed adapter (null: a hardware GPU, none, or not probed yet). */
export const softwareOf = (gpu: GpuState): string | null => (gpu.state === 'ok' ? softwareRenderer(gpu.adapter, gpu.fallback) : null);
