// AdamW with decoupled weight decay, and global-norm gradient clipping.
// Kernel twin: shaders/adamw.wgsl; test: test/gpu/optim.test.ts.
import type { AdamWParams } from '../backend';
import type { F } from './nn';

export function sumSquares(out: F, x: F, n: number): void {
  let s = 0;
  for (let i = 0; i < n; i++) s += x[i] * x[i];
  out[0] = s;
}

export function clipScale(scale: F, normSq: F, maxNorm: number): void {
  const norm = Math.sqrt(normSq[0]);
  if (!Number.isFinite(norm)) { scale[0] = -1; return; } // the divergence guard: adamw skips this update
  scale[0] = maxNorm > 0 ? Math.min(1, maxNorm / (norm + 1e-6)) : 1;
}

export function adamw(params: F, grads: F, m: F, v: F, decayMask: F, scale: F, n: number, hp: AdamWParams): void {
  const bc1 = 1 - Math.pow(hp.beta1, hp.step), bc2 = 1 - Math.pow(hp.beta2, hp.step), k = scale[0];
  if (k < 0) return; // a non-finite gradient: weights and moments untouched
  for (let i = 0; i < n; i++) {
    const g = grads[i] * k;
    m[i] = hp.beta1 * m[i] + (1 - hp.beta1) * g;
    v[i] = hp.beta2 * v[i] + (1 - hp.beta2) * g * g;
    const mhat = m[i] / bc1, vhat = v[i] / bc2;
    // decoupled decay, as torch.optim.AdamW: p -= lr * (wd * p) before the Adam step
    params[i] -= hp.lr * (mhat / (Math.sqrt(vhat) + hp.eps) + hp.weightDecay * decayMask[i] * params[i]);
  }
}
