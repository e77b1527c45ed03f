// The WebGPU backend under Node (CLI, tests): Dawn from the `webgpu` package,
// shaders read from <repo>/shaders. Without a GPU, Dawn can use SwiftShader
// (a CPU Vulkan driver shipped with Debian's chromium) via the system Vulkan loader.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NoAdapterError } from './device';
import { composeModules } from './shaderModules';
import type { BackendOptions } from './load';
import { WebGpuBackend } from './webgpuBackend';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const SHADER_DIR = fileURLToPath(new URL('../../shaders/', import.meta.url));

/** Every WGSL module, its parts joined (shaderModules.ts), keyed by module name. */
export function loadShaders(dir = SHADER_DIR): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.wgsl')) files[file.slice(0, -'.wgsl'.length)] = readFileSync(dir + file, 'utf8');
  }
  return composeModules(files);
}

const keepAlive = new Set<GPU>();

export interface NodeBackendResult {
  backend: WebGpuBackend | null;
  /** Why there is no backend ('' when there is one). */
  reason: string;
}

/** Dawn's GPU object under Node (SwiftShader when VK_ICD_FILENAMES is unset and chromium's ICD is there). */
export async function nodeGpu(): Promise<GPU> {
  if (process.env.VK_ICD_FILENAMES === undefined && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const gpu = create([]);
  // Dawn's Node objects die when collected, taking the device with them: keep the instance alive.
  keepAlive.add(gpu);
  return gpu;
}

/**
 * The WebGPU backend, or null with the reason (no adapter, no Vulkan driver, no 'webgpu' package).
 * Pipelines are built on first use unless `prepare: 'all'` (the browser workers build all at load, to
 * fall back before a run; the CLI and tests mostly run on SwiftShader, where each build costs ~1 s).
 */
export async function createNodeBackend(options: BackendOptions = { prepare: 'lazy' }): Promise<NodeBackendResult> {
  let gpu: GPU;
  try {
    gpu = await nodeGpu();
  } catch (e) {
    return { backend: null, reason: `the 'webgpu' package could not be loaded: ${(e as Error).message}` };
  }
  try {
    // One adapter only: a second, discarded GPUAdapter crashes Dawn's Node binding when collected.
    return { backend: await WebGpuBackend.create(gpu, loadShaders(), options), reason: '' };
  } catch (e) {
    if (!(e instanceof NoAdapterError)) throw e;
    return {
      backend: null,
      reason: `no WebGPU adapter (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'}; without a GPU, ` +
        `install chromium (for its SwiftShader ICD ${SWIFTSHADER_ICD}) and libvulkan1)`,
    };
  }
}
