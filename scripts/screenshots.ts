// Screenshots of the page, for the docs and for review:
//   npx tsx scripts/screenshots.ts [OUT_DIR] [--docs] [--steps N] [--cpu] [--at 2,10,60]
// Builds the page, serves it, opens it in Chromium (CHROMIUM_PATH, default
// /usr/bin/chromium; WebGPU on SwiftShader when there is no GPU, where the page
// picks the CPU engine by itself, as on a laptop without a hardware GPU).
// First a first visit (a bare link, a fresh profile) at 1280x800: saves
// first-visit.png (the population over lambda_tok, the task picture, Start),
// presses Start and saves first-visit-1280x800-<s>s.png at each of the --at
// seconds (default 2, 10 and 60; the last also as first-visit-1280x800.png),
// printing the status line and where the trail heads are; then a 390x844 phone
// at the last of them (first-visit-390x844.png). The first visit trains until
// paused. With --docs only these after-Start pictures (docs/page.md shows them).
// Otherwise a small relay run then trains a few steps, moving
// lambda_tok once so a live change is marked, and saves
// first-screen-1280x800.png, first-screen-800.png and phone-390.png. Prints
// each width's document width (it must equal the viewport's: nothing scrolls
// sideways).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, preview } from 'vite';

const ROOT = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const out = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? join(ROOT, 'screenshots');
const steps = Number(args[args.indexOf('--steps') + 1] ?? 0) || 3;
const docsOnly = args.includes('--docs');
const cpu = args.includes('--cpu'); // the relay run on the CPU engine; else on WebGPU, as a person who chose it
// the seconds after Start at which the 1280x800 first visit is saved (first-visit-1280x800-<s>s.png; the last also as
// first-visit-1280x800.png); the phone is saved at the last of them
const atSeconds = (args.includes('--at') ? args[args.indexOf('--at') + 1] : args.includes('--trail-seconds') ? args[args.indexOf('--trail-seconds') + 1] : '2,10,60')
  .split(',').map(Number).filter((x) => x > 0).sort((a, b) => a - b);
const SMALL = 'groupSize=4&promptsPerStep=2&minibatches=2&evalEvery=1&evalEpisodes=8';

async function ready(page: Page) {
  for (let i = 0; i < 600; i++) {
    if ((await page.getByTestId('run-status').textContent()) === 'idle' || (await page.getByTestId('run-status').textContent()) === 'paused') return;
    await page.waitForTimeout(500);
  }
  throw new Error('the run never became ready');
}

const docWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** A first visit at width x height: the population ready, `first-visit.png` (at 1280, without --docs), Start, and at each of `at` seconds `name`-<s>s.png (the last also `name`.png). */
async function firstVisit(browser: Browser, url: string, width: number, height: number, name: string, at: number[]) {
  const phone = width < 640;
  const context = await browser.newContext({ viewport: { width, height }, isMobile: phone, hasTouch: phone });
  const visit = await context.newPage();
  visit.on('pageerror', (e) => console.error('page error:', e.message));
  await visit.goto(url);
  // no click: without a hardware GPU the page trains on the CPU engine by itself
  await visit.getByText('This device: CPU backend').waitFor({ timeout: 120_000 });
  await ready(visit);
  await visit.waitForFunction(() => document.querySelector('[data-testid="population-note"]')?.getAttribute('data-loaded') === '4', null, { timeout: 180_000 });
  if (!phone && !docsOnly) {
    await visit.screenshot({ path: join(out, 'first-visit.png') });
    console.log(`first visit (${new URL(visit.url()).search}): document width ${await docWidth(visit)} at ${width} -> ${join(out, 'first-visit.png')}`);
  }
  await visit.getByRole('button', { name: 'Start', exact: true }).click();
  const t0 = Date.now();
  for (const [i, sec] of at.entries()) {
    await visit.waitForTimeout(Math.max(0, t0 + sec * 1000 - Date.now()));
    const heads = await visit.locator('circle.trail-head').evaluateAll((cs) => cs.map((c) => { const r = c.getBoundingClientRect(); return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; }));
    const where = await visit.getByTestId('run-where').textContent();
    const files = [`${name}-${sec}s.png`, ...(i === at.length - 1 ? [`${name}.png`] : [])];
    for (const f of files) await visit.screenshot({ path: join(out, f) });
    console.log(`${width}x${height}, ${sec} s after Start ("${where}"): document width ${await docWidth(visit)}; trail heads at ${JSON.stringify(heads)} -> ${files.map((f) => join(out, f)).join(', ')}`);
  }
  await context.close(); // closing stops the run
}

async function main() {
  await mkdir(out, { recursive: true });
  const outDir = join(ROOT, 'dist-shots');
  await build({ root: ROOT, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  const server = await preview({ root: ROOT, logLevel: 'warn', build: { outDir }, preview: { port: 0, host: '127.0.0.1', strictPort: false } });
  const url = server.resolvedUrls!.local[0];
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader', '--use-vulkan=swiftshader', '--no-sandbox', '--no-first-run'],
  });
  try {
    await firstVisit(browser, url, 1280, 800, 'first-visit-1280x800', atSeconds);
    await firstVisit(browser, url, 390, 844, 'first-visit-390x844', atSeconds.slice(-1));
    if (docsOnly) return;

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // without --cpu: WebGPU, as a person who chose it (on SwiftShader the page would pick the CPU engine itself)
    if (!cpu) await context.addInitScript(() => localStorage.setItem('gspo-playground.page.v1', JSON.stringify({ backend: 'webgpu' })));
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${url}?preset=relay-silence&${SMALL}`);
    await ready(page);
    await page.getByRole('button', { name: 'Got it' }).click();
    const count = async () => Number(await page.getByTestId('step-count').textContent());
    for (let i = 0; i < steps; i++) {
      if (i === Math.floor(steps / 2)) { // a live change, marked on the charts
        const slider = page.getByRole('slider', { name: 'lambda_tok' });
        await slider.focus();
        await slider.press('PageUp');
        await page.waitForTimeout(400);
      }
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      for (let k = 0; k < 1200 && (await count()) < i + 1; k++) await page.waitForTimeout(250);
    }
    await page.waitForTimeout(1500);
    for (const [w, h, name, full] of [[1280, 800, 'first-screen-1280x800.png', false], [800, 800, 'first-screen-800.png', false], [390, 844, 'phone-390.png', true]] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.waitForTimeout(800);
      await page.screenshot({ path: join(out, name), fullPage: full });
      const pareto = await page.getByRole('region', { name: 'Accuracy vs tokens' }).boundingBox();
      console.log(`${w}x${h}: document width ${await docWidth(page)}; Accuracy vs tokens at x ${pareto?.x.toFixed(0)}, y ${pareto?.y.toFixed(0)}, ${pareto?.width.toFixed(0)} x ${pareto?.height.toFixed(0)} px -> ${join(out, name)}`);
    }
  } finally {
    await browser.close();
    await new Promise<void>((r) => server.httpServer.close(() => r()));
  }
}

await main();
