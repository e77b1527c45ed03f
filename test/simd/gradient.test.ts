// The whole model's gradient (GPT + RL objective) on the wasm engine (f32) against the float64
// reference, whose own gradient test/model/gradcheck.test.ts checks by finite differences.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { GPT } from '../../src/model/gpt';
import { initParams, type GPTConfig } from '../../src/model/params';
import { PolicyObjective, type ObjectiveConfig } from '../../src/rl/objective';
import { randomPolicyBatch } from '../../src/rl/randomBatch';

async function gradient(b: Backend, config: GPTConfig, cfg: ObjectiveConfig): Promise<Float64Array> {
  const w = initParams(config, 3);
  for (let i = 0; i < w.length; i++) w[i] *= 4; // larger weights so every path carries gradient
  const model = new GPT(b, config, w), obj = new PolicyObjective(b);
  const batch = randomPolicyBatch({ vocabSize: config.vocabSize, S: 8, T: config.blockSize, groupSize: 4, maskFrom: 2, oldLogpNoise: 0.05, seed: 5 });
  if (cfg.beta > 0) batch.refLogp = batch.oldLogp.map((x, i) => x + 0.1 * Math.cos(i));
  model.zeroGrad();
  obj.record(model, batch, cfg);
  await obj.readStats(batch);
  const g = Float64Array.from(await b.read(model.grads));
  obj.destroy(); model.destroy();
  return g;
}

describe('whole-model gradient, wasm engine (f32) vs reference (f64)', () => {
  const configs: GPTConfig[] = [
    { nLayer: 2, nHead: 2, nEmbd: 8, blockSize: 6, vocabSize: 7 },
    { nLayer: 2, nHead: 4, nEmbd: 64, blockSize: 12, vocabSize: 32 },
  ];
  const cases: ObjectiveConfig[] = [
    { algorithm: 'gspo', epsLow: 0.2, epsHigh: 0.2, beta: 0, advantage: 'group', temperature: 1 },
    { algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.28, beta: 0.1, advantage: 'batch', temperature: 0.8 },
  ];
  for (const config of configs) for (const cfg of cases) {
    it(`C ${config.nEmbd}, ${cfg.algorithm} beta ${cfg.beta}: every parameter's gradient within 1e-4 of the largest`, async () => {
      const got = await gradient(new WasmBackend(), config, cfg), want = await gradient(new CpuBackend('f64'), config, cfg);
      let top = 0, worst = 0, at = -1;
      for (const x of want) top = Math.max(top, Math.abs(x));
      expect(top).toBeGreaterThan(0);
      for (let i = 0; i < want.length; i++) {
        const err = Math.abs(got[i] - want[i]);
        if (err > worst) { worst = err; at = i; }
      }
      expect(worst / top, `worst at ${at}: wasm ${got[at]} vs f64 ${want[at]} (largest ${top})`).toBeLessThan(1e-4); // measured: 3e-7 (C 8) to 1.3e-5 (C 64, GSPO)
      expect(want.filter((x) => x !== 0).length).toBeGreaterThan(want.length / 2); // most parameters carry gradient
    });
  }
});
