// The built page from a plain static host (no COOP/COEP headers, as the common free hosts): its service worker
// makes it cross-origin isolated (one reload after the first load), so the CPU engine runs on 2 or more threads;
// after that visit every file the build lists (the app, its workers, the shipped warm starts) is in the worker's cache,
// and with the host gone (its server closed) a reload loads the page, still isolated, and a Start trains. Under
// CI=true a missing Chromium fails; elsewhere it skips with a message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { builtPage, haveChromium, launchChromium, serveDir, type Served } from './servePage';

const QUERY = '?preset=relay-silence&groupSize=4&promptsPerStep=2&minibatches=2&evalEpisodes=8';
const LONG = 600_000;

/** The built files with no config file: no headers, as a static host that sends none. */
const plainHost = async () => serveDir(await builtPage(), true);

describe.runIf(haveChromium)('hosted anywhere: isolated by the service worker, precached, offline after one visit (Chromium)', () => {
  let plain: Served;
  let browser: Browser;

  beforeAll(async () => {
    plain = await plainHost();
    browser = await launchChromium();
  }, LONG);

  afterAll(async () => {
    await browser?.close();
    await plain?.close();
  });

  const status = (page: Page) => page.getByTestId('run-status').textContent();
  const stepShown = async (page: Page) => Number(await page.getByTestId('step-count').textContent());

  it('a static host without headers: isolated with 2+ threads after the service worker\'s one reload; every built file precached', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const res = await page.goto(plain.url + QUERY);
      const headers = await res!.allHeaders();
      expect([headers['cross-origin-opener-policy'] ?? null, headers['cross-origin-embedder-policy'] ?? null]).toEqual([null, null]);
      // the worker installs (the precache), takes the page, and the page reloads once, isolated
      await expect.poll(() => page.evaluate(() => crossOriginIsolated).catch(() => false), { timeout: 120_000, interval: 500 }).toBe(true);
      const start = page.getByRole('button', { name: 'Start', exact: true });
      await expect.poll(() => start.isEnabled(), { timeout: 120_000, interval: 250 }).toBe(true);
      await page.getByText(/^This device:/).click();
      const threads = Number(await page.getByTestId('trains-on').getAttribute('data-threads'));
      console.log(`static host: crossOriginIsolated after the reload, ${threads} threads`);
      expect(threads).toBeGreaterThanOrEqual(2);
      // the precache is complete once the worker is active (install waited for it)
      await expect.poll(() => page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state), { timeout: 60_000 }).toBe('activated');

      // every file the build lists is in the worker's cache (what a visit with the network off would load from)
      const missing = await page.evaluate(async () => {
        const { files } = await (await fetch('precache.json')).json() as { files: string[] };
        const out: string[] = [];
        for (const f of ['./', ...files]) if (!(await caches.match(new URL(f, location.href).href))) out.push(f);
        return out;
      });
      expect(missing).toEqual([]);
      // the served worker names this build (its bytes change with every build, so a new build is installed and cached)
      const stamped = await page.evaluate(async () => {
        const { version } = await (await fetch('precache.json')).json() as { version: string };
        return (await (await fetch('sw.js')).text()).endsWith(`// build ${version}\n`);
      });
      expect(stamped).toBe(true);
      expect(errors).toEqual([]);
    } finally { await context.close(); }
  }, LONG);

  it('after one visit, with the host gone, a reload loads the page, isolated, and a Start trains', async () => {
    // its own host (its own origin, so its own worker): this one is stopped mid-test
    const host = await plainHost();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const failed: string[] = [];
    const errors: string[] = [];
    let stopped = false;
    try {
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('requestfailed', (r) => { if (stopped) failed.push(`${r.url()}: ${r.failure()?.errorText}`); });
      await page.goto(host.url + '?v=1&preset=relay-noisy-quick&steps=3');
      // the one visit: the worker precached, controls the page, and the page reloaded isolated
      await expect.poll(() => page.evaluate(() => crossOriginIsolated && !!navigator.serviceWorker.controller).catch(() => false), { timeout: 120_000, interval: 500 }).toBe(true);
      await expect.poll(() => status(page), { timeout: 120_000 }).toBe('idle');

      // the network off twice over: the host gone, and the browser told it is offline
      await host.close();
      await context.setOffline(true);
      stopped = true;
      const t0 = Date.now();
      await page.reload();
      await expect.poll(() => status(page), { timeout: 60_000 }).toBe('idle');
      console.log(`offline reload: idle in ${Date.now() - t0} ms`);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await page.getByRole('region', { name: 'First steps' }).getByRole('button', { name: 'Got it' }).click().catch(() => {});
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await expect.poll(() => stepShown(page), { timeout: 120_000 }).toBeGreaterThan(0);
      await expect.poll(() => status(page), { timeout: 120_000 }).toBe('finished');
      expect(await stepShown(page)).toBe(3);
      expect(failed).toEqual([]); // nothing the page asked for was missing from the worker's copy
      expect(errors).toEqual([]);
    } finally {
      if (failed.length) console.log(`requests that failed with the network off:\n${failed.join('\n')}`); // when the page never loaded
      await context.close();
      if (!stopped) await host.close();
    }
  }, LONG);
});
