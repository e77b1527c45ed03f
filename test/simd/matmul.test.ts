// Twin tests of the wasm matmul family (shaders/simd/matmul.ts) against the reference
// (src/reference/gemm.ts via CpuBackend), on odd and round shapes, with and without members.
import { describe, expect, it } from 'vitest';
import { membersOf, type Backend, type Members } from '../../src/backend';
import { randn, twin, wasm, type Tolerance } from './twin';

// f32 sums (wasm) against double sums (reference): the error grows with the length of the sum
const tolFor = (K: number): Tolerance => ({ rtol: 1e-5, atol: 2e-7 * K + 1e-6 });

// [N, IC, OC]: sizes that are not multiples of 2, 4, 8 or 32 exercise every tail of the kernels
const SHAPES: [number, number, number][] = [[1, 1, 1], [2, 3, 5], [3, 4, 4], [7, 13, 9], [5, 64, 33], [17, 33, 35], [6, 37, 130], [64, 64, 256], [33, 256, 64]];

/** dout with some rows all zero (masked positions: the backward skips them) and a -0 row. */
function doutWithZeroRows(N: number, OC: number, seed: number): Float32Array {
  const d = randn(N * OC, seed);
  for (let n = 0; n < N; n += 3) d.fill(0, n * OC, (n + 1) * OC);
  if (N > 2) d.fill(-0, OC, 2 * OC);
  return d;
}

/** Members over N rows: K = 3 with an empty member in the middle when N allows. */
function membersFor(b: Backend, N: number, stride?: number): Members {
  const a = Math.floor(N / 2);
  const host = Int32Array.from([0, a, a, N]);
  const t = b.alloc(4, 'i32');
  b.write(t, host);
  return membersOf(t, host, stride);
}

describe('wasm matmul forward vs reference', () => {
  for (const [N, IC, OC] of SHAPES) {
    const inputs = () => ({ out: randn(N * OC, 1), pre: randn(N * OC, 2), inp: randn(N * IC, 3), w: randn(OC * IC, 4, 0.5), bias: randn(OC, 5),
      res: randn(N * OC, 6) });
    it(`${N}x${IC}x${OC}: plain, no bias, residual, gelu`, async () => {
      const tol = tolFor(IC);
      await twin(inputs(), (b, t) => b.matmulForward(t.out, t.inp, t.w, t.bias, N, IC, OC), ['out'], tol);
      await twin(inputs(), (b, t) => b.matmulForward(t.out, t.inp, t.w, null, N, IC, OC), ['out'], tol);
      await twin(inputs(), (b, t) => b.matmulResidualForward(t.out, t.inp, t.w, t.bias, t.res, N, IC, OC), ['out'], tol);
      await twin(inputs(), (b, t) => b.matmulGeluForward(t.pre, t.out, t.inp, t.w, t.bias, N, IC, OC), ['pre', 'out'], tol);
    });
  }
});

describe('wasm matmul backward vs reference (accumulating, masked rows skipped)', () => {
  for (const [N, IC, OC] of SHAPES) {
    it(`${N}x${IC}x${OC}: dinp, dweight, dbias`, async () => {
      const inputs = { dinp: randn(N * IC, 7), dw: randn(OC * IC, 8), db: randn(OC, 9), dout: doutWithZeroRows(N, OC, 10), inp: randn(N * IC, 11),
        w: randn(OC * IC, 12) };
      // dinp sums over OC, dweight over N rows, dbias over N
      const tol = tolFor(Math.max(N, OC));
      const { got } = await twin(inputs, (b, t) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC), ['dinp', 'dw', 'db'], tol);
      // a masked (all-zero) row of dout leaves its dinp row exactly as it was
      for (let i = 0; i < IC; i++) expect(got.dinp[i]).toBe(inputs.dinp[i]);
      await twin(inputs, (b, t) => b.matmulBackward(t.dinp, t.dw, null, t.dout, t.inp, t.w, N, IC, OC), ['dinp', 'dw', 'db'], tol);
    });
  }
  it('all rows masked: nothing changes', async () => {
    const [N, IC, OC] = [4, 5, 6];
    const inputs = { dinp: randn(N * IC, 1), dw: randn(OC * IC, 2), db: randn(OC, 3), dout: new Float32Array(N * OC), inp: randn(N * IC, 4), w: randn(OC * IC, 5) };
    const { got } = await twin(inputs, (b, t) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC), ['dinp', 'dw', 'db'], tolFor(8));
    expect(Array.from(got.dw)).toEqual(Array.from(inputs.dw));
  });
});

describe('wasm matmul with members (stacked population) vs reference', () => {
  const K = 3;
  for (const [N, IC, OC] of [[7, 13, 9], [9, 64, 36], [2, 5, 3]] as [number, number, number][]) {
    for (const stride of [undefined, OC * IC + 70]) {
      it(`${N}x${IC}x${OC}, K ${K}, ${stride ? `paramStride ${stride}` : 'packed'}`, async () => {
        const wLen = stride ? (K - 1) * stride + OC * IC : K * OC * IC, bLen = stride ? (K - 1) * stride + OC : K * OC;
        const tol = tolFor(Math.max(N, IC, OC));
        const fwd = { out: randn(N * OC, 1), pre: randn(N * OC, 2), inp: randn(N * IC, 3), w: randn(wLen, 4, 0.5), bias: randn(bLen, 5), res: randn(N * OC, 6) };
        await twin(fwd, (b, t) => b.matmulForward(t.out, t.inp, t.w, t.bias, N, IC, OC, membersFor(b, N, stride)), ['out'], tol);
        await twin(fwd, (b, t) => b.matmulResidualForward(t.out, t.inp, t.w, t.bias, t.res, N, IC, OC, membersFor(b, N, stride)), ['out'], tol);
        await twin(fwd, (b, t) => b.matmulGeluForward(t.pre, t.out, t.inp, t.w, t.bias, N, IC, OC, membersFor(b, N, stride)), ['pre', 'out'], tol);
        const bwd = { dinp: randn(N * IC, 7), dw: randn(wLen, 8), db: randn(bLen, 9), dout: doutWithZeroRows(N, OC, 10), inp: randn(N * IC, 11), w: randn(wLen, 12) };
        await twin(bwd, (b, t) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC, membersFor(b, N, stride)), ['dinp', 'dw', 'db'], tol);
      });
    }
  }
});

describe('wasm matmul: bad input gets a clear message', () => {
  it('a tensor too small for the op is refused before any kernel runs', () => {
    const out = wasm.alloc(10), inp = wasm.alloc(12), w = wasm.alloc(12);
    expect(() => wasm.matmulForward(out, inp, w, null, 4, 3, 4)).toThrow(/out holds 10 elements, the op needs 16/);
    expect(() => wasm.matmulForward(out, inp, wasm.alloc(3, 'i32'), null, 2, 3, 4)).toThrow(/expected a float tensor/);
  });
});
