// The WebGPU backend shared by this file's GPU tests, created once.
// Without an adapter: under CI=true the tests fail (never skip silently);
// elsewhere they skip with a message saying what to install.
import { afterAll } from 'vitest';
import { createNodeBackend } from '../../src/gpu/node';
import type { WebGpuBackend } from '../../src/gpu/webgpuBackend';

const INSTALL_HINT = 'WebGPU tests need an adapter: on a machine without a GPU install Debian\'s chromium ' +
  '(for its SwiftShader ICD /usr/lib/chromium/vk_swiftshader_icd.json) and libvulkan1';

async function setup(): Promise<WebGpuBackend | null> {
  // pipelines built on first use: a file's tests need few of the variants (test/gpu/gpuChoice.test.ts builds all).
  // The suite runs on a device with WebGPU's default limits only (what every browser grants, and what
  // phones offer), so nothing here leans on a larger binding; GSPO_GPU_LIMITS=adapter asks for the adapter's.
  const limits = process.env.GSPO_GPU_LIMITS === 'adapter' ? 'adapter' : 'default';
  const { backend, reason } = await createNodeBackend({ prepare: 'lazy', limits });
  if (backend) return backend;
  if (process.env.CI === 'true') throw new Error(`${INSTALL_HINT}. No WebGPU backend: ${reason}`);
  console.warn(`skipping WebGPU tests: ${reason}. ${INSTALL_HINT}.`);
  return null;
}

export const gpu: WebGpuBackend | null = await setup();
export const noGpu = gpu === null;

/** The backend inside a test body (the describe is skipped when there is none). */
export function theGpu(): WebGpuBackend {
  if (!gpu) throw new Error('no WebGPU backend');
  return gpu;
}

afterAll(() => gpu?.destroy());
