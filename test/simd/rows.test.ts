// Twin tests of the wasm log-softmax heads, AdamW and the residual add (shaders/simd/logsoftmax.ts,
// optim.ts) against the reference: odd vocabularies, rows with no target, temperatures, members.
import { describe, expect, it } from 'vitest';
import type { Tensor } from '../../src/backend';
import { randn, twin, wasm } from './twin';

const TOL = { rtol: 1e-5, atol: 1e-6 };

function targetsFor(N: number, V: number): Int32Array {
  return Int32Array.from({ length: N }, (_, n) => (n % 4 === 1 ? -1 : (n * 7) % V));
}

describe('wasm log-softmax heads vs reference', () => {
  for (const [N, V] of [[1, 1], [5, 3], [9, 32], [13, 37]]) {
    for (const tau of [1, 0.7]) {
      it(`N ${N} V ${V} temperature ${tau}: logprob forward and backward`, async () => {
        const logits = randn(N * V, 1, 4), tg = targetsFor(N, V), dlogp = randn(N, 2);
        if (N > 2) dlogp[2] = 0; // a row whose gradient is 0: skipped
        await twin({ logp: randn(N, 3), ent: randn(N, 4), logits, tg }, (b, t) => b.logprobForward(t.logp, t.ent, t.logits, t.tg, N, V, tau), ['logp', 'ent'], TOL);
        await twin({ dlogits: randn(N * V, 5), dlogp, logits, tg }, (b, t) => b.logprobBackward(t.dlogits, t.dlogp, t.logits, t.tg, N, V, tau), ['dlogits'], TOL);
      });
    }
    it(`N ${N} V ${V}: cross-entropy forward and backward`, async () => {
      const logits = randn(N * V, 6, 4), tg = targetsFor(N, V);
      await twin({ loss: randn(N, 7), logits, tg }, (b, t) => b.crossEntropyForward(t.loss, t.logits, t.tg, N, V), ['loss'], TOL);
      await twin({ dlogits: randn(N * V, 8), dloss: randn(N, 9), logits, tg }, (b, t) => b.crossEntropyBackward(t.dlogits, t.dloss, t.logits, t.tg, N, V), ['dlogits'], TOL);
    });
  }
  it('a target outside the vocabulary is refused before the kernel reads past its row', () => {
    const tg = wasm.alloc(2, 'i32');
    wasm.write(tg, [1, 5]);
    expect(() => wasm.logprobForward(wasm.alloc(2), wasm.alloc(2), wasm.alloc(10), tg, 2, 5, 1)).toThrow(/targets\[1\] = 5 is outside the vocabulary \[0, 5\)/);
  });
});

describe('wasm AdamW and residual vs reference', () => {
  const hp = { lr: 3e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 3 };
  for (const n of [1, 7, 64, 1001]) {
    it(`n ${n}: adamw (a mask of 0s and 1s, clip scale 0.5), and the guard (scale -1) changes nothing`, async () => {
      const mask = Float32Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0 : 1));
      const inputs = { p: randn(n, 1), g: randn(n, 2), m: randn(n, 3, 0.1), v: Float32Array.from(randn(n, 4, 0.01), Math.abs), mask, scale: Float32Array.of(0.5) };
      await twin(inputs, (b, t) => b.adamw(t.p, t.g, t.m, t.v, t.mask, t.scale, n, hp), ['p', 'm', 'v'], TOL);
      const { got } = await twin({ ...inputs, scale: Float32Array.of(-1) }, (b, t) => b.adamw(t.p, t.g, t.m, t.v, t.mask, t.scale, n, hp), ['p', 'm', 'v'], TOL);
      expect(Array.from(got.p)).toEqual(Array.from(inputs.p));
    });
    it(`n ${n}: residual and accumulate`, async () => {
      await twin({ out: randn(n, 5), a: randn(n, 6), b: randn(n, 7) }, (b, t) => { b.residualForward(t.out, t.a, t.b, n); b.accumulate(t.a, t.out, n); }, ['out', 'a'],
        { rtol: 0, atol: 0 }); // one f32 add: the same rounding on both
    });
  }
  it('members K 3 (each its own lr and scale, member 1 guarded), paramStride 70', async () => {
    const n = 37, K = 3, stride = 70, len = (K - 1) * stride + n;
    const inputs = { p: randn(len, 1), g: randn(len, 2), m: randn(len, 3, 0.1), v: Float32Array.from(randn(len, 4, 0.01), Math.abs),
      mask: Float32Array.from({ length: n }, (_, i) => i % 2), scale: Float32Array.of(1, -1, 0.25), lr: Float32Array.of(2 ** -8, 2 ** -6, 2 ** -10) };
    const { got } = await twin(inputs, (b, t) => b.adamw(t.p, t.g, t.m, t.v, t.mask, t.scale, n, hp, { K, paramStride: stride, lr: t.lr as Tensor }), ['p', 'm', 'v'], TOL);
    expect(Array.from(got.p.subarray(stride, stride + n))).toEqual(Array.from(inputs.p.subarray(stride, stride + n)));
    expect(Array.from(got.p.subarray(0, n))).not.toEqual(Array.from(inputs.p.subarray(0, n)));
  });
});

describe('wasm sum of squares and row copies vs reference', () => {
  for (const n of [1, 5, 16, 1001]) {
    it(`n ${n}: sumSquares alone, with K 3 members (paramStride 1100), and a non-finite element`, async () => {
      const x = randn(2 * 1100 + n, 1, 3);
      await twin({ out: randn(1, 2), x }, (b, t) => b.sumSquares(t.out, t.x, n), ['out'], TOL);
      await twin({ out: randn(3, 2), x }, (b, t) => b.sumSquares(t.out, t.x, n, { K: 3, paramStride: 1100 }), ['out'], TOL);
      const bad = x.slice();
      bad[1100 + n - 1] = Infinity;
      const { got } = await twin({ out: randn(3, 2), x: bad }, (b, t) => b.sumSquares(t.out, t.x, n, { K: 3, paramStride: 1100 }), ['out'], TOL);
      expect(got.out[1]).toBe(Infinity); // member 1's norm is not finite: clipScale's guard will see it
    });
  }
  it('copyRows: a prefill [B, Tp, 3C] into a cache [B, T, 3C], odd widths; each source row repeated (a group\'s one prefill)', async () => {
    const [rows, width, dstStride, srcStride] = [7, 13, 21, 15];
    await twin({ dst: randn(rows * dstStride, 1), src: randn(rows * srcStride, 2) }, (b, t) => b.copyRows(t.dst, t.src, rows, width, dstStride, srcStride), ['dst'],
      { rtol: 0, atol: 0 });
    for (const repeat of [2, 3, 7]) {
      // 7 rows from ceil(7 / repeat) source rows: the source holds no more (the engine's bounds check sees it)
      const src = randn(Math.ceil(rows / repeat) * srcStride, 3);
      const { got } = await twin({ dst: randn(rows * dstStride, 1), src }, (b, t) => b.copyRows(t.dst, t.src, rows, width, dstStride, srcStride, repeat), ['dst'],
        { rtol: 0, atol: 0 });
      // by hand: row r holds source row floor(r / repeat)
      for (let r = 0; r < rows; r++) expect(Array.from(got.dst.subarray(r * dstStride, r * dstStride + width))).toEqual(Array.from(src.subarray(Math.floor(r / repeat) * srcStride, Math.floor(r / repeat) * srcStride + width)));
    }
    await expect(twin({ dst: randn(rows * dstStride, 1), src: randn(rows * srcStride, 2) }, (b, t) => b.copyRows(t.dst, t.src, rows, width, dstStride, srcStride, 0), ['dst'],
      { rtol: 0, atol: 0 })).rejects.toThrow(/repeat must be an integer >= 1; got 0/);
  });
  it('gatherLast: each sequence\'s row at its last position, of B / repeat sequences of T rows; a bad position is refused before a row is written', async () => {
    const [B, T, width] = [6, 5, 7], pos = Int32Array.from([5, 1, 3, 3, 2, 4]);
    for (const repeat of [1, 2, 3]) {
      const src = randn(Math.ceil(B / repeat) * T * width, 4);
      const { got } = await twin({ dst: randn(B * width, 1), src, pos }, (b, t) => b.gatherLast(t.dst, t.src, t.pos, B, T, width, repeat), ['dst'], { rtol: 0, atol: 0 });
      // by hand: row b is source row floor(b / repeat) * T + pos[b] - 1
      for (let b = 0; b < B; b++) {
        const from = (Math.floor(b / repeat) * T + pos[b] - 1) * width;
        expect(Array.from(got.dst.subarray(b * width, (b + 1) * width))).toEqual(Array.from(src.subarray(from, from + width)));
      }
    }
    for (const bad of [0, T + 1]) {
      const dst = randn(B * width, 1), badPos = Int32Array.from(pos);
      badPos[4] = bad;
      const { got } = await twin({ dst, src: randn(B * T * width, 4), pos: badPos }, (b, t) => {
        expect(() => b.gatherLast(t.dst, t.src, t.pos, B, T, width)).toThrow(new RegExp(`gatherLast: pos\\[4\\] = ${bad} outside 1\\.\\.${T}`));
      }, ['dst'], { rtol: 0, atol: 0 });
      expect(Array.from(got.dst)).toEqual(Array.from(dst)); // nothing written
    }
  });
});
