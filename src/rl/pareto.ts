// Eval points and the accuracy-vs-tokens Pareto frontier (docs/rl.md section 8).
export interface EvalPoint { tokens: number; accuracy: number; run: string; step: number; lambdaTok: number }

/** Points not dominated: no other point has fewer-or-equal tokens and higher-or-equal accuracy, one strictly. Sorted by tokens. */
export function paretoFrontier<P extends { tokens: number; accuracy: number }>(points: P[]): P[] {
  const front = points.filter((p) => !points.some((q) => q.tokens <= p.tokens && q.accuracy >= p.accuracy && (q.tokens < p.tokens || q.accuracy > p.accuracy)));
  return front.sort((a, b) => a.tokens - b.tokens || b.accuracy - a.accuracy);
}

/** The best-checkpoint order: higher accuracy, then fewer tokens. */
export function betterEval(a: { accuracy: number; tokens: number }, b: { accuracy: number; tokens: number } | null): boolean {
  return b === null || a.accuracy > b.accuracy || (a.accuracy === b.accuracy && a.tokens < b.tokens);
}

/**
 * Whether eval `a` has a higher mean reward than `b` (what training maximizes); ties go to fewer tokens, then to the
 * later step, so a trained eval as good as the untrained warm start (step 0) is preferred to it.
 */
export function betterReward(a: { reward: number; tokens: number; step?: number }, b: { reward: number; tokens: number; step?: number } | null): boolean {
  if (b === null) return true;
  if (a.reward !== b.reward) return a.reward > b.reward;
  if (a.tokens !== b.tokens) return a.tokens < b.tokens;
  return (a.step ?? 0) > (b.step ?? 0);
}
