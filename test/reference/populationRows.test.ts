// The two row ops a population's batch needs besides the member ops, on the CPU reference,
// against each member's lone call (the oracle: today's op on the member's rows alone):
// - clipLoss with perSequenceNorm: each member normalised over its own sequences (every aggregation);
// - sample with rowRng: each member's rows draw from its own seed, numbered within the member.
import { describe, expect, it } from 'vitest';
import { LOSS_IDS } from '../../src/contract/losses';
import { aggregationNorm, clipLoss } from '../../src/reference/rl';
import { sample } from '../../src/reference/sample';
import { Rng } from '../gpu/random';
import { divisors, lossCase } from './populationRowsCase';

describe('a population\'s row ops on the CPU reference', () => {
  for (const algorithm of LOSS_IDS) {
    it(`clipLoss with perSequenceNorm (${algorithm}, beta 0.1): each member's outputs are its lone call's, bit for bit`, () => {
      const c = lossCase(11), args = { algorithm, epsLow: 0.2, epsHigh: 0.28, beta: 0.1, delta: 1.5 };
      const out = { lossSeq: new Float32Array(c.S), klSeq: new Float32Array(c.S), clipSeq: new Float32Array(c.S), dlogp: new Float32Array(c.S * c.T) };
      const seqAdv = new Float32Array(2 * c.S);
      seqAdv.set(c.seqAdv);
      seqAdv.set(divisors(c, algorithm, 9), c.S);
      clipLoss(out.lossSeq, out.klSeq, out.clipSeq, out.dlogp, c.logp, c.ratio, c.tokRatio, seqAdv, c.mask, c.refLogp, c.S, c.T,
        { ...args, norm: 1, perSequenceNorm: true });
      let s0 = 0;
      for (const S of c.seqs) {
        const rows = (x: Float32Array) => x.slice(s0, s0 + S), cells = (x: Float32Array) => x.slice(s0 * c.T, (s0 + S) * c.T);
        const lone = { lossSeq: new Float32Array(S), klSeq: new Float32Array(S), clipSeq: new Float32Array(S), dlogp: new Float32Array(S * c.T) };
        const mask = cells(c.mask);
        clipLoss(lone.lossSeq, lone.klSeq, lone.clipSeq, lone.dlogp, cells(c.logp), rows(c.ratio), cells(c.tokRatio), rows(c.seqAdv), mask,
          cells(c.refLogp), S, c.T, { ...args, norm: aggregationNorm(algorithm, mask, S, c.T, 9) });
        expect(rows(out.lossSeq)).toEqual(lone.lossSeq);
        expect(rows(out.klSeq)).toEqual(lone.klSeq);
        expect(rows(out.clipSeq)).toEqual(lone.clipSeq);
        expect(cells(out.dlogp)).toEqual(lone.dlogp);
        s0 += S;
      }
    });
  }

  it('sample with rowRng: each member\'s rows draw what its lone call with its seed draws', () => {
    const seqs = [2, 0, 3], seeds = [7, 8, 2 ** 31 - 1], B = 5, T = 6, V = 9, r = new Rng(5);
    const logits = r.normal(B * T * V, 2);
    const rowRng = new Int32Array(2 * B);
    let i = 0;
    seqs.forEach((n, k) => { for (let j = 0; j < n; j++, i++) { rowRng[2 * i] = seeds[k]; rowRng[2 * i + 1] = j; } });
    const run = (b0: number, n: number, seed: number, rng?: Int32Array) => {
      const tokens = new Int32Array(n * T), logp = new Float32Array(n * T), pos = new Int32Array(n).fill(1), done = new Int32Array(n), limit = new Int32Array(n).fill(T);
      for (let step = 0; step < T - 1; step++) {
        sample(tokens, logp, pos, done, limit, logits.subarray(b0 * T * V, (b0 + n) * T * V), n, T, V, 0.8, 0, seed, 40 + step, T, rng);
      }
      return { tokens, logp };
    };
    const all = run(0, B, 999, rowRng);
    let b0 = 0;
    seqs.forEach((n, k) => {
      const lone = run(b0, n, seeds[k]);
      expect(all.tokens.slice(b0 * T, (b0 + n) * T)).toEqual(lone.tokens);
      expect(all.logp.slice(b0 * T, (b0 + n) * T)).toEqual(lone.logp);
      b0 += n;
    });
    expect(new Set(all.tokens).size).toBeGreaterThan(3); // really sampled
  });
});
