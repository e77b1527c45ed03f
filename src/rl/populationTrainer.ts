// A population in lock step (docs/populations.md): K members of one shape as one GPT of
// K members, so each phase of a step records one run's dispatches whatever K:
// one rollout of every member's episodes (member-major; each member samples with its own
// seed, so it draws what its lone run draws), rewards and the dual lambda per member with
// its own live fields, one set of advantages, and minibatch updates through the stacked
// model and optimizer. Each member gets today's Trainer's StepMetrics and EvalRecords.
// Which members stack is populationPlan.ts's call.
import type { Backend, Tensor } from '../backend';
import type { BaselineResult, Environment } from '../envs/types';
import { GPT } from '../model/gpt';
import { AdamW } from '../model/optimizer';
import { initParams, type GPTConfig } from '../model/params';
import { rlStepFlops } from '../model/flops';
import { mulberry32 } from '../model/random';
import { checkLiveChange, validateConfig, type RunConfig } from '../config';
import { InputError } from '../errors';
import { betterEval } from './pareto';
import { dualUpdate, messageParts, reward, rewardWeights, type RewardParts } from './reward';
import { collapseFlag, firstNonFiniteTensor } from './faults';
import { detectDegenerate, type DegenerateVerdict } from './degenerate';
import { Generator, rollout, sequencesByEpisode, type Rollout } from './rollout';
import type { ObjectiveStats } from './objective';
import { PopulationObjective, type MemberBatch } from './populationObjective';
import { checkStackable, MEMBER_FIELDS } from './populationPlan';
import { EVAL_SEED, envMeans, type TrainerSnapshot, evalRecordOf, mean, meanOrNaN, flatGroups, rowLength, sequencesToBatch, type EvalRecord, type Flag, type StepMetrics } from './trainer';

/** One member's run: what a lone Trainer keeps of it. */
export interface Member {
  config: RunConfig;
  lambdaTok: number;
  readonly evals: EvalRecord[];
  bestEval: EvalRecord | null;
  readonly flags: Flag[];
  skippedUpdates: number;
  degenerate: DegenerateVerdict | null;
  lastEnvMetrics: Record<string, number>;
  /** Each minibatch of the last step: the member's loss rows and the row length its lone run would use. */
  lossShapes: { rows: number; T: number }[];
  /** The member's share of the last step's rollout and its rewards, and of the last eval (what a lone Trainer keeps for transcripts). */
  lastRollout: { rollout: Rollout; rewards: RewardParts[] } | null;
  lastEval: { rollout: Rollout } | null;
}

function std(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Member k's share of a population rollout: its episodes renumbered from 0, as its lone rollout numbers them. */
export function memberRollout<State>(ro: Rollout<State>, k: number, episodes: number): Rollout<State> {
  const from = k * episodes, to = from + episodes;
  return {
    states: ro.states.slice(from, to), scores: ro.scores.slice(from, to),
    sequences: ro.sequences.filter((s) => s.episode >= from && s.episode < to).map((s) => ({ ...s, episode: s.episode - from })),
  };
}

export class PopulationTrainer<Task = unknown, State = unknown> {
  readonly K: number;
  readonly model: GPT; // K members
  readonly members: Member[];
  private readonly gen: Generator;
  private readonly opt: AdamW;
  private readonly objective: PopulationObjective;
  private ref: Tensor | null = null; // the members' reference weights (start of RL), when beta > 0
  private readonly best: Tensor; // each member's weights at its best eval
  private readonly evalTasks: Task[];
  stepCount = 0;
  readonly phases = { rollout: 0, reward: 0, update: 0, eval: 0 };

  /** `init`: each member's start (or one for all); absent, member k starts from nanoGPT's init with its own seed. */
  constructor(readonly backend: Backend, readonly env: Environment<Task, State>, configs: RunConfig[], init?: Float32Array | (Float32Array | undefined)[]) {
    checkStackable(configs, env);
    this.K = configs.length;
    const c0 = configs[0];
    const gpt: GPTConfig = { nLayer: c0.nLayer, nHead: c0.nHead, nEmbd: c0.nEmbd, blockSize: env.blockSize, vocabSize: env.vocab.length };
    if (Array.isArray(init) && init.length !== this.K) throw new Error(`a population of ${this.K} members got ${init.length} starts`);
    const starts = configs.map((c, k) => (Array.isArray(init) ? init[k] : init) ?? initParams(gpt, c.seed));
    this.model = new GPT(backend, gpt, starts);
    this.gen = new Generator(backend, this.model);
    this.opt = new AdamW(backend, this.model, { lr: c0.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: c0.weightDecay, gradClip: c0.gradClip });
    this.objective = new PopulationObjective(backend);
    this.best = backend.alloc(this.K * this.model.numParams);
    backend.copy(this.best, this.model.params);
    this.members = configs.map((c) => ({
      config: { ...c }, lambdaTok: c.lambdaTok, evals: [], bestEval: null, flags: [], skippedUpdates: 0, degenerate: null, lastEnvMetrics: {}, lossShapes: [],
      lastRollout: null, lastEval: null,
    }));
    this.evalTasks = env.sampleTasks('eval', c0.evalEpisodes, EVAL_SEED, 0);
  }

  /** The rows a rollout or eval generates at once, over all members (Infinity: all of them in one go). */
  set rolloutRows(n: number) { this.gen.maxRows = n; }

  /**
   * A live change from the next step, to member `k` or to every member (null). A field the members share
   * (populationPlan.ts) changes for all or for none.
   */
  setHyperparams(k: number | null, partial: Partial<RunConfig>): void {
    checkLiveChange(Object.keys(partial));
    if (k !== null && (!Number.isInteger(k) || k < 0 || k >= this.K)) throw new InputError(`member ${k} does not exist (members 0..${this.K - 1})`);
    const shared = Object.keys(partial).filter((key) => !MEMBER_FIELDS.has(key as keyof RunConfig));
    if (k !== null && shared.length) throw new InputError(`${shared.join(', ')}: one value for every member of a stacked population; change it for all members`);
    for (const i of k === null ? this.members.keys() : [k]) {
      const m = this.members[i], next = validateConfig(partial as Record<string, unknown>, m.config);
      if (partial.lambdaTok !== undefined) m.lambdaTok = next.lambdaTok;
      m.config = next;
    }
    this.opt.config = { ...this.opt.config, gradClip: this.members[0].config.gradClip };
  }

  /** Scripted baselines on the eval tasks (the same for every member). */
  baselines(): BaselineResult[] {
    this.baselineCache ??= this.env.baselines?.(this.evalTasks, EVAL_SEED) ?? [];
    return this.baselineCache;
  }
  private baselineCache: BaselineResult[] | null = null;

  /** Runs `tasks` of every member (member-major, `perMember` tasks each) in one rollout. */
  private async rolloutAll(tasks: Task[], repeats: number, temperature: number, seed: number, counterBase: number): Promise<Rollout<State>> {
    this.gen.population = { episodesPerMember: (tasks.length / this.K) * repeats, seeds: this.members.map((m) => m.config.seed) };
    return rollout(this.env, () => this.gen, tasks, repeats, temperature, seed, counterBase);
  }

  /** One lock-step RL step of every member; each member's metrics as its lone Trainer's. */
  async step(): Promise<StepMetrics[]> {
    // settings are read once: a live change made during this step applies to the next one
    const cs = this.members.map((m) => m.config), c0 = cs[0], K = this.K, b = this.backend, t0 = performance.now(), step = this.stepCount;
    const ws = this.members.map((m) => rewardWeights(m.config, m.lambdaTok));
    const P = c0.promptsPerStep, G = c0.groupSize, E = P * G;
    if (c0.beta > 0 && !this.ref) { this.ref = b.alloc(K * this.model.numParams); b.copy(this.ref, this.model.params); }
    const tasks = cs.flatMap((c) => this.env.sampleTasks('train', P, c.seed, step * P));
    const ro = await this.rolloutAll(tasks, G, c0.temperature, c0.seed, step * 4096);
    const tRollout = performance.now();
    const mine = this.members.map((_, k) => memberRollout(ro, k, E));
    const byEpisode = sequencesByEpisode(ro); // global episodes: the stacked batch's rows
    const parts: RewardParts[][] = mine.map((r, k) => {
      const own = sequencesByEpisode(r);
      return r.scores.map((sc, e) => reward(sc.rTask, messageParts(own[e], this.env.eos, cs[k].overlongCache), ws[k], sc.reward));
    });
    mine.forEach((r, k) => { this.members[k].lastEnvMetrics = envMeans(r.scores); this.members[k].lastRollout = { rollout: r, rewards: parts[k] }; });
    // a one-slot env: every turn is the trained policy's; a continued sequence's last row carries its earlier turns
    const lossByEpisode = byEpisode.map((seqs) => seqs.filter((q) => !q.superseded));

    const rewards = Float32Array.from(parts.flat().map((p) => p.reward));
    const groupStart = Int32Array.from({ length: K * P + 1 }, (_, g) => g * G);
    const fracZeroStd = parts.map((ps) => { const flat = flatGroups(ps.map((p) => p.reward), G); return flat.filter(Boolean).length / Math.max(1, flat.length); });
    const tReward = performance.now();
    this.objective.advantages(rewards, groupStart, c0.advantage);

    // each member's minibatches split its whole episodes in its own seeded order, as its lone run's
    const orders = cs.map((c) => {
      const all = Array.from({ length: E }, (_, i) => i), rand = mulberry32(c.seed * 7919 + step);
      for (let i = E - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [all[i], all[j]] = [all[j], all[i]]; }
      return all;
    });
    const nMb = Math.min(c0.minibatches, E);
    const mbStats: ObjectiveStats[][] = this.members.map(() => []), gradNorms: number[][] = this.members.map(() => []);
    for (const m of this.members) m.lossShapes = [];
    for (let mb = 0; mb < nMb; mb++) {
      const lo = Math.floor((mb * E) / nMb), hi = Math.floor(((mb + 1) * E) / nMb);
      const own = orders.map((order, k) => order.slice(lo, hi).flatMap((e) => lossByEpisode[k * E + e]));
      const empty = own.findIndex((s) => s.length === 0);
      if (empty >= 0) {
        // a lone run skips such a minibatch (no update); stacked members cannot skip alone
        if (own.every((s) => s.length === 0)) continue;
        throw new Error(`population step ${step}: member ${empty} has no loss rows in minibatch ${mb} while others do; run the sweep with --sequential`);
      }
      const seqs = own.flat();
      const batch = sequencesToBatch(seqs, (e) => e, rowLength(seqs, this.model.config.blockSize));
      const memberBatch: MemberBatch = { batch, seqs: own.map((s) => s.length), tMax: own.map((s) => Math.max(1, ...s.map((q) => q.maxNew))) };
      own.forEach((s, k) => this.members[k].lossShapes.push({ rows: s.length, T: rowLength(s, this.model.config.blockSize) }));
      cs.forEach((c, k) => { this.opt.memberLr[k] = c.lr; });
      this.model.zeroGrad();
      this.objective.recordMinibatch(this.model, memberBatch, c0, this.ref ?? undefined);
      this.opt.measure();
      this.opt.apply(); // a member whose gradient is not finite keeps its weights (the guard, per member)
      b.submit();
      const stats = await this.objective.readStats(memberBatch, c0, this.opt.normSq, fracZeroStd);
      for (let k = 0; k < K; k++) {
        const s = stats[k], gn = Math.sqrt(s.gradNormSq), m = this.members[k];
        if (!Number.isFinite(gn) || !Number.isFinite(s.loss)) {
          m.skippedUpdates++;
          const bad = Number.isFinite(gn) ? null : firstNonFiniteTensor(this.model.config, await this.model.readMember(k, this.model.grads));
          const what = bad ? `a non-finite gradient (first in ${bad})` : Number.isFinite(s.loss) ? 'a non-finite gradient' : 'a non-finite loss';
          m.flags.push({ kind: 'nonfinite-update', step, message: `step ${step}: ${what}; the update was skipped (weights untouched)` });
        } else { mbStats[k].push(s); gradNorms[k].push(gn); }
      }
    }
    this.stepCount++;
    const tUpdate = performance.now();
    Object.assign(this.phases, { rollout: tRollout - t0, reward: tReward - tRollout, update: tUpdate - tReward });
    const ms = performance.now() - t0;
    return this.members.map((m, k) => {
      const c = cs[k], ps = parts[k], seqsK = mine[k].sequences;
      const meanTokens = mean(ps.map((p) => p.tokens)), lambdaUsed = m.lambdaTok;
      if (c.lambdaMode === 'budget') m.lambdaTok = dualUpdate(m.lambdaTok, meanTokens, c.budget, c.dualEta, c.lambdaMax);
      const genTokens = seqsK.reduce((a, s) => a + s.generated.length, 0);
      const silentTurns = seqsK.filter((s) => s.message && s.generated[0] === this.env.eos).length;
      const messageTurns = seqsK.filter((s) => s.message).length;
      const st = mbStats[k], avg = (key: 'policyLoss' | 'kl' | 'entropy' | 'clipFrac' | 'ratioMean' | 'fracZeroStd') => meanOrNaN(st.map((s) => s[key]));
      return {
        step, reward: mean(ps.map((p) => p.reward)), reward_std: std(ps.map((p) => p.reward)), r_task: mean(ps.map((p) => p.rTask)),
        tokens: meanTokens, turns: mean(ps.map((p) => p.turns)), repetition: mean(ps.map((p) => p.repetition)), lambda_tok: lambdaUsed,
        frac_zero_std: avg('fracZeroStd'), policy_loss: avg('policyLoss'), kl: avg('kl'), entropy: avg('entropy'), clip_frac: avg('clipFrac'),
        ratio_mean: avg('ratioMean'), ratio_min: Math.min(...st.map((s) => s.ratioMin), Infinity), ratio_max: Math.max(...st.map((s) => s.ratioMax), -Infinity),
        grad_norm: meanOrNaN(gradNorms[k]), seq_len_mean: genTokens / Math.max(1, seqsK.length), silence_rate: silentTurns / Math.max(1, messageTurns),
        step_time_ms: ms, tokens_per_s: genTokens / (ms / 1000), skipped_updates: m.skippedUpdates, groups_dropped: 0, groups_refilled: 0, // dynamic sampling does not stack (populationPlan)
        step_flops: rlStepFlops(this.model.config, {
          sequences: seqsK.map((q) => ({ context: q.context.length, generated: q.generated.length })), minibatches: m.lossShapes, refForward: this.ref !== null,
        }),
      };
    });
  }

  /** Greedy evaluation of every member on the same held-out set in one rollout; tracks each member's best checkpoint. */
  async evaluate(): Promise<EvalRecord[]> {
    const t0 = performance.now(), n = this.evalTasks.length, b = this.backend, N = this.model.numParams;
    const ro = await this.rolloutAll(this.members.flatMap(() => this.evalTasks), 1, 0, EVAL_SEED, 0);
    this.phases.eval = performance.now() - t0;
    return this.members.map((m, k) => {
      const own = memberRollout(ro, k, n);
      m.lastEval = { rollout: own };
      const rec = evalRecordOf(this.env, own, this.stepCount, m.config.overlongCache, rewardWeights(m.config, m.lambdaTok));
      const collapse = collapseFlag(m.evals[m.evals.length - 1], rec);
      if (collapse) m.flags.push(collapse);
      m.evals.push(rec);
      if (betterEval(rec, m.bestEval)) {
        m.bestEval = rec;
        b.copy(b.view(this.best, k * N, N), b.view(this.model.params, k * N, N));
      }
      this.checkDegenerate(m);
      return rec;
    });
  }

  /** As the Trainer's: flags a member once when its policy degenerates (envs that report actionRate). */
  private checkDegenerate(m: Member): void {
    if (m.evals.length === 0 || m.evals[0].actionRate === undefined) return;
    const measure = this.env.taskMeasure;
    const records = m.evals.map((e) => ({
      step: e.step, reward: e.reward, actionRate: e.actionRate, messageRate: e.messageRate ?? 0, task: (measure ? e[measure.key] : undefined) ?? e.accuracy,
    }));
    m.degenerate = detectDegenerate(records, { taskLabel: measure && m.evals[0][measure.key] !== undefined ? measure.label : 'accuracy' });
    if (m.degenerate.degenerate && !m.flags.some((f) => f.kind === 'degenerate')) {
      m.flags.push({ kind: 'degenerate', step: this.stepCount, message: `degenerate policy: ${m.degenerate.reason} The reward is being maximized without doing the task; check the reward's weights (see the preset's explanation).` });
    }
  }

  /** Member k's weights of the last step or of its best eval, read back. */
  async readWeights(k: number, which: 'last' | 'best'): Promise<Float32Array> {
    return this.model.readMember(k, which === 'best' ? this.best : this.model.params);
  }

  /**
   * Member k's run as a lone Trainer's snapshot (TrainerSnapshot): its weights and counters, and with `optimizer` its
   * share of AdamW's moments and the KL reference, so a lone Trainer can resume it (the page's Resume of a member).
   */
  async memberSnapshot(k: number, opts: { optimizer?: boolean } = {}): Promise<TrainerSnapshot> {
    const m = this.members[k];
    if (!m) throw new InputError(`member ${k} does not exist (members 0..${this.K - 1})`);
    const snap: TrainerSnapshot = {
      step: this.stepCount, config: { ...m.config }, weights: await this.readWeights(k, 'last'), evals: m.evals.map((e) => ({ ...e })),
      bestEval: m.bestEval ? { ...m.bestEval } : null, lambdaTok: m.lambdaTok, flags: m.flags.map((f) => ({ ...f })), skippedUpdates: m.skippedUpdates,
    };
    if (opts.optimizer) {
      snap.optimizer = await this.opt.readState(k);
      if (this.ref) snap.reference = await this.model.readMember(k, this.ref);
    }
    return snap;
  }

  destroy(): void {
    this.gen.destroy();
    this.model.destroy();
    this.objective.destroy();
    this.opt.destroy();
    this.backend.free(this.best);
    if (this.ref) this.backend.free(this.ref);
  }
}

