// A run as the page keeps it: its setup, its evals and where it stands.
// Metrics and checkpoints are stored beside it, keyed by its id.
import type { RunConfig } from '../config';
import type { BaselineResult } from '../envs/types';
import type { Comparison } from '../rl/compare';
import type { EvalRecord, Flag } from '../rl/runRecord';

export type RunStatus = 'ready' | 'running' | 'paused' | 'stopped' | 'finished' | 'diverged' | 'error' | 'interrupted' | 'imported';

export interface CurriculumMark { step: number; stage: number; label: string }

export interface RunMeta {
  id: string;
  name: string;
  preset: string;
  config: RunConfig;
  createdAt: number; // ms since the epoch
  updatedAt: number;
  status: RunStatus;
  steps: number; // steps taken
  evals: EvalRecord[];
  bestEval: EvalRecord | null;
  flags: Flag[];
  warmStart: string | null;
  backend: 'cpu' | 'webgpu' | null;
  /** Which checkpoints are stored, and the step each is of. */
  checkpoints: { last?: number; best?: number };
  colorIndex: number;
  source: 'trained' | 'imported';
  baselines?: BaselineResult[];
  curriculum?: CurriculumMark[];
  comparison?: Comparison | null;
  /** Live changes made while it trained (e.g. lambdaTok moved at step 12). */
  changes?: { step: number; field: keyof RunConfig; value: string | number }[];
  /** A member of a population (a sweep): which sweep, and its value on the sweep's axis. */
  member?: { sweep: string; axis: 'lambdaTok' | 'budget'; value: number };
}

/** The step (counting from 1, as the page does) from which a recorded live change applied: it was set after `step` steps, so the next one used it. */
export const changeStep = (c: { step: number }): number => c.step + 1;
