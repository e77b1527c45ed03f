// Parity of the optimizer kernels (shaders/adamw.wgsl) with the f32 CPU reference.
// Kernel: shaders/adamw.wgsl; CPU twin: src/reference/optim.ts.
import { describe, expect, it } from 'vitest';
import { noGpu, theGpu } from './device';
import { parity } from './parity';
import { Rng } from './random';

describe.skipIf(noGpu)('WebGPU optimizer kernels vs CPU reference', () => {
  it('sumSquares: one element, one workgroup, many partials (grid-stride); one dispatch up to 2^18, two past it', async () => {
    for (const n of [1, 37, 256, 257, 100_003, 262_144, 262_145]) {
      const r = new Rng(n);
      const gpu = theGpu(), d0 = gpu.counters.dispatches, x = gpu.alloc(n), out = gpu.alloc(1);
      gpu.sumSquares(out, x, n);
      expect(gpu.counters.dispatches - d0, `n = ${n}`).toBe(n <= 2 ** 18 ? 1 : 2);
      gpu.free(x);
      gpu.free(out);
      await parity(gpu, { x: r.normal(n), out: r.normal(1) }, (b, t) => b.sumSquares(t.out, t.x, n), ['out'],
        // tree vs sequential summation of n positive terms: relative error grows like n * eps at worst
        { rtol: 2e-5 * Math.max(1, Math.log2(n)), atol: 0 });
    }
  });

  it('clipScale: clipping, no clipping, maxNorm 0 (disabled)', async () => {
    for (const [normSq, maxNorm] of [[100, 1], [0.25, 1], [100, 0], [0, 1]]) {
      await parity(theGpu(), { normSq: Float32Array.of(normSq), scale: Float32Array.of(7) },
        (b, t) => b.clipScale(t.scale, t.normSq, maxNorm), ['scale']);
    }
  });

  it('adamw: two steps with a clip scale on the device, decay mask, bias correction', async () => {
    const n = 1000;
    const r = new Rng(9);
    await parity(theGpu(), {
      params: r.normal(n), grads: r.normal(n), m: r.normal(n, 0.1), v: r.uniformIn(n, 0, 0.01),
      decayMask: r.mask(n, 0.5), normSq: Float32Array.of(0), scale: Float32Array.of(0),
    }, (b, t) => {
      b.sumSquares(t.normSq, t.grads, n);
      b.clipScale(t.scale, t.normSq, 5);
      for (const step of [1, 2]) {
        b.adamw(t.params, t.grads, t.m, t.v, t.decayMask, t.scale, n,
          { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step });
      }
    }, ['params', 'm', 'v', 'scale']);
  });

  it('clipAdamw (the clip scale and AdamW in one dispatch): clipped, unclipped, clipping off, a non-finite norm (nothing moves, scale -1)', async () => {
    const n = 700;
    for (const [gradScale, maxNorm] of [[1, 5], [0.01, 5], [1, 0], [Infinity, 1]]) {
      const r = new Rng(11);
      const grads = r.normal(n).map((g) => g * gradScale);
      if (!Number.isFinite(gradScale)) grads[3] = 1; // one finite element among infinities: the norm is Inf all the same
      const got = await parity(theGpu(), {
        params: r.normal(n), grads, m: r.normal(n, 0.1), v: r.uniformIn(n, 0, 0.01),
        decayMask: r.mask(n, 0.5), normSq: Float32Array.of(0), scale: Float32Array.of(7),
      }, (b, t) => {
        b.sumSquares(t.normSq, t.grads, n);
        for (const step of [1, 2]) {
          b.clipAdamw(t.params, t.grads, t.m, t.v, t.decayMask, t.scale, t.normSq, maxNorm, n,
            { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step });
        }
      }, ['params', 'm', 'v', 'scale']);
      if (!Number.isFinite(gradScale)) expect(got.scale[0]).toBe(-1);
    }
  });
});
