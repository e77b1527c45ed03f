// Bindings of shaders/rl.wgsl: 1 out, 2 src, 3 index, 4 adv, 5 advStats, 6 rewards, 7 groupStart,
// 8 logS, 9 ratio, 10 tokRatio, 11 logp, 12 oldLogp, 13 mask, 14 lossSeq, 15 klSeq, 16 clipSeq,
// 17 dlogp, 18 seqAdv, 19 refLogp, 20 stats.
import type { AdvantageMode, Algorithm, LossArgs } from '../../backend';
import { AGG_CODE, CLIP_CODE, LEVEL_CODE, LOSSES } from '../../losses';
import { grid1D, type Bindings, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 64;
const kernel = (entry: string) => ({ shader: 'rl', entry, constants: { WG } });
// Entry points with a fixed workgroup size take no override constants.
const fixed = (entry: string) => ({ shader: 'rl', entry });
const FORMAT = 'uuuuuuufffuuuffu'; // n, E, P, mode, S, T, hasRef, epsLow, epsHigh, beta, level, clip, agg, delta, norm, perSeqNorm
const MODES: Record<AdvantageMode, number> = { group: 0, none: 1, batch: 2 };

interface RlSizes {
  n?: number; E?: number; P?: number; mode?: number; S?: number; T?: number;
  hasRef?: boolean; epsLow?: number; epsHigh?: number; beta?: number;
  level?: number; clip?: number; agg?: number; delta?: number; norm?: number; perSeqNorm?: boolean;
}

function params(s: RlSizes): number[] {
  return [s.n ?? 0, s.E ?? 0, s.P ?? 0, s.mode ?? 0, s.S ?? 0, s.T ?? 0, s.hasRef ? 1 : 0,
    s.epsLow ?? 0, s.epsHigh ?? 0, s.beta ?? 0, s.level ?? 0, s.clip ?? 0, s.agg ?? 0, s.delta ?? 0, s.norm ?? 1, s.perSeqNorm ? 1 : 0];
}

export function gather(k: KernelContext, out: GpuTensor, src: GpuTensor, index: GpuTensor, n: number): void {
  k.dispatch(kernel('gather_forward'), FORMAT, params({ n }), { 1: out, 2: src, 3: index }, grid1D(n, WG));
}

export function groupNormalize(k: KernelContext, adv: GpuTensor, stats: GpuTensor, rewards: GpuTensor, groupStart: GpuTensor,
  E: number, P: number, mode: AdvantageMode): void {
  const p = params({ E, P, mode: MODES[mode] });
  k.dispatch(kernel('group_normalize'), FORMAT, p, { 4: adv, 6: rewards, 7: groupStart }, grid1D(P, WG));
  k.dispatch(fixed('group_normalize_stats'), FORMAT, p, { 5: stats, 6: rewards, 7: groupStart }, [1, 1, 1]);
}

export function seqRatio(k: KernelContext, logS: GpuTensor, ratio: GpuTensor, tokRatio: GpuTensor, logp: GpuTensor,
  oldLogp: GpuTensor, mask: GpuTensor, S: number, T: number): void {
  k.dispatch(kernel('seq_ratio'), FORMAT, params({ S, T }),
    { 8: logS, 9: ratio, 10: tokRatio, 11: logp, 12: oldLogp, 13: mask }, grid1D(S, WG));
}

/** The _seq or _tok entry of a variant (by its importance level in the loss table). */
const suffix = (algorithm: Algorithm) => (LEVEL_CODE[LOSSES[algorithm].level] === LEVEL_CODE.token ? 'tok' : 'seq');

export function clipLoss(k: KernelContext, lossSeq: GpuTensor, klSeq: GpuTensor, clipSeq: GpuTensor, dlogp: GpuTensor,
  logp: GpuTensor, ratio: GpuTensor, tokRatio: GpuTensor, seqAdv: GpuTensor, mask: GpuTensor, refLogp: GpuTensor | null,
  S: number, T: number, loss: LossArgs): void {
  const { algorithm, epsLow, epsHigh, beta, delta, norm, perSequenceNorm } = loss;
  if (beta !== 0 && !refLogp) throw new Error('clipLoss: beta > 0 needs refLogp');
  const row = LOSSES[algorithm];
  // The KL term (value and gradient) exists only when beta > 0, as in the reference.
  const p = params({ S, T, hasRef: refLogp !== null && beta > 0, epsLow, epsHigh, beta,
    level: LEVEL_CODE[row.level], clip: CLIP_CODE[row.clip], agg: AGG_CODE[row.aggregation], delta, norm, perSeqNorm: perSequenceNorm });
  const ref = refLogp ?? k.dummy;
  // Sequence-level rows read the sequence ratio s_i, token-level ones the token ratios rho_t.
  const level = suffix(algorithm);
  const r: Bindings = level === 'seq' ? { 9: ratio } : { 10: tokRatio };
  k.dispatch(kernel(`clip_loss_${level}`), FORMAT, p,
    { 11: logp, 13: mask, 14: lossSeq, 15: klSeq, 16: clipSeq, 18: seqAdv, 19: ref, ...r }, grid1D(S, WG));
  k.dispatch(kernel(`clip_grad_${level}`), FORMAT, p,
    { 11: logp, 13: mask, 17: dlogp, 18: seqAdv, 19: ref, ...r }, grid1D(S * T, WG));
}

export function rlStats(k: KernelContext, stats: GpuTensor, lossSeq: GpuTensor, klSeq: GpuTensor, clipSeq: GpuTensor,
  ratio: GpuTensor, tokRatio: GpuTensor, mask: GpuTensor, S: number, T: number, algorithm: Algorithm, beta: number): void {
  k.dispatch(fixed(`rl_stats_${suffix(algorithm)}`), FORMAT, params({ S, T, beta }),
    { 9: ratio, 10: tokRatio, 13: mask, 14: lossSeq, 15: klSeq, 16: clipSeq, 20: stats }, [1, 1, 1]);
}
