// The RL objective on plain arrays: advantages, ratios and every loss variant of
// the loss table (src/contract/losses.ts; the math in docs/losses.md). The CPU twin of
// shaders/rl.wgsl.
// Kernel twin: shaders/rl.wgsl (with its parts shaders/rl.loss.wgsl, shaders/rl.stats.wgsl, shaders/rl.policy_loss.wgsl);
// test: test/gpu/rl.test.ts.
import type { AdvantageMode, Algorithm, LossArgs } from '../backend';
import { RL_STATS } from '../backend';
import { AGG_CODE, CLIP_CODE, LEVEL_CODE, LOSSES, tokenStats } from '../contract/losses';
import type { F, I } from './nn';

/** Added to the std before dividing (docs/losses.md) (the one definition; the worker's anatomy uses it too). */
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

/** The clipped surrogate for one ratio: loss, d loss / d ratio, and whether clipping is active (PPO's rule, no delta). */
export function clippedTerm(r: number, A: number, epsLow: number, epsHigh: number): { loss: number; dr: number; clipped: boolean } {
  const rc = Math.min(1 + epsHigh, Math.max(1 - epsLow, r));
  const unclipped = r * A, clippedVal = rc * A;
  // -min(rA, clip(r)A): the gradient flows only through the unclipped branch when it is the minimum
  const clipped = (r < 1 - epsLow && A < 0) || (r > 1 + epsHigh && A > 0);
  return { loss: -Math.min(unclipped, clippedVal), dr: clipped ? 0 : -A, clipped };
}

/**
 * One token's (or sequence's) term under a clip rule (docs/losses.md), for ratio r and advantage A:
 * its value, g = d value / d log pi (the ratio's own log-prob; d r / d log pi = r), and whether it counts as clipped.
 * ppo / two-sided: -min(u, c) with u = r A (two-sided: min(r, delta) A) and c = clip(r, 1-epsLow, 1+epsHigh) A;
 * the gradient follows the smaller branch (u on a tie). cispo: value -w A, g = -w A with w = clip(r) held constant.
 */
export function lossTerm(clip: number, r: number, A: number, epsLow: number, epsHigh: number, delta: number): { value: number; g: number; clipped: boolean } {
  const lo = 1 - epsLow, hi = 1 + epsHigh;
  const w = Math.min(hi, Math.max(lo, r));
  if (clip === CLIP_CODE.cispo) return { value: -w * A, g: -w * A, clipped: r < lo || r > hi };
  const capped = clip === CLIP_CODE['two-sided'] && r > delta;
  const u = (capped ? delta : r) * A, c = w * A;
  const useU = u <= c;
  const slope = useU ? (capped ? 0 : A) : (r >= lo && r <= hi ? A : 0);
  return { value: -Math.min(u, c), g: -slope * r, clipped: A !== 0 && slope === 0 };
}

/** The aggregation's divisor for a minibatch: masked tokens (token-mean), S * maxLen (seq-mean-token-sum-norm), S otherwise. */
export function aggregationNorm(algorithm: Algorithm, mask: ArrayLike<number>, S: number, T: number, maxLen: number): number {
  const agg = LOSSES[algorithm].aggregation;
  if (agg === 'seq-mean-token-sum-norm') return Math.max(1, S * maxLen);
  if (agg === 'seq-mean-token-mean') return Math.max(1, S);
  let n = 0;
  for (let i = 0; i < S * T; i++) if (mask[i] > 0) n++;
  return Math.max(1, n);
}

/**
 * The variant's loss (docs/losses.md): per sequence the weight c_i of its tokens (1/(S |y_i|) for seq-mean-token-mean,
 * 1/norm otherwise), lossSeq_i = c_i sum_t v_t (a sequence-level row: c_i max(1, |y_i|) L_i), klSeq_i = c_i sum_t k3_t,
 * dlogp = c_i (g_t + beta (1 - exp(ref - logp))).
 */
export function clipLoss(lossSeq: F, klSeq: F, clipSeq: F, dlogp: F, logp: F, ratio: F, tokRatio: F, seqAdv: F, mask: F,
  refLogp: F | null, S: number, T: number, args: LossArgs): void {
  const row = LOSSES[args.algorithm];
  const level = LEVEL_CODE[row.level], clip = CLIP_CODE[row.clip], agg = AGG_CODE[row.aggregation];
  const { epsLow, epsHigh, beta, delta } = args;
  for (let s = 0; s < S; s++) {
    const A = seqAdv[s];
    let len = 0;
    for (let t = 0; t < T; t++) if (mask[s * T + t] > 0) len++;
    // a population's sequence carries its member's divisor after the advantages
    const seqs = args.perSequenceNorm ? seqAdv[S + s] : S, norm = args.perSequenceNorm ? seqAdv[S + s] : args.norm;
    const c = agg === AGG_CODE['seq-mean-token-mean'] ? 1 / (Math.max(1, seqs) * Math.max(1, len)) : 1 / norm;
    let loss = 0, nClip = 0, kl = 0;
    if (level === LEVEL_CODE.sequence) {
      const term = lossTerm(clip, ratio[s], A, epsLow, epsHigh, delta);
      loss = Math.max(1, len) * term.value;
      nClip = term.clipped ? 1 : 0;
      for (let t = 0; t < T; t++) { const i = s * T + t; dlogp[i] = mask[i] > 0 ? c * term.g : 0; }
    } else {
      for (let t = 0; t < T; t++) {
        const i = s * T + t;
        if (mask[i] > 0) {
          const term = lossTerm(clip, tokRatio[i], A, epsLow, epsHigh, delta);
          loss += term.value;
          if (term.clipped) nClip++;
          dlogp[i] = c * term.g;
        } else dlogp[i] = 0;
      }
    }
    lossSeq[s] = c * loss;
    clipSeq[s] = nClip;
    if (beta > 0 && refLogp) {
      for (let t = 0; t < T; t++) {
        const i = s * T + t;
        if (mask[i] > 0) {
          const d = refLogp[i] - logp[i];
          kl += Math.exp(d) - d - 1;
          dlogp[i] += c * beta * (1 - Math.exp(d));
        }
      }
    }
    klSeq[s] = c * kl;
  }
}

export function rlStats(stats: F, lossSeq: F, klSeq: F, clipSeq: F, ratio: F, tokRatio: F, mask: F,
  S: number, T: number, algorithm: Algorithm, beta: number): void {
  let policy = 0, kl = 0, clip = 0;
  for (let s = 0; s < S; s++) { policy += lossSeq[s]; kl += klSeq[s]; clip += clipSeq[s]; }
  let rSum = 0, rMin = Infinity, rMax = -Infinity, count = 0;
  if (!tokenStats(algorithm)) {
    for (let s = 0; s < S; s++) { const r = ratio[s]; rSum += r; rMin = Math.min(rMin, r); rMax = Math.max(rMax, r); }
    count = S;
  } else {
    for (let i = 0; i < S * T; i++) if (mask[i] > 0) {
      const r = tokRatio[i]; rSum += r; rMin = Math.min(rMin, r); rMax = Math.max(rMax, r); count++;
    }
  }
  stats.fill(0, 0, RL_STATS.size);
  stats[RL_STATS.policyLoss] = policy;
  stats[RL_STATS.kl] = beta > 0 ? kl : 0;
  stats[RL_STATS.loss] = stats[RL_STATS.policyLoss] + beta * stats[RL_STATS.kl];
  stats[RL_STATS.clipCount] = clip;
  stats[RL_STATS.clipDenom] = count;
  stats[RL_STATS.ratioMean] = count > 0 ? rSum / count : 1;
  stats[RL_STATS.ratioMin] = count > 0 ? rMin : 1;
  stats[RL_STATS.ratioMax] = count > 0 ? rMax : 1;
}
