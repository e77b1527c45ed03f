// Dual vs static lambda (Agent-GSPO's open question 3): measures of how a run's
// tokens settle, computed from its per-step training figures. The static twin of
// a dual run uses the dual's mean lambda_tok over the last third of its steps:
// the penalty the dual update settled on, which (as the dual update's fixed
// point) is the static lambda expected to reach the same mean tokens.

/** One step's figures (the Trainer's metrics: sampled tokens per episode and the lambda_tok in force). */
export interface StepPoint { step: number; tokens: number; lambdaTok: number }

export interface SettleReport {
  meanLambdaLastThird: number;
  tokensLastThird: number; // mean sampled tokens per episode over the last third of the steps
  /** Mean |tokens - B| / B over the last third (0: held the budget exactly); null without a budget. */
  budgetGap: number | null;
  /** First step from which the 5-step moving mean of tokens stays within 10% of tokensLastThird; null if never. */
  stepsToSettle: number | null;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

export function lastThird<T>(xs: T[]): T[] {
  return xs.slice(xs.length - Math.max(1, Math.ceil(xs.length / 3)));
}

/** How a run's tokens settle (see SettleReport); `budget` for the budget gap. */
export function settleReport(points: StepPoint[], budget: number | null): SettleReport {
  if (points.length === 0) return { meanLambdaLastThird: NaN, tokensLastThird: NaN, budgetGap: null, stepsToSettle: null };
  const tail = lastThird(points);
  const final = mean(tail.map((p) => p.tokens));
  const W = 5;
  const moving = points.map((_, i) => mean(points.slice(Math.max(0, i - W + 1), i + 1).map((p) => p.tokens)));
  const tol = 0.1 * Math.max(final, 0.1); // 10%, with a floor so a silent final (0 tokens) is reachable
  let settle: number | null = null;
  for (let i = moving.length - 1; i >= 0; i--) {
    if (Math.abs(moving[i] - final) > tol) break;
    settle = points[i].step;
  }
  return {
    meanLambdaLastThird: mean(tail.map((p) => p.lambdaTok)),
    tokensLastThird: final,
    budgetGap: budget === null || budget <= 0 ? null : mean(tail.map((p) => Math.abs(p.tokens - budget) / budget)),
    stepsToSettle: settle,
  };
}
