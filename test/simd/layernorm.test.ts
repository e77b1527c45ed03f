// Twin tests of the wasm LayerNorm (shaders/simd/layernorm.ts) against the reference, forward and
// backward (accumulating, all-zero rows of dout skipped), alone and with members.
import { describe, expect, it } from 'vitest';
import { membersOf } from '../../src/backend';
import { randn, twin } from './twin';

const TOL = { rtol: 2e-5, atol: 2e-5 };

/** dout with every third row all zero (masked positions). */
function masked(N: number, C: number, seed: number): Float32Array {
  const d = randn(N * C, seed);
  for (let n = 0; n < N; n += 3) d.fill(0, n * C, (n + 1) * C);
  return d;
}

describe('wasm layernorm vs reference', () => {
  for (const [N, C] of [[1, 1], [3, 5], [7, 64], [17, 37], [64, 130]]) {
    it(`N ${N} C ${C}: forward (out, mean, rstd) and backward (dinp, dw, db)`, async () => {
      const fwd = { out: randn(N * C, 1), mean: randn(N, 2), rstd: randn(N, 3), inp: randn(N * C, 4, 3), w: randn(C, 5), b: randn(C, 6) };
      // an offset row: the variance must not be taken about 0
      fwd.inp.fill(100, 0, Math.min(C, fwd.inp.length));
      fwd.inp[0] = 101;
      await twin(fwd, (b, t) => b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.w, t.b, N, C), ['out', 'mean', 'rstd'], TOL);
      const bwd = { ...fwd, dinp: randn(N * C, 7), dw: randn(C, 8), db: randn(C, 9), dout: masked(N, C, 10) };
      const { got } = await twin(bwd, (b, t) => {
        b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.w, t.b, N, C);
        b.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, t.mean, t.rstd, N, C);
      }, ['dinp', 'dw', 'db'], TOL);
      for (let c = 0; c < C; c++) expect(got.dinp[c]).toBe(bwd.dinp[c]); // row 0 is masked: untouched
    });
  }
  for (const stride of [undefined, 200]) {
    it(`members K 3 (an empty one), ${stride ? `paramStride ${stride}` : 'packed'}`, async () => {
      const N = 9, C = 13, K = 3, len = stride ? (K - 1) * stride + C : K * C;
      const rowStart = Int32Array.from([0, 4, 4, 9]);
      const ms = (b: Parameters<Parameters<typeof twin>[1]>[0]) => { const t = b.alloc(4, 'i32'); b.write(t, rowStart); return membersOf(t, rowStart, stride); };
      const inputs = { out: randn(N * C, 1), mean: randn(N, 2), rstd: randn(N, 3), inp: randn(N * C, 4, 3), w: randn(len, 5), b: randn(len, 6),
        dinp: randn(N * C, 7), dw: randn(len, 8), db: randn(len, 9), dout: masked(N, C, 10) };
      await twin(inputs, (b, t) => {
        const m = ms(b);
        b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.w, t.b, N, C, m);
        b.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, t.mean, t.rstd, N, C, m);
      }, ['out', 'mean', 'rstd', 'dinp', 'dw', 'db'], TOL);
    });
  }
});
