// The Trainer: rollouts -> reward -> advantages -> GSPO/GRPO minibatch updates,
// the dual lambda, metrics (docs/rl.md section 7), greedy evaluation, the Pareto
// frontier and best/last checkpoints. Runs unchanged in the worker and the CLI.
import type { Backend, Tensor } from '../backend';
import type { BaselineResult, CurriculumSpec, Environment, Score } from '../envs/types';
import { GPT } from '../model/gpt';
import { AdamW, type AdamWState } from '../model/optimizer';
import type { GPTConfig } from '../model/params';
import { rlStepFlops } from '../model/flops';
import { mulberry32 } from '../model/random';
import { checkLiveChange, validateConfig, type RunConfig } from '../config';
import { meanStd } from '../reference/rl';
import { shiftIntoRow } from './batch';
import { PolicyObjective, type ObjectiveStats, type PolicyBatch } from './objective';
import { betterEval, type EvalPoint } from './pareto';
import { dualUpdate, messageParts, reward, rewardWeights, type RewardParts, type RewardWeights } from './reward';
import { createEnv } from '../envs/registry';
import { curriculumUpdate, type CurriculumState } from './curriculum';
import { collapseFlag, firstNonFiniteTensor } from './faults';
import { detectDegenerate, type DegenerateRecord, type DegenerateVerdict } from './degenerate';
import { Generator, rollout, sequencesByEpisode, type Rollout, type Sequence } from './rollout';

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
function std(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Batch means of the env's reward terms (prefixed `term_`) and extras. */
export function envMeans(scores: Score[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const sc of scores) {
    for (const [k, v] of Object.entries(sc.terms ?? {})) sum[`term_${k}`] = (sum[`term_${k}`] ?? 0) + v;
    for (const [k, v] of Object.entries(sc.extras)) sum[k] = (sum[k] ?? 0) + v;
  }
  return Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, v / Math.max(1, scores.length)]));
}

/** Rows are cut to a multiple of this many positions: few shapes (each keeps its buffers), little padding. */
const ROW_QUANTUM = 8;

/**
 * The row length a batch of these sequences needs in prediction space (a sequence of n tokens fills n - 1
 * positions), rounded up to ROW_QUANTUM and at most blockSize - 1. Positions past a sequence are masked and,
 * attention being causal, change nothing before them: a shorter row gives the same loss and gradient for less work.
 */
/** Per group of `G` consecutive rewards: whether they are all equal (the groups that carry no signal, A = 0). */
export function flatGroups(rewards: ArrayLike<number>, G: number): boolean[] {
  const P = Math.floor(rewards.length / G);
  return Array.from({ length: P }, (_, g) => meanStd(rewards, g * G, g * G + G).allEqual);
}

/** Dynamic sampling's refill round r (>= 1) draws its prompts here in the train stream, past any step's own (P * steps < 2^27). */
export const REFILL_INDEX = 1 << 27;
/** Its sampling seed: a stream of its own, so a refill round never repeats the first round's draws. */
export function refillSeed(seed: number, round: number): number { return (seed ^ Math.imul(round, 0x9e3779b1)) & 0x7fffffff; }

/** One rollout after another, as one: episodes of `b` are numbered after `a`'s (groups stay consecutive). */
export function concatRollouts<State>(a: Rollout<State>, b: Rollout<State>): Rollout<State> {
  const E = a.states.length;
  return { states: [...a.states, ...b.states], scores: [...a.scores, ...b.scores], sequences: [...a.sequences, ...b.sequences.map((q) => ({ ...q, episode: q.episode + E }))] };
}

/**
 * Dynamic sampling's choice: the first `P` groups that are not flat, in sampling order (a later round's groups
 * only fill what the earlier ones left). Returns their indices and how many came after the first round's `P0` groups.
 */
export function keptGroups(flat: boolean[], P: number, P0: number): { kept: number[]; refilled: number } {
  const kept: number[] = [];
  for (let g = 0; g < flat.length && kept.length < P; g++) if (!flat[g]) kept.push(g);
  return { kept, refilled: kept.filter((g) => g >= P0).length };
}

export function rowLength(seqs: Sequence[], blockSize: number): number {
  let n = 1;
  for (const s of seqs) n = Math.max(n, s.context.length + s.generated.length - 1);
  return Math.min(blockSize - 1, Math.ceil(n / ROW_QUANTUM) * ROW_QUANTUM);
}

/**
 * Sequences as a PolicyBatch in prediction space (row per sequence). A continued sequence
 * also trains on its earlier turns' tokens, which sit inside its context.
 */
export function sequencesToBatch(seqs: Sequence[], episodeIndex: (e: number) => number, T: number): PolicyBatch {
  const S = seqs.length, ST = S * T;
  const tokens = new Int32Array(ST), targets = new Int32Array(ST).fill(-1), mask = new Float32Array(ST), oldLogp = new Float32Array(ST);
  const rows = { T, tokens, targets, mask, oldLogp, refLogp: null };
  seqs.forEach((s, i) => {
    const full = [...s.context, ...s.generated];
    const trained = new Float32Array(full.length), logp = new Float32Array(full.length); // indexed like `full`
    for (const x of s.earlier) { trained[x.at] = 1; logp[x.at] = x.logp; }
    s.generated.forEach((_, g) => { trained[s.context.length + g] = 1; logp[s.context.length + g] = s.logp[g]; });
    shiftIntoRow(rows, i, full, trained, logp);
  });
  return {
    S, T, tokens, targets, mask, oldLogp, refLogp: null, seqEpisode: Int32Array.from(seqs.map((s) => episodeIndex(s.episode))), rewards: new Float32Array(0), groupStart: new Int32Array(0),
    tMax: Math.max(1, ...seqs.map((s) => s.maxNew)), // the turns' token limit (docs/rl.md section 4b: Dr. GRPO's L_max)
  };
}

/** A policy slot's start: trainable or frozen, and its weights (absent: a fresh init). */
export interface SlotInit { trainable: boolean; weights?: Float32Array }
export type TrainerSlots = Record<string, SlotInit>;

interface Policy { slot: string; model: GPT; gen: Generator; trainable: boolean }

/** The env's slots (every role in 'policy' when it declares none). */
export function slotNames(env: Environment<any, any>): string[] {
  return env.roleSlot ? [...new Set(Object.values(env.roleSlot))] : ['policy'];
}

export class Trainer<Task = unknown, State = unknown> {
  /** The trainable slot's model (the one the optimizer updates). */
  readonly model: GPT;
  readonly policies: Policy[];
  private readonly opt: AdamW;
  private readonly objective: PolicyObjective;
  private ref: Tensor | null = null; // reference weights (start of RL), when beta > 0
  private best: Tensor; // weights of the best eval
  private evalTasks: Task[];
  stepCount = 0;
  lambdaTok: number;
  readonly evals: EvalRecord[] = [];
  bestEval: EvalRecord | null = null;
  readonly flags: Flag[] = [];
  /** Curriculum stage changes (the env's CurriculumSpec, e.g. philosophers' N = 3 -> 5 -> 7). */
  readonly curriculum: { step: number; stage: number; label: string }[] = [];
  private curriculumState: CurriculumState | null = null;
  /** The degenerate-policy detector's latest verdict (envs that report actionRate). */
  degenerate: DegenerateVerdict | null = null;
  skippedUpdates = 0;
  /** Each minibatch of the last step: its loss rows (the trainable slot's sequences, continued ones merged) and their length. */
  lossShapes: { rows: number; T: number }[] = [];
  /** Rows (sequences) that entered the loss in the last step. */
  get lossRows(): number { return this.lossShapes.reduce((a, s) => a + s.rows, 0); }
  lastRollout: { rollout: Rollout<State>; rewards: RewardParts[] } | null = null;
  /** The env's own per-step figures: batch means of its reward terms and extras (philosophers: meals, deadlock, ...). */
  lastEnvMetrics: Record<string, number> = {};
  lastEval: { rollout: Rollout<State> } | null = null;
  /** Wall time of the last step's phases and of the last eval, ms (for bench and the UI). */
  readonly phases = { rollout: 0, reward: 0, update: 0, eval: 0 };

  /**
   * `init`: the weights of the only slot (one-slot envs), or each slot's start. At most one slot is
   * trainable (the optimizer's); frozen slots only generate, and their sequences never enter the loss.
   */
  constructor(readonly backend: Backend, public env: Environment<Task, State>, public config: RunConfig, init?: Float32Array | TrainerSlots) {
    const gpt: GPTConfig = { nLayer: config.nLayer, nHead: config.nHead, nEmbd: config.nEmbd, blockSize: env.blockSize, vocabSize: env.vocab.length };
    const names = slotNames(env);
    let slots: TrainerSlots;
    if (init === undefined || init instanceof Float32Array) {
      if (names.length > 1) throw new Error(`${env.id} has slots ${names.join(', ')}: give each slot its start`);
      slots = { [names[0]]: { trainable: true, weights: init } };
    } else {
      slots = init;
      for (const n of names) if (!slots[n]) throw new Error(`${env.id}: no start given for slot "${n}"`);
    }
    if (names.filter((n) => slots[n].trainable).length > 1) throw new Error(`${env.id}: only one trainable slot is supported`);
    this.policies = names.map((slot) => {
      const model = new GPT(backend, gpt, slots[slot].weights, config.seed);
      return { slot, model, gen: new Generator(backend, model), trainable: slots[slot].trainable };
    });
    this.model = (this.policies.find((p) => p.trainable) ?? this.policies[0]).model;
    this.opt = new AdamW(backend, this.model, { lr: config.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: config.weightDecay, gradClip: config.gradClip });
    this.objective = new PolicyObjective(backend);
    this.best = backend.alloc(this.model.numParams);
    backend.copy(this.best, this.model.params);
    this.lambdaTok = config.lambdaTok;
    this.evalTasks = env.sampleTasks('eval', config.evalEpisodes, EVAL_SEED, 0);
    if (env.curriculum) this.curriculumState = { stage: env.curriculum.stage, streak: 0 };
  }

  private curriculumOptions(spec: CurriculumSpec) {
    const at = this.curriculumState!.stage, stages = spec.stages.filter((n) => n >= at);
    return { stages: stages.includes(at) ? stages : [at, ...stages], threshold: spec.threshold, patience: spec.patience };
  }

  /** After an eval: the curriculum may advance (a new env, eval set and baselines; the best checkpoint restarts at the new stage). */
  private advanceCurriculum(rec: EvalRecord): void {
    const spec = this.env.curriculum;
    if (!this.curriculumState || !spec) return;
    const next = curriculumUpdate(this.curriculumState, rec.accuracy, this.curriculumOptions(spec));
    this.curriculumState = { stage: next.stage, streak: next.streak };
    if (!next.advanced) return;
    this.config = { ...this.config, ...spec.configAt(next.stage) };
    this.env = createEnv(this.config) as Environment<Task, State>;
    this.evalTasks = this.env.sampleTasks('eval', this.config.evalEpisodes, EVAL_SEED, 0);
    this.baselineCache = null;
    this.bestEval = null; // evals at different stages do not compare
    this.curriculum.push({ step: this.stepCount, stage: next.stage, label: spec.label(next.stage) });
  }

  /** After an eval: flags the run once when the policy degenerates (actions or messages collapse while the task falls). */
  private checkDegenerate(): void {
    if (this.evals.length === 0 || this.evals[0].actionRate === undefined) return;
    const since = this.curriculum.length ? this.curriculum[this.curriculum.length - 1].step : -1;
    const measure = this.env.taskMeasure;
    const records: DegenerateRecord[] = this.evals.filter((e) => e.step >= since).map((e) => ({
      step: e.step, reward: e.reward, actionRate: e.actionRate, messageRate: e.messageRate ?? 0, task: (measure ? e[measure.key] : undefined) ?? e.accuracy,
    }));
    this.degenerate = detectDegenerate(records, { taskLabel: measure && this.evals[0][measure.key] !== undefined ? measure.label : 'accuracy' });
    if (this.degenerate.degenerate && !this.flags.some((f) => f.kind === 'degenerate')) {
      this.flags.push({ kind: 'degenerate', step: this.stepCount, message: `degenerate policy: ${this.degenerate.reason} The reward is being maximized without doing the task; check the reward's weights (see the preset's explanation).` });
    }
  }

  private readonly gens = (slot: string): Generator => {
    const p = this.policies.find((x) => x.slot === slot);
    if (!p) throw new Error(`${this.env.id}: no policy slot "${slot}"`);
    return p.gen;
  };

  /** The rows a rollout or eval generates at once (the memory budget's chunk on a small device; Infinity: all). */
  set rolloutRows(n: number) { for (const p of this.policies) p.gen.maxRows = n; }
  get rolloutRows(): number { return this.policies[0].gen.maxRows; }

  private trainable(slot: string): boolean { return this.policies.some((p) => p.slot === slot && p.trainable); }

  /** The rows an episode puts in the loss: the trainable slot's turns; a continued sequence's last row carries its earlier turns. */
  lossSequences(episode: Sequence[]): Sequence[] {
    return episode.filter((q) => this.trainable(q.slot) && !q.superseded);
  }

  /** Scripted baselines on the eval tasks (computed once). */
  baselines(): BaselineResult[] {
    this.baselineCache ??= this.env.baselines?.(this.evalTasks, EVAL_SEED) ?? [];
    return this.baselineCache;
  }
  private baselineCache: BaselineResult[] | null = null;

  /** Changes applied at the next step without a reset; other fields need a new Trainer. */
  setHyperparams(partial: Partial<RunConfig>): void {
    checkLiveChange(Object.keys(partial));
    const next = validateConfig(partial as Record<string, unknown>, this.config);
    if (partial.lambdaTok !== undefined) this.lambdaTok = next.lambdaTok;
    this.config = next;
    this.opt.config = { ...this.opt.config, lr: next.lr, gradClip: next.gradClip };
  }

  private weights() { return rewardWeights(this.config, this.lambdaTok); }

  /** Minibatch updates the last step made (fewer than `minibatches` when it was asked to stop early). */
  lastStepUpdates = 0;

  /**
   * One RL step: P prompts x G episodes, rewards, advantages, `minibatches` optimizer updates.
   * `hooks.stopRequested` is asked between minibatches (after the first): a pause then keeps the
   * updates made so far and ends the step, instead of waiting for all of them.
   */
  async step(hooks: StepHooks = {}): Promise<StepMetrics> {
    // settings are read once: a live change made during this step applies to the next one
    const c = this.config, w = this.weights(), t0 = performance.now(), b = this.backend;
    if (c.beta > 0 && !this.ref) { this.ref = b.alloc(this.model.numParams); b.copy(this.ref, this.model.params); }
    const step = this.stepCount;
    const tasks = this.env.sampleTasks('train', c.promptsPerStep, c.seed, step * c.promptsPerStep);
    if (!this.policies.some((p) => p.trainable)) throw new Error('no trainable policy slot: this run can only be evaluated');
    // frozen slots are part of the environment: they decode greedily, so their sampling noise does not blur the reward
    const temperatureOf = (slot: string) => (this.trainable(slot) ? c.temperature : 0);
    let ro = await rollout(this.env, this.gens, tasks, c.groupSize, temperatureOf, c.seed, step * 4096);
    const partsOf = (r: Rollout<State>) => sequencesByEpisode(r).map((seqs, e) => reward(r.scores[e].rTask, messageParts(seqs, this.env.eos, c.overlongCache), w, r.scores[e].reward));
    let parts = partsOf(ro);
    // dynamic sampling's refill (DAPO): while fewer than P groups carry signal, roll out P more prompts, at most
    // refillRounds times. Every round's episodes are samples of the same policy, so the step's metrics cover them all.
    if (c.dynamicSampling === 'on') {
      const signal = (ps: RewardParts[]) => flatGroups(ps.map((p) => p.reward), c.groupSize).filter((f) => !f).length;
      let have = signal(parts);
      for (let r = 1; r <= c.refillRounds && have < c.promptsPerStep; r++) {
        const more = this.env.sampleTasks('train', c.promptsPerStep, c.seed, r * REFILL_INDEX + step * c.promptsPerStep);
        const extra = await rollout(this.env, this.gens, more, c.groupSize, temperatureOf, refillSeed(c.seed, r), step * 4096);
        const extraParts = partsOf(extra);
        ro = concatRollouts(ro, extra);
        parts = [...parts, ...extraParts];
        have += signal(extraParts);
      }
    }
    const tRollout = performance.now();
    hooks.progress?.(0, c.minibatches);
    const E = ro.states.length, groups = E / c.groupSize;
    const byEpisode = sequencesByEpisode(ro);
    const lossByEpisode = byEpisode.map((seqs) => this.lossSequences(seqs));
    this.lastRollout = { rollout: ro, rewards: parts };
    this.lastEnvMetrics = envMeans(ro.scores);

    // advantages over the whole batch, on the device; minibatches gather from them
    const rewards = Float32Array.from(parts.map((p) => p.reward));
    const groupStart = Int32Array.from({ length: groups + 1 }, (_, g) => g * c.groupSize);
    const tReward = performance.now();
    this.objective.advantages(rewards, groupStart, c.advantage);

    // minibatches split whole episodes, in a seeded shuffled order
    const all = Array.from({ length: E }, (_, i) => i);
    const rand = mulberry32(c.seed * 7919 + step);
    for (let i = E - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [all[i], all[j]] = [all[j], all[i]]; }
    // dynamic sampling: the episodes of groups with all-equal rewards (A = 0) leave the loss, and at most P groups stay
    const flat = c.dynamicSampling === 'on' ? flatGroups(rewards, c.groupSize) : null;
    const choice = flat ? keptGroups(flat, c.promptsPerStep, c.promptsPerStep) : null;
    const inLoss = choice ? new Set(choice.kept) : null;
    const order = inLoss ? all.filter((e) => inLoss.has(Math.floor(e / c.groupSize))) : all;
    const nMb = Math.min(c.minibatches, order.length);
    const mbStats: ObjectiveStats[] = [];
    this.lossShapes = [];
    const gradNorms: number[] = [];
    this.lastStepUpdates = 0;
    // Minibatch m+1 is recorded and submitted before m's stats are awaited, so the device never idles while
    // the host reads back and builds the next batch. The reads are copied out at call time, before m+1 overwrites them.
    let pending: { reading: Promise<ObjectiveStats>; m: number } | null = null;
    const settle = async (p: NonNullable<typeof pending>) => {
      const stats = await p.reading;
      const gn = Math.sqrt(stats.gradNormSq);
      if (!Number.isFinite(gn) || !Number.isFinite(stats.loss)) {
        this.skippedUpdates++;
        // which tensor: read back only on this rare path. The gradient buffer holds the last minibatch recorded
        // (m, or m + 1 when it was already on its way); when that one is finite, no tensor is named.
        const bad = Number.isFinite(gn) ? null : firstNonFiniteTensor(this.model.config, await b.read(this.model.grads));
        const what = bad ? `a non-finite gradient (first in ${bad})` : Number.isFinite(stats.loss) ? 'a non-finite gradient' : 'a non-finite loss';
        this.flags.push({ kind: 'nonfinite-update', step, message: `step ${step}: ${what}; the update was skipped (weights untouched)` });
      } else { mbStats.push(stats); gradNorms.push(gn); }
      hooks.progress?.(p.m + 1, nMb);
    };
    for (let m = 0; m < nMb; m++) {
      if (m > 0 && hooks.stopRequested?.()) break;
      const eps = order.slice(Math.floor((m * order.length) / nMb), Math.floor(((m + 1) * order.length) / nMb));
      if (eps.length === 0) continue;
      const seqs = eps.flatMap((e) => lossByEpisode[e]);
      if (seqs.length === 0) continue;
      const batch = sequencesToBatch(seqs, (e) => e, rowLength(seqs, this.model.config.blockSize));
      this.lossShapes.push({ rows: batch.S, T: batch.T });
      this.model.zeroGrad();
      this.objective.recordMinibatch(this.model, batch, c, this.ref ?? undefined);
      this.opt.measure();
      this.objective.keepGradNormSq(this.opt.normSq); // the norm comes back with the stats: one readback per minibatch
      this.opt.apply(); // a non-finite gradient makes this a no-op on the device (the guard)
      b.submit();
      const next = { reading: this.objective.readStats(batch), m };
      this.lastStepUpdates++;
      if (pending) await settle(pending);
      pending = next;
    }
    if (pending) await settle(pending);
    this.stepCount++;
    const tUpdate = performance.now();
    Object.assign(this.phases, { rollout: tRollout - t0, reward: tReward - tRollout, update: tUpdate - tReward });
    const meanTokens = mean(parts.map((p) => p.tokens));
    const lambdaUsed = this.lambdaTok;
    if (c.lambdaMode === 'budget') this.lambdaTok = dualUpdate(this.lambdaTok, meanTokens, c.budget, c.dualEta, c.lambdaMax);

    const ms = performance.now() - t0;
    const genTokens = ro.sequences.reduce((a, s) => a + s.generated.length, 0);
    const silentTurns = ro.sequences.filter((s) => s.message && s.generated[0] === this.env.eos).length;
    const messageTurns = ro.sequences.filter((s) => s.message).length;
    // with every update skipped these are means of nothing: NaN, not 0
    const avg = (k: 'policyLoss' | 'kl' | 'entropy' | 'clipFrac' | 'ratioMean' | 'fracZeroStd') => meanOrNaN(mbStats.map((s) => s[k]));
    return {
      step, reward: mean(parts.map((p) => p.reward)), reward_std: std(parts.map((p) => p.reward)), r_task: mean(parts.map((p) => p.rTask)),
      tokens: meanTokens, turns: mean(parts.map((p) => p.turns)), repetition: mean(parts.map((p) => p.repetition)), lambda_tok: lambdaUsed,
      // with dynamic sampling every group may have left the loss (no update): the host's count is the same number
      frac_zero_std: flat ? flat.filter(Boolean).length / Math.max(1, flat.length) : avg('fracZeroStd'),
      groups_dropped: flat ? flat.filter(Boolean).length : 0, groups_refilled: choice ? choice.refilled : 0, policy_loss: avg('policyLoss'), kl: avg('kl'), entropy: avg('entropy'), clip_frac: avg('clipFrac'),
      ratio_mean: avg('ratioMean'), ratio_min: Math.min(...mbStats.map((s) => s.ratioMin), Infinity), ratio_max: Math.max(...mbStats.map((s) => s.ratioMax), -Infinity),
      grad_norm: meanOrNaN(gradNorms), seq_len_mean: genTokens / Math.max(1, ro.sequences.length), silence_rate: silentTurns / Math.max(1, messageTurns),
      step_time_ms: ms, tokens_per_s: genTokens / (ms / 1000), skipped_updates: this.skippedUpdates,
      step_flops: rlStepFlops(this.model.config, {
        sequences: ro.sequences.map((q) => ({ context: q.context.length, generated: q.generated.length })), minibatches: this.lossShapes, refForward: this.ref !== null,
      }),
    };
  }

  /** Greedy evaluation on the fixed held-out set; tracks the best checkpoint. */
  async evaluate(): Promise<EvalRecord> {
    const t0 = performance.now();
    const ro = await rollout(this.env, this.gens, this.evalTasks, 1, 0, EVAL_SEED, 0);
    this.phases.eval = performance.now() - t0;
    this.lastEval = { rollout: ro };
    const rec = evalRecordOf(this.env, ro, this.stepCount, this.config.overlongCache, this.weights());
    const collapse = collapseFlag(this.evals[this.evals.length - 1], rec);
    if (collapse) this.flags.push(collapse);
    this.evals.push(rec);
    if (betterEval(rec, this.bestEval)) {
      this.bestEval = rec;
      this.backend.copy(this.best, this.model.params);
    }
    this.checkDegenerate();
    this.advanceCurriculum(rec);
    return rec;
  }

  evalPoints(run: string): EvalPoint[] {
    return this.evals.map((e) => ({ tokens: e.tokens, accuracy: e.accuracy, run, step: e.step, lambdaTok: e.lambdaTok }));
  }

  /** Weights of the last step or of the best eval, read back. */
  async readWeights(which: 'last' | 'best'): Promise<Float32Array> {
    return Float32Array.from(await this.backend.read(which === 'best' ? this.best : this.model.params));
  }

  /**
   * The run's state now, copied (the weights are read back: a sync point on the GPU).
   * `optimizer`: also AdamW's moments and counter (and the KL reference, when there is one).
   */
  async snapshot(opts: { optimizer?: boolean } = {}): Promise<TrainerSnapshot> {
    const snap: TrainerSnapshot = {
      step: this.stepCount, config: { ...this.config }, weights: await this.readWeights('last'), evals: this.evals.map((e) => ({ ...e })),
      bestEval: this.bestEval ? { ...this.bestEval } : null, lambdaTok: this.lambdaTok, flags: this.flags.map((f) => ({ ...f })), skippedUpdates: this.skippedUpdates,
    };
    if (opts.optimizer) {
      snap.optimizer = await this.opt.readState();
      if (this.ref) snap.reference = Float32Array.from(await this.backend.read(this.ref));
    }
    return snap;
  }

  /** Puts a snapshot's weights and counters in this Trainer (built for the same model); the snapshot is copied, not kept. */
  restore(s: TrainerSnapshot): void {
    const n = this.model.numParams;
    if (s.weights.length !== n) throw new Error(`restore: the snapshot has ${s.weights.length} weights; this model has ${n}`);
    if (s.reference && s.reference.length !== n) throw new Error(`restore: the snapshot's reference has ${s.reference.length} weights; this model has ${n}`);
    // the optimizer first: a state that does not fit throws before anything changed
    this.opt.writeState(s.optimizer ?? { m: new Float32Array(n), v: new Float32Array(n), step: 0 });
    this.backend.write(this.model.params, s.weights);
    if (this.ref) { this.backend.free(this.ref); this.ref = null; }
    if (s.reference) { this.ref = this.backend.alloc(n); this.backend.write(this.ref, s.reference); }
    this.config = { ...s.config };
    this.opt.config = { ...this.opt.config, lr: s.config.lr, gradClip: s.config.gradClip };
    this.stepCount = s.step;
    this.evals.length = 0;
    for (const e of s.evals) this.evals.push({ ...e }); // a loop: spreading 10^5 arguments overflows the stack
    // bestEval stays one of `evals` (evaluate() and the page compare it by identity)
    this.bestEval = s.bestEval ? this.evals.find((e) => e.step === s.bestEval!.step) ?? { ...s.bestEval } : null;
    this.lambdaTok = s.lambdaTok;
    this.flags.length = 0;
    for (const f of s.flags) this.flags.push({ ...f });
    this.skippedUpdates = s.skippedUpdates;
  }

  destroy(): void {
    for (const p of this.policies) { p.gen.destroy(); p.model.destroy(); }
    this.objective.destroy();
    this.opt.destroy();
    this.backend.free(this.best);
    if (this.ref) this.backend.free(this.ref);
  }
}
