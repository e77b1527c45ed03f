// 95% intervals for the AgentPO comparison (docs/envs.md section 2): accuracy on
// the held-out set with a Wilson score interval, and a Student-t
// interval for a mean over a few seeds (for a non-binary measure).

/** Two-sided 95% quantile of the standard normal. */
export const Z95 = 1.959964;

export interface Interval { lo: number; hi: number }

/** One arm of the comparison: accuracy with its 95% interval, and the tokens it cost. */
export interface ComparisonRow {
  name: string; // 'actor alone' | 'untrained collaborator' | 'trained collaborator'
  n: number; // held-out problems
  accuracy: number;
  lo: number; // 95% interval (Wilson score)
  hi: number;
  tokens: number; // mean message tokens per episode
  extras: Record<string, number>;
}

/**
 * Wilson score interval for a proportion: unlike p +- z sqrt(p(1-p)/n), it
 * stays inside [0, 1] and does not collapse to a point at 0/n or n/n.
 * n = 0 gives [0, 1] (nothing is known).
 */
export function wilson95(successes: number, n: number): Interval {
  if (!(n >= 0) || !(successes >= 0 && successes <= n)) throw new Error(`wilson95: need 0 <= successes <= n, got ${successes} / ${n}`);
  if (n === 0) return { lo: 0, hi: 1 };
  const p = successes / n, z2 = Z95 * Z95;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // at 0/n (n/n) the lower (upper) bound is exactly 0 (1); rounding would leave a hair off it
  return {
    lo: successes === 0 ? 0 : Math.max(0, center - half),
    hi: successes === n ? 1 : Math.min(1, center + half),
  };
}

/** Two-sided 95% quantiles of Student's t, t(0.975, df), for df = 1..30 (standard tables); larger df: the normal's. */
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/** t(0.975, df): the table to df 30, then the normal quantile (within 2% from df 31 on). */
export function t95(df: number): number {
  if (!(df >= 1) || !Number.isInteger(df)) throw new Error(`t95: df must be an integer >= 1, got ${df}`);
  return df <= T95.length ? T95[df - 1] : Z95;
}

/**
 * Mean with a 95% interval, mean +- t(0.975, n - 1) s / sqrt(n), s the sample standard deviation (n - 1):
 * Student's t, not the normal, because studies have 3-5 seeds (with 3 the normal's interval would be
 * 2.2x too narrow). Undefined (NaN bounds) below two values.
 */
export function meanCI95(values: number[]): { mean: number } & Interval {
  const n = values.length;
  const mean = n === 0 ? NaN : values.reduce((a, v) => a + v, 0) / n;
  if (n < 2) return { mean, lo: NaN, hi: NaN };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  const half = (t95(n - 1) * Math.sqrt(variance)) / Math.sqrt(n);
  return { mean, lo: mean - half, hi: mean + half };
}

/** True when the two intervals share at least one point (touching counts as overlapping). */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.lo <= b.hi && b.lo <= a.hi;
}

/**
 * One arm of the comparison from its eval episodes: accuracy = mean rTask with
 * a Wilson interval when every rTask is 0 or 1 (else the mean's t
 * interval), and the mean message tokens per episode.
 */
export function comparisonRow(name: string, scores: { rTask: number }[], tokens: number[],
  extras: Record<string, number> = {}): ComparisonRow {
  const n = scores.length;
  if (tokens.length !== n) throw new Error(`comparisonRow: ${n} scores but ${tokens.length} token counts`);
  const rTask = scores.map((s) => s.rTask);
  const binary = rTask.every((r) => r === 0 || r === 1);
  const successes = rTask.reduce((a, r) => a + r, 0);
  const { lo, hi } = binary ? wilson95(successes, n) : meanCI95(rTask);
  return {
    name,
    n,
    accuracy: n === 0 ? NaN : successes / n,
    lo,
    hi,
    tokens: n === 0 ? NaN : tokens.reduce((a, t) => a + t, 0) / n,
    extras,
  };
}
