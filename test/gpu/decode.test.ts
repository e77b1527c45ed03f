// KV-cache decoding on WebGPU (shaders/decode.wgsl): the decode ops against their
// CPU twins at odd shapes (T = 1, T past the 64-wide workgroup, head size 5), a
// decode step against the full forward's rows, and generation with the cache
// against the full-prefix path and the CPU reference, token for token.
// Kernel: shaders/decode.wgsl; CPU twins: src/reference/nn.ts, src/reference/attention.ts.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { noGpu, theGpu } from './device';
import { forceRowMode } from '../../src/gpu/kernels/rows';
import { expectClose, parity } from './parity';
import { Rng } from './random';
import { decodeVsForward, generateBoth, sharpModel } from '../model/decodeCases';
import type { Backend } from '../../src/backend';
import type { GPT } from '../../src/model/gpt';
import { Generator, groupRun } from '../../src/rl/rollout';
import type { GPTConfig } from '../../src/model/params';

describe.skipIf(noGpu)('WebGPU KV-cache decoding', () => {
  it('embeddingLast, attentionDecode (cache append included; both layouts), copyRows and gatherLast match the CPU reference', async () => {
    for (const mode of ['lanes', 'single'] as const) for (const [B, T, C, NH] of [[3, 5, 12, 3], [2, 1, 8, 2], [3, 70, 16, 4], [2, 130, 10, 2], [65, 4, 4, 1]]) {
      forceRowMode(mode);
      const r = new Rng(B * 1000 + T * 10 + C), V = 9;
      const pos = Int32Array.from({ length: B }, (_, i) => (i === 0 ? T : i === 1 ? 1 : 1 + Math.floor(r.uniformIn(1, 0, T)[0])));
      await parity(theGpu(), {
        tokens: r.ints(B * T, 0, V), pos, wte: r.normal(V * C), wpe: r.normal(T * C), emb: r.normal(B * C),
        qkvCache: r.normal(B * T * 3 * C), qkvNew: r.normal(B * 3 * C, 2), out: r.normal(B * C),
        rows: r.normal(B * 2 * 3 * C), copied: r.normal(B * T * 3 * C), repeated: r.normal(B * T * 3 * C),
        gathered: r.normal(B * C), gatheredRep: r.normal(B * C),
      }, (b, t) => {
        b.gatherLast(t.gathered, t.qkvCache, t.pos, B, T, C); // read before attentionDecode appends to the cache
        if (B % 3 === 0) b.gatherLast(t.gatheredRep, t.qkvCache, t.pos, B, T, C, 3); // a group's rows: 3 sequences a row
        b.embeddingLast(t.emb, t.tokens, t.pos, t.wte, t.wpe, B, T, C);
        b.attentionDecode(t.out, t.qkvCache, t.qkvNew, t.pos, B, T, C, NH);
        b.copyRows(t.copied, t.rows, B, Math.min(2, T) * 3 * C, T * 3 * C, 2 * 3 * C);
        b.copyRows(t.repeated, t.rows, B, Math.min(2, T) * 3 * C, T * 3 * C, 2 * 3 * C, 2); // a group's one prefill, twice each
      }, ['emb', 'qkvCache', 'out', 'copied', 'repeated', 'gathered', 'gatheredRep']);
    }
    forceRowMode(null);
  });

  it('a prefill and a decode step equal the full forward\'s rows', async () => {
    const cfg: GPTConfig = { nLayer: 2, nHead: 3, nEmbd: 12, blockSize: 80, vocabSize: 11 };
    const { got, want, pre, preWant } = await decodeVsForward(theGpu(), cfg, 7, 75, 5);
    expectClose('decode logits', got, want, { rtol: 1e-4, atol: 1e-4 });
    expectClose('prefill logits', pre, preWant, { rtol: 1e-4, atol: 1e-4 });
  });

  it('in the GPU layouts (workgroup per row, tiled attention) generation still draws the CPU reference\'s tokens', async () => {
    const cfg: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 20, vocabSize: 11 };
    forceRowMode('lanes');
    try {
      const gpu = await generateBoth(theGpu(), cfg, 1, 4);
      const cpu = await generateBoth(new CpuBackend(), cfg, 1, 4);
      expect(gpu.cached.tokens).toEqual(gpu.plain.tokens);
      expect(gpu.cached.tokens).toEqual(cpu.cached.tokens);
      expectClose('logp', gpu.cached.logp.flat(), cpu.cached.logp.flat(), { rtol: 1e-4, atol: 1e-4 });
    } finally {
      forceRowMode(null);
    }
  });

  for (const temperature of [1, 0]) {
    it(`generation with the cache draws the tokens of the full-prefix path and of the CPU reference (temperature ${temperature})`, async () => {
      const cfg: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 16, blockSize: 20, vocabSize: 11 };
      const gpu = await generateBoth(theGpu(), cfg, temperature, 9);
      const cpu = await generateBoth(new CpuBackend(), cfg, temperature, 9);
      expect(gpu.cached.tokens).toEqual(gpu.plain.tokens);
      expect(gpu.cached.tokens).toEqual(cpu.cached.tokens);
      expectClose('logp', gpu.cached.logp.flat(), cpu.cached.logp.flat(), { rtol: 1e-4, atol: 1e-4 });
      expect(theGpu().takeErrors()).toEqual([]);
    });
  }

  it('groups of one context: one prefill per group draws the tokens of a prefill of every row and of the CPU reference', async () => {
    const cfg: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 16, blockSize: 20, vocabSize: 11 };
    const r = new Rng(12), G = 4;
    const prompts = Array.from({ length: 3 }, (_, i) => Array.from(r.ints(2 + 3 * i, 0, cfg.vocabSize)));
    const contexts = prompts.flatMap((p) => Array.from({ length: G }, () => p)), maxNew = contexts.map(() => 6);
    expect(groupRun(contexts)).toBe(G);
    const draw = async (b: Backend, shared: boolean) => {
      const model = sharpModel(b, cfg, 5), gen = new Generator(b, model);
      gen.sharedPrefill = shared;
      let rows = 0;
      const forward = model.forward.bind(model);
      model.forward = ((...a: Parameters<GPT['forward']>) => { rows += a[1] * a[2]; return forward(...a); }) as GPT['forward'];
      const out = await gen.generate(contexts, maxNew, 1, 2, 31, 0);
      model.destroy();
      return { ...out, rows };
    };
    // the per-op path (SwiftShader, a CPU adapter, would run this small model's steps fused, prefill included)
    const gpu = theGpu(), fused = gpu.decodeSampleFused;
    gpu.decodeSampleFused = () => false;
    let once, every;
    try { [once, every] = [await draw(gpu, true), await draw(gpu, false)]; } finally { gpu.decodeSampleFused = fused; }
    const cpu = await draw(new CpuBackend(), true);
    expect(once.rows * G).toBe(every.rows); // the prefill ran each group's context once
    expect(once.tokens).toEqual(every.tokens);
    expect(once.tokens).toEqual(cpu.tokens);
    expectClose('logp', once.logp.flat(), every.logp.flat(), { rtol: 1e-5, atol: 1e-5 });
    expect(theGpu().takeErrors()).toEqual([]);
  });
});
