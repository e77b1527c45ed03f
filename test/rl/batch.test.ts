// trainer.ts sequencesToBatch: the prediction-space layout, arrays written out by hand.
import { describe, expect, it } from 'vitest';
import { sequencesToBatch } from '../../src/rl/stepBatch';
import type { Sequence } from '../../src/rl/rollout';

const S = (episode: number, context: number[], generated: number[], logp: number[], message = true): Sequence =>
  ({ episode, turn: 0, role: 'r', slot: 'policy', agent: 0, context, generated, logp, message, messageFrom: 0, countsAsTurn: false, maxNew: 9, earlier: [], superseded: false });

describe('sequencesToBatch', () => {
  // A: context [1,3,4] (L=3), generated [5,2] (n=2): full 1 3 4 5 2, masked positions 2..3
  const A = S(10, [1, 3, 4], [5, 2], [-0.5, -0.25]);
  // C: context [1,6,7,8] (L=4), generated [9,10,11,12,2] (n=5): full has 9 = T+1 tokens, masked 3..7
  const C = S(11, [1, 6, 7, 8], [9, 10, 11, 12, 2], [-0.125, -0.375, -0.625, -0.875, -1], false);
  // B: context [1] (L=1), generated [2] (a silence, n=1): masked position 0
  const B = S(10, [1], [2], [-1.5]);
  const T = 8;
  const batch = sequencesToBatch([A, C, B], (e) => e - 10, T);

  it('shape and per-sequence episode index', () => {
    expect(batch.S).toBe(3);
    expect(batch.T).toBe(8);
    expect(batch.tokens.length).toBe(24);
    expect(Array.from(batch.seqEpisode)).toEqual([0, 1, 0]);
    expect(batch.refLogp).toBeNull();
  });

  it('tokens: the full sequence, padded with 0 (a full-length row holds its first T tokens)', () => {
    expect(Array.from(batch.tokens.subarray(0, 8))).toEqual([1, 3, 4, 5, 2, 0, 0, 0]);
    expect(Array.from(batch.tokens.subarray(8, 16))).toEqual([1, 6, 7, 8, 9, 10, 11, 12]);
    expect(Array.from(batch.tokens.subarray(16, 24))).toEqual([1, 2, 0, 0, 0, 0, 0, 0]);
  });

  it('targets[t] = full[t+1], -1 past the end', () => {
    expect(Array.from(batch.targets.subarray(0, 8))).toEqual([3, 4, 5, 2, -1, -1, -1, -1]);
    expect(Array.from(batch.targets.subarray(8, 16))).toEqual([6, 7, 8, 9, 10, 11, 12, 2]);
    expect(Array.from(batch.targets.subarray(16, 24))).toEqual([2, -1, -1, -1, -1, -1, -1, -1]);
  });

  it('mask is 1 exactly at t = L-1 .. L+n-2 (positions predicting generated tokens)', () => {
    expect(Array.from(batch.mask.subarray(0, 8))).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
    expect(Array.from(batch.mask.subarray(8, 16))).toEqual([0, 0, 0, 1, 1, 1, 1, 1]);
    expect(Array.from(batch.mask.subarray(16, 24))).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('oldLogp[t] = logp[t-(L-1)] under the mask, 0 elsewhere', () => {
    expect(Array.from(batch.oldLogp.subarray(0, 8))).toEqual([0, 0, -0.5, -0.25, 0, 0, 0, 0]);
    expect(Array.from(batch.oldLogp.subarray(8, 16))).toEqual([0, 0, 0, -0.125, -0.375, -0.625, -0.875, -1]);
    expect(Array.from(batch.oldLogp.subarray(16, 24))).toEqual([-1.5, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('every masked position predicts a generated token (the target is the token whose logp is stored)', () => {
    const seqs = [A, C, B];
    seqs.forEach((s, i) => {
      const L = s.context.length;
      s.generated.forEach((g, k) => {
        expect(batch.targets[i * T + L - 1 + k]).toBe(g);
        expect(batch.mask[i * T + L - 1 + k]).toBe(1);
      });
    });
  });

  it('a row order with the full-length sequence last does not spill', () => {
    const b2 = sequencesToBatch([B, C], (e) => e, T);
    expect(b2.tokens.length).toBe(16);
    expect(Array.from(b2.tokens.subarray(0, 8))).toEqual([1, 2, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(b2.tokens.subarray(8, 16))).toEqual([1, 6, 7, 8, 9, 10, 11, 12]);
    expect(Array.from(b2.seqEpisode)).toEqual([10, 11]);
  });
});

describe("Dr. GRPO's L_max: the turns' token limit", () => {
  it('a minibatch carries the largest token limit of its sequences\' turns, not the block size', () => {
    const a = { ...S(0, [1, 3], [5, 2], [-0.5, -0.25]), maxNew: 3 }, b = { ...S(1, [1], [2], [-1]), maxNew: 7 };
    expect(sequencesToBatch([a, b], (e) => e, 8).tMax).toBe(7);
    expect(sequencesToBatch([a], (e) => e, 8).tMax).toBe(3);
  });
  it('a grad batch file may give it as t_max (an integer within the block size)', async () => {
    const { parseBatchFile } = await import('../../src/rl/batch');
    const file = (extra: Record<string, unknown>) => ({ algorithm: 'dr-grpo', ...extra, sequences: [{ tokens: [1, 4, 2], mask: [0, 1, 1], old_logprobs: [0, -1, -1], episode: 0, group: 0, reward: 1 }] });
    expect(parseBatchFile(file({ t_max: 5 }), 32, 16).batch.tMax).toBe(5);
    expect(parseBatchFile(file({}), 32, 16).batch.tMax).toBeUndefined();
    expect(() => parseBatchFile(file({ t_max: 17 }), 32, 16)).toThrow(/t_max must be an integer in \[1, 16\], got 17/);
    expect(() => parseBatchFile(file({ t_max: 2.5 }), 32, 16)).toThrow(/t_max must be an integer/);
    // eps and beta: the config table's ranges, named by the file's keys
    expect(() => parseBatchFile(file({ eps_low: 1.5 }), 32, 16)).toThrow(/^eps_low must be in \[0, 0.99\]; got 1.5$/);
    expect(() => parseBatchFile(file({ eps_high: 11 }), 32, 16)).toThrow(/^eps_high must be in \[0, 10\]; got 11$/);
    expect(() => parseBatchFile(file({ beta: -1 }), 32, 16)).toThrow(/^beta must be in \[0, 10\]; got -1$/);
  });
});
