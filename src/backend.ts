// The one Backend interface. Three implementations: WebGPU (src/gpu, shaders/*.wgsl), the CPU
// reference (src/reference), and the CPU engine (src/simd: WebAssembly SIMD kernels from
// shaders/simd). Model and RL code call only these ops.
//
// Conventions (after llm.c):
// - arguments: outputs first, then inputs, then sizes;
// - every *Backward op ACCUMULATES (+=) into its gradient outputs; the caller
//   zeroes gradient buffers once per step. Forward ops overwrite (=) outputs.
// - matrices are row-major; Linear weights are [out, in] (PyTorch convention).
// - ops are recorded in order; on WebGPU nothing reaches the device until
//   `submit()`. `read` submits what is pending and waits (a sync point).

import type { LossId } from './contract/losses';

export type DType = 'f32' | 'i32';

/** A handle to backend-owned memory. Never touched outside its backend. */
export interface Tensor {
  readonly size: number; // elements
  readonly dtype: DType;
}

/** Numbers read back from a backend: f32 tensors as Float32Array (Float64Array on the f64 CPU backend). */
export type FloatArray = Float32Array | Float64Array;

export type AdvantageMode = 'group' | 'none' | 'batch';
/** A policy-loss variant: a row of the loss table (src/contract/losses.ts). */
export type Algorithm = LossId;

/** What clipLoss needs of a variant and the run: the row id, clip ranges, KL weight, the two-sided cap, and the aggregation's divisor. */
export interface LossArgs {
  algorithm: Algorithm;
  epsLow: number;
  epsHigh: number;
  beta: number;
  /** The two-sided clip's cap on the ratio (read only by rows whose clip is two-sided). */
  delta: number;
  /** The divisor of token-mean (masked tokens of the minibatch) or seq-mean-token-sum-norm (S * L_max); see `aggregationNorm`. */
  norm: number;
  /**
   * A population's minibatch: seqAdv holds [2S], the advantages then each sequence's own divisor (its member's
   * sequence count for seq-mean-token-mean, its member's `norm` otherwise), so each member is normalised over its
   * own sequences as in its lone run. `norm` is then unused.
   */
  perSequenceNorm?: boolean;
}

/**
 * `policyLoss`'s tensors: a minibatch's whole loss, from the episodes' advantages to the stats. Inputs: adv [E],
 * seqEpisode (i32 [S]), logp, oldLogp, mask [S,T], refLogp (null when beta = 0). Outputs as the four ops write them:
 * seqAdv [S] (with perSequenceNorm [2S]: the divisors after, read), logS, ratio, lossSeq, klSeq, clipSeq [S], tokRatio,
 * dlogp [S,T], and stats (RL_STATS; null: not reduced, as a population's, whose host reduces each member's).
 */
export interface PolicyLossArgs {
  S: number; T: number; loss: LossArgs;
  adv: Tensor; seqEpisode: Tensor; logp: Tensor; oldLogp: Tensor; mask: Tensor; refLogp: Tensor | null;
  seqAdv: Tensor; logS: Tensor; ratio: Tensor; tokRatio: Tensor; lossSeq: Tensor; klSeq: Tensor; clipSeq: Tensor; dlogp: Tensor;
  stats: Tensor | null;
}

export interface AdamWParams {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  step: number; // 1-based, for bias correction
}

/** Fixed layout of the stats vector written by `rlStats` (indices). */
export const RL_STATS = {
  loss: 0, // policyLoss + beta * kl
  policyLoss: 1, // the variant's aggregation of its per-token terms (sum of lossSeq)
  kl: 2, // the k3 KL, aggregated as the policy terms (0 when beta = 0)
  clipCount: 3, // sequences (sequence-level rows) or tokens (token-level rows) where clipping is active
  clipDenom: 4, // sequences or masked tokens
  ratioMean: 5, // mean of s_i (sequence-level) or of rho_t over masked tokens (token-level)
  ratioMin: 6,
  ratioMax: 7,
  size: 8,
} as const;

/** Fixed layout of `groupNormalize`'s stats output. */
export const ADV_STATS = { zeroStdGroups: 0, groups: 1, size: 2 } as const;

/**
 * Members of a population stacked in one set of buffers (member-major): K runs of one model shape.
 * - Parameters, their gradients and AdamW moments: member k's copy of a parameter tensor sits `paramStride`
 *   elements after member k-1's (the flat vectors side by side: paramStride = numParams, and the tensor passed
 *   is a view from member 0's copy long enough to reach member K-1's). Without paramStride each tensor is
 *   packed [K, ...] and its stride is its size / K.
 * - Rows (activations, tokens): one batch, member k owning rows [rowStart[k], rowStart[k+1]) of the op
 *   (CSR offsets over the op's own rows: token rows for a forward, sequences for embeddingLast); a member
 *   may own no rows. A member op's N is rowStart[K].
 * The optimizer ops need only the stack (K, paramStride): their segments are the flat vectors.
 */
export interface MemberStack {
  readonly K: number;
  readonly paramStride?: number;
}
export interface Members extends MemberStack {
  readonly rowStart: Tensor; // i32 [K+1] on this backend
  readonly rowStartHost: Int32Array; // the same offsets on the host: plans and grids are sized from them, no readback
  readonly maxRows: number; // the largest member's row count (grids cover maxRows x K)
}
/** AdamW over stacked members: each member its own learning rate (f32 [K] on the backend); other hyperparameters shared. */
export interface MemberOptim extends MemberStack {
  readonly lr: Tensor;
}

/** Members over rows from host offsets (the caller writes rowStart to the backend; see memberRows). */
export function membersOf(rowStart: Tensor, rowStartHost: Int32Array, paramStride?: number): Members {
  const K = rowStartHost.length - 1;
  if (K < 1) throw new Error('members: rowStart needs K + 1 >= 2 offsets');
  let maxRows = 0;
  for (let k = 0; k < K; k++) {
    const rows = rowStartHost[k + 1] - rowStartHost[k];
    if (rows < 0) throw new Error(`members: rowStart decreases at member ${k}`);
    maxRows = Math.max(maxRows, rows);
  }
  if (rowStartHost[0] !== 0) throw new Error('members: rowStart[0] must be 0');
  return { K, rowStart, rowStartHost, maxRows, paramStride };
}

/** Allocates and writes rowStart on the backend from per-member row counts. */
export function memberRows(b: Backend, counts: readonly number[], paramStride?: number): Members {
  const host = new Int32Array(counts.length + 1);
  counts.forEach((c, k) => { host[k + 1] = host[k] + c; });
  const t = b.alloc(host.length, 'i32');
  b.write(t, host);
  return membersOf(t, host, paramStride);
}

/** A member op's N (its rows in all) must be the last offset. */
export function checkMemberRows(m: Members, N: number): void {
  if (m.rowStartHost.length !== m.K + 1 || m.rowStartHost[m.K] !== N) {
    throw new Error(`members: rowStart [${m.rowStartHost.length}] ends at ${m.rowStartHost[m.K]} but the op has N = ${N} rows (K = ${m.K})`);
  }
}

/** Elements between consecutive members' copies of a parameter tensor t. */
export function memberStride(t: Tensor, m: MemberStack): number {
  if (m.paramStride !== undefined) return m.paramStride;
  if (t.size % m.K !== 0) throw new Error(`members: a packed tensor of ${t.size} elements does not split into K = ${m.K}`);
  return t.size / m.K;
}

/** One block's weights (nanoGPT names), views of a GPT's flat vector. */
export interface BlockWeights {
  ln1w: Tensor; ln1b: Tensor; qkvw: Tensor; qkvb: Tensor; attprojw: Tensor; attprojb: Tensor;
  ln2w: Tensor; ln2b: Tensor; fcw: Tensor; fcb: Tensor; fcprojw: Tensor; fcprojb: Tensor;
}
/** A GPT's weights as views of one flat vector (a population's: from member 0's copy, the members at paramStride). */
export interface ModelWeights { wte: Tensor; wpe: Tensor; layers: BlockWeights[]; lnfw: Tensor; lnfb: Tensor }

/** The shape a fused decode step is asked about (decodeSampleFused); `prefill`: the call that walks the contexts, else a decode step. */
export interface DecodeShape { B: number; T: number; C: number; NH: number; L: number; V: number; K: number; prefill?: boolean }

/** Elements between layers of decodeSample's KV cache: one layer's [B,T,3C], rounded up to the view alignment (64). */
export function decodeCacheStride(B: number, T: number, C: number): number {
  return Math.ceil((B * T * 3 * C) / 64) * 64;
}

/**
 * decodeSample's arguments: sample's state (tokens [B,T], logp [B,T], pos, done, limit [B] as in `sample`), the KV cache
 * kv [L x decodeCacheStride] (layer l's q, k, v [B,T,3C] at l * stride), the model's weights and shape, and the sampling.
 */
export interface DecodeSampleArgs {
  tokens: Tensor; logp: Tensor; pos: Tensor; done: Tensor; limit: Tensor; kv: Tensor;
  weights: ModelWeights;
  B: number; T: number; C: number; NH: number; V: number;
  /** true: the prefill (every row's positions 0..pos[b]-1 into the cache); false: one decode step (position pos[b]-1 only). */
  prefill: boolean;
  temperature: number; eos: number; seed: number; counter: number;
  rowRng?: Tensor;
  /** A population: rows are sequences (rowStart over B), weights at paramStride. */
  members?: Members;
}

export interface Backend {
  readonly name: 'cpu' | 'webgpu' | 'wasm';
  /** Offsets passed to `view` must be multiples of this (elements). */
  readonly viewAlign: number;

  // ---- memory ----
  /** A new zero-filled tensor. */
  alloc(size: number, dtype?: DType): Tensor;
  /** A window [offset, offset+size) of `base` sharing its memory; offset % viewAlign === 0. */
  view(base: Tensor, offset: number, size: number): Tensor;
  write(t: Tensor, data: ArrayLike<number>, offset?: number): void;
  /** Elements [offset, offset + size) of `t`, copied back (all of them by default; any offset, unlike a view). */
  read(t: Tensor, offset?: number, size?: number): Promise<FloatArray | Int32Array>;
  zero(t: Tensor): void;
  copy(dst: Tensor, src: Tensor): void;
  free(t: Tensor): void;
  /** Bytes that can still be allocated, where the backend has a fixed budget (the wasm engine's memory); else absent. */
  memoryRoom?(): number;
  /** Sends everything recorded so far to the device (one command submission). */
  submit(): void;
  /** Waits until all submitted work is done. */
  sync(): Promise<void>;
  destroy(): void;

  // ---- embedding: out[n,:] = wte[tokens[n],:] + wpe[n % T,:] ----
  /**
   * backwardV: set when an embeddingBackward over these tokens (vocab size backwardV) follows, before they are written
   * again: WebGPU then sorts the rows by token for it in this dispatch (one dispatch fewer); the CPU engines ignore it.
   */
  embeddingForward(out: Tensor, tokens: Tensor, wte: Tensor, wpe: Tensor, N: number, T: number, C: number, members?: Members,
    backwardV?: number): void;
  embeddingBackward(dwte: Tensor, dwpe: Tensor, dout: Tensor, tokens: Tensor, N: number, T: number, C: number, V: number, members?: Members): void;

  // ---- LayerNorm over the last dim C, eps 1e-5, biased variance; saves mean and rstd [N] ----
  layernormForward(out: Tensor, mean: Tensor, rstd: Tensor, inp: Tensor, weight: Tensor, bias: Tensor, N: number, C: number, members?: Members): void;
  /** dinpOverwrite: dinp[0, N*C) = its gradient, the old values unread (as zeroing it first): a caller need not zero it. */
  layernormBackward(dinp: Tensor, dweight: Tensor, dbias: Tensor, dout: Tensor, inp: Tensor, weight: Tensor, mean: Tensor, rstd: Tensor, N: number, C: number, members?: Members,
    dinpOverwrite?: boolean): void;

  // ---- Linear: out[N,OC] = inp[N,IC] @ weight[OC,IC]^T + bias[OC] (bias may be null) ----
  matmulForward(out: Tensor, inp: Tensor, weight: Tensor, bias: Tensor | null, N: number, IC: number, OC: number, members?: Members): void;
  /** out = inp @ weight^T + bias + residual: a Linear and the residual add after it, fused (the same numbers as the two ops). */
  matmulResidualForward(out: Tensor, inp: Tensor, weight: Tensor, bias: Tensor | null, residual: Tensor, N: number, IC: number, OC: number, members?: Members): void;
  /**
   * ln, mean, rstd = layernorm(inp) (as layernormForward); out = ln @ weight^T + bias, and geluOut = gelu(out) when given
   * (as matmulForward / matmulGeluForward): a LayerNorm and the Linear reading it, fused (ln, mean, rstd kept for the backward).
   */
  layernormMatmulForward(ln: Tensor, mean: Tensor, rstd: Tensor, out: Tensor, geluOut: Tensor | null, inp: Tensor, lnWeight: Tensor, lnBias: Tensor,
    weight: Tensor, bias: Tensor | null, N: number, C: number, OC: number, members?: Members): void;
  /** pre = inp @ weight^T + bias; out = gelu(pre): the MLP's first Linear and its GELU, fused (pre is kept for the backward). */
  matmulGeluForward(pre: Tensor, out: Tensor, inp: Tensor, weight: Tensor, bias: Tensor | null, N: number, IC: number, OC: number, members?: Members): void;
  /**
   * dinp += dout @ weight; dweight += dout^T @ inp; dbias += colsum(dout). dbias may be null.
   * dinpOverwrite: dinp[0, N*IC) = dout @ weight, the old values unread (as zeroing it first): a caller need not zero it.
   */
  matmulBackward(dinp: Tensor, dweight: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, weight: Tensor, N: number, IC: number, OC: number, members?: Members,
    dinpOverwrite?: boolean): void;

  /**
   * The MLP's c_proj backward and its GELU's, fused: dpre = gelu'(pre) * (dout @ weight) (overwritten); dweight += dout^T @ inp;
   * dbias += colsum(dout). The same numbers as matmulBackward into dinpScratch [N, IC] (dinpOverwrite) and geluBackward into a
   * zeroed dpre, which is what the reference and the CPU engine do; WebGPU writes dpre in the product's epilogue (dinpScratch unused).
   */
  matmulGeluBackward(dpre: Tensor, dinpScratch: Tensor, dweight: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, pre: Tensor, weight: Tensor,
    N: number, IC: number, OC: number, members?: Members): void;

  // ---- causal multi-head attention. qkv [B,T,3C] (q,k,v in that order), out [B,T,C], att [B,NH,T,T] softmax probs ----
  attentionForward(out: Tensor, att: Tensor, qkv: Tensor, B: number, T: number, C: number, NH: number): void;
  /**
   * dqkv += the gradient (dqkvOverwrite: dqkv = 0 + it, as zeroing it first would give; the CPU engine then makes no
   * pass of zeros). dpreatt [B,NH,T,T] is scratch (overwritten).
   */
  attentionBackward(dqkv: Tensor, dpreatt: Tensor, dout: Tensor, qkv: Tensor, att: Tensor, B: number, T: number, C: number, NH: number, dqkvOverwrite?: boolean): void;

  // ---- incremental decoding (docs/rl.md section 1: a KV cache). pos [B] i32: sequence b's last written token sits at t = pos[b] - 1 ----
  /** out[b,:] = wte[tokens[b*T + t],:] + wpe[t,:] with t = pos[b] - 1: the embedding of each sequence's last token. */
  embeddingLast(out: Tensor, tokens: Tensor, pos: Tensor, wte: Tensor, wpe: Tensor, B: number, T: number, C: number, members?: Members): void;
  /**
   * One decode step of causal attention over a cache. qkvNew [B,3C] holds the q, k, v of each sequence's last token
   * (position t = pos[b] - 1); it is first written to row t of the cache qkvCache [B,T,3C] (the qkv of a full forward,
   * valid below t), then out[b,:] [B,C] = attention of that q over cache rows 0..t, exactly as row t of attentionForward.
   */
  attentionDecode(out: Tensor, qkvCache: Tensor, qkvNew: Tensor, pos: Tensor, B: number, T: number, C: number, NH: number): void;
  /**
   * dst[r*dstStride + i] = src[floor(r / repeat)*srcStride + i] for r < rows, i < width (e.g. a prefill's qkv
   * [B,Tp,3C] into a cache [B,T,3C]); repeat (default 1, an integer >= 1): each source row fills that many rows in
   * turn (a group's one prefill into each of its G sequences).
   */
  copyRows(dst: Tensor, src: Tensor, rows: number, width: number, dstStride: number, srcStride: number, repeat?: number): void;
  /**
   * dst[b*width + i] = src[(floor(b / repeat)*T + pos[b] - 1)*width + i] for b < B, i < width: each sequence's row at its
   * last position (pos[b] in 1..T), out of a forward's rows [B / repeat, T, width] (a prefill's, whose last layer then
   * runs on these rows alone); repeat as copyRows'.
   */
  gatherLast(dst: Tensor, src: Tensor, pos: Tensor, B: number, T: number, width: number, repeat?: number): void;

  // ---- GELU, tanh approximation ----
  geluForward(out: Tensor, inp: Tensor, n: number): void;
  geluBackward(dinp: Tensor, inp: Tensor, dout: Tensor, n: number): void;

  // ---- residual: out = a + b; its backward is `accumulate` into both inputs' grads ----
  residualForward(out: Tensor, a: Tensor, b: Tensor, n: number): void;
  /** dst += src */
  accumulate(dst: Tensor, src: Tensor, n: number): void;

  // ---- log-softmax gathering: logp[n] = log softmax(logits[n,:] / temperature)[targets[n]], entropy[n] of that softmax.
  // targets[n] < 0 marks a row with no target: logp 0, gradient 0 (entropy still computed). ----
  logprobForward(logp: Tensor, entropy: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void;
  /** dlogits[n,:] += dlogp[n] * (onehot(target) - softmax(logits/temperature)) / temperature */
  logprobBackward(dlogits: Tensor, dlogp: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void;

  // ---- softmax cross-entropy (pretraining): losses[n] = -log softmax(logits[n,:])[targets[n]]; targets < 0 ignored (loss 0) ----
  crossEntropyForward(losses: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void;
  /** dlogits[n,:] += dloss[n] * (softmax - onehot); dloss is a tensor [N] (e.g. 1/count where counted, 0 elsewhere). */
  crossEntropyBackward(dlogits: Tensor, dloss: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void;

  // ---- optimizer ----
  /**
   * out[0] = sum of squares of x[0..n) (global grad norm^2 when x is the flat gradient).
   * Members: out[k] = the sum over member k's segment x[k*stride .. k*stride + n), stride = paramStride ?? n.
   */
  sumSquares(out: Tensor, x: Tensor, n: number, members?: MemberStack): void;
  /**
   * scale[0] = maxNorm > 0 ? min(1, maxNorm / (sqrt(normSq[0]) + 1e-6)) : 1; stays on the device (no readback).
   * A non-finite normSq (NaN or Inf) gives scale -1: the divergence guard, which makes `adamw` a no-op.
   * Members: scale[k] from normSq[k], each member clipped (or guarded) on its own norm.
   */
  clipScale(scale: Tensor, normSq: Tensor, maxNorm: number, members?: MemberStack): void;
  /**
   * AdamW on a flat parameter vector; g = grads * scale[0]; weight decay per element times decayMask (1 for 2-D weights, 0 otherwise).
   * When scale[0] < 0 (a non-finite gradient, see clipScale) nothing changes: params, m and v stay as they were.
   * Members: member k's segments (at k*stride, stride = paramStride ?? n) step with scale[k] and lr[k] (hp.lr unused);
   * decayMask [n] is shared (it follows the shape).
   */
  adamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, n: number, hp: AdamWParams, members?: MemberOptim): void;
  /** clipScale(scale, normSq, maxNorm) then adamw with that scale: the same numbers as the two ops (one dispatch on WebGPU). */
  clipAdamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, normSq: Tensor, maxNorm: number, n: number,
    hp: AdamWParams, members?: MemberOptim): void;

  // ---- sampling (docs/rl.md section 1): one token per sequence, appended on the device ----
  /**
   * For each sequence b < B with done[b] == 0: reads logits row b*T + pos[b] - 1, draws a token from
   * softmax(row / temperature) with the counter-based RNG u = uniform(seed, counter, b) (inverse CDF),
   * or the argmax when temperature == 0; writes tokens[b*T + pos[b]] = token and logp[b*T + pos[b]] =
   * its log-prob at `temperature` (at 1 when greedy); then pos[b] += 1 and done[b] = 1 when the token is
   * `eos` or pos[b] == limit[b]. tokens, pos, done, limit are i32. Sequences already done are untouched.
   * logits holds logitsT rows per sequence (default T) and sequence b reads row b*logitsT + min(pos[b], logitsT) - 1:
   * a full forward's [B*T,V], a prefill's [B*Tp,V] (pos <= Tp), or a decode step's [B,V] (logitsT 1: row b).
   * rowRng (i32 [2B], a population's batch): sequence b draws uniform(rowRng[2b], counter, rowRng[2b+1]) instead,
   * its member's seed and its index among its member's sequences, so a member samples what its lone run samples.
   */
  sample(tokens: Tensor, logp: Tensor, pos: Tensor, done: Tensor, limit: Tensor, logits: Tensor,
    B: number, T: number, V: number, temperature: number, eos: number, seed: number, counter: number, logitsT?: number, rowRng?: Tensor): void;

  /**
   * The rollout's step of a GPT (src/model/gpt.ts) fused with `sample`: for each sequence b with done[b] == 0, runs the
   * model on its positions (the prefill: 0..pos[b]-1; a decode step: pos[b]-1 alone, over the cache rows below it), each
   * position's q, k, v written to row t of the cache, then samples from the logits of position pos[b]-1 exactly as
   * `sample` (same RNG streams, temperature, greedy, eos, limit; rowRng for a population). Rows already done are not
   * run (their cache is left as it was). The reference composes it from the ops above (the twin:
   * src/reference/decodeSample.ts); WebGPU runs it as one kernel per call where decodeSampleFused says so; the wasm
   * engine runs a decode step as one op (shaders/simd/decode.ts) and composes the prefill.
   */
  decodeSample(a: DecodeSampleArgs): void;
  /** Whether decodeSample is one fused kernel at this shape (the rollout then takes it); false: compose the ops instead. */
  decodeSampleFused(s: DecodeShape): boolean;

  // ---- RL objective (docs/losses.md) ----
  /** out[i] = src[index[i]] for i < n (index i32); e.g. episode advantages -> per-sequence advantages. */
  gather(out: Tensor, src: Tensor, index: Tensor, n: number): void;
  /**
   * Advantages per episode from rewards [E]; groups given as CSR offsets groupStart[P+1] (i32) over episodes.
   * mode group: (r - mean_g) / (std_g + 1e-4), std with Bessel; none: r - mean_g; batch: (r - mean_g) / (std_batch + 1e-4).
   * A group of one, or whose rewards are all equal, gets A = 0 (in every mode).
   * stats (ADV_STATS): count of groups with all-equal rewards (or size 1), and P.
   */
  groupNormalize(adv: Tensor, stats: Tensor, rewards: Tensor, groupStart: Tensor, E: number, P: number, mode: AdvantageMode): void;
  /**
   * Per sequence s in [S] with rows of length T (logp, oldLogp, mask are [S,T]):
   * logS[s] = clamp(sum_t m (logp - old) / max(1, sum_t m), -20, 20), ratio[s] = exp(logS);
   * tokRatio[s,t] = exp(logp - old) where mask, else 1 (GRPO's rho_t).
   */
  seqRatio(logS: Tensor, ratio: Tensor, tokRatio: Tensor, logp: Tensor, oldLogp: Tensor, mask: Tensor, S: number, T: number): void;
  /**
   * The variant's policy loss (+ beta * k3 KL), docs/losses.md. seqAdv [S] (the episode's advantage per sequence).
   * Writes lossSeq [S] (sequence i's share of the loss: c_i times its terms), klSeq [S] (its share of the KL),
   * clipSeq [S] (sequence-level rows: 0/1; token-level: clipped token count),
   * and dlogp [S,T] (overwritten) = d L / d logp with L = sum_i (lossSeq_i + beta * klSeq_i).
   * refLogp may be null when beta = 0.
   */
  clipLoss(lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, dlogp: Tensor,
    logp: Tensor, ratio: Tensor, tokRatio: Tensor, seqAdv: Tensor, mask: Tensor, refLogp: Tensor | null,
    S: number, T: number, loss: LossArgs): void;
  /**
   * gather (seqAdv from adv), seqRatio, clipLoss, then rlStats when a.stats is given, in one call. The CPU engines
   * compose the four ops (src/contract/policyLoss.ts, the twin); WebGPU runs one dispatch when every output is a view of one
   * buffer (the objective allocates them so: `policyLossOutputs`), else composes them too.
   */
  policyLoss(a: PolicyLossArgs): void;
  /** Reduces the per-sequence outputs into the RL_STATS vector (no readback). */
  rlStats(stats: Tensor, lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, ratio: Tensor, tokRatio: Tensor, mask: Tensor,
    S: number, T: number, algorithm: Algorithm, beta: number): void;
}

/** Throws unless [offset, offset + size) lies inside `t` (a read's range). */
export function checkRange(t: Tensor, offset: number, size: number): void {
  if (!Number.isInteger(offset) || !Number.isInteger(size) || offset < 0 || size < 0 || offset + size > t.size) {
    throw new Error(`read: elements [${offset}, ${offset + size}) are not inside a tensor of ${t.size}`);
  }
}

/** Throws unless copyRows' `repeat` is an integer >= 1. */
export function checkRepeat(repeat: number): void {
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`copyRows: repeat must be an integer >= 1; got ${repeat}`);
}
