// The per-kernel GPU timer (src/gpu/profiler.ts) and the host's wait counter: with a profiler attached every
// dispatch is counted under its kernel and phase, and the results are those of the unprofiled runtime.
import { afterAll, describe, expect, it } from 'vitest';
import { createNodeBackend } from '../../src/gpu/node';
import type { WebGpuBackend } from '../../src/gpu/webgpuBackend';
import { noGpu } from './device';
import { Rng } from './random';

let profiled: WebGpuBackend | null = null;
afterAll(() => profiled?.destroy());

/** out[n, o] = sum_i inp[n, i] W[o, i] + bias[o], in float64 (the Linear's layout: weight [OC, IC]). */
function linear(inp: Float32Array, w: Float32Array, bias: Float32Array, N: number, IC: number, OC: number): number[] {
  const out: number[] = [];
  for (let n = 0; n < N; n++) for (let o = 0; o < OC; o++) {
    let acc = bias[o];
    for (let i = 0; i < IC; i++) acc += inp[n * IC + i] * w[o * IC + i];
    out.push(acc);
  }
  return out;
}

describe.skipIf(noGpu)('GPU profiler (timestamp queries)', () => {
  it('counts each dispatch under its kernel and phase, and leaves the results as they were', async () => {
    const { backend, reason } = await createNodeBackend({ prepare: 'lazy', limits: 'default', profile: true });
    if (!backend) throw new Error(`no profiled backend: ${reason}`); // the adapter has 'timestamp-query' (SwiftShader does)
    profiled = backend;
    const b = backend, prof = b.profiler!;
    const rng = new Rng(5), N = 7, IC = 16, OC = 12;
    const data = (n: number) => rng.normal(n);
    const x = data(N * IC), w = data(OC * IC), bias = data(OC);
    const [tx, tw, tb, out1, out2] = [b.alloc(N * IC), b.alloc(OC * IC), b.alloc(OC), b.alloc(N * OC), b.alloc(N * OC)];
    b.write(tx, x); b.write(tw, w); b.write(tb, bias);
    const before = { ...b.counters };
    prof.phase = 'first';
    b.matmulForward(out1, tx, tw, tb, N, IC, OC);
    b.submit();
    prof.phase = 'second';
    b.matmulForward(out2, tx, tw, tb, N, IC, OC);
    b.zero(out1); // a clear: a dispatch of the zero kernel, counted apart by the counters but timed like any other
    const got = await b.read(out2);
    const dispatched = b.counters.dispatches - before.dispatches + b.counters.clears - before.clears;
    const times = await prof.times();
    expect(times.reduce((a, t) => a + t.calls, 0)).toBe(dispatched);
    const first = times.filter((t) => t.phase === 'first'), second = times.filter((t) => t.phase === 'second');
    expect(first.reduce((a, t) => a + t.calls, 0)).toBe((dispatched - 1) / 2); // the same product in each phase, the clear after
    expect(first.map((t) => t.name).every((n) => /^matmul:/.test(n)), JSON.stringify(first)).toBe(true);
    expect(second.some((t) => /^residual:zero/.test(t.name)), JSON.stringify(second)).toBe(true);
    for (const t of times) expect(Number.isFinite(t.ms) && t.ms >= 0, JSON.stringify(t)).toBe(true);
    const want = linear(x, w, bias, N, IC, OC);
    Array.from(got).forEach((g, i) => expect(Math.abs(g - want[i]), `out[${i}]`).toBeLessThan(1e-4 * (1 + Math.abs(want[i]))));
    expect(Array.from(await b.read(out1))).toEqual(new Array(N * OC).fill(0));
    expect(await prof.times(true)).not.toHaveLength(0);
    expect(await prof.times()).toHaveLength(0); // reset
  });

  it('waitMs counts overlapping reads once: it grows by no more than the wall time they took together', async () => {
    const b = profiled!;
    const t = b.alloc(1 << 16);
    b.write(t, new Float32Array(1 << 16).fill(1));
    const w0 = b.counters.waitMs, t0 = performance.now();
    await Promise.all([b.read(t), b.read(t), b.read(t), b.read(t)]);
    const wall = performance.now() - t0, waited = b.counters.waitMs - w0;
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBeLessThanOrEqual(wall + 1e-6);
  });
});
