// Populations on the charts: the hovered run over the others (its trail and time
// series), population members grouped by their sweep with a frontier each (two
// populations: two frontiers on one chart, labelled), against hand-computed cases.
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { MetricsHub } from '../../src/store/metricsHub';
import type { RunMeta } from '../../src/store/runTypes';
import { METRIC_NAMES } from '../../src/worker/protocol';
import { ChartsPanel, runLines } from '../../src/ui/ChartsPanel';
import { TIME_SERIES } from '../../src/ui/seriesDefs';
import { valueColor, type TrailPoint } from '../../src/ui/liveTrail';
import { ParetoChart } from '../../src/ui/ParetoChart';
import { emphasis, FADED, populationGroups, shownHovered } from '../../src/ui/populations';
import { colorSweepMembers, type ShownRun } from '../../src/ui/shownRuns';
import type { SweepRecord } from '../../src/store/sweepSlice';
import type { Transcripts as T } from '../../src/worker/protocol';
import { Banners } from '../../src/ui/Banners';
import { RunButtons } from '../../src/ui/RunButtons';
import { TaskCard } from '../../src/ui/TaskCard';
import { buttons, render, text } from './render';

const head = (tokens: number, accuracy: number): TrailPoint[] => [{ step: 1, tokens: 6, accuracy: 1 }, { step: 2, tokens, accuracy }];
function member(id: string, preset: string, sweep: string, value: number): ShownRun {
  const meta: RunMeta = {
    id, name: `${preset} sweep lambda_tok=${value}`, preset, config: presetConfig(findPreset(preset)), createdAt: 0, updatedAt: 0, status: 'finished', steps: 2,
    evals: [], bestEval: null, flags: [], warmStart: null, backend: 'cpu', checkpoints: {}, colorIndex: 0, source: 'trained', member: { sweep, axis: 'lambdaTok', value },
  };
  return { id, name: meta.name, color: '#000', current: false, evals: [], meta };
}

describe('hovering a run', () => {
  it('draws the hovered run opaque and twice as wide, every other run faded; nothing changes while none is hovered', () => {
    expect(emphasis('a', null)).toEqual({ opacity: 1, width: 1 });
    expect(emphasis('a', 'a')).toEqual({ opacity: 1, width: 2 });
    expect(emphasis('b', 'a')).toEqual({ opacity: FADED, width: 1 });
    // a trail's own base (0.45 opaque, 2 px): hovered 1 and 4 px, the others 0.45 * 0.2 = 0.09
    expect(emphasis('a', 'a', { opacity: 0.45, width: 2 })).toEqual({ opacity: 1, width: 4 });
    expect(emphasis('b', 'a', { opacity: 0.45, width: 2 }).opacity).toBeCloseTo(0.09, 12);
  });
  it('counts only a hovered run that the chart shows (a run hovered elsewhere fades nothing)', () => {
    const shown = [{ id: 'a' }, { id: 'b' }];
    expect(shownHovered(shown, 'b')).toBe('b');
    expect(shownHovered(shown, 'zz')).toBeNull();
    expect(shownHovered(shown, null)).toBeNull();
  });
  it('the store keeps the hovered run, and the time series draw its lines over the others\'', () => {
    const a = member('a', 'relay-noisy-dr', 's1', 0), b = member('b', 'relay-noisy-dr', 's1', 0.1);
    const hub = new MetricsHub();
    const C = METRIC_NAMES.length;
    for (const id of ['a', 'b']) {
      const data = new Float64Array(2 * C);
      for (let i = 0; i < 2; i++) METRIC_NAMES.forEach((n, c) => { data[i * C + c] = n === 'step' ? i : n === 'r_task' ? 1 : n === 'tokens' ? 5 - i : 0; });
      hub.append(id, data, 2);
    }
    const html = render(ChartsPanel, { runs: [a.meta!, b.meta!], overlay: ['a', 'b'], hoveredRun: 'b' }, hub);
    expect(html).toMatch(/data-hovered="b"/);
    // no run hovered: the caption says none
    expect(render(ChartsPanel, { runs: [a.meta!, b.meta!], overlay: ['a', 'b'] }, hub)).toMatch(/data-hovered=""/);
    // every time series: b's lines (its metrics and evals) opaque and 2 px, a's faded at 1 px; none hovered: all as usual
    for (const def of TIME_SERIES) {
      const lines = runLines(def, [a, b], (id) => hub.get(id), 'b');
      expect(lines.length, def.id).toBeGreaterThanOrEqual(2);
      for (const l of lines) expect([l.key.split('-')[0], l.opacity, l.width], `${def.id} ${l.key}`).toEqual(l.key.startsWith('b-') ? ['b', 1, 2] : ['a', FADED, 1]);
      for (const l of runLines(def, [a, b], (id) => hub.get(id), null)) expect([l.opacity, l.width]).toEqual([1, 1]);
    }
    expect(runLines(TIME_SERIES.find((d) => d.id === 'tokens')!, [a, b], (id) => hub.get(id), 'b').map((l) => l.key)).toEqual(['a-tokens', 'a-turns', 'a-repetition', 'a-eval-tok', 'b-tokens', 'b-turns', 'b-repetition', 'b-eval-tok']); // the tokens chart: tokens, turns, repetition, then the evals
  });
});

describe('populations grouped by sweep', () => {
  // relay-noisy (group norm): heads at (2, 0.96), (1, 0.9), (1.5, 0.8): the last is beaten by (1, 0.9)
  // relay-noisy-dr: heads at (6, 1), (3, 0.98), (0.5, 0.6): none beats another
  const shown = [
    member('n0', 'relay-noisy', 'sA', 0), member('n1', 'relay-noisy', 'sA', 0.1), member('n2', 'relay-noisy', 'sA', 0.3),
    member('d0', 'relay-noisy-dr', 'sB', 0), member('d1', 'relay-noisy-dr', 'sB', 0.03), member('d2', 'relay-noisy-dr', 'sB', 0.3),
    { id: 'lone', name: 'relay-silence #1', color: '#111', current: true, evals: [], meta: undefined } as ShownRun,
  ];
  const trails: Record<string, TrailPoint[]> = {
    n0: head(2, 0.96), n1: head(1, 0.9), n2: head(1.5, 0.8), d0: head(6, 1), d1: head(3, 0.98), d2: head(0.5, 0.6), lone: head(4, 0.5),
  };
  it('one group per sweep, labelled by its preset, members in the order of their value, each with its own frontier', () => {
    const g = populationGroups(shown, trails);
    expect(g.map((x) => x.label)).toEqual(['relay-noisy', 'relay-noisy-dr']);
    expect(g[0].members.map((m) => [m.id, m.value, m.tokens, m.accuracy])).toEqual([['n0', 0, 2, 0.96], ['n1', 0.1, 1, 0.9], ['n2', 0.3, 1.5, 0.8]]);
    expect(g[0].frontier.map((m) => m.id)).toEqual(['n1', 'n0']); // by tokens; n2 is dominated by n1
    expect(g[1].frontier.map((m) => m.id)).toEqual(['d2', 'd1', 'd0']);
  });
  it('leaves out a sweep with one placed member (one point is no frontier), runs of no sweep, and numbers two sweeps of one preset', () => {
    expect(populationGroups(shown, { ...trails, n1: [], n2: [] }).map((x) => x.label)).toEqual(['relay-noisy-dr']);
    const again = [member('x0', 'relay-noisy-dr', 'sC', 0), member('x1', 'relay-noisy-dr', 'sC', 0.3)];
    const g = populationGroups([...shown, ...again], { ...trails, x0: head(5, 1), x1: head(1, 0.7) });
    expect(g.map((x) => x.label)).toEqual(['relay-noisy', 'relay-noisy-dr (1)', 'relay-noisy-dr (2)']);
  });
  it('the main chart draws the two frontiers, labelled, in its legend and caption; one population keeps the one frontier of the heads', () => {
    const Two = () => createElement(ParetoChart, { runs: shown, trails, baselines: [], budget: null });
    const h = render(Two);
    expect(h).toMatch(/data-groups="relay-noisy:2 relay-noisy-dr:3"/);
    expect(text(h)).toMatch(/relay-noisy: frontier of its 3 runs \(live\)/);
    expect(text(h)).toMatch(/relay-noisy-dr: frontier of its 3 runs \(live\)/);
    expect(text(h)).not.toMatch(/frontier of the live positions/);
    const One = () => createElement(ParetoChart, { runs: shown.slice(3), trails, baselines: [], budget: null });
    const h1 = render(One);
    expect(h1).toMatch(/data-groups=""/);
    expect(text(h1)).toMatch(/frontier of the live positions/);
  });
  it('members of any recorded sweep are coloured by value within their own sweep and labelled', () => {
    const out = colorSweepMembers(shown, null);
    expect(out.slice(0, 3).map((r) => r.color)).toEqual([valueColor(0, 3), valueColor(1, 3), valueColor(2, 3)]);
    expect(out.slice(3, 6).map((r) => r.valueLabel)).toEqual(['λ=0', 'λ=0.03', 'λ=0.3']);
    expect(out[6]).toBe(shown[6]);
  });
});

describe('the first screen of a population', () => {
  const config = presetConfig(findPreset('relay-noisy-quick'));
  const population = [0, 0.03, 0.1, 0.3];
  it('the guide says what Start trains and what to watch; the run buttons say it and offer one run instead', () => {
    const g = text(render(Banners, { population, preset: 'relay-noisy-quick', config }));
    expect(g).toMatch(/Press Start: 4 runs train side by side, one per lambda_tok \(0, 0\.03, 0\.1, 0\.3\)\. Watch their trails spread on the chart/);
    expect(text(render(Banners, { preset: 'relay-silence' }))).toMatch(/Pick a preset/); // one run: the guide as before
    const b = render(RunButtons, { population, preset: 'relay-noisy-quick', config });
    expect(text(b)).toMatch(/Start trains 4 runs side by side, one per lambda_tok: 0, 0\.03, 0\.1, 0\.3\. Train one run instead/);
    expect(buttons(b)).toContain('Train one run instead');
    expect(render(RunButtons, { preset: 'relay-silence' })).not.toMatch(/population-note/);
    // the run names the warm start it began from
    expect(text(render(RunButtons, { preset: 'relay-noisy-dr', trainer: { warmStart: 'checkpoints/relay-noisy-warm.safetensors' } as never }))).toMatch(/Warm start: checkpoints\/relay-noisy-warm\.safetensors/);
  });
  it('the task card names the population\'s values in the reward and shows a training member\'s episode', () => {
    const transcripts: T = { eval: null, train: { step: 3, total: 64, episodes: [{
      episode: 0, score: { rTask: 1, extras: {} }, reward: { reward: 0.8, rTask: 1, tokens: 2, turns: 1, repetition: 0 }, lines: [],
      turns: [
        { role: 'scout', turn: 0, agent: 0, message: true, ids: [], tokens: ['4', '4', 'EOS'], logp: [-0.1, -0.2, -0.05], silent: false },
        { role: 'solver', turn: 1, agent: 0, message: false, ids: [], tokens: ['4', 'EOS'], logp: [-0.01, -0.01], silent: false },
      ] }] } };
    const sweep: SweepRecord = {
      id: 's', preset: 'relay-noisy-quick', axis: 'lambdaTok', base: {}, steps: 40, status: 'running', message: null, createdAt: 0,
      runs: [{ label: 'lambda_tok=0.1', value: 0.1, status: 'running', runId: 'm', accuracy: null, tokens: null, startedAt: 0, finishedAt: null }],
    };
    const t = text(render(TaskCard, { preset: 'relay-noisy-quick', population, config, sweep, sweepExample: { runId: 'm', label: 'lambda_tok=0.1', transcripts } }));
    expect(t).toMatch(/minus lambda_tok \(0, 0\.03, 0\.1, 0\.3: one value per run\) per message token/);
    expect(t).toMatch(/Now, one episode of λ=0\.1's step 4 scout 4 4 EOS solver 4 EOS right \(r_task 1\) · 2 tokens · reward 0\.8/);
    // the population stopped: its member's episode is no longer the current policy's
    expect(text(render(TaskCard, { population, config, sweep: { ...sweep, status: 'stopped' }, sweepExample: { runId: 'm', label: 'lambda_tok=0.1', transcripts } }))).toMatch(/Press Step or Start to see an episode/);
  });
});
