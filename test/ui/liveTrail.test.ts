// The chart's live trail: each step's sampled accuracy (r_task) and tokens, smoothed
// by an exponential moving average (checked against the recurrence by hand), drawn
// for every shown run from the first step; sweep members coloured by value on one
// scale and labelled with it.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { MetricsHub } from '../../src/store/metricsHub';
import type { RunMeta } from '../../src/store/runTypes';
import type { SweepRecord } from '../../src/store/sweepSlice';
import { METRIC_NAMES } from '../../src/worker/protocol';
import { ChartsPanel } from '../../src/ui/ChartsPanel';
import { liveTrail, valueColor } from '../../src/ui/liveTrail';
import { colorSweepMembers, type ShownRun } from '../../src/ui/shownRuns';
import { render } from './render';

const C = METRIC_NAMES.length;
/** A hub holding rows for `id`: step i, r_task acc[i], tokens tok[i]. */
function hubWith(id: string, acc: number[], tok: number[]): MetricsHub {
  const hub = new MetricsHub();
  const data = new Float64Array(acc.length * C);
  acc.forEach((_, i) => METRIC_NAMES.forEach((n, c) => { data[i * C + c] = n === 'step' ? i : n === 'r_task' ? acc[i] : n === 'tokens' ? tok[i] : 0; }));
  hub.append(id, data, acc.length);
  return hub;
}

describe('liveTrail', () => {
  it('smooths each step with weight 0.3 for the newest (by hand), steps counted from 1', () => {
    const hub = hubWith('r', [1, 0, 0.5], [8, 6, 2]);
    const t = liveTrail(hub.get('r'));
    // a1 = 1; a2 = 1 + 0.3 (0 - 1) = 0.7; a3 = 0.7 + 0.3 (0.5 - 0.7) = 0.64
    // t1 = 8; t2 = 8 + 0.3 (6 - 8) = 7.4; t3 = 7.4 + 0.3 (2 - 7.4) = 5.78
    expect(t.map((p) => p.step)).toEqual([1, 2, 3]);
    expect(t.map((p) => p.accuracy)).toEqual([1, 0.7, 0.64].map((x) => expect.closeTo(x, 12)));
    expect(t.map((p) => p.tokens)).toEqual([8, 7.4, 5.78].map((x) => expect.closeTo(x, 12)));
    expect(liveTrail(undefined)).toEqual([]);
  });

  it('the chart draws a run\'s trail from its first step, before any eval', () => {
    const config = presetConfig(findPreset('relay-noisy-dr'));
    const meta: RunMeta = { id: 'cur', name: 'relay-noisy-dr #1', preset: 'relay-noisy-dr', config, createdAt: 0, updatedAt: 0, status: 'running', steps: 2,
      evals: [], bestEval: null, flags: [], warmStart: null, backend: 'cpu', checkpoints: {}, colorIndex: 0, source: 'trained' };
    const h = render(ChartsPanel, { runs: [meta], runId: 'cur' }, hubWith('cur', [1, 0], [6, 4]));
    expect(h).toMatch(/data-points="0"/);
    expect(h).toMatch(/data-trails="1"/);
    expect(h).toMatch(/data-heads="5\.400:0\.700"/); // 6 + 0.3 (4 - 6), 1 + 0.3 (0 - 1)
  });
});

describe('sweep members on the chart', () => {
  const shown = (id: string): ShownRun => ({ id, name: id, color: '#000', current: false, evals: [], meta: undefined });
  const sweep: SweepRecord = {
    id: 's', preset: 'relay-noisy-dr', axis: 'lambdaTok', base: {}, steps: 10, status: 'running', message: null, createdAt: 0,
    runs: [0.3, 0, 0.1].map((value, i) => ({ label: `lambda_tok=${value}`, value, status: 'running' as const, runId: `m${i}`, accuracy: null, tokens: null, startedAt: 0, finishedAt: null })),
  };
  it('colours members by the rank of their value on one scale, labels them, and leaves other runs alone', () => {
    const out = colorSweepMembers([shown('other'), shown('m0'), shown('m1'), shown('m2')], sweep);
    expect(out[0]).toEqual(shown('other'));
    // values in order 0 (m1), 0.1 (m2), 0.3 (m0): the scale's first, middle and last colours
    expect([out[2].color, out[3].color, out[1].color]).toEqual([valueColor(0, 3), valueColor(1, 3), valueColor(2, 3)]);
    expect(out.slice(1).map((r) => r.valueLabel)).toEqual(['λ=0.3', 'λ=0', 'λ=0.1']);
    expect(valueColor(0, 3)).toBe('rgb(68, 1, 84)');
    expect(valueColor(2, 3)).toBe('rgb(220, 200, 30)');
  });
});
