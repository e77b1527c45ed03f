// The studies' analysis against hand-worked cases: the static frontier read at a dual run's
// tokens, the gap and its verdict, and the plans' runs.
import { describe, expect, it } from 'vitest';
import { dualRows, frontierAccuracyAt, planDualStatic, planPhilosophers, planScouts, summarizeDual, verdict } from '../../src/rl/studies';
import { findPreset, presetConfig } from '../../src/envs/presets';

describe('frontierAccuracyAt', () => {
  const pts = [{ tokens: 1, accuracy: 0.8 }, { tokens: 3, accuracy: 0.96 }, { tokens: 2, accuracy: 0.7 /* dominated */ }, { tokens: 6, accuracy: 1 }];
  it('interpolates between frontier points, ignoring dominated ones', () => {
    expect(frontierAccuracyAt(pts, 2)).toBeCloseTo(0.88, 12); // halfway from (1, 0.8) to (3, 0.96)
    expect(frontierAccuracyAt(pts, 4.5)).toBeCloseTo(0.98, 12); // halfway from (3, 0.96) to (6, 1)
    expect(frontierAccuracyAt(pts, 3)).toBeCloseTo(0.96, 12);
  });
  it('is flat past the last point and unknown below the first', () => {
    expect(frontierAccuracyAt(pts, 9)).toBe(1);
    expect(frontierAccuracyAt(pts, 0.5)).toBeNull();
    expect(frontierAccuracyAt([], 1)).toBeNull();
  });
});

describe('dual vs the static frontier', () => {
  const hist = (tokens: number[], lambda = 0.05) => tokens.map((t, step) => ({ step, tokens: t, lambdaTok: lambda }));
  const statics = [1, 2].flatMap((seed) => [
    { tags: { kind: 'static', lambdaTok: 0.3, seed }, final: { tokens: 1, accuracy: 0.8 }, history: [] },
    { tags: { kind: 'static', lambdaTok: 0.01, seed }, final: { tokens: 3, accuracy: 0.96 }, history: [] },
  ]);
  it('reads each dual run against its own seed\'s frontier', () => {
    const duals = [
      { tags: { kind: 'dual', budget: 2, seed: 1 }, final: { tokens: 2, accuracy: 0.9 }, history: hist([4, 3, 2, 2, 2, 2]) },
      { tags: { kind: 'dual', budget: 2, seed: 2 }, final: { tokens: 2, accuracy: 0.86 }, history: hist([4, 3, 2, 1.5, 1.5, 1.5]) },
    ];
    const rows = dualRows([...statics, ...duals]);
    expect(rows.map((r) => r.gap)).toEqual([expect.closeTo(0.02, 12), expect.closeTo(-0.02, 12)]);
    expect(rows[0].sampledTokens).toBe(2); // last third: steps 4, 5
    expect(rows[1].greedyMinusSampled).toBeCloseTo(0.5, 12);
    expect(rows[1].budgetGap).toBeCloseTo(0.25, 12); // |1.5 - 2| / 2
    const [s] = summarizeDual(rows);
    expect(s.gap.mean).toBeCloseTo(0, 12);
    expect(s.verdict).toBe('on'); // the interval of +0.02 and -0.02 holds 0
  });
  it('verdict: above when the whole interval is above 0, below when under, unknown with one seed', () => {
    expect(verdict({ mean: 0.05, lo: 0.01, hi: 0.09, n: 3 })).toBe('above');
    expect(verdict({ mean: -0.05, lo: -0.09, hi: -0.01, n: 3 })).toBe('below');
    expect(verdict({ mean: 0.05, lo: NaN, hi: NaN, n: 1 })).toBe('unknown');
  });
});

describe('plans', () => {
  it('every planned run is a valid config of its preset, one folder each', () => {
    for (const runs of [planDualStatic([1, 2, 3], [0, 0.1], [1, 2, 3]), planScouts([1, 2, 3, 4], [1, 2]), planPhilosophers([1, 2], 60)]) {
      for (const r of runs) expect(() => presetConfig(findPreset(r.preset), r.overrides as Record<string, unknown>), r.label).not.toThrow();
      expect(new Set(runs.map((r) => r.label)).size).toBe(runs.length);
    }
    expect(planDualStatic([1, 2, 3], [0, 0.1], [1, 2, 3])).toHaveLength(3 * (3 + 2));
  });
});
