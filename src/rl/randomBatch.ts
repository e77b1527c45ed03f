// A random PolicyBatch for benchmarks and the engine self-check: random tokens, a
// generated tail (positions >= maskFrom), old log-probs near uniform, 0/1 rewards in groups.
import { mulberry32 } from '../model/random';
import type { PolicyBatch } from './objective';

export interface RandomBatchSpec { vocabSize: number; S: number; T: number; groupSize: number; maskFrom: number; oldLogpNoise: number; seed: number }

export function randomPolicyBatch(s: RandomBatchSpec): PolicyBatch {
  const { vocabSize: V, S, T, groupSize: G } = s, r = mulberry32(s.seed), ST = S * T;
  const tokens = Int32Array.from({ length: ST }, () => Math.floor(r() * V));
  const targets = Int32Array.from({ length: ST }, (_, i) => ((i + 1) % T === 0 ? -1 : tokens[i + 1]));
  const mask = Float32Array.from({ length: ST }, (_, i) => (i % T >= s.maskFrom && targets[i] >= 0 ? 1 : 0));
  return {
    S, T, tokens, targets, mask, refLogp: null,
    oldLogp: Float32Array.from({ length: ST }, () => -Math.log(V) + (r() - 0.5) * s.oldLogpNoise),
    seqEpisode: Int32Array.from({ length: S }, (_, i) => i),
    rewards: Float32Array.from({ length: S }, () => (r() < 0.5 ? 1 : 0)),
    groupStart: Int32Array.from({ length: S / G + 1 }, (_, g) => g * G),
  };
}
