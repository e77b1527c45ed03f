// A run on the WebGPU backend at the page's largest settings is refused at init, with the message
// naming the setting to lower, before the warm start or any step (not as a WebGPU error mid-run).
import { describe, expect, it } from 'vitest';
import { TrainerApi } from '../../src/worker/trainerApi';
import { noGpu, theGpu } from './device';

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
