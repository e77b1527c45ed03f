// Curriculum: the environment grows in stages (philosophers N = 3 ->
// 5 -> 7). The run advances to the next stage once the eval task measure has
// reached `threshold` in each of the last `patience` evaluations made at the
// current stage; one eval below it starts the count again. The last stage stays.
// Pure: the caller keeps the evals made since the stage began (or the streak).

export interface CurriculumOptions {
  stages: readonly number[]; // e.g. [3, 5, 7]
  threshold: number; // the eval task measure must be >= this ...
  patience: number; // ... in this many consecutive evals at the current stage
}

export const CURRICULUM_DEFAULTS: CurriculumOptions = { stages: [3, 5, 7], threshold: 0.8, patience: 2 };

function check(o: CurriculumOptions, current: number): number {
  if (!Number.isInteger(o.patience) || o.patience < 1) throw new Error(`curriculum: patience must be an integer >= 1, got ${o.patience}`);
  const at = o.stages.indexOf(current);
  if (at < 0) throw new Error(`curriculum: ${current} is not one of the stages ${o.stages.join(', ')}`);
  return at;
}

/** Evals at the end of `evals` in a row that reached the threshold. */
export function passingStreak(evals: readonly number[], threshold: number): number {
  let n = 0;
  for (let i = evals.length - 1; i >= 0 && evals[i] >= threshold; i--) n++;
  return n;
}

/**
 * The stage to move to after these evals, or null to stay.
 * `evalsAtStage`: the eval task measures made at `current`, oldest first.
 */
export function nextStage(current: number, evalsAtStage: readonly number[], options: Partial<CurriculumOptions> = {}): number | null {
  const o: CurriculumOptions = { ...CURRICULUM_DEFAULTS, ...options };
  const at = check(o, current);
  if (at === o.stages.length - 1) return null;
  return passingStreak(evalsAtStage, o.threshold) >= o.patience ? o.stages[at + 1] : null;
}

export interface CurriculumState {
  stage: number; // the current stage value (e.g. N)
  streak: number; // consecutive passing evals at this stage
}

/** The same rule, one eval at a time: returns the new state and whether the stage changed. */
export function curriculumUpdate(state: CurriculumState, taskMeasure: number, options: Partial<CurriculumOptions> = {}):
  CurriculumState & { advanced: boolean } {
  const o: CurriculumOptions = { ...CURRICULUM_DEFAULTS, ...options };
  const at = check(o, state.stage);
  const streak = taskMeasure >= o.threshold ? state.streak + 1 : 0;
  if (streak >= o.patience && at < o.stages.length - 1) return { stage: o.stages[at + 1], streak: 0, advanced: true };
  return { stage: state.stage, streak, advanced: false };
}
