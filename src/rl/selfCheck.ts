// One whole training step (forward, GSPO loss, backward, AdamW) on a backend and
// on the CPU reference, compared. The page runs it to show the engine is right
// on this very GPU; the tests run it in a real browser.
import type { Backend } from '../backend';
import { CpuBackend } from '../reference/cpuBackend';
import { GPT } from '../model/gpt';
import { AdamW, ADAMW_RL } from '../model/optimizer';
import type { GPTConfig } from '../model/params';
import { PolicyObjective, type ObjectiveConfig, type PolicyBatch } from './objective';
import { randomPolicyBatch } from './randomBatch';

export interface SelfCheckResult {
  backend: string;
  lossBackend: number;
  lossCpu: number;
  maxGradError: number; // max |g - g_cpu| / max |g_cpu|, over the whole gradient
  maxParamError: number; // after one AdamW step, max |p - p_cpu| / lr
  stepMs: number;
}

const CONFIG: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 32, blockSize: 16, vocabSize: 16 };

async function step(b: Backend, batch: PolicyBatch, cfg: ObjectiveConfig) {
  const model = new GPT(b, CONFIG, undefined, 11), obj = new PolicyObjective(b), opt = new AdamW(b, model, ADAMW_RL);
  const t0 = performance.now();
  model.zeroGrad();
  obj.record(model, batch, cfg);
  opt.measure();
  b.submit();
  const grads = await b.read(model.grads);
  opt.apply();
  b.submit();
  const stats = await obj.readStats(batch);
  const params = await b.read(model.params);
  const ms = performance.now() - t0;
  obj.destroy(); opt.destroy(); model.destroy();
  return { loss: stats.loss, grads, params, ms };
}

export async function selfCheck(backend: Backend): Promise<SelfCheckResult> {
  const batch = randomPolicyBatch({ vocabSize: CONFIG.vocabSize, S: 16, T: CONFIG.blockSize, groupSize: 4, maskFrom: 4, oldLogpNoise: 0.4, seed: 5 });
  const cfg: ObjectiveConfig = { algorithm: 'gspo', epsLow: 0.2, epsHigh: 0.2, beta: 0, advantage: 'group', temperature: 1 };
  const ref = await step(new CpuBackend(), batch, cfg);
  const got = await step(backend, batch, cfg);
  let gMax = 0, gErr = 0, pErr = 0;
  for (let i = 0; i < ref.grads.length; i++) {
    gMax = Math.max(gMax, Math.abs(ref.grads[i]));
    gErr = Math.max(gErr, Math.abs(got.grads[i] - ref.grads[i]));
    pErr = Math.max(pErr, Math.abs(got.params[i] - ref.params[i]));
  }
  return { backend: backend.name, lossBackend: got.loss, lossCpu: ref.loss, maxGradError: gErr / gMax, maxParamError: pErr / ADAMW_RL.lr, stepMs: got.ms };
}
