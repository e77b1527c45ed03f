// Where there is no hardware GPU the page trains on the CPU engine (WebAssembly SIMD) by itself: in a real
// Chromium whose only WebGPU adapter is SwiftShader, and in one with no WebGPU at all. Start is enabled within
// 5 s of load (no WebGPU pipelines are built for an engine that does not need them), one small notice says
// why, nothing is logged as an error (the CSP lets the worker compile the wasm), and "Try WebGPU anyway"
// is the person's choice, kept over a reload. Under CI=true a missing Chromium fails; elsewhere it skips.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { builtPage, haveChromium, launchChromium, recordErrors, serveDir, type Served } from './servePage';
import { PREFS_KEY } from './webgpuPref';

const SMALL = 'groupSize=4&promptsPerStep=2&minibatches=2&evalEpisodes=8';
const LONG = 600_000;
/** From the start of navigation to an enabled Start button. */
const START_WITHIN_MS = 5_000;

describe.runIf(haveChromium)('the CPU engine without a hardware GPU', () => {
  let served: Served | undefined;
  let url = '';
  const browsers: Browser[] = [];

  beforeAll(async () => {
    served = await serveDir(await builtPage());
    url = served.url;
  }, LONG);

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await served?.close();
  });

  const launch = async (gpu: boolean) => {
    const b = await launchChromium(gpu ? 'swiftshader' : 'none');
    browsers.push(b);
    return b;
  };

  /** A page that records page errors and console errors. */
  async function recorded(browser: Browser): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    return { page, errors: recordErrors(page) };
  }

  /** Opens `query` and returns the milliseconds from navigation to an enabled Start (failing past a generous cap, so a slow case still reports its time). */
  async function msToStart(page: Page, query: string): Promise<number> {
    const t0 = Date.now();
    await page.goto(url + query);
    const start = page.getByRole('button', { name: 'Start', exact: true });
    await expect.poll(() => start.isEnabled(), { timeout: 60_000, interval: 100 }).toBe(true);
    return Date.now() - t0;
  }

  const engineOf = (page: Page) => page.getByTestId('trains-on').getAttribute('data-engine');
  const steps = async (page: Page) => Number(await page.getByTestId('step-count').textContent());

  it('SwiftShader only: the CPU engine at once, said once; a step trains; "Try WebGPU anyway" switches and is remembered', async () => {
    const { page, errors } = await recorded(await launch(true));
    const ms = await msToStart(page, ''); // a first visit: the lesson's population
    console.log(`SwiftShader: Start enabled ${ms} ms after navigation`);
    expect(ms).toBeLessThanOrEqual(START_WITHIN_MS);
    expect(await engineOf(page)).toBe('wasm');
    expect(await page.getByText(/^This device:/).textContent()).toBe('This device: CPU backend, WebAssembly SIMD');
    // the adapter is there and named; the page chose the CPU engine over it, in one small notice
    expect(await page.getByTestId('webgpu-status').textContent()).toMatch(/WebGPU is available\. Adapter: .*swiftshader/i);
    const notice = page.getByRole('region', { name: 'No hardware GPU' });
    expect(await notice.count()).toBe(1);
    expect(await notice.textContent()).toMatch(/^No hardware GPU found \(SwiftShader\): training on the CPU engine \(WebAssembly SIMD\)\./);
    expect(await page.getByRole('region', { name: 'Software GPU' }).count()).toBe(0); // not the old offer as well
    // the page's own choice is not stored as the person's
    expect(JSON.parse((await page.evaluate((k) => localStorage.getItem(k), PREFS_KEY)) ?? '{}').backend ?? null).toBeNull();

    // a step of a single run trains on it (the population's Start is the lesson's, tested in page.test.ts)
    await page.getByRole('button', { name: 'Train one run instead' }).click();
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await expect.poll(() => steps(page), { timeout: 120_000, interval: 250 }).toBe(1);
    expect(await engineOf(page)).toBe('wasm');

    // the person asks for WebGPU: the run moves there (pipelines, the engine self-check), and a reload keeps the choice
    await notice.getByRole('button', { name: 'Try WebGPU anyway' }).click();
    await expect.poll(() => page.getByText(/^This device:/).textContent(), { timeout: 480_000, interval: 500 }).toMatch(/^This device: WebGPU on SwiftShader/);
    expect(await notice.count()).toBe(0);
    expect(JSON.parse((await page.evaluate((k) => localStorage.getItem(k), PREFS_KEY))!).backend).toBe('webgpu');
    await page.reload();
    await expect.poll(() => page.getByText(/^This device:/).textContent(), { timeout: 480_000, interval: 500 }).toMatch(/^This device: WebGPU on SwiftShader/);
    expect(await page.getByRole('region', { name: 'No hardware GPU' }).count()).toBe(0);
    expect(errors).toEqual([]);
  }, 1_200_000);

  it('no WebGPU at all (as Firefox on Linux): the CPU engine with no click, Start within 5 s, a step trains', async () => {
    const { page, errors } = await recorded(await launch(false));
    const ms = await msToStart(page, `?preset=relay-silence&${SMALL}`);
    console.log(`no WebGPU: Start enabled ${ms} ms after navigation`);
    expect(ms).toBeLessThanOrEqual(START_WITHIN_MS);
    expect(await engineOf(page)).toBe('wasm');
    const notice = page.getByRole('region', { name: 'No WebGPU' });
    expect(await notice.textContent()).toMatch(/This browser did not give the page WebGPU \(.+\): training on the CPU engine \(WebAssembly SIMD\)\./);
    expect(await notice.getByRole('button').allTextContents()).toEqual(['Dismiss']); // nothing to choose
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await expect.poll(() => steps(page), { timeout: 120_000, interval: 250 }).toBe(1);
    // the page's Content-Security-Policy lets WebAssembly compile ('wasm-unsafe-eval'; workers take the policy of their
    // own response, none from this preview server, so the page is where the meta tag's policy is felt)
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval';/);
    expect(await page.evaluate(() => { try { new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])); return 'compiled'; } catch (e) { return String(e); } })).toBe('compiled');
    expect(errors).toEqual([]);
  }, LONG);
});
