// Sampling on WebGPU draws the same tokens as the CPU reference (same counter-based RNG),
// and the divergence guard leaves weights untouched on both backends.
// Kernel: shaders/sample.wgsl; CPU twin: src/reference/sample.ts.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { mulberry32 } from '../../src/model/random';
import { noGpu, theGpu } from './device';

async function runSample(b: Backend, logits: Float32Array, B: number, T: number, V: number, temperature: number) {
  const t = { tokens: b.alloc(B * T, 'i32'), logp: b.alloc(B * T), pos: b.alloc(B, 'i32'), done: b.alloc(B, 'i32'), limit: b.alloc(B, 'i32'), logits: b.alloc(B * T * V) };
  b.write(t.logits, logits);
  b.write(t.pos, Int32Array.from({ length: B }, (_, i) => 1 + (i % 3)));
  b.write(t.limit, Int32Array.from({ length: B }, (_, i) => (i % 5 === 0 ? 3 : T)));
  for (let step = 0; step < T - 1; step++) b.sample(t.tokens, t.logp, t.pos, t.done, t.limit, t.logits, B, T, V, temperature, 0, 1234, step);
  b.submit();
  return { tokens: await b.read(t.tokens), logp: await b.read(t.logp), pos: await b.read(t.pos), done: await b.read(t.done) };
}

describe.skipIf(noGpu)('sample on WebGPU', () => {
  for (const temperature of [1, 0.5, 0]) {
    it(`matches the CPU reference token for token (temperature ${temperature}, ragged positions, limits, EOS)`, async () => {
      const B = 37, T = 7, V = 11, r = mulberry32(3);
      const logits = Float32Array.from({ length: B * T * V }, () => (r() - 0.5) * 6);
      const want = await runSample(new CpuBackend(), logits, B, T, V, temperature);
      const got = await runSample(theGpu(), logits, B, T, V, temperature);
      expect(Array.from(got.tokens)).toEqual(Array.from(want.tokens));
      expect(Array.from(got.pos)).toEqual(Array.from(want.pos));
      expect(Array.from(got.done)).toEqual(Array.from(want.done));
      for (let i = 0; i < B * T; i++) expect(Math.abs(got.logp[i] - want.logp[i])).toBeLessThan(1e-4);
      expect(new Set(Array.from(want.tokens)).size).toBeGreaterThan(3); // really sampled
    });
  }
});

describe.skipIf(noGpu)('divergence guard', () => {
  for (const which of ['cpu', 'webgpu'] as const) {
    it(`${which}: a NaN or Inf gradient leaves params, m and v untouched`, async () => {
      const b: Backend = which === 'cpu' ? new CpuBackend() : theGpu();
      for (const bad of [NaN, Infinity]) {
        const n = 70, p = b.alloc(n), g = b.alloc(n), m = b.alloc(n), v = b.alloc(n), mask = b.alloc(n), sq = b.alloc(1), scale = b.alloc(1);
        const p0 = Float32Array.from({ length: n }, (_, i) => i / 10), m0 = new Float32Array(n).fill(0.1);
        b.write(p, p0); b.write(m, m0); b.write(v, m0); b.write(mask, new Float32Array(n).fill(1));
        b.write(g, Float32Array.from({ length: n }, (_, i) => (i === 5 ? bad : 1)));
        b.sumSquares(sq, g, n);
        b.clipScale(scale, sq, 1);
        b.adamw(p, g, m, v, mask, scale, n, { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 1 });
        b.submit();
        expect((await b.read(scale))[0]).toBe(-1);
        expect(Array.from(await b.read(p))).toEqual(Array.from(p0));
        expect(Array.from(await b.read(m))).toEqual(Array.from(m0));
        // and a finite gradient does move them (the control)
        b.write(g, new Float32Array(n).fill(1));
        b.sumSquares(sq, g, n); b.clipScale(scale, sq, 1);
        b.adamw(p, g, m, v, mask, scale, n, { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 1 });
        b.submit();
        expect((await b.read(p))[3]).not.toBe(p0[3]);
      }
    });
  }
});
