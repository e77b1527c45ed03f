// A population's step through the model's layers on WebGPU: K = 3 GPTs stacked, one
// batch of their 2, 0 and 3 sequences through the member ops (one set of dispatches),
// forward and backward, against three GPTs run alone on the CPU reference, to float
// tolerance; in this adapter's layouts and in a GPU's (forced lanes and matmul plans).
import { afterAll, describe, it } from 'vitest';
import { forceMatmulTarget } from '../../src/gpu/kernels/matmul';
import { TARGET_GROUPS } from '../../src/gpu/kernels/matmulPlan';
import { forceRowMode } from '../../src/gpu/kernels/rows';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { decodeBoth, loneForwardBackward, stackedForwardBackward } from '../model/stackedGpt';
import { modelCase } from '../model/stackedGptCase';
import { noGpu, theGpu } from './device';
import { expectClose } from './parity';

// Two layers of f32 products of up to 4C = 48 terms, then gradients summed over 25 rows.
const TOL = { rtol: 1e-3, atol: 1e-4 };

describe.skipIf(noGpu)('a stacked population through the GPT layers (WebGPU vs lone CPU runs)', () => {
  afterAll(() => { forceRowMode(null); forceMatmulTarget(null); });
  for (const layout of ['adapter', 'gpu'] as const) {
    it(`K = 3 members, 2, 0 and 3 sequences: logits and gradients, ${layout === 'gpu' ? 'GPU layouts (forced)' : 'this adapter\'s layouts'}`, async () => {
      forceRowMode(layout === 'gpu' ? 'lanes' : null);
      forceMatmulTarget(layout === 'gpu' ? TARGET_GROUPS : null);
      const { config, weights, B, T, tokens, dlogits } = modelCase();
      const got = await stackedForwardBackward(theGpu(), config, weights, B, T, tokens, dlogits);
      expectClose('WebGPU errors', [theGpu().takeErrors().length], [0]);
      const want = await loneForwardBackward(new CpuBackend('f32'), config, weights, B, T, tokens, dlogits);
      expectClose('logits', got.logits, want.logits, TOL);
      expectClose('grads', got.grads, want.grads, TOL);
    });
  }
  it('K = 3 members, a prefill then a decode step: the prefill\'s and decode\'s logits of three lone GPTs on the CPU', async () => {
    const { config, weights, B, T, tokens } = modelCase();
    const pos = Int32Array.from({ length: 5 }, (_, i) => 2 + (i % 3));
    const got = await decodeBoth(theGpu(), config, weights, B, T, 3, tokens, pos);
    const want = await decodeBoth(new CpuBackend('f32'), config, weights, B, T, 3, tokens, pos);
    expectClose('prefill and decode logits', got.stacked, want.lone, TOL);
  });
});
