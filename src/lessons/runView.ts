// What a lesson's check reads: a plain view of the learner's run, built the same way by the page
// (from its MetricsHub, its evals and flags) and the CLI (from a run's metrics.jsonl, evals.jsonl and
// summary). Plain data only: no store, no worker, no Trainer, so the check evaluator (checks.ts) is a
// pure function both can call.

/** One eval of a member: what the chart plots and the eval table shows (env extras included: silenceKnown, meals...). */
export interface LessonEval {
  step: number; accuracy: number; tokens: number; reward: number;
  [extra: string]: number;
}

/** One training step's metrics (the fields of src/rl/runRecord.ts StepMetrics: reward, r_task, frac_zero_std...). */
export interface LessonStepMetrics {
  /** The steps taken once this step is done (1 for the first step): the same count as an eval's step. */
  step: number;
  [name: string]: number;
}

/** A flag the Trainer raised (src/rl/runRecord.ts Flag). */
export interface LessonFlag { kind: string; step: number; message: string }

/** One arm of a comparison of players (AgentPO: the frozen Actor alone, with the untrained and the trained collaborator). */
export interface LessonComparisonRow { accuracy: number; lo: number; hi: number; n: number }

/** One member of the run (a lone run is a population of one). */
export interface LessonMember {
  /** How the page names it ("lambda_tok 0.3"); used in the check's messages. */
  label: string;
  /** Its evals in step order; the first is the warm start's (step 0). */
  evals: LessonEval[];
  /** One row per step taken, in step order. */
  metrics: LessonStepMetrics[];
  flags: LessonFlag[];
  /** The step of the run's best eval (what Restore best restores), or null when it has none. */
  bestStep: number | null;
  /** The comparison of players, where the environment has one (AgentPO presets) and it was made. */
  comparison?: { alone: LessonComparisonRow; untrained: LessonComparisonRow; trained: LessonComparisonRow } | null;
}

export interface LessonRunView {
  members: LessonMember[];
  /** The chosen member's index (the page's chosen member; 0 for a lone run). */
  chosen: number;
  /** Prompts (groups) per step, P: a step's zero-std groups are round(frac_zero_std x P). */
  groupsPerStep: number;
}

/** ComparisonRow[] in the order src/rl/compare.ts makes them (alone, untrained, trained) as the view's comparison. */
export function comparisonOf(rows: readonly { accuracy: number; lo: number; hi: number; n: number }[] | null | undefined): LessonMember['comparison'] {
  if (!rows || rows.length < 3) return null;
  const row = (r: { accuracy: number; lo: number; hi: number; n: number }) => ({ accuracy: r.accuracy, lo: r.lo, hi: r.hi, n: r.n });
  return { alone: row(rows[0]), untrained: row(rows[1]), trained: row(rows[2]) };
}

/**
 * A per-step metrics row as the Trainer writes it (StepMetrics: `step` from 0, the env's means under `env`;
 * a line of metrics.jsonl, a MetricsHub row) as the view's row: `step` counted from 1, every number kept,
 * the env's prefixed `env_` (env_silent, env_known...).
 */
export function stepRowOf(row: Record<string, unknown>): LessonStepMetrics {
  const out: LessonStepMetrics = { step: (typeof row.step === 'number' ? row.step : -1) + 1 };
  for (const [k, v] of Object.entries(row)) if (k !== 'step' && typeof v === 'number') out[k] = v;
  const env = row.env;
  if (env && typeof env === 'object') for (const [k, v] of Object.entries(env)) if (typeof v === 'number') out[`env_${k}`] = v;
  return out;
}
