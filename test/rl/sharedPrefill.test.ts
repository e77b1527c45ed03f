// One prefill per group (Generator.sharedPrefill, GPT.prefill's repeat): a group's G episodes start from the same
// context, so the rollout's prefill runs each group's once and copies its KV rows and logits to the G sequences.
// Oracle: the same steps with every row prefilled (sharedPrefill off): the same tokens, log-probs, metrics, evals
// and weights bit for bit on the CPU reference and the CPU engine (rows do not depend on their batch), with fewer
// rows through the model. groupRun against hand-made batches.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { validateConfig, type RunConfig } from '../../src/config';
import { createRelay } from '../../src/envs/relay';
import { GPT } from '../../src/model/gpt';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { groupRun, prefillShares } from '../../src/rl/rollout';
import { Trainer } from '../../src/rl/trainer';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { untimed } from '../model/populationStepCase';

const TINY: Partial<RunConfig> = { promptsPerStep: 3, groupSize: 4, minibatches: 2, evalEpisodes: 8, nLayer: 1, nHead: 2, nEmbd: 16, lr: 2 ** -8, lambdaTok: 0.1, seed: 9 };

describe('groupRun', () => {
  it('finds the run length of equal contexts when every run has it, else 1', () => {
    const a = [1, 2], b = [1, 3], c = [4];
    expect(groupRun([a, [1, 2], b, [1, 3], c, [4]])).toBe(2); // equal by content, not only the same array
    expect(groupRun([a, a, a, b, b, b])).toBe(3);
    expect(groupRun([a, b, c])).toBe(1); // no group
    expect(groupRun([a, a, b, b, b, c])).toBe(1); // runs of unequal length
    expect(groupRun([a, a, b, c])).toBe(1); // the second run is not one context
    expect(groupRun([a, a, a])).toBe(3); // one group
    expect(groupRun([a, a, a, b])).toBe(1); // 4 is not a multiple of 3
    expect(groupRun([])).toBe(1);
  });
});

describe('prefillShares', () => {
  const q = (slot: string, turn: number, context: number[]) => ({ slot, turn, context });
  it('counts the sequences of one slot and turn that hold each context, by content', () => {
    const a = [1, 2, 3];
    expect(prefillShares([q('p', 0, a), q('p', 0, [1, 2, 3]), q('p', 0, a), q('p', 0, [1, 2, 4])])).toEqual([3, 3, 3, 1]);
    // another turn or slot is another prefill
    expect(prefillShares([q('p', 0, a), q('p', 1, a), q('c', 0, a), q('p', 0, a)])).toEqual([2, 1, 1, 2]);
    // prefixes, the empty context and a token past 2^31 are contexts of their own
    expect(prefillShares([q('p', 0, [1, 2]), q('p', 0, [1, 2, 0]), q('p', 0, []), q('p', 0, []), q('p', 0, [2 ** 31 + 5]), q('p', 0, [5])]))
      .toEqual([1, 1, 2, 2, 1, 1]);
    expect(prefillShares([])).toEqual([]);
  });
  it('tells contexts apart whose hashes collide (compared token by token)', () => {
    // two-token contexts whose 32-bit FNV-1a hashes (prefillShares's, slot 0 and turn 0) collide: a birthday search
    const seen = new Map<number, number[]>();
    let pair: [number[], number[]] | null = null;
    const h = (c: number[]) => { let x = Math.imul(0x811c9dc5 ^ 0, 0x01000193) ^ 0; for (const t of c) x = Math.imul(x ^ t, 0x01000193); return x; };
    for (let i = 0; i < 1 << 18 && !pair; i++) { // 2^36 / 2^33 pairs: about 8 collisions expected
      const c = [i, Math.imul(i, 0x9e3779b1) >>> 1], k = h(c), o = seen.get(k);
      if (o) pair = [o, c]; else seen.set(k, c);
    }
    expect(pair).not.toBeNull();
    if (pair) expect(prefillShares([q('p', 0, pair[0]), q('p', 0, pair[1]), q('p', 0, pair[0])])).toEqual([2, 1, 2]);
    // a collision made by hand: the same bucket holds different contexts whatever the hash
    expect(prefillShares([q('p', 0, [7, 7]), q('p', 0, [7, 8]), q('p', 0, [7, 7]), q('p', 0, [7, 8]), q('p', 0, [7, 8])])).toEqual([2, 3, 2, 3, 3]);
  });
});

/** Two steps and an eval with every generator's shared prefill on or off; the forward rows the models ran. */
async function run(make: () => Backend, shared: boolean) {
  const b = make(), t = new Trainer(b, createRelay({}), validateConfig(TINY));
  let rows = 0;
  for (const p of t.policies) p.gen.sharedPrefill = shared;
  // every forward and prefill starts with the rows' embedding: its N counts the rows through the model
  const embed = b.embeddingForward.bind(b);
  b.embeddingForward = (...a: Parameters<Backend['embeddingForward']>) => { rows += a[4]; return embed(...a); };
  const metrics = [untimed(await t.step()), untimed(await t.step())];
  await t.evaluate();
  const seqs = t.lastRollout!.rollout.sequences.map((s) => [s.generated, s.logp]);
  const weights = await t.readWeights('last');
  t.destroy();
  return { result: { metrics, evals: t.evals, seqs, weights }, rows };
}

describe('one prefill per group', () => {
  for (const [name, make] of [['the CPU reference', () => new CpuBackend()], ['the CPU engine, 2 threads', () => new WasmBackend({ threads: 2 })]] as const) {
    it(`${name}: the same steps bit for bit as a prefill of every row, with fewer rows through the model`, async () => {
      const shared = await run(make, true), every = await run(make, false);
      expect(shared.result.seqs.length).toBeGreaterThan(12);
      expect(shared.result).toEqual(every.result);
      expect(shared.rows).toBeLessThan(every.rows);
    });
  }

  it('GPT.prefill with repeat: the cache and logits of a prefill over every row, from the distinct rows only', async () => {
    const b = new CpuBackend(), cfg = { vocabSize: 11, blockSize: 8, nLayer: 1, nHead: 2, nEmbd: 8 };
    const model = new GPT(b, cfg, undefined, 3);
    const distinct = [[1, 2, 3], [4, 5, 0]], lengths = [3, 2], G = 3, Tp = 3, T = 6, B = distinct.length * G;
    const every = Int32Array.from(distinct.flatMap((c) => Array.from({ length: G }, () => c).flat()));
    const pos = b.alloc(B, 'i32');
    b.write(pos, lengths.flatMap((n) => Array.from({ length: G }, () => n)));
    const all = Float32Array.from(await b.read(model.prefill(every, B, Tp, T, pos)));
    const cacheAll = await b.read(model['kvCache'](B, T).all);
    const shared = Float32Array.from(await b.read(model.prefill(Int32Array.from(distinct.flat()), B, Tp, T, pos, undefined, G)));
    expect(all.length).toBeGreaterThanOrEqual(B * cfg.vocabSize);
    expect(shared).toEqual(all);
    expect(all.subarray(0, cfg.vocabSize)).not.toEqual(all.subarray(G * cfg.vocabSize, (G + 1) * cfg.vocabSize)); // two prompts
    expect(await b.read(model['kvCache'](B, T).all)).toEqual(cacheAll);
    expect(() => model.prefill(every, B, Tp, T, pos, undefined, 4)).toThrow(/repeat 4 does not divide the 6 sequences/);
    model.destroy();
  });
});
