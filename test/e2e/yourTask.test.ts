// Your own task on the page, in a real Chromium without a GPU (the CPU engine): a short task
// typed into the editor is checked, used and trained until eval points reach the chart; a syntax error
// is marked at its line and nothing trains; the task's link carries its code, and opening it shows the
// code and asks before anything runs. Under CI=true a missing Chromium fails; elsewhere it skips.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { haveChromium, usePage } from './servePage';
import { copyTask } from '../fixtures/copyTask';

const LONG = 300_000;

/** A ten-line task: copy a short word (the settings keep the test short). */
const COPY = copyTask({ settings: '{ steps: 4, evalEvery: 2, evalEpisodes: 16, groupSize: 4, promptsPerStep: 4, minibatches: 1 }', pretrainSteps: 20 });

describe.runIf(haveChromium)('your own task in Chromium (the CPU engine)', () => {
  const served = usePage('none', LONG);

  const { open } = served;

  /** Replaces the editor's text with `code`, inserted whole (as a paste: no bracket closing). */
  async function typeTask(page: Page, code: string) {
    const editor = page.getByTestId('task-code').locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(code);
  }

  const evalPoints = async (page: Page) => Number(await page.getByTestId('pareto-caption').getAttribute('data-points'));

  it('a task typed into the editor is checked, used and trained: eval points on the chart; its link carries the code and asks before it runs', async () => {
    const { page, errors, close } = await open('?v=1&preset=relay-silence');
    try {
      await page.getByLabel('Environment').selectOption('custom');
      await expect.poll(() => page.getByTestId('task-editor').count()).toBe(1);
      // a syntax error on line 3: marked at its line, named, and nothing trains
      await typeTask(page, COPY.replace("maxAnswer: 4,", "maxAnswer: 4 +,"));
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await expect.poll(() => page.getByTestId('task-check').textContent(), { timeout: 60_000 }).toMatch(/loads .*line 4/);
      await expect.poll(() => page.locator('.cm-lintRange-error').count()).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'Use this task' }).click();
      await expect.poll(() => page.getByTestId('task-check').textContent(), { timeout: 60_000 }).toMatch(/loads/);
      expect(await page.getByLabel('Environment').inputValue()).toBe('custom'); // "your task" stays chosen
      expect(await page.getByLabel('Preset').inputValue()).toBe(''); // no task in use: no preset, and Start waits for Use
      expect(await page.getByRole('button', { name: 'Start', exact: true }).isDisabled()).toBe(true);

      await typeTask(page, COPY);
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await expect.poll(() => page.getByTestId('task-check').textContent(), { timeout: 60_000 }).toMatch(/Checks passed: copy/);
      await page.getByRole('button', { name: 'Use this task' }).click();
      await expect.poll(() => page.getByLabel('Preset').inputValue(), { timeout: 120_000 }).toBe('task-copy');
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await expect.poll(() => evalPoints(page), { timeout: 240_000, interval: 500 }).toBeGreaterThanOrEqual(2); // steps 2 and 4
      expect(errors).toEqual([]);
      // a population of the task over lambda_tok: each member in a worker of its own, which registers the task from the code it is given
      await page.getByRole('textbox', { name: 'lambda_tok values to sweep' }).fill('0, 0.5');
      await page.getByRole('button', { name: 'Run sweep' }).click();
      await page.getByRole('button', { name: 'Train the new population' }).click(); // the run above has steps: asked first
      const progress = page.getByTestId('sweep-progress');
      await expect.poll(() => progress.getAttribute('data-status'), { timeout: 240_000, interval: 500 }).toBe('done');
      expect(await page.getByTestId('sweep-caption').getAttribute('data-points')).toBe('2');
      expect(errors).toEqual([]);

      // the link: the task's code travels in it (deflated)
      const link = new URL(page.url());
      expect(link.searchParams.get('preset')).toBe('task-copy');
      expect(link.searchParams.get('task')).toMatch(/^[A-Za-z0-9_-]+$/);
      const other = await served.browser().newContext({ viewport: { width: 1280, height: 800 } });
      const fresh = await other.newPage();
      await fresh.goto(`${served.url()}${link.search}`);
      const dialog = fresh.getByRole('dialog', { name: 'Run the task in this link?' });
      await expect.poll(() => dialog.isVisible(), { timeout: 120_000 }).toBe(true);
      expect(await fresh.getByTestId('confirm-code').textContent()).toBe(COPY); // shown whole before it runs
      expect(await fresh.getByLabel('Preset').inputValue()).not.toBe('task-copy'); // nothing of it ran yet
      await dialog.getByRole('button', { name: 'Run this task' }).click();
      await expect.poll(() => fresh.getByLabel('Preset').inputValue(), { timeout: 120_000 }).toBe('task-copy');
      await other.close();

      // a reload: the task of a stored run is known (confirmed when it was used): no question, the same task on screen
      await page.reload();
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).not.toBe('');
      await expect.poll(() => page.getByLabel('Preset').inputValue(), { timeout: 120_000 }).toBe('task-copy');
      expect(await page.getByRole('dialog', { name: 'Run the task in this link?' }).isVisible()).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 600_000);
});
