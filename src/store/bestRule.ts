// What "best" means for a run, by what it optimizes: the highest mean reward
// (the default: what training maximizes, so a trained eval as good as the
// untrained warm start wins over it), the highest accuracy (ties: fewer tokens), or the frontier point nearest
// a token target from below (the highest accuracy within the target; when no
// eval is within it, the one with the fewest tokens). Each rule is a total
// order on evals, so the best can be tracked one eval at a time.
import { betterEval, betterReward } from '../rl/pareto';

export type BestRule = 'accuracy' | 'reward' | 'tokens';

export interface Rated { accuracy: number; tokens: number; reward: number; step?: number }

export const BEST_RULE_LABELS: Record<BestRule, string> = {
  reward: 'highest mean reward',
  accuracy: 'highest accuracy',
  tokens: 'frontier point nearest the token target',
};

/** Whether `a` is better than `b` under `rule` (`target`: the token target of the 'tokens' rule). */
export function betterBy(rule: BestRule, target: number, a: Rated, b: Rated | null): boolean {
  if (b === null) return true;
  if (rule === 'accuracy') return betterEval(a, b);
  if (rule === 'reward') return betterReward(a, b);
  const ina = a.tokens <= target, inb = b.tokens <= target;
  if (ina !== inb) return ina;
  if (ina) return betterEval(a, b);
  return a.tokens < b.tokens || (a.tokens === b.tokens && a.accuracy > b.accuracy);
}

/** The best of `evals` under `rule`, or null when there are none. */
export function bestBy<E extends Rated>(rule: BestRule, target: number, evals: readonly E[]): E | null {
  let best: E | null = null;
  for (const e of evals) if (Number.isFinite(e.accuracy) && Number.isFinite(e.tokens) && betterBy(rule, target, e, best)) best = e;
  return best;
}

/** The rule in one sentence, for beside Restore best. */
export function ruleSentence(rule: BestRule, target: number): string {
  switch (rule) {
    case 'accuracy': return 'Best = the eval with the highest accuracy (ties: fewer tokens).';
    case 'reward': return 'Best = the eval with the highest mean reward, what training maximizes (ties: fewer tokens, then the later step).';
    case 'tokens': return `Best = the highest accuracy within ${target} tokens per episode: the frontier point nearest ${target} tokens from below (none within: the fewest tokens).`;
  }
}
