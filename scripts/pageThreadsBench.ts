// The page's CPU engine on threads against one thread, in a real Chromium (no WebGPU): the same build served
// with COOP/COEP (Vite's preview: cross-origin isolated, the engine on min(cores, 8) threads) and without (one
// thread). Each page takes a warm-up step, then STEPS steps with the Step button, timed from click to the
// step counter; the mean step of each and their ratio are printed. A benchmark, not a test: run it with nothing
// else running. `npx tsx scripts/pageThreadsBench.ts [query] [steps]` (default: the page's default model at
// P32 x G8 on relay-silence).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, preview, type PreviewServer } from 'vite';
import { chromium } from 'playwright-core';

const ROOT = join(import.meta.dirname, '..');
const QUERY = process.argv[2] ?? '?preset=relay-silence';
const STEPS = Number(process.argv[3] ?? 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const outDir = await mkdtemp(join(tmpdir(), 'gspo-page-bench-'));
await build({ root: ROOT, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
const at = { port: 0, host: '127.0.0.1', strictPort: false };
const isolated = await preview({ root: ROOT, logLevel: 'warn', build: { outDir }, preview: at });
const plain = await preview({ root: ROOT, configFile: false, logLevel: 'warn', build: { outDir }, preview: at });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--disable-gpu', '--no-sandbox', '--disable-background-networking', '--no-first-run'] });

async function timeSteps(server: PreviewServer): Promise<{ threads: number; ms: number[]; workerMs: number }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(server.resolvedUrls!.local[0] + QUERY);
  const start = page.getByRole('button', { name: 'Start', exact: true });
  for (let i = 0; i < 600 && !(await start.isEnabled()); i++) await page.waitForTimeout(200);
  const count = async () => Number(await page.getByTestId('step-count').textContent());
  const ms: number[] = [];
  for (let s = 1; s <= STEPS + 1; s++) {
    const t0 = Date.now();
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    while ((await count()) < s) await page.waitForTimeout(25);
    if (s > 1) ms.push(Date.now() - t0); // step 1 warms up
  }
  await page.getByText(/^This device:/).click();
  const threads = Number(await page.getByTestId('trains-on').getAttribute('data-threads'));
  // the worker's own step time (step_time_ms) over the last 10 steps: the step without the trip to the page
  const workerMs = 1000 / Number(await page.getByTestId('run-speed').getAttribute('data-steps-per-s'));
  await page.close();
  return { threads, ms, workerMs };
}

try {
  const one = await timeSteps(plain), many = await timeSteps(isolated);
  const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
  for (const [name, r] of [['not isolated', one], ['isolated', many]] as const) {
    console.log(`${name}: ${r.threads} thread(s), steps ${r.ms.join(', ')} ms, mean ${mean(r.ms).toFixed(0)} ms; the worker's step ${r.workerMs.toFixed(0)} ms (last ${Math.min(10, STEPS + 1)} steps)`);
  }
  console.log(`${many.threads} threads vs 1: ${(mean(one.ms) / mean(many.ms)).toFixed(2)}x click to counter, ${(one.workerMs / many.workerMs).toFixed(2)}x the worker's step (${QUERY}, ${STEPS} steps after a warm-up)`);
} finally {
  await browser.close();
  for (const s of [isolated, plain]) await new Promise<void>((r) => s.httpServer.close(() => r()));
  await rm(outDir, { recursive: true, force: true });
}
