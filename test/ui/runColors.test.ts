// One colour per run: the runs table's swatches and the chart's legend and
// trails take it from one function (palette.ts runColors), so a population
// member is the same colour in both, and no two runs share a colour.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { MetricsHub } from '../../src/store/metricsHub';
import type { RunMeta } from '../../src/store/runTypes';
import { ChartsPanel } from '../../src/ui/ChartsPanel';
import { runColors } from '../../src/ui/palette';
import { RunsTable } from '../../src/ui/RunsTable';
import { render } from './render';

const config = presetConfig(findPreset('relay-noisy-quick'));
const ev = { step: 0, accuracy: 0.5, tokens: 3, turns: 1, lambdaTok: 0, reward: 0 };
function run(id: string, name: string, colorIndex: number, value?: number): RunMeta {
  return {
    id, name, preset: 'relay-noisy-quick', config, createdAt: 0, updatedAt: 0, status: 'finished', steps: 2, evals: [ev], bestEval: null, flags: [],
    warmStart: null, backend: 'cpu', checkpoints: {}, colorIndex, source: 'trained', ...(value !== undefined ? { member: { sweep: 's1', axis: 'lambdaTok' as const, value } } : {}),
  };
}
// four members made at one moment (so one colour index), and two runs that also share an index
const members = [0, 0.03, 0.1, 0.3].map((v, i) => run(`m${i}`, `member lambda_tok=${v}`, 4, v));
const plain = [run('p0', 'plain one', 2), run('p1', 'plain two', 2)];
const runs = [...members, ...plain];

// the viridis-like scale's stops (palette.ts): the lowest of four values is the first stop, the highest the last
const FIRST = 'rgb(68, 1, 84)', LAST = 'rgb(220, 200, 30)';

const swatches = (html: string) => Object.fromEntries([...html.matchAll(/<span class="swatch" style="background:([^"]+)"><\/span> ([^<]+)/g)].map((m) => [m[2].trim(), m[1]]));
const legend = (html: string) => Object.fromEntries([...html.matchAll(/<li data-run-id="[^"]+" class="hoverable"><span class="key (?:dot|line)?" style="(?:background|border-top):(?:2px solid )?([^"]+)"><\/span>([^<]+)<\/li>/g)].map((m) => [m[2].trim(), m[1]]));

describe('one colour per run', () => {
  it('members by value rank within their sweep, other runs a categorical colour each, even when their indices collide', () => {
    const c = runColors(runs, null);
    expect(c.get('m0')).toBe(FIRST);
    expect(c.get('m3')).toBe(LAST);
    expect(new Set(runs.map((r) => c.get(r.id))).size).toBe(runs.length);
    // p0 keeps index 2's colour (green), p1 takes the next free one (purple)
    expect([c.get('p0'), c.get('p1')]).toEqual(['#2ca02c', '#9467bd']);
  });

  it('the runs table and the chart legend show each run in the same colour', () => {
    const state = { runs, overlay: runs.map((r) => r.id) };
    const table = swatches(render(RunsTable, state));
    const chart = legend(render(ChartsPanel, state, new MetricsHub()));
    expect(table['member lambda_tok=0.3']).toBe(LAST);
    expect(table['member lambda_tok=0']).toBe(FIRST);
    expect(Object.keys(chart).sort()).toEqual(runs.map((r) => r.name).sort());
    for (const r of runs) expect(table[r.name], r.name).toBe(chart[r.name]);
    expect(new Set(Object.values(table)).size).toBe(runs.length);
  });
});
