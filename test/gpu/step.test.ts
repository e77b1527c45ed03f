// Whole training steps (forward, RL loss, backward, grad clip, AdamW) on WebGPU
// against the CPU reference, and the structure that makes them fast: one
// submission per step, nothing allocated once warm.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { GPT } from '../../src/model/gpt';
import { AdamW } from '../../src/model/optimizer';
import type { GPTConfig } from '../../src/model/params';
import { mulberry32 } from '../../src/model/random';
import { PolicyObjective, type ObjectiveConfig, type PolicyBatch } from '../../src/rl/objective';
import { noGpu, theGpu } from './device';
import { forceRowMode } from '../../src/gpu/kernels/rows';
import { forceMatmulTarget } from '../../src/gpu/kernels/matmul';
import { TARGET_GROUPS } from '../../src/gpu/kernels/matmulPlan';

const CONFIG: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 24, blockSize: 11, vocabSize: 13 };

function batch(seed: number, S: number, T: number, withRef: boolean): PolicyBatch {
  const r = mulberry32(seed), ST = S * T, V = CONFIG.vocabSize;
  const tokens = Int32Array.from({ length: ST }, () => Math.floor(r() * V));
  const len = Array.from({ length: S }, (_, s) => (s === 1 ? 2 : 3 + Math.floor(r() * (T - 3)))); // row 1: one generated token
  const targets = Int32Array.from({ length: ST }, (_, i) => (i % T < len[Math.floor(i / T)] ? tokens[(i + 1) % ST] : -1));
  const mask = Float32Array.from({ length: ST }, (_, i) => (i % T >= 1 && targets[i] >= 0 ? 1 : 0));
  const G = 3;
  return {
    S, T, tokens, targets, mask,
    oldLogp: Float32Array.from({ length: ST }, () => -Math.log(V) + (r() - 0.5) * 0.5),
    refLogp: withRef ? Float32Array.from({ length: ST }, () => -Math.log(V) + (r() - 0.5)) : null,
    seqEpisode: Int32Array.from({ length: S }, (_, i) => i),
    rewards: Float32Array.from({ length: S }, (_, i) => (i < G ? 0.5 : r() < 0.5 ? 1 : 0)), // group 0: all equal
    groupStart: Int32Array.from({ length: S / G + 1 }, (_, g) => g * G),
  };
}

async function train(b: Backend, cfg: ObjectiveConfig, steps: number) {
  const model = new GPT(b, CONFIG, undefined, 4), obj = new PolicyObjective(b);
  const opt = new AdamW(b, model, { lr: 3e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, gradClip: 0.5 });
  const losses: number[] = [];
  let counters: Record<string, number> | undefined;
  for (let k = 0; k < steps; k++) {
    const mb = batch(100 + k, 12, CONFIG.blockSize - 1, cfg.beta > 0);
    const before = 'counters' in b ? { ...(b as unknown as { counters: Record<string, number> }).counters } : undefined;
    model.zeroGrad();
    obj.record(model, mb, cfg);
    opt.measure();
    opt.apply();
    b.submit();
    if (before) {
      const after = (b as unknown as { counters: Record<string, number> }).counters;
      counters = Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]]));
    }
    losses.push((await obj.readStats(mb)).loss);
  }
  const params = Float64Array.from(await b.read(model.params));
  obj.destroy(); opt.destroy(); model.destroy();
  return { losses, params, counters };
}

/** Losses step by step, and the weights after the steps to a small fraction of one AdamW step at lr 3e-3. */
function expectAgree(got: { losses: number[]; params: Float64Array }, want: { losses: number[]; params: Float64Array }, steps: number): void {
  for (let k = 0; k < steps; k++) expect(Math.abs(got.losses[k] - want.losses[k]), `loss at step ${k}`).toBeLessThan(1e-4 * Math.max(1, Math.abs(want.losses[k])));
  let worst = 0;
  for (let i = 0; i < want.params.length; i++) worst = Math.max(worst, Math.abs(got.params[i] - want.params[i]));
  expect(worst / 3e-3).toBeLessThan(2e-2);
}

describe.skipIf(noGpu)('whole training step, WebGPU vs CPU', () => {
  const cases: ObjectiveConfig[] = [
    { algorithm: 'gspo', epsLow: 3e-4, epsHigh: 4e-4, beta: 0, advantage: 'group', temperature: 1 },
    { algorithm: 'gspo', epsLow: 0.2, epsHigh: 0.28, beta: 0.05, advantage: 'batch', temperature: 0.9 },
    { algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.2, beta: 0.05, advantage: 'none', temperature: 1 },
  ];
  for (const cfg of cases) {
    it(`${cfg.algorithm} eps ${cfg.epsLow}/${cfg.epsHigh} beta ${cfg.beta} ${cfg.advantage}: 3 steps agree`, async () => {
      const want = await train(new CpuBackend(), cfg, 3);
      const got = await train(theGpu(), cfg, 3);
      expectAgree(got, want, 3);
      // the steps changed the weights at all (so the comparison means something)
      const init = new GPT(new CpuBackend(), CONFIG, undefined, 4);
      const p0 = await init.backend.read(init.params);
      let moved = 0;
      for (let i = 0; i < p0.length; i++) moved = Math.max(moved, Math.abs(want.params[i] - p0[i]));
      expect(moved).toBeGreaterThan(1e-3);
      // a warm step: one submission, no readback, nothing allocated
      expect(got.counters).toMatchObject({ submissions: 1, readbacks: 0, buffersCreated: 0, bindGroupsCreated: 0 });
    });
  }

  it('in the layouts a GPU gets (workgroup per row, tiled attention, matmul tiles for 256 workgroups): 2 steps agree', async () => {
    const cfg = cases[1];
    forceRowMode('lanes');
    forceMatmulTarget(TARGET_GROUPS);
    try {
      expectAgree(await train(theGpu(), cfg, 2), await train(new CpuBackend(), cfg, 2), 2);
    } finally {
      forceRowMode(null);
      forceMatmulTarget(null);
    }
  });
});
