// What the page teaches, rendered in given states or as the pure
// functions behind it: tabs by the ARIA pattern, the first-run guide, the
// software-GPU and resume banners, explanations beside the controls, field
// errors linked to their fields, the lambda_tok slider's steps, live-change
// marks, the accuracy axis zoom, sister presets, named buttons, PNG legends.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { softwareRenderer } from '../../src/store/adapter';
import type { RunMeta } from '../../src/store/runTypes';
import { App } from '../../src/ui/App';
import { Banners } from '../../src/ui/Banners';
import { changeMarks, markedEvals } from '../../src/ui/changeMarks';
import { legendRows } from '../../src/ui/chartPng';
import { ChartsPanel } from '../../src/ui/ChartsPanel';
import { shouldCommit } from '../../src/ui/ConfigField';
import { Controls } from '../../src/ui/Controls';
import { Inspector } from '../../src/ui/Inspector';
import { accuracyDomain, changeSeries } from '../../src/ui/ParetoChart';
import { lambdaAfterKey } from '../../src/ui/RewardControls';
import { RunsTable } from '../../src/ui/RunsTable';
import { sistersOf } from '../../src/ui/sisters';
import { tabAfterKey } from '../../src/ui/Tabs';
import { transcriptCount } from '../../src/ui/Transcripts';
import { buttons, render, text } from './render';

const config = presetConfig(findPreset('relay-silence'));
const evals: RunMeta['evals'] = [
  { step: 0, accuracy: 0.62, tokens: 8, turns: 1, lambdaTok: 0.1, reward: 0.2 },
  { step: 5, accuracy: 0.7, tokens: 4, turns: 1, lambdaTok: 0.1, reward: 0.3 },
  { step: 10, accuracy: 0.74, tokens: 2, turns: 1, lambdaTok: 0.3, reward: 0.14 },
];
const run = (extra: Partial<RunMeta> = {}): RunMeta => ({
  id: 'cur', name: 'relay-silence #1', preset: 'relay-silence', config, createdAt: 0, updatedAt: 0, status: 'paused', steps: 10, evals, bestEval: evals[2], flags: [],
  warmStart: null, backend: 'webgpu', checkpoints: { last: 10 }, colorIndex: 0, source: 'trained', ...extra,
});

describe('tabs (ARIA tab pattern)', () => {
  it('arrow keys wrap, Home and End jump, other keys are left alone', () => {
    expect(tabAfterKey('ArrowRight', 1, 2)).toBe(0);
    expect(tabAfterKey('ArrowLeft', 0, 2)).toBe(1);
    expect(tabAfterKey('End', 0, 3)).toBe(2);
    expect(tabAfterKey('Home', 2, 3)).toBe(0);
    expect(tabAfterKey('Enter', 0, 3)).toBeNull();
  });
  it('the inspector: only the selected tab is in the tab order, it controls the panel, the panel is labelled by it', () => {
    const h = render(Inspector);
    const tabs = [...h.matchAll(/<button[^>]*role="tab"[^>]*>/g)].map((m) => m[0]);
    expect(tabs).toHaveLength(2);
    expect(tabs[0]).toMatch(/aria-selected="true"/);
    expect(tabs[0]).toMatch(/tabindex="0"/);
    expect(tabs[1]).toMatch(/tabindex="-1"/);
    const tabId = /id="([^"]+)"/.exec(tabs[0])![1], panel = /aria-controls="([^"]+)"/.exec(tabs[0])![1];
    expect(h).toMatch(new RegExp(`role="tabpanel" id="${panel}" aria-labelledby="${tabId}"`));
  });
  it('the runs table is one tab away from the charts, with its count', () => {
    const h = render(App, { runs: [run()], runId: 'cur' });
    expect(text(h)).toMatch(/Charts Runs \(1\)/);
    expect(render(App, { runs: [run()], runId: 'cur', middleTab: 'runs' })).toMatch(/aria-label="Delete relay-silence #1"/);
  });
});

describe('banners that teach', () => {
  it('the first-run guide: three steps, until dismissed', () => {
    const t = text(render(Banners));
    expect(t).toMatch(/Pick a preset .* Press Start\. .* Drag lambda_tok while it trains, and watch the trail move on the chart\. Got it/);
    expect(text(render(Banners, { guideDismissed: true }))).not.toMatch(/Pick a preset/);
  });
  it('a software adapter is named and the CPU backend offered; a hardware one is not flagged', () => {
    expect(softwareRenderer('Google SwiftShader Device (Subzero)')).toBe('SwiftShader');
    expect(softwareRenderer('mesa llvmpipe (LLVM 15.0.6, 256 bits)')).toBe('llvmpipe');
    expect(softwareRenderer('Microsoft Basic Render Driver')).toBe('WARP');
    expect(softwareRenderer('nvidia ampere NVIDIA GeForce RTX 3080')).toBeNull();
    expect(softwareRenderer('Hardwarp GPU 9000')).toBeNull(); // "warp" inside a word is not WARP
    const h = render(Banners, { gpu: { state: 'ok', adapter: 'google swiftshader' }, backendChoice: 'auto', guideDismissed: true });
    expect(text(h)).toMatch(/WebGPU here is SwiftShader ?, a software renderer: .* the CPU backend is often faster/);
    expect(buttons(h)).toContain('Use the CPU backend');
    expect(text(render(Banners, { gpu: { state: 'ok', adapter: 'google swiftshader' }, backendChoice: 'cpu', backendPref: 'cpu', guideDismissed: true, busy: null }))).toBe('');
    expect(text(render(Banners, { gpu: { state: 'ok', adapter: 'apple m2' }, backendChoice: 'auto', guideDismissed: true, busy: null }))).toBe('');
  });
  it('the page chose the CPU engine on a software adapter: one small notice naming it, with WebGPU a click away', () => {
    const soft = { gpu: { state: 'ok', adapter: 'google swiftshader' }, backendChoice: 'cpu', backendPref: null, guideDismissed: true, busy: null } as const;
    const h = render(Banners, { ...soft, trainer: { cpuEngine: 'wasm' } as never });
    expect(text(h)).toMatch(/^No hardware GPU found \(SwiftShader\): training on the CPU engine \(WebAssembly SIMD\)\. Try WebGPU anyway · Dismiss$/);
    expect(buttons(h)).toEqual(['Try WebGPU anyway', 'Dismiss']);
    expect(softwareRenderer('vendor x', true)).toBe('a fallback adapter'); // isFallbackAdapter without a known name
    expect(text(render(Banners, { ...soft, gpu: { state: 'ok', adapter: 'vendor x', fallback: true } }))).toMatch(/^No hardware GPU found \(a fallback adapter\)/);
    expect(text(render(Banners, { ...soft, gpu: { state: 'ok', adapter: 'apple m2' } }))).toBe(''); // a hardware GPU the person turned down
  });
  it('a run that was training is offered for resuming, from its step', () => {
    const h = render(Banners, { guideDismissed: true, resumable: { id: 'r', name: 'relay-silence #2', step: 40, status: 'interrupted' } });
    expect(buttons(h)).toEqual(['Resume relay-silence #2 from step 40', 'Not now']);
  });
});

describe('explanations beside the controls', () => {
  it('say what GSPO is against GRPO, what group normalization and "none" do, Reset against Warm start, and what best means', () => {
    const t = text(render(Controls));
    expect(t).toMatch(/GSPO weighs a whole message by one ratio .* clip range is tiny \(1 − 3e-4 to 1 \+ 4e-4\)/);
    expect(t).toMatch(/A group whose G episodes all got the same reward has std 0 and gives no gradient; frac_zero_std/);
    expect(t).toMatch(/Reset or Warm start\? Reset goes back to the warm start .* Warm start starts a new run from the preset.s warm-start weights/);
    expect(t).toMatch(/Best = the eval with the highest mean reward, what training maximizes \(ties: fewer tokens, then the later step\)\. No eval yet\./);
    const grpo = text(render(Controls, { config: { ...config, algorithm: 'grpo', advantage: 'none' } }));
    expect(grpo).toMatch(/GRPO clips a ratio per token, .* in the usual range 0\.8 to 1\.2/);
    expect(grpo).toMatch(/"none": A = r − group mean, not divided by the std \(Dr\. GRPO style\)/);
    expect(render(Controls)).toMatch(/<option value="none">none: r − mean \(Dr\. GRPO\)<\/option>/);
  });
  it('the best rule in force is shown beside Restore best, with the eval it picks', () => {
    const t = text(render(Controls, { bestRule: 'tokens', bestTarget: 3, trainer: { runId: 'cur', preset: 'relay-silence', config, pending: {}, status: 'paused', message: null,
      backend: 'webgpu', warmStart: null, stepCount: 10, lambdaTok: 0.3, evals, bestEval: evals[2], flags: [], skippedUpdates: 0 } }));
    expect(t).toMatch(/Best = the highest accuracy within 3 tokens per episode: .* Now: step 10, 74\.0% at 2 tokens\./);
  });
});

describe('fields and the slider', () => {
  it('a field error is linked to its field by aria-describedby', () => {
    const h = render(Controls, { fieldErrors: { groupSize: 'groupSize must be in [1, 64]; got 0; not applied' } });
    const errorId = /<small id="([^"]+)" role="alert" class="error">groupSize must be/.exec(h)![1];
    expect(h).toMatch(new RegExp(`<input[^>]*aria-describedby="[^"]*\\b${errorId}\\b[^"]*"[^>]*aria-invalid="true"`));
  });
  it('a valid value equal to the one in force is still sent when the field shows an error (so the error clears)', () => {
    expect(shouldCommit('8', '8', true)).toBe(true);
    expect(shouldCommit('8', '8', false)).toBe(false);
    expect(shouldCommit('4', '8', false)).toBe(true);
  });
  it('lambda_tok moves by 0.01 (arrows) and 0.1 (PageUp/PageDown), within its range', () => {
    expect(render(Controls)).toMatch(/<input[^>]*type="range"[^>]*step="0.01"/);
    expect(lambdaAfterKey('PageUp', 0.1, 1)).toBe(0.2);
    expect(lambdaAfterKey('PageUp', 0.95, 1)).toBe(1);
    expect(lambdaAfterKey('PageDown', 0.05, 1)).toBe(0);
    expect(lambdaAfterKey('PageDown', 0.33, 1)).toBe(0.23);
    expect(lambdaAfterKey('ArrowUp', 0.1, 1)).toBeNull();
  });
});

describe('marks where the run changed', () => {
  const changes: RunMeta['changes'] = [
    { step: 4, field: 'lambdaTok', value: 0.2 }, { step: 4, field: 'lambdaTok', value: 0.3 }, { step: 4, field: 'lr', value: 0.0001 }, { step: 7, field: 'groupSize', value: 4 },
  ];
  it('one mark per step, at the first step that used it (counting from 1), with the last value of each field', () => {
    expect(changeMarks(changes)).toEqual([
      { step: 5, set: [{ field: 'lambdaTok', value: 0.3 }, { field: 'lr', value: 0.0001 }], label: 'lambda_tok 0.3, Learning rate 1.00e-4' },
      { step: 8, set: [{ field: 'groupSize', value: 4 }], label: 'Group size 4' },
    ]);
  });
  it('labels the trail at the first eval measured after each change took effect', () => {
    const marked = markedEvals(changeMarks(changes), evals);
    expect(marked.map((m) => [m.mark.step, m.at.step])).toEqual([[5, 5], [8, 10]]);
    const s = changeSeries({ id: 'cur', name: 'x', color: '#000', current: true, evals, meta: run({ changes }) })!;
    expect(s.points.map((p) => [p.tokens, p.label])).toEqual([[4, 'lambda_tok 0.3, Learning rate 1.00e-4'], [2, 'Group size 4']]);
    expect(s.points[1].note).toBe('from step 8: Group size 4 (the eval at step 10 is the first measured with it)');
  });
  it('the chart caption counts the labelled changes', () => {
    const h = render(ChartsPanel, { runs: [run({ changes })], runId: 'cur' });
    expect(h).toMatch(/data-changes="2"/);
  });
  it('an overlaid run (an imported one) keeps its change labels on the chart', () => {
    const imported: RunMeta = { ...run({ changes }), id: 'imp', name: 'imported run', source: 'imported', status: 'imported' };
    const h = render(ChartsPanel, { runs: [imported], overlay: ['imp'], runId: null });
    expect(h).toMatch(/data-changes="2"/);
  });
});

describe('the accuracy axis', () => {
  it('zooms to the data with a 5-point margin on a 5% grid; full is 0-100%', () => {
    expect(accuracyDomain([0.62, 0.7, 0.74], 'data')).toEqual([0.55, 0.8]);
    expect(accuracyDomain([0.97, 1], 'data')).toEqual([0.9, 1]);
    expect(accuracyDomain([0.62], 'full')).toEqual([0, 1]);
    expect(accuracyDomain([], 'data')).toEqual([0, 1]);
    expect(accuracyDomain([0.02], 'data')).toEqual([0, 0.1]);
  });
  it('the toggle says what it does and is pressed at 0-100%', () => {
    expect(render(ChartsPanel, { runs: [run()], runId: 'cur' })).toMatch(/<button[^>]*aria-pressed="false"[^>]*>Accuracy axis 0–100%<\/button>/);
    expect(render(ChartsPanel, { runs: [run()], runId: 'cur', accuracyAxis: 'full' })).toMatch(/<button[^>]*aria-pressed="true"[^>]*>Zoom accuracy to the data<\/button>/);
  });
});

describe('guided comparisons', () => {
  it('each sister says what it changes; presets that do not exist are left out', () => {
    expect(sistersOf('relay-silence').map((s) => [s.preset, s.label])).toEqual([
      ['relay-grpo', 'GRPO instead of GSPO'], ['relay-no-groupnorm', 'no std (Dr. GRPO) instead of group normalization'],
    ].concat(sistersOf('relay-silence').some((s) => s.preset === 'relay-noisy') ? [['relay-noisy', 'a noisy channel instead of a clean channel']] : []));
    expect(sistersOf('relay-grpo').map((s) => s.preset)).toEqual(['relay-silence']);
    expect(sistersOf('philosophers-fixed')).toEqual([]);
  });
  it('the sister buttons wait for the run to have steps', () => {
    const h = render(Controls, { trainer: { runId: 'cur', preset: 'relay-silence', config, pending: {}, status: 'idle', message: null, backend: 'webgpu', warmStart: null,
      stepCount: 0, lambdaTok: 0.1, evals: [], bestEval: null, flags: [], skippedUpdates: 0 }, busy: null });
    expect(text(h)).toMatch(/Train this run first/);
    expect(h).toMatch(/<button type="button" disabled="">Run relay-grpo: GRPO instead of GSPO<\/button>/);
  });
});

describe('buttons name what they act on', () => {
  it('Save PNG names its chart; Delete, Rename and exports name their run', () => {
    const c = render(ChartsPanel, { runs: [run()], runId: 'cur' });
    expect(c).toMatch(/aria-label="Save PNG: Accuracy vs tokens"/);
    expect(c).toMatch(/aria-label="Save PNG: lambda_tok"/);
    const r = render(RunsTable, { runs: [run()], runId: 'other' });
    for (const n of ['Rename relay-silence #1', 'Delete relay-silence #1', 'Export JSON of relay-silence #1', 'Load weights of relay-silence #1']) expect(r).toContain(`aria-label="${n}"`);
  });
  it('a saved PNG lays its legend out in rows that fit its width', () => {
    const items = ['reward', 'r_task', 'a much longer legend label'].map((label) => ({ label, color: '#000', mark: 'line' as const }));
    const rows = legendRows(items, 200, (s) => s.length * 6); // widths: 22 + 6n + 14 -> 78, 72, 192
    expect(rows.map((r) => r.map((i) => i.label))).toEqual([['reward', 'r_task'], ['a much longer legend label']]);
  });
});

describe('transcripts count truthfully', () => {
  it('a sample of the step, and how many pass the filter', () => {
    expect(transcriptCount('train', { step: 2, episodes: new Array(12), total: 256 }, 12, 'all')).toBe('Showing 12 of 256 episodes of step 3 (sampled).');
    expect(transcriptCount('eval', { step: 10, episodes: new Array(12), total: 64 }, 5, 'success')).toBe('5 success among 12 of 64 episodes of the eval at step 10 (greedy).');
  });
});

describe('the accuracy scale', () => {
  it('leaves headroom above the data and stops its ticks at 100%', async () => {
    const { accuracyScale } = await import('../../src/ui/ParetoChart');
    const s = accuracyScale([0.95, 1]);
    expect(s.ticks).toEqual([0.95, 1]);
    expect(s.domain[1]).toBeCloseTo(1.003, 6);
    expect(accuracyScale([0.55, 0.8]).ticks).toEqual([0.55, 0.6, 0.65, 0.7, 0.75, 0.8]);
    expect(accuracyScale([0, 1]).ticks).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });
});

describe('progress inside a long step', () => {
  it('is the clock against the last step, never claiming the step is over', async () => {
    const { stepShare } = await import('../../src/ui/StepProgress');
    expect(stepShare(15_000, 30_000)).toBe(0.5);
    expect(stepShare(60_000, 30_000)).toBe(0.95);
    expect(stepShare(1000, 0)).toBe(0);
  });
  it('shows for a running run whose last step took over 2 s', async () => {
    const { MetricsHub } = await import('../../src/store/metricsHub');
    const { METRIC_INDEX, METRIC_NAMES } = await import('../../src/worker/protocol');
    const hub = new MetricsHub();
    const row = new Float64Array(METRIC_NAMES.length);
    row[METRIC_INDEX.step] = 0; row[METRIC_INDEX.step_time_ms] = 30_000;
    hub.append('r', row, 1);
    const state = { runId: 'r', status: 'running' as const, busy: null };
    expect(text(render(Controls, state, hub))).toMatch(/step 2: 0 s so far; the last took 30 s \(playing the episodes\)\. Pause stops at the next minibatch update\./);
    // the worker's own count, when it reports one for this step
    const h = render(Controls, { ...state, stepWithin: { step: 1, done: 2, of: 4 } }, hub);
    expect(text(h)).toMatch(/step 2: episodes played; 2 of 4 minibatch updates made\. Pause stops at the next minibatch\./);
    expect(h).toMatch(/<progress max="4" value="2"/);
    row[METRIC_INDEX.step_time_ms] = 500;
    const quick = new MetricsHub();
    quick.append('r', row, 1);
    expect(text(render(Controls, state, quick))).not.toMatch(/so far/);
  });
});
