// The fused decode step (shaders/sample.wgsl's decode_sample: a GPT's prefill or decode step and its sample, one
// dispatch) against its twin, the same op composed from the unfused ops on the CPU reference (src/reference/decodeSample.ts):
// sampled tokens, pos and done equal, logp and the KV cache within tolerance, at temperature 1 and 0, with rows
// stopped by eos and by their limit, a row already done left untouched, and a population of 2 members (rowRng);
// then whole turns through the Generator against the reference Generator (which composes the ops it always has).
import { describe, expect, it } from 'vitest';
import type { Backend, Tensor } from '../../src/backend';
import { GPT } from '../../src/model/gpt';
import { paramSpecs, type GPTConfig } from '../../src/model/params';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Generator } from '../../src/rl/rollout';
import { decodeSampleFits } from '../../src/gpu/kernels/decodeSample';
import { noGpu, theGpu } from './device';
import { expectClose } from './parity';
import { Rng } from './random';

const cfg: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 16, blockSize: 20, vocabSize: 11 };
const TOL = { rtol: 1e-4, atol: 1e-4 };

/** Weights larger than the init's, so logits are far from uniform (a real model's choices, not ties). */
const weights = (seed: number) => new Rng(seed).normal(paramSpecs(cfg).total, 0.35);

interface Case {
  contexts: number[][];
  limit: number[];
  done0: number[]; // rows done before the first step
  steps: number;
  temperature: number;
  eos: number;
  members?: { seqs: number[]; seeds: number[] };
}

const B = 5, T = 14;
const baseCase = (temperature: number, eos = -1): Case => ({
  contexts: [[1, 4, 2], [3], [5, 6, 7, 8, 9, 10], [2, 2], [7, 1, 3, 4]],
  limit: [12, 3, 13, 14, 9], // row 1 stops at its limit after 2 tokens
  done0: [0, 0, 0, 1, 0], // row 3 is done from the start
  steps: 10, temperature, eos,
});

/** Runs the case through GPT.decodeSample on backend b; returns the state and the cache read back. */
async function run(b: Backend, c: Case, K = 1) {
  const w = Array.from({ length: K }, (_, k) => weights(11 + k));
  const model = new GPT(b, cfg, K === 1 ? w[0] : w);
  const tokens = new Int32Array(B * T).fill(9), pos = Int32Array.from(c.contexts.map((x) => x.length));
  c.contexts.forEach((x, i) => tokens.set(x, i * T));
  const s = { tokens: b.alloc(B * T, 'i32'), logp: b.alloc(B * T), pos: b.alloc(B, 'i32'), done: b.alloc(B, 'i32'), limit: b.alloc(B, 'i32'),
    rowRng: undefined as Tensor | undefined };
  b.write(s.tokens, tokens);
  b.write(s.logp, new Float32Array(B * T).fill(7.5)); // untouched places keep it
  b.write(s.pos, pos);
  b.write(s.done, c.done0);
  b.write(s.limit, c.limit);
  if (c.members) {
    // each row's (member seed, index among its member's rows), as the Generator writes them
    const rng: number[] = [];
    c.members.seqs.forEach((n, k) => { for (let i = 0; i < n; i++) rng.push(c.members!.seeds[k], i); });
    s.rowRng = b.alloc(2 * B, 'i32');
    b.write(s.rowRng, rng);
  }
  for (let k = 0; k < c.steps; k++) model.decodeSample(s, B, T, k === 0, c.temperature, c.eos, 77, 5 + k, c.members?.seqs);
  b.submit();
  const kv = (model as unknown as { kvByShape: Map<string, { all: Tensor }> }).kvByShape.get(`${B}x${T}`)!.all;
  const out = {
    tokens: Array.from(await b.read(s.tokens)), logp: Array.from(await b.read(s.logp)), pos: Array.from(await b.read(s.pos)),
    done: Array.from(await b.read(s.done)), kv: Float64Array.from(await b.read(kv)), tokens0: Array.from(tokens), pos0: Array.from(pos),
  };
  model.destroy();
  return out;
}

type Result = Awaited<ReturnType<typeof run>>;

function compare(got: Result, want: Result, c: Case): void {
  expect(got.tokens).toEqual(want.tokens);
  expect(got.pos).toEqual(want.pos);
  expect(got.done).toEqual(want.done);
  expectClose('logp', got.logp, want.logp, TOL);
  // the cache: every layer's q, k, v of the rows both wrote (a done row's and each row's last token are not run here)
  const C3 = 3 * cfg.nEmbd, stride = Math.ceil((B * T * C3) / 64) * 64;
  const g: number[] = [], w: number[] = [];
  for (let l = 0; l < cfg.nLayer; l++) for (let b = 0; b < B; b++) {
    if (c.done0[b]) continue;
    for (let t = 0; t < want.pos[b] - 1; t++) {
      const o = l * stride + (b * T + t) * C3;
      g.push(...got.kv.subarray(o, o + C3));
      w.push(...want.kv.subarray(o, o + C3));
    }
  }
  expect(w.length).toBeGreaterThan(0);
  expectClose('kv cache', g, w, TOL);
  // the row done from the start: untouched
  for (let b = 0; b < B; b++) if (c.done0[b]) {
    expect(got.pos[b]).toBe(got.pos0[b]);
    expect(got.tokens.slice(b * T, (b + 1) * T)).toEqual(got.tokens0.slice(b * T, (b + 1) * T));
    expect(got.logp.slice(b * T, (b + 1) * T).every((x) => x === 7.5)).toBe(true);
  }
}

/** The case with eos set to a token the reference draws mid-turn in row 0, so that row stops on it. */
async function withEos(c: Case): Promise<Case> {
  const first = await run(new CpuBackend(), c), p0 = c.contexts[0].length;
  return { ...c, eos: first.tokens[p0 + 2] };
}

describe.skipIf(noGpu)('the fused decode step (decode_sample) against the composed ops', () => {
  it('is the fused kernel at this shape on WebGPU, and the composition on the CPU', () => {
    const shape = { B, T, C: cfg.nEmbd, NH: cfg.nHead, L: cfg.nLayer, V: cfg.vocabSize, K: 1 };
    expect(theGpu().decodeSampleFused(shape)).toBe(true);
    expect(theGpu().decodeSampleFused({ ...shape, C: 256, NH: 8, L: 8 })).toBe(false); // 8x8x256 keeps the per-op path
    expect(new CpuBackend().decodeSampleFused(shape)).toBe(false);
  });

  for (const temperature of [1, 0]) {
    it(`prefill and decode steps: tokens, logp, pos, done and the cache (temperature ${temperature}; eos, limit, a done row)`, async () => {
      const c = await withEos(baseCase(temperature));
      const want = await run(new CpuBackend(), c), before = theGpu().counters.dispatches;
      const got = await run(theGpu(), c);
      expect(theGpu().counters.dispatches - before).toBe(c.steps); // one dispatch per step
      expect(theGpu().takeErrors()).toEqual([]);
      // the case holds what it claims: row 0 stopped on eos, row 1 at its limit
      expect(want.done[0]).toBe(1);
      expect(want.tokens[want.pos[0] - 1]).toBe(c.eos);
      expect(want.pos[0]).toBeLessThan(c.limit[0]);
      expect(want.pos[1]).toBe(c.limit[1]);
      compare(got, want, c);
    });
  }

  it('a population of 2 members (rows 2 + 3, each its own weights and sampling stream)', async () => {
    const c: Case = { ...baseCase(1), done0: [0, 0, 0, 0, 0], members: { seqs: [2, 3], seeds: [123, 456] } };
    const want = await run(new CpuBackend(), c, 2), got = await run(theGpu(), c, 2);
    compare(got, want, c);
    // member 0's rows are what member 0 draws as a lone model with the same streams; member 1's (other weights, seed) are not
    const lone = await run(new CpuBackend(), { ...c, members: { seqs: [5], seeds: [123] } });
    expect(lone.tokens.slice(0, 2 * T)).toEqual(want.tokens.slice(0, 2 * T));
    expect(lone.tokens.slice(2 * T)).not.toEqual(want.tokens.slice(2 * T));
  });

  for (const temperature of [1, 0]) {
    it(`the Generator through the fused path draws the reference Generator's turns (temperature ${temperature})`, async () => {
      const r = new Rng(5);
      const contexts = Array.from({ length: 7 }, (_, i) => Array.from(r.ints(1 + (i * 5) % 7, 0, cfg.vocabSize)));
      const maxNew = contexts.map((_, i) => 1 + (i * 3) % 8);
      const gen = async (b: Backend, eos: number) => {
        const model = new GPT(b, cfg, weights(21));
        const out = await new Generator(b, model).generate(contexts, maxNew, temperature, eos, 77, 5);
        model.destroy();
        return out;
      };
      const longest = maxNew.indexOf(Math.max(...maxNew)), eos = (await gen(new CpuBackend(), -1)).tokens[longest][2]; // drawn mid-turn
      const want = await gen(new CpuBackend(), eos), c0 = theGpu().counters;
      const got = await gen(theGpu(), eos), c1 = theGpu().counters;
      expect(got.tokens).toEqual(want.tokens);
      expectClose('logp', got.logp.flat(), want.logp.flat(), TOL);
      expect(want.tokens[longest].length).toBeLessThan(maxNew[longest]); // that row stopped on eos
      expect(c1.dispatches - c0.dispatches).toBe(Math.max(...maxNew)); // one dispatch per token position
      expect(c1.submissions - c0.submissions).toBeLessThanOrEqual(2); // the two reads at the end
    });
  }

  it('a GPU\'s path, the per-op prefill then fused decode steps over the same cache, draws the reference Generator\'s turns', async () => {
    const r = new Rng(6);
    const contexts = Array.from({ length: 7 }, (_, i) => Array.from(r.ints(1 + (i * 5) % 7, 0, cfg.vocabSize)));
    const maxNew = contexts.map((_, i) => 2 + (i * 3) % 7);
    const gen = async (b: Backend) => {
      const model = new GPT(b, cfg, weights(22));
      const out = await new Generator(b, model).generate(contexts, maxNew, 1, -1, 78, 3);
      model.destroy();
      return out;
    };
    const want = await gen(new CpuBackend()), g = theGpu();
    const own = g as { decodeSampleFused?: unknown; decodeSample?: unknown }, fusedCall = g.decodeSample.bind(g);
    const calls: boolean[] = []; // each fused call: a prefill?
    g.decodeSampleFused = (s) => !s.prefill && decodeSampleFits(s); // what a hardware adapter answers
    g.decodeSample = (a) => { calls.push(a.prefill); fusedCall(a); };
    try {
      const d0 = g.counters.dispatches;
      const got = await gen(g);
      expect(got.tokens).toEqual(want.tokens);
      expectClose('logp', got.logp.flat(), want.logp.flat(), TOL);
      expect(calls).toEqual(new Array(Math.max(...maxNew) - 1).fill(false)); // every decode step fused, the prefill not
      expect(g.counters.dispatches - d0).toBeGreaterThan(2 * Math.max(...maxNew)); // the prefill's ops
    } finally {
      delete own.decodeSampleFused; // the prototype's again
      delete own.decodeSample;
    }
  });
});
