// Software WebGPU adapters: the GPU emulated on the CPU (SwiftShader in
// Chrome, llvmpipe/lavapipe in Mesa, WARP on Windows). Training there is
// usually slower than the CPU engine, so the page trains on the CPU engine
// there unless the person asks for WebGPU.
import type { GpuState } from './types';

// the table lives beside the WebGPU code (the CLI reads it too)
import { softwareRenderer } from '../gpu/software';
export { softwareRenderer };

/** The software renderer of the probed adapter (null: a hardware GPU, none, or not probed yet). */
export const softwareOf = (gpu: GpuState): string | null => (gpu.state === 'ok' ? softwareRenderer(gpu.adapter, gpu.fallback) : null);
