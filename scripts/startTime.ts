// Milliseconds from navigation to an enabled Start on a first visit, in Chromium on the built page: with SwiftShader
// as its only WebGPU adapter (the default) or with no WebGPU (`none`). Each load is a fresh browser (nothing
// remembered); the page's status lines are printed as they change, with the time of each, so a slow stage shows.
//   npx tsx scripts/startTime.ts [swiftshader|none] [loads, 3]
// Builds the page into a temporary folder first (a few seconds). Nothing else should run beside it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, preview } from 'vite';
import { chromium } from 'playwright-core';
import { CHROMIUM, chromiumArgs } from '../test/e2e/chromiumArgs';

const gpu = process.argv[2] ?? 'swiftshader';
const loads = Number(process.argv[3] ?? 3);
if (!['swiftshader', 'none'].includes(gpu) || !(loads >= 1)) throw new Error('usage: startTime.ts [swiftshader|none] [loads >= 1]');
const outDir = mkdtempSync(join(tmpdir(), 'start-time-'));
await build({ root: process.cwd(), logLevel: 'error', build: { outDir, emptyOutDir: true } });
const server = await preview({ root: process.cwd(), logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
const url = server.resolvedUrls!.local[0];
const times: number[] = [];
for (let i = 0; i < loads; i++) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs(gpu as 'none' | 'swiftshader') });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const t0 = Date.now(), lines: string[] = [];
  await page.goto(url);
  lines.push(`${Date.now() - t0} ms: loaded`);
  for (let last = ''; ;) {
    const s = await page.evaluate(() => {
      const b = document.querySelector<HTMLButtonElement>('#start-button');
      return `${b ? (b.disabled ? 'Start disabled' : 'Start enabled') : 'not rendered'}; ${[...document.querySelectorAll('[role="status"]')].map((e) => e.textContent).join(' | ')}`;
    });
    if (s !== last) lines.push(`${Date.now() - t0} ms: ${(last = s)}`);
    if (s.startsWith('Start enabled')) break;
    if (Date.now() - t0 > 120_000) throw new Error(`Start not enabled in 120 s: ${s}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  times.push(Date.now() - t0);
  console.log(`load ${i + 1}: Start enabled ${times.at(-1)} ms after navigation\n  ${lines.join('\n  ')}`);
  await browser.close();
}
console.log(`${gpu}: ${times.join(', ')} ms (median ${[...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]})`);
(server.httpServer as import('node:http').Server).close();
rmSync(outDir, { recursive: true, force: true });
