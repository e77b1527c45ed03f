// FLOP counts of the GPT (nanoGPT layout, tied head) for speed figures: bench's
// GFLOP/s and the page's device panel. Pure arithmetic, no backend.
//
// What is counted: the matrix multiplies only, 2 FLOPs per multiply-add.
// Layernorm, GELU, softmax, the embedding, the loss and AdamW are left out
// (at these widths they are a few percent). Attention is causal: query t
// attends to t + 1 keys. Backward = 2 x forward (each matmul has a dinp and a
// dweight product). Generation is counted as the work a KV cache needs (each
// token fed once, attending to its prefix; a context that several sequences of a
// turn share, a group's prompt, prefilled once; of a context's positions before
// its last, only every layer's q, k, v and the layers below the last: no logits
// are sampled there), whatever the implementation does: a generator that
// recomputes the prefix per token executes more than this.
import type { GPTConfig } from './params';

export type FlopShape = Pick<GPTConfig, 'nLayer' | 'nEmbd' | 'vocabSize'>;

/** One forward's matmul FLOPs over B sequences of T tokens by kind: the dense layers and the head, and attention's q.k and att.v (causal). */
export function forwardFlopKinds(cfg: FlopShape, B: number, T: number): { dense: number; attention: number } {
  const L = cfg.nLayer, C = cfg.nEmbd, V = cfg.vocabSize;
  // per token and layer: qkv 2*C*3C, attn proj 2*C*C, fc 2*C*4C, mlp proj 2*4C*C = 24 C^2; the head 2*C*V
  const dense = T * (L * 24 * C * C + 2 * C * V);
  // per layer: q.k and att.v, each 2*C*(t+1) for query t: sum over t = 2 C T (T + 1)
  const attention = L * 2 * C * T * (T + 1);
  return { dense: B * dense, attention: B * attention };
}

/** Matmul FLOPs of one forward over B sequences of T tokens (causal attention). */
export function forwardFlops(cfg: FlopShape, B: number, T: number): number {
  const { dense, attention } = forwardFlopKinds(cfg, B, T);
  return dense + attention;
}

/** Forward and backward over B sequences of T tokens (backward = 2 x forward). */
export function trainFlops(cfg: FlopShape, B: number, T: number): number {
  return 3 * forwardFlops(cfg, B, T);
}

/**
 * A prefill of one context of c tokens: the last position whole; the c - 1 before it through every layer's q, k, v
 * (the cache) and the layers below the last, without the last layer's attention, projections and MLP, nor the head
 * (18 C^2 + 2 C V each, and 4 C (t + 1) of attention at position t).
 */
export function prefillFlopKinds(cfg: FlopShape, c: number): FlopKinds {
  const { dense, attention } = forwardFlopKinds(cfg, 1, c), C = cfg.nEmbd, V = cfg.vocabSize, before = Math.max(0, c - 1);
  return { dense: dense - before * (18 * C * C + 2 * C * V), attention: attention - 2 * C * before * (before + 1) };
}

/**
 * Generating `newTokens` after `contextLen` tokens: the context's prefill, then the tokens fed after it (the last one
 * sampled is never fed), each attending to its prefix.
 */
export function generationFlops(cfg: FlopShape, contextLen: number, newTokens: number): number {
  if (newTokens <= 0) return 0;
  const p = prefillFlopKinds(cfg, contextLen);
  return p.dense + p.attention + forwardFlops(cfg, 1, contextLen + newTokens - 1) - forwardFlops(cfg, 1, contextLen);
}

/** The shape of one RL step, as the Trainer ran it. */
export interface RlStepShape {
  /**
   * Every generated sequence: its context length, how many tokens it generated, and how many sequences share its
   * context's prefill (`share`, default 1: a group's G episodes of one prompt share it, each counted 1 / G of it).
   */
  sequences: { context: number; generated: number; share?: number }[];
  /** Each minibatch's loss rows and their length T (padded to the longest sequence, see Trainer rowLength). */
  minibatches: { rows: number; T: number }[];
  /** A reference-model forward per row as well (beta > 0). */
  refForward: boolean;
}

/** FLOPs by kind: the dense layers and the head; attention's q.k and att.v. */
export interface FlopKinds { dense: number; attention: number }

/**
 * One RL step's matmul FLOPs by part and kind: the rollout's generation (KV-cache count: each generated sequence
 * one forward over the tokens it fed, its context's as a prefill, prefillFlopKinds) and the update's forward and backward of the loss rows (+ the reference forward).
 */
export function rlStepFlopSplit(cfg: FlopShape, s: RlStepShape): { rollout: FlopKinds; update: FlopKinds } {
  const split = { rollout: { dense: 0, attention: 0 }, update: { dense: 0, attention: 0 } };
  const add = (into: FlopKinds, x: FlopKinds, times: number) => { into.dense += times * x.dense; into.attention += times * x.attention; };
  for (const q of s.sequences) {
    if (q.generated <= 0) continue;
    // the tokens fed after the context, each attending to its prefix; then the context's prefill, shared by q.share sequences
    add(split.rollout, forwardFlopKinds(cfg, 1, q.context + q.generated - 1), 1);
    add(split.rollout, forwardFlopKinds(cfg, 1, q.context), -1);
    add(split.rollout, prefillFlopKinds(cfg, q.context), 1 / (q.share ?? 1));
  }
  for (const m of s.minibatches) add(split.update, forwardFlopKinds(cfg, m.rows, m.T), s.refForward ? 4 : 3);
  return split;
}

/** Matmul FLOPs of one RL step's two parts (rlStepFlopSplit summed over kinds). */
export function rlStepFlopParts(cfg: FlopShape, s: RlStepShape): { rollout: number; update: number } {
  const { rollout, update } = rlStepFlopSplit(cfg, s);
  return { rollout: rollout.dense + rollout.attention, update: update.dense + update.attention };
}

/**
 * One RL step's FLOPs by kind (rlStepFlopSplit summed over parts), for the time each kind of op takes; `decode`: the
 * part of them in the rollout's decode steps (the tokens fed after the prefill), where a backend runs each step as one op.
 */
export function rlStepFlopKinds(cfg: FlopShape, s: RlStepShape): FlopKinds & { decode: FlopKinds } {
  const { rollout, update } = rlStepFlopSplit(cfg, s);
  return { dense: rollout.dense + update.dense, attention: rollout.attention + update.attention, decode: decodeFlopKinds(cfg, s) };
}

/**
 * The rollout's decode steps by kind: a sequence of `context` tokens that generated g feeds positions context to
 * context + g - 2 one at a time after its prefill, each the dense layers and the head for one token and attention
 * over t + 1 cached keys at position t.
 */
export function decodeFlopKinds(cfg: FlopShape, s: RlStepShape): FlopKinds {
  const L = cfg.nLayer, C = cfg.nEmbd, V = cfg.vocabSize, out = { dense: 0, attention: 0 };
  for (const q of s.sequences) {
    const steps = q.generated - 1;
    if (steps <= 0) continue;
    out.dense += steps * (L * 24 * C * C + 2 * C * V);
    // sum over t = context .. context + steps - 1 of 4 L C (t + 1)
    out.attention += 4 * L * C * (steps * (q.context + 1) + (steps * (steps - 1)) / 2);
  }
  return out;
}

/** Matmul FLOPs of one RL step: rollout + update (the reward computes none). */
export function rlStepFlops(cfg: FlopShape, s: RlStepShape): number {
  const { rollout, update } = rlStepFlopParts(cfg, s);
  return rollout + update;
}
