// Decimation: at most `max` points per series, first and last kept, extremes kept.
import { describe, expect, it } from 'vitest';
import { decimateIndices, decimateXY, MAX_POINTS } from '../../src/store/decimate';
import { mulberry32 } from '../../src/model/random';

describe('decimation', () => {
  it('keeps every point when there are at most max (and skips non-finite ones)', () => {
    expect(decimateIndices([3, 1, 2], 10)).toEqual([0, 1, 2]);
    expect(decimateIndices([3, NaN, 2, Infinity], 10)).toEqual([0, 2]);
    expect(decimateIndices([], 10)).toEqual([]);
  });

  it('draws at most max points of a long noisy series, increasing, with first, last, global min and max', () => {
    const rand = mulberry32(7);
    for (const n of [2001, 5000, 100_003]) {
      const ys = Array.from({ length: n }, (_, i) => Math.sin(i / 50) + rand() * 0.1);
      const idx = decimateIndices(ys, MAX_POINTS);
      expect(idx.length).toBeLessThanOrEqual(MAX_POINTS);
      expect(idx.length).toBeGreaterThan(MAX_POINTS * 0.9);
      expect(idx[0]).toBe(0);
      expect(idx[idx.length - 1]).toBe(n - 1);
      for (let i = 1; i < idx.length; i++) expect(idx[i]).toBeGreaterThan(idx[i - 1]);
      const sel = idx.map((i) => ys[i]);
      expect(Math.max(...sel)).toBe(Math.max(...ys));
      expect(Math.min(...sel)).toBe(Math.min(...ys));
    }
  });

  it('keeps a one-step spike that an average would hide', () => {
    const ys = new Array(50_000).fill(1);
    ys[31_337] = 100;
    ys[12_345] = -50;
    const idx = decimateIndices(ys, 100);
    expect(idx).toContain(31_337);
    expect(idx).toContain(12_345);
    expect(idx.length).toBeLessThanOrEqual(100);
  });

  it('decimateXY pairs xs with ys and rejects mismatched lengths and tiny limits', () => {
    const xs = Array.from({ length: 10_000 }, (_, i) => i * 2), ys = xs.map((x) => x % 7);
    const pts = decimateXY(xs, ys, 500);
    expect(pts.length).toBeLessThanOrEqual(500);
    for (const p of pts) expect(p.y).toBe(p.x % 7);
    expect(() => decimateXY([1, 2], [1], 10)).toThrow(/2 xs but 1 ys/);
    expect(() => decimateIndices([1], 3)).toThrow(/max must be an integer >= 4/);
  });
});
