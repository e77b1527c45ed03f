// Weights of the evals a "best" rule can pick (src/store/bestRule.ts): every
// rule's pick lies on the run's accuracy-vs-tokens frontier or is its highest
// mean reward, so those evals' weights are kept (a few small copies) and the
// rest dropped. Restoring "best" by any rule then finds its weights here.
import { betterReward, paretoFrontier } from '../rl/pareto';

export interface KeptEval { step: number; accuracy: number; tokens: number; reward: number }

/** At most this many copies (a long run's frontier rarely holds more than a handful). */
export const MAX_KEPT = 32;

/** The steps whose weights are worth keeping among `evals`: the frontier and the highest reward. */
export function stepsToKeep(evals: readonly KeptEval[]): Set<number> {
  const keep = new Set(paretoFrontier([...evals]).map((e) => e.step));
  let top: KeptEval | null = null;
  for (const e of evals) if (Number.isFinite(e.reward) && betterReward(e, top)) top = e; // the reward rule's own order (bestRule.ts)
  if (top) keep.add(top.step);
  return keep;
}

export class KeptWeights {
  private readonly byStep = new Map<number, Float32Array>();

  /** After the eval `rec` (the last of `evals`): keeps its weights when a rule could pick it; drops those no rule can. */
  async update(evals: readonly KeptEval[], rec: KeptEval, read: () => Promise<Float32Array>): Promise<void> {
    const keep = stepsToKeep(evals);
    for (const s of [...this.byStep.keys()]) if (!keep.has(s)) this.byStep.delete(s);
    if (keep.has(rec.step) && this.byStep.size < MAX_KEPT) this.byStep.set(rec.step, await read());
  }

  get(step: number): Float32Array | undefined { return this.byStep.get(step); }
  steps(): number[] { return [...this.byStep.keys()].sort((a, b) => a - b); }
  clear(): void { this.byStep.clear(); }
}
