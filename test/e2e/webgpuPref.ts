// The person's stored choice of WebGPU, as the page writes it (src/store/pagePrefs.ts), for the tests that
// train on WebGPU where the only adapter is a software one (SwiftShader): the page would pick the CPU engine.
import type { BrowserContext } from 'playwright-core';

export const PREFS_KEY = 'gspo-playground.page.v1';

/** Every page of `context` opens as if the person had chosen WebGPU before (unless the page stored prefs of its own since). */
export async function preferWebGpu(context: BrowserContext): Promise<void> {
  await context.addInitScript((key) => {
    try { if (localStorage.getItem(key) === null) localStorage.setItem(key, JSON.stringify({ backend: 'webgpu' })); } catch { /* an opaque origin: nothing to set */ }
  }, PREFS_KEY);
}
