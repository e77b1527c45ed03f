// The performance fixes, each against its CPU twin or an exact expectation: clears recorded as a
// dispatch in the open compute pass (not clearBuffer, which ends it), the layernorm parameter
// gradient's chunks capped (stage two adds a column's chunks one after another), and the token
// embedding's gradient through a counting sort of the rows by token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PARAM_CHUNKS, paramsLayout } from '../../src/gpu/kernels/layernorm';
import { forceRowMode } from '../../src/gpu/kernels/rows';
import type { KernelContext } from '../../src/gpu/runtime';
import { noGpu, theGpu } from './device';
import { layernormParity, parity } from './parity';
import { Rng } from './random';

describe('layernorm parameter-gradient chunks', () => {
  const gpuContext = { cpuAdapter: false } as KernelContext;
  beforeAll(() => forceRowMode(null));
  it('at most MAX_PARAM_CHUNKS chunks covering every row, for any row count (lanes layout)', () => {
    expect(MAX_PARAM_CHUNKS).toBe(256);
    for (const [N, C] of [[131072, 64], [131072, 256], [9000, 64], [100, 19], [1, 1], [8193, 3]]) {
      const { chunk, chunks } = paramsLayout(gpuContext, N, C);
      expect(chunks).toBeLessThanOrEqual(256);
      expect(chunk * chunks).toBeGreaterThanOrEqual(N);
      expect(chunk * (chunks - 1)).toBeLessThan(N); // no empty chunk
    }
    // 131,072 rows at C = 64: 4 row lanes x 8 rows = 32-row chunks would be 4,096 of them
    expect(paramsLayout(gpuContext, 131072, 64).chunks).toBe(256);
  });
});

describe.skipIf(noGpu)('WebGPU performance fixes vs CPU reference', () => {
  afterAll(() => forceRowMode(null));

  it('layernorm backward in the lanes layout where the chunk cap applies (9000 rows, C = 64: 250 chunks of 36 rows)', async () => {
    forceRowMode('lanes');
    const [N, C] = [9000, 64];
    const r = new Rng(91);
    await layernormParity(theGpu(), N, C, r, ['dweight', 'dbias'], { rtol: 1e-4, atol: 2e-5 * Math.sqrt(N) });
    forceRowMode(null);
  });

  it('embedding backward through the sort (one workgroup, 256 chunks): chunks of many rows, of one, empty; skewed, uniform and out-of-range tokens', async () => {
    for (const [B, T, C, V, skew] of [[500, 5, 19, 7, 0], [3, 700, 8, 130, 1], [1, 1, 3, 2, 0], [7, 37, 5, 300, 2]]) {
      const N = B * T;
      const r = new Rng(N + C + V);
      const tokens = r.ints(N, 0, V);
      if (skew === 1) for (let n = 0; n < N; n += 2) tokens[n] = 3; // half the rows on one token: a long row list
      if (skew === 2) for (let n = 0; n < N; n += 5) tokens[n] = n % 2 ? -1 : V; // in no row list (as the reference)
      await parity(theGpu(), {
        tokens, wte: r.normal(V * C), wpe: r.normal(T * C), dout: r.normal(N * C), dwte: r.normal(V * C), dwpe: r.normal(T * C),
      }, (b, t) => b.embeddingBackward(t.dwte, t.dwpe, t.dout, t.tokens, N, T, C, V), ['dwte', 'dwpe'],
      { rtol: 1e-4, atol: 2e-5 * Math.sqrt(N) });
    }
  });

  it('a clear between dispatches stays in one compute pass and zeroes exactly its range', async () => {
    const gpu = theGpu();
    const n = 1000;
    const r = new Rng(3);
    const a = r.normal(n), b = r.normal(n);
    const ta = gpu.alloc(n), tb = gpu.alloc(n), out = gpu.alloc(n), ti = gpu.alloc(300, 'i32');
    gpu.write(ta, a);
    gpu.write(tb, b);
    gpu.write(ti, Int32Array.from({ length: 300 }, (_, i) => i + 1));
    await gpu.sync();
    const passes = gpu.counters.passes;
    gpu.residualForward(out, ta, tb, n);
    gpu.zero(gpu.view(out, 128, 320)); // out[128, 448): an aligned view inside the tensor
    gpu.zero(gpu.view(ti, 64, 100)); // an i32 tensor's range
    gpu.accumulate(ta, out, n);
    gpu.submit();
    expect(gpu.counters.passes - passes).toBe(1);
    const got = await gpu.read(out), gotA = await gpu.read(ta), gotI = await gpu.read(ti);
    for (let i = 0; i < n; i++) {
      const want = i >= 128 && i < 448 ? 0 : Math.fround(a[i] + b[i]);
      expect(got[i]).toBe(want);
      expect(gotA[i]).toBe(Math.fround(a[i] + want));
    }
    for (let i = 0; i < 300; i++) expect(gotI[i]).toBe(i >= 64 && i < 164 ? 0 : i + 1);
    expect(gpu.takeErrors()).toEqual([]);
    for (const t of [ta, tb, out, ti]) gpu.free(t);
  });

  it('a reused pool buffer comes back zeroed (the clear at allocation is a dispatch too)', async () => {
    const gpu = theGpu();
    const t = gpu.alloc(777);
    gpu.write(t, new Float32Array(777).fill(5));
    await gpu.sync();
    gpu.free(t);
    const again = gpu.alloc(700); // the same size class: the buffer above, reused
    const got = await gpu.read(again);
    expect(got.every((x) => x === 0)).toBe(true);
    gpu.free(again);
  });
});
