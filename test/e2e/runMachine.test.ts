// The run's one machine in a real Chromium without a GPU (the CPU engine), driven as a person would: each test is
// a seam the page showed while a lone run and a population were two machines (docs/page.md, "The run's machine").
// - Reset and Warm start on a training population ask, and after them nothing trains while the chart is empty;
// - a lone run that finished steps and continues on (its count raised; no "Step 5 of 4");
// - the slider before Start sets the value the first member trains; a burst of keys is one live change;
// - the default Best after training is not the untrained warm start;
// - on a phone Pause sits in the docked strip beside the slider; every time-series legend fits its box;
// - axe-core (WCAG 2.1 A/AA) finds no serious or critical violation on the first screen, while training,
//   with the task editor open, and at 390 px.
// Under CI=true a missing Chromium fails; elsewhere it skips with a message.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { haveChromium, usePage } from './servePage';

const LONG = 300_000;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations of WCAG 2.1 A/AA on the page as it is, one line each. */
async function axeSerious(page: Page): Promise<string[]> {
  await page.evaluate(AXE); // through the debugger, so the page's Content-Security-Policy (no inline script) does not stop it
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).join(' ')}${v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : ''}`);
}

describe.runIf(haveChromium)('the run\'s machine in Chromium (the CPU engine)', () => {
  const served = usePage('none', LONG);
  const open = served.open;
  const status = (page: Page) => page.getByTestId('run-status').textContent();
  const where = (page: Page) => page.getByTestId('run-where').textContent();
  const stepShown = async (page: Page) => Number(await page.getByTestId('step-count').textContent());
  const chips = (page: Page) => page.getByTestId('member-chips').getByRole('button');
  const slider = (page: Page) => page.getByRole('slider', { name: /^lambda_tok/ });
  const evalPoints = async (page: Page) => Number(await page.getByTestId('pareto-caption').getAttribute('data-points'));
  const dialog = (page: Page) => page.locator('dialog.confirm[open]');

  it('Reset and Warm start on a training population ask first; after them nothing trains and the status is idle', async () => {
    const { page, errors, close } = await open('?v=1&preset=relay-noisy-quick&population=0,0.3&until=paused');
    try {
      for (const [button, confirm] of [['Reset', 'Reset'], ['Warm start', 'Warm start']] as const) {
        await page.getByRole('button', { name: 'Start', exact: true }).click();
        await expect.poll(() => status(page), { timeout: 120_000 }).toBe('training');
        await expect.poll(() => stepShown(page), { timeout: 60_000 }).toBeGreaterThan(3);
        await page.getByRole('button', { name: button, exact: true }).click();
        await dialog(page).waitFor({ timeout: 10_000 });
        expect(await dialog(page).textContent()).toMatch(/The current population \(\d+ steps of 2 runs\) stops/);
        await dialog(page).getByRole('button', { name: confirm, exact: true }).click();
        await expect.poll(() => status(page), { timeout: 60_000 }).toBe('idle');
        expect(await stepShown(page)).toBe(0);
        // a while later: still idle at step 0, the chart empty (no member trains unseen)
        await page.waitForTimeout(3_000);
        expect(await where(page)).toMatch(/Step 0 · until paused · idle/);
        expect(await evalPoints(page)).toBe(0);
      }
      expect(errors).toEqual([]);
    } finally { await close(); }
  }, LONG);

  it('a lone run that finished: Step goes one past it with its count raised, and Continue trains on', async () => {
    const { page, errors, close } = await open('?v=1&preset=relay-noisy-quick&steps=4&lambdaTok=0.3');
    try {
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await expect.poll(() => status(page), { timeout: 120_000 }).toBe('finished');
      expect(await where(page)).toMatch(/Step 4 of 4 · finished/);
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await expect.poll(() => where(page), { timeout: 60_000 }).toMatch(/Step 5 of 8 · paused/);
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      await expect.poll(() => status(page), { timeout: 120_000 }).toBe('finished');
      expect(await where(page)).toMatch(/Step 8 of 8 · finished/);
      // the default Best (the highest eval reward) after training is a trained eval, not the warm start's step 0
      await expect.poll(() => page.getByTestId('best-rule').textContent(), { timeout: 30_000 }).toMatch(/highest mean reward.* Now: step [1-9]/);
      expect(errors).toEqual([]);
    } finally { await close(); }
  }, LONG);

  it('the slider before Start sets the first member, which Start trains; a burst of keys on a member is one live change', async () => {
    const { page, errors, close } = await open('?v=1&preset=relay-noisy-quick&population=0,0.3&until=paused');
    try {
      expect(await page.getByText(/^the first member's value: Start trains 2 runs at 0, 0\.3/).count()).toBe(1);
      await slider(page).focus();
      await page.keyboard.press('PageUp'); await page.keyboard.press('PageUp'); // 0 -> 0.2
      await expect.poll(() => page.getByTestId('population-note').getAttribute('data-values'), { timeout: 10_000 }).toBe('0.2,0.3');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await expect.poll(() => chips(page).count(), { timeout: 120_000 }).toBe(2);
      const first = (await chips(page).first().getAttribute('data-run-id'))!;
      expect(await chips(page).first().getAttribute('data-setting')).toBe('0.2');
      expect(await page.getByTestId('lambda-tok-value').textContent()).toBe('0.2');
      // three quick presses: one change, to where they landed (0.5), on the chip and the trail's label
      await slider(page).focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press('PageUp');
      await expect.poll(() => chips(page).first().getAttribute('data-setting'), { timeout: 10_000 }).toBe('0.5');
      // the change is marked on the chart at the member's first eval after it: one mark, however many presses
      const caption = page.getByTestId('pareto-caption');
      await expect.poll(() => caption.getAttribute('data-changes'), { timeout: 90_000 }).not.toBe('0');
      await page.waitForTimeout(2_000);
      expect(await caption.getAttribute('data-changes')).toBe('1');
      await expect.poll(() => page.locator('g.trail-labels').textContent(), { timeout: 10_000 }).toMatch(/λ=0\.2→0\.5/);
      // one step number, labelled: the chosen member's
      expect(await page.getByTestId('step-of').textContent()).toMatch(/^λ=0\.2: $/);
      expect(await chips(page).first().getAttribute('data-run-id')).toBe(first);
      expect(errors).toEqual([]);
    } finally { await close(); }
  }, LONG);

  it('axe-core finds no serious or critical violation: first screen, training, the task editor open, and at 390 px; the phone docks Pause beside the slider; legends fit', async () => {
    const context = await served.browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(served.url()); // a first visit: the population of four, idle
      await expect.poll(() => status(page), { timeout: 120_000 }).toBe('idle');
      expect(await axeSerious(page), 'first screen').toEqual([]);
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await expect.poll(() => stepShown(page), { timeout: 120_000 }).toBeGreaterThan(3);
      expect(await axeSerious(page), 'training').toEqual([]);
      // every time-series legend fits its box while four members train (no key scrolled out of sight)
      const cut = await page.locator('.series .legend').evaluateAll((ls) => ls.filter((l) => l.scrollHeight > l.clientHeight + 1 || l.scrollWidth > l.clientWidth + 1).length);
      expect(cut).toBe(0);
      await page.getByRole('button', { name: 'Pause' }).first().click();
      await expect.poll(() => status(page), { timeout: 60_000 }).toBe('paused');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(500);
      expect(await axeSerious(page), '390 px').toEqual([]);
      // on the phone: Continue/Pause in the docked strip, on screen beside the slider, acts on the run
      const dock = page.getByTestId('dock-run');
      expect(await dock.isVisible()).toBe(true);
      const box = (await dock.boundingBox())!, slide = (await slider(page).boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(844);
      expect(Math.abs((box.y + box.height / 2) - (slide.y + slide.height / 2))).toBeLessThan(40);
      await dock.click();
      await expect.poll(() => status(page), { timeout: 60_000 }).toBe('training');
      expect(await dock.textContent()).toBe('Pause');
      await dock.click();
      await expect.poll(() => status(page), { timeout: 60_000 }).toBe('paused');
      await page.setViewportSize({ width: 1280, height: 800 });
      expect(await dock.isVisible()).toBe(false); // beside the chart, Run's own buttons do it
      await page.getByLabel('Environment').selectOption('custom');
      await page.getByTestId('task-editor').waitFor();
      expect(await page.getByLabel('Environment').inputValue()).toBe('custom');
      expect(await axeSerious(page), 'task editor').toEqual([]);
    } finally { await context.close(); }
  }, LONG);
});
