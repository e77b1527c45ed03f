// Sampling: frequencies follow softmax(logits / temperature), greedy is the argmax,
// EOS and the length limit end a sequence, and the recorded log-prob is exact.
import { describe, expect, it } from 'vitest';
import { sample, uniform } from '../../src/reference/sample';

describe('sample', () => {
  it('draws tokens with softmax(logits / tau) frequencies (many independent sequences)', () => {
    const V = 4, B = 40000, T = 2, tau = 0.7;
    const row = [1.0, 0.2, -0.5, 0.6];
    const logits = new Float64Array(B * T * V);
    for (let b = 0; b < B; b++) logits.set(row, b * T * V);
    const tokens = new Int32Array(B * T), logp = new Float64Array(B * T), pos = new Int32Array(B).fill(1), done = new Int32Array(B), limit = new Int32Array(B).fill(2);
    sample(tokens, logp, pos, done, limit, logits, B, T, V, tau, 99, 7, 0);
    const z = row.reduce((a, x) => a + Math.exp(x / tau), 0);
    const counts = [0, 0, 0, 0];
    for (let b = 0; b < B; b++) counts[tokens[b * T + 1]]++;
    for (let v = 0; v < V; v++) {
      const p = Math.exp(row[v] / tau) / z;
      expect(Math.abs(counts[v] / B - p)).toBeLessThan(4 * Math.sqrt(p * (1 - p) / B)); // 4 sigma
    }
    const t = tokens[1];
    expect(logp[1]).toBeCloseTo(row[t] / tau - Math.log(z), 10);
    expect(Array.from(pos.slice(0, 3))).toEqual([2, 2, 2]);
    expect(Array.from(done.slice(0, 3))).toEqual([1, 1, 1]); // limit reached
  });

  it('greedy takes the argmax; EOS ends a sequence; done sequences are untouched', () => {
    const V = 3, T = 4, B = 2;
    const logits = new Float64Array(B * T * V);
    logits.set([0, 5, 1], (0 * T + 0) * V); // seq 0, row 0 -> token 1
    logits.set([9, 0, 0], (1 * T + 1) * V); // seq 1, row 1 -> token 0 (= EOS)
    const tokens = Int32Array.from([2, 0, 0, 0, 2, 2, 0, 0]), logp = new Float64Array(B * T);
    const pos = Int32Array.from([1, 2]), done = Int32Array.from([0, 0]), limit = Int32Array.from([4, 4]);
    sample(tokens, logp, pos, done, limit, logits, B, T, V, 0, 0, 1, 0);
    expect(Array.from(tokens)).toEqual([2, 1, 0, 0, 2, 2, 0, 0]);
    expect(Array.from(pos)).toEqual([2, 3]);
    expect(Array.from(done)).toEqual([0, 1]);
    const before = tokens.slice();
    sample(tokens, logp, pos, done, limit, logits, B, T, V, 0, 0, 1, 1);
    expect(tokens[4 + 3]).toBe(before[4 + 3]); // seq 1 done: nothing written
    expect(pos[1]).toBe(3);
  });

  it('the counter-based uniforms are reproducible and differ across counters and streams', () => {
    expect(uniform(1, 2, 3)).toBe(uniform(1, 2, 3));
    const xs = new Set([uniform(1, 2, 3), uniform(1, 3, 3), uniform(1, 2, 4), uniform(2, 2, 3)]);
    expect(xs.size).toBe(4);
    let mean = 0;
    for (let i = 0; i < 10000; i++) mean += uniform(5, i, 0);
    expect(Math.abs(mean / 10000 - 0.5)).toBeLessThan(0.02);
  });
});
