// Log-softmax heads: log-prob gathering (+ entropy) for RL, cross-entropy for pretraining.
import type { F, I } from './nn';

// logp[n] = log softmax(logits[n]/tau)[targets[n]] (0 when target < 0); entropy[n] of that softmax.
export function logprobForward(logp: F, entropy: F, logits: F, targets: I, N: number, V: number, tau: number): void {
  const inv = 1 / tau;
  for (let n = 0; n < N; n++) {
    const o = n * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, logits[o + v] * inv);
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] * inv - max);
    const lse = max + Math.log(sum);
    let ent = 0;
    for (let v = 0; v < V; v++) {
      const lp = logits[o + v] * inv - lse;
      ent -= Math.exp(lp) * lp;
    }
    entropy[n] = ent;
    const tgt = targets[n];
    logp[n] = tgt >= 0 ? logits[o + tgt] * inv - lse : 0;
  }
}

// dlogits += dlogp * (onehot - softmax) / tau
export function logprobBackward(dlogits: F, dlogp: F, logits: F, targets: I, N: number, V: number, tau: number): void {
  const inv = 1 / tau;
  for (let n = 0; n < N; n++) {
    const tgt = targets[n], g = dlogp[n];
    if (tgt < 0 || g === 0) continue;
    const o = n * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, logits[o + v] * inv);
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] * inv - max);
    for (let v = 0; v < V; v++) {
      const p = Math.exp(logits[o + v] * inv - max) / sum;
      dlogits[o + v] += g * ((v === tgt ? 1 : 0) - p) * inv;
    }
  }
}

export function crossEntropyForward(losses: F, logits: F, targets: I, N: number, V: number): void {
  for (let n = 0; n < N; n++) {
    const tgt = targets[n], o = n * V;
    if (tgt < 0) { losses[n] = 0; continue; }
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, logits[o + v]);
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    losses[n] = max + Math.log(sum) - logits[o + tgt];
  }
}

export function crossEntropyBackward(dlogits: F, dloss: F, logits: F, targets: I, N: number, V: number): void {
  for (let n = 0; n < N; n++) {
    const tgt = targets[n], g = dloss[n], o = n * V;
    if (tgt < 0 || g === 0) continue;
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, logits[o + v]);
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    for (let v = 0; v < V; v++) dlogits[o + v] += g * (Math.exp(logits[o + v] - max) / sum - (v === tgt ? 1 : 0));
  }
}
