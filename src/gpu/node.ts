// The WebGPU backend under Node (CLI, tests): Dawn from the `webgpu` package,
// shaders read from <repo>/shaders. Without a GPU, Dawn can use SwiftShader
// (a CPU Vulkan driver shipped with Debian's chromium) via the system Vulkan loader.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NoAdapterError } from './device';
import { WebGpuBackend } from './webgpuBackend';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const SHADER_DIR = fileURLToPath(new URL('../../shaders/', import.meta.url));

export function loadShaders(dir = SHADER_DIR): Record<string, string> {
  const shaders: Record<string, string> = {};
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.wgsl')) shaders[file.slice(0, -'.wgsl'.length)] = readFileSync(dir + file, 'utf8');
  }
  return shaders;
}

const keepAlive = new Set<GPU>();

export interface NodeBackendResult {
  backend: WebGpuBackend | null;
  /** Why there is no backend ('' when there is one). */
  reason: string;
}

/** The WebGPU backend, or null with the reason (no adapter, no Vulkan driver, no 'webgpu' package). */
export async function createNodeBackend(): Promise<NodeBackendResult> {
  if (process.env.VK_ICD_FILENAMES === undefined && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
  let gpu: GPU;
  try {
    const { create, globals } = await import('webgpu');
    Object.assign(globalThis, globals);
    gpu = create([]);
    // Dawn's Node objects die when collected, taking the device with them: keep the instance alive.
    keepAlive.add(gpu);
  } catch (e) {
    return { backend: null, reason: `the 'webgpu' package could not be loaded: ${(e as Error).message}` };
  }
  try {
    // One adapter only: a second, discarded GPUAdapter crashes Dawn's Node binding when collected.
    return { backend: await WebGpuBackend.create(gpu, loadShaders()), reason: '' };
  } catch (e) {
    if (!(e instanceof NoAdapterError)) throw e;
    return {
      backend: null,
      reason: `no WebGPU adapter (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'}; without a GPU, ` +
        `install chromium (for its SwiftShader ICD ${SWIFTSHADER_ICD}) and libvulkan1)`,
    };
  }
}
