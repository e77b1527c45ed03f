// The policy objective of a population's minibatch: every member's sequences in one
// batch (member-major) through one GPT of K members, in the dispatches of one run's
// minibatch. What differs from PolicyObjective (objective.ts): the forward and backward
// take each member's sequence count, each member's loss is normalised over its own
// sequences (the divisors ride after the advantages in seqAdv), and the stats are
// reduced per member on the host from the per-sequence outputs (one readback).
import { RL_STATS, type AdvantageMode, type Backend, type Tensor } from '../backend';
import { DEFAULTS } from '../config';
import { LOSSES } from '../losses';
import { aggregationNorm, rlStats } from '../reference/rl';
import type { GPT } from '../model/gpt';
import { BatchAdvantages, lossTensors, type ObjectiveConfig, type ObjectiveStats, type PolicyBatch } from './objective';

/** A population's minibatch: a PolicyBatch of every member's rows and how many of them each member owns. */
export interface MemberBatch { batch: PolicyBatch; seqs: number[]; tMax: number[] }

export class PopulationObjective {
  private readonly a: BatchAdvantages;
  private byShape = new Map<string, Record<string, Tensor>>();
  private t: Record<string, Tensor> = {};

  constructor(private readonly backend: Backend) { this.a = new BatchAdvantages(backend); }

  private buffers(S: number, T: number): Record<string, Tensor> {
    const key = `${S}x${T}`;
    const hit = this.byShape.get(key);
    if (hit) return hit;
    const b = this.backend;
    const t = lossTensors(b, S, T, 2 * S); // advantages, then each sequence's divisor
    t.seqAdvHead = b.view(t.seqAdv, 0, S);
    this.byShape.set(key, t);
    return t;
  }

  /** Advantages of every member's groups at once (groups never span members, so each member's are its own). */
  advantages(rewards: Float32Array, groupStart: Int32Array, mode: AdvantageMode): void {
    // 'batch' normalises by the whole batch's std, which would mix members: a population refuses it (populationPlan.ts)
    if (mode === 'batch') throw new Error('a population cannot normalise advantages by the batch (it would mix members)');
    this.a.record(rewards, groupStart, mode);
  }

  /**
   * Forward, loss and backward of one population minibatch (its seqEpisode indexes the last `advantages`' episodes);
   * model.grads accumulates each member's gradient into its own copy.
   */
  recordMinibatch(model: GPT, mb: MemberBatch, cfg: ObjectiveConfig, refParams?: Tensor): void {
    const b = this.backend, { batch, seqs } = mb, { S, T } = batch, V = model.config.vocabSize;
    const t = (this.t = this.buffers(S, T));
    b.write(t.targets, batch.targets);
    b.write(t.mask, batch.mask);
    b.write(t.oldLogp, batch.oldLogp);
    b.write(t.seqEpisode, batch.seqEpisode);
    b.write(t.seqAdv, memberDivisors(cfg, mb, model.config.blockSize), S);
    if (cfg.beta > 0) {
      if (!refParams) throw new Error('beta > 0 needs the reference weights');
      const refLogits = model.forward(batch.tokens, S, T, refParams, seqs);
      b.logprobForward(t.refLogp, t.refEntropy, refLogits, t.targets, S * T, V, cfg.temperature);
    }
    b.gather(t.seqAdvHead, this.a.adv, t.seqEpisode, S);
    const logits = model.forward(batch.tokens, S, T, undefined, seqs);
    b.logprobForward(t.logp, t.entropy, logits, t.targets, S * T, V, cfg.temperature);
    b.seqRatio(t.logS, t.ratio, t.tokRatio, t.logp, t.oldLogp, t.mask, S, T);
    b.clipLoss(t.lossSeq, t.klSeq, t.clipSeq, t.dlogp, t.logp, t.ratio, t.tokRatio, t.seqAdv, t.mask, cfg.beta > 0 ? t.refLogp : null, S, T,
      { algorithm: cfg.algorithm, epsLow: cfg.epsLow, epsHigh: cfg.epsHigh, beta: cfg.beta, delta: cfg.delta ?? DEFAULTS.delta, norm: 1, perSequenceNorm: true });
    b.logprobBackward(model.dlogits(), t.dlogp, logits, t.targets, S * T, V, cfg.temperature);
    model.backward();
  }

  /**
   * Each member's stats of the last minibatch (a sync point: call after a submit), as PolicyObjective's for a
   * lone run: the reduction of rlStats over the member's sequences; normSq [K] the optimizer's measured norms.
   */
  async readStats(mb: MemberBatch, cfg: ObjectiveConfig, normSq: Tensor, fracZeroStd: number[]): Promise<ObjectiveStats[]> {
    const b = this.backend, t = this.t, { batch, seqs } = mb, T = batch.T;
    const [lossSeq, klSeq, clipSeq, ratio, tokRatio, entropy, norms] = await Promise.all(
      [t.lossSeq, t.klSeq, t.clipSeq, t.ratio, t.tokRatio, t.entropy, normSq].map((x) => b.read(x).then((r) => Float32Array.from(r))));
    const out: ObjectiveStats[] = [];
    const stats = new Float32Array(RL_STATS.size);
    let s0 = 0;
    seqs.forEach((S, k) => {
      const rows = (x: Float32Array) => x.subarray(s0, s0 + S), cells = (x: Float32Array) => x.subarray(s0 * T, (s0 + S) * T);
      const mask = batch.mask.subarray(s0 * T, (s0 + S) * T);
      rlStats(stats, rows(lossSeq), rows(klSeq), rows(clipSeq), rows(ratio), cells(tokRatio), mask, S, T, cfg.algorithm, cfg.beta);
      let entSum = 0, n = 0;
      const ent = cells(entropy);
      for (let i = 0; i < mask.length; i++) if (mask[i] > 0) { entSum += ent[i]; n++; }
      out.push({
        loss: stats[RL_STATS.loss], policyLoss: stats[RL_STATS.policyLoss], kl: stats[RL_STATS.kl],
        clipFrac: stats[RL_STATS.clipDenom] > 0 ? stats[RL_STATS.clipCount] / stats[RL_STATS.clipDenom] : 0,
        ratioMean: stats[RL_STATS.ratioMean], ratioMin: stats[RL_STATS.ratioMin], ratioMax: stats[RL_STATS.ratioMax],
        entropy: n > 0 ? entSum / n : 0, fracZeroStd: fracZeroStd[k], gradNormSq: norms[k],
      });
      s0 += S;
    });
    return out;
  }

  destroy(): void {
    for (const t of this.byShape.values()) for (const [k, x] of Object.entries(t)) if (k !== 'seqAdvHead') this.backend.free(x);
    this.a.free();
    this.byShape.clear();
    this.t = {};
  }
}

/**
 * Each sequence's divisor, its member's as in the member's lone minibatch: the member's sequence count
 * (seq-mean-token-mean) or its `aggregationNorm` over the member's own rows (masked tokens, or S x L_max).
 */
export function memberDivisors(cfg: ObjectiveConfig, mb: MemberBatch, blockSize: number): Float32Array {
  const { batch, seqs } = mb, T = batch.T, out = new Float32Array(batch.S);
  const seqMean = LOSSES[cfg.algorithm].aggregation === 'seq-mean-token-mean';
  let s0 = 0;
  seqs.forEach((S, k) => {
    const d = seqMean ? S : aggregationNorm(cfg.algorithm, batch.mask.subarray(s0 * T, (s0 + S) * T), S, T, mb.tMax[k] ?? blockSize);
    out.fill(d, s0, s0 + S);
    s0 += S;
  });
  return out;
}
