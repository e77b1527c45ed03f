// The Trainer: rollouts -> reward -> advantages -> GSPO/GRPO minibatch updates, the dual
// lambda, metrics (docs/rl.md section 7), greedy evaluation, the Pareto frontier and
// best/last checkpoints. Runs unchanged in the worker and the CLI. A run is K >= 1 members
// (docs/populations.md): K members of one shape are one GPT of K members, so each phase of
// a step is one run's dispatches whatever K (one member-major rollout, each member sampling
// with its own seed; rewards and the dual lambda per member; one set of advantages; stacked
// minibatch updates). What K > 1 cannot hold (several slots, a curriculum, dynamic sampling,
// batch advantages, per-member shapes) populationPlan.ts refuses, at construction and on every live change.
// A step's update phase (minibatches, pi_old, the optimizer's updates) is update.ts.
import type { Backend, Tensor } from '../backend';
import type { BaselineResult, CurriculumSpec, Environment } from '../envs/types';
import { GPT } from '../model/gpt';
import { AdamW } from '../model/optimizer';
import { initParams, type GPTConfig } from '../model/params';
import type { RunConfig } from '../config';
import { InputError } from '../contract/errors';
import { PolicyObjective } from './objective';
import { oldLogpOf, type OldLogpSource } from './oldLogp';
import { dualUpdate, lambdaAt, messageParts, reward, rewardWeights, type RewardParts } from './reward';
import { createEnv } from '../envs/registry';
import { curriculumUpdate, type CurriculumState } from './curriculum';
import { Generator, rollout, sequencesByEpisode, type Rollout, type Sequence } from './rollout';
import { EVAL_SEED, envMeans, evalRecordOf, mean, type EvalRecord, type StepHooks, type StepMetrics, type TrainerSnapshot } from './runRecord';
import { concatRollouts, flatGroups, keptGroups, memberRollouts, REFILL_INDEX, refillSeed } from './stepBatch';
import { memberOrders, minibatchPlans, runUpdates } from './update';
import { slotNames, type TrainerSlots } from './slots';
import { Member, stepMetricsOf } from './member';
import { checkStackable, plannedConfigs } from './populationPlan';

interface Policy { slot: string; model: GPT; gen: Generator; trainable: boolean }
/** A population's starts: each member's weights (absent: nanoGPT's init with the member's seed). */
export type MemberStarts = (Float32Array | undefined)[];
export class Trainer<Task = unknown, State = unknown> {
  /** Members (1: a lone run). */
  readonly K: number;
  readonly members: Member<State>[];
  /** The trainable slot's model (the one the optimizer updates), of K members. */
  readonly model: GPT;
  readonly policies: Policy[];
  private readonly opt: AdamW;
  private readonly objective: PolicyObjective;
  private ref: Tensor | null = null; // reference weights (start of RL), when beta > 0
  private best: Tensor; // each member's weights at its best eval
  private evalTasks: Task[];
  stepCount = 0;
  /** Curriculum stage changes (the env's CurriculumSpec, e.g. philosophers' N = 3 -> 5 -> 7); a lone run's. */
  readonly curriculum: { step: number; stage: number; label: string }[] = [];
  private curriculumState: CurriculumState | null = null;
  /** Wall time of the last step's phases and of the last eval, ms (for bench and the UI). */
  readonly phases = { rollout: 0, reward: 0, update: 0, eval: 0 };
  /** Minibatch updates the last step made (fewer than `minibatches` when it was asked to stop early). */
  lastStepUpdates = 0;
  /** Where pi_old comes from (src/rl/oldLogp.ts); 'forward' is TRL's old-logprob pass, kept as the oracle of the reuse. */
  oldLogp: OldLogpSource = 'sampling';
  /** The last step's minibatches whose pi_old was the sampler's (a forward saved each) or a forward's. */
  oldLogpPasses = { reused: 0, forward: 0 };

  /**
   * `config`: one run's, or each member's (a population; populationPlan.ts says which stack). `init`: the weights of
   * the only slot (one-slot envs), each slot's start (a lone run), or each member's start (a population).
   */
  constructor(readonly backend: Backend, public env: Environment<Task, State>, config: RunConfig | readonly RunConfig[], init?: Float32Array | TrainerSlots | MemberStarts) {
    const configs = Array.isArray(config) ? [...config] as RunConfig[] : [config as RunConfig];
    if (configs.length > 1) checkStackable(configs, env);
    if (configs.length === 0) throw new InputError('a run needs at least one member');
    this.K = configs.length;
    const c0 = configs[0];
    const gpt: GPTConfig = { nLayer: c0.nLayer, nHead: c0.nHead, nEmbd: c0.nEmbd, blockSize: env.blockSize, vocabSize: env.vocab.length };
    const names = slotNames(env);
    let slots: TrainerSlots;
    if (Array.isArray(init)) {
      if (init.length !== this.K) throw new Error(`a population of ${this.K} members got ${init.length} starts`);
      if (names.length > 1) throw new Error(`${env.id} has slots ${names.join(', ')}: give each slot its start`);
      slots = { [names[0]]: { trainable: true } };
    } else if (init === undefined || init instanceof Float32Array) {
      if (names.length > 1) throw new Error(`${env.id} has slots ${names.join(', ')}: give each slot its start`);
      slots = { [names[0]]: { trainable: true, weights: init } };
    } else {
      slots = init;
      for (const n of names) if (!slots[n]) throw new Error(`${env.id}: no start given for slot "${n}"`);
    }
    if (names.filter((n) => slots[n].trainable).length > 1) throw new Error(`${env.id}: only one trainable slot is supported`);
    this.policies = names.map((slot) => {
      const model = this.K === 1 ? new GPT(backend, gpt, slots[slot].weights, c0.seed)
        : new GPT(backend, gpt, configs.map((c, k) => (Array.isArray(init) ? init[k] : slots[slot].weights) ?? initParams(gpt, c.seed)));
      return { slot, model, gen: new Generator(backend, model), trainable: slots[slot].trainable };
    });
    this.model = (this.policies.find((p) => p.trainable) ?? this.policies[0]).model;
    this.opt = new AdamW(backend, this.model, { lr: c0.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: c0.weightDecay, gradClip: c0.gradClip });
    this.objective = new PolicyObjective(backend);
    this.best = backend.alloc(this.K * this.model.numParams);
    backend.copy(this.best, this.model.params);
    this.members = configs.map((c) => new Member<State>({ ...c }));
    this.evalTasks = env.sampleTasks('eval', c0.evalEpisodes, EVAL_SEED, 0);
    if (env.curriculum) this.curriculumState = { stage: env.curriculum.stage, streak: 0 };
  }

  // A lone run's view: member 0 (what the single-run callers read and write).
  get config(): RunConfig { return this.members[0].config; }
  set config(c: RunConfig) { this.members[0].config = c; }
  get lambdaTok(): number { return this.members[0].lambdaTok; }
  set lambdaTok(x: number) { this.members[0].lambdaTok = x; }
  get skippedUpdates(): number { return this.members[0].skippedUpdates; }
  set skippedUpdates(n: number) { this.members[0].skippedUpdates = n; }
  get evals() { return this.members[0].evals; }
  get bestEval() { return this.members[0].bestEval; }
  get flags() { return this.members[0].flags; }
  get degenerate() { return this.members[0].degenerate; }
  get lossShapes() { return this.members[0].lossShapes; }
  get lastRollout() { return this.members[0].lastRollout; }
  get lastEnvMetrics() { return this.members[0].lastEnvMetrics; }
  get lastEval() { return this.members[0].lastEval; }
  /** Rows (sequences) that entered the loss in the last step, over every member. */
  get lossRows(): number { return this.members.reduce((a, m) => a + m.lossRows, 0); }

  private member(k: number): Member<State> {
    if (!Number.isInteger(k) || k < 0 || k >= this.K) throw new InputError(`member ${k} does not exist (members 0..${this.K - 1})`);
    return this.members[k];
  }

  private curriculumOptions(spec: CurriculumSpec) {
    const at = this.curriculumState!.stage, stages = spec.stages.filter((n) => n >= at);
    return { stages: stages.includes(at) ? stages : [at, ...stages], threshold: spec.threshold, patience: spec.patience };
  }

  /** After an eval: the curriculum may advance (a new env, eval set and baselines; the best checkpoint restarts at the new stage). */
  private advanceCurriculum(rec: EvalRecord): void {
    const spec = this.env.curriculum, m = this.members[0];
    if (!this.curriculumState || !spec) return;
    const next = curriculumUpdate(this.curriculumState, rec.accuracy, this.curriculumOptions(spec));
    this.curriculumState = { stage: next.stage, streak: next.streak };
    if (!next.advanced) return;
    m.config = { ...m.config, ...spec.configAt(next.stage) };
    this.env = createEnv(m.config) as Environment<Task, State>;
    this.evalTasks = this.env.sampleTasks('eval', m.config.evalEpisodes, EVAL_SEED, 0);
    this.baselineCache = null;
    m.bestEval = null; // evals at different stages do not compare
    this.curriculum.push({ step: this.stepCount, stage: next.stage, label: spec.label(next.stage) });
  }

  private readonly gens = (slot: string): Generator => {
    const p = this.policies.find((x) => x.slot === slot);
    if (!p) throw new Error(`${this.env.id}: no policy slot "${slot}"`);
    return p.gen;
  };

  /** The rows a rollout or eval generates at once, over all members (the memory budget's chunk on a small device; Infinity: all). */
  set rolloutRows(n: number) { for (const p of this.policies) p.gen.maxRows = n; }
  get rolloutRows(): number { return this.policies[0].gen.maxRows; }

  private trainable(slot: string): boolean { return this.policies.some((p) => p.slot === slot && p.trainable); }

  /** The rows an episode puts in the loss: the trainable slot's turns; a continued sequence's last row carries its earlier turns. */
  lossSequences(episode: Sequence[]): Sequence[] {
    return episode.filter((q) => this.trainable(q.slot) && !q.superseded);
  }

  /** Scripted baselines on the eval tasks (computed once; the same for every member). */
  baselines(): BaselineResult[] {
    this.baselineCache ??= this.env.baselines?.(this.evalTasks, EVAL_SEED) ?? [];
    return this.baselineCache;
  }
  private baselineCache: BaselineResult[] | null = null;

  /**
   * Changes applied at the next step without a reset, to member `member` or to every member (null); other fields
   * need a new Trainer. A population checks the result against the stacking rules first: a change they refuse
   * throws an InputError naming the member and field, and changes nothing.
   */
  setHyperparams(partial: Partial<RunConfig>, member: number | null = null): void {
    if (member !== null) this.member(member);
    this.setMemberChanges(this.members.map((_, k) => (member === null || k === member ? partial : {})));
  }

  /** Each member's change at once (`partials[k]` to member k), checked whole before any applies. */
  setMemberChanges(partials: readonly Partial<RunConfig>[]): void {
    const next = this.plannedConfigs(partials);
    this.members.forEach((m, k) => {
      if (partials[k].lambdaTok !== undefined) m.lambdaTok = next[k].lambdaTok;
      m.config = next[k];
    });
    const c0 = this.members[0].config;
    this.opt.config = { ...this.opt.config, lr: c0.lr, gradClip: c0.gradClip }; // K > 1: each member's lr goes in memberLr
  }

  /** The members' configs after these changes, or an InputError naming the member and field that cannot change so. */
  plannedConfigs(partials: readonly Partial<RunConfig>[]): RunConfig[] {
    return plannedConfigs(this.members.map((m) => m.config), partials, this.env);
  }

  /** Runs each member's tasks (member-major, the same count each) in one rollout. */
  private rolloutAll(tasks: Task[], repeats: number, temperature: number, seed: number, counterBase: number): Promise<Rollout<State>> {
    if (this.K > 1) this.policies[0].gen.population = { episodesPerMember: (tasks.length / this.K) * repeats, seeds: this.members.map((m) => m.config.seed) };
    // frozen slots are part of the environment: they decode greedily, so their sampling noise does not blur the reward
    const temperatureOf = (slot: string) => (this.trainable(slot) ? temperature : 0);
    return rollout(this.env, this.gens, tasks, repeats, temperatureOf, seed, counterBase);
  }

  /** One RL step of a lone run (K = 1); a population steps with stepAll. */
  async step(hooks: StepHooks = {}): Promise<StepMetrics> {
    if (this.K > 1) throw new Error(`a population of ${this.K} members steps with stepAll()`);
    return (await this.stepAll(hooks))[0];
  }

  /**
   * One RL step of every member: P prompts x G episodes each, rewards, advantages, `minibatches` optimizer updates.
   * `hooks.stopRequested` is asked between minibatches (after the first): a pause then keeps the
   * updates made so far and ends the step, instead of waiting for all of them.
   */
  async stepAll(hooks: StepHooks = {}): Promise<StepMetrics[]> {
    // settings are read once: a live change made during this step applies to the next one
    const cs = this.members.map((m) => m.config), c0 = cs[0], K = this.K, b = this.backend, t0 = performance.now(), step = this.stepCount;
    if (!this.policies.some((p) => p.trainable)) throw new Error('no trainable policy slot: this run can only be evaluated');
    if (c0.beta > 0 && !this.ref) { this.ref = b.alloc(K * this.model.numParams); b.copy(this.ref, this.model.params); }
    const P = c0.promptsPerStep, G = c0.groupSize;
    const lambdas = this.members.map((m, k) => lambdaAt(cs[k], step, m.lambdaTok));
    const ws = this.members.map((m, k) => rewardWeights(m.config, lambdas[k]));
    const partsOf = (r: Rollout<State>, k: number, byEpisode = sequencesByEpisode(r)) =>
      byEpisode.map((seqs, e) => reward(r.scores[e].rTask, messageParts(seqs, this.env.eos, cs[k].overlongCache), ws[k], r.scores[e].reward));
    let ro = await this.rolloutAll(cs.flatMap((c) => this.env.sampleTasks('train', P, c.seed, step * P)), G, c0.temperature, c0.seed, step * 4096);
    // the sequences by global episode, once: member k's are a slice (its rollout's sequences are copies of these)
    let byEpisode = sequencesByEpisode(ro);
    let mine = K === 1 ? [ro] : memberRollouts(ro, K, P * G);
    let parts = mine.map((r, k) => partsOf(r, k, K === 1 ? byEpisode : byEpisode.slice(k * P * G, (k + 1) * P * G)));
    // dynamic sampling's refill (DAPO; a lone run's): while fewer than P groups carry signal, roll out P more prompts,
    // at most refillRounds times. Every round's episodes are samples of the same policy, so the step's metrics cover them all.
    if (c0.dynamicSampling === 'on') {
      const signal = (ps: RewardParts[]) => flatGroups(ps.map((p) => p.reward), G).filter((f) => !f).length;
      let have = signal(parts[0]);
      for (let r = 1; r <= c0.refillRounds && have < P; r++) {
        const more = this.env.sampleTasks('train', P, c0.seed, r * REFILL_INDEX + step * P);
        const extra = await this.rolloutAll(more, G, c0.temperature, refillSeed(c0.seed, r), step * 4096);
        const extraParts = partsOf(extra, 0);
        ro = concatRollouts(ro, extra);
        parts = [[...parts[0], ...extraParts]];
        have += signal(extraParts);
      }
      mine = [ro];
      byEpisode = sequencesByEpisode(ro);
    }
    const tRollout = performance.now();
    hooks.progress?.(0, c0.minibatches);
    const E = mine[0].states.length; // each member's episodes
    const lossByEpisode = byEpisode.map((seqs) => this.lossSequences(seqs)); // global episodes: the batch's rows
    this.members.forEach((m, k) => { m.lastRollout = { rollout: mine[k], rewards: parts[k] }; m.lastEnvMetrics = envMeans(mine[k].scores); });

    // advantages over the whole batch, on the device (groups never span members); minibatches gather from them
    const rewards = new Float32Array(parts.reduce((n, ps) => n + ps.length, 0));
    let at = 0;
    for (const ps of parts) for (const p of ps) rewards[at++] = p.reward;
    const groupStart = Int32Array.from({ length: rewards.length / G + 1 }, (_, g) => g * G);
    const tReward = performance.now();
    this.objective.advantages(rewards, groupStart, c0.advantage);

    // each member's minibatches split its whole episodes in its own seeded order, as its lone run's (src/rl/update.ts)
    const flat = c0.dynamicSampling === 'on' ? flatGroups(rewards, G) : null;
    const choice = flat ? keptGroups(flat, P, P) : null;
    const orders = memberOrders(cs, E, G, step, choice ? choice.kept : null);
    const fracZeroStd = K === 1 ? [] : parts.map((ps) => { const f = flatGroups(ps.map((p) => p.reward), G); return f.filter(Boolean).length / Math.max(1, f.length); });
    const nMb = Math.min(c0.minibatches, orders[0].length);
    for (const m of this.members) { m.lossShapes = []; m.mbStats = []; m.gradNorms = []; }
    this.lastStepUpdates = 0;
    const plans = minibatchPlans(orders, lossByEpisode, E, nMb, this.model.config.blockSize, step);
    this.oldLogpPasses = await oldLogpOf(b, this.model, plans, c0.temperature, this.oldLogp);
    const { model, opt, objective, members, ref } = this;
    await runUpdates({ backend: b, model, opt, objective, members, ref }, plans, cs, step, fracZeroStd, hooks, () => { this.lastStepUpdates++; });
    this.stepCount++;
    const tUpdate = performance.now();
    Object.assign(this.phases, { rollout: tRollout - t0, reward: tReward - tRollout, update: tUpdate - tReward });
    const ms = performance.now() - t0;
    return this.members.map((m, k) => {
      const c = cs[k], lambdaUsed = lambdas[k];
      if (c.lambdaMode === 'budget') m.lambdaTok = dualUpdate(m.lambdaTok, mean(parts[k].map((p) => p.tokens)), c.budget, c.dualEta, c.lambdaMax);
      return stepMetricsOf(m, {
        step, ms, parts: parts[k], rollout: mine[k], eos: this.env.eos, lambdaUsed, model: this.model.config, refForward: this.ref !== null,
        flat, refilled: choice ? choice.refilled : 0,
      });
    });
  }

  /** Greedy evaluation of a lone run (K = 1); a population evaluates with evaluateAll. */
  async evaluate(): Promise<EvalRecord> {
    if (this.K > 1) throw new Error(`a population of ${this.K} members evaluates with evaluateAll()`);
    return (await this.evaluateAll())[0];
  }

  /** Greedy evaluation of every member on the same held-out set, in one rollout; tracks each member's best checkpoint. */
  async evaluateAll(): Promise<EvalRecord[]> {
    const t0 = performance.now(), n = this.evalTasks.length, b = this.backend, N = this.model.numParams;
    const ro = await this.rolloutAll(this.members.flatMap(() => this.evalTasks), 1, 0, EVAL_SEED, 0);
    this.phases.eval = performance.now() - t0;
    const since = this.curriculum.length ? this.curriculum[this.curriculum.length - 1].step : -1;
    const owns = this.K === 1 ? [ro] : memberRollouts(ro, this.K, n);
    const recs = this.members.map((m, k) => {
      const own = owns[k];
      m.lastEval = { rollout: own };
      const rec = evalRecordOf(this.env, own, this.stepCount, m.config.overlongCache, rewardWeights(m.config, m.lambdaTok));
      if (m.recordEval(rec)) b.copy(b.view(this.best, k * N, N), b.view(this.model.params, k * N, N));
      m.checkDegenerate(this.env, this.stepCount, since);
      return rec;
    });
    if (this.K === 1) this.advanceCurriculum(recs[0]);
    return recs;
  }

  /** Member k's weights of the last step or of its best eval, read back. */
  async readWeights(which: 'last' | 'best', k = 0): Promise<Float32Array> {
    this.member(k);
    return this.model.readMember(k, which === 'best' ? this.best : this.model.params);
  }

  /**
   * Member k's state now, copied (the weights are read back: a sync point on the GPU), as a lone run's snapshot.
   * `optimizer`: also its share of AdamW's moments and counter (and of the KL reference, when there is one).
   */
  async snapshot(opts: { optimizer?: boolean; member?: number } = {}): Promise<TrainerSnapshot> {
    const k = opts.member ?? 0, m = this.member(k);
    const snap: TrainerSnapshot = {
      step: this.stepCount, config: { ...m.config }, weights: await this.readWeights('last', k), evals: m.evals.map((e) => ({ ...e })),
      bestEval: m.bestEval ? { ...m.bestEval } : null, lambdaTok: m.lambdaTok, flags: m.flags.map((f) => ({ ...f })), skippedUpdates: m.skippedUpdates,
    };
    if (opts.optimizer) {
      snap.optimizer = await this.opt.readState(this.K === 1 ? undefined : k);
      if (this.ref) snap.reference = await this.model.readMember(k, this.ref);
    }
    return snap;
  }

  /**
   * Puts a snapshot's weights and counters into member `member` (built for the same model); the snapshot is copied,
   * not kept. A population's members are restored one by one, all to the same step (they step in lock step).
   */
  restore(s: TrainerSnapshot, member = 0): void {
    const n = this.model.numParams, m = this.member(member), b = this.backend, at = member * n;
    if (s.weights.length !== n) throw new Error(`restore: the snapshot has ${s.weights.length} weights; this model has ${n}`);
    if (s.reference && s.reference.length !== n) throw new Error(`restore: the snapshot's reference has ${s.reference.length} weights; this model has ${n}`);
    if (this.K > 1 && member > 0 && s.step !== this.stepCount) throw new Error(`restore: member ${member}'s snapshot is of step ${s.step}, the population's of step ${this.stepCount}`);
    // the optimizer first: a state that does not fit throws before anything changed
    this.opt.writeState(s.optimizer ?? { m: new Float32Array(n), v: new Float32Array(n), step: 0 }, this.K === 1 ? undefined : member);
    b.write(this.model.params, s.weights, at);
    if (this.K === 1 && this.ref) { b.free(this.ref); this.ref = null; }
    if (s.reference) {
      if (!this.ref) { this.ref = b.alloc(this.K * n); b.copy(this.ref, this.model.params); } // the other members' restores write theirs
      b.write(this.ref, s.reference, at);
    }
    m.config = { ...s.config };
    if (member === 0) this.opt.config = { ...this.opt.config, lr: s.config.lr, gradClip: s.config.gradClip };
    this.stepCount = s.step;
    m.evals.length = 0;
    for (const e of s.evals) m.evals.push({ ...e }); // a loop: spreading 10^5 arguments overflows the stack
    // bestEval stays one of `evals` (evaluate() and the page compare it by identity)
    m.bestEval = s.bestEval ? m.evals.find((e) => e.step === s.bestEval!.step) ?? { ...s.bestEval } : null;
    m.lambdaTok = s.lambdaTok;
    m.flags.length = 0;
    for (const f of s.flags) m.flags.push({ ...f });
    m.skippedUpdates = s.skippedUpdates;
  }

  /** Member k's weights from `w` (the best eval's, a kept eval's): training goes on from them. */
  writeWeights(w: Float32Array, k = 0): void {
    this.member(k);
    if (w.length !== this.model.numParams) throw new Error(`writeWeights: ${w.length} weights for a model of ${this.model.numParams}`);
    this.backend.write(this.model.params, w, k * this.model.numParams);
  }

  destroy(): void {
    for (const p of this.policies) { p.gen.destroy(); p.model.destroy(); }
    this.objective.destroy();
    this.opt.destroy();
    this.backend.free(this.best);
    if (this.ref) this.backend.free(this.ref);
  }
}
