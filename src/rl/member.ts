// One member of a run: what a run of its own keeps (its config and live lambda, evals,
// best eval, flags, skipped updates, the degenerate verdict, the last rollout and eval
// for transcripts) and the figures of its share of a step. A run is K >= 1 members.
import type { RunConfig } from '../config';
import type { Environment } from '../envs/types';
import { rlStepFlops } from '../model/flops';
import type { GPTConfig } from '../model/params';
import { collapseFlag } from './faults';
import { detectDegenerate, type DegenerateRecord, type DegenerateVerdict } from './degenerate';
import type { ObjectiveStats } from './objective';
import { betterEval } from './pareto';
import type { RewardParts } from './reward';
import { prefillShares, type Rollout, type Sequence } from './rollout';
import { mean, meanOrNaN, std, type EvalRecord, type Flag, type StepMetrics } from './runRecord';

export class Member<State = unknown> {
  lambdaTok: number;
  readonly evals: EvalRecord[] = [];
  bestEval: EvalRecord | null = null;
  readonly flags: Flag[] = [];
  skippedUpdates = 0;
  /** The degenerate-policy detector's latest verdict (envs that report actionRate). */
  degenerate: DegenerateVerdict | null = null;
  /** The env's own per-step figures: batch means of its reward terms and extras (philosophers: meals, deadlock, ...). */
  lastEnvMetrics: Record<string, number> = {};
  /** Each minibatch of the last step: the member's loss rows and their length (as its lone run would cut them). */
  lossShapes: { rows: number; T: number }[] = [];
  lastRollout: { rollout: Rollout<State>; rewards: RewardParts[] } | null = null;
  lastEval: { rollout: Rollout<State> } | null = null;
  /** This step's minibatch stats and gradient norms (the updates that were not skipped). */
  mbStats: ObjectiveStats[] = [];
  gradNorms: number[] = [];

  constructor(public config: RunConfig) { this.lambdaTok = config.lambdaTok; }

  get lossRows(): number { return this.lossShapes.reduce((a, s) => a + s.rows, 0); }

  /** A minibatch's outcome: its stats, or a skipped update flagged with what was not finite. */
  settle(step: number, stats: ObjectiveStats, badTensor: () => Promise<string | null>): Promise<void> | void {
    const gn = Math.sqrt(stats.gradNormSq);
    if (Number.isFinite(gn) && Number.isFinite(stats.loss)) { this.mbStats.push(stats); this.gradNorms.push(gn); return; }
    this.skippedUpdates++;
    return (async () => {
      const bad = Number.isFinite(gn) ? null : await badTensor();
      const what = bad ? `a non-finite gradient (first in ${bad})` : Number.isFinite(stats.loss) ? 'a non-finite gradient' : 'a non-finite loss';
      this.flags.push({ kind: 'nonfinite-update', step, message: `step ${step}: ${what}; the update was skipped (weights untouched)` });
    })();
  }

  /** An eval's record: the collapse check, the best eval (true when this one is the new best). */
  recordEval(rec: EvalRecord): boolean {
    const collapse = collapseFlag(this.evals[this.evals.length - 1], rec, this.config, this.evals[0]);
    if (collapse) this.flags.push(collapse);
    this.evals.push(rec);
    if (!betterEval(rec, this.bestEval)) return false;
    this.bestEval = rec;
    return true;
  }

  /** After an eval: flags the member once when its policy degenerates (actions or messages collapse while the task falls). */
  checkDegenerate(env: Environment<any, any>, step: number, since: number): void {
    if (this.evals.length === 0 || this.evals[0].actionRate === undefined) return;
    const measure = env.taskMeasure;
    const records: DegenerateRecord[] = this.evals.filter((e) => e.step >= since).map((e) => ({
      step: e.step, reward: e.reward, actionRate: e.actionRate, messageRate: e.messageRate ?? 0, task: (measure ? e[measure.key] : undefined) ?? e.accuracy,
    }));
    this.degenerate = detectDegenerate(records, { taskLabel: measure && this.evals[0][measure.key] !== undefined ? measure.label : 'accuracy' });
    if (this.degenerate.degenerate && !this.flags.some((f) => f.kind === 'degenerate')) {
      this.flags.push({ kind: 'degenerate', step, message: `degenerate policy: ${this.degenerate.reason} The reward is being maximized without doing the task; check the reward's weights (see the preset's explanation).` });
    }
  }
}

/**
 * Does the token penalty have anything to compare? Per group of G episodes (consecutive in `parts`): whether
 * their message lengths differ, their spread, and the advantage r - mean a shorter-than-mean episode gets.
 */
export function lengthSignal(parts: readonly RewardParts[], G: number): Pick<StepMetrics, 'groups_len_varied' | 'len_spread' | 'shorter_adv'> {
  let groups = 0, varied = 0, spread = 0, shortAdv = 0, shorter = 0;
  for (let g = 0; g + G <= parts.length; g += G, groups++) {
    const group = parts.slice(g, g + G), tokens = group.map((p) => p.tokens);
    const meanTok = mean(tokens), meanReward = mean(group.map((p) => p.reward));
    spread += std(tokens);
    if (Math.max(...tokens) === Math.min(...tokens)) continue;
    varied++;
    for (const p of group) if (p.tokens < meanTok) { shortAdv += p.reward - meanReward; shorter++; }
  }
  return { groups_len_varied: varied / Math.max(1, groups), len_spread: spread / Math.max(1, groups), shorter_adv: shorter === 0 ? 0 : shortAdv / shorter };
}

/** What a step's metrics are built from, beside the member's own stats. */
export interface StepFigures {
  step: number; ms: number; parts: RewardParts[]; rollout: Rollout; eos: number; lambdaUsed: number;
  model: GPTConfig; refForward: boolean;
  /** Dynamic sampling's group choice (null without it: frac_zero_std is the device's). */
  flat: boolean[] | null; refilled: number;
}

/** A member's StepMetrics for the step just taken (docs/rl.md section 7). */
export function stepMetricsOf(m: Member, f: StepFigures): StepMetrics {
  const { parts, rollout: ro, flat } = f, st = m.mbStats;
  const genTokens = ro.sequences.reduce((a, s) => a + s.generated.length, 0);
  let silentTurns = 0, messageTurns = 0; // counted, not filtered: every sequence of the step
  for (const s of ro.sequences) if (s.message) { messageTurns++; if (s.generated[0] === f.eos) silentTurns++; }
  // with every update skipped these are means of nothing: NaN, not 0
  const avg = (k: 'policyLoss' | 'kl' | 'entropy' | 'clipFrac' | 'ratioMean' | 'fracZeroStd') => meanOrNaN(st.map((s) => s[k]));
  return {
    step: f.step, reward: mean(parts.map((p) => p.reward)), reward_std: std(parts.map((p) => p.reward)), r_task: mean(parts.map((p) => p.rTask)),
    tokens: mean(parts.map((p) => p.tokens)), turns: mean(parts.map((p) => p.turns)), repetition: mean(parts.map((p) => p.repetition)), lambda_tok: f.lambdaUsed,
    // with dynamic sampling every group may have left the loss (no update): the host's count is the same number
    frac_zero_std: flat ? flat.filter(Boolean).length / Math.max(1, flat.length) : avg('fracZeroStd'),
    groups_dropped: flat ? flat.filter(Boolean).length : 0, groups_refilled: f.refilled, policy_loss: avg('policyLoss'), kl: avg('kl'), entropy: avg('entropy'), clip_frac: avg('clipFrac'),
    ratio_mean: avg('ratioMean'), ratio_min: Math.min(...st.map((s) => s.ratioMin), Infinity), ratio_max: Math.max(...st.map((s) => s.ratioMax), -Infinity),
    grad_norm: meanOrNaN(m.gradNorms), seq_len_mean: genTokens / Math.max(1, ro.sequences.length), silence_rate: silentTurns / Math.max(1, messageTurns),
    ...lengthSignal(parts, m.config.groupSize),
    step_time_ms: f.ms, tokens_per_s: genTokens / (f.ms / 1000), skipped_updates: m.skippedUpdates,
    step_flops: rlStepFlops(f.model, { sequences: sequenceShapes(ro.sequences), minibatches: m.lossShapes, refForward: f.refForward }),
  };
}

/** The generated sequences as the FLOP count sees them: lengths, and how many share each context's prefill. */
export function sequenceShapes(seqs: readonly Sequence[]): { context: number; generated: number; share: number }[] {
  const share = prefillShares(seqs);
  return seqs.map((q, i) => ({ context: q.context.length, generated: q.generated.length, share: share[i] }));
}
