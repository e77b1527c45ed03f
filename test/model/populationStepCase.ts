// A population step's check: K members trained in lock step by the Trainer
// (one GPT of K members) against K lone Trainers (the oracle: today's Trainer, one
// run at a time), on the relay env with a tiny model at odd sizes. Each lone run
// starts from the member's own init, so only the stacking can make them differ.
import type { Backend } from '../../src/backend';
import { validateConfig, type RunConfig } from '../../src/config';
import { createRelay } from '../../src/envs/relay';

import { Trainer } from '../../src/rl/trainer';
import { type EvalRecord, type StepMetrics } from '../../src/rl/runRecord';

// odd widths (C 12 over 3 heads), 3 prompts x 3 episodes, 2 minibatches of unequal episode counts. Learning rates are
// powers of 2: the stacked optimizer reads each member's lr from an f32 tensor (as the GPU's uniform holds a lone run's),
// so an lr that f32 cannot hold would differ from the lone CPU run's f64 lr in the last bit.
export const TINY = { promptsPerStep: 3, groupSize: 3, minibatches: 2, evalEpisodes: 5, nLayer: 1, nHead: 3, nEmbd: 12, lr: 2 ** -8 };

export function memberConfigs(overrides: Record<string, unknown>[]): RunConfig[] {
  return overrides.map((o) => validateConfig({ ...TINY, ...o }));
}

/** Timing metrics differ run to run; everything else is compared. */
export const TIMED = ['step_time_ms', 'tokens_per_s'] as const;
export function untimed(m: StepMetrics): Record<string, number> {
  const out: Record<string, number> = { ...m };
  for (const k of TIMED) delete out[k];
  return out;
}

export interface RunTrace { metrics: Record<string, number>[][]; evals: EvalRecord[][]; weights: Float32Array[] }

/** `steps` steps then an eval, every member at once; `between(step, trainer)` runs before each step (live changes). */
export async function populationRun(b: Backend, configs: RunConfig[], steps: number,
  between: (step: number, t: Trainer) => void = () => {}): Promise<RunTrace> {
  const t = new Trainer(b, createRelay({}), configs);
  const metrics: Record<string, number>[][] = configs.map(() => []);
  for (let s = 0; s < steps; s++) {
    between(s, t);
    (await t.stepAll()).forEach((m, k) => metrics[k].push(untimed(m)));
  }
  await t.evaluateAll();
  const weights = await Promise.all(configs.map((_, k) => t.readWeights('last', k)));
  const evals = t.members.map((m) => m.evals);
  t.destroy();
  return { metrics, evals, weights };
}

/** The same members one at a time, each today's Trainer alone. */
export async function loneRuns(b: Backend, configs: RunConfig[], steps: number,
  between: (step: number, k: number, t: Trainer) => void = () => {}): Promise<RunTrace> {
  const out: RunTrace = { metrics: [], evals: [], weights: [] };
  for (const [k, c] of configs.entries()) {
    const t = new Trainer(b, createRelay({}), c);
    const ms: Record<string, number>[] = [];
    for (let s = 0; s < steps; s++) {
      between(s, k, t);
      ms.push(untimed(await t.step()));
    }
    await t.evaluate();
    out.metrics.push(ms);
    out.evals.push(t.evals);
    out.weights.push(await t.readWeights('last'));
    t.destroy();
  }
  return out;
}
