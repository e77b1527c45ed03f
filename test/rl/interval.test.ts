import { describe, expect, it } from 'vitest';
import { comparisonRow, meanCI95, overlaps, t95, wilson95 } from '../../src/rl/interval';

describe('wilson95 against published values', () => {
  // 4-decimal values from textbooks and Newcombe (1998), Stat Med 17:857, method 3 (Wilson, no continuity correction)
  const cases: [number, number, number, number][] = [
    [50, 100, 0.4038, 0.5962],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ];
  for (const [s, n, lo, hi] of cases) {
    it(`${s}/${n} -> [${lo}, ${hi}]`, () => {
      const ci = wilson95(s, n);
      expect(ci.lo).toBeCloseTo(lo, 4);
      expect(ci.hi).toBeCloseTo(hi, 4);
    });
  }

  it('stays inside [0, 1] at the extremes and is [0, 1] with no data', () => {
    expect(wilson95(0, 10).lo).toBe(0);
    expect(wilson95(10, 10).hi).toBe(1);
    expect(wilson95(0, 0)).toEqual({ lo: 0, hi: 1 });
  });

  it('narrows like 1/sqrt(n): 500/1000 is about half as wide as 125/250', () => {
    const w = (ci: { lo: number; hi: number }) => ci.hi - ci.lo;
    expect(w(wilson95(500, 1000)) / w(wilson95(125, 250))).toBeCloseTo(0.5, 2);
  });

  it('rejects impossible counts', () => {
    expect(() => wilson95(11, 10)).toThrow();
    expect(() => wilson95(-1, 10)).toThrow();
  });
});

describe('meanCI95 by hand (Student t)', () => {
  it('[1, 2, 3, 4]: mean 2.5, s^2 = 5/3, half width t(0.975, 3) = 3.182 x sqrt(5/3) / 2', () => {
    const ci = meanCI95([1, 2, 3, 4]);
    const half = (3.182 * Math.sqrt(5 / 3)) / 2; // 2.053963
    expect(ci.mean).toBe(2.5);
    expect(ci.lo).toBeCloseTo(2.5 - half, 10);
    expect(ci.hi).toBeCloseTo(2.5 + half, 10);
    expect(ci.lo).toBeCloseTo(0.44603, 5);
  });

  it('[0, 1, 1, 1, 0]: mean 0.6, s^2 = 0.3 (n - 1), half t(0.975, 4) = 2.776 x sqrt(0.3 / 5)', () => {
    const ci = meanCI95([0, 1, 1, 1, 0]);
    expect(ci.mean).toBeCloseTo(0.6, 12);
    expect(ci.hi - ci.mean).toBeCloseTo(2.776 * Math.sqrt(0.3 / 5), 10);
  });

  it('three seeds: t(0.975, 2) = 4.303, 2.2x the normal quantile', () => {
    const ci = meanCI95([1, 2, 3]); // s = 1
    expect(ci.hi - ci.mean).toBeCloseTo(4.303 / Math.sqrt(3), 10);
    expect(t95(2) / 1.959964).toBeGreaterThan(2.19);
    expect(t95(1000)).toBeCloseTo(1.959964, 6);
    expect(() => t95(0)).toThrow(/df/);
  });

  it('zero width for constant values; undefined below two values', () => {
    expect(meanCI95([3, 3, 3])).toEqual({ mean: 3, lo: 3, hi: 3 });
    expect(Number.isNaN(meanCI95([3]).lo)).toBe(true);
    expect(Number.isNaN(meanCI95([]).mean)).toBe(true);
  });
});

describe('overlaps', () => {
  it('disjoint, nested, touching, and symmetric', () => {
    expect(overlaps({ lo: 0.1, hi: 0.2 }, { lo: 0.3, hi: 0.4 })).toBe(false);
    expect(overlaps({ lo: 0.3, hi: 0.4 }, { lo: 0.1, hi: 0.2 })).toBe(false);
    expect(overlaps({ lo: 0.1, hi: 0.5 }, { lo: 0.2, hi: 0.3 })).toBe(true);
    expect(overlaps({ lo: 0.1, hi: 0.3 }, { lo: 0.3, hi: 0.4 })).toBe(true);
  });
});

describe('comparisonRow', () => {
  it('binary rTask: accuracy, Wilson interval, mean tokens, extras passed through', () => {
    const scores = Array.from({ length: 100 }, (_, i) => ({ rTask: i < 50 ? 1 : 0 }));
    const tokens = Array.from({ length: 100 }, (_, i) => (i % 4 === 0 ? 2 : 0)); // 25 episodes x 2 tokens
    const row = comparisonRow('actor alone', scores, tokens, { okWhenRight: 0.9 });
    expect(row.name).toBe('actor alone');
    expect(row.n).toBe(100);
    expect(row.accuracy).toBe(0.5);
    expect(row.lo).toBeCloseTo(0.4038, 4);
    expect(row.hi).toBeCloseTo(0.5962, 4);
    expect(row.tokens).toBe(0.5);
    expect(row.extras).toEqual({ okWhenRight: 0.9 });
  });

  it('non-binary rTask falls back to the t interval of the mean', () => {
    const row = comparisonRow('x', [1, 2, 3, 4].map((rTask) => ({ rTask: rTask / 4 })), [0, 0, 0, 0]);
    const half = (3.182 * Math.sqrt(5 / 3)) / 2 / 4;
    expect(row.accuracy).toBeCloseTo(0.625, 12);
    expect(row.lo).toBeCloseTo(0.625 - half, 10);
    expect(row.hi).toBeCloseTo(0.625 + half, 10);
  });

  it('rejects token counts that do not match the episodes', () => {
    expect(() => comparisonRow('x', [{ rTask: 1 }], [1, 2])).toThrow();
  });
});
