// What a first load leaves out before Start, in a real Chromium on the built page: CodeMirror is not in the entry
// script (the task editor's chunk loads when the editor opens), and the time series below the fold are frames without
// a plot until they are scrolled to (17 charts drawn at load held Start up to a second on 2 cores). Under CI=true a
// missing Chromium fails; elsewhere it skips.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtPage, haveChromium, usePage } from './servePage';
import { CHART_GROUPS } from '../../src/ui/seriesDefs';

/** A string of CodeMirror's own (its scroller's class name), which minifying keeps. */
const CODEMIRROR = 'cm-scroller';

describe.runIf(haveChromium)('the first load', () => {
  const served = usePage('none');

  it('the entry script holds no CodeMirror; one chunk of its own does', async () => {
    const dir = await builtPage();
    const entry = /<script type="module"[^>]* src="\/?(assets\/index-[^"]+\.js)"/.exec(readFileSync(join(dir, 'index.html'), 'utf8'))?.[1];
    expect(entry, 'the entry script in index.html').toBeTruthy();
    expect(readFileSync(join(dir, entry!), 'utf8')).not.toContain(CODEMIRROR);
    const withIt = readdirSync(join(dir, 'assets')).filter((f) => f.endsWith('.js') && readFileSync(join(dir, 'assets', f), 'utf8').includes(CODEMIRROR));
    expect(withIt).toHaveLength(1);
  }, 300_000);

  it('time series below the fold are frames without a plot until scrolled to; then they draw', async () => {
    const { page, errors, close } = await served.open('?preset=relay-silence&groupSize=4&promptsPerStep=2&minibatches=2&evalEpisodes=8');
    const boxes = () => page.evaluate(() => [...document.querySelectorAll('.series-box')].map((b) => ({
      top: b.getBoundingClientRect().top, height: b.getBoundingClientRect().height,
      plot: b.querySelector('svg.recharts-surface') !== null, undrawn: b.querySelector('.series-undrawn') !== null,
    })));
    const at = await boxes();
    expect(at).toHaveLength(CHART_GROUPS.reduce((n, g) => n + g.charts.length, 0));
    const far = at.filter((b) => b.top > 800 + 400); // past the observer's 200 px margin, with room to spare
    expect(far.length).toBeGreaterThan(0);
    expect(far.every((b) => !b.plot && b.undrawn)).toBe(true);
    for (const b of at.filter((x) => x.top + x.height < 800)) expect(b.plot).toBe(true); // on screen: drawn
    const last = page.locator('.series-box').last();
    await last.scrollIntoViewIfNeeded();
    await expect.poll(() => last.locator('svg.recharts-surface').count(), { timeout: 30_000 }).toBe(1);
    expect(await last.locator('.series-undrawn').count()).toBe(0);
    // the empty frame held the drawn chart's place: the page does not jump when it draws
    expect(Math.abs((await last.boundingBox())!.height - at[at.length - 1].height)).toBeLessThanOrEqual(4);
    expect(errors).toEqual([]);
    await close();
  }, 300_000);

  it('the task editor loads when opened; a chunk that does not load is said in its place, and the page goes on', async () => {
    const { page, close } = await served.open('?preset=relay-silence&groupSize=4&promptsPerStep=2&minibatches=2&evalEpisodes=8');
    await page.route(/TaskEditorPanel-[^/]+\.js$/, (r) => r.abort());
    await page.getByLabel('Environment').selectOption('custom');
    const failed = page.getByTestId('task-editor-failed');
    await expect.poll(() => failed.count(), { timeout: 30_000 }).toBe(1);
    expect(await failed.textContent()).toMatch(/^Your taskThe task editor could not be loaded \(.+\)\. Reload the page to try again/);
    expect(await page.getByTestId('task-editor').count()).toBe(0);
    expect(await page.locator('#start-button').count()).toBe(1); // the rest of the page still there
    await close();
    const again = await served.open('?preset=relay-silence&groupSize=4&promptsPerStep=2&minibatches=2&evalEpisodes=8');
    await again.page.getByLabel('Environment').selectOption('custom');
    await expect.poll(() => again.page.getByTestId('task-editor').count(), { timeout: 30_000 }).toBe(1);
    expect(await again.page.locator('.cm-editor').count()).toBe(1);
    expect(again.errors).toEqual([]);
    await again.close();
  }, 300_000);
});
