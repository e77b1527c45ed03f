// The chart's live trail: between greedy evals, where a run stands by its sampled
// episodes (each step's r_task and message tokens, at the run's temperature),
// smoothed so a step's noise does not swamp the drift. Drawn lighter than the evals.
import type { MetricsSeries } from '../store/metricsSeries';
import { decimateIndices, MAX_POINTS } from '../store/decimate';

export interface TrailPoint { step: number; tokens: number; accuracy: number }

/** Exponential moving average weight of the newest step. */
export const TRAIL_ALPHA = 0.3;

/** The smoothed (EMA) accuracy and tokens after each step: step k is the k-th step (from 1). */
export function liveTrail(s: MetricsSeries | undefined, alpha = TRAIL_ALPHA): TrailPoint[] {
  if (!s || s.rows === 0) return [];
  const steps = s.column('step'), acc = s.column('r_task'), tok = s.column('tokens');
  const out: TrailPoint[] = [];
  let a = NaN, t = NaN;
  for (let i = 0; i < s.rows; i++) {
    if (!Number.isFinite(acc[i]) || !Number.isFinite(tok[i])) continue;
    a = Number.isNaN(a) ? acc[i] : a + alpha * (acc[i] - a);
    t = Number.isNaN(t) ? tok[i] : t + alpha * (tok[i] - t);
    out.push({ step: steps[i] + 1, tokens: t, accuracy: a });
  }
  if (out.length <= MAX_POINTS) return out;
  const keep = decimateIndices(out.map((p) => p.accuracy), MAX_POINTS);
  if (keep[keep.length - 1] !== out.length - 1) keep.push(out.length - 1); // the head is always drawn
  return keep.map((i) => out[i]);
}

// the members' colour scale lives with the other colours
export { valueColor } from './palette';
