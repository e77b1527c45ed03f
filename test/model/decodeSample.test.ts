// Backend.decodeSample composed from the ops (src/reference/decodeSample.ts, the twin of WebGPU's fused kernel) on the CPU
// reference and the wasm engine: a turn through it draws what the Generator's own path draws (GPT.prefill, GPT.decode
// and `sample`), token for token, for a lone model and a population of 2 members.
import { describe, expect, it } from 'vitest';
import type { Backend, Tensor } from '../../src/backend';
import { GPT } from '../../src/model/gpt';
import { paramSpecs, type GPTConfig } from '../../src/model/params';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Generator } from '../../src/rl/rollout';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { Rng } from '../gpu/random';

const cfg: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 16, blockSize: 20, vocabSize: 11 };
const weights = (seed: number) => new Rng(seed).normal(paramSpecs(cfg).total, 0.35);
const r = new Rng(4);
const contexts = Array.from({ length: 6 }, (_, i) => Array.from(r.ints(1 + (i * 5) % 7, 0, cfg.vocabSize)));
const maxNew = contexts.map((_, i) => 2 + (i * 3) % 8);
const EOS = 2, SEED = 77, COUNTER = 5;
const pop = { episodesPerMember: 3, seeds: [123, 456] }; // rows 0-2 member 0, 3-5 member 1

/** The turn through GPT.decodeSample, laid out as generateRows lays it out (rowRng only for a population). */
async function composed(b: Backend, model: GPT, temperature: number, population: boolean) {
  const B = contexts.length, T = Math.max(...contexts.map((c, i) => c.length + maxNew[i]));
  const tokens = new Int32Array(B * T), pos = Int32Array.from(contexts.map((c) => c.length)), limit = pos.map((p, i) => p + maxNew[i]);
  contexts.forEach((c, i) => tokens.set(c, i * T));
  const s = { tokens: b.alloc(B * T, 'i32'), logp: b.alloc(B * T), pos: b.alloc(B, 'i32'), done: b.alloc(B, 'i32'), limit: b.alloc(B, 'i32'),
    rowRng: undefined as Tensor | undefined };
  b.write(s.tokens, tokens); b.write(s.pos, pos); b.write(s.limit, limit);
  if (population) {
    s.rowRng = b.alloc(2 * B, 'i32');
    b.write(s.rowRng, contexts.flatMap((_, i) => [pop.seeds[Math.floor(i / 3)], i % 3]));
  }
  for (let k = 0; k < Math.max(...maxNew); k++) {
    model.decodeSample(s, B, T, k === 0, temperature, EOS, SEED, COUNTER + k, population ? [3, 3] : undefined);
  }
  const outTok = await b.read(s.tokens), outPos = await b.read(s.pos), outLogp = await b.read(s.logp);
  return {
    tokens: contexts.map((c, i) => Array.from(outTok.subarray(i * T + c.length, i * T + outPos[i]))),
    logp: contexts.map((c, i) => Array.from(outLogp.subarray(i * T + c.length, i * T + outPos[i]))),
  };
}

const engines: [string, () => Backend][] = [['reference', () => new CpuBackend()], ['wasm engine', () => new WasmBackend()]];
describe('decodeSample composed from the ops (the fused kernel\'s twin)', () => {
  for (const [name, make] of engines) for (const population of [false, true]) for (const temperature of [1, 0]) {
    it(`${name}: a turn draws the Generator's tokens and log-probs (${population ? 'population of 2' : 'lone model'}, temperature ${temperature})`, async () => {
      const b = make(), model = new GPT(b, cfg, population ? [weights(1), weights(2)] : weights(1));
      const gen = new Generator(b, model);
      if (population) gen.population = pop;
      const want = await gen.generate(contexts, maxNew, temperature, EOS, SEED, COUNTER, contexts.map((_, i) => i));
      const got = await composed(b, model, temperature, population);
      expect(got.tokens).toEqual(want.tokens);
      got.logp.flat().forEach((x, i) => expect(Math.abs(x - want.logp.flat()[i])).toBeLessThan(1e-5));
      if (temperature === 1) expect(want.tokens.some((x, i) => x.length < maxNew[i])).toBe(true); // some row stopped on eos (greedy here draws none)
      model.destroy();
    });
  }
});
