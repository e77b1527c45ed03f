// The RL objective's reference: hand-computed cases and finite differences (float64).
import { describe, expect, it } from 'vitest';
import * as rl from '../../src/reference/rl';
import { RL_STATS } from '../../src/backend';
import { expectGradMatches, randn } from './fd';

const z = (n: number) => new Float64Array(n);

describe('group normalization', () => {
  const rewards = Float64Array.from([1, 0, 0, 1, /* all equal */ 0.5, 0.5, /* G=1 */ 2]);
  const groupStart = Int32Array.from([0, 4, 6, 7]);
  it('mode group: (r - mean) / (Bessel std + 1e-4); equal-reward groups and G = 1 give 0', () => {
    const adv = z(7), stats = z(2);
    rl.groupNormalize(adv, stats, rewards, groupStart, 7, 3, 'group');
    const std = Math.sqrt((4 * 0.25) / 3); // mean 0.5, four deviations of 0.5, n-1 = 3
    expect(adv[0]).toBeCloseTo(0.5 / (std + 1e-4), 12);
    expect(adv[1]).toBeCloseTo(-0.5 / (std + 1e-4), 12);
    expect(Array.from(adv.slice(4))).toEqual([0, 0, 0]);
    expect(Array.from(stats)).toEqual([2, 3]);
  });
  it('mode none: r - mean', () => {
    const adv = z(7);
    rl.groupNormalize(adv, z(2), rewards, groupStart, 7, 3, 'none');
    expect(Array.from(adv)).toEqual([0.5, -0.5, -0.5, 0.5, 0, 0, 0]);
  });
  it('mode batch: group mean, std over the whole batch', () => {
    const adv = z(7);
    rl.groupNormalize(adv, z(2), rewards, groupStart, 7, 3, 'batch');
    const m = rewards.reduce((a, b) => a + b) / 7;
    const std = Math.sqrt(rewards.reduce((a, r) => a + (r - m) ** 2, 0) / 6);
    expect(adv[3]).toBeCloseTo(0.5 / (std + 1e-4), 12);
    expect(adv[6]).toBe(0);
  });
  it('rewards like 0.1 x3 (mean not exactly representable) still give exactly 0', () => {
    const adv = z(3);
    rl.groupNormalize(adv, z(2), Float64Array.from([0.1, 0.1, 0.1]), Int32Array.from([0, 3]), 3, 1, 'group');
    expect(Array.from(adv)).toEqual([0, 0, 0]);
  });
});

describe('sequence ratio', () => {
  it('is the exp of the masked mean log-ratio, clamped; per-token ratios where masked', () => {
    // two rows of T = 3: the second is all masked
    const logp = Float64Array.from([0, -1, -2, 0, 0, 0]), old = Float64Array.from([0, -1.5, -1, 0, 0, 0]);
    const mask = Float64Array.from([0, 1, 1, 0, 0, 0]);
    const logS = z(2), s = z(2), tok = z(6);
    rl.seqRatio(logS, s, tok, logp, old, mask, 2, 3);
    expect(logS[0]).toBeCloseTo((0.5 + -1) / 2, 12);
    expect(s[0]).toBeCloseTo(Math.exp(-0.25), 12);
    expect(tok[1]).toBeCloseTo(Math.exp(0.5), 12);
    expect(tok[0]).toBe(1);
    expect(logS[1]).toBe(0); // all masked: log s = 0, s = 1
    expect(s[1]).toBe(1);
    const l2 = z(1), s2 = z(1), t2 = z(2);
    rl.seqRatio(l2, s2, t2, Float64Array.from([-5, 0]), Float64Array.from([40, 0]), Float64Array.from([1, 0]), 1, 2);
    expect(l2[0]).toBe(-20); // clamped
  });
});

describe('clipped surrogate', () => {
  it('hand cases: active clipping only on the side the advantage pushes', () => {
    expect(rl.clippedTerm(1.5, 1, 0.2, 0.2)).toEqual({ loss: -1.2, dr: 0, clipped: true });
    expect(rl.clippedTerm(1.5, -1, 0.2, 0.2)).toEqual({ loss: 1.5, dr: 1, clipped: false });
    expect(rl.clippedTerm(0.5, -1, 0.2, 0.2)).toEqual({ loss: 0.8, dr: 0, clipped: true });
    expect(rl.clippedTerm(0.5, 1, 0.2, 0.2)).toEqual({ loss: -0.5, dr: -1, clipped: false });
    expect(rl.clippedTerm(1.1, 2, 0.2, 0.2)).toEqual({ loss: -2.2, dr: -2, clipped: false });
  });

  for (const algorithm of ['gspo', 'grpo'] as const) {
    for (const beta of [0, 0.1]) {
      it(`${algorithm}, beta ${beta}: d loss / d logp matches finite differences, stats are the means`, () => {
        const S = 4, T = 5;
        const mask = Float64Array.from([0, 1, 1, 1, 0, /**/ 0, 0, 0, 1, 0, /**/ 0, 0, 0, 0, 0, /**/ 1, 1, 1, 1, 1]);
        const logp = randn(S * T, 30, 1).map((x) => x - 2);
        const noise = randn(S * T, 31, 0.3);
        const old = logp.map((x, i) => x + noise[i]);
        const ref = randn(S * T, 32, 0.5).map((x, i) => logp[i] + x);
        const adv = Float64Array.from([1.2, -0.7, 0.3, -1.5]);
        const [eL, eH] = [0.05, 0.08];
        const out = { lossSeq: z(S), klSeq: z(S), clipSeq: z(S), dlogp: z(S * T), logS: z(S), ratio: z(S), tok: z(S * T), stats: z(RL_STATS.size) };
        const loss = () => {
          rl.seqRatio(out.logS, out.ratio, out.tok, logp, old, mask, S, T);
          rl.clipLoss(out.lossSeq, out.klSeq, out.clipSeq, out.dlogp, logp, out.ratio, out.tok, adv, mask, ref, S, T, algorithm, eL, eH, beta);
          rl.rlStats(out.stats, out.lossSeq, out.klSeq, out.clipSeq, out.ratio, out.tok, mask, S, T, algorithm, beta);
          return out.stats[RL_STATS.loss];
        };
        loss();
        const analytic = out.dlogp.slice();
        expect(out.stats[RL_STATS.policyLoss]).toBeCloseTo(out.lossSeq.reduce((a, b) => a + b) / S, 12);
        expect(out.stats[RL_STATS.clipDenom]).toBe(algorithm === 'gspo' ? S : 9);
        // the all-masked row: s = 1, L = -A, no gradient
        if (algorithm === 'gspo') expect(out.lossSeq[2]).toBeCloseTo(-0.3, 12);
        for (let t = 0; t < T; t++) expect(analytic[2 * T + t]).toBe(0);
        expect(analytic.some((x) => x !== 0)).toBe(true);
        expectGradMatches('dlogp', logp, analytic, loss, 1e-7, 1e-5);
      });
    }
  }

  it('the KL term: k3 of (ref - logp) averaged per sequence then over sequences', () => {
    const logp = Float64Array.from([0, -1, -2]), ref = Float64Array.from([0, -1.5, -1]), mask = Float64Array.from([0, 1, 1]);
    const o = { l: z(1), k: z(1), c: z(1), d: z(3), ls: z(1), r: z(1), t: z(3) };
    rl.seqRatio(o.ls, o.r, o.t, logp, logp, mask, 1, 3);
    rl.clipLoss(o.l, o.k, o.c, o.d, logp, o.r, o.t, Float64Array.from([0]), mask, ref, 1, 3, 'gspo', 0.2, 0.2, 1);
    const k3 = (d: number) => Math.exp(d) - d - 1;
    expect(o.k[0]).toBeCloseTo((k3(-0.5) + k3(1)) / 2, 12);
  });
});
