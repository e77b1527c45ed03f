// Screenshots of a lesson on the page, for docs/lessons.md and review:
//   npx tsx scripts/lessonShots.ts [OUT_DIR] [--lesson NAME]
// Builds the page, serves it, opens `?lesson=NAME` (default strategic-silence) in Chromium at 1280x800 and at a
// 390x844 phone, does the first step's action (Start or Step), waits for its check to pass, and saves
// lesson-1280x800.png and lesson-390x844.png (the explanation shown, the controls the step hides hidden).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { build, preview } from 'vite';

const ROOT = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const out = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--lesson') ?? join(ROOT, 'screenshots');
const name = args.includes('--lesson') ? args[args.indexOf('--lesson') + 1] : 'strategic-silence';
const dist = join(ROOT, 'dist-shots-lesson');

await mkdir(out, { recursive: true });
await build({ root: ROOT, logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } });
const server = await preview({ root: ROOT, logLevel: 'warn', build: { outDir: dist }, preview: { port: 0, host: '127.0.0.1', strictPort: false } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--disable-gpu', '--no-sandbox'] });
try {
  for (const [w, h, mobile] of [[1280, 800, false], [390, 844, true]] as const) {
    const context = await browser.newContext({ viewport: { width: w, height: h }, isMobile: mobile, hasTouch: mobile });
    const page = await context.newPage();
    await page.goto(`${server.resolvedUrls!.local[0]}?lesson=${name}`);
    for (let i = 0; i < 240 && (await page.getByTestId('run-status').textContent()) !== 'idle'; i++) await page.waitForTimeout(500);
    await page.getByRole('region', { name: 'First steps' }).getByRole('button', { name: 'Got it' }).click({ timeout: 2000 }).catch(() => {});
    const start = page.locator('#start-button');
    if (await start.isVisible()) await start.click(); else await page.getByRole('button', { name: 'Step', exact: true }).click();
    for (let i = 0; i < 600 && (await page.getByTestId('lesson').getAttribute('data-pass')) !== 'true'; i++) await page.waitForTimeout(500);
    await page.evaluate(() => window.scrollTo(0, 0));
    const file = join(out, `lesson-${w}x${h}.png`);
    await page.screenshot({ path: file });
    console.log(`${file}: ${await page.getByTestId('lesson-result').textContent()}`);
    await context.close();
  }
} finally {
  await browser.close();
  await new Promise<void>((r) => server.httpServer.close(() => r()));
}
