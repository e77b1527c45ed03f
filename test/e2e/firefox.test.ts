// The built page in a real Firefox ESR (Debian's firefox-esr: no WebGPU on Linux), driven by puppeteer-core over
// WebDriver BiDi. A first visit (a fresh profile, a bare link) must train on the CPU engine (WebAssembly SIMD)
// by itself: Start enabled within 5 s of load, the choice said in one notice, and after Start the four members'
// trails apart on the main chart. No console errors, no request off this origin. Also a 390 px phone, and a single
// run on the CPU engine's threads (the preview sends COOP and COEP: the page is cross-origin isolated), and a lesson
// walked to its end by keyboard.
// Under CI=true a missing Firefox fails; elsewhere it skips with a message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { findLesson } from '../../src/lessons';
import { builtPage, FIREFOX, needBrowser, serveDir, type Served } from './servePage';

const haveFirefox = needBrowser('Firefox ESR', FIREFOX, 'firefox-esr');
const LONG = 300_000;
/** From the start of navigation to an enabled Start button. */
const START_WITHIN_MS = 5_000;
/** From Start to the four trail heads pairwise apart on the main chart (Firefox here trains on 2 shared cores). */
const APART_WITHIN_MS = 60_000;

describe.runIf(haveFirefox)('the page in Firefox ESR (no WebGPU: the CPU engine)', () => {
  let served: Served | undefined;
  let browser: Browser;
  let url = '';

  beforeAll(async () => {
    served = await serveDir(await builtPage());
    url = served.url;
    // puppeteer-core launches the given binary with a fresh temporary profile (its prefs turn off updates and
    // background requests) and downloads nothing
    browser = await puppeteer.launch({ browser: 'firefox', protocol: 'webDriverBiDi', executablePath: FIREFOX, headless: true });
  }, LONG);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  /** A page in its own browser context (no storage shared with the other test) recording errors and offsite requests. */
  async function recorded(width: number, height: number): Promise<{ page: Page; errors: string[]; offsite: string[] }> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width, height });
    const errors: string[] = [], offsite: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('request', (r) => { if (!/^(blob|data):/.test(r.url()) && !r.url().startsWith(url)) offsite.push(r.url()); });
    return { page, errors, offsite };
  }

  /**
   * A first visit to a bare link (or `query`) in a fresh context: the page, what it recorded, and the milliseconds from
   * navigation to an enabled Start (a generous cap, so a slow load still reports its time). A fresh Firefox's load has
   * twice in ten CI runs never enabled Start (not seen in 80 loads on a quiet machine): then whether the page rendered,
   * its status lines and errors are logged, and the visit is made once more in another fresh context (a reload of the
   * same one would not be a first visit: the page had stored its choices); a second that does not enable Start fails.
   */
  async function opened(width: number, height: number, query = ''): Promise<{ page: Page; errors: string[]; offsite: string[]; ms: number }> {
    for (let load = 1; ; load++) {
      const r = await recorded(width, height);
      // the page's status lines and notices, and whether it rendered at all (its run storage opens before it renders)
      const said = () => r.page.evaluate(() => `${document.querySelector('#start-button') ? 'rendered' : 'not rendered'}; ` +
        [...document.querySelectorAll('[role="status"], section[role="region"]')].map((n) => n.textContent ?? '').join(' | ')).catch((e) => `(unreadable: ${e})`);
      const t0 = Date.now();
      await r.page.goto(`${url}${query}`);
      try {
        await r.page.waitForSelector('#start-button:not([disabled])', { timeout: 60_000 });
        return { ...r, ms: Date.now() - t0 };
      } catch (e) {
        const what = `Start not enabled 60 s after load ${load}; the page said: ${await said()}; errors: ${r.errors.join('; ') || 'none'}`;
        if (load >= 2) throw new Error(what, { cause: e });
        console.log(`Firefox: ${what}; a first visit again, in a fresh context`);
        await r.page.browserContext().close();
      }
    }
  }

  const attr = (page: Page, sel: string, name: string) => page.$eval(sel, (e, n) => e.getAttribute(n), name);
  /** The notices about the engine the page chose (one is expected, whichever reason applies). */
  const engineNotices = (page: Page) => page.$$eval('section[role="region"]', (ss) => ss
    .filter((s) => /^(No WebGPU|No hardware GPU|Software GPU)$/.test(s.getAttribute('aria-label') ?? ''))
    .map((s) => `${s.getAttribute('aria-label')}: ${s.textContent}`));

  /**
   * Trail heads on the main chart, by run: their centres in page pixels, read in one task of the page. A head caught
   * mid-redraw has an empty box (Firefox gives 0 x 0 at the origin): those are left out, not read as a position.
   */
  const headCentres = (page: Page): Promise<{ id: string; x: number; y: number }[]> => page.$$eval(
    'section[aria-label="Accuracy vs tokens"] circle.trail-head[data-run-id]',
    (cs) => cs.flatMap((c) => {
      const r = c.getBoundingClientRect();
      return r.width > 0 ? [{ id: c.getAttribute('data-run-id') ?? '', x: r.x + r.width / 2, y: r.y + r.height / 2 }] : [];
    }));

  /** The most heads that are pairwise at least `px` apart (at most 4 heads: every subset is tried). */
  function apart(heads: { x: number; y: number }[], px: number): number {
    let best = 0;
    for (let mask = 1; mask < 1 << heads.length; mask++) {
      const pick = heads.filter((_, i) => mask & (1 << i));
      if (pick.length > best && pick.every((a, i) => pick.slice(i + 1).every((b) => Math.hypot(a.x - b.x, a.y - b.y) >= px))) best = pick.length;
    }
    return best;
  }

  it('a first visit at 1280x800: the CPU engine by itself, said once, Start within 5 s; after Start the four trails are apart', async () => {
    const { page, errors, offsite, ms } = await opened(1280, 800);
    console.log(`Firefox ${await browser.version()}: Start enabled ${ms} ms after navigation`);
    expect(ms).toBeLessThanOrEqual(START_WITHIN_MS);
    expect(await page.evaluate(() => 'gpu' in navigator), 'this Firefox has WebGPU: the test no longer covers a browser without it').toBe(false);
    expect(await attr(page, '[data-testid="trains-on"]', 'data-engine')).toBe('wasm');
    const notices = await engineNotices(page);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^No WebGPU: This browser did not give the page WebGPU \(.+\): training on the CPU engine \(WebAssembly SIMD\)\./);
    // said once: no other line of the page repeats the choice
    expect((await page.evaluate(() => document.body.innerText)).match(/training on the CPU engine/g)).toHaveLength(1);
    const query = new URL(page.url()).searchParams; // the first visit's population
    expect(query.get('preset')).toBe('relay-noisy-quick');
    expect(query.get('population')).toBe('0,0.03,0.1,0.3');
    // Start and lambda_tok on the first screen, the aria name as a person reads it
    for (const sel of ['aria/Start[role="button"]', 'aria/lambda_tok[role="slider"]']) {
      const box = await (await page.waitForSelector(sel))!.boundingBox();
      expect(box, sel).not.toBeNull();
      expect(box!.y + box!.height, sel).toBeLessThanOrEqual(800);
    }

    await page.waitForFunction(() => document.querySelector('[data-testid="population-note"]')?.getAttribute('data-loaded') === '4', { timeout: 60_000 });
    const t0 = Date.now();
    await page.click('#start-button');
    let heads: { id: string; x: number; y: number }[] = [];
    for (;;) {
      heads = await headCentres(page);
      if ((heads.length === 4 && apart(heads, 12) === 4) || Date.now() - t0 > APART_WITHIN_MS) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const seconds = (Date.now() - t0) / 1000;
    console.log(`Firefox: ${heads.length} trail heads, ${apart(heads, 12)} at least 12 px apart, ${seconds.toFixed(1)} s after Start: ${JSON.stringify(heads.map((h) => [Math.round(h.x), Math.round(h.y)]))}`);
    expect(new Set(heads.map((h) => h.id)).size, 'four members, one head each').toBe(4);
    expect(apart(heads, 12), `trail heads ${seconds.toFixed(1)} s after Start`).toBe(4);
    expect(seconds).toBeLessThanOrEqual(APART_WITHIN_MS / 1000);
    // the heads are on the plot, inside the chart's box
    const plot = (await (await page.$('section[aria-label="Accuracy vs tokens"] .plot'))!.boundingBox())!;
    for (const h of heads) expect(h.x >= plot.x && h.x <= plot.x + plot.width && h.y >= plot.y && h.y <= plot.y + plot.height, `head ${h.id} on the plot`).toBe(true);
    expect(await attr(page, '[data-testid="trains-on"]', 'data-engine')).toBe('wasm'); // still the CPU engine
    await page.click('aria/Pause[role="button"]');
    expect(errors).toEqual([]);
    expect(offsite).toEqual([]); // nothing loaded from outside
    await page.browserContext().close();
  }, LONG);

  it('a single run: the preview is cross-origin isolated, so the CPU engine runs on threads (Web Workers on its shared memory)', async () => {
    const { page, errors } = await opened(1280, 800, '?preset=relay-silence&groupSize=4&promptsPerStep=2&minibatches=2&evalEpisodes=8');
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await page.evaluate(() => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Step')!.click());
    await page.waitForFunction(() => document.querySelector('[data-testid="step-count"]')?.textContent === '1', { timeout: 120_000 });
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const threads = Number(await attr(page, '[data-testid="trains-on"]', 'data-threads'));
    const chunks = Number(await attr(page, '[data-testid="trains-on"]', 'data-worker-chunks'));
    console.log(`Firefox: ${cores} cores, ${threads} threads, ${chunks} chunks on worker threads after a step`);
    expect(threads).toBe(Math.min(cores, 8));
    expect(threads).toBeGreaterThan(1);
    expect(chunks).toBeGreaterThan(0);
    expect(await page.$('[data-testid="backend-note"]')).toBeNull();
    expect(errors).toEqual([]);
    await page.browserContext().close();
  }, LONG);

  it('a lesson walked to its end by keyboard (group-normalization): the controls it hides, its checks passed, its explanations', async () => {
    const { page, errors } = await recorded(1280, 800);
    await page.goto(`${url}?lesson=group-normalization`);
    const lesson = findLesson('group-normalization');
    const text = (sel: string) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, sel);
    /** Tabs to the button named `name` within `within` (the lesson panel and the run buttons are in the tab order) and presses Enter. */
    // (backwards where the button comes earlier: a Tab that wraps through the browser's own chrome leaves headless
    // Firefox focusing the button without activating it on a key)
    const press = async (name: string, within = 'body', back = false) => {
      for (let i = 0; i < 120; i++) {
        if (back) await page.keyboard.down('Shift');
        await page.keyboard.press('Tab');
        if (back) await page.keyboard.up('Shift');
        const found = await page.evaluate((n, w) => {
          const el = document.activeElement as HTMLButtonElement | null;
          return el?.tagName === 'BUTTON' && el.textContent === n && !el.disabled && el.closest(w) !== null;
        }, name, within);
        if (found) { await page.keyboard.press('Enter'); return; }
      }
      throw new Error(`no enabled button "${name}" in the tab order`);
    };
    for (const [i, step] of lesson.steps.entries()) {
      const want = `Step ${i + 1} of ${lesson.steps.length}`;
      for (let t = 0; t < 240 && (await text('[data-testid="lesson-progress"]')) !== want; t++) await new Promise((r) => setTimeout(r, 500));
      expect(await text('[data-testid="lesson-progress"]')).toBe(want);
      await page.waitForFunction(() => document.querySelector('[data-testid="run-status"]')?.textContent === 'idle', { timeout: 120_000 });
      // what the step hides is not on screen (Reset, the chart), what it names is (Step)
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('[data-control="reset"]')!).display)).toBe('none');
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('[data-control="chart"]')!).display)).toBe('none');
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('[data-control="step"]')!).display)).not.toBe('none');
      // a step's setting swaps the controls when it loads; under load the swap can land between the Tab that focused
      // Step and the Enter, and the key goes to the body: press again (said in the log) until the run leaves idle
      const before = await text('[data-testid="step-count"]');
      const moved = () => page.waitForFunction((b) => document.querySelector('[data-testid="run-status"]')?.textContent !== 'idle' || document.querySelector('[data-testid="step-count"]')?.textContent !== b || document.querySelector('[data-testid="lesson"]')?.getAttribute('data-pass') === 'true', { timeout: 15_000 }, before).then(() => true, () => false);
      let presses = 0;
      do { await press('Step', '.run-buttons'); presses++; } while (!(await moved()) && presses < 3);
      if (presses > 1) console.log(`Firefox lesson step ${i + 1}: Step pressed ${presses} times before the run left idle`);
      await page.waitForFunction(() => document.querySelector('[data-testid="lesson"]')?.getAttribute('data-pass') === 'true', { timeout: 120_000 })
        .catch(async (e) => { throw new Error(`step ${i + 1} did not pass: ${await text('[data-testid="lesson-result"]')}, status ${await text('[data-testid="run-status"]')}, step count ${await text('[data-testid="step-count"]')} (${e})`); });
      expect(await text('[data-testid="lesson-explain"]')).toBe(step.explain);
      console.log(`Firefox lesson step ${i + 1}: ${await text('[data-testid="lesson-result"]')}`);
      if (i < lesson.steps.length - 1) await press('Next', '[data-testid="lesson"]', true); // the panel is above the run buttons
    }
    expect(errors).toEqual([]);
    await page.browserContext().close();
  }, LONG);

  it('a first visit on a 390x844 phone: no sideways scroll, Start enabled and inside the width, the same one notice', async () => {
    const { page, errors, ms } = await opened(390, 844);
    console.log(`Firefox at 390 px: Start enabled ${ms} ms after navigation`);
    expect(ms).toBeLessThanOrEqual(START_WITHIN_MS);
    // Firefox here draws a classic scrollbar: the layout width is the viewport less its width
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
    expect(clientWidth).toBeGreaterThan(360);
    expect(scrollWidth, 'nothing scrolls sideways').toBe(clientWidth);
    const start = (await (await page.$('#start-button'))!.boundingBox())!;
    expect(start.x).toBeGreaterThanOrEqual(0);
    expect(start.x + start.width).toBeLessThanOrEqual(clientWidth);
    expect(await attr(page, '[data-testid="trains-on"]', 'data-engine')).toBe('wasm');
    expect(await engineNotices(page)).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.browserContext().close();
  }, LONG);
});
