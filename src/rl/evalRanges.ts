// Each eval metric's range, in one table: the CLI's writer (train.ts, before a line goes to evals.jsonl) and every
// reader (src/rl/recordSchema.ts evalRecord: run files, stored runs, resume states, evals.jsonl read back by
// `robustness --judge` and `compare`) check a record against it. A rate is in [0, 1], a count per episode >= 0,
// lambda_tok in its config range. An extra (an env's own figure) may be NaN (a rate over no episode of its kind:
// no known task in the draw); the core figures must be finite. A figure not in the table is read as a finite-or-NaN
// number with no range (a newer env's); add its range here with the env.
import { FIELDS } from '../config';

export interface MetricRange { min: number; max: number; core?: true }

const LAMBDA_MAX = FIELDS.lambdaTok.kind === 'enum' ? Infinity : FIELDS.lambdaTok.max;
const rate: MetricRange = { min: 0, max: 1 }, count: MetricRange = { min: 0, max: Infinity };

export const EVAL_RANGES: Readonly<Record<string, MetricRange>> = {
  // every env
  accuracy: { ...rate, core: true }, tokens: { ...count, core: true }, turns: { ...count, core: true },
  lambdaTok: { min: 0, max: LAMBDA_MAX, core: true }, reward: { min: -Infinity, max: Infinity, core: true },
  // relay (src/envs/relay.ts evalExtras)
  silenceKnown: rate, silenceUnknown: rate, silenceOthers: rate, tokensUnknown: count,
  // addition (src/envs/addition.ts)
  accuracyCarry: rate, accuracyNoCarry: rate, hintRate: rate, hintRateCarry: rate, hintRateNoCarry: rate, hintAccuracy: rate,
  draftAccuracy: rate, okWhenRight: rate, okWhenWrong: rate, silenceRate: rate,
  // philosophers (src/envs/philosophers.ts)
  mealsPerPhilosopher: count, ate: rate, starved: rate, deadlockRate: rate, actionRate: rate, illegalRate: rate, messageRate: count,
};

/**
 * Why `value` cannot be eval metric `key`, or null when it can: a core figure must be finite and in range, an
 * extra in range or NaN (the step is checked by the reader as a step counter, not here).
 */
export function evalMetricProblem(key: string, value: number): string | null {
  if (key === 'step') return null;
  const r = Object.prototype.hasOwnProperty.call(EVAL_RANGES, key) ? EVAL_RANGES[key] : null;
  if (Number.isNaN(value)) return r?.core ? `must be a finite number, got NaN` : null;
  if (r === null) return Number.isFinite(value) ? null : `must be a finite number, got ${value}`;
  if (!(value >= r.min && value <= r.max) || (r.core && !Number.isFinite(value))) return `must be in [${r.min}, ${r.max}], got ${value}`;
  return null;
}

/** The first out-of-range metric of an eval record as "key must be ...", or null. */
export function evalRecordProblem(e: Record<string, number>): string | null {
  for (const [k, v] of Object.entries(e)) {
    const p = evalMetricProblem(k, v);
    if (p) return `${k} ${p}`;
  }
  return null;
}
