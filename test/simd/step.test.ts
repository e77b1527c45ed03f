// Whole training on the wasm engine against the reference: optimizer steps of the policy
// objective, RL steps of the Trainer (rollout, reward, GSPO/GRPO, AdamW, eval), and a stacked
// population. f32 sums in another order: numbers agree within tolerance, not bit for bit.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { GPT } from '../../src/model/gpt';
import { AdamW } from '../../src/model/optimizer';
import type { GPTConfig } from '../../src/model/params';
import { PolicyObjective, type ObjectiveConfig } from '../../src/rl/objective';
import { randomPolicyBatch } from '../../src/rl/randomBatch';
import { loneRuns, memberConfigs, populationRun, type RunTrace } from '../model/populationStepCase';

const CONFIG: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 24, blockSize: 11, vocabSize: 13 };

async function train(b: Backend, cfg: ObjectiveConfig, steps: number) {
  const model = new GPT(b, CONFIG, undefined, 4), obj = new PolicyObjective(b);
  const opt = new AdamW(b, model, { lr: 3e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, gradClip: 0.5 });
  const init = Float64Array.from(await b.read(model.params));
  const losses: number[] = [];
  for (let k = 0; k < steps; k++) {
    const mb = randomPolicyBatch({ vocabSize: CONFIG.vocabSize, S: 12, T: CONFIG.blockSize - 1, groupSize: 3, maskFrom: 3, oldLogpNoise: 0.3, seed: 100 + k });
    if (cfg.beta > 0) mb.refLogp = mb.oldLogp.map((x, i) => x + 0.1 * Math.sin(i)); // a reference policy for the KL term
    model.zeroGrad();
    obj.record(model, mb, cfg);
    opt.measure();
    opt.apply();
    b.submit();
    losses.push((await obj.readStats(mb)).loss);
  }
  const params = Float64Array.from(await b.read(model.params));
  obj.destroy(); opt.destroy(); model.destroy();
  return { losses, params, init };
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };

describe('training steps, wasm engine vs reference', () => {
  const cases: ObjectiveConfig[] = [
    { algorithm: 'gspo', epsLow: 3e-4, epsHigh: 4e-4, beta: 0, advantage: 'group', temperature: 1 },
    { algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.2, beta: 0.05, advantage: 'none', temperature: 0.9 },
  ];
  for (const cfg of cases) {
    it(`${cfg.algorithm}: 3 optimizer steps agree (losses, weights to a small fraction of one step)`, async () => {
      const got = await train(new WasmBackend(), cfg, 3), want = await train(new CpuBackend(), cfg, 3);
      expect(maxDiff(got.init, want.init)).toBe(0); // the same init on both
      for (let k = 0; k < 3; k++) expect(Math.abs(got.losses[k] - want.losses[k]), `loss at step ${k}`).toBeLessThan(1e-4 * Math.max(1, Math.abs(want.losses[k])));
      expect(maxDiff(got.params, want.params) / 3e-3).toBeLessThan(2e-2);
      expect(maxDiff(want.params, want.init)).toBeGreaterThan(1e-3); // the steps moved the weights: the comparison means something
    });
  }
});

/** Same rollouts (token counts, rewards) and eval; losses and weights within tolerance. */
function expectRunsAgree(got: RunTrace, want: RunTrace): void {
  expect(got.metrics.length).toBe(want.metrics.length);
  got.metrics.forEach((steps, k) => steps.forEach((m, s) => {
    const w = want.metrics[k][s];
    for (const key of ['tokens', 'reward', 'turns', 'seq_len_mean']) expect(m[key], `member ${k} step ${s} ${key}`).toBe(w[key]);
    for (const key of ['policy_loss', 'entropy', 'grad_norm', 'ratio_mean']) {
      expect(Math.abs(m[key] - w[key]), `member ${k} step ${s} ${key}: ${m[key]} vs ${w[key]}`).toBeLessThan(1e-4 * Math.max(1, Math.abs(w[key])));
    }
  }));
  got.evals.forEach((e, k) => expect(e.map((r) => r.accuracy)).toEqual(want.evals[k].map((r) => r.accuracy)));
  got.weights.forEach((w, k) => expect(maxDiff(w, want.weights[k]), `member ${k} weights`).toBeLessThan(1e-5));
}

describe('the Trainer and a stacked population, wasm engine vs reference (relay, tiny model)', () => {
  it('3 RL steps and an eval of a lone Trainer agree', async () => {
    const configs = memberConfigs([{ seed: 4, lambdaTok: 0.05 }]);
    const got = await loneRuns(new WasmBackend(), configs, 3), want = await loneRuns(new CpuBackend(), configs, 3);
    expectRunsAgree(got, want);
    expect(want.metrics[0][0].grad_norm).toBeGreaterThan(0);
  });
  it('a population of K = 3 (members stacked in one set of tensors): 2 steps and an eval agree', async () => {
    const configs = memberConfigs([{ seed: 1, lambdaTok: 0.05 }, { seed: 2, lambdaTok: 0.1, lr: 2 ** -10 }, { seed: 3, lambdaTok: 0.3 }]);
    const got = await populationRun(new WasmBackend(), configs, 2), want = await populationRun(new CpuBackend(), configs, 2);
    expectRunsAgree(got, want);
  });
});
