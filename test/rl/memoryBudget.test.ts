// The GPU memory budget (src/rl/memoryBudget.ts) against sizes worked out here by hand from the
// model's shapes, WebGPU's default limits, and the buffer pool's power-of-two size classes.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, type RunConfig } from '../../src/config';
import type { GPTConfig } from '../../src/model/params';
import { checkGpuBudget, gpuBudget, memoryShare } from '../../src/rl/memoryBudget';

const MiB = 1 << 20, GiB = 1 << 30;
// WebGPU's default limits: what a device gets when it asks for nothing more (and what many phones offer)
const DEFAULT_LIMITS = { maxStorageBufferBindingSize: 128 * MiB, maxBufferSize: 256 * MiB };
const BIG_LIMITS = { maxStorageBufferBindingSize: 4 * GiB, maxBufferSize: 4 * GiB };
const model = (over: Partial<GPTConfig> = {}): GPTConfig => ({ nLayer: 8, nHead: 8, nEmbd: 256, blockSize: 64, vocabSize: 40, ...over });
const config = (over: Partial<RunConfig> = {}): RunConfig => ({ ...DEFAULTS, ...over });

describe('GPU memory budget', () => {
  it('a small run fits under the default limits', () => {
    const m = model({ nLayer: 2, nHead: 4, nEmbd: 64, blockSize: 16, vocabSize: 12 });
    const c = config({ promptsPerStep: 4, groupSize: 4, minibatches: 2, evalEpisodes: 8, beta: 0 });
    const r = checkGpuBudget(c, m, 1, DEFAULT_LIMITS, GiB);
    // largest tensor: the parameters, 2 layers x (12 C^2 + 13 C) + wte 12 C + wpe 16 C + lnf 2 C = 101,888 floats,
    // over the rollout's att (16 rows x NH 4 x T 16 x T 16 = 16,384 floats)
    expect(r.largest.bytes).toBe((2 * (12 * 64 * 64 + 13 * 64) + 12 * 64 + 16 * 64 + 2 * 64) * 4);
    expect(r.largest.what).toBe('the parameters');
    expect(r.totalBytes).toBeGreaterThan(0);
    expect(r.totalBytes).toBeLessThan(64 * MiB);
  });

  it('256 sequences x 64 tokens of the 8x8x256 model fit; at 1024 the rollout is generated in chunks of 512, and a minibatch over the binding is refused', () => {
    const c = config({ promptsPerStep: 32, groupSize: 8, minibatches: 4, evalEpisodes: 64 });
    // rollout att: 256 rows x 8 heads x 64 x 64 floats = 32 MiB; fch: 256 x 64 x 1024 floats = 64 MiB: both bind, in one go.
    expect(checkGpuBudget(c, model(), 1, DEFAULT_LIMITS, 64 * GiB).chunkRows).toBe(Infinity);
    // at promptsPerStep 128 (1024 rows) the rollout's fch is 256 MiB: over the 128 MiB binding in one go ...
    const big = config({ promptsPerStep: 128, groupSize: 8, minibatches: 4, evalEpisodes: 64 });
    const r = gpuBudget(big, model(), 1, 64 * GiB);
    expect(r.largest.bytes).toBe(1024 * 64 * 4 * 256 * 4); // fch (rows x T x 4C floats)
    expect(r.largest.what).toMatch(/^the rollout's (fch|fchGelu|dbt4c|dbt4c2) \(1024 sequences x 64 tokens\)$/);
    // ... so it is generated 512 rows at a time: 512 x 64 x 1024 floats = 128 MiB binds (= the limit), 513 rows would not;
    // the minibatch (1024 / 4 = 256 rows) and the eval (64) bind as they are
    const chunked = checkGpuBudget(big, model(), 1, DEFAULT_LIMITS, 64 * GiB);
    expect(chunked.chunkRows).toBe(512);
    expect(chunked.largest.bytes).toBe(128 * MiB);
    // one minibatch of all 1024 rows: no chunk of the rollout helps; refused naming the setting
    expect(() => checkGpuBudget({ ...big, minibatches: 1 }, model(), 1, DEFAULT_LIMITS, 64 * GiB)).toThrow(
      /^the minibatch's (fch|fchGelu|dbt4c|dbt4c2) \(1024 sequences x 64 tokens\) needs 256 MiB in one tensor, more than this GPU binds \(maxStorageBufferBindingSize 128 MiB\): raise minibatches, or lower promptsPerStep or groupSize$/);
  });

  it('a tensor whose pooled buffer (the next power of two) is over maxBufferSize: the eval in chunks whose buffers fit', () => {
    // eval set of 600 sequences: fch = 600 x 64 x 1024 floats = 150 MiB -> a 256 MiB buffer, over 200 MiB;
    // chunks of 512 rows: fch = 128 MiB -> a 128 MiB buffer (513 rows would round up to 256 MiB)
    const c = config({ promptsPerStep: 1, groupSize: 1, minibatches: 1, evalEpisodes: 600 });
    const limits = { maxStorageBufferBindingSize: 200 * MiB, maxBufferSize: 200 * MiB };
    expect(gpuBudget(c, model(), 1, 64 * GiB).largest.what).toMatch(/^the eval's \w+ \(600 sequences x 64 tokens\)$/);
    expect(checkGpuBudget(c, model(), 1, limits, 64 * GiB).chunkRows).toBe(512);
    // a model whose parameters alone need a buffer over the limit: no chunk helps
    const wide = model({ nEmbd: 2048, nHead: 16, nLayer: 1 }); // 12 C^2 = 50M floats = 192 MiB -> a 256 MiB buffer
    expect(() => checkGpuBudget(c, wide, 1, limits, 64 * GiB)).toThrow(/^the parameters needs a 256 MiB buffer .*: lower the model size \(nLayer, nEmbd\)$/);
  });

  it('a run over the memory share generates its eval in the largest chunk that fits; one over it at any chunk is refused naming its heaviest part', () => {
    const c = config({ promptsPerStep: 8, groupSize: 8, minibatches: 4, evalEpisodes: 2048 });
    const r = gpuBudget(c, model(), 1, 2 * GiB);
    // the eval set alone: 2048 rows x 64 positions x (per layer 16 C + 4 + NH T, top ...) floats: over 2 GiB
    const evalLayerFloats = 2048 * 64 * (16 * 256 + 4 + 8 * 64);
    expect(evalLayerFloats * 8 * 4).toBeGreaterThan(2 * GiB);
    expect(r.heaviest.what).toBe("the eval's activations (2048 sequences)");
    const fit = checkGpuBudget(c, model(), 1, BIG_LIMITS, 2 * GiB);
    // the largest chunk that fits: it does, one row more does not
    expect(fit.chunkRows).toBeGreaterThanOrEqual(64);
    expect(fit.chunkRows).toBeLessThan(2048);
    expect(fit.totalBytes).toBeLessThanOrEqual(2 * GiB);
    expect(gpuBudget(c, model(), 1, 2 * GiB, fit.chunkRows + 1).totalBytes).toBeGreaterThan(2 * GiB);
    // a share smaller than the minibatch's activations and the parameters: refused at any chunk, naming the heaviest part
    expect(() => checkGpuBudget(c, model(), 1, BIG_LIMITS, 64 * MiB)).toThrow(
      /^the run needs about \d+ MiB of GPU memory \(weights, optimizer state, activations, KV caches, buffer rounding\), more than the 64 MiB this device can safely give; most of it \(\d+ MiB\) is the (minibatch's activations \(16 sequences\): raise minibatches|parameters and optimizer state: lower the model size)/);
  });

  it('the share of device memory: half of what the browser reports, else 2 GiB', () => {
    expect(memoryShare(8)).toBe(4 * GiB);
    expect(memoryShare(undefined)).toBe(2 * GiB);
    expect(memoryShare(0)).toBe(2 * GiB);
  });
});

describe('GPU memory budget: pool rounding', () => {
  it('counts each allocation at its power-of-two size class', () => {
    // eval set of 600 sequences on the 8x8x256 model: fch, fchGelu per layer and dbt4c, dbt4c2 are
    // 600 x 64 x 1024 floats = 150 MiB each, 18 of them, each held in a 256 MiB buffer
    const c = config({ promptsPerStep: 1, groupSize: 1, minibatches: 1, evalEpisodes: 600 });
    const pooled = gpuBudget(c, model(), 1, 64 * GiB).totalBytes;
    const alone = gpuBudget(config({ ...c, evalEpisodes: 1 }), model(), 1, 64 * GiB).totalBytes;
    expect(pooled - alone).toBeGreaterThanOrEqual(18 * 256 * MiB);
  });
});
