// The row kernels (layernorm, log-softmax heads, attention's softmax) against the f32
// CPU reference at shapes that reach every workgroup layout of src/gpu/kernels/rows.ts,
// in both modes whatever the adapter ('lanes', a GPU's; 'single', a CPU adapter's):
// rows of 1-3 elements (one lane per row, no reduction), rows shorter than the
// workgroup (several rows per workgroup, the last one partly past N), rows longer than
// it (lanes loop), N = 1 and N prime, and layernorm's column sums over several chunks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forceRowMode, lanesLayout, MAX_WG, type RowMode } from '../../src/gpu/kernels/rows';
import { noGpu, theGpu } from './device';
import { layernormParity, parity, TOL } from './parity';
import { Rng } from './random';

describe('row layout (lanes)', () => {
  it('TPR is a power of two dividing WG, WG within the default limit, about perThread elements per lane', () => {
    for (const len of [0, 1, 2, 3, 4, 5, 19, 64, 65, 257, 1000, 5000, 50257]) {
      for (const perThread of [1, 2, 4]) {
        const { WG, TPR } = lanesLayout(len, perThread);
        expect(TPR & (TPR - 1), `TPR ${TPR}`).toBe(0);
        expect(WG % TPR).toBe(0);
        expect(WG).toBeLessThanOrEqual(MAX_WG);
        // never more lanes than elements / perThread rounded up to a power of two; capped at MAX_WG
        expect(TPR).toBeLessThanOrEqual(Math.max(1, 2 * Math.ceil(len / perThread)));
        if (TPR < MAX_WG) expect(TPR * perThread).toBeGreaterThanOrEqual(len);
      }
    }
  });
});

describe.skipIf(noGpu).each<RowMode>(['lanes', 'single'])('WebGPU row kernels vs CPU reference, odd shapes, %s layout', (mode) => {
  beforeAll(() => forceRowMode(mode));
  afterAll(() => forceRowMode(null));

  // [N, C]: C from 1 to 1000 (TPR 1 .. 256); N up to 2500 so that C = 1, 3, 19 and 64 take
  // several chunks of the two-stage dweight / dbias sum.
  const LN_SHAPES = [[1, 1], [2500, 1], [600, 3], [131, 19], [1, 64], [70, 64], [33, 65], [5, 257], [3, 1000]];

  it('layernorm forward and backward (accumulating), C = 1 .. 1000', async () => {
    for (const [N, C] of LN_SHAPES) {
      const r = new Rng(N * 1009 + C);
      await layernormParity(theGpu(), N, C, r, ['out', 'mean', 'rstd', 'dinp', 'dweight', 'dbias'],
      // dweight / dbias sum N rows (up to 2500) in another order than the CPU: absolute floor ~ sqrt(N) f32 epsilon
      { rtol: 1e-4, atol: 1e-5 * Math.sqrt(N) });
    }
  });

  it('layernorm of rows with a huge mean: the variance is taken about the mean, not as E[x^2] - mean^2', async () => {
    for (const [N, C] of [[9, 64], [4, 257]]) {
      const r = new Rng(N + 7 * C);
      const inp = r.normal(N * C);
      for (let n = 0; n < N; n += 2) for (let c = 0; c < C; c++) inp[n * C + c] += 1000 * (n + 1); // every other row
      await parity(theGpu(), {
        inp, weight: r.normal(C), bias: r.normal(C), out: r.normal(N * C), mean: r.normal(N), rstd: r.normal(N),
        dout: r.normal(N * C), dinp: r.normal(N * C), dweight: r.normal(C), dbias: r.normal(C),
      }, (b, t) => {
        b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.weight, t.bias, N, C);
        b.layernormBackward(t.dinp, t.dweight, t.dbias, t.dout, t.inp, t.weight, t.mean, t.rstd, N, C);
      }, ['out', 'mean', 'rstd', 'dinp', 'dweight', 'dbias'],
      // An f32 mean of values near 9000 is off by a few ulp (~1e-3), and so is every x - mean: unit-variance
      // outputs agree to ~1e-2 at worst. E[x^2] - mean^2 in f32 loses the variance itself (ulp of 8e7 is 8).
      { rtol: 1e-2, atol: 1e-2 });
    }
  });

  // [N, V, temperature]: V from 2 to 300 (TPR 1 .. 128), N = 1 and prime.
  const V_SHAPES = [[1, 2, 1], [37, 2, 0.7], [53, 7, 1.5], [41, 32, 1], [29, 33, 0.5], [13, 300, 1.3], [1, 300, 1]];

  function logitsWithExtremes(r: Rng, N: number, V: number): Float32Array {
    const logits = r.normal(N * V, 3);
    if (N > 3) for (let v = 0; v < V; v++) logits[3 * V + v] -= 500; // a row far below 0: exp underflows without the max
    if (N > 2) {
      for (let v = 0; v < V; v++) logits[2 * V + v] += 500; // a whole row far from 0: exp overflows without the max
      // Dominant logits far above the rest: exp(z - m) overflows f32 unless m is the true max
      // (a max reduction that misses a lane would not show otherwise: any m near it gives the same lse).
      logits[1 * V + V - 1] = 200; // in the last lane
      if (N > 6) logits[6 * V + (V >> 1)] = 150; // in a middle lane
    }
    return logits;
  }

  it('logprob forward and backward: temperature, targets < 0, large logits, zero dlogp', async () => {
    for (const [N, V, temperature] of V_SHAPES) {
      const r = new Rng(N * V + 3);
      const targets = r.ints(N, 0, V);
      targets[0] = -1;
      if (N > 4) targets[4] = -7;
      if (N > 2) targets[2] = V - 1;
      const dlogp = r.normal(N);
      if (N > 5) dlogp[5] = 0;
      await parity(theGpu(), {
        logits: logitsWithExtremes(r, N, V), targets, logp: r.normal(N), entropy: r.normal(N), dlogp, dlogits: r.normal(N * V),
      }, (b, t) => {
        b.logprobForward(t.logp, t.entropy, t.logits, t.targets, N, V, temperature);
        b.logprobBackward(t.dlogits, t.dlogp, t.logits, t.targets, N, V, temperature);
      }, ['logp', 'entropy', 'dlogits'],
      // logits near 500 carry f32 rounding of ~3e-5 into z and the log-prob
      { rtol: TOL.rtol, atol: 1e-4 });
    }
  });

  it('cross-entropy forward and backward (accumulating): targets < 0, large logits', async () => {
    for (const [N, V] of V_SHAPES) {
      const r = new Rng(N * V + 5);
      const targets = r.ints(N, 0, V);
      targets[N - 1] = -1;
      if (N > 2) targets[2] = 0;
      await parity(theGpu(), {
        logits: logitsWithExtremes(r, N, V), targets, losses: r.normal(N), dloss: r.uniformIn(N, 0, 1), dlogits: r.normal(N * V),
      }, (b, t) => {
        b.crossEntropyForward(t.losses, t.logits, t.targets, N, V);
        b.crossEntropyBackward(t.dlogits, t.dloss, t.logits, t.targets, N, V);
      }, ['losses', 'dlogits'], { rtol: TOL.rtol, atol: 1e-4 });
    }
  });

  it('causal attention forward and backward (accumulating): T = 1, odd T, T longer than the workgroup', async () => {
    // T 1, 3, 33, 70, 130, 300: TPR 1 .. 256 lanes per row; 130 and 300 exceed their workgroup (128, 256).
    for (const [B, T, C, NH] of [[1, 1, 4, 1], [3, 3, 6, 2], [2, 33, 12, 3], [1, 70, 8, 2], [1, 130, 4, 1], [1, 300, 2, 1]]) {
      const r = new Rng(B * 1000 + T * 10 + C);
      const att = B * NH * T * T;
      const qkv = r.normal(B * T * 3 * C, 2); // scale 2: peaked softmax rows
      await parity(theGpu(), {
        qkv, out: r.normal(B * T * C), att: r.normal(att), dout: r.normal(B * T * C), dqkv: r.normal(B * T * 3 * C), dpreatt: r.normal(att),
      }, (b, t) => {
        b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH);
        b.attentionBackward(t.dqkv, t.dpreatt, t.dout, t.qkv, t.att, B, T, C, NH);
      }, ['out', 'att', 'dqkv'],
      // dk, dv sum up to T = 300 terms in another order than the CPU
      { rtol: 1e-4, atol: 1e-5 * Math.sqrt(T) });
    }
  });

  it('causal attention, the tiled kernels (scores, values, dqkv in lanes): T not a multiple of the tile, hs 1 .. 256, B > 1', async () => {
    // [B, T, C, NH]: hs = C / NH = 1, 3, 16, 64, 70 (two column chunks), 256 (C = 256, NH = 1, four chunks);
    // T 1, 5, 17, 33, 70, 130 against query tiles of 16 rows and key tiles of 32.
    for (const [B, T, C, NH] of [[2, 1, 3, 3], [3, 5, 9, 3], [2, 17, 32, 2], [2, 33, 128, 2], [2, 70, 140, 2],
      [2, 130, 3, 1], [2, 33, 256, 1], [1, 130, 256, 1]]) {
      const r = new Rng(B * 1000 + T * 10 + C + 7);
      const att = B * NH * T * T;
      await parity(theGpu(), {
        qkv: r.normal(B * T * 3 * C), out: r.normal(B * T * C), att: r.normal(att), dout: r.normal(B * T * C),
        dqkv: r.normal(B * T * 3 * C), dpreatt: r.normal(att),
      }, (b, t) => {
        b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH);
        b.attentionBackward(t.dqkv, t.dpreatt, t.dout, t.qkv, t.att, B, T, C, NH);
      }, ['out', 'att', 'dqkv'], { rtol: 1e-4, atol: 1e-5 * Math.sqrt(T) });
    }
  });
});
