// The first screen's layout in Chromium: at 1280x800 Start and the lambda_tok
// slider stay on the first screen with several notices open (notices sit above
// the charts, not above the controls), the sweep's values box shows its whole
// list, and on a 390x844 phone Start brings the chart into view. A first visit
// at 390, 800, 1280 and 1920 px never scrolls sideways, and from 1280 px up
// Start and the lambda_tok slider are on the first screen. On a 390x844 phone,
// after Start the chart and the lambda_tok slider (docked at the foot) are on
// the screen together and the slider moves by keyboard, and one tap on the
// middle column's Inspect tab shows the task card, the transcripts within a screen.
// Under CI=true a missing Chromium fails; elsewhere it skips with a message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { haveChromium, recordErrors, servePage, type ServedPage } from './servePage';

const SMALL = 'groupSize=4&promptsPerStep=2&minibatches=2&evalEvery=1&evalEpisodes=8';
const LONG = 300_000;

describe.runIf(haveChromium)('the first screen\'s layout in Chromium', () => {
  let served: ServedPage | undefined;
  let browser: Browser;
  let url = '';

  beforeAll(async () => {
    served = await servePage('swiftshader');
    ({ browser, url } = served);
  }, LONG);

  afterAll(async () => { await served?.close(); });

  /** A page of the link, once its run is ready (idle), recording page and console errors. */
  async function open(context: BrowserContext, query: string): Promise<{ page: Page; errors: string[] }> {
    const page = await context.newPage();
    const errors = recordErrors(page);
    await page.goto(url + query);
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
    return { page, errors };
  }

  async function boxOf(l: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
    let box = await l.boundingBox();
    for (let i = 0; i < 100 && box === null; i++) { await new Promise((r) => setTimeout(r, 50)); box = await l.boundingBox(); }
    if (box === null) throw new Error(`no box for ${String(l)}`);
    return box;
  }

  it('at 1280x800 Start and lambda_tok are on the first screen whatever notices are open, and the sweep values are read whole; on a phone Start brings the chart into view', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // notices at once: the first-run guide, the link's problems (two bad parameters), and on SwiftShader the software-GPU offer
    const { page, errors } = await open(context, '?preset=relay-noisy-quick&population=0,0.03,0.1,0.3&nope=1&lambdaTok=77');
    await page.getByRole('region', { name: 'First steps' }).waitFor();
    await page.getByTestId('url-problems').waitFor();
    const notices = await page.locator('.banners > *').count();
    console.log(`layout: ${notices} notices open`);
    expect(notices).toBeGreaterThanOrEqual(2);
    for (const [l, what] of [[page.getByRole('button', { name: 'Start', exact: true }), 'Start'], [page.getByRole('slider', { name: 'lambda_tok' }), 'the lambda_tok slider']] as const) {
      const b = await boxOf(l);
      expect(b.y, `${what} top`).toBeGreaterThanOrEqual(0);
      expect(b.y + b.height, `${what} bottom`).toBeLessThanOrEqual(800);
      expect(b.x + b.width, `${what} right`).toBeLessThanOrEqual(1280);
    }
    // the sweep's values box shows the whole list
    const values = page.getByLabel('lambda_tok values to sweep');
    expect(await values.inputValue()).toBe('0, 0.03, 0.1, 0.3');
    expect(await values.evaluate((e) => (e as HTMLInputElement).scrollWidth <= (e as HTMLInputElement).clientWidth)).toBe(true);
    await context.close();

    // a phone: the chart is below the controls; Start scrolls it into view
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p2 = await open(phone, `?preset=relay-silence&${SMALL}`);
    const pareto = p2.page.getByRole('region', { name: 'Accuracy vs tokens' });
    expect((await boxOf(pareto)).y, 'the chart starts below the first screen').toBeGreaterThan(844);
    await p2.page.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(async () => { const b = await boxOf(pareto); return b.y >= -1 && b.y < 844 / 2; }, { timeout: 30_000 }).toBe(true);
    await p2.page.getByRole('button', { name: 'Pause' }).first().click(); // (the docked strip has one too)
    expect([...errors, ...p2.errors]).toEqual([]);
    await phone.close();
  }, LONG);

  it('a first visit at 390, 800, 1280 and 1920 px: no sideways scroll; from 1280 px Start and lambda_tok on the first screen', async () => {
    for (const [width, height] of [[390, 844], [800, 800], [1280, 800], [1920, 1080]] as const) {
      const phone = width < 640;
      const context = await browser.newContext({ viewport: { width, height }, isMobile: phone, hasTouch: phone });
      const { page, errors } = await open(context, ''); // a bare link in a fresh profile
      const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, body: document.body.scrollWidth, y: scrollY }));
      console.log(`layout at ${width}x${height}: ${JSON.stringify(doc)}`);
      // a classic scrollbar may take a few pixels of the width; the page must fit what is left
      expect(doc.client, `${width}: layout width`).toBeGreaterThan(width - 20);
      expect(doc.scroll, `${width}: document scroll width`).toBe(doc.client);
      expect(doc.body, `${width}: body scroll width`).toBeLessThanOrEqual(doc.client);
      if (width >= 1280) {
        expect(doc.y, `${width}: the page opens unscrolled`).toBe(0);
        for (const [l, what] of [[page.getByRole('button', { name: 'Start', exact: true }), 'Start'],
          [page.getByRole('slider', { name: 'lambda_tok' }), 'the lambda_tok slider']] as const) {
          expect(await l.isVisible(), `${width}: ${what} visible`).toBe(true);
          const b = await boxOf(l);
          expect(b.y, `${width}: ${what} top`).toBeGreaterThanOrEqual(0);
          expect(b.y + b.height, `${width}: ${what} bottom`).toBeLessThanOrEqual(height);
          expect(b.x, `${width}: ${what} left`).toBeGreaterThanOrEqual(0);
          expect(b.x + b.width, `${width}: ${what} right`).toBeLessThanOrEqual(doc.client);
          // nothing (a notice, a menu) lies over its centre
          expect(await l.evaluate((e) => { const r = e.getBoundingClientRect(); const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2); return at === e || e.contains(at); }), `${width}: ${what} uncovered`).toBe(true);
        }
      }
      expect(errors, `${width}`).toEqual([]);
      await context.close();
    }
  }, LONG);

  it('a 390x844 phone, first visit: after Start the chart and the lambda_tok slider are on screen together and the slider moves by keyboard; one tap on Inspect brings the task card and transcripts within a screen', async () => {
    const H = 844;
    const context = await browser.newContext({ viewport: { width: 390, height: H }, isMobile: true, hasTouch: true });
    const { page, errors } = await open(context, ''); // a bare link in a fresh profile
    const plot = page.getByRole('region', { name: 'Accuracy vs tokens' }).locator('svg.recharts-surface').first();
    const slider = page.getByRole('slider', { name: /^lambda_tok/ });
    /** How much of the box lies inside the viewport's height (px), and its box. */
    const onScreen = async (l: Locator) => { const b = await boxOf(l); return { ...b, shown: Math.max(0, Math.min(b.y + b.height, H) - Math.max(b.y, 0)) }; };
    /** The element at the centre of the box is the element itself (nothing lies over it). */
    const uncovered = (l: Locator) => l.evaluate((e) => { const r = e.getBoundingClientRect(); const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2); return at === e || e.contains(at); });
    const both = async (when: string) => {
      const [c, s] = [await onScreen(plot), await onScreen(slider)];
      console.log(`phone ${when}: chart svg y=${Math.round(c.y)} h=${Math.round(c.height)} (${Math.round(c.shown)} px shown); slider y=${Math.round(s.y)} h=${Math.round(s.height)} (${Math.round(s.shown)} px shown); scrollY=${await page.evaluate(() => Math.round(scrollY))}`);
      expect(c.shown, `${when}: the chart on screen`).toBeGreaterThan(Math.min(c.height, 150));
      expect(s.shown, `${when}: the whole slider on screen`).toBeGreaterThanOrEqual(s.height - 1);
      expect(s.x, `${when}: slider left`).toBeGreaterThanOrEqual(0);
      expect(s.x + s.width, `${when}: slider right`).toBeLessThanOrEqual(390);
      expect(await uncovered(slider), `${when}: nothing over the slider`).toBe(true);
    };
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 60_000 }).not.toBe('idle');
    await page.waitForTimeout(500); // Start's scroll to the chart
    await both('after Start');
    // the keyboard moves the slider while chart and slider both stay on screen
    const before = await slider.inputValue();
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => slider.inputValue()).not.toBe(before);
    console.log(`phone: lambda_tok ${before} -> ${await slider.inputValue()} by keyboard`);
    await both('after the keys');

    // the inspector: one tap on the middle column's Inspect tab, then within one screen of scroll
    const card = page.locator('.task-card');
    const transcripts = page.getByRole('tab', { name: 'Transcripts' });
    const docY = async (l: Locator) => (await boxOf(l)).y + await page.evaluate(() => scrollY);
    if (await card.count()) console.log(`phone: the task card at document y=${Math.round(await docY(card))} before the tap`);
    const inspect = page.getByRole('tab', { name: 'Inspect' });
    expect(await inspect.count(), 'an Inspect tab beside Charts').toBe(1);
    expect((await onScreen(inspect)).shown, 'the Inspect tab is on screen beside the chart').toBeGreaterThan(0);
    await inspect.tap();
    await expect.poll(() => card.count()).toBe(1);
    await page.waitForTimeout(300);
    for (const [l, what] of [[card, 'the task card'], [transcripts, 'the Transcripts tab']] as const) {
      const b = await boxOf(l);
      console.log(`phone after the Inspect tap: ${what} at y=${Math.round(b.y)} (document y=${Math.round(await docY(l))})`);
      // on screen now, or after at most one screen of scroll
      expect(b.y, `${what} not above the screen`).toBeGreaterThanOrEqual(0);
      expect(b.y + Math.min(b.height, 40), `${what} within one screen of scroll`).toBeLessThanOrEqual(2 * H);
    }
    expect((await boxOf(card)).y, 'the task card on the screen the tap leaves').toBeLessThan(H);
    // the page never scrolls sideways with the inspector in the middle column
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await page.getByRole('button', { name: 'Pause' }).first().click(); // (the docked strip has one too)
    expect(errors).toEqual([]);
    await context.close();
  }, LONG);
});
