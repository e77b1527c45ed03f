// The RL objective of rl.md sections 3 and 4, on plain arrays.
import type { AdvantageMode, Algorithm } from '../backend';
import { RL_STATS } from '../backend';
import type { F, I } from './nn';

/** rl.md section 3: added to the std before dividing (the one definition; the worker's anatomy uses it too). */
export const STD_EPS = 1e-4;
const LOG_S_CLAMP = 20;

export function gather(out: F, src: F, index: I, n: number): void {
  for (let i = 0; i < n; i++) out[i] = src[index[i]];
}

/** Mean and sample std (n - 1) of r[a..b), and whether those entries are all equal. */
export function meanStd(r: ArrayLike<number>, a = 0, b = r.length): { mean: number; std: number; allEqual: boolean } {
  const n = b - a;
  let mean = 0;
  for (let i = a; i < b; i++) mean += r[i];
  mean /= Math.max(1, n);
  let ss = 0, allEqual = true;
  for (let i = a; i < b; i++) { ss += (r[i] - mean) ** 2; if (r[i] !== r[a]) allEqual = false; }
  return { mean, std: n > 1 ? Math.sqrt(ss / (n - 1)) : 0, allEqual: allEqual || n < 2 };
}

// rewards [E] grouped by CSR offsets groupStart [P+1]; adv [E]; stats [zeroStdGroups, P]
export function groupNormalize(adv: F, stats: F, rewards: F, groupStart: I, E: number, P: number, mode: AdvantageMode): void {
  const batchStd = meanStd(rewards, 0, E).std;
  let zeroStd = 0;
  for (let g = 0; g < P; g++) {
    const a = groupStart[g], b = groupStart[g + 1];
    const { mean, std, allEqual } = meanStd(rewards, a, b);
    if (allEqual) zeroStd++;
    for (let i = a; i < b; i++) {
      if (allEqual) { adv[i] = 0; continue; } // no signal in this group (also G = 1)
      const centered = rewards[i] - mean;
      adv[i] = mode === 'none' ? centered : centered / ((mode === 'group' ? std : batchStd) + STD_EPS);
    }
  }
  stats[0] = zeroStd;
  stats[1] = P;
}

// Per sequence (rows of length T): log s, s, and per-token ratios.
export function seqRatio(logS: F, ratio: F, tokRatio: F, logp: F, oldLogp: F, mask: F, S: number, T: number): void {
  for (let s = 0; s < S; s++) {
    let sum = 0, len = 0;
    for (let t = 0; t < T; t++) {
      const i = s * T + t;
      if (mask[i] > 0) {
        const d = logp[i] - oldLogp[i];
        sum += d; len++;
        tokRatio[i] = Math.exp(d);
      } else tokRatio[i] = 1;
    }
    const ls = Math.min(LOG_S_CLAMP, Math.max(-LOG_S_CLAMP, sum / Math.max(1, len)));
    logS[s] = ls;
    ratio[s] = Math.exp(ls);
  }
}

/** The clipped surrogate for one ratio: loss, d loss / d ratio, and whether clipping is active. */
export function clippedTerm(r: number, A: number, epsLow: number, epsHigh: number): { loss: number; dr: number; clipped: boolean } {
  const rc = Math.min(1 + epsHigh, Math.max(1 - epsLow, r));
  const unclipped = r * A, clippedVal = rc * A;
  // -min(rA, clip(r)A): the gradient flows only through the unclipped branch when it is the minimum
  const clipped = (r < 1 - epsLow && A < 0) || (r > 1 + epsHigh && A > 0);
  return { loss: -Math.min(unclipped, clippedVal), dr: clipped ? 0 : -A, clipped };
}

export function clipLoss(lossSeq: F, klSeq: F, clipSeq: F, dlogp: F, logp: F, ratio: F, tokRatio: F, seqAdv: F, mask: F,
  refLogp: F | null, S: number, T: number, algorithm: Algorithm, epsLow: number, epsHigh: number, beta: number): void {
  const invN = 1 / S;
  for (let s = 0; s < S; s++) {
    const A = seqAdv[s];
    let len = 0;
    for (let t = 0; t < T; t++) if (mask[s * T + t] > 0) len++;
    const invLen = 1 / Math.max(1, len);
    let kl = 0;
    if (algorithm === 'gspo') {
      const r = ratio[s];
      const { loss, dr, clipped } = clippedTerm(r, A, epsLow, epsHigh);
      lossSeq[s] = loss;
      clipSeq[s] = clipped ? 1 : 0;
      // d s / d logp_t = s * m_t / |y|
      for (let t = 0; t < T; t++) {
        const i = s * T + t;
        dlogp[i] = mask[i] > 0 ? invN * dr * r * invLen : 0;
      }
    } else {
      let loss = 0, nClip = 0;
      for (let t = 0; t < T; t++) {
        const i = s * T + t;
        if (mask[i] > 0) {
          const rho = tokRatio[i];
          const term = clippedTerm(rho, A, epsLow, epsHigh);
          loss += term.loss;
          if (term.clipped) nClip++;
          dlogp[i] = invN * invLen * term.dr * rho;
        } else dlogp[i] = 0;
      }
      lossSeq[s] = loss * invLen;
      clipSeq[s] = nClip;
    }
    if (beta > 0 && refLogp) {
      for (let t = 0; t < T; t++) {
        const i = s * T + t;
        if (mask[i] > 0) {
          const d = refLogp[i] - logp[i];
          kl += Math.exp(d) - d - 1;
          dlogp[i] += invN * invLen * beta * (1 - Math.exp(d));
        }
      }
    }
    klSeq[s] = kl * invLen;
  }
}

export function rlStats(stats: F, lossSeq: F, klSeq: F, clipSeq: F, ratio: F, tokRatio: F, mask: F,
  S: number, T: number, algorithm: Algorithm, beta: number): void {
  let policy = 0, kl = 0, clip = 0;
  for (let s = 0; s < S; s++) { policy += lossSeq[s]; kl += klSeq[s]; clip += clipSeq[s]; }
  let rSum = 0, rMin = Infinity, rMax = -Infinity, count = 0;
  if (algorithm === 'gspo') {
    for (let s = 0; s < S; s++) { const r = ratio[s]; rSum += r; rMin = Math.min(rMin, r); rMax = Math.max(rMax, r); }
    count = S;
  } else {
    for (let i = 0; i < S * T; i++) if (mask[i] > 0) {
      const r = tokRatio[i]; rSum += r; rMin = Math.min(rMin, r); rMax = Math.max(rMax, r); count++;
    }
  }
  const N = Math.max(1, S);
  stats.fill(0, 0, RL_STATS.size);
  stats[RL_STATS.policyLoss] = policy / N;
  stats[RL_STATS.kl] = beta > 0 ? kl / N : 0;
  stats[RL_STATS.loss] = stats[RL_STATS.policyLoss] + beta * stats[RL_STATS.kl];
  stats[RL_STATS.clipCount] = clip;
  stats[RL_STATS.clipDenom] = count;
  stats[RL_STATS.ratioMean] = count > 0 ? rSum / count : 1;
  stats[RL_STATS.ratioMin] = count > 0 ? rMin : 1;
  stats[RL_STATS.ratioMax] = count > 0 ? rMax : 1;
}
