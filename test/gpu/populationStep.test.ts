// A lock-step population on WebGPU (one GPT of K members, one set of dispatches) against
// the oracle of lone Trainers: K = 3 members differing in seed, lambda_tok and lr, one step
// and an eval, each member against its lone run on the WebGPU backend and on the CPU
// reference; K = 1 against today's Trainer; a whole population step records as many
// dispatches and submissions at K = 16 as at K = 2. Tiny shapes: SwiftShader is slow.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { createRelay } from '../../src/envs/relay';
import { Trainer } from '../../src/rl/trainer';
import { loneRuns, memberConfigs, populationRun, type RunTrace } from '../model/populationStepCase';
import { noGpu, theGpu } from './device';
import { expectClose } from './parity';

// What a rollout decides (tokens, task success, rewards) must be equal: the members sample the same tokens as
// their lone runs (a flip would need two logits within f32 rounding of a cumulative sum's edge).
const EXACT = ['step', 'reward', 'reward_std', 'r_task', 'tokens', 'turns', 'repetition', 'lambda_tok', 'frac_zero_std', 'seq_len_mean',
  'silence_rate', 'skipped_updates', 'step_flops'];
// Losses, ratios, entropy and norms are f32 sums over a few hundred terms in another order (the member ops' tiles).
const TOL = { rtol: 1e-3, atol: 1e-4 };
// Weights after one AdamW step: SwiftShader's differ from the CPU's by about 1e-6 at most (and equal the lone
// WebGPU run's); 1e-4 leaves room for other adapters while a member reading another's weights (an lr-sized
// move, 4e-3) shows. A gradient near 0 whose sign rounds differently could move a weight up to 2 lr: such a
// failure is rounding, not a bug, only when the metrics above agree.
const WEIGHT_TOL = { rtol: 0, atol: 1e-4 };

function compare(got: RunTrace, want: RunTrace, what: string): void {
  got.metrics.forEach((steps, k) => steps.forEach((m, s) => {
    const w = want.metrics[k][s];
    for (const key of Object.keys(w)) {
      if (EXACT.includes(key)) expect(m[key], `${what}: member ${k} step ${s} ${key}`).toBe(w[key]);
      // clip_frac counts ratios past 1 +- eps: a ratio within rounding of the edge may count on one side only
      else if (key === 'clip_frac') expect(Math.abs(m[key] - w[key]), `${what}: member ${k} clip_frac`).toBeLessThanOrEqual(0.25);
      else expectClose(`${what}: member ${k} step ${s} ${key}`, [m[key]], [w[key]], TOL);
    }
  }));
  expect(got.evals, `${what}: evals (greedy)`).toEqual(want.evals);
  got.weights.forEach((x, k) => expectClose(`${what}: member ${k} weights`, x, want.weights[k], WEIGHT_TOL));
}

describe.skipIf(noGpu)('a stacked population on WebGPU', () => {
  const MEMBERS = [{ seed: 1, lambdaTok: 0.05 }, { seed: 2, lambdaTok: 0.1, lr: 2 ** -10 }, { seed: 3, lambdaTok: 0.3 }];

  it('K = 3 members (seeds, lambda_tok, lr differ): one step and an eval equal each lone run (WebGPU and CPU) to tolerance', async () => {
    const configs = memberConfigs(MEMBERS);
    const got = await populationRun(theGpu(), configs, 1);
    expect(theGpu().takeErrors()).toEqual([]);
    compare(got, await loneRuns(theGpu(), configs, 1), 'vs lone WebGPU');
    compare(got, await loneRuns(new CpuBackend(), configs, 1), 'vs lone CPU');
    for (const m of got.metrics) expect(m[0].grad_norm).toBeGreaterThan(0); // every member learned
  }, 600_000);

  it('K = 1 equals today\'s Trainer on WebGPU to tolerance', async () => {
    const configs = memberConfigs([{ seed: 4, lambdaTok: 0.05 }]);
    compare(await populationRun(theGpu(), configs, 1), await loneRuns(theGpu(), configs, 1), 'K = 1');
  }, 600_000);

  it('a whole population step (rollout, update, eval) records as many dispatches, submissions and readbacks at K = 16 as at K = 2 and K = 1', async () => {
    const counts = async (K: number) => {
      const b = theGpu(), t = new Trainer(b, createRelay({}), memberConfigs(Array.from({ length: K }, (_, k) => ({ seed: 10 + k }))));
      await t.stepAll(); // warm: pipelines and buffers
      const before = { ...b.counters };
      await t.stepAll();
      await t.evaluateAll();
      const after = b.counters;
      t.destroy();
      return { dispatches: after.dispatches - before.dispatches, submissions: after.submissions - before.submissions, readbacks: after.readbacks - before.readbacks };
    };
    const one = await counts(1), two = await counts(2), sixteen = await counts(16);
    expect(one.dispatches).toBeGreaterThan(0);
    expect(sixteen).toEqual(two); // K is a grid dimension: nothing grows with it
    // a lone run (K = 1) reduces its minibatch stats on the device, a population on the host from its one packed
    // readout; both inside policy_loss's one dispatch a minibatch: the same dispatches, submissions and readbacks
    expect(one).toEqual(two);
  }, 600_000);
});
