// The stacked population's memory check, from hand figures: K members hold K times a lone run's
// tensors, so the refusal names K, the limit, and how many would fit (from gpuBudget of one run).
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { checkStackedBudget, gpuBudget } from '../../src/rl/memoryBudget';

const MiB = 2 ** 20;
const config = validateConfig({ promptsPerStep: 4, groupSize: 4, evalEpisodes: 16, nLayer: 1, nHead: 2, nEmbd: 16 });
const model = { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 32, vocabSize: 20 };
const roomy = { maxStorageBufferBindingSize: 1024 * MiB, maxBufferSize: 1024 * MiB };

describe('checkStackedBudget', () => {
  const one = gpuBudget(config, model, 1, 0);
  it('fits: K times one run\'s total and largest tensor', () => {
    const r = checkStackedBudget(config, model, 5, roomy, 5 * one.totalBytes);
    expect(r.totalBytes).toBe(5 * one.totalBytes);
    expect(r.largest.bytes).toBe(5 * one.largest.bytes);
  });
  it('over the memory limit: names K, the limit and how many fit', () => {
    const limit = 3 * one.totalBytes + 1;
    expect(() => checkStackedBudget(config, model, 5, roomy, limit))
      .toThrow(new RegExp(`a stacked population of K=5 members needs about \\d+ MiB .* more than the limit of ${Math.ceil(limit / MiB)} MiB: at most 3 fit at once \\(--members 3\\)`));
  });
  it('over the binding limit: the largest tensor times K, and how many fit', () => {
    const binding = { maxStorageBufferBindingSize: 2 * one.largest.bytes, maxBufferSize: 1024 * MiB };
    expect(() => checkStackedBudget(config, model, 3, binding, 1e12)).toThrow(/K=3 members: .* x K needs .* in one tensor, more than this GPU binds \(maxStorageBufferBindingSize .*: at most 2 fit at once/);
  });
});
