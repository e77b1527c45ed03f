// A population's step through the model's layers on the CPU backend: K = 3 GPTs stacked
// (flat parameter vectors side by side), one batch of their sequences (2, 0 and 3 of
// them) through the member ops, forward and backward, equals each GPT run alone
// (src/model/gpt.ts) bit for bit: logits and every parameter's gradient.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { decodeBoth, loneForwardBackward, stackedForwardBackward } from './stackedGpt';
import { modelCase } from './stackedGptCase';

describe('a stacked population through the GPT layers (CPU)', () => {
  it('K = 3 members, 2, 0 and 3 sequences: logits and gradients equal three lone GPTs bit for bit', async () => {
    const { config, weights, B, T, tokens, dlogits } = modelCase();
    const cpu = new CpuBackend('f32');
    const got = await stackedForwardBackward(cpu, config, weights, B, T, tokens, dlogits);
    const want = await loneForwardBackward(cpu, config, weights, B, T, tokens, dlogits);
    expect(got.logits).toEqual(want.logits);
    expect(got.grads).toEqual(want.grads);
    expect(got.grads.some((g) => g !== 0)).toBe(true);
  });

  it('K = 3 members, a prefill then a decode step (KV cache per sequence, sequences member-major): equal three lone GPTs bit for bit', async () => {
    const { config, weights, B, T, tokens } = modelCase();
    const pos = Int32Array.from({ length: 5 }, (_, i) => 2 + (i % 3)); // pos <= Tp + 1: the cache holds every row before pos - 1
    const { stacked, lone } = await decodeBoth(new CpuBackend('f32'), config, weights, B, T, 3, tokens, pos);
    expect(stacked).toEqual(lone);
    expect(stacked.some((x) => x !== 0)).toBe(true);
  });
});
