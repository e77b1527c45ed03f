// A population's live changes go through the stacking rules (a change they refuse throws
// an InputError naming member and field, and changes nothing; one they allow applies as
// in the members' lone runs), and every K reads back once per minibatch.
import { describe, expect, it } from 'vitest';
import type { FloatArray, Tensor } from '../../src/backend';
import { InputError } from '../../src/contract/errors';
import { createRelay } from '../../src/envs/relay';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Trainer } from '../../src/rl/trainer';
import { loneRuns, memberConfigs, populationRun } from '../model/populationStepCase';

const TWO = [{ seed: 1, lambdaTok: 0.05 }, { seed: 2, lambdaTok: 0.3 }];

/** The reference backend, counting its readbacks. */
class CountingCpu extends CpuBackend {
  reads = 0;
  override async read(t: Tensor, offset?: number, size?: number): Promise<FloatArray | Int32Array> {
    this.reads++;
    return super.read(t, offset, size);
  }
}

describe('a population\'s live changes', () => {
  it('refuses, before anything changes, what cannot stack: dynamic sampling and batch advantages for every member, a shape field for one', () => {
    const t = new Trainer(new CpuBackend(), createRelay({}), memberConfigs(TWO));
    const before = t.members.map((m) => ({ ...m.config }));
    const refused = (partial: Record<string, unknown>, member: number | null, pattern: RegExp) => {
      let err: unknown;
      try { t.setHyperparams(partial, member); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(pattern);
      expect(t.members.map((m) => m.config)).toEqual(before); // nothing applied
    };
    refused({ dynamicSampling: 'on' }, null, /dynamicSampling for every member: refused, dynamic sampling/);
    refused({ advantage: 'batch' }, null, /advantage for every member: refused, advantage=batch/);
    refused({ groupSize: 4 }, 1, /groupSize for member 1: one value for every member/);
    refused({ lambdaTok: 0.2, temperature: 0.5 }, 0, /temperature for member 0/); // one refused field refuses the whole change
    t.destroy();
  });

  it('applies a shared shape change for every member as each member\'s lone run applies it (groupSize 3 -> 4, minibatches 2 -> 3 at step 1)', async () => {
    const b = new CpuBackend(), configs = memberConfigs(TWO), change = { groupSize: 4, minibatches: 3 };
    const got = await populationRun(b, configs, 2, (s, t) => { if (s === 1) t.setHyperparams(change, null); });
    const want = await loneRuns(b, configs, 2, (s, _k, t) => { if (s === 1) t.setHyperparams(change); });
    expect(got.metrics).toEqual(want.metrics);
    expect(got.evals).toEqual(want.evals);
    got.weights.forEach((w, k) => expect(w).toEqual(want.weights[k]));
  });
});

describe('readbacks of the update', () => {
  for (const K of [1, 3]) {
    it(`K = ${K}: one readback per minibatch (4 minibatches)`, async () => {
      const b = new CountingCpu();
      const t = new Trainer(b, createRelay({}), memberConfigs(Array.from({ length: K }, (_, k) => ({ seed: k + 1, minibatches: 4, groupSize: 4 }))));
      let atUpdate = -1;
      const ms = await t.stepAll({ progress: (done) => { if (done === 0) atUpdate = b.reads; } });
      expect(atUpdate).toBeGreaterThanOrEqual(0);
      expect(b.reads - atUpdate).toBe(4);
      expect(ms).toHaveLength(K);
      for (const m of ms) expect(Number.isFinite(m.grad_norm) && m.grad_norm > 0).toBe(true); // the stats came back whole
      t.destroy();
    });
  }
});
