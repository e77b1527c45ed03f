// The built page in a real Chromium with WebGPU (SwiftShader when there is no GPU):
// it finds an adapter, and one training step in the worker matches the CPU reference.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, preview, type PreviewServer } from 'vite';
import { chromium, type Browser } from 'playwright-core';

const ROOT = join(import.meta.dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === 'true') throw new Error(`Chromium is required under CI=true (not found at ${CHROMIUM}; apt-get install chromium)`);
if (!haveChromium) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

describe.runIf(haveChromium)('the page in Chromium', () => {
  let server: PreviewServer;
  let browser: Browser;
  let url = '';

  beforeAll(async () => {
    const outDir = join(ROOT, 'dist-e2e');
    await build({ root: ROOT, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    server = await preview({ root: ROOT, logLevel: 'warn', build: { outDir }, preview: { port: 0, host: '127.0.0.1', strictPort: false } });
    url = server.resolvedUrls!.local[0];
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader', '--use-vulkan=swiftshader', '--no-sandbox',
        '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((r) => (server ? server.httpServer.close(() => r()) : r()));
  });

  it('reports a WebGPU adapter, and a training step on it matches the CPU reference', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    const status = page.getByTestId('webgpu-status');
    await status.waitFor({ timeout: 60_000 });
    expect(await status.textContent()).toMatch(/WebGPU is available/);
    await page.getByRole('button', { name: 'Run self-check' }).click();
    const result = page.getByTestId('self-check');
    await result.waitFor({ timeout: 180_000 });
    expect(await result.getAttribute('data-backend')).toBe('webgpu');
    const gradError = Number(await result.getAttribute('data-grad-error'));
    const lossGpu = Number(await result.getAttribute('data-loss-gpu')), lossCpu = Number(await result.getAttribute('data-loss-cpu'));
    expect(gradError).toBeLessThan(1e-3);
    expect(Math.abs(lossGpu - lossCpu)).toBeLessThan(1e-4 * Math.max(1, Math.abs(lossCpu)));
    expect(errors).toEqual([]);
    // no network at run time: every request stays on this origin
    expect(requests.filter((r) => !r.startsWith(url))).toEqual([]);
  });
});
