// AdamW over the model's flat parameter vector, with global-norm clipping
// computed on the device (the clip scale never round-trips to the CPU).
import type { Backend, Tensor } from '../backend';
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

export class AdamW {
  readonly m: Tensor;
  readonly v: Tensor;
  readonly normSq: Tensor; // [1] global grad norm^2 of the last step (before clipping)
  private readonly scale: Tensor; // [1]
  step = 0;

  constructor(private readonly backend: Backend, private readonly model: GPT, public config: AdamWConfig) {
    this.m = backend.alloc(model.numParams);
    this.v = backend.alloc(model.numParams);
    this.normSq = backend.alloc(1);
    this.scale = backend.alloc(1);
  }

  /** Records the norm of model.grads (for the caller's guard and metrics) without applying anything. */
  measure(): void {
    this.backend.sumSquares(this.normSq, this.model.grads, this.model.numParams);
  }

  /** Clips by the measured norm and applies one AdamW update. Call measure() first. */
  apply(): void {
    const b = this.backend, c = this.config;
    this.step++;
    b.clipScale(this.scale, this.normSq, c.gradClip);
    b.adamw(this.model.params, this.model.grads, this.m, this.v, this.model.decayMask, this.scale, this.model.numParams,
      { lr: c.lr, beta1: c.beta1, beta2: c.beta2, eps: c.eps, weightDecay: c.weightDecay, step: this.step });
  }

  destroy(): void {
    for (const t of [this.m, this.v, this.normSq, this.scale]) this.backend.free(t);
  }
}
