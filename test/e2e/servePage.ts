// The built page served for a browser test: one Vite build per test run shared by every browser test
// (dist-e2e, stamped with the run's id from globalSetup.ts; a file run on its own builds it once), a preview
// server on a free port (with the COOP/COEP headers of vite.config.ts, or none, as a plain static host), and
// Chromium with or without WebGPU (SwiftShader). Under CI=true a missing browser fails the file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, preview, type PreviewServer } from 'vite';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { CHROMIUM, chromiumArgs } from './chromiumArgs';

export const ROOT = join(import.meta.dirname, '..', '..');
export { CHROMIUM };
export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** Whether the browser at `path` is here: under CI=true its absence fails the file, elsewhere its tests skip with a line. */
export function needBrowser(name: string, path: string, apt: string): boolean {
  if (existsSync(path)) return true;
  if (process.env.CI === 'true') throw new Error(`${name} is required under CI=true (not found at ${path}; apt-get install ${apt})`);
  console.warn(`browser tests skipped: no ${name} at ${path} (apt-get install ${apt})`);
  return false;
}

export const haveChromium = needBrowser('Chromium', CHROMIUM, 'chromium');

/** Chromium without a GPU (the CPU engine trains, as on most first visits), or with SwiftShader's WebGPU. */
export function launchChromium(gpu: 'none' | 'swiftshader' = 'none'): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs(gpu) });
}

/** The built page's folder: built once per test run (a rebuild per file cost a build each and tested nothing more). */
export async function builtPage(): Promise<string> {
  const outDir = join(ROOT, 'dist-e2e');
  const stamp = join(outDir, '.e2e-run');
  const run = inject('e2eRun') ?? `alone-${process.pid}`;
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === run) return outDir;
  const t0 = Date.now();
  await build({ root: ROOT, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  writeFileSync(stamp, run);
  console.log(`the page built into dist-e2e for this test run in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return outDir;
}

/** A served folder: its address, and `close` (the host gone: no new connections, and kept-alive ones cut). */
export interface Served { url: string; close(): Promise<void> }

/** A preview server of `outDir` on a free port: with vite.config.ts's COOP/COEP headers, or `plain` (no config: no headers). */
export async function serveDir(outDir: string, plain = false): Promise<Served> {
  const server: PreviewServer = await preview({ root: ROOT, ...(plain ? { configFile: false as const } : {}), logLevel: 'warn', build: { outDir }, preview: { port: 0, host: '127.0.0.1', strictPort: false } });
  const http = server.httpServer as import('node:http').Server;
  return {
    url: server.resolvedUrls!.local[0],
    // close alone would let a browser's kept-alive connections go on being served
    close: () => new Promise<void>((r) => { http.close(() => r()); http.closeAllConnections(); }),
  };
}

export interface ServedPage { url: string; browser: Browser; close(): Promise<void> }

/** The shared build served, and a Chromium without a GPU (or with SwiftShader's WebGPU). */
export async function servePage(gpu: 'none' | 'swiftshader' = 'none'): Promise<ServedPage> {
  const served = await serveDir(await builtPage());
  const browser = await launchChromium(gpu);
  return {
    url: served.url, browser,
    async close() { await browser.close(); await served.close(); },
  };
}

/** Records a page's errors: uncaught ones and console errors. */
export function recordErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return errors;
}

/** A fresh 1280x800 page of the link (a first visit when `query` is empty), once its run is ready; page errors recorded; the guide dismissed. */
export async function openPage(browser: Browser, url: string, query: string): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = recordErrors(page);
  await page.goto(url + query);
  await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
  await page.getByRole('region', { name: 'First steps' }).getByRole('button', { name: 'Got it' }).click().catch(() => {});
  return { page, errors, close: () => context.close() };
}

/**
 * The built page served for the enclosing describe block (served and launched before its tests, closed after):
 * `open(query)` is openPage on it; `browser()` and `url()` for a page of a test's own.
 */
export function usePage(gpu: 'none' | 'swiftshader' = 'none', timeoutMs = 300_000): { open: (query: string) => ReturnType<typeof openPage>; browser: () => Browser; url: () => string } {
  let served: ServedPage | undefined;
  beforeAll(async () => { served = await servePage(gpu); }, timeoutMs);
  afterAll(async () => { await served?.close(); });
  return { open: (query) => openPage(served!.browser, served!.url, query), browser: () => served!.browser, url: () => served!.url };
}
