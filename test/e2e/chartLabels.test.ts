// The accuracy-vs-tokens chart's labels in real browsers: on a first visit (a fresh profile, a bare link: the page
// opens on the population of relay-noisy-quick), Start, a live change of one member's lambda_tok while it trains,
// Pause after ~15 s; then the rendered boxes of every label the chart draws (every <text> of its svg outside the
// axes) and of every mark (eval dots, warm-start stars, baseline crosses, trail heads, change rings) are read in one
// task of the page, and no label may overlap another label or a mark (1 px tolerance) or leave the plot area.
// The same scene in Chromium (playwright-core) and Firefox ESR (puppeteer-core over WebDriver BiDi).
// Under CI=true a missing Chromium or Firefox fails; elsewhere that browser's test skips with a message.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer from 'puppeteer-core';
import { builtPage, FIREFOX, haveChromium, launchChromium, needBrowser, recordErrors, serveDir, type Served } from './servePage';

const haveFirefox = needBrowser('Firefox ESR', FIREFOX, 'firefox-esr');
const LONG = 300_000;
/** How long the population trains before Pause. */
const TRAIN_MS = 15_000;
/** When, after Start, the slider moves one member's lambda_tok (a live change, labelled on the chart at its next eval). */
const CHANGE_AT_MS = 5_000;

interface Rect { l: number; t: number; r: number; b: number }
interface Scene {
  labels: (Rect & { text: string; placed: boolean })[];
  marks: (Rect & { kind: string })[];
  plot: Rect | null;
  groups: Record<string, string>;
}

/**
 * Read in the page, in one task (a string, so that neither test runner's transform touches it): the Pareto chart's
 * label texts (every visible <text> of its svg outside the axes; `placed`: inside the placed labels' group), its
 * marks, the plot area (recharts' clip rectangle) and each label group's data-labels/data-placed.
 */
const READ_SCENE = `(() => {
  const svg = document.querySelector('section[aria-label="Accuracy vs tokens"] .pareto-plot svg.recharts-surface');
  if (!svg) return null;
  const rect = (e) => { const r = e.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; };
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const clip = svg.querySelector('defs clipPath rect');
  const s = svg.getBoundingClientRect();
  const plot = clip ? { l: s.left + clip.x.baseVal.value, t: s.top + clip.y.baseVal.value, r: s.left + clip.x.baseVal.value + clip.width.baseVal.value, b: s.top + clip.y.baseVal.value + clip.height.baseVal.value } : null;
  // the axes' texts: their ticks, and their titles (a recharts label of no label list, in the margin beside the plot)
  const axis = (t) => !!t.closest('.recharts-cartesian-axis, .recharts-cartesian-axis-tick-labels')
    || (t.matches('.recharts-label') && !t.closest('.recharts-label-list') && plot && ((r) => r.right <= plot.l || r.left >= plot.r || r.bottom <= plot.t || r.top >= plot.b)(t.getBoundingClientRect()));
  const labels = [...svg.querySelectorAll('text')]
    .filter((t) => !axis(t) && !t.closest('.label-measure') && (t.textContent || '').trim() && shown(t))
    .map((t) => ({ ...rect(t), text: t.textContent, placed: !!t.closest('.chart-labels') }));
  const kinds = { 'circle.eval-dot': 'eval dot', 'path.warm-star': 'warm-start star', 'path.baseline': 'baseline cross', 'circle.trail-head': 'trail head', 'circle.change-point': 'change ring' };
  const marks = Object.entries(kinds).flatMap(([sel, kind]) => [...svg.querySelectorAll(sel)].filter(shown).map((m) => ({ ...rect(m), kind })));
  const groups = Object.fromEntries([...svg.querySelectorAll('.chart-labels > g[data-labels]')].map((g) => [g.getAttribute('class'), g.getAttribute('data-placed') + ' of ' + g.getAttribute('data-labels')]));
  return { labels, marks, plot, groups };
})()`;

/** In the page: focus the lambda_tok slider (its name starts "lambda_tok") and report whether it can be moved. */
const FOCUS_SLIDER = `(() => {
  const label = [...document.querySelectorAll('label')].find((l) => (l.textContent || '').startsWith('lambda_tok') && l.htmlFor);
  const input = label && document.getElementById(label.htmlFor);
  if (!input || input.disabled) return false;
  input.focus();
  return true;
})()`;

/** 1 px tolerance: boxes that share less than a pixel each way do not overlap. */
const overlap = (p: Rect, q: Rect) => p.l < q.r - 1 && q.l < p.r - 1 && p.t < q.b - 1 && q.t < p.b - 1;

/** What a browser's driver must do for the scene; each browser's block gives its own. */
interface Driver {
  name: string;
  /** Evaluate an expression (a string) in the page. */
  evaluate<T>(js: string): Promise<T>;
  clickStart(): Promise<void>;
  clickPause(): Promise<void>;
  press(key: string): Promise<void>;
  screenshot(path: string): Promise<void>;
  errors: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => Promise<boolean>, ms: number) {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(250);
  }
}

/**
 * The scene, once the page has loaded its population: Start, a live change of lambda_tok (when the slider can
 * move), Pause after TRAIN_MS, then the boxes once two reads half a second apart agree (the last step drawn).
 */
async function trainAndRead(d: Driver): Promise<Scene> {
  const tLoad = Date.now();
  await waitFor('the population loaded', () => d.evaluate<boolean>(`document.querySelector('[data-testid="population-note"]')?.getAttribute('data-loaded') === '4'`), 180_000);
  expect(await d.evaluate<string | null>(`new URL(location.href).searchParams.get('population')`)).toBe('0,0.03,0.1,0.3');
  console.log(`${d.name}: the population loaded ${Date.now() - tLoad} ms after the page`);
  await d.clickStart();
  const t0 = Date.now();
  await sleep(CHANGE_AT_MS);
  let changed = false;
  if (await d.evaluate<boolean>(FOCUS_SLIDER)) {
    await d.press('ArrowRight');
    await d.press('ArrowRight');
    changed = true;
  }
  const tChanged = Date.now() - t0;
  await sleep(Math.max(0, TRAIN_MS - (Date.now() - t0)));
  const tPause = Date.now() - t0;
  await d.clickPause();
  console.log(`${d.name}: the live change done ${tChanged} ms after Start, Pause pressed at ${tPause} ms, done at ${Date.now() - t0} ms`);
  let scene: Scene | null = null, last = '';
  const t1 = Date.now();
  for (;;) {
    await sleep(500);
    scene = await d.evaluate<Scene | null>(READ_SCENE);
    const now = JSON.stringify(scene);
    if ((scene && now === last) || Date.now() - t1 > 20_000) break;
    last = now;
  }
  if (!scene) throw new Error('no Pareto chart on the page');
  console.log(`${d.name}: paused ${t1 - t0} ms after Start; the chart settled ${Date.now() - t1} ms after Pause`);
  const count = (k: string) => scene!.marks.filter((m) => m.kind === k).length;
  console.log(`${d.name}: ${changed ? 'lambda_tok moved live; ' : 'no live change (the slider was disabled); '}${scene.labels.length} labels (${scene.labels.map((l) => JSON.stringify(l.text)).join(', ')}); groups ${JSON.stringify(scene.groups)}; marks: ${['eval dot', 'warm-start star', 'baseline cross', 'trail head', 'change ring'].map((k) => `${k}: ${count(k)}`).join(', ')}`);
  return scene;
}

/** Every label placed (none drawn outside the placement), inside the plot, clear of every other label and every mark. */
async function checkScene(d: Driver, scene: Scene) {
  const problems: string[] = [];
  const { labels, marks, plot } = scene;
  const name = (r: Rect & { text?: string; kind?: string }) => `${r.text !== undefined ? JSON.stringify(r.text) : r.kind} [${Math.round(r.l)},${Math.round(r.t)} to ${Math.round(r.r)},${Math.round(r.b)}]`;
  for (const [i, p] of labels.entries()) {
    if (!p.placed) problems.push(`${name(p)} is drawn outside the label placement`);
    if (plot && (p.l < plot.l - 1 || p.r > plot.r + 1 || p.t < plot.t - 1 || p.b > plot.b + 1)) problems.push(`${name(p)} leaves the plot area`);
    for (const q of labels.slice(i + 1)) if (overlap(p, q)) problems.push(`${name(p)} overlaps the label ${name(q)}`);
    for (const m of marks) if (overlap(p, m)) problems.push(`${name(p)} overlaps a ${name(m)}`);
  }
  const shot = join(tmpdir(), `chart-labels-${d.name.toLowerCase()}.png`);
  await d.screenshot(shot).catch(() => undefined);
  expect(problems, `${d.name}: overlapping labels (the chart's screenshot: ${shot})`).toEqual([]);
  expect(plot, 'the plot area (recharts\' clip rectangle) was found').not.toBeNull();
  // the scene is the one meant: the members' heads labelled, with the warm-start star and evals around them
  expect(marks.filter((m) => m.kind === 'trail head').length).toBeGreaterThanOrEqual(2);
  expect(marks.some((m) => m.kind === 'warm-start star')).toBe(true);
  expect(labels.filter((l) => /^λ=/.test(l.text)).length, 'head labels drawn').toBeGreaterThanOrEqual(1);
  expect(d.errors).toEqual([]);
}

let served: Served | undefined;
let url = '';

beforeAll(async () => {
  if (!haveChromium && !haveFirefox) return;
  served = await serveDir(await builtPage());
  url = served.url;
}, LONG);

afterAll(async () => { await served?.close(); });

describe.runIf(haveChromium)('the Pareto chart\'s labels in Chromium', () => {
  it('a first visit, trained ~15 s and paused: no label overlaps another label or a mark', async () => {
    const browser = await launchChromium('swiftshader');
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const errors = recordErrors(page);
      await page.goto(url); // a bare link in a fresh profile
      const d: Driver = {
        name: 'Chromium', errors,
        evaluate: <T>(js: string) => page.evaluate(js) as Promise<T>,
        clickStart: () => page.getByRole('button', { name: 'Start', exact: true }).click(),
        clickPause: () => page.getByRole('button', { name: 'Pause' }).click(),
        press: async (key) => { await page.getByRole('slider', { name: /^lambda_tok/ }).press(key); },
        screenshot: async (path) => { await page.locator('section[aria-label="Accuracy vs tokens"]').screenshot({ path }); },
      };
      await checkScene(d, await trainAndRead(d));
    } finally {
      await browser.close();
    }
  }, LONG);
});

describe.runIf(haveFirefox)('the Pareto chart\'s labels in Firefox ESR', () => {
  it('a first visit, trained ~15 s and paused: no label overlaps another label or a mark', async () => {
    // puppeteer-core launches the given binary with a fresh temporary profile and downloads nothing
    const browser = await puppeteer.launch({ browser: 'firefox', protocol: 'webDriverBiDi', executablePath: FIREFOX, headless: true });
    try {
      const page = await (await browser.createBrowserContext()).newPage();
      await page.setViewport({ width: 1280, height: 800 });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      await page.goto(url);
      const d: Driver = {
        name: 'Firefox', errors,
        evaluate: <T>(js: string) => page.evaluate(js) as Promise<T>,
        clickStart: async () => { await page.waitForSelector('#start-button:not([disabled])', { timeout: 60_000 }); await page.click('#start-button'); },
        // (the button found by its text: the aria query waits on Firefox's accessibility tree, ~25 s while it trains)
        clickPause: async () => {
          const pause = await page.evaluateHandle(() => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Pause') ?? null);
          const el = pause.asElement();
          if (!el) throw new Error('no button named Pause');
          await (el as import('puppeteer-core').ElementHandle<Element>).click();
        },
        press: (key) => page.keyboard.press(key as never),
        screenshot: async (path) => { await (await page.$('section[aria-label="Accuracy vs tokens"]'))?.screenshot({ path: path as `${string}.png` }); },
      };
      await checkScene(d, await trainAndRead(d));
    } finally {
      await browser.close();
    }
  }, LONG);
});
