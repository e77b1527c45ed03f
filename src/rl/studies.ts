// The seeds' open questions as studies: each a plan of runs (one population) and the
// analysis of their final evals. `npm run gspo -- study <name>` runs one; the figures are
// in docs/tradeoff-lab.md.
//   dual-static   does a dual lambda (token budget B) land on the static lambda frontier of
//                 the same seeds, above it or below it, at equal tokens?
//   scouts        accuracy, tokens and the silence of Scouts that do not hold the digit, per N
//   philosophers  the three levers (reward shaping, checkpoint discipline, curriculum) against
//                 the resource-hierarchy baseline at N = 7
import type { RunConfig } from '../config';
import { meanCI95 } from './interval';
import { paretoFrontier } from './pareto';
import { settleReport, type StepPoint } from './dualStatic';

export interface StudyRun { label: string; preset: string; overrides: Partial<RunConfig>; tags: Record<string, number | string> }

export interface Point { tokens: number; accuracy: number }

/**
 * The static frontier's accuracy at `tokens`: linear between its points, flat past its last (more
 * tokens cannot cost accuracy), and null below its first (no static run got that cheap).
 */
export function frontierAccuracyAt(points: Point[], tokens: number): number | null {
  const f = paretoFrontier(points.filter((p) => Number.isFinite(p.tokens) && Number.isFinite(p.accuracy)));
  if (f.length === 0 || tokens < f[0].tokens) return null;
  for (let i = 1; i < f.length; i++) {
    if (tokens <= f[i].tokens) {
      const a = f[i - 1], b = f[i];
      return b.tokens === a.tokens ? Math.max(a.accuracy, b.accuracy) : a.accuracy + ((tokens - a.tokens) / (b.tokens - a.tokens)) * (b.accuracy - a.accuracy);
    }
  }
  return f[f.length - 1].accuracy;
}

// ---------------------------------------------------------------- dual vs static

export function planDualStatic(budgets: number[], lambdas: number[], seeds: number[]): StudyRun[] {
  const runs: StudyRun[] = [];
  for (const seed of seeds) {
    for (const budget of budgets) runs.push({ label: `dual-B=${budget}-seed=${seed}`, preset: 'relay-noisy-dr', overrides: { lambdaMode: 'budget', lambdaTok: 0, budget, seed }, tags: { kind: 'dual', budget, seed } });
    for (const lambdaTok of lambdas) runs.push({ label: `static-lambda=${lambdaTok}-seed=${seed}`, preset: 'relay-noisy-dr', overrides: { lambdaTok, seed }, tags: { kind: 'static', lambdaTok, seed } });
  }
  return runs;
}

export interface DualRow {
  budget: number; seed: number; accuracy: number; tokens: number;
  /** The same seed's static frontier at the dual's tokens (null: the dual is cheaper than every static run). */
  frontierAccuracy: number | null;
  gap: number | null; // accuracy - frontierAccuracy
  sampledTokens: number; // mean sampled tokens over the last third
  greedyMinusSampled: number; // greedy eval tokens - sampled tokens: what the eval hides
  budgetGap: number | null; stepsToSettle: number | null; lambdaLastThird: number;
}

export interface Finished { tags: Record<string, number | string>; final: Point; history: StepPoint[] }

export function dualRows(runs: Finished[]): DualRow[] {
  const statics = runs.filter((r) => r.tags.kind === 'static');
  return runs.filter((r) => r.tags.kind === 'dual').map((r) => {
    const budget = Number(r.tags.budget), seed = Number(r.tags.seed);
    const frontier = frontierAccuracyAt(statics.filter((s) => s.tags.seed === seed).map((s) => s.final), r.final.tokens);
    const settle = settleReport(r.history, budget);
    return {
      budget, seed, accuracy: r.final.accuracy, tokens: r.final.tokens, frontierAccuracy: frontier,
      gap: frontier === null ? null : r.final.accuracy - frontier,
      sampledTokens: settle.tokensLastThird, greedyMinusSampled: r.final.tokens - settle.tokensLastThird,
      budgetGap: settle.budgetGap, stepsToSettle: settle.stepsToSettle, lambdaLastThird: settle.meanLambdaLastThird,
    };
  });
}

export type Estimate = { mean: number; lo: number; hi: number; n: number };
export function estimate(values: (number | null)[]): Estimate {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return { ...meanCI95(xs), n: xs.length };
}

/** Where the dual lands against the static frontier: the 95% interval of the gap above 0, below it, or across it. */
export function verdict(gap: Estimate): 'on' | 'above' | 'below' | 'unknown' {
  if (gap.n < 2 || !Number.isFinite(gap.lo)) return 'unknown';
  return gap.lo > 0 ? 'above' : gap.hi < 0 ? 'below' : 'on';
}

export interface DualSummary {
  budget: number; gap: Estimate; tokens: Estimate; accuracy: Estimate; budgetGap: Estimate; stepsToSettle: Estimate;
  greedyMinusSampled: Estimate; verdict: ReturnType<typeof verdict>;
}

export function summarizeDual(rows: DualRow[]): DualSummary[] {
  const budgets = [...new Set(rows.map((r) => r.budget))].sort((a, b) => a - b);
  return budgets.map((budget) => {
    const of = rows.filter((r) => r.budget === budget);
    const gap = estimate(of.map((r) => r.gap));
    return {
      budget, gap, tokens: estimate(of.map((r) => r.tokens)), accuracy: estimate(of.map((r) => r.accuracy)),
      budgetGap: estimate(of.map((r) => r.budgetGap)), stepsToSettle: estimate(of.map((r) => r.stepsToSettle)),
      greedyMinusSampled: estimate(of.map((r) => r.greedyMinusSampled)), verdict: verdict(gap),
    };
  });
}

// ---------------------------------------------------------------- scouts

export function planScouts(ns: number[], seeds: number[]): StudyRun[] {
  return seeds.flatMap((seed) => ns.map((scouts) => ({ label: `scouts=${scouts}-seed=${seed}`, preset: 'relay-scouts', overrides: { scouts, seed }, tags: { scouts, seed } })));
}

// ---------------------------------------------------------------- philosophers

/** Reward shaping: actions cost 0.1 instead of 0.4, so a meal (three actions) nets +0.7 on its own, not -0.2. */
export const PHIL_SHAPED: Partial<RunConfig> = { actionCost: 0.1 };

/** The levers at N = 7: the fixed reward alone, shaping, the curriculum 3 -> 5 -> 7, both; checkpoint discipline is the best eval beside the final. */
export function planPhilosophers(seeds: number[], steps: number): StudyRun[] {
  const arms: { arm: string; preset: string; overrides: Partial<RunConfig> }[] = [
    { arm: 'fixed', preset: 'philosophers-fixed', overrides: { philosophers: 7 } },
    { arm: 'shaped', preset: 'philosophers-fixed', overrides: { philosophers: 7, ...PHIL_SHAPED } },
    { arm: 'curriculum', preset: 'philosophers-curriculum', overrides: {} },
    { arm: 'curriculum+shaped', preset: 'philosophers-curriculum', overrides: { ...PHIL_SHAPED } },
  ];
  return seeds.flatMap((seed) => arms.map((a) => ({ label: `${a.arm}-seed=${seed}`, preset: a.preset, overrides: { ...a.overrides, seed, steps }, tags: { arm: a.arm, seed } })));
}
