// FLOP counts against shapes multiplied out by hand (independent of the formula's grouping).
import { describe, expect, it } from 'vitest';
import { decodeFlopKinds, forwardFlops, generationFlops, prefillFlopKinds, rlStepFlopKinds, rlStepFlopParts, rlStepFlops, trainFlops } from '../../src/model/flops';

// 1 layer, C = 4, V = 3, one sequence of T = 2 tokens.
const TINY = { nLayer: 1, nEmbd: 4, vocabSize: 3 };

describe('model FLOPs', () => {
  it('a forward of 1 layer, C 4, V 3, T 2 is 864 FLOPs (every matmul listed)', () => {
    const T = 2, C = 4, V = 3;
    const qkv = 2 * T * C * (3 * C); // 192
    const proj = 2 * T * C * C; // 64
    const fc = 2 * T * C * (4 * C); // 256
    const fcProj = 2 * T * (4 * C) * C; // 256
    const head = 2 * T * C * V; // 48
    // causal: query 0 sees 1 key, query 1 sees 2; q.k and att.v each 2 * C per (query, key) pair
    const attention = 2 * (2 * C) * (1 + 2); // 48
    expect(qkv + proj + fc + fcProj + head + attention).toBe(864);
    expect(forwardFlops(TINY, 1, 2)).toBe(864);
    expect(forwardFlops(TINY, 3, 2)).toBe(3 * 864);
  });
  it('training is forward + a backward of twice the forward', () => {
    expect(trainFlops(TINY, 2, 2)).toBe(3 * 2 * 864);
  });
  it('generation feeds the context and every new token but the last', () => {
    // context 1 + 2 new: tokens fed = 2 (the context token, the first new one) = one forward at T 2
    expect(generationFlops(TINY, 1, 2)).toBe(864);
    expect(generationFlops(TINY, 5, 0)).toBe(0);
    // T 1: dense 1 * (24*16 + 2*4*3) = 408, attention 2*4*1*2 = 16
    expect(generationFlops(TINY, 1, 1)).toBe(424);
  });
  it('a prefill of 3 tokens (1 layer, C 4, V 3): the last position whole, the two before it their q, k, v alone', () => {
    const C = 4, V = 3;
    const qkv = 2 * C * (3 * C); // 96 a position
    // the last position (t = 2): qkv 96, proj 32, fc 128, fc proj 128, head 24; attention over 3 keys, q.k and att.v 2 C each: 48
    const last = qkv + 2 * C * C + 2 * C * 4 * C + 2 * 4 * C * C + 2 * C * V + 2 * (2 * C) * 3;
    expect(last).toBe(456);
    const p = prefillFlopKinds(TINY, 3);
    expect(p.dense + p.attention).toBe(2 * qkv + last); // 648, against a forward's 1320
    expect(p.attention).toBe(48);
    expect(forwardFlops(TINY, 1, 3)).toBe(1320);
    // a context of 3, 2 generated: the prefill, then one token fed at position 3 (408 dense, attention over 4 keys: 64)
    expect(generationFlops(TINY, 3, 2)).toBe(648 + 408 + 64);
    // 2 layers: the first layer whole at every position, the second's q, k, v alone before the last
    const two = { nLayer: 2, nEmbd: 4, vocabSize: 3 }, q = prefillFlopKinds(two, 3);
    expect(q.dense + q.attention).toBe(forwardFlops(TINY, 1, 3) - 3 * 2 * C * V + 648);
  });
  it('an RL step sums its sequences, its loss rows and the reference forward', () => {
    const shape = { sequences: [{ context: 1, generated: 2 }, { context: 1, generated: 1 }], minibatches: [{ rows: 2, T: 2 }, { rows: 1, T: 1 }], refForward: false };
    expect(rlStepFlops(TINY, shape)).toBe(864 + 424 + 3 * 2 * 864 + 3 * 424);
    expect(rlStepFlops(TINY, { ...shape, refForward: true })).toBe(864 + 424 + 4 * 2 * 864 + 4 * 424);
    // by part: the sequences are the rollout's, the loss rows (and the reference forward) the update's
    expect(rlStepFlopParts(TINY, shape)).toEqual({ rollout: 864 + 424, update: 3 * 2 * 864 + 3 * 424 });
    expect(rlStepFlopParts(TINY, { ...shape, refForward: true })).toEqual({ rollout: 864 + 424, update: 4 * 2 * 864 + 4 * 424 });
    // by kind: attention 2 L C T (T + 1) per sequence = 48 at T 2, 16 at T 1 (864 = 816 dense + 48, 424 = 408 + 16)
    const k = rlStepFlopKinds(TINY, shape);
    expect(k.attention).toBe(48 + 16 + 3 * 2 * 48 + 3 * 16);
    expect(k.dense + k.attention).toBe(rlStepFlops(TINY, shape));
  });
  it('the decode steps are the tokens fed after the prefill: a forward over context + generated - 1 tokens less the context\'s', () => {
    // context 1, 3 generated: positions 1 and 2 fed one at a time; dense 2 x 408; attention 4 L C (t + 1) = 16 x (2 + 3) = 80
    const shape = { sequences: [{ context: 1, generated: 3 }, { context: 4, generated: 1 }], minibatches: [], refForward: false };
    expect(decodeFlopKinds(TINY, shape)).toEqual({ dense: 816, attention: 80 }); // the second generated one token: no decode step
    const fwd = (T: number) => forwardFlops(TINY, 1, T);
    expect(816 + 80).toBe(fwd(3) - fwd(1));
    const c = 5, g = 7, big = { nLayer: 2, nEmbd: 8, vocabSize: 5 }, k = decodeFlopKinds(big, { sequences: [{ context: c, generated: g }], minibatches: [], refForward: false });
    expect(k.dense + k.attention).toBe(forwardFlops(big, 1, c + g - 1) - forwardFlops(big, 1, c));
    expect(rlStepFlopKinds(TINY, shape).decode).toEqual({ dense: 816, attention: 80 });
  });
  it('a context shared by a group is counted once: each of its G sequences takes 1 / G of the context\'s prefill', () => {
    // context 1 + 2 new, twice with one prefill: the context's position (T 1: 424) once, the fed new token (864 - 424) twice
    const shape = { sequences: [{ context: 1, generated: 2, share: 2 }, { context: 1, generated: 2, share: 2 }], minibatches: [], refForward: false };
    expect(rlStepFlops(TINY, shape)).toBe(424 + 2 * (864 - 424));
    expect(rlStepFlops(TINY, { ...shape, sequences: shape.sequences.map((q) => ({ ...q, share: 1 })) })).toBe(2 * 864);
  });
  it('the default model (2 x 64, V 32) forward at B 1, T 47: a figure worked out by hand', () => {
    // dense per token: 2 * 24 * 4096 + 2 * 64 * 32 = 196608 + 4096 = 200704; x 47 = 9433088
    // attention: 2 layers * 2 * 64 * 47 * 48 = 577536
    expect(forwardFlops({ nLayer: 2, nEmbd: 64, vocabSize: 32 }, 1, 47)).toBe(9433088 + 577536);
  });
});

describe('the Trainer\'s step_flops', () => {
  it('is the generation of every sequence plus 3 forwards of every loss row (a token-by-token count)', async () => {
    const { CpuBackend } = await import('../../src/reference/cpuBackend');
    const { createRelay } = await import('../../src/envs/relay');
    const { validateConfig } = await import('../../src/config');
    const { Trainer } = await import('../../src/rl/trainer');
    const trainer = new Trainer(new CpuBackend(), createRelay({}), validateConfig({ promptsPerStep: 2, groupSize: 3, minibatches: 2, evalEpisodes: 4, nLayer: 1, nHead: 2, nEmbd: 16 }));
    const m = await trainer.step();
    const { nLayer: L, nEmbd: C, vocabSize: V, blockSize } = trainer.model.config;
    // one sequence of n tokens, token by token: the dense matmuls, then query t against its t + 1 keys
    const byToken = (n: number) => {
      let f = 0;
      for (let t = 0; t < n; t++) f += L * (2 * C * 3 * C + 2 * C * C + 2 * C * 4 * C + 2 * 4 * C * C + 2 * 2 * C * (t + 1)) + 2 * C * V;
      return f;
    };
    const seqs = trainer.lastRollout!.rollout.sequences;
    expect(seqs.length).toBeGreaterThan(0);
    // a context that k sequences of the same turn (and slot) hold is fed once: each counts 1 / k of its positions
    const holders = (q: (typeof seqs)[number]) => seqs.filter((o) => o.turn === q.turn && o.slot === q.slot && o.context.join() === q.context.join()).length;
    expect(seqs.filter((q) => q.turn === seqs[0].turn).map(holders)).toEqual(new Array(6).fill(3)); // the first turn: 2 prompts x 3 episodes
    // a prefill of c tokens: the positions before the last through every layer's q, k, v and the layers below the last; the last whole
    const byPrefill = (c: number) => {
      let f = 0;
      for (let t = 0; t < c - 1; t++) f += (L - 1) * (2 * C * 3 * C + 2 * C * C + 2 * C * 4 * C + 2 * 4 * C * C + 2 * 2 * C * (t + 1)) + 2 * C * 3 * C;
      return f + byToken(c) - byToken(c - 1);
    };
    const gen = seqs.reduce((a, q) => a + (q.generated.length
      ? byToken(q.context.length + q.generated.length - 1) - byToken(q.context.length) + byPrefill(q.context.length) / holders(q) : 0), 0);
    expect(trainer.lossRows).toBeGreaterThan(0);
    // each minibatch's rows run at its own length: the longest sequence less one, rounded up to 8, within blockSize - 1
    const byMinibatch = trainer.lossShapes.reduce((a, s) => a + 3 * s.rows * byToken(s.T), 0);
    expect(trainer.lossShapes.reduce((a, s) => a + s.rows, 0)).toBe(trainer.lossRows);
    for (const s of trainer.lossShapes) expect(s.T % 8 === 0 || s.T === blockSize - 1).toBe(true);
    expect(m.step_flops).toBeCloseTo(gen + byMinibatch, -1); // within 5 FLOPs of some millions (thirds do not add exactly)
    trainer.destroy();
  });
});
