// What a run records: its per-step metrics, its evals, its flags and the snapshot a
// resume continues from. Plain types and the small means they are built with; the
// Trainer (trainer.ts) fills them, the worker, the store and the CLI read them.
import type { Environment, Score } from '../envs/types';
import type { AdamWState } from '../model/optimizer';
import type { RunConfig } from '../config';
import { messageParts, reward, type RewardWeights } from './reward';
import { sequencesByEpisode, type Rollout } from './rollout';

export const EVAL_SEED = 20251; // the held-out set is the same for every run, so runs compare

export interface StepMetrics {
  step: number;
  reward: number; reward_std: number; r_task: number; tokens: number; turns: number; repetition: number;
  lambda_tok: number; frac_zero_std: number; policy_loss: number; kl: number; entropy: number;
  clip_frac: number; ratio_mean: number; ratio_min: number; ratio_max: number; grad_norm: number;
  seq_len_mean: number; silence_rate: number; step_time_ms: number; tokens_per_s: number;
  skipped_updates: number;
  /** Dynamic sampling: groups of this step whose rewards were all equal (every rollout round), which left the loss. */
  groups_dropped: number;
  /** Dynamic sampling: groups from the refill rounds that entered the loss in place of dropped ones. */
  groups_refilled: number;
  /** Matmul FLOPs of the step by src/model/flops.ts (generation at the KV-cache count, forward + backward of the loss rows). */
  step_flops: number;
  /** Share of the step's groups whose episodes sent different numbers of message tokens (0: the token penalty has nothing to compare). */
  groups_len_varied: number;
  /** Mean over groups of the standard deviation of message tokens within the group. */
  len_spread: number;
  /**
   * The advantage r - mean(group) an episode shorter than its group's mean gets, averaged over such episodes
   * (0 when no group varies in length): what the token penalty, net of what the missing tokens cost in task reward, pays for brevity.
   */
  shorter_adv: number;
}

export interface EvalRecord {
  step: number; accuracy: number; tokens: number; turns: number; lambdaTok: number;
  reward: number; // mean episode reward under the lambdas in force (greedy)
  [extra: string]: number;
}

/** Hooks into one step (the page's progress and pause): `progress(done, of)` after the rollout (0) and after each minibatch update. */
export interface StepHooks {
  progress?(done: number, of: number): void;
  stopRequested?(): boolean;
}

export interface Flag { kind: 'nonfinite-update' | 'diverged' | 'degenerate' | 'collapse'; step: number; message: string }

/**
 * A run's counters and current weights, copied out (the worker's lost-device resume point; with
 * the optimizer, what a page reload's Resume continues from). Not in it: the best checkpoint's
 * weights (a Trainer is built from them) and the curriculum's streak. Without `optimizer`, a
 * Trainer restored from it starts AdamW afresh (zero moments, counter 0), as a new Trainer would.
 */
export interface TrainerSnapshot {
  step: number;
  config: RunConfig;
  weights: Float32Array; // the trainable model at `step`
  evals: EvalRecord[];
  bestEval: EvalRecord | null;
  lambdaTok: number;
  flags: Flag[];
  skippedUpdates: number;
  /** snapshot({ optimizer: true }): AdamW's moments and update counter. */
  optimizer?: AdamWState;
  /** snapshot({ optimizer: true }) when beta > 0 and the run has stepped: the KL reference weights. */
  reference?: Float32Array;
}

export function mean(xs: number[]): number { return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0; }
export function meanOrNaN(xs: number[]): number { return xs.length ? mean(xs) : NaN; }

/** A greedy eval's record from its rollout: accuracy, tokens, reward under the weights in force, turns and the env's extras. */
export function evalRecordOf(env: Environment, ro: Rollout, step: number, overlongCache: number, w: RewardWeights): EvalRecord {
  const parts = sequencesByEpisode(ro).map((seqs) => messageParts(seqs, env.eos, overlongCache));
  return {
    step, accuracy: mean(ro.scores.map((s: Score) => s.rTask)), tokens: mean(parts.map((p) => p.tokens)),
    reward: mean(ro.scores.map((s, e) => reward(s.rTask, parts[e], w, s.reward).reward)),
    turns: mean(parts.map((p) => p.turns)), lambdaTok: w.lambdaTok, ...env.evalExtras(ro.scores),
  };
}
export function std(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Batch means of the env's reward terms (prefixed `term_`) and extras. */
export function envMeans(scores: Score[]): Record<string, number> {
  const sum: Record<string, number> = {};
  const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  // for-in over own keys (Object.entries' keys, in its order) without an array of pairs for every episode
  for (const sc of scores) {
    const terms = sc.terms, extras = sc.extras;
    if (terms) for (const k in terms) if (own(terms, k)) sum[`term_${k}`] = (sum[`term_${k}`] ?? 0) + terms[k];
    for (const k in extras) if (own(extras, k)) sum[k] = (sum[k] ?? 0) + extras[k];
  }
  return Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, v / Math.max(1, scores.length)]));
}

