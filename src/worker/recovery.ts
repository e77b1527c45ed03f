// Resuming a run after the GPU device is lost: at every eval the worker keeps a
// CPU copy of the weights (and of the best eval's) with the run's counters; a
// step that fails on a lost device rebuilds the backend and the Trainer from it.
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import type { Environment } from '../envs/types';
import { Trainer } from '../rl/trainer';
import { type TrainerSnapshot } from '../rl/runRecord';
import { trainableSlot, type WarmStarts } from '../rl/warmStart';

/** Recoveries in a row (without a clean step between) before the run gives up with an error. */
export const MAX_RECOVERIES = 3;

/** The Trainer's snapshot and the weights of its best eval (the warm start before any eval). */
export interface ResumePoint extends TrainerSnapshot {
  best: Float32Array;
}

/** True when a backend reports its device lost (WebGpuBackend.lost; the CPU never is). */
export function isDeviceLost(backend: Backend | null): boolean {
  return backend !== null && (backend as { lost?: unknown }).lost === true;
}

/**
 * The run's state now, AdamW's moments and the KL reference included (the run goes on as a
 * reload's Resume does, not with the optimizer restarted); `best` reused when the best eval is
 * older (one read-back per eval, not two).
 */
export async function captureResumePoint(t: Trainer, previous: ResumePoint | null, fallbackBest: Float32Array, member = 0): Promise<ResumePoint> {
  const snap = await t.snapshot({ optimizer: true, member }), m = t.members[member];
  const newBest = m.bestEval !== null && m.evals[m.evals.length - 1] === m.bestEval; // this eval just became the best
  return { ...snap, best: newBest ? snap.weights : (previous?.best ?? fallbackBest) };
}

/** Frees a Trainer and its backend after the device went; both may already be gone. */
export function discardLost(trainer: Trainer, backend: Backend | null): void {
  try { trainer.destroy(); } catch { /* its buffers went with the device */ }
  try { backend?.destroy(); } catch { /* already gone */ }
}

/**
 * A Trainer on a new backend from each member's resume point: built from its best weights (its best
 * checkpoint), then restored to its current weights and counters; the warm start when there is none.
 */
export function resumeTrainer(backend: Backend, env: Environment, warms: WarmStarts[], fallbackConfigs: RunConfig[], points: (ResumePoint | null)[]): Trainer {
  if (points.length === 1) {
    const warm = warms[0], r = points[0], slot = trainableSlot(warm.slots);
    const slots = r && slot ? { ...warm.slots, [slot]: { ...warm.slots[slot], weights: r.best } } : warm.slots;
    const trainer = new Trainer(backend, env, r?.config ?? fallbackConfigs[0], slots);
    if (r) trainer.restore(r);
    return trainer;
  }
  // a population's points are taken together at each eval: all of one step, or none yet
  const slot = trainableSlot(warms[0].slots)!;
  const trainer = new Trainer(backend, env, points.map((r, k) => r?.config ?? fallbackConfigs[k]), points.map((r, k) => r?.best ?? warms[k].slots[slot].weights));
  points.forEach((r, k) => { if (r) trainer.restore(r, k); });
  return trainer;
}
