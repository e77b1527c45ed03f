// A rollout generated in chunks of rows on WebGPU (what the memory budget chooses when a batch would not
// fit the device at once) against the same run in one go on the same device: the same tokens, metrics
// and evals. Tiny shapes: SwiftShader is slow.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { createRelay } from '../../src/envs/relay';
import { Trainer } from '../../src/rl/trainer';
import { untimed } from '../model/populationStepCase';
import { noGpu, theGpu } from './device';

describe.skipIf(noGpu)('chunked rollouts on WebGPU', () => {
  it('chunks of 4 rows equal the rollout in one go (one step and an eval)', async () => {
    const run = async (rows: number) => {
      const t = new Trainer(theGpu(), createRelay({}), validateConfig({ promptsPerStep: 3, groupSize: 3, minibatches: 2, evalEpisodes: 7, nLayer: 1, nHead: 3, nEmbd: 12, seed: 3 }));
      t.rolloutRows = rows;
      const m = untimed(await t.step());
      await t.evaluate();
      const seqs = t.lastRollout!.rollout.sequences.map((s) => s.generated);
      t.destroy();
      return { m, evals: t.evals, seqs };
    };
    const whole = await run(Infinity), chunked = await run(4);
    expect(chunked.seqs).toEqual(whole.seqs);
    expect(chunked.evals).toEqual(whole.evals);
    for (const key of ['reward', 'tokens', 'r_task', 'silence_rate', 'seq_len_mean']) expect(chunked.m[key], key).toBe(whole.m[key]);
    expect(theGpu().takeErrors()).toEqual([]);
  }, 300_000);
});
