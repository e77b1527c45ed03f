// AdamW over the model's flat parameter vector, with global-norm clipping
// computed on the device (the clip scale never round-trips to the CPU).
// A population's model (K members) steps every member in the same dispatches:
// each member clipped on its own norm, with its own learning rate.
import type { Backend, MemberOptim, Tensor } from '../backend';
import type { GPT } from './gpt';

export interface AdamWConfig {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  gradClip: number; // max global norm; 0 = off
}

export const ADAMW_RL: AdamWConfig = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.0, gradClip: 1.0 };

/** AdamW's state, copied out: the moments and the update counter (bias correction reads it). */
export interface AdamWState { m: Float32Array; v: Float32Array; step: number }

export class AdamW {
  readonly m: Tensor;
  readonly v: Tensor;
  readonly normSq: Tensor; // [K] each member's grad norm^2 of the last step (before clipping)
  private readonly scale: Tensor; // [K]
  step = 0;
  /** A population's learning rate per member (config.lr is then unused); written to the device when it changes. */
  readonly memberLr: number[];
  private readonly lrTensor: Tensor | null; // f32 [K], a population's
  private lrWritten = '';

  constructor(private readonly backend: Backend, private readonly model: GPT, public config: AdamWConfig) {
    const K = model.K;
    this.m = backend.alloc(K * model.numParams);
    this.v = backend.alloc(K * model.numParams);
    this.normSq = backend.alloc(K);
    this.scale = backend.alloc(K);
    this.memberLr = Array.from({ length: K }, () => config.lr);
    this.lrTensor = K > 1 ? backend.alloc(K) : null;
  }

  /** A population's stack for the optimizer ops; none for a lone model (today's ops). */
  private members(): MemberOptim | undefined {
    if (!this.lrTensor) return undefined;
    const key = this.memberLr.join(',');
    if (key !== this.lrWritten) { this.backend.write(this.lrTensor, this.memberLr); this.lrWritten = key; }
    return { K: this.model.K, paramStride: this.model.numParams, lr: this.lrTensor };
  }

  /** Records the norm of model.grads (per member) for the caller's guard and metrics, without applying anything. */
  measure(): void {
    this.backend.sumSquares(this.normSq, this.model.grads, this.model.numParams, this.members());
  }

  /** Clips by the measured norm and applies one AdamW update (every member). Call measure() first. */
  apply(): void {
    const b = this.backend, c = this.config, members = this.members();
    this.step++;
    b.clipAdamw(this.model.params, this.model.grads, this.m, this.v, this.model.decayMask, this.scale, this.normSq, c.gradClip, this.model.numParams,
      { lr: c.lr, beta1: c.beta1, beta2: c.beta2, eps: c.eps, weightDecay: c.weightDecay, step: this.step }, members);
  }

  /** The moments and the counter, read back (a sync point on the GPU); with `member`, only that member's moments. */
  async readState(member?: number): Promise<AdamWState> {
    const N = this.model.numParams, [from, n] = member === undefined ? [0, this.model.K * N] : [member * N, N];
    const [m, v] = await Promise.all([this.backend.read(this.m, from, n), this.backend.read(this.v, from, n)]);
    return { m: Float32Array.from(m), v: Float32Array.from(v), step: this.step };
  }

  /** Puts a state read from an AdamW over the same model back (with `member`, that member's share); throws naming what does not fit. */
  writeState(s: AdamWState, member?: number): void {
    const N = this.model.numParams, [at, n] = member === undefined ? [0, this.model.K * N] : [member * N, N];
    if (s.m.length !== n || s.v.length !== n) throw new Error(`optimizer state: m has ${s.m.length} and v ${s.v.length} values; this model has ${n} parameters`);
    if (!Number.isInteger(s.step) || s.step < 0) throw new Error(`optimizer state: step must be an integer >= 0; got ${s.step}`);
    this.backend.write(this.m, s.m, at);
    this.backend.write(this.v, s.v, at);
    this.step = s.step;
  }

  destroy(): void {
    for (const t of [this.m, this.v, this.normSq, this.scale]) this.backend.free(t);
    if (this.lrTensor) this.backend.free(this.lrTensor);
  }
}
