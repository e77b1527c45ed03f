// Log-softmax heads: log-prob gathering (+ entropy) for RL, cross-entropy for pretraining.
// One Math.exp per logit: the shifted exponentials of a row go to an f64 scratch and are reused.
// Kernel twin: shaders/logsoftmax.wgsl; test: test/gpu/nn.test.ts.
import type { F, I } from './nn';

let E64 = new Float64Array(0);

function rowScratch(V: number): Float64Array {
  if (E64.length < V) E64 = new Float64Array(V);
  return E64;
}

// logp[n] = log softmax(logits[n]/tau)[targets[n]] (0 when target < 0); entropy[n] of that softmax.
export function logprobForward(logp: F, entropy: F, logits: F, targets: I, N: number, V: number, tau: number): void {
  const inv = 1 / tau, e = rowScratch(V);
  for (let n = 0; n < N; n++) {
    const o = n * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) { const z = logits[o + v] * inv; if (z > max) max = z; }
    let sum = 0, ez = 0; // sum e^(z-max), sum e^(z-max) * (z-max)
    for (let v = 0; v < V; v++) {
      const zs = logits[o + v] * inv - max, x = Math.exp(zs);
      e[v] = x;
      sum += x;
      ez += x * zs;
    }
    const ls = Math.log(sum), lse = max + ls;
    // entropy = -sum p (z - lse) = log(sum) - sum e (z - max) / sum
    entropy[n] = ls - ez / sum;
    const tgt = targets[n];
    logp[n] = tgt >= 0 ? logits[o + tgt] * inv - lse : 0;
  }
}

// dlogits += dlogp * (onehot - softmax) / tau
export function logprobBackward(dlogits: F, dlogp: F, logits: F, targets: I, N: number, V: number, tau: number): void {
  const inv = 1 / tau, e = rowScratch(V);
  for (let n = 0; n < N; n++) {
    const tgt = targets[n], g = dlogp[n];
    if (tgt < 0 || g === 0) continue;
    const o = n * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) { const z = logits[o + v] * inv; if (z > max) max = z; }
    let sum = 0;
    for (let v = 0; v < V; v++) { const x = Math.exp(logits[o + v] * inv - max); e[v] = x; sum += x; }
    const gi = g * inv;
    for (let v = 0; v < V; v++) dlogits[o + v] += gi * ((v === tgt ? 1 : 0) - e[v] / sum);
  }
}

export function crossEntropyForward(losses: F, logits: F, targets: I, N: number, V: number): void {
  for (let n = 0; n < N; n++) {
    const tgt = targets[n], o = n * V;
    if (tgt < 0) { losses[n] = 0; continue; }
    let max = -Infinity;
    for (let v = 0; v < V; v++) { const z = logits[o + v]; if (z > max) max = z; }
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    losses[n] = max + Math.log(sum) - logits[o + tgt];
  }
}

export function crossEntropyBackward(dlogits: F, dloss: F, logits: F, targets: I, N: number, V: number): void {
  const e = rowScratch(V);
  for (let n = 0; n < N; n++) {
    const tgt = targets[n], g = dloss[n], o = n * V;
    if (tgt < 0 || g === 0) continue;
    let max = -Infinity;
    for (let v = 0; v < V; v++) { const z = logits[o + v]; if (z > max) max = z; }
    let sum = 0;
    for (let v = 0; v < V; v++) { const x = Math.exp(logits[o + v] - max); e[v] = x; sum += x; }
    for (let v = 0; v < V; v++) dlogits[o + v] += g * (e[v] / sum - (v === tgt ? 1 : 0));
  }
}
