// The automatic GPU self-check, end to end: the real page built with one deliberate bug in the matmul
// shader (each 16-wide K block of a tile skips its last k: the same break as test/gpu/gpuChoice.test.ts
// makes over Dawn), opened in Chromium with WebGPU (SwiftShader when there is no GPU). The first load
// runs the engine self-check on the adapter, which must catch the bad kernel: the page says it computes
// on the CPU, the alert names matmulForward, and a training step on the CPU fallback (the CPU engine,
// WebAssembly SIMD) succeeds. The page opens as a person who chose WebGPU: on a software adapter it
// would otherwise train on the CPU engine without building any pipeline (cpuDefault.test.ts).
// (That the shipped shaders pass and choose WebGPU is page.test.ts's "This device: WebGPU".)
// Under CI=true a missing Chromium fails; elsewhere it skips with a message.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Plugin } from 'vite';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchChromium, ROOT, serveDir, type Served } from './servePage';
import { preferWebGpu } from './webgpuPref';

const SMALL = 'groupSize=4&promptsPerStep=2&minibatches=2&evalEvery=1&evalEpisodes=8';
const LONG = 300_000;
const OUT_DIR = join(ROOT, 'dist-e2e-broken');

// the break: the inner loop over a K block stops one short, so every 16th product is left out
const FROM = 'for (var k = 0u; k < BK; k++) {';
const TO = 'for (var k = 0u; k + 1u < BK; k++) {';

/** Serves shaders/matmul.wgsl?raw with the broken tile, counting how often it did (it throws if the text is not there). */
function breakMatmulTile(): Plugin & { applied: () => number } {
  let applied = 0;
  return {
    name: 'test-break-matmul-tile',
    enforce: 'pre',
    async load(id) {
      const [file, query] = id.split('?');
      if (!file.endsWith('/shaders/matmul.wgsl') || query !== 'raw') return null;
      const source = await readFile(file, 'utf8');
      if (!source.includes(FROM)) throw new Error(`matmul.wgsl no longer holds "${FROM}": update the break in ${import.meta.filename}`);
      applied++;
      return `export default ${JSON.stringify(source.replace(FROM, TO))};`;
    },
    applied: () => applied,
  };
}

describe.runIf(haveChromium)('a broken matmul tile in the built page', () => {
  let served: Served | undefined;
  let browser: Browser;
  let url = '';
  const plugin = breakMatmulTile();

  beforeAll(async () => {
    // the workers import the shaders (src/gpu/shaders.browser.ts), and a worker bundle takes worker.plugins
    await build({ root: ROOT, logLevel: 'warn', plugins: [plugin], worker: { plugins: () => [plugin] }, build: { outDir: OUT_DIR, emptyOutDir: true } });
    served = await serveDir(OUT_DIR);
    url = served.url;
    browser = await launchChromium('swiftshader');
  }, LONG);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await rm(OUT_DIR, { recursive: true, force: true });
  });

  const steps = async (page: Page) => Number(await page.getByTestId('step-count').textContent());

  it('the build carries the broken shader', async () => {
    expect(plugin.applied()).toBeGreaterThanOrEqual(1);
    const assets = join(OUT_DIR, 'assets');
    const js = (await readdir(assets)).filter((f) => f.endsWith('.js'));
    const texts = await Promise.all(js.map((f) => readFile(join(assets, f), 'utf8')));
    expect(texts.filter((t) => t.includes(TO)).length).toBeGreaterThanOrEqual(1);
  });

  it('the self-check catches it at the first load: the CPU, an alert naming matmul, and training on the CPU works', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await preferWebGpu(context);
    const page = await context.newPage();
    const errors: string[] = [], warnings: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
      if (m.type() === 'warning') warnings.push(m.text());
    });
    await page.goto(`${url}?preset=relay-silence&${SMALL}`);
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 240_000, interval: 500 }).toBe('idle');

    // WebGPU was there (an adapter, its pipelines built, the check ran on it), and the run is on the CPU
    expect(await page.getByTestId('webgpu-status').textContent()).toMatch(/WebGPU is available/);
    const summary = page.getByText(/^This device:/);
    expect(await summary.textContent()).toBe('This device: CPU backend, WebAssembly SIMD');
    await summary.click();
    await page.getByText(/^The run trains on: cpu \(WebAssembly SIMD(, \d+ threads)?\)\.$/).waitFor(); // threads where the page is cross-origin isolated
    const note = page.getByTestId('backend-note');
    await note.waitFor();
    expect(await note.getAttribute('role')).toBe('alert');
    const text = (await note.textContent()) ?? '';
    console.log(`backend note: ${text}`);
    expect(text).toMatch(/^WebGPU is not used on this adapter: .*matmulForward \(matmul\.wgsl, error /);
    expect(text).not.toMatch(/layernorm|attention|gelu/); // only the broken kernel is named
    expect(text).toMatch(/computing on the CPU$/);
    expect(warnings).toContain(text); // the trainer worker's console.warn, the one expected message

    // the verdict is remembered for this adapter and this (broken) shader version
    const verdicts = await page.evaluate(() => new Promise<{ ok: boolean; message: string }[]>((resolve, reject) => {
      const req = indexedDB.open('gspo-gpu-verdicts');
      req.onerror = () => reject(req.error);
      req.onsuccess = () => {
        const all = req.result.transaction('verdicts', 'readonly').objectStore('verdicts').getAll();
        all.onsuccess = () => resolve(all.result as { ok: boolean; message: string }[]);
        all.onerror = () => reject(all.error);
      };
    }));
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0].ok).toBe(false);
    expect(verdicts[0].message).toMatch(/matmulForward/);

    // the engine worker's self-check (the button) takes the stored verdict: the CPU engine, with the same note
    await page.getByRole('button', { name: 'Run self-check' }).click();
    const result = page.getByTestId('self-check');
    await result.waitFor({ timeout: 120_000 });
    expect(await result.getAttribute('data-backend')).toBe('wasm');
    const gradError = Number(await result.getAttribute('data-grad-error')); // f32 SIMD against the reference: rounding only
    expect(gradError).toBeGreaterThanOrEqual(0);
    expect(gradError).toBeLessThan(1e-4);
    expect(await page.getByRole('alert').filter({ hasText: /matmulForward/ }).count()).toBe(2); // the run's note and the check's

    // training on the fallback: Start runs steps, each with its eval
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => steps(page), { timeout: 180_000, interval: 500 }).toBeGreaterThanOrEqual(1);
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('paused');
    await expect.poll(async () => Number(await page.getByTestId('pareto-caption').getAttribute('data-points')), { timeout: 60_000 }).toBeGreaterThanOrEqual(2); // step 0 and step 1
    expect(await summary.textContent()).toBe('This device: CPU backend, WebAssembly SIMD');
    expect(errors).toEqual([]);
    await context.close();
  }, LONG);
});
