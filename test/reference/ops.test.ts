// Every reference op's backward against central finite differences in float64,
// plus hand-computed forward cases.
import { describe, expect, it } from 'vitest';
import * as nn from '../../src/reference/nn';
import * as ls from '../../src/reference/logsoftmax';
import * as opt from '../../src/reference/optim';
import { dot, expectGradMatches, randInts, randn } from './fd';

const z = (n: number) => new Float64Array(n);

describe('embedding', () => {
  it('forward adds token and position rows; backward matches finite differences', () => {
    const N = 6, T = 3, C = 4, V = 5;
    const tokens = Int32Array.from([1, 4, 1, 0, 2, 1]);
    const wte = randn(V * C, 1), wpe = randn(T * C, 2), W = randn(N * C, 3);
    const out = z(N * C);
    nn.embeddingForward(out, tokens, wte, wpe, N, T, C);
    expect(out[4 * C + 2]).toBeCloseTo(wte[2 * C + 2] + wpe[1 * C + 2], 12); // n=4: token 2, position 1
    const loss = () => { nn.embeddingForward(out, tokens, wte, wpe, N, T, C); return dot(out, W); };
    const dwte = z(V * C), dwpe = z(T * C);
    nn.embeddingBackward(dwte, dwpe, W, tokens, N, T, C);
    expectGradMatches('dwte', wte, dwte, loss);
    expectGradMatches('dwpe', wpe, dwpe, loss);
  });
});

describe('layernorm', () => {
  it('forward normalizes with biased variance; backward matches finite differences', () => {
    const N = 3, C = 5;
    const inp = randn(N * C, 4), w = randn(C, 5), b = randn(C, 6), W = randn(N * C, 7);
    const out = z(N * C), mean = z(N), rstd = z(N);
    // hand case: row [1,2,3,4,5], w=1, b=0 -> mean 3, var 2
    const hand = z(5);
    nn.layernormForward(hand, z(1), z(1), Float64Array.from([1, 2, 3, 4, 5]), new Float64Array(5).fill(1), z(5), 1, 5);
    expect(hand[0]).toBeCloseTo(-2 / Math.sqrt(2 + 1e-5), 10);
    const loss = () => { nn.layernormForward(out, mean, rstd, inp, w, b, N, C); return dot(out, W); };
    loss();
    const dinp = z(N * C), dw = z(C), db = z(C);
    nn.layernormBackward(dinp, dw, db, W, inp, w, mean, rstd, N, C);
    expectGradMatches('dinp', inp, dinp, loss);
    expectGradMatches('dw', w, dw, loss);
    expectGradMatches('db', b, db, loss);
  });
});

describe('matmul', () => {
  it('forward is inp @ w^T + b (hand case); backward matches finite differences, with and without bias', () => {
    const out = z(2);
    nn.matmulForward(out, Float64Array.from([1, 2, 3]), Float64Array.from([1, 0, 0, 1, 1, 1]), Float64Array.from([10, 20]), 1, 3, 2);
    expect(Array.from(out)).toEqual([11, 26]);
    for (const withBias of [true, false]) {
      const N = 5, IC = 3, OC = 7;
      const inp = randn(N * IC, 8), w = randn(OC * IC, 9), b = withBias ? randn(OC, 10) : null, W = randn(N * OC, 11);
      const o = z(N * OC);
      const loss = () => { nn.matmulForward(o, inp, w, b, N, IC, OC); return dot(o, W); };
      const dinp = z(N * IC), dw = z(OC * IC), db = withBias ? z(OC) : null;
      nn.matmulBackward(dinp, dw, db, W, inp, w, N, IC, OC);
      expectGradMatches('dinp', inp, dinp, loss);
      expectGradMatches('dw', w, dw, loss);
      if (b && db) expectGradMatches('dbias', b, db, loss);
    }
  });
});

describe('attention', () => {
  it('is causal, rows of att sum to 1; backward matches finite differences', () => {
    const B = 2, T = 4, C = 6, NH = 2;
    const qkv = randn(B * T * 3 * C, 12), W = randn(B * T * C, 13);
    const out = z(B * T * C), att = z(B * NH * T * T);
    const loss = () => { nn.attentionForward(out, att, qkv, B, T, C, NH); return dot(out, W); };
    loss();
    for (let r = 0; r < B * NH * T; r++) {
      const t = r % T;
      let s = 0;
      for (let t2 = 0; t2 < T; t2++) { s += att[r * T + t2]; if (t2 > t) expect(att[r * T + t2]).toBe(0); }
      expect(s).toBeCloseTo(1, 12);
    }
    // the first position attends only to itself: out = its own v
    for (let i = 0; i < C; i++) expect(out[i]).toBeCloseTo(qkv[2 * C + i], 12);
    const dqkv = z(qkv.length), dpre = z(att.length);
    nn.attentionBackward(dqkv, dpre, W, qkv, att, B, T, C, NH);
    expectGradMatches('dqkv', qkv, dqkv, loss);
  });
  it('T = 1 works', () => {
    const B = 1, T = 1, C = 4, NH = 2;
    const qkv = randn(3 * C, 14), W = randn(C, 15), out = z(C), att = z(NH);
    const loss = () => { nn.attentionForward(out, att, qkv, B, T, C, NH); return dot(out, W); };
    loss();
    const dqkv = z(qkv.length);
    nn.attentionBackward(dqkv, z(NH), W, qkv, att, B, T, C, NH);
    expectGradMatches('dqkv', qkv, dqkv, loss);
  });
});

describe('gelu and residual', () => {
  it('gelu matches the tanh formula at hand points; backward matches finite differences', () => {
    const out = z(3);
    nn.geluForward(out, Float64Array.from([0, 1, -1]), 3);
    expect(out[0]).toBe(0);
    expect(out[1]).toBeCloseTo(0.8411919906, 8);
    expect(out[2]).toBeCloseTo(-0.1588080094, 8);
    const n = 20, inp = randn(n, 16, 2), W = randn(n, 17), o = z(n);
    const loss = () => { nn.geluForward(o, inp, n); return dot(o, W); };
    const dinp = z(n);
    nn.geluBackward(dinp, inp, W, n);
    expectGradMatches('dinp', inp, dinp, loss);
  });
  it('residual adds; accumulate adds into the destination', () => {
    const out = z(2);
    nn.residualForward(out, Float64Array.from([1, 2]), Float64Array.from([3, 5]), 2);
    expect(Array.from(out)).toEqual([4, 7]);
    nn.accumulate(out, Float64Array.from([1, 1]), 2);
    expect(Array.from(out)).toEqual([5, 8]);
  });
});

describe('log-softmax heads', () => {
  it('logprob: hand case, entropy of uniform, temperature; backward matches finite differences', () => {
    const lp = z(1), ent = z(1);
    ls.logprobForward(lp, ent, Float64Array.from([0, 0, 0, 0]), Int32Array.from([2]), 1, 4, 1);
    expect(lp[0]).toBeCloseTo(-Math.log(4), 12);
    expect(ent[0]).toBeCloseTo(Math.log(4), 12);
    ls.logprobForward(lp, ent, Float64Array.from([2, 0]), Int32Array.from([0]), 1, 2, 2);
    expect(lp[0]).toBeCloseTo(1 - Math.log(Math.exp(1) + 1), 12); // logits / 2
    const N = 4, V = 7, tau = 0.7;
    const logits = randn(N * V, 18, 3), targets = Int32Array.from([3, -1, 0, 6]), W = randn(N, 19);
    const logp = z(N), entropy = z(N);
    ls.logprobForward(logp, entropy, logits, targets, N, V, tau);
    expect(logp[1]).toBe(0); // no target
    const loss = () => { ls.logprobForward(logp, entropy, logits, targets, N, V, tau); return dot(logp, W); };
    const dlogits = z(N * V);
    ls.logprobBackward(dlogits, W, logits, targets, N, V, tau);
    expectGradMatches('dlogits', logits, dlogits, loss);
  });
  it('cross-entropy equals -logprob at temperature 1; backward matches finite differences', () => {
    const N = 3, V = 5;
    const logits = randn(N * V, 20, 2), targets = randInts(N, V, 21), W = randn(N, 22);
    const losses = z(N), logp = z(N);
    ls.crossEntropyForward(losses, logits, targets, N, V);
    ls.logprobForward(logp, z(N), logits, targets, N, V, 1);
    for (let n = 0; n < N; n++) expect(losses[n]).toBeCloseTo(-logp[n], 12);
    const loss = () => { ls.crossEntropyForward(losses, logits, targets, N, V); return dot(losses, W); };
    const dlogits = z(N * V);
    ls.crossEntropyBackward(dlogits, W, logits, targets, N, V);
    expectGradMatches('dlogits', logits, dlogits, loss);
  });
});

describe('optimizer', () => {
  it('AdamW first step moves each weight by lr*sign(g) plus decoupled decay only where the mask says', () => {
    const p = Float64Array.from([1, 1]), g = Float64Array.from([0.5, -2]), m = z(2), v = z(2);
    opt.adamw(p, g, m, v, Float64Array.from([1, 0]), Float64Array.from([1]), 2, { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 0, weightDecay: 0.5, step: 1 });
    expect(p[0]).toBeCloseTo(1 - 0.1 * (1 + 0.5), 12);
    expect(p[1]).toBeCloseTo(1 + 0.1, 12);
  });
  it('clip scale is min(1, maxNorm / norm) and 1 when clipping is off', () => {
    const s = z(1), sq = z(1);
    opt.sumSquares(sq, Float64Array.from([3, 4]), 2);
    expect(sq[0]).toBe(25);
    opt.clipScale(s, sq, 1);
    expect(s[0]).toBeCloseTo(1 / 5, 6);
    opt.clipScale(s, sq, 10);
    expect(s[0]).toBe(1);
    opt.clipScale(s, sq, 0);
    expect(s[0]).toBe(1);
  });
});
