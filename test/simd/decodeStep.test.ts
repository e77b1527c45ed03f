// The wasm engine's decode step as one op (shaders/simd/decode.ts: every layer and the head for a chunk of sequences,
// one hand-off a step on threads) against the per-op path it replaces (GPT.decode's ops, then `sample`): a rollout
// draws the same tokens with the same log-probs, bit for bit, on one thread and on two, with sequences that end at
// different steps and chunks of 16 sequences that do not divide the batch, for a lone model and a population of 2
// (the second member's rows from an odd row on); the reference engine within f32 rounding.
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { GPT } from '../../src/model/gpt';
import { paramSpecs, type GPTConfig } from '../../src/model/params';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Generator } from '../../src/rl/rollout';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { Rng } from '../gpu/random';

const cfg: GPTConfig = { nLayer: 3, nHead: 4, nEmbd: 32, blockSize: 40, vocabSize: 13 };
const weights = new Rng(9).normal(paramSpecs(cfg).total, 0.3), weights2 = new Rng(10).normal(paramSpecs(cfg).total, 0.3);
const r = new Rng(5);
const B = 38; // alone: two chunks of 16 and one of 6; a population of 2: 19 sequences each, chunks of 16 and 3
const pop = { episodesPerMember: 19, seeds: [123, 456] };
const contexts = Array.from({ length: B }, (_, i) => Array.from(r.ints(1 + (i * 7) % 11, 0, cfg.vocabSize)));
const maxNew = contexts.map((_, i) => 3 + (i * 5) % 17);
const EOS = 2, SEED = 31, COUNTER = 3;

/** A rollout on `b`, per op (decodeSampleFused answered false on this instance) or as the engine chooses. */
async function rollout(b: Backend, perOp: boolean, temperature: number, population = false) {
  if (perOp) b.decodeSampleFused = () => false;
  const model = new GPT(b, cfg, population ? [weights, weights2] : weights), gen = new Generator(b, model);
  if (population) gen.population = pop;
  try { return await gen.generate(contexts, maxNew, temperature, EOS, SEED, COUNTER, contexts.map((_, i) => i)); } finally { model.destroy(); }
}

const pools: WasmBackend[] = [];
afterAll(async () => { for (const b of pools) await b.destroyAndWait(); });

describe('the wasm engine\'s decode step as one op', () => {
  it('is taken for decode steps of up to 128 sequences a member, alone or in a population, not for the prefill', () => {
    const b = new WasmBackend(), s = { B, T: 40, C: 32, NH: 4, L: 3, V: 13 }, fused = (x: Partial<typeof s> & { K: number; prefill?: boolean }) => b.decodeSampleFused({ ...s, ...x });
    expect([fused({ K: 1 }), fused({ K: 1, prefill: true }), fused({ K: 2 }), fused({ K: 1, B: 128 }), fused({ K: 1, B: 129 }), fused({ K: 2, B: 256 }), fused({ K: 2, B: 258 })])
      .toEqual([true, false, true, true, false, true, false]);
  });
  for (const population of [false, true]) for (const threads of [1, 2]) for (const temperature of [1, 0]) {
    it(`draws the per-op path's tokens and log-probs bit for bit (${population ? 'a population of 2' : 'alone'}, ${threads} thread${threads > 1 ? 's' : ''}, temperature ${temperature})`, async () => {
      const make = async () => { const b = await WasmBackend.start({ threads, threadMinWork: 1 }); pools.push(b); return b; };
      const fusedEngine = await make();
      const want = await rollout(await make(), true, temperature, population), got = await rollout(fusedEngine, false, temperature, population);
      expect(got.tokens).toEqual(want.tokens);
      expect(got.logp).toEqual(want.logp);
      if (threads > 1) expect(fusedEngine.workerChunks).toBeGreaterThan(0); // the step really was split
      expect(want.tokens.some((x, i) => x.length < maxNew[i]) || temperature === 0).toBe(true); // some row stopped on eos
      expect(new Set(want.tokens.map((x) => x.length)).size).toBeGreaterThan(3); // rows end at different steps
    });
  }
  it('agrees with the reference engine (tokens equal, log-probs within f32 rounding)', async () => {
    const want = await rollout(new CpuBackend(), true, 1), got = await rollout(new WasmBackend(), false, 1);
    expect(got.tokens).toEqual(want.tokens);
    got.logp.flat().forEach((x, i) => expect(Math.abs(x - want.logp.flat()[i])).toBeLessThan(1e-5));
  });
});
