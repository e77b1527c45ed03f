// The built page in a real Chromium with WebGPU (SwiftShader when there is no
// GPU), driven as a person would: by role and visible name. SwiftShader is
// slow (a step of the default relay preset takes many seconds), so the runs
// here are small (P = 2, G = 4, 8 eval episodes, an eval every step). On a
// software adapter the page would train on the CPU engine by itself
// (cpuDefault.test.ts): the WebGPU tests open as a person who chose WebGPU.
// Under CI=true a missing Chromium or WebGPU fails; elsewhere a missing
// Chromium skips with a message.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { frameStats, startFrameProbe, stopFrameProbe } from './frames';
import { haveChromium, launchChromium, recordErrors, servePage, type ServedPage } from './servePage';
import { preferWebGpu } from './webgpuPref';

const SMALL = 'groupSize=4&promptsPerStep=2&minibatches=2&evalEvery=1&evalEpisodes=8'; // in FIELDS order, as the page writes it
const LONG = 300_000;

describe.runIf(haveChromium)('the page in Chromium', () => {
  let served: ServedPage | undefined;
  let browser: Browser;
  let url = '';
  let downloads = '';

  beforeAll(async () => {
    served = await servePage('swiftshader');
    ({ browser, url } = served);
    downloads = await mkdtemp(join(tmpdir(), 'gspo-e2e-'));
  });

  afterAll(async () => {
    await served?.close();
    if (downloads) await rm(downloads, { recursive: true, force: true });
  });

  /** A Chromium with no GPU at all (WebGPU absent, as on a browser without it). */
  const launchWithoutGpu = () => launchChromium('none');

  /** A 1280x800 page of `browser` that records page errors and console errors. */
  async function laptopPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    return { page, errors: recordErrors(page) };
  }

  /** A page (of a person who chose WebGPU) that records errors and every request that leaves this origin. */
  async function open(context: BrowserContext, query = ''): Promise<{ page: Page; errors: string[]; offsite: string[] }> {
    await preferWebGpu(context);
    const page = await context.newPage();
    const errors = recordErrors(page), offsite: string[] = [];
    page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) offsite.push(r.url()); });
    await page.goto(url + query);
    await ready(page);
    return { page, errors, offsite };
  }

  /** The run is ready in the worker (the warm start loaded) on WebGPU. */
  async function ready(page: Page): Promise<void> {
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
    await page.getByText('This device: WebGPU').waitFor({ timeout: 10_000 }); // a CPU fallback would fail here
  }

  /**
   * An element's box once it is on the page: a redraw of a chart (a hover, an eval arriving) may rebuild its
   * points, and a point caught between two drawings has no box.
   */
  async function boxOf(l: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
    let box = await l.boundingBox();
    for (let i = 0; i < 100 && box === null; i++) { await new Promise((r) => setTimeout(r, 50)); box = await l.boundingBox(); }
    if (box === null) throw new Error(`no box for ${String(l)}`);
    return box;
  }

  const steps = async (page: Page) => Number(await page.getByTestId('step-count').textContent());
  const evalPoints = async (page: Page) => Number(await page.getByTestId('pareto-caption').getAttribute('data-points'));
  const runRow = (page: Page, name: RegExp): Locator => page.getByRole('row', { name });
  /** One of a run row's actions: its menu opened first (Enter on the menu button), then the item. */
  async function rowAction(row: Locator, name: string): Promise<Locator> {
    const menu = row.getByRole('button', { name: /^Actions for / });
    if ((await menu.getAttribute('aria-expanded')) !== 'true') { await menu.focus(); await menu.press('Enter'); }
    const item = row.getByRole('menuitem', { name });
    await item.waitFor();
    return item;
  }

  async function download(page: Page, button: Locator): Promise<string> {
    const [d] = await Promise.all([page.waitForEvent('download'), button.click()]);
    const path = join(downloads, `${Date.now()}-${d.suggestedFilename()}`);
    await d.saveAs(path);
    return path;
  }

  it('reports a WebGPU adapter, and a training step on it matches the CPU reference', async () => {
    const context = await browser.newContext();
    const { page, errors, offsite } = await open(context);
    await page.getByText('This device: WebGPU').click();
    const status = page.getByTestId('webgpu-status');
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
    expect(offsite).toEqual([]); // no network at run time
    await context.close();
  }, LONG);

  it('the first load checks the engine on this adapter before training on it, and remembers the verdict', async () => {
    const context = await browser.newContext();
    const { page, errors } = await open(context); // ready(): WebGPU chosen, so its pipelines built and the check passed
    // the trainer worker's verdict, in this origin's IndexedDB, keyed by adapter and shader sources
    const verdicts = await page.evaluate(() => new Promise<{ key: string; ok: boolean; message: string }[]>((resolve, reject) => {
      const req = indexedDB.open('gspo-gpu-verdicts');
      req.onerror = () => reject(req.error);
      req.onsuccess = () => {
        const store = req.result.transaction('verdicts', 'readonly').objectStore('verdicts');
        const keys = store.getAllKeys(), values = store.getAll();
        values.onsuccess = () => resolve((keys.result as string[]).map((key, i) => ({ key, ...(values.result[i] as { ok: boolean; message: string }) })));
        values.onerror = () => reject(values.error);
      };
    }));
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ ok: true, message: 'ok' });
    expect(verdicts[0].key).toMatch(/\|[0-9a-f]+$/);
    expect(await page.getByTestId('backend-note').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, LONG);

  it('a link with bad parameters: each is reported by name and not applied, the rest is', async () => {
    const context = await browser.newContext();
    const { page, errors } = await open(context, '?v=1&preset=relay-grpo&groupSize=999&bogus=1&lambdaTok=0.25&temperature=hot');
    const alert = page.getByTestId('url-problems');
    await expect.poll(() => alert.textContent()).toMatch(/groupSize must be in \[1, 64\]; got 999; not applied/);
    const text = await alert.textContent();
    expect(text).toMatch(/unknown parameter "bogus"/);
    expect(text).toMatch(/temperature must be a number in \[0\.05, 5\]; got "hot"; not applied/);
    expect(await page.getByLabel('Preset').inputValue()).toBe('relay-grpo');
    expect(await page.getByRole('spinbutton', { name: 'Group size' }).inputValue()).toBe('8'); // the preset's
    expect(await page.getByRole('slider', { name: 'lambda_tok' }).inputValue()).toBe('0.25');
    expect(await page.getByRole('spinbutton', { name: 'Temperature' }).inputValue()).toBe('1');
    // the address now holds what was applied
    expect(new URL(page.url()).search).toBe('?v=1&preset=relay-grpo&lambdaTok=0.25');
    expect(errors).toEqual([]);
    await context.close();
  }, LONG);

  it('without WebGPU the page says so, names the browsers that have it, and trains on the CPU engine without being asked', async () => {
    const plain = await launchWithoutGpu();
    try {
      const page = await plain.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${url}?preset=relay-silence&${SMALL}`);
      const banner = page.getByRole('region', { name: 'No WebGPU' });
      await banner.waitFor({ timeout: 60_000 });
      expect(await banner.textContent()).toMatch(/training on the CPU engine \(WebAssembly SIMD\)/);
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
      const device = page.getByText('This device: CPU backend, WebAssembly SIMD');
      await device.click(); // the panel names the browsers that have WebGPU
      expect(await page.getByTestId('webgpu-where').textContent()).toMatch(/Chrome and Edge 113 or newer.*Safari 26 or newer.*Firefox 141 or newer on Windows/s);
      await device.click(); // closed again (it lies over the banners)
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await expect.poll(() => steps(page), { timeout: 120_000 }).toBe(1);
      await banner.getByRole('button', { name: 'Dismiss' }).click();
      expect(await banner.count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await plain.close();
    }
  }, LONG);

  /** Nothing scrolls sideways, and (at 1280x800) the chart, Start and lambda_tok are on the first screen. */
  async function checkLayout(page: Page, width: number, height: number, firstScreen: boolean) {
    await page.setViewportSize({ width, height });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBe(width);
    if (!firstScreen) return;
    const pareto = (await page.getByRole('region', { name: 'Accuracy vs tokens' }).boundingBox())!;
    expect(pareto.width).toBeGreaterThanOrEqual(480);
    expect(pareto.y).toBeGreaterThanOrEqual(0);
    const plot = (await page.getByRole('region', { name: 'Accuracy vs tokens' }).locator('.plot').boundingBox())!;
    expect(plot.y + plot.height).toBeLessThanOrEqual(height); // the plot itself fully visible
    for (const el of [page.getByRole('button', { name: 'Start', exact: true }), page.getByRole('slider', { name: 'lambda_tok' })]) {
      const b = (await el.boundingBox())!;
      expect(b.y + b.height).toBeLessThanOrEqual(height);
    }
    // the biggest chart on the first screen is this one
    const areas = await page.$$eval('section.chart', (cs) => cs.map((c) => { const r = c.getBoundingClientRect(); return { name: c.getAttribute('aria-label'), area: r.width * Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)) }; }));
    expect(areas.sort((a, b) => b.area - a.area)[0].name).toBe('Accuracy vs tokens');
  }

  it('teaches: the first-run guide, the software-GPU offer, the chart first, a live change mark, the tooltip of the point under the mouse, the sister comparison, no sideways scroll', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, errors } = await open(context, `?preset=relay-silence&${SMALL}&lr=0.003&lambdaTok=0.5`);
    const guide = page.getByRole('region', { name: 'First steps' });
    expect(await guide.textContent()).toMatch(/Pick a preset.*Press Start\..*Drag lambda_tok while it trains, and watch the trail move on the chart/s);
    await checkLayout(page, 1280, 800, true);

    // a software adapter is named and the CPU backend offered (SwiftShader in this test's Chromium, unless a real GPU answers)
    const adapter = (await page.getByTestId('webgpu-status').textContent()) ?? '';
    console.log(`teaches: ${adapter}`);
    const soft = page.getByRole('region', { name: 'Software GPU' });
    if (/swiftshader|llvmpipe|lavapipe/i.test(adapter)) {
      expect(await soft.textContent()).toMatch(/WebGPU here is (SwiftShader|llvmpipe), a software renderer/);
      await soft.getByRole('button', { name: 'Use the CPU backend' }).click();
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
      await page.getByText('This device: CPU backend').waitFor();
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('start-button'); // focus went somewhere sensible
    } else {
      expect(await soft.count()).toBe(0);
    }
    const backend = (await page.getByText(/^This device:/).textContent()) ?? '';

    // the guide goes when dismissed, and stays gone after a reload; so does the backend choice
    await guide.getByRole('button', { name: 'Got it' }).click();
    expect(await guide.count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
    await expect.poll(() => page.getByText(/^This device:/).textContent()).toBe(backend);
    expect(await page.getByRole('region', { name: 'First steps' }).count()).toBe(0);

    // a field's error goes once a valid value is typed, even the value already in force (it used to stay)
    const groupSize = page.getByRole('spinbutton', { name: 'Group size' });
    await groupSize.fill('0');
    await groupSize.press('Enter');
    await expect.poll(() => page.getByText(/groupSize must be in \[1, 64\]; got 0; not applied/).count()).toBe(1);
    expect(await groupSize.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await groupSize.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).textContent()).toMatch(/got 0; not applied/); // the error is linked to its field
    await groupSize.fill('4');
    await groupSize.press('Enter');
    await expect.poll(() => page.getByText(/groupSize must be in/).count()).toBe(0);
    expect(await groupSize.getAttribute('aria-invalid')).toBeNull();

    // two steps, a live change of lambda_tok (PageUp: +0.1), two more steps
    const step = async (n: number) => {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await expect.poll(() => steps(page), { timeout: 180_000, interval: 250 }).toBe(n);
    };
    await step(1);
    await step(2);
    const slider = page.getByRole('slider', { name: 'lambda_tok' });
    await slider.focus();
    await slider.press('PageUp');
    await expect.poll(() => page.getByTestId('lambda-tok-value').textContent()).toBe('0.6');
    await expect.poll(() => new URL(page.url()).searchParams.get('lambdaTok')).toBe('0.6');
    await step(3);
    await step(4);
    const pareto = page.getByRole('region', { name: 'Accuracy vs tokens' });
    await expect.poll(() => evalPoints(page), { timeout: 60_000 }).toBe(5);
    // marked on the trail (a labelled point whose tip says the change) and on the time series (a vertical line and its label)
    await expect.poll(() => page.getByTestId('pareto-caption').getAttribute('data-changes')).toBe('1');
    const ring = await boxOf(pareto.locator('.change-point'));
    await page.mouse.move(ring.x + 0.5, ring.y + ring.height / 2); // on the ring
    await expect.poll(() => pareto.getByTestId('pareto-tip').textContent()).toMatch(/changed livefrom step 3: lambda_tok 0\.6/);
    // the time series draw when on screen (the Sweep panel beside the chart puts them below the fold): scroll to them
    const lambdaChart = page.getByRole('region', { name: 'lambda_tok', exact: true });
    await lambdaChart.scrollIntoViewIfNeeded();
    await expect.poll(() => lambdaChart.locator('svg').first().textContent()).toMatch(/lambda_tok 0\.6/);
    const rewardChart = page.locator('section.chart[aria-label="Reward"]'); // not the Reward controls' section
    await rewardChart.scrollIntoViewIfNeeded();
    await expect.poll(() => rewardChart.locator('.recharts-reference-line').count()).toBeGreaterThanOrEqual(1);
    await pareto.scrollIntoViewIfNeeded();

    // the tooltip shows the point under the mouse (it used to show the frontier line's point at the same index)
    const dots = pareto.locator('circle.eval-dot');
    const n = await dots.count();
    expect(n).toBe(5);
    for (let i = 0; i < n; i++) {
      const box = await boxOf(dots.nth(i));
      const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
      await page.mouse.move(0, 0);
      await page.mouse.move(cx, cy);
      const tip = pareto.getByTestId('pareto-tip');
      await tip.waitFor();
      const shown = await tip.getAttribute('data-step');
      // the dot of the step the tip names lies under the mouse (dots of equal coordinates may cover each other)
      const at = await boxOf(pareto.locator(`circle.eval-dot[data-step="${shown}"]`).first());
      expect(Math.hypot(at.x + at.width / 2 - cx, at.y + at.height / 2 - cy), `hovered dot ${i}, tip says step ${shown}`).toBeLessThanOrEqual(5);
      expect(await tip.textContent()).toMatch(new RegExp(`step ${shown} · lambda_tok`));
    }
    await page.mouse.move(0, 0);

    // a saved PNG holds the title above the plot and the legend below it (2x scale)
    const svgBox = (await pareto.locator('.plot svg.recharts-surface').first().boundingBox())!;
    const png = await readFile(await download(page, pareto.getByRole('button', { name: 'Save PNG: Accuracy vs tokens' })));
    expect(png.readUInt32BE(16)).toBe(Math.round(svgBox.width * 2));
    expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(Math.round((svgBox.height + 24 + 18) * 2));

    // the sister preset, one click: GRPO trains beside this run, both on the chart
    await page.getByRole('button', { name: 'Run relay-grpo: GRPO instead of GSPO' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('preset'), { timeout: 120_000 }).toBe('relay-grpo');
    expect(new URL(page.url()).searchParams.get('groupSize')).toBe('4'); // the size of the run it came from
    await expect.poll(() => steps(page), { timeout: 180_000, interval: 250 }).toBeGreaterThanOrEqual(1);
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('paused');
    await expect.poll(() => page.getByTestId('pareto-caption').textContent()).toMatch(/from 2 runs/);
    const legend = (await pareto.locator('.legend').textContent()) ?? '';
    expect(legend).toMatch(/relay-grpo #1 \(trail\)/);
    expect(legend).toMatch(/relay-silence #1/);

    // no sideways scroll at 1024 and 800 px either
    await checkLayout(page, 1024, 768, false);
    await checkLayout(page, 800, 800, false);
    expect(errors).toEqual([]);
    await context.close();
  }, LONG);

  it('trains the relay preset, follows lambda_tok, keeps the run over a reload, exports it and imports it into a fresh profile', async () => {
    const context = await browser.newContext();
    const { page, errors, offsite } = await open(context);

    // pick the relay preset, then make it small enough for SwiftShader through the fields
    const preset = page.getByLabel('Preset');
    const presetInUrl = () => new URL(page.url()).searchParams.get('preset');
    await preset.selectOption('relay-grpo');
    await expect.poll(presetInUrl, { timeout: 120_000 }).toBe('relay-grpo');
    await ready(page);
    await preset.selectOption('relay-silence');
    await expect.poll(presetInUrl, { timeout: 120_000 }).toBe('relay-silence');
    await ready(page);
    expect(await page.getByText(/GSPO finds that one digit is enough/).count()).toBe(1);
    const setNumber = async (name: string, value: string) => {
      const box = page.getByRole('spinbutton', { name, exact: true });
      await box.fill(value);
      await box.press('Enter');
      await expect.poll(() => new URL(page.url()).searchParams.get(name === 'Group size' ? 'groupSize' : name === 'Prompts per step' ? 'promptsPerStep' : name === 'Minibatches' ? 'minibatches' : name === 'Eval episodes' ? 'evalEpisodes' : 'evalEvery')).toBe(value);
      await ready(page);
    };
    await setNumber('Group size', '4');
    await setNumber('Prompts per step', '2');
    await setNumber('Minibatches', '2');
    await page.getByText('Evaluation and length').click();
    await setNumber('Eval episodes', '8');
    await setNumber('Eval every', '1');
    expect(new URL(page.url()).search).toBe(`?v=1&preset=relay-silence&${SMALL}`);

    // train, measuring frame times in the page meanwhile
    await startFrameProbe(page);
    const probeStart = Date.now();
    const at = (what: string) => console.log(`${what} at ${Date.now() - probeStart} ms`);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    at('Start clicked');
    await expect.poll(() => steps(page), { timeout: 180_000, interval: 500 }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => evalPoints(page), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);

    // move lambda_tok by keyboard (0.1 -> 0.3: two PageUps of 0.1) while it trains
    const slider = page.getByRole('slider', { name: 'lambda_tok' });
    at('lambda_tok moves');
    await slider.focus();
    await slider.press('PageUp');
    await slider.press('PageUp');
    await expect.poll(() => page.getByTestId('lambda-tok-value').textContent()).toBe('0.3');
    await expect.poll(() => new URL(page.url()).searchParams.get('lambdaTok')).toBe('0.3');
    const movedAt = await steps(page);
    await expect.poll(() => steps(page), { timeout: 180_000, interval: 500 }).toBeGreaterThanOrEqual(movedAt + 2);
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('paused');
    const frames = frameStats(await stopFrameProbe(page));
    console.log(`frame times while training (rAF deltas, ${frames.count} frames over ${(frames.spanMs / 1000).toFixed(1)} s): ` +
      `mean ${frames.mean.toFixed(1)} ms, median ${frames.p50.toFixed(1)}, p95 ${frames.p95.toFixed(1)}, p99 ${frames.p99.toFixed(1)}, max ${frames.max.toFixed(1)}; ` +
      `frames over 50 ms: ${frames.over50}; long tasks: ${frames.longTasks} (${frames.longTaskMs.toFixed(0)} ms in all); ` +
      `frames over 100 ms [start, length]: ${JSON.stringify(frames.slow)}`);
    expect(frames.count).toBeGreaterThan(10);

    const trained = await steps(page);
    await expect.poll(() => evalPoints(page)).toBe(trained + 1); // an eval at step 0 (the warm start) and after every step
    const points = trained + 1;
    // every point is drawn in the chart's region: the run's symbols plus its warm-start star
    const pareto = page.getByRole('region', { name: 'Accuracy vs tokens' });
    expect(await pareto.locator('.recharts-scatter-symbol').count()).toBeGreaterThanOrEqual(points + 1);
    // hovering a point shows its step and lambda_tok
    // (by the mouse over the run's newest point: points can lie on top of each other and on the warm-start star)
    const newest = await pareto.locator('circle.eval-dot[data-run="relay-silence #1"]').last().boundingBox();
    await page.mouse.move(newest!.x + newest!.width / 2, newest!.y + newest!.height / 2);
    await expect.poll(() => pareto.locator('.tip').textContent()).toMatch(/relay-silence #1step \d+ · lambda_tok 0\.\d+accuracy/);
    await page.getByRole('tab', { name: /^Runs/ }).click();
    const row = runRow(page, /relay-silence #1/);
    await expect.poll(() => row.textContent()).toMatch(/changed live: .*lambdaTok 0\.3 from step \d+/);
    await page.getByRole('tab', { name: 'Charts' }).click();

    // the last step used the new lambda: its anatomy says so, and shows every episode of a group
    await page.getByRole('tab', { name: 'Anatomy of a step' }).click();
    const anatomy = page.getByRole('region', { name: 'Anatomy of a step' });
    await expect.poll(() => anatomy.textContent(), { timeout: 60_000 }).toMatch(/Rewards r = r_task − 0\.3·tokens/);
    expect(await anatomy.locator('table.anatomy-table tbody').count()).toBe(4); // one body per episode: its numbers, then what it generated
    expect(await anatomy.textContent()).toMatch(/one task played G = 4 times \(GSPO/);

    // open a transcript: who said what, tokens coloured by log-prob
    await page.getByRole('tab', { name: 'Transcripts' }).click();
    const transcripts = page.getByRole('region', { name: 'Transcripts' });
    const first = transcripts.locator('details.episode').first();
    await first.waitFor({ timeout: 60_000 });
    await first.locator('summary').click();
    expect(await first.getAttribute('open')).not.toBeNull();
    expect(await first.locator('.role').first().textContent()).toBe('scout');
    expect(await first.locator('.chip[title*="log-prob"]').count()).toBeGreaterThan(0);

    // a change that needs a new run asks first; Cancel keeps the run
    await page.getByText('Model', { exact: true }).click();
    const layers = page.getByRole('spinbutton', { name: 'Layers' });
    await layers.fill('3');
    await layers.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Start a new run?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => layers.inputValue()).toBe('2');
    expect(await steps(page)).toBe(trained);

    // a reload keeps the run
    await page.reload();
    await ready(page);
    await page.getByRole('tab', { name: /^Runs/ }).click();
    const kept = runRow(page, /relay-silence #1/);
    await kept.waitFor();
    const cells = kept.locator('td'); // shown, setup, steps, best eval, final eval, status, actions
    expect(await cells.nth(2).textContent()).toBe(String(trained));
    expect(await cells.nth(5).textContent()).toBe('paused');
    await kept.getByRole('checkbox').check();
    await page.getByRole('tab', { name: 'Charts' }).click();
    await expect.poll(() => evalPoints(page)).toBe(points);

    // a chart as PNG (its SVG drawn onto a canvas)
    const png = await readFile(await download(page, page.getByRole('region', { name: 'Accuracy vs tokens' }).getByRole('button', { name: 'Save PNG' })));
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBeGreaterThan(200); // width in pixels (2x the chart)

    // export it (JSON, CSV, checkpoint)
    await page.getByRole('tab', { name: /^Runs/ }).click();
    const json = await download(page, await rowAction(kept, 'Export JSON'));
    const csv = await download(page, await rowAction(kept, 'Export CSV'));
    const ckpt = await download(page, await rowAction(kept, 'Export checkpoint'));
    const exported = JSON.parse(await readFile(json, 'utf8'));
    expect(exported.metrics.rows).toHaveLength(trained);
    expect(exported.evals).toHaveLength(points);
    expect((await readFile(csv, 'utf8')).trim().split('\n')).toHaveLength(trained + 1);
    expect(errors).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();

    // a fresh profile: import, the same charts, a bad file rejected with nothing lost
    const fresh = await browser.newContext();
    const b = await open(fresh);
    await b.page.getByRole('tab', { name: /^Runs/ }).click();
    const input = b.page.getByLabel('Import a run');
    await input.setInputFiles({ name: 'bad.run.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "gspo-playground-run", "version": 1, "run": ') });
    await expect.poll(() => b.page.getByTestId('import-error').textContent()).toMatch(/bad\.run\.json was not imported: it is not valid JSON/);
    expect(await b.page.getByRole('row', { name: /relay-silence #1/ }).count()).toBe(0);
    await input.setInputFiles([json, ckpt]);
    await expect.poll(() => b.page.getByTestId('notice').textContent()).toMatch(new RegExp(`Imported "relay-silence #1": ${trained} steps, ${points} evals, last checkpoint`));
    const imported = runRow(b.page, /relay-silence #1/);
    expect(await imported.locator('td').nth(5).textContent()).toBe('imported');
    expect(await imported.locator('td').nth(2).textContent()).toBe(String(trained));
    await b.page.getByRole('tab', { name: 'Charts' }).click();
    await expect.poll(() => evalPoints(b.page)).toBe(points);
    await b.page.getByRole('tab', { name: /^Runs/ }).click();
    const again = JSON.parse(await readFile(await download(b.page, await rowAction(imported, 'Export JSON')), 'utf8'));
    expect(again.metrics).toEqual(exported.metrics);
    expect(again.evals).toEqual(exported.evals);
    expect(again.run.config).toEqual(exported.run.config);
    // its weights go into the trainer
    await (await rowAction(imported, 'Load weights')).click();
    await expect.poll(() => b.page.getByTestId('notice').textContent(), { timeout: 60_000 }).toMatch(/Loaded the last weights of "relay-silence #1"/);
    expect(b.errors).toEqual([]);
    expect(b.offsite).toEqual([]);
    await fresh.close();
  }, 900_000);

  it('reads at 1280 and 1920: the task beside the chart, preset names whole, the anatomy\'s columns inside the inspector, the row menu by keyboard', async () => {
    const plain = await launchWithoutGpu();
    try {
      const { page, errors } = await laptopPage(plain);
      await page.goto(`${url}?v=1&preset=relay-silence&groupSize=2&promptsPerStep=2&minibatches=1&evalEpisodes=8`);
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');

      // the task is on the first screen, beside the chart, with Start and lambda_tok
      const card = (await page.getByTestId('task-card').boundingBox())!;
      const chart = (await page.getByRole('region', { name: 'Accuracy vs tokens' }).boundingBox())!;
      expect(card.y).toBeLessThan(800);
      expect(card.x).toBeGreaterThanOrEqual(chart.x + chart.width); // to its right
      for (const box of [await page.getByRole('button', { name: 'Start', exact: true }).boundingBox(), await page.getByRole('slider', { name: 'lambda_tok' }).boundingBox(), chart]) expect(box!.y).toBeLessThan(800);
      expect(await page.getByTestId('task-card').textContent()).toMatch(/Scout: knows the 3-digit secret/);

      // every preset's name fits its dropdown (measured in the dropdown's own font, less its arrow)
      const overflow = await page.getByLabel('Preset').evaluate((sel: HTMLSelectElement) => {
        const cs = getComputedStyle(sel), ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
        return [...sel.options].filter((o) => ctx.measureText(o.text).width > room).map((o) => o.text);
      });
      expect(overflow).toEqual([]);

      // one step, then its anatomy: the key columns sit inside the inspector, at 1280 and at 1920
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await expect.poll(() => steps(page), { timeout: 180_000, interval: 250 }).toBe(1);
      await expect.poll(() => page.getByTestId('task-example').count(), { timeout: 60_000 }).toBe(1); // the live episode
      await page.getByRole('tab', { name: 'Anatomy of a step' }).click();
      const table = page.locator('table.anatomy-table');
      await table.waitFor({ timeout: 60_000 });
      for (const viewport of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
        await page.setViewportSize(viewport);
        const fit = await page.evaluate(() => {
          const insp = document.querySelector('.inspector')!, r = insp.getBoundingClientRect();
          const right = r.left + insp.clientLeft + insp.clientWidth; // the inner edge, left of any scrollbar
          const wrap = document.querySelector('.anatomy-wrap')!;
          const heads = [...document.querySelectorAll('.anatomy-table thead th')].map((th) => ({ text: th.textContent, right: th.getBoundingClientRect().right }));
          return { right, inspectorWidth: r.width, sideways: wrap.scrollWidth - wrap.clientWidth, past: heads.filter((h) => h.right > right + 0.5).map((h) => h.text) };
        });
        expect(fit.past, `at ${viewport.width}`).toEqual([]);
        // the group picker shows its whole choice ("1 of 2 · signal")
        expect(await page.getByLabel('Group', { exact: true }).evaluate((sel: HTMLSelectElement) => {
          const cs = getComputedStyle(sel), ctx = document.createElement('canvas').getContext('2d')!;
          ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
          return ctx.measureText(sel.options[sel.selectedIndex].text).width <= sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
        }), `at ${viewport.width}`).toBe(true);
        expect(fit.sideways, `at ${viewport.width}`).toBeLessThanOrEqual(0);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      }

      // the row's actions: one menu, opened and walked by keyboard
      await page.setViewportSize({ width: 1280, height: 800 });
      // by keyboard, as the menu below (a click once waited 30 s on the resize's layout in CI)
      const runsTab = page.getByRole('tab', { name: /^Runs/ });
      await runsTab.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => runsTab.getAttribute('aria-selected')).toBe('true');
      const row = runRow(page, /relay-silence #1/);
      const menuButton = row.getByRole('button', { name: 'Actions for relay-silence #1' });
      expect(await row.getByRole('menuitem').count()).toBe(0); // closed
      await menuButton.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => menuButton.getAttribute('aria-expanded')).toBe('true');
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent);
      await expect.poll(focused).toBe('Rename relay-silence #1');
      await page.keyboard.press('ArrowDown');
      expect(await focused()).toBe('Duplicate relay-silence #1');
      await page.keyboard.press('End');
      expect(await focused()).not.toBe('Delete relay-silence #1'); // disabled for the run in the trainer: skipped
      await page.keyboard.press('Escape');
      await expect.poll(() => menuButton.getAttribute('aria-expanded')).toBe('false');
      expect(await focused()).toBe('Actions for relay-silence #1');
      expect(await row.getByRole('menuitem').count()).toBe(0);
      await page.keyboard.press(' ');
      await expect.poll(focused).toBe('Rename relay-silence #1');
      expect(errors).toEqual([]);
    } finally {
      await plain.close();
    }
  }, 600_000);

  /**
   * Trail heads on the main chart, by run: their centres in page pixels, all read in one task of the page
   * (recharts rebuilds its points on a redraw; read one by one, heads of two drawings would be mixed).
   */
  const headCentres = (pareto: Locator): Promise<{ id: string; x: number; y: number }[]> => pareto.locator('circle.trail-head').evaluateAll((cs) => cs.map((c) => {
    const r = c.getBoundingClientRect();
    return { id: c.getAttribute('data-run-id') ?? '', x: r.x + r.width / 2, y: r.y + r.height / 2 };
  }));

  /**
   * The frontier of the trail heads on the main chart: the heads no other head beats on both accuracy and
   * tokens, counted here from the caption's head positions, is the chart's; it is drawn as a line and named
   * in the legend when it joins two heads or more. Read in one task of the page (a step may redraw the chart).
   * The caption rounds to 3 decimals, so two heads level there may be either way round: the chart's count lies
   * between the count that reads a rounded tie as beaten and the one that counts only heads beaten on both.
   */
  async function checkHeadFrontier(pareto: Locator, heads: number) {
    const seen = await pareto.evaluate((el) => {
      const c = el.querySelector('[data-testid="pareto-caption"]')!;
      return { heads: c.getAttribute('data-heads') ?? '', front: Number(c.getAttribute('data-head-frontier')), legend: el.querySelector('.legend')?.textContent ?? '' };
    });
    const placed = seen.heads.split(' ').map((p) => p.split(':').map(Number));
    const fewest = placed.filter(([t, a]) => !placed.some(([t2, a2]) => t2 <= t && a2 >= a && (t2 < t || a2 > a))).length;
    const most = placed.filter(([t, a]) => !placed.some(([t2, a2]) => t2 < t && a2 > a)).length;
    expect(placed).toHaveLength(heads);
    expect(seen.front, `heads ${seen.heads}`).toBeGreaterThanOrEqual(fewest);
    expect(seen.front, `heads ${seen.heads}`).toBeLessThanOrEqual(most);
    expect(/frontier of the live positions/.test(seen.legend), `heads ${seen.heads}`).toBe(seen.front > 1);
  }

  /** The most heads that are pairwise at least `px` apart (at most 4 heads: every subset is tried). */
  function apart(heads: { x: number; y: number }[], px: number): number {
    let best = 0;
    for (let mask = 1; mask < 1 << heads.length; mask++) {
      const pick = heads.filter((_, i) => mask & (1 << i));
      if (pick.length > best && pick.every((a, i) => pick.slice(i + 1).every((b) => Math.hypot(a.x - b.x, a.y - b.y) >= px))) best = pick.length;
    }
    return best;
  }

  it('a first visit opens on a population over lambda_tok of the noisy relay: the task, Start, lambda_tok and the chart on the first screen; within 30 s of Start the trails are apart; hovering one highlights it', async () => {
    const plain = await launchWithoutGpu();
    try {
      const { page, errors } = await laptopPage(plain);
      await page.goto(url); // a bare link in a fresh profile: a first visit
      // no click: the page trains on the CPU engine by itself (a laptop CPU)
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
      const query = new URL(page.url()).searchParams;
      expect(query.get('preset')).toBe('relay-noisy-quick');
      expect(query.get('population')).toBe('0,0.03,0.1,0.3');
      expect(await page.getByTestId('population-note').textContent()).toMatch(/Start trains 4 runs side by side, one per lambda_tok: 0, 0\.03, 0\.1, 0\.3/);

      // the first screen: every piece inside the 1280x800 viewport, none below the fold
      const card = page.getByTestId('task-card');
      expect(await card.textContent()).toMatch(/Scout: knows the 3-digit secret.*Solver: knows the question.*erased with probability eps = 0\.3.*lambda_tok \(0, 0\.03, 0\.1, 0\.3: one value per run\)/s);
      const pareto = page.getByRole('region', { name: 'Accuracy vs tokens' });
      const inView = async (l: Locator, what: string) => {
        const b = await boxOf(l);
        expect(b.y, `${what} top`).toBeGreaterThanOrEqual(0);
        expect(b.y + b.height, `${what} bottom`).toBeLessThanOrEqual(800);
        expect(b.x + b.width, `${what} right`).toBeLessThanOrEqual(1280);
      };
      for (const [l, what] of [
        [card.locator('summary'), 'the task card\'s title'], [card.locator('dl'), 'the task picture (Scout, Solver, channel, reward)'],
        [page.getByRole('button', { name: 'Start', exact: true }), 'Start'], [page.getByRole('slider', { name: 'lambda_tok' }), 'lambda_tok'],
        [pareto.locator('.plot'), 'the chart'],
      ] as const) await inView(l, what);
      expect(await page.getByRole('button', { name: /Same values on|Run sweep/ }).first().isVisible()).toBe(true); // the population's panel beside the chart
      // the other tasks are one click away: the environment and preset pickers
      for (const name of ['Environment', 'Preset']) await inView(page.getByLabel(name, { exact: true }), name);

      // Start, once the page has loaded the four members (as a person reads the page): they train side by side;
      // within 30 s at least 3 trail heads are visibly apart on the main chart
      await expect.poll(() => page.getByTestId('population-note').getAttribute('data-loaded'), { timeout: 180_000 }).toBe('4');
      expect(await page.getByTestId('population-note').textContent()).toMatch(/\(4 of 4 loaded\)/);
      const t0 = Date.now();
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      let heads: { id: string; x: number; y: number }[] = [];
      for (;;) {
        heads = await headCentres(pareto);
        if (apart(heads, 12) >= 3 || Date.now() - t0 > 30_000) break;
        await page.waitForTimeout(500);
      }
      const seconds = (Date.now() - t0) / 1000;
      console.log(`first visit: ${await page.getByTestId('sweep-members').locator('.help').textContent().catch(() => 'no member training')}`);
      console.log(`first visit: ${heads.length} trail heads, ${apart(heads, 12)} at least 12 px apart, ${seconds.toFixed(1)} s after Start: ${JSON.stringify(heads.map((h) => [Math.round(h.x), Math.round(h.y)]))}`);
      expect(apart(heads, 12), `trail heads ${seconds.toFixed(1)} s after Start`).toBeGreaterThanOrEqual(3);
      expect(seconds).toBeLessThanOrEqual(30);
      // the heads are labelled with their values, and their frontier is drawn (on the CPU engine three heads may be apart
      // before the fourth member's first step is drawn: its label comes with it)
      await expect.poll(() => pareto.locator('.trail-labels text').allTextContents(), { timeout: 30_000 })
        .toEqual(expect.arrayContaining([expect.stringMatching(/λ=0(?![.\d])/), expect.stringMatching(/λ=0\.3/)]));
      const headCount = async () => ((await pareto.getByTestId('pareto-caption').getAttribute('data-heads')) ?? '').split(' ').filter(Boolean).length;
      await expect.poll(headCount, { timeout: 30_000 }).toBe(4); // the fourth head comes with its member's first step
      // and no two labels overlap (close heads' labels are moved a line apart, not piled up)
      const labelBoxes = await pareto.locator('.trail-labels text').evaluateAll((ts) => ts.map((t) => { const r = t.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; }));
      for (let i = 0; i < labelBoxes.length; i++) for (let j = i + 1; j < labelBoxes.length; j++) {
        const [p, q] = [labelBoxes[i], labelBoxes[j]];
        expect(p.l < q.r - 1 && q.l < p.r - 1 && p.t < q.b - 1 && q.t < p.b - 1, `labels ${i} and ${j} overlap: ${JSON.stringify([p, q])}`).toBe(false);
      }
      await checkHeadFrontier(pareto, 4);
      // the task card shows a member's live episode
      await expect.poll(() => card.getByTestId('task-example').textContent(), { timeout: 30_000 }).toMatch(/one episode of λ=[\d.]+'s step \d+.*reward/);

      // hovering a trail's head highlights that run (its trail drawn over the others)
      // (a step may move the head or redraw it under a still mouse: its box is read again and the mouse moved onto it until it answers)
      const target = heads[0];
      await expect.poll(async () => {
        const box = await boxOf(pareto.locator(`circle.trail-head[data-run-id="${target.id}"]`));
        await page.mouse.move(box.x + box.width / 2 + 1, box.y + box.height / 2);
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        return pareto.getByTestId('pareto-caption').getAttribute('data-hovered');
      }, { timeout: 30_000 }).toBe(target.id);
      await expect.poll(() => pareto.locator('.live-trail.hovered').count()).toBe(1);
      await page.mouse.move(0, 0);
      // (the CPU engine steps the members fast: a redraw between two moves may take a moment to settle)
      await expect.poll(() => pareto.getByTestId('pareto-caption').getAttribute('data-hovered'), { timeout: 10_000 }).toBe('');
      // and so does its legend entry
      await pareto.locator(`.legend li[data-run-id="${heads[1].id}"]`).hover();
      await expect.poll(() => pareto.getByTestId('pareto-caption').getAttribute('data-hovered'), { timeout: 10_000 }).toBe(heads[1].id);
      await page.mouse.move(0, 0);

      // Pause stops the population (unless a fast CPU has already trained its 40 steps); the clean relay is one click away
      if ((await page.getByTestId('sweep-progress').getAttribute('data-status')) === 'running') {
        await page.getByRole('button', { name: 'Pause' }).click();
        await expect.poll(() => page.getByTestId('sweep-progress').getAttribute('data-status'), { timeout: 60_000 }).toBe('stopped');
      }
      await page.getByLabel('Preset').selectOption('relay-silence');
      // the population has steps: the page asks before it stops them (they stay in the runs table)
      await page.locator('dialog.confirm[open]').getByRole('button', { name: 'Switch preset' }).click();
      await expect.poll(() => new URL(page.url()).search, { timeout: 120_000 }).toBe('?v=1&preset=relay-silence');
      expect(await page.getByTestId('population-note').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await plain.close();
    }
  }, 600_000);

  it('on WebGPU a sweep trains as one stacked population in one worker, each member a run of its own', async () => {
    const context = await browser.newContext();
    try {
      // recipe=off: each setting as typed (off the calibrated point the recipe gives 0 and 0.3 other temperatures, which do not stack)
      const { page, errors, offsite } = await open(context, '?v=1&preset=relay-noisy-dr&groupSize=2&promptsPerStep=2&minibatches=1&evalEpisodes=8&steps=2&recipe=off');
      await page.getByRole('textbox', { name: 'lambda_tok values to sweep' }).fill('0, 0.3');
      await page.getByRole('button', { name: 'Run sweep' }).click();
      await expect.poll(() => page.getByTestId('sweep-layout').textContent(), { timeout: 180_000 }).toMatch(/^Trains as 2 members stacked in one worker on WebGPU/);
      await expect.poll(() => page.getByTestId('sweep-members').getAttribute('data-running'), { timeout: 60_000 }).toBe('2');
      const progress = page.getByTestId('sweep-progress');
      await expect.poll(() => progress.getAttribute('data-status'), { timeout: 600_000, interval: 1000 }).toBe('done');
      expect(await progress.getAttribute('data-done')).toBe('2');
      // each member is a run of its own: in the runs table under its value, its trail and final eval on the main chart
      const caption = page.getByTestId('sweep-caption');
      expect(await caption.getAttribute('data-points')).toBe('2');
      expect(Number(await page.getByTestId('pareto-caption').getAttribute('data-trails'))).toBeGreaterThanOrEqual(2);
      await page.getByRole('tab', { name: /^Runs/ }).click();
      const runsTable = page.getByRole('region', { name: 'Runs', exact: true });
      for (const v of ['0', '0\\.3']) await runsTable.getByRole('row', { name: new RegExp(`relay-noisy-dr sweep lambda_tok=${v}(?![.\\d])`) }).waitFor();
      expect(errors).toEqual([]);
      expect(offsite).toEqual([]);
    } finally {
      await context.close();
    }
  }, 900_000);

  it('a population is the run: the line beside Start, the panels and the slider follow a member; reloaded mid-run, one banner resumes each member as the same run within a few steps, adding no run', async () => {
    const plain = await launchWithoutGpu();
    try {
      const page = await plain.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // steps: enough that the CPU engine (tens of steps a second at this size) is still training at the reload
      await page.goto(`${url}?v=1&preset=relay-noisy-dr&groupSize=2&promptsPerStep=2&minibatches=1&evalEpisodes=8&steps=20000`);
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
      await page.getByRole('textbox', { name: 'lambda_tok values to sweep' }).fill('0, 0.3');
      await page.getByRole('button', { name: 'Run sweep' }).click();
      const members = page.getByTestId('sweep-members');
      await expect.poll(() => members.getAttribute('data-running'), { timeout: 120_000 }).toBe('2');
      const memberSteps = async () => [...((await members.textContent()) ?? '').matchAll(/lambda_tok=[\d.]+ at step (\d+)/g)].map((m) => Number(m[1]));
      // the population is the run the page shows: beside Start, in the slider's label, in the panels
      await expect.poll(() => page.getByTestId('run-where').textContent(), { timeout: 60_000 }).toMatch(/Step \d+ of 20000 · training/);
      expect(await page.getByTestId('lambda-member').textContent()).toMatch(/of λ=0(?![.\d])/);
      await page.getByRole('tab', { name: 'Transcripts' }).click();
      await expect.poll(() => page.getByTestId('transcripts-member').textContent(), { timeout: 30_000 }).toMatch(/Member λ=0 of the population/);
      await expect.poll(() => page.getByRole('region', { name: 'Transcripts' }).getByTestId('transcript-count').textContent(), { timeout: 60_000 }).toMatch(/episodes of step \d+ \(sampled\)/);
      // a few seconds on: each member has stored its state between evals (relay-noisy-dr evaluates every 20 steps; the
      // state goes every 5 steps, at most once a second; the CPU engine takes tens of steps a second at this size)
      const t0 = Date.now();
      await expect.poll(async () => Date.now() - t0 > 3_000 && (await memberSteps()).every((n) => n >= 5), { timeout: 180_000, interval: 500 }).toBe(true);
      // how fast they step here: the state goes at most once a second, so a fast engine may lose a second's steps
      const s1 = Math.min(...(await memberSteps())), t1 = Date.now();
      await page.waitForTimeout(1_000);
      const reached = Math.min(...(await memberSteps()));
      const perSecond = ((reached - s1) * 1000) / (Date.now() - t1);
      const record = async () => JSON.parse((await page.evaluate(() => localStorage.getItem('gspo.sweep.v1')))!) as { runs: { runId: string | null; status: string }[] };
      const before = (await record()).runs.map((r) => r.runId);
      expect(before.every((id) => id !== null)).toBe(true);
      await page.reload();
      const progress = page.getByTestId('sweep-progress');
      await expect.poll(() => progress.getAttribute('data-status'), { timeout: 60_000 }).toBe('interrupted');
      // one banner offers the population as one, within a few steps (or a second's steps) of where it was: its last eval was
      // at a multiple of 20, the state is stored every 5 steps, at most once a second, between evals
      const banner = page.getByRole('region', { name: 'Resume a run' });
      expect(await banner.textContent()).toMatch(/The relay-noisy-dr population \(2 members\) was training when the page closed/);
      const offered = Number(/Resume it from step (\d+)/.exec((await banner.textContent()) ?? '')?.[1]);
      console.log(`population reload: the members had reached step ${reached} (${perSecond.toFixed(1)} steps/s); the banner offers step ${offered}`);
      expect(offered).toBeGreaterThanOrEqual(reached - Math.max(12, Math.ceil(2 * perSecond)));
      await expect.poll(() => banner.getByRole('button', { name: /^Resume it from step/ }).isEnabled(), { timeout: 120_000 }).toBe(true);
      await banner.getByRole('button', { name: /^Resume it from step/ }).click();
      await expect.poll(() => members.getAttribute('data-running'), { timeout: 120_000 }).toBe('2');
      await expect.poll(() => page.getByTestId('run-where').textContent(), { timeout: 60_000 }).toMatch(/Step \d+ of 20000/);
      const least = async () => Number(/Step (\d+) of 20000/.exec((await page.getByTestId('run-where').textContent()) ?? '')?.[1]);
      await expect.poll(least, { timeout: 30_000 }).toBeGreaterThanOrEqual(offered); // the workers went on from the stored step, not from 0
      // the same runs go on: their ids, their history on the charts (not a run from step 0), no new rows in the runs table
      expect((await record()).runs.map((r) => r.runId)).toEqual(before);
      expect((await memberSteps()).every((n) => n >= 5), (await members.textContent()) ?? '').toBe(true);
      await page.getByRole('tab', { name: /^Runs/ }).click();
      const runsTable = page.getByRole('region', { name: 'Runs', exact: true });
      expect(await runsTable.getByRole('row', { name: /relay-noisy-dr sweep lambda_tok=/ }).count()).toBe(2);
      await page.getByRole('tab', { name: 'Charts' }).click();
      expect(errors).toEqual([]);
    } finally {
      await plain.close();
    }
  }, 600_000);

  it('runs a sweep of three lambda_tok values on the CPU backend as a population, draws its frontier, and keeps it over a reload', async () => {
    const plain = await launchWithoutGpu();
    try {
      const page = await plain.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${url}?v=1&preset=relay-noisy-dr&groupSize=2&promptsPerStep=2&minibatches=1&evalEpisodes=8&steps=2`);
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('idle');
      const values = page.getByRole('textbox', { name: 'lambda_tok values to sweep' });
      expect(await values.inputValue()).toBe('0, 0.01, 0.03, 0.1, 0.3'); // the default grid
      await values.fill('0, x');
      await expect.poll(() => page.getByRole('alert').filter({ hasText: 'entry 2' }).count()).toBe(1);
      await values.fill('0, 0.1, 0.3');
      await page.getByRole('button', { name: 'Run sweep' }).click();
      const progress = page.getByTestId('sweep-progress');
      // a population: all three train at once, each in a worker of its own
      await expect.poll(() => page.getByTestId('sweep-members').getAttribute('data-running'), { timeout: 120_000 }).toBe('3');
      expect(await progress.textContent()).toMatch(/3 of 3 runs training at once/);
      await expect.poll(() => progress.getAttribute('data-status'), { timeout: 600_000, interval: 1000 }).toBe('done');
      expect(await progress.getAttribute('data-done')).toBe('3');
      // each run is in the runs table under its value, and the sweep's chart labels its points
      await page.getByRole('tab', { name: /^Runs/ }).click();
      const runsTable = page.getByRole('region', { name: 'Runs', exact: true });
      for (const v of ['0', '0.1', '0.3']) await runsTable.getByRole('row', { name: new RegExp(`relay-noisy-dr sweep lambda_tok=${v.replace('.', '\\.')}(?![.\\d])`) }).waitFor();
      await page.getByRole('tab', { name: 'Charts' }).click();
      // the members are drawn on the main chart: their trails, labelled by value, and their final evals
      const pareto = page.getByRole('region', { name: 'Accuracy vs tokens' });
      const paretoCaption = pareto.getByTestId('pareto-caption');
      expect(Number(await paretoCaption.getAttribute('data-trails'))).toBeGreaterThanOrEqual(3);
      expect(await pareto.locator('.trail-labels text').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/λ=0(?![.\d])/), expect.stringMatching(/λ=0\.1/), expect.stringMatching(/λ=0\.3/)]));
      const caption = page.getByTestId('sweep-caption');
      expect(await caption.getAttribute('data-points')).toBe('3');
      expect(Number(await caption.getAttribute('data-frontier'))).toBeGreaterThanOrEqual(1);
      // the frontier of the members is on the main chart too (there is no second chart)
      await checkHeadFrontier(pareto, 3);
      expect(await page.getByRole('region', { name: /Sweep frontier/ }).count()).toBe(0);
      // equal accuracies (two tiny steps from a warm start that is right on all 8 held-out tasks): the axis stays within 0-100%
      const accuracies = await page.locator('table.sweep-runs tbody tr').evaluateAll((rows) => rows.map((r) => r.children[2].textContent));
      expect(new Set(accuracies).size, `final accuracies ${accuracies.join(', ')}`).toBe(1);
      const ticks = (await pareto.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents()).map((t) => Number(t.replace('%', '')));
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      for (const t of ticks) { expect(t).toBeGreaterThanOrEqual(0); expect(t).toBeLessThanOrEqual(100); }
      // clicking a value highlights its run
      await page.getByRole('button', { name: /^Show relay-noisy-dr sweep lambda_tok=0\.1 on the charts/ }).click();
      await expect.poll(() => caption.textContent()).toMatch(/Highlighted: relay-noisy-dr sweep lambda_tok=0\.1/);
      // a reload keeps the sweep and its runs
      await page.reload();
      await page.getByText('This device: CPU backend').waitFor({ timeout: 60_000 }); // the CPU engine again (no WebGPU)
      await expect.poll(() => page.getByTestId('sweep-progress').getAttribute('data-status')).toBe('done');
      expect(await page.getByTestId('sweep-caption').getAttribute('data-points')).toBe('3');
      expect(errors).toEqual([]);
    } finally {
      await plain.close();
    }
  }, 900_000);
});
