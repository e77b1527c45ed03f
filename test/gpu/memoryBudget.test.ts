// A run on the WebGPU backend at the page's largest settings is refused at init, with the message
// naming the setting to lower, before the warm start or any step (not as a WebGPU error mid-run).
import { afterAll, describe, expect, it } from 'vitest';
import { loadShaders, nodeGpu } from '../../src/gpu/node';
import { WebGpuBackend } from '../../src/gpu/webgpuBackend';
import { TrainerApi } from '../../src/worker/trainerApi';
import { noGpu, theGpu } from './device';

const held: WebGpuBackend[] = [];
afterAll(() => { for (const b of held) b.destroy(); });

describe.skipIf(noGpu)('GPU memory budget at init', () => {
  it('the largest page settings are refused before anything starts', async () => {
    let warmStartLoads = 0;
    const gpu = theGpu();
    const limits = gpu.limits;
    // the shared backend must outlive this api: it is never destroyed here
    const api = new TrainerApi(async () => gpu, async () => { warmStartLoads++; return null; });
    const largest = { promptsPerStep: 256, groupSize: 64, minibatches: 1, evalEpisodes: 4096, nLayer: 8, nHead: 8, nEmbd: 256 };
    const refused = api.init('relay-silence', largest);
    await expect(refused).rejects.toThrow(/(maxStorageBufferBindingSize|maxBufferSize|GPU memory).*: (lower|raise) /);
    await expect(refused).rejects.toThrow(new RegExp(`maxStorageBufferBindingSize ${Math.floor(limits.maxStorageBufferBindingSize / 2 ** 20)} MiB|maxBufferSize|GPU memory`));
    expect(warmStartLoads).toBe(0);
    expect(gpu.takeErrors()).toEqual([]);
    expect((await api.getState()).status).toBe('idle');
  });
});

describe.skipIf(noGpu)('GPU memory budget on a device with WebGPU\'s default limits', () => {
  it('a minibatch tensor over the 128 MiB binding is refused at init, naming the limit and the setting (the rollout alone would be chunked)', async () => {
    const gpu = await nodeGpu();
    // (held to the end of the process: Dawn's Node binding crashes when a discarded adapter is collected)
    const small = await WebGpuBackend.create(gpu, loadShaders(), { prepare: 'lazy', limits: 'default' });
    held.push(small);
    expect(small.limits.maxStorageBufferBindingSize).toBe(128 * 2 ** 20);
    expect(small.limits.maxBufferSize).toBe(256 * 2 ** 20);
    const api = new TrainerApi(async () => small, async () => null);
    // 256 prompts x 16 episodes = 4096 sequences in one minibatch: the MLP's fch is 4096 x T x 4 x 256 floats = 16 MiB x T, over 128 MiB for T > 8
    await expect(api.init('relay-silence', { promptsPerStep: 256, groupSize: 16, minibatches: 1, evalEpisodes: 8, nLayer: 8, nHead: 8, nEmbd: 256 })).rejects.toThrow(
      /^the minibatch's \w+ \(4096 sequences x \d+ tokens\) needs \d+ MiB in one tensor, more than this GPU binds \(maxStorageBufferBindingSize 128 MiB\): raise minibatches, or lower promptsPerStep or groupSize$/);
    expect(small.takeErrors()).toEqual([]);
  });

  it('a rollout over the binding but a minibatch within it: the run starts, generating its rollouts in chunks that bind', async () => {
    const gpu = await nodeGpu();
    const small = await WebGpuBackend.create(gpu, loadShaders(), { prepare: 'lazy', limits: 'default' });
    held.push(small);
    const api = new TrainerApi(async () => small, async () => null);
    // 256 x 64 = 16384 sequences: the rollout's fch is 16384 x 24 x 4 x 64 floats = 384 MiB in one go; a minibatch is 1024 sequences (24 MiB of fch)
    const state = await api.init('relay-silence', { promptsPerStep: 256, groupSize: 64, minibatches: 16, evalEpisodes: 8, nLayer: 1, nHead: 4, nEmbd: 64 }, { warmStartSteps: 1 });
    // 128 MiB / (24 x 256 floats x 4 bytes) = 5461 rows of fch bind; the attention and the rest are smaller
    expect(state.rolloutRows).toBe(5461);
    expect(state.message).toMatch(/rollouts and evals generated 5461 sequences at a time \(all at once would not fit this GPU\)/);
    expect(small.takeErrors()).toEqual([]);
  }, 300_000);
});
