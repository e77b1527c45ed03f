// A rollout generated in chunks of rows (the memory budget's answer to a batch too large for the device)
// against the oracle of the same rollout in one go, on the CPU reference: the same tokens and log-probs bit
// for bit, so the same step and eval. Chunk sizes that cut groups, episodes' turns and, in a population,
// the members' rows.
import { describe, expect, it } from 'vitest';
import { validateConfig, type RunConfig } from '../../src/config';
import { createRelay } from '../../src/envs/relay';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Trainer } from '../../src/rl/trainer';
import { memberConfigs, untimed } from '../model/populationStepCase';

const TINY: Partial<RunConfig> = { promptsPerStep: 3, groupSize: 3, minibatches: 2, evalEpisodes: 7, nLayer: 1, nHead: 3, nEmbd: 12, lr: 2 ** -8, lambdaTok: 0.1 };

async function loneStep(rows: number) {
  const t = new Trainer(new CpuBackend(), createRelay({}), validateConfig({ ...TINY, seed: 5 }));
  t.rolloutRows = rows;
  const metrics = [untimed(await t.step()), untimed(await t.step())];
  await t.evaluate();
  const seqs = t.lastRollout!.rollout.sequences.map((s) => [s.generated, s.logp]);
  return { metrics, evals: t.evals, seqs, weights: await t.readWeights('last') };
}

describe('chunked rollouts on the CPU reference', () => {
  it('a lone run: chunks of 1, 4 and 5 rows equal the rollout in one go (tokens, log-probs, metrics, evals, weights)', async () => {
    const whole = await loneStep(Infinity);
    expect(whole.seqs.length).toBeGreaterThan(9); // 9 episodes, several turns: the chunks cut them
    for (const rows of [1, 4, 5]) {
      const chunked = await loneStep(rows);
      expect(chunked.seqs, `chunks of ${rows}`).toEqual(whole.seqs);
      expect(chunked.metrics, `chunks of ${rows}`).toEqual(whole.metrics);
      expect(chunked.evals, `chunks of ${rows}`).toEqual(whole.evals);
      expect(chunked.weights).toEqual(whole.weights);
    }
  });

  it('a stacked population: chunks that split a member\'s rows equal the rollout in one go', async () => {
    const run = async (rows: number) => {
      const t = new Trainer(new CpuBackend(), createRelay({}), memberConfigs([{ seed: 1, lambdaTok: 0.05 }, { seed: 2, lambdaTok: 0.3 }]));
      t.rolloutRows = rows;
      const metrics = (await t.stepAll()).map(untimed);
      const evals = await t.evaluateAll();
      const weights = await Promise.all([0, 1].map((k) => t.readWeights('last', k)));
      t.destroy();
      return { metrics, evals, weights };
    };
    const whole = await run(Infinity);
    for (const rows of [4, 7]) expect(await run(rows), `chunks of ${rows}`).toEqual(whole); // 9 episodes a member: 7 cuts member 0's
  });
});
