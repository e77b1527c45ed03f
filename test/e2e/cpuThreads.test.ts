// The page's CPU engine on threads, in a real Chromium with no WebGPU: served with COOP and COEP (Vite's preview,
// vite.config.ts) the page is cross-origin isolated, the training worker's engine runs on more than one thread
// (Web Workers from a Blob URL on the engine's shared WebAssembly.Memory) and those threads run chunks of the
// matmuls; served without the headers (the same build from a plain static server) it runs on one thread and says
// why in the device panel (its service worker blocked: test/e2e/offline.test.ts shows it isolating such a host). Three steps of the same config and seed give the same checkpoint bytes on both: the
// partition of the work does not depend on the thread count. Under CI=true a missing Chromium fails; elsewhere it skips.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { builtPage, haveChromium, launchChromium, recordErrors, serveDir, type Served } from './servePage';

const QUERY = '?preset=relay-silence&groupSize=4&promptsPerStep=2&minibatches=2&evalEpisodes=8';
const STEPS = 3;
const LONG = 600_000;

describe.runIf(haveChromium)('the CPU engine on threads in a cross-origin isolated page, one thread elsewhere', () => {
  let isolated: Served, plain: Served;
  let browser: Browser;
  let downloads = '';

  beforeAll(async () => {
    const outDir = await builtPage();
    isolated = await serveDir(outDir); // vite.config.ts's preview: COOP same-origin and COEP require-corp
    plain = await serveDir(outDir, true); // the same files with no config file: no headers, as a static host that sends none
    browser = await launchChromium();
    downloads = await mkdtemp(join(tmpdir(), 'gspo-threads-'));
  }, LONG);

  afterAll(async () => {
    await browser?.close();
    for (const s of [isolated, plain]) await s?.close();
    if (downloads) await rm(downloads, { recursive: true, force: true });
  });

  interface Trained { headers: (string | null)[]; coi: boolean; cores: number; threads: number; workerChunks: number; variant: string | null; note: string | null; checkpoint: Buffer; errors: string[] }

  /** Opens the page from `server`, trains STEPS steps on the CPU engine, and returns what the device panel says and the checkpoint's bytes. */
  async function train(server: Served, name: string): Promise<Trained> {
    // the page's service worker would isolate the plain host's page (test/e2e/offline.test.ts): blocked here, so the
    // plain host stands for a browser or host where it cannot (one thread, and the note says why)
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true, serviceWorkers: server === plain ? 'block' : 'allow' });
    const page = await context.newPage();
    const errors = recordErrors(page);
    const res = await page.goto(server.url + QUERY);
    const headers = await res!.allHeaders();
    const start = page.getByRole('button', { name: 'Start', exact: true });
    await expect.poll(() => start.isEnabled(), { timeout: 120_000, interval: 200 }).toBe(true);
    const steps = async (p: Page) => Number(await p.getByTestId('step-count').textContent());
    for (let s = 1; s <= STEPS; s++) {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await expect.poll(() => steps(page), { timeout: 180_000, interval: 250 }).toBe(s);
    }
    await page.getByText(/^This device:/).click();
    const on = page.getByTestId('trains-on');
    expect(await on.getAttribute('data-engine')).toBe('wasm');
    const note = page.getByTestId('backend-note');
    const out = {
      coi: await page.evaluate(() => crossOriginIsolated),
      cores: await page.evaluate(() => navigator.hardwareConcurrency),
      threads: Number(await on.getAttribute('data-threads')),
      workerChunks: Number(await on.getAttribute('data-worker-chunks')),
      variant: await on.getAttribute('data-variant'),
      note: (await note.count()) ? await note.textContent() : null,
      text: await on.textContent(),
      headers: [headers['cross-origin-opener-policy'] ?? null, headers['cross-origin-embedder-policy'] ?? null],
    };
    console.log(`${name}: crossOriginIsolated ${out.coi}, ${out.cores} cores, ${out.threads} threads (${out.variant} build), ${out.workerChunks} chunks on worker threads; "${out.text}"`);
    await page.getByRole('tab', { name: /^Runs/ }).click();
    const row = page.getByRole('row', { name: /relay-silence #1/ });
    const menu = row.getByRole('button', { name: /^Actions for / });
    await menu.focus();
    await menu.press('Enter');
    const [d] = await Promise.all([page.waitForEvent('download'), row.getByRole('menuitem', { name: 'Export checkpoint' }).click()]);
    const path = join(downloads, `${name}-${d.suggestedFilename()}`);
    await d.saveAs(path);
    const checkpoint = await readFile(path);
    await context.close();
    return { ...out, checkpoint, errors };
  }

  it('isolated: more than one thread, chunks run on them; not isolated: one thread and the note; the same checkpoint bytes', async () => {
    const many = await train(isolated, 'isolated');
    expect(many.headers).toEqual(['same-origin', 'require-corp']);
    expect(many.coi).toBe(true);
    expect(many.threads).toBe(Math.min(many.cores, 8));
    expect(many.threads).toBeGreaterThan(1); // this machine has 2 or more cores (Chromium reports them)
    expect(many.workerChunks).toBeGreaterThan(0); // the worker threads computed part of the steps
    expect(many.note).toBeNull();
    expect(many.errors).toEqual([]);

    const one = await train(plain, 'not isolated');
    expect(one.headers).toEqual([null, null]);
    expect(one.coi).toBe(false);
    expect(one.threads).toBe(1);
    expect(one.workerChunks).toBe(0);
    expect(one.note).toMatch(/^one thread: this page is not cross-origin isolated \(the host does not send the COOP and COEP headers that threads need\); see docs\/cpu-engine\.md/);
    expect(one.errors).toEqual([]);

    // the same build on both (relaxed-simd where Chromium validates it: the threaded build has it too), so the bytes can match
    expect(many.variant).toBe(one.variant);
    expect(many.checkpoint.length).toBeGreaterThan(1000);
    expect(many.checkpoint.subarray(0, 4000).toString('latin1')).toMatch(/"step":"3"/); // the weights after the steps, not the warm start
    expect(many.checkpoint.equals(one.checkpoint)).toBe(true); // bit for bit, whatever the thread count
  }, 1_200_000);
});
