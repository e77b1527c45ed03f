// Bindings of shaders/rl.wgsl: 1 out, 2 src, 3 index, 4 adv, 5 advStats, 6 rewards, 7 groupStart,
// 8 logS, 9 ratio, 10 tokRatio, 11 logp, 12 oldLogp, 13 mask, 14 lossSeq, 15 klSeq, 16 clipSeq,
// 17 dlogp, 18 seqAdv, 19 refLogp, 20 stats, 21 outs (policy_loss's outputs).
import type { AdvantageMode, Algorithm, LossArgs, PolicyLossArgs } from '../../backend';
import { AGG_CODE, CLIP_CODE, LEVEL_CODE, LOSSES } from '../../contract/losses';
import { grid1D, type Bindings, type KernelContext } from '../runtime';
import { GpuTensor, asGpu } from '../tensor';

const WG = 64;
const kernel = (entry: string) => ({ shader: 'rl', entry, constants: { WG } });
// Entry points with a fixed workgroup size take no override constants.
const fixed = (entry: string) => ({ shader: 'rl', entry });
// n, E, P, mode, S, T, hasRef, epsLow, epsHigh, beta, level, clip, agg, delta, norm, perSeqNorm,
// then policy_loss's withStats and its outputs' offsets in outs (adv, logS, ratio, loss, kl, clip, tokRatio, dlogp)
const FORMAT = 'uuuuuuufffuuuffuuuuuuuuuu';
const NO_OFFSETS = [0, 0, 0, 0, 0, 0, 0, 0, 0];
const MODES: Record<AdvantageMode, number> = { group: 0, none: 1, batch: 2 };

interface RlSizes {
  n?: number; E?: number; P?: number; mode?: number; S?: number; T?: number;
  hasRef?: boolean; epsLow?: number; epsHigh?: number; beta?: number;
  level?: number; clip?: number; agg?: number; delta?: number; norm?: number; perSeqNorm?: boolean;
}

function params(s: RlSizes): number[] {
  return [s.n ?? 0, s.E ?? 0, s.P ?? 0, s.mode ?? 0, s.S ?? 0, s.T ?? 0, s.hasRef ? 1 : 0,
    s.epsLow ?? 0, s.epsHigh ?? 0, s.beta ?? 0, s.level ?? 0, s.clip ?? 0, s.agg ?? 0, s.delta ?? 0, s.norm ?? 1, s.perSeqNorm ? 1 : 0,
    ...NO_OFFSETS];
}

export function gather(k: KernelContext, out: GpuTensor, src: GpuTensor, index: GpuTensor, n: number): void {
  k.dispatch(kernel('gather_forward'), FORMAT, params({ n }), { 1: out, 2: src, 3: index }, grid1D(n, WG));
}

export function groupNormalize(k: KernelContext, adv: GpuTensor, stats: GpuTensor, rewards: GpuTensor, groupStart: GpuTensor,
  E: number, P: number, mode: AdvantageMode): void {
  const p = params({ E, P, mode: MODES[mode] });
  // at least one invocation: the stats are written by invocation 0 even with no group
  k.dispatch(kernel('group_normalize'), FORMAT, p, { 4: adv, 5: stats, 6: rewards, 7: groupStart }, grid1D(Math.max(P, 1), WG));
}

export function seqRatio(k: KernelContext, logS: GpuTensor, ratio: GpuTensor, tokRatio: GpuTensor, logp: GpuTensor,
  oldLogp: GpuTensor, mask: GpuTensor, S: number, T: number): void {
  k.dispatch(kernel('seq_ratio'), FORMAT, params({ S, T }),
    { 8: logS, 9: ratio, 10: tokRatio, 11: logp, 12: oldLogp, 13: mask }, grid1D(S, WG));
}

/** The uniform's loss fields; the KL term (value and gradient) exists only when beta > 0, as in the reference. */
function lossSizes(S: number, T: number, loss: LossArgs, hasRef: boolean): RlSizes {
  const { algorithm, epsLow, epsHigh, beta, delta, norm, perSequenceNorm } = loss, row = LOSSES[algorithm];
  return { S, T, hasRef: hasRef && beta > 0, epsLow, epsHigh, beta,
    level: LEVEL_CODE[row.level], clip: CLIP_CODE[row.clip], agg: AGG_CODE[row.aggregation], delta, norm, perSeqNorm: perSequenceNorm };
}

/** The _seq or _tok entry of a variant (by its importance level in the loss table). */
const suffix = (algorithm: Algorithm) => (LEVEL_CODE[LOSSES[algorithm].level] === LEVEL_CODE.token ? 'tok' : 'seq');

export function clipLoss(k: KernelContext, lossSeq: GpuTensor, klSeq: GpuTensor, clipSeq: GpuTensor, dlogp: GpuTensor,
  logp: GpuTensor, ratio: GpuTensor, tokRatio: GpuTensor, seqAdv: GpuTensor, mask: GpuTensor, refLogp: GpuTensor | null,
  S: number, T: number, loss: LossArgs): void {
  if (loss.beta !== 0 && !refLogp) throw new Error('clipLoss: beta > 0 needs refLogp');
  const p = params(lossSizes(S, T, loss, refLogp !== null));
  const ref = refLogp ?? k.dummy;
  // Sequence-level rows read the sequence ratio s_i, token-level ones the token ratios rho_t.
  const level = suffix(loss.algorithm);
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

/**
 * The most tokens policy_loss takes: its one workgroup walks them all (256 invocations, a few passes each), where
 * the four ops' grids spread them over the device. At the page's sizes a minibatch holds a few thousand (a
 * population of 16 about 50,000); past this the four dispatches cost less than the walk.
 */
export const POLICY_LOSS_MAX_TOKENS = 1 << 16;

/**
 * policyLoss in one dispatch (policy_loss, one workgroup) when its outputs are views of one buffer and no input shares
 * it: then one binding spans them all (from the lowest view, whose offset is aligned). false: not laid out so, or
 * over POLICY_LOSS_MAX_TOKENS (the caller composes the four ops).
 */
export function policyLoss(k: KernelContext, a: PolicyLossArgs): boolean {
  const { S, T, loss } = a;
  if (loss.beta !== 0 && !a.refLogp) throw new Error('policyLoss: beta > 0 needs refLogp');
  if (S * T > POLICY_LOSS_MAX_TOKENS) return false;
  const outs = [a.seqAdv, a.logS, a.ratio, a.lossSeq, a.klSeq, a.clipSeq, a.tokRatio, a.dlogp].map(asGpu);
  const buffer = outs[0].buffer;
  const inputs = [a.adv, a.seqEpisode, a.logp, a.oldLogp, a.mask, a.refLogp, a.stats].filter((t) => t !== null).map(asGpu);
  if (outs.some((t) => t.buffer !== buffer) || inputs.some((t) => t.buffer === buffer)) return false;
  const lo = Math.min(...outs.map((t) => t.byteOffset)), hi = Math.max(...outs.map((t) => t.byteOffset + t.byteLength));
  const span = new GpuTensor(buffer, lo, (hi - lo) / 4, 'f32', true), at = (t: GpuTensor) => (t.byteOffset - lo) / 4;
  const p = params(lossSizes(S, T, loss, a.refLogp !== null));
  p.splice(16, 9, a.stats ? 1 : 0, ...outs.map(at));
  k.dispatch(fixed('policy_loss'), FORMAT, p, {
    3: asGpu(a.seqEpisode), 4: asGpu(a.adv), 11: asGpu(a.logp), 12: asGpu(a.oldLogp), 13: asGpu(a.mask),
    19: a.refLogp ? asGpu(a.refLogp) : k.dummy, 20: a.stats ? asGpu(a.stats) : k.scratch('rl.noStats', 8), 21: span,
  }, [1, 1, 1]);
  return true;
}
