// Your own task on the page, round two, in a real Chromium without a GPU (the CPU engine): Check of a task
// whose score never returns runs in the task's own worker (the answer within 4 s: the 2 s call limit, then the rest of the Check; the page's main thread
// never blocked over 200 ms, the editor wide at 1280x800); a task that loops mid-run stops it with a
// banner naming the function, Continue refused; Copy link round-trips (the link asks, then uses the same
// code, the address keeping the task while it asks); the first example has a message to pay for (its
// episodes have message tokens). Under CI=true a missing Chromium fails; elsewhere it skips.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { haveChromium, usePage } from './servePage';
import { copyTask } from '../fixtures/copyTask';

const LONG = 300_000;

/** Copy a short word; `score` is given. The settings keep the test short. */
const task = (name: string, score: string, head = '') => copyTask({ name, score, head, settings: '{ steps: 20, evalEvery: 2, evalEpisodes: 16, groupSize: 4, promptsPerStep: 4, minibatches: 1, nEmbd: 32 }', pretrainSteps: 20 });
/** Score never returns. */
const LOOPS = task('loops', '() => { while (true) {} }');
/** Passes Check (its ~50 scores), then loops once the run has scored 60 episodes (in step 2 or 3: the eval at step 0 and steps of 16 come first). */
const LOOPS_LATER = task('loops-later', '(w, a) => { calls++; if (calls > 60) { while (true) {} } return a === w ? 1 : 0; }', 'let calls = 0;\n');

describe.runIf(haveChromium)('your own task on the page, round two (Chromium, the CPU engine)', () => {
  const served = usePage('none', LONG);

  async function typeTask(page: Page, code: string) {
    const editor = page.getByTestId('task-code').locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(code);
  }

  /** After Use: the task's run is the current one and its warm start is loaded (the editor's busy sign stays until then). */
  async function usedAndReady(page: Page, preset: string) {
    await expect.poll(() => page.getByTestId('task-busy').count(), { timeout: 120_000, interval: 100 }).toBe(0);
    expect(await page.getByLabel('Preset').inputValue()).toBe(preset);
    expect(await page.getByTestId('run-status').textContent()).toBe('idle');
    expect(await page.getByTestId('progress').count()).toBe(0);
  }

  /** Starts a gap monitor in the page: the longest wait between setInterval ticks and between animation frames (ms). */
  const watchGaps = (page: Page) => page.evaluate(() => {
    const w = window as unknown as { gaps: { interval: number; frame: number; stop: boolean } };
    w.gaps = { interval: 0, frame: 0, stop: false };
    let last = performance.now();
    const id = setInterval(() => { const t = performance.now(); w.gaps.interval = Math.max(w.gaps.interval, t - last); last = t; if (w.gaps.stop) clearInterval(id); }, 10);
    let lastFrame = performance.now();
    const frame = (t: number) => { w.gaps.frame = Math.max(w.gaps.frame, t - lastFrame); lastFrame = t; if (!w.gaps.stop) requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
  });
  const gaps = (page: Page) => page.evaluate(() => { const w = window as unknown as { gaps: { interval: number; frame: number; stop: boolean } }; w.gaps.stop = true; return { interval: w.gaps.interval, frame: w.gaps.frame }; });

  it('Check of a task whose score loops answers within 4 s (the 2 s call limit, then the rest of the Check) from its own worker; the page is never blocked over 200 ms; the editor is wide', async () => {
    const { page, errors, close } = await served.open('?v=1&preset=relay-silence');
    try {
      await page.getByLabel('Environment').selectOption('custom');
      await expect.poll(() => page.getByTestId('task-editor').count()).toBe(1);
      // the first example a person meets has a message to pay for
      expect(await page.getByTestId('task-code').textContent()).toMatch(/messenger:/);
      // wide enough to read: at 1280x800 the code gets most of the page's width, not the controls' column
      const box = await page.getByTestId('task-code').boundingBox();
      expect(box!.width).toBeGreaterThan(800);
      await typeTask(page, LOOPS);
      await page.waitForTimeout(1500); // the sandbox loads in the task's worker meanwhile (opening the editor starts it)
      await watchGaps(page);
      const t0 = Date.now();
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await expect.poll(() => page.getByTestId('task-busy').count(), { timeout: 2000, interval: 50 }).toBe(1); // the busy sign
      await expect.poll(() => page.getByTestId('task-check').textContent(), { timeout: 10_000, interval: 50 }).toMatch(/score \(score\): score did not return within 2000 ms/);
      const ms = Date.now() - t0;
      const g = await gaps(page);
      console.log(`Check of while (true) {}: ${ms} ms; the main thread's longest gaps: ${g.interval.toFixed(0)} ms (setInterval), ${g.frame.toFixed(0)} ms (frames)`);
      // the call limit (2 s), then the Check's work before the score and the page's round trips: 0.4-0.6 s on a quiet
      // 2-core machine, 1 s once in CI's slow phase; far from the task worker's own end (TASK_WORKER_MS, 30 s)
      expect(ms).toBeLessThan(4000);
      expect(g.interval).toBeLessThan(200);
      expect(g.frame).toBeLessThan(200);
      expect(await page.getByTestId('task-busy').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, LONG);

  it('a task that loops in step 2 stops the run with a banner naming score and the task; Continue waits for a changed task; Copy link round-trips', async () => {
    const { page, errors, close } = await served.open('?v=1&preset=relay-silence');
    try {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(served.url()).origin });
      await page.getByLabel('Environment').selectOption('custom');
      await typeTask(page, LOOPS_LATER);
      await page.getByRole('button', { name: 'Use this task' }).click(); // Check first: passes (the loop comes later)
      await expect.poll(() => page.getByLabel('Preset').inputValue(), { timeout: 120_000 }).toBe('task-loops-later');
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      const banner = page.getByTestId('task-stopped');
      await expect.poll(() => banner.count(), { timeout: 120_000, interval: 250 }).toBe(1);
      const text = (await banner.textContent())!;
      expect(text).toMatch(/Your task "loops-later" stopped the run: its score failed in step (\d+)/);
      expect(text).toMatch(/score did not return within 2000 ms.*task "[abc]+", answer "/); // which task and answer
      const step = Number(/failed in step (\d+)/.exec(text)![1]);
      expect(step).toBeGreaterThanOrEqual(2); // the steps before it are kept
      expect(text).toMatch(/Continue is refused until the task changes/);
      expect(await page.getByRole('button', { name: /^(Start|Continue)$/ }).isDisabled()).toBe(true);
      // the banner sits on the first screen
      const b = await banner.boundingBox();
      expect(b!.y).toBeLessThan(800);

      // Copy link: the clipboard holds the page's link with the task's code; the field shows it too
      await page.getByRole('button', { name: 'Copy link' }).click();
      const shown = await page.getByTestId('task-link').inputValue();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(shown);
      const link = new URL(copied);
      expect(link.searchParams.get('preset')).toBe('task-loops-later');
      const other = await served.browser().newContext({ viewport: { width: 1280, height: 800 } });
      const fresh = await other.newPage();
      await fresh.goto(copied);
      const dialog = fresh.getByRole('dialog', { name: 'Run the task in this link?' });
      await expect.poll(() => dialog.isVisible(), { timeout: 120_000 }).toBe(true);
      expect(await fresh.getByTestId('confirm-code').textContent()).toBe(LOOPS_LATER);
      expect(new URL(fresh.url()).searchParams.get('task')).toBe(link.searchParams.get('task')); // the address keeps the task while it asks
      await dialog.getByRole('button', { name: 'Run this task' }).click();
      await expect.poll(() => fresh.getByLabel('Preset').inputValue(), { timeout: 120_000 }).toBe('task-loops-later');
      expect(new URL(fresh.url()).searchParams.get('task')).toBe(link.searchParams.get('task'));
      await other.close();
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, LONG);

  it('the first example has a message to pay for: its episodes carry message tokens; a one-role example greys lambda_tok, saying why', async () => {
    const { page, errors, close } = await served.open('?v=1&preset=relay-silence');
    try {
      await page.getByLabel('Environment').selectOption('custom');
      const t0 = Date.now();
      await page.getByRole('button', { name: 'Use this task' }).click(); // the first example, as the editor opens on it
      await usedAndReady(page, 'task-priority-digits');
      console.log(`the first example (priority) ready to train ${Date.now() - t0} ms after Use`);
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(await page.getByTestId('no-tokens').count()).toBe(0);
      expect(await page.getByRole('slider', { name: /lambda_tok/ }).isDisabled()).toBe(false);
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      const example = page.getByTestId('task-example');
      await expect.poll(() => example.count(), { timeout: 120_000 }).toBe(1);
      const tokens = Number(/(\d+) tokens?/.exec((await example.textContent())!)![1]);
      expect(tokens).toBeGreaterThan(0);

      // every example's warm start is ready within 15 s (relay and priority ship theirs; reverse and sort-hackable pretrain here)
      for (const [example, preset] of [['relay', 'task-relay'], ['sort-hackable', 'task-sort-hackable-reward'], ['reverse', 'task-reverse']]) {
        await page.getByLabel('Start from').selectOption(example);
        const t1 = Date.now();
        await page.getByRole('button', { name: 'Use this task' }).click();
        await usedAndReady(page, preset);
        console.log(`${example} ready to train ${Date.now() - t1} ms after Use`);
        expect(Date.now() - t1).toBeLessThan(15_000);
      }
      // reverse has one role: nothing for lambda_tok to charge, said on the task card and by the greyed slider
      await expect.poll(() => page.getByTestId('no-tokens').textContent(), { timeout: 60_000 }).toMatch(/one role and no message/);
      expect(await page.getByRole('slider', { name: /lambda_tok/ }).isDisabled()).toBe(true);
      expect(await page.getByTestId('sweep-no-tokens').textContent()).toMatch(/A lambda_tok sweep changes nothing here/);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, LONG);
});
