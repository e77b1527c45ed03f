// A time series' legend lists only series with data, and with several runs
// names each run once and each series once (not every pair): a run with no
// step yet (the idle "(this run)" beside overlaid runs) is not listed.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { MetricsHub } from '../../src/store/metricsHub';
import type { RunMeta } from '../../src/store/runTypes';
import { ChartsPanel } from '../../src/ui/ChartsPanel';
import { seriesLegend, type ChartLine } from '../../src/ui/TimeSeriesChart';
import { METRIC_NAMES } from '../../src/worker/protocol';
import { render, text } from './render';

const pts = [{ x: 1, y: 0.5 }];
const line = (run: string, series: string, data = pts, dash?: string): ChartLine => ({ key: `${run}-${series}`, label: `${run} · ${series}`, run, series, color: run === 'a' ? '#111' : '#222', dash, data });

describe('the time-series legend', () => {
  it('two runs with two series: the runs once, the series once by dash', () => {
    const legend = seriesLegend([line('a', 'reward'), line('a', 'r_task', pts, '6 3'), line('b', 'reward'), line('b', 'r_task', pts, '6 3'), line('empty', 'reward', []), line('empty', 'r_task', [], '6 3')]);
    expect(legend.map((l) => l.label)).toEqual(['a', 'b', 'reward', 'r_task']);
    expect(legend.map((l) => l.color)).toEqual(['#111', '#222', '#666', '#666']);
    expect(legend[3].dash).toBe('6 3');
  });
  it('one run: its series with data, by their own labels; none at all: an empty legend', () => {
    const one: ChartLine[] = [{ key: 'r', label: 'reward', color: '#1', data: pts }, { key: 't', label: 'r_task', color: '#2', data: [] }];
    expect(seriesLegend(one).map((l) => l.label)).toEqual(['reward']);
    expect(seriesLegend([{ ...one[0], data: [] }])).toEqual([]);
  });

  it('on the page: the idle current run beside two overlaid runs is not in any time-series legend', () => {
    const C = METRIC_NAMES.length, hub = new MetricsHub();
    const config = presetConfig(findPreset('relay-silence'));
    const meta = (id: string, name: string, colorIndex: number): RunMeta => ({ id, name, preset: 'relay-silence', config, createdAt: 0, updatedAt: 0, status: 'finished', steps: 2,
      evals: [], bestEval: null, flags: [], warmStart: null, backend: 'cpu', checkpoints: {}, colorIndex, source: 'trained' });
    for (const id of ['o1', 'o2']) hub.append(id, new Float64Array(2 * C).map((_, k) => (METRIC_NAMES[k % C] === 'step' ? Math.floor(k / C) : 0.5)), 2);
    const h = render(ChartsPanel, { runs: [meta('o1', 'first run', 0), meta('o2', 'second run', 1)], overlay: ['o1', 'o2'], runId: 'idle', preset: 'relay-silence' }, hub);
    const reward = /aria-label="Reward"[\s\S]*?<ul class="legend">([\s\S]*?)<\/ul>/.exec(h)![1];
    expect(text(reward)).toBe('first run second run reward r_task');
    expect(text(h)).not.toMatch(/\(this run\) ·/);
  });
});
