// The lock-step population on the CPU backend against lone Trainers: K = 3 members that
// differ in seed, lambda_tok and lr equal their three lone runs (metrics, evals, weights)
// bit for bit; K = 1 is today's Trainer; a member's own lambda_tok moves only its
// rewards; a live change to one member leaves the others as they were.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { loneRuns, memberConfigs, populationRun } from './populationStepCase';

const MEMBERS = [{ seed: 1, lambdaTok: 0.05 }, { seed: 2, lambdaTok: 0.1, lr: 2 ** -10 }, { seed: 3, lambdaTok: 0.3 }];

describe('a stacked population on the CPU backend', () => {
  it('K = 3 members (seeds, lambda_tok and lr differ): each equals its lone Trainer bit for bit over 2 steps and an eval', async () => {
    const b = new CpuBackend();
    const configs = memberConfigs(MEMBERS);
    const got = await populationRun(b, configs, 2), want = await loneRuns(b, configs, 2);
    expect(got.metrics).toEqual(want.metrics);
    expect(got.evals).toEqual(want.evals);
    got.weights.forEach((w, k) => expect(w).toEqual(want.weights[k]));
    expect(got.weights[0]).not.toEqual(got.weights[1]); // the members are different runs
    for (const m of got.metrics) expect(m[0].grad_norm).toBeGreaterThan(0); // every member learned (a flat batch would prove little)
  });

  it('K = 1 is today\'s Trainer', async () => {
    const b = new CpuBackend(), configs = memberConfigs([{ seed: 5, lambdaTok: 0.05 }]);
    const got = await populationRun(b, configs, 2), want = await loneRuns(b, configs, 2);
    expect(got).toEqual(want);
  });

  it('a member\'s own lambda_tok changes its rewards only; a live change to member 1 leaves members 0 and 2 untouched', async () => {
    const b = new CpuBackend();
    const base = memberConfigs(MEMBERS.map((m) => ({ ...m, lambdaTok: 0.1 })));
    const same = await populationRun(b, base, 2);
    // member 1's lambda_tok from the start
    const other = await populationRun(b, memberConfigs(MEMBERS.map((m, k) => ({ ...m, lambdaTok: k === 1 ? 0.9 : 0.1 }))), 2);
    expect(other.metrics[1][0].reward).not.toBe(same.metrics[1][0].reward);
    expect(other.metrics[1][0].tokens).toBe(same.metrics[1][0].tokens); // same rollout, only the reward moved
    for (const k of [0, 2]) { expect(other.metrics[k]).toEqual(same.metrics[k]); expect(other.weights[k]).toEqual(same.weights[k]); }
    // a live change of lr and lambda_tok to member 1 at step 1
    const live = await populationRun(b, base, 2, (s, t) => { if (s === 1) t.setHyperparams({ lambdaTok: 0.9, lr: 2 ** -6 }, 1); });
    expect(live.metrics[1][1].lambda_tok).toBe(0.9);
    expect(live.weights[1]).not.toEqual(same.weights[1]);
    for (const k of [0, 2]) { expect(live.metrics[k]).toEqual(same.metrics[k]); expect(live.evals[k]).toEqual(same.evals[k]); expect(live.weights[k]).toEqual(same.weights[k]); }
    // the lone oracle of the changed member
    const lone = await loneRuns(b, [base[1]], 2, (s, _k, t) => { if (s === 1) t.setHyperparams({ lambdaTok: 0.9, lr: 2 ** -6 }); });
    expect(live.metrics[1]).toEqual(lone.metrics[0]);
    expect(live.weights[1]).toEqual(lone.weights[0]);
  });

  it('refuses members that cannot stack, naming the field; a shared field changes for all members or none', async () => {
    const { Trainer } = await import('../../src/rl/trainer');
    const { createRelay } = await import('../../src/envs/relay');
    const b = new CpuBackend();
    expect(() => new Trainer(b, createRelay({}), memberConfigs([{}, { groupSize: 4 }])))
      .toThrow(/members 0 and 1 differ in groupSize \(3 vs 4\), and it fixes the shape/);
    expect(() => new Trainer(b, createRelay({}), memberConfigs([{}, { epsHigh: 0.3 }])))
      .toThrow(/differ in epsHigh .* the stacked kernels take one value for every member/);
    const t = new Trainer(b, createRelay({}), memberConfigs([{ seed: 1 }, { seed: 2 }]));
    expect(() => t.setHyperparams({ temperature: 0.5 }, 0)).toThrow(/temperature for member 0: one value for every member/);
    expect(() => t.setHyperparams({ lambdaTok: 0.5 }, 2)).toThrow(/member 2 does not exist/);
    t.setHyperparams({ temperature: 0.5 }, null);
    expect(t.members.map((m) => m.config.temperature)).toEqual([0.5, 0.5]);
    t.destroy();
  });
});
