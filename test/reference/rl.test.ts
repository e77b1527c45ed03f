// The RL objective's reference: hand-computed cases and finite differences (float64).
import { describe, expect, it } from 'vitest';
import * as rl from '../../src/reference/rl';
import { RL_STATS } from '../../src/backend';
import { expectGradMatches, randn } from './fd';
import { CLIP_CODE, LOSS_IDS, LOSSES } from '../../src/contract/losses';

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

  // Every row of the loss table: the twin's gradient against central differences of its own loss
  // (CISPO: of the surrogate with its weights held at their values, the stop-gradient), clipped and unclipped tokens.
  for (const algorithm of LOSS_IDS) {
    for (const beta of [0, 0.1]) {
      it(`${algorithm}, beta ${beta}: d loss / d logp matches finite differences`, () => {
        const S = 4, T = 5, maxLen = 7, delta = 1.3;
        const mask = Float64Array.from([0, 1, 1, 1, 0, /**/ 0, 0, 0, 1, 0, /**/ 0, 0, 0, 0, 0, /**/ 1, 1, 1, 1, 1]);
        const logp = randn(S * T, 30, 1).map((x) => x - 2);
        const noise = randn(S * T, 31, 0.3);
        const old = logp.map((x, i) => x + noise[i]);
        const ref = randn(S * T, 32, 0.5).map((x, i) => logp[i] + x);
        const adv = Float64Array.from([1.2, -0.7, 0.3, -1.5]);
        // CISPO clips a weight on either side of 1, whatever the advantage: a wider band keeps some tokens inside it
        const [eL, eH] = LOSSES[algorithm].clip === 'cispo' ? [0.25, 0.3] : [0.05, 0.08];
        const out = { lossSeq: z(S), klSeq: z(S), clipSeq: z(S), dlogp: z(S * T), logS: z(S), ratio: z(S), tok: z(S * T), stats: z(RL_STATS.size) };
        const norm = rl.aggregationNorm(algorithm, mask, S, T, maxLen);
        const args = { algorithm, epsLow: eL, epsHigh: eH, beta, delta, norm };
        const loss = () => {
          rl.seqRatio(out.logS, out.ratio, out.tok, logp, old, mask, S, T);
          rl.clipLoss(out.lossSeq, out.klSeq, out.clipSeq, out.dlogp, logp, out.ratio, out.tok, adv, mask, ref, S, T, args);
          rl.rlStats(out.stats, out.lossSeq, out.klSeq, out.clipSeq, out.ratio, out.tok, mask, S, T, algorithm, beta);
          return out.stats[RL_STATS.loss];
        };
        loss();
        const analytic = out.dlogp.slice();
        const row = LOSSES[algorithm];
        expect(out.stats[RL_STATS.policyLoss]).toBeCloseTo(out.lossSeq.reduce((a, b) => a + b), 12);
        expect(out.stats[RL_STATS.clipDenom]).toBe(row.level === 'token' ? 9 : S);
        expect(out.stats[RL_STATS.clipCount], 'some term is clipped').toBeGreaterThan(0);
        expect(out.stats[RL_STATS.clipCount], 'some term is not').toBeLessThan(out.stats[RL_STATS.clipDenom]);
        if (row.clip === 'two-sided') {
          const capped = Array.from(out.tok).filter((r, i) => mask[i] > 0 && r > delta && adv[Math.floor(i / T)] < 0).length;
          expect(capped, 'a token is capped by delta').toBeGreaterThan(0);
        }
        for (let t = 0; t < T; t++) expect(analytic[2 * T + t]).toBe(0); // the all-masked row
        expect(analytic.some((x) => x !== 0)).toBe(true);
        if (row.clip !== 'cispo') {
          expectGradMatches('dlogp', logp, analytic, loss, 1e-7, 1e-5);
          return;
        }
        // CISPO: L = sum_t c_i (-w_t A_i rho_t / w-frozen rho_t + beta k3_t), w_t = clip(rho_t) frozen at this point
        const w0 = Array.from(out.tok, (r) => Math.min(1 + eH, Math.max(1 - eL, r)));
        const logp0 = logp.slice();
        let N = 0;
        for (const m of mask) if (m > 0) N++;
        const surrogate = () => {
          let L = 0;
          for (let i = 0; i < S * T; i++) {
            if (!(mask[i] > 0)) continue;
            const d = ref[i] - logp[i];
            L += (-w0[i] * adv[Math.floor(i / T)] * Math.exp(logp[i] - logp0[i]) + beta * (Math.exp(d) - d - 1)) / N;
          }
          return L;
        };
        expect(surrogate()).toBeCloseTo(out.stats[RL_STATS.loss], 12);
        expectGradMatches('dlogp (cispo)', logp, analytic, surrogate, 1e-7, 1e-5);
      });
    }
  }

  it('aggregations at ratio 1 (nothing clipped): -sum_i A_i |y_i| over N tokens, -mean A_i, over S L_max', () => {
    const S = 3, T = 4, maxLen = 6;
    const mask = Float64Array.from([0, 1, 1, 1, /**/ 0, 1, 0, 0, /**/ 0, 0, 1, 1]); // lengths 3, 1, 2
    const logp = randn(S * T, 5, 1);
    const adv = Float64Array.from([0.5, -2, 1]);
    const value = (algorithm: (typeof LOSS_IDS)[number]) => {
      const o = { l: z(S), k: z(S), c: z(S), d: z(S * T), ls: z(S), r: z(S), t: z(S * T), st: z(RL_STATS.size) };
      rl.seqRatio(o.ls, o.r, o.t, logp, logp, mask, S, T);
      rl.clipLoss(o.l, o.k, o.c, o.d, logp, o.r, o.t, adv, mask, null, S, T,
        { algorithm, epsLow: 0.2, epsHigh: 0.2, beta: 0, delta: 4, norm: rl.aggregationNorm(algorithm, mask, S, T, maxLen) });
      rl.rlStats(o.st, o.l, o.k, o.c, o.r, o.t, mask, S, T, algorithm, 0);
      return o.st[RL_STATS.loss];
    };
    const tokSum = 0.5 * 3 - 2 * 1 + 1 * 2;
    expect(value('dapo')).toBeCloseTo(-tokSum / 6, 12);
    expect(value('two-sided')).toBeCloseTo(-tokSum / 6, 12);
    expect(value('cispo')).toBeCloseTo(-tokSum / 6, 12);
    expect(value('gspo-token')).toBeCloseTo(-(0.5 - 2 + 1) / 3, 12); // the sequence mean of token means, as GSPO
    expect(value('grpo')).toBeCloseTo(-(0.5 - 2 + 1) / 3, 12);
    expect(value('gspo')).toBeCloseTo(-(0.5 - 2 + 1) / 3, 12);
    expect(value('dr-grpo')).toBeCloseTo(-tokSum / (3 * 6), 12);
  });

  it('GSPO-token is GSPO: with one advantage per sequence, the same loss and per-token gradient (both seq-mean-token-mean)', () => {
    const S = 3, T = 5;
    const mask = Float64Array.from([0, 1, 1, 0, 0, /**/ 0, 1, 1, 1, 1, /**/ 1, 0, 0, 0, 0]);
    const logp = randn(S * T, 8, 1), old = logp.map((x, i) => x + randn(S * T, 9, 0.01)[i]);
    const adv = Float64Array.from([1, -1, 0.4]);
    const grad = (algorithm: 'gspo' | 'gspo-token') => {
      const o = { l: z(S), k: z(S), c: z(S), d: z(S * T), ls: z(S), r: z(S), t: z(S * T) };
      rl.seqRatio(o.ls, o.r, o.t, logp, old, mask, S, T);
      rl.clipLoss(o.l, o.k, o.c, o.d, logp, o.r, o.t, adv, mask, null, S, T,
        { algorithm, epsLow: 3e-4, epsHigh: 4e-4, beta: 0, delta: 4, norm: rl.aggregationNorm(algorithm, mask, S, T, 8) });
      return o.d;
    };
    const g = grad('gspo'), gt = grad('gspo-token');
    expect(g.some((x) => x !== 0)).toBe(true);
    for (let i = 0; i < S * T; i++) expect(gt[i]).toBeCloseTo(g[i], 12);
  });

  it('the two-sided clip: a negative-advantage token above delta has loss -delta A and no gradient; CISPO keeps a capped gradient', () => {
    expect(rl.lossTerm(CLIP_CODE['two-sided'], 5, -1, 0.2, 0.2, 3)).toEqual({ value: 3, g: -0, clipped: true });
    expect(rl.lossTerm(CLIP_CODE.ppo, 5, -1, 0.2, 0.2, 3)).toEqual({ value: 5, g: 5, clipped: false });
    expect(rl.lossTerm(CLIP_CODE['two-sided'], 2, -1, 0.2, 0.2, 3)).toEqual({ value: 2, g: 2, clipped: false });
    expect(rl.lossTerm(CLIP_CODE['two-sided'], 5, 1, 0.2, 0.2, 3)).toEqual({ value: -1.2, g: -0, clipped: true });
    expect(rl.lossTerm(CLIP_CODE.cispo, 5, 1, 0.2, 0.2, 3)).toEqual({ value: -1.2, g: -1.2, clipped: true });
    expect(rl.lossTerm(CLIP_CODE.cispo, 0.5, -1, 0.2, 0.2, 3)).toEqual({ value: 0.8, g: 0.8, clipped: true });
    expect(rl.lossTerm(CLIP_CODE.cispo, 1.1, 2, 0.2, 0.2, 3).clipped).toBe(false);
  });

  it('the KL term: k3 of (ref - logp) averaged per sequence then over sequences', () => {
    const logp = Float64Array.from([0, -1, -2]), ref = Float64Array.from([0, -1.5, -1]), mask = Float64Array.from([0, 1, 1]);
    const o = { l: z(1), k: z(1), c: z(1), d: z(3), ls: z(1), r: z(1), t: z(3) };
    rl.seqRatio(o.ls, o.r, o.t, logp, logp, mask, 1, 3);
    rl.clipLoss(o.l, o.k, o.c, o.d, logp, o.r, o.t, Float64Array.from([0]), mask, ref, 1, 3,
      { algorithm: 'gspo', epsLow: 0.2, epsHigh: 0.2, beta: 1, delta: 4, norm: 1 });
    const k3 = (d: number) => Math.exp(d) - d - 1;
    expect(o.k[0]).toBeCloseTo((k3(-0.5) + k3(1)) / 2, 12);
  });
});
