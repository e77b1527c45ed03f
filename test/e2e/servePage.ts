// The built page served for a browser test: a Vite build into its own folder (tests run one file at a
// time, each with its own dist-e2e-* folder), a preview server on a free port, and Chromium without a GPU
// (the CPU engine trains, as on most first visits). Under CI=true a missing Chromium fails the file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build, preview, type PreviewServer } from 'vite';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === 'true') throw new Error(`Chromium is required under CI=true (not found at ${CHROMIUM}; apt-get install chromium)`);
if (!haveChromium) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

export interface ServedPage { url: string; browser: Browser; close(): Promise<void> }

/** Builds the page into dist-e2e-<name>, serves it, and launches Chromium without a GPU. */
export async function servePage(name: string): Promise<ServedPage> {
  const outDir = join(ROOT, `dist-e2e-${name}`);
  await build({ root: ROOT, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  const server: PreviewServer = await preview({ root: ROOT, logLevel: 'warn', build: { outDir }, preview: { port: 0, host: '127.0.0.1', strictPort: false } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--disable-gpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  return {
    url: server.resolvedUrls!.local[0], browser,
    async close() {
      await browser.close();
      await new Promise<void>((r) => server.httpServer.close(() => r()));
    },
  };
}

/** A fresh 1280x800 page of the link (a first visit when `query` is empty), once its run is ready; page errors recorded; the guide dismissed. */
export async function openPage(browser: Browser, url: string, query: string): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url + query);
  await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
  await page.getByRole('region', { name: 'First steps' }).getByRole('button', { name: 'Got it' }).click().catch(() => {});
  return { page, errors, close: () => context.close() };
}

/**
 * The built page served for the enclosing describe block (built and launched before its tests, closed after):
 * `open(query)` is openPage on it; `browser()` and `url()` for a page of a test's own.
 */
export function usePage(name: string, timeoutMs = 300_000): { open: (query: string) => ReturnType<typeof openPage>; browser: () => Browser; url: () => string } {
  let served: ServedPage | undefined;
  beforeAll(async () => { served = await servePage(name); }, timeoutMs);
  afterAll(async () => { await served?.close(); });
  return { open: (query) => openPage(served!.browser, served!.url, query), browser: () => served!.browser, url: () => served!.url };
}
