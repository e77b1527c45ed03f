// A sweep's record, kept in the browser between page loads (which runs, which finished, their
// final evals): types only, so the store's types, its schema and its slices can all name them
// without importing one another.
import type { RunConfig } from '../config';

export type SweepRunStatus = 'pending' | 'running' | 'done' | 'interrupted';
export interface SweepRunRecord {
  label: string; value: number; status: SweepRunStatus; runId: string | null;
  accuracy: number | null; tokens: number | null; startedAt: number | null; finishedAt: number | null;
}
export type SweepStatus = 'running' | 'stopped' | 'done' | 'interrupted';
export interface SweepRecord {
  id: string; preset: string; axis: 'lambdaTok' | 'budget'; base: Partial<RunConfig>; steps: number;
  runs: SweepRunRecord[]; status: SweepStatus; message: string | null; createdAt: number;
  /** Each member trains with its own setting's recipe (src/rl/recipe.ts memberRecipe): the setup carried one when the sweep started. */
  recipe?: boolean;
  /** The recipe fields typed by hand when the recipe applied: each member keeps them (absent: none). */
  recipeKept?: (keyof RunConfig)[];
  /** It trains until paused (its members' step count is MAX_STEPS); `steps` is then the setup's count, not a target. */
  untilPaused?: boolean;
}

/** Where the record is kept between page loads (localStorage in the page, a map in tests). */
export interface KeyValueStore { get(key: string): string | null; set(key: string, value: string): void; remove(key: string): void }
