// The stacked-model check's inputs: a small GPT at odd sizes, three members with
// different weights (biases and LayerNorm parameters perturbed, so that reading
// another member's copy would show), 2, 0 and 3 sequences of T = 5.
import { initParams, type GPTConfig } from '../../src/model/params';
import { Rng } from '../gpu/random';

export function modelCase() {
  const config: GPTConfig = { nLayer: 2, nHead: 3, nEmbd: 12, blockSize: 8, vocabSize: 11 };
  const B = [2, 0, 3], T = 5;
  const r = new Rng(17);
  const weights = B.map((_, k) => {
    const w = initParams(config, 100 + k);
    const noise = r.normal(w.length, 0.1);
    for (let i = 0; i < w.length; i++) w[i] += noise[i];
    return w;
  });
  const rows = B.reduce((s, x) => s + x, 0) * T;
  return { config, weights, B, T, tokens: r.ints(rows, 0, config.vocabSize), dlogits: r.normal(rows * config.vocabSize) };
}
