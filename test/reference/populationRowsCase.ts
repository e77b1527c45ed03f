// A population's loss rows (shared by the CPU and WebGPU checks of the row ops).
import type { Algorithm } from '../../src/backend';
import { LOSSES } from '../../src/contract/losses';
import { aggregationNorm } from '../../src/reference/rl';
import { Rng } from '../gpu/random';

/** Member rows of a batch: 3, 0 and 4 sequences of T = 5, sequence 1 of member 2 all masked. */
export function lossCase(seed: number) {
  const seqs = [3, 0, 4], S = 7, T = 5, r = new Rng(seed);
  const logp = r.uniformIn(S * T, -4, -0.05), noise = r.normal(S * T, 0.2);
  const mask = r.mask(S * T, 0.7);
  mask.fill(0, 4 * T, 5 * T);
  return {
    seqs, S, T, logp, mask, seqAdv: r.normal(S), refLogp: Float32Array.from(logp, (x, i) => x + noise[i]),
    ratio: r.uniformIn(S, 0.7, 1.3), tokRatio: r.uniformIn(S * T, 0.7, 1.3),
  };
}

/** Each member's divisor for every one of its sequences (its S for seq-mean-token-mean, else its aggregationNorm). */
export function divisors(c: ReturnType<typeof lossCase>, algorithm: Algorithm, tMax: number): Float32Array {
  const out = new Float32Array(c.S);
  let s0 = 0;
  for (const S of c.seqs) {
    const d = LOSSES[algorithm].aggregation === 'seq-mean-token-mean' ? S : aggregationNorm(algorithm, c.mask.subarray(s0 * c.T, (s0 + S) * c.T), S, c.T, tMax);
    out.fill(d, s0, s0 + S);
    s0 += S;
  }
  return out;
}

