// Submissions cut to a watchdog's size: the cap worked out by hand from a long submission's commands and
// time, and a step whose command buffers are split every 8 commands against the same step in the usual
// submissions on the same device: the same metrics and weights, only more submissions.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { createRelay } from '../../src/envs/relay';
import { watchdogCap, WATCHDOG_MIN_COMMANDS } from '../../src/gpu/runtime';
import { Trainer } from '../../src/rl/trainer';
import { untimed } from '../model/populationStepCase';
import { noGpu, theGpu } from './device';

describe('the watchdog cap', () => {
  it('tightens only after a long submission, to the commands that fit in 400 ms at its rate', () => {
    expect(watchdogCap(Infinity, 600, 900)).toBe(Infinity); // under a second: nothing to fear
    expect(watchdogCap(Infinity, 600, 3000)).toBe(80); // 0.2 commands/ms x 400 ms
    expect(watchdogCap(80, 100, 1200)).toBe(33); // 100 / 1200 x 400 = 33.3
    expect(watchdogCap(33, 600, 1500)).toBe(33); // a faster rate never loosens it
    expect(watchdogCap(Infinity, 10, 5000)).toBe(WATCHDOG_MIN_COMMANDS); // a floor: never one dispatch per submission
    expect(watchdogCap(Infinity, 0, 5000)).toBe(Infinity);
  });
});

describe.skipIf(noGpu)('split submissions on WebGPU', () => {
  it('a step submitted every 8 commands equals the step in its usual submissions', async () => {
    const gpu = theGpu();
    expect(gpu.commandsPerSubmit).toBe(Infinity); // SwiftShader (a CPU adapter) is never capped on its own
    const run = async (cap: number) => {
      gpu.commandsPerSubmit = cap;
      try {
        const t = new Trainer(gpu, createRelay({}), validateConfig({ promptsPerStep: 2, groupSize: 3, minibatches: 2, evalEpisodes: 4, nLayer: 1, nHead: 3, nEmbd: 12, seed: 9 }));
        const c0 = gpu.counters;
        const m = untimed(await t.step());
        const c1 = gpu.counters, weights = await t.readWeights('last');
        t.destroy();
        return { m, weights, submissions: c1.submissions - c0.submissions, splits: c1.splits - c0.splits, dispatches: c1.dispatches - c0.dispatches };
      } finally {
        gpu.commandsPerSubmit = Infinity;
      }
    };
    const usual = await run(Infinity), split = await run(8);
    expect(split.m).toEqual(usual.m);
    expect(Array.from(split.weights)).toEqual(Array.from(usual.weights));
    expect(split.dispatches).toBe(usual.dispatches);
    expect(usual.splits).toBe(0);
    expect(split.splits).toBeGreaterThanOrEqual(Math.floor(usual.dispatches / 8) - usual.submissions);
    expect(split.submissions).toBeGreaterThan(usual.submissions);
    expect(gpu.takeErrors()).toEqual([]);
  }, 300_000);
});
