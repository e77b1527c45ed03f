// Training faults, shared by the worker (which pauses the page) and the CLI
// (which stops the run): skipped updates in a row, the tensor a non-finite
// gradient first shows up in, and an eval whose accuracy collapsed to zero.
import { paramSpecs, type GPTConfig } from '../model/params';
import type { RunConfig } from '../config';
import { rewardHackable } from '../envs/philosophers';
import type { EvalRecord, Flag } from './runRecord';

/** Consecutive skipped updates (non-finite loss or gradient) that pause a page run and stop a CLI run. */
export const DIVERGENCE_LIMIT = 3;

/**
 * Counts consecutive skipped optimizer updates from per-step counts. A step
 * whose updates were all skipped extends the streak; a step with some skipped
 * restarts it at that count (the skips are taken to be its last updates); a
 * clean step ends it.
 */
export class DivergenceWatch {
  streak = 0;
  constructor(readonly limit = DIVERGENCE_LIMIT) {}
  record(skipped: number, updates: number): boolean {
    if (skipped <= 0) this.streak = 0;
    else if (skipped >= updates) this.streak += skipped;
    else this.streak = skipped;
    return this.tripped;
  }
  get tripped(): boolean { return this.streak >= this.limit; }
  reset(): void { this.streak = 0; }
}

/**
 * The CLI's stop rule: the DivergenceWatch streak, remembering the flag that began it, so the
 * message names the first bad tensor. `record` returns the reason to stop, or null.
 */
export class SkipStreak {
  private readonly watch: DivergenceWatch;
  private first: Flag | null = null;
  constructor(limit = DIVERGENCE_LIMIT) { this.watch = new DivergenceWatch(limit); }
  /** One step: the flags it added, its skipped updates and how many updates it had. */
  record(newFlags: readonly Flag[], skipped: number, updates: number): string | null {
    const restarts = skipped > 0 && (this.watch.streak === 0 || skipped < updates);
    this.watch.record(skipped, updates);
    if (skipped <= 0) this.first = null;
    else if (restarts) this.first = newFlags.find((f) => f.kind === 'nonfinite-update') ?? null;
    if (!this.watch.tripped) return null;
    return `${this.watch.streak} consecutive updates were skipped (non-finite loss or gradient); the first: ${this.first?.message ?? 'unknown'}`;
  }
}

/** The name of the first parameter (paramSpecs order) whose gradient holds a NaN or infinity, or null. */
export function firstNonFiniteTensor(config: GPTConfig, grads: ArrayLike<number>): string | null {
  for (const s of paramSpecs(config).specs) {
    for (let i = s.offset; i < s.offset + s.size; i++) if (!Number.isFinite(grads[i])) return s.name;
  }
  return null;
}

/** An eval accuracy at or above this that falls to 0 by the next eval is a collapse, not noise. */
export const COLLAPSE_FROM = 0.05;

/**
 * Why accuracy may fall to 0, and what to try, for this setup. On the philosophers' table with weights under
 * which thinking every round is the reward's maximum, a fall in the share who ate is the reward hack the preset
 * teaches, not an optimizer failure: lowering lr only slows it. Elsewhere the updates are the suspect.
 */
export function collapseCause(config: Pick<RunConfig, 'env' | 'mealReward' | 'actionCost' | 'starvePenalty'> | undefined, bestStep: number): string {
  if (config?.env === 'philosophers' && rewardHackable(config)) {
    return `the reward hack: with these weights a meal costs more than it earns (${config.mealReward} - 3 x ${config.actionCost} + ${config.starvePenalty} <= 0), so thinking every round maximizes the reward while the true score, the share of philosophers who ate, falls to 0; watch the reward rise as the meals fall, Restore best for the eating policy (step ${bestStep} or earlier), or try philosophers-fixed, whose weights make eating pay`;
  }
  if (config?.env === 'philosophers') {
    return `no philosopher ate; look at the transcripts and the reward's weights (action cost against the starvation penalty) first, then lower lr or turn gradient clipping on; the best checkpoint is from step ${bestStep} or earlier`;
  }
  return `the updates destroyed the policy (lower lr, or turn gradient clipping on; the best checkpoint is from step ${bestStep} or earlier)`;
}

/**
 * Reward hacking, in any environment: the reward training maximizes rose while accuracy (the task's
 * true score) fell. Lowering lr would only slow that; the reward is what to fix.
 */
export function rewardHackCause(from: EvalRecord, to: EvalRecord, bestStep: number): string | null {
  if (!(Number.isFinite(from.reward) && Number.isFinite(to.reward) && to.reward > from.reward)) return null;
  return `a reward hack: the reward rose from ${from.reward.toFixed(3)} (step ${from.step}) to ${to.reward.toFixed(3)} while accuracy fell, so the policy found a way to earn reward without doing the task; read the transcripts and fix the reward (a lower lr would only slow the hack); the best checkpoint is from step ${bestStep} or earlier`;
}

/**
 * A flag when accuracy fell from a real level to exactly 0 between two consecutive evals (e.g. lr 0.1 with clipping off).
 * `first` (the member's first eval) is also compared for a reward that rose: a hack can take several evals.
 */
export function collapseFlag(prev: EvalRecord | undefined, rec: EvalRecord, config?: Pick<RunConfig, 'env' | 'mealReward' | 'actionCost' | 'starvePenalty'>, first?: EvalRecord): Flag | null {
  if (!prev || rec.step <= prev.step || prev.accuracy < COLLAPSE_FROM || rec.accuracy !== 0) return null;
  const span = rec.step - prev.step === 1 ? 'in one step' : `in ${rec.step - prev.step} steps`;
  const philosophersHack = config?.env === 'philosophers' && rewardHackable(config);
  const hack = philosophersHack ? null : rewardHackCause(prev, rec, prev.step) ?? (first && first.accuracy > rec.accuracy && first.step < prev.step ? rewardHackCause(first, rec, prev.step) : null);
  return {
    kind: 'collapse', step: rec.step,
    message: `collapse: eval accuracy fell from ${prev.accuracy.toFixed(3)} (step ${prev.step}) to 0 (step ${rec.step}) ${span}; ${hack ?? collapseCause(config, prev.step)}`,
  };
}
