// Finite-difference helpers (float64) for checking backward passes.
import { expect } from 'vitest';
import { mulberry32 } from '../../src/model/random';

export function randn(n: number, seed: number, scale = 1): Float64Array {
  const r = mulberry32(seed), out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (r() * 2 - 1) * scale * 1.7;
  return out;
}

export function randInts(n: number, max: number, seed: number): Int32Array {
  const r = mulberry32(seed), out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * max);
  return out;
}

/** sum(out * w): a scalar whose gradient w.r.t. out is w. */
export function dot(a: ArrayLike<number>, w: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * w[i];
  return s;
}

/**
 * Central differences of loss() with respect to every entry of x, compared to analytic.
 * Relative to the gradient's scale, so tiny and large gradients are judged alike.
 */
export function expectGradMatches(name: string, x: Float64Array, analytic: ArrayLike<number>, loss: () => number, h = 1e-6, tol = 1e-6): void {
  let maxAbs = 0;
  for (let i = 0; i < x.length; i++) maxAbs = Math.max(maxAbs, Math.abs(analytic[i]));
  const scale = Math.max(1e-3, maxAbs);
  let worst = 0, worstAt = -1;
  for (let i = 0; i < x.length; i++) {
    const old = x[i];
    x[i] = old + h; const lp = loss();
    x[i] = old - h; const lm = loss();
    x[i] = old;
    const num = (lp - lm) / (2 * h);
    const err = Math.abs(num - analytic[i]) / scale;
    if (err > worst) { worst = err; worstAt = i; }
  }
  expect(worst, `${name}: worst relative error ${worst.toExponential(2)} at ${worstAt}`).toBeLessThan(tol);
}
