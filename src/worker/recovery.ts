// Resuming a run after the GPU device is lost: at every eval the worker keeps a
// CPU copy of the weights (and of the best eval's) with the run's counters; a
// step that fails on a lost device rebuilds the backend and the Trainer from it.
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import type { EvalRecord, Flag, Trainer } from '../rl/trainer';

/** Recoveries in a row (without a clean step between) before the run gives up with an error. */
export const MAX_RECOVERIES = 3;

export interface ResumePoint {
  step: number;
  config: RunConfig;
  weights: Float32Array; // the model at `step`
  best: Float32Array; // the weights of bestEval (the warm start before any eval)
  evals: EvalRecord[];
  bestEval: EvalRecord | null;
  lambdaTok: number;
  flags: Flag[];
  skippedUpdates: number;
}

/** True when a backend reports its device lost (WebGpuBackend.lost; the CPU never is). */
export function isDeviceLost(backend: Backend | null): boolean {
  return backend !== null && (backend as { lost?: unknown }).lost === true;
}

/** The run's state now; `weights` read back from the trainer (a sync point), `best` reused when the best eval is older. */
export async function captureResumePoint(t: Trainer, previous: ResumePoint | null, fallbackBest: Float32Array): Promise<ResumePoint> {
  const weights = await t.readWeights('last');
  const newBest = t.bestEval !== null && t.evals[t.evals.length - 1] === t.bestEval; // this eval just became the best
  const best = newBest ? weights : (previous?.best ?? fallbackBest);
  return {
    step: t.stepCount, config: { ...t.config }, weights, best, evals: t.evals.map((e) => ({ ...e })),
    bestEval: t.bestEval ? { ...t.bestEval } : null, lambdaTok: t.lambdaTok, flags: t.flags.map((f) => ({ ...f })), skippedUpdates: t.skippedUpdates,
  };
}

/** Puts a resume point's counters into a Trainer built from its best weights, then its current weights. */
export function applyResumePoint(t: Trainer, r: ResumePoint): void {
  t.backend.write(t.model.params, r.weights);
  t.stepCount = r.step;
  t.evals.length = 0;
  t.evals.push(...r.evals.map((e) => ({ ...e })));
  t.bestEval = r.bestEval ? t.evals.find((e) => e.step === r.bestEval!.step) ?? { ...r.bestEval } : null;
  t.lambdaTok = r.lambdaTok;
  t.flags.length = 0;
  t.flags.push(...r.flags.map((f) => ({ ...f })));
  t.skippedUpdates = r.skippedUpdates;
}
