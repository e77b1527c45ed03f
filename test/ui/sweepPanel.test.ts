// The Sweep panel before it starts: a time estimate from this run's step times
// (by hand), and a pointer to the noisy presets when the clean relay would show a cliff.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import type { SweepRecord } from '../../src/store/sweepSlice';
import { SweepPanel, sweepEstimate } from '../../src/ui/SweepPanel';
import { render, text } from './render';

describe('the sweep estimate', () => {
  it('is the median recent step time x steps x members per core', () => {
    // median 200 ms, 100 steps, 5 members on 2 cores: 200 * 100 * 2.5 / 1000 = 50 s
    expect(sweepEstimate([300, 100, 200], 100, 5, 2)).toBe(50);
    // fewer members than cores: one run's time
    expect(sweepEstimate([200], 100, 2, 4)).toBe(20);
    expect(sweepEstimate([], 100, 5, 2)).toBeNull();
    expect(sweepEstimate([NaN, 0], 100, 5, 2)).toBeNull();
  });
  it('the panel asks for a step before it can estimate, and points the clean relay to the noisy presets', () => {
    const clean = text(render(SweepPanel, { preset: 'relay-silence', config: presetConfig(findPreset('relay-silence')) }));
    expect(clean).toMatch(/5 runs of \d+ steps side by side on 2 cores; take a step of this run for a time estimate/);
    expect(clean).toMatch(/the frontier is a cliff.*relay-noisy-dr/);
    const noisy = text(render(SweepPanel, { preset: 'relay-noisy-dr', config: presetConfig(findPreset('relay-noisy-dr')) }));
    expect(noisy).not.toMatch(/cliff/);
  });
});

describe('a finished sweep and the preset on screen', () => {
  const done: SweepRecord = {
    id: 's1', preset: 'relay-noisy-quick', axis: 'lambdaTok', base: {}, steps: 40, status: 'done', message: null, createdAt: 0,
    runs: [0, 0.03, 0.1, 0.3].map((value, i) => ({ label: `lambda_tok=${value}`, value, status: 'done' as const, runId: `m${i}`, accuracy: 0.9, tokens: 2, startedAt: 0, finishedAt: 1 })),
  };
  const panel = (preset: string) => text(render(SweepPanel, { sweep: done, preset, config: presetConfig(findPreset(preset)) }));
  it('is shown with its preset', () => {
    expect(panel('relay-noisy-quick')).toMatch(/Sweep done: 4 runs of relay-noisy-quick\./);
  });
  it('under another preset is named as that preset\'s, not shown beside the new estimate', () => {
    const t = panel('relay-silence');
    expect(t).not.toMatch(/Sweep done/);
    expect(t).not.toMatch(/Same values on/);
    expect(t).toMatch(/The last sweep \(4 runs of relay-noisy-quick, done\) belongs to the preset relay-noisy-quick/);
    expect(t).toMatch(/5 runs of \d+ steps side by side/); // the new preset's estimate stays
  });
});
