// The trainer behind the worker boundary: one run at a time, driven by the
// page through comlink (init, start, pause, step, setHyperparams, ...), with
// telemetry batched on a MessagePort. A run is K >= 1 members (a population: one
// Trainer of K members, stepping together); each member has its own run id, telemetry,
// live changes, checkpoints, resume state, divergence watch and lost-device resume point,
// and the calls that concern one run take its run id (absent: member 0). Independent of the worker's global scope:
// the browser entry (trainer.worker.ts), Node tests and scripts construct it
// with a backend factory and a warm-start loader. The step loop is runLoop.ts,
// the lost-device resume recovery.ts, checkpoint checks checkpointImport.ts.
import * as Comlink from 'comlink';
import type { Backend } from '../backend';
import { checkLiveChange, validateConfig, type RunConfig } from '../config';
import { InputError, quote } from '../errors';
import { findPreset, presetConfig, presetSlots, type Preset } from '../envs/presets';
import { createEnv } from '../envs/registry';
import type { Environment } from '../envs/types';
import { rewardWeights, type RewardWeights } from '../rl/reward';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { checkGpuBudget, checkStackedBudget, memoryShare } from '../rl/memoryBudget';
import { modelConfigFor } from '../rl/pretrain';
import { slotNames } from '../rl/slots';
import { Trainer } from '../rl/trainer';
import { checkStackable } from '../rl/populationPlan';
import { MAX_MEMBERS } from '../rl/placement';
import { type EvalRecord, type StepMetrics } from '../rl/runRecord';
import { trainableSlot, warmKey, warmStarts, type WarmStarts } from '../rl/warmStart';
import { comparePlayers, type Comparison } from '../rl/compare';
import { DIVERGENCE_LIMIT, DivergenceWatch } from '../rl/faults';
import type { GpuProbe } from '../gpu/probe';
import { stepAnatomy } from './anatomy';
import type {
  BackendPreference, InitOptions, Recovery, ResumeEntry, ResumeExport, ResumeState, RunStatus, StepAnatomy, TrainerState, TrainerWorkerApi, Transcripts,
} from './protocol';
import { checkResumeState } from './resumeRun';
import { captureResumePoint, discardLost, isDeviceLost, resumeTrainer, type ResumePoint } from './recovery';
import { RunLoop } from './runLoop';
import { importCheckpoint } from './checkpointImport';
import { Serial } from './serial';
import { TelemetryBatcher, type TelemetryPortLike } from './telemetry';
import { KeptWeights } from './keptWeights';
import { lastTranscripts, type TranscriptSource } from './transcripts';
import { runCheckpointBytes } from './checkpointBytes';

/** Makes the backend: 'auto' is WebGPU when there is an adapter, else the CPU; 'cpu' is the CPU reference. */
export type BackendFactory = (prefer: BackendPreference) => Promise<Backend>;
/** Whether the host offers WebGPU (the browser entry asks navigator.gpu). */
export type GpuProber = () => Promise<GpuProbe>;
/** The bytes of a shipped warm start (public/checkpoints/<file>), or null when there is none. */
export type WarmStartLoader = (file: string) => Promise<Uint8Array | null>;

const MAX_STEPS_PER_CALL = 100_000;
const MAX_TRANSCRIPTS = 32;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export { DIVERGENCE_LIMIT, DivergenceWatch }; // moved to rl/faults (the CLI stops on the same streak)

type WarmStart = WarmStarts;

export class TrainerApi implements TrainerWorkerApi {
  private backend: Promise<Backend> | null = null;
  private backendName: 'cpu' | 'webgpu' | null = null;
  private trainer: Trainer | null = null;
  private env: Environment | null = null;
  private preset: Preset | null = null;
  private warms: WarmStart[] = []; // each member's
  private get warm(): WarmStart | null { return this.warms[0] ?? null; }
  private readonly warmCache = new Map<string, WarmStart>();
  private pending: Partial<RunConfig>[] = []; // each member's change for the next step
  private pendingRows = Infinity; // the rollout chunk the pending change needs (memory budget)
  private status: RunStatus = 'idle';
  private message: string | null = null;
  private runIds: string[] = []; // each member's
  private get runId(): string | null { return this.runIds[0] ?? null; }
  private runCounter = 0;
  private readonly lock = new Serial();
  private flagsSent: number[] = [];
  private comparison: Comparison | null = null;
  private readonly telemetry = new TelemetryBatcher();
  private readonly runner = new RunLoop({
    telemetry: this.telemetry,
    trainer: () => this.trainer!,
    runIds: () => this.runIds,
    status: () => this.status,
    setStatus: (status, message) => this.setStatus(status, message),
    exclusive: (fn) => this.exclusive(fn),
    applyPending: (t) => {
      if (this.pending.every((p) => Object.keys(p).length === 0)) return;
      t.setMemberChanges(this.pending);
      t.rolloutRows = this.pendingRows;
      this.pending = this.pending.map(() => ({}));
    },
    stepWeights: (w) => { this.lastStepWeights = w; },
    runEval: () => this.runEval(),
    sendNewFlags: () => this.sendNewFlags(),
    lostDevice: () => this.lostDevice(),
    recover: (cause) => this.recoverFromLostDevice(cause),
  });
  private prefer: BackendPreference = 'auto';
  private resumePoints: (ResumePoint | null)[] = []; // each member's, taken at every eval: where a lost device resumes
  private recovery: Recovery | null = null;
  private lastStepWeights: RewardWeights | null = null;
  private kept: KeptWeights[] = []; // each member's evals a "best" rule can pick

  constructor(private readonly makeBackend: BackendFactory, private readonly loadWarmStart: WarmStartLoader,
    private readonly probeGpu: GpuProber = async () => ({ ok: false, reason: 'this host has no WebGPU probe' }),
    /** Why WebGPU was there but the backend factory chose the CPU (null: it did not). */
    private readonly backendNote: () => string | null = () => null) {}

  // ---- control ----

  async init(presetName: string, overrides: Partial<RunConfig> | Partial<RunConfig>[] = {}, options: InitOptions = {}): Promise<TrainerState> {
    if (typeof presetName !== 'string') throw new InputError('init: the preset name must be a string');
    const list = Array.isArray(overrides) ? overrides : [overrides];
    if (list.length < 1 || list.length > MAX_MEMBERS) throw new InputError(`init: a run has 1 to ${MAX_MEMBERS} members; got ${list.length}`);
    list.forEach((o, k) => {
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new InputError(`init: ${list.length > 1 ? `member ${k}'s ` : ''}overrides must be an object of config fields`);
    });
    const preset = findPreset(presetName);
    const configs = list.map((o) => presetConfig(preset, o as Record<string, unknown>)), config = configs[0], K = configs.length;
    const steps = options.warmStartSteps; // undefined: the preset's cap (src/rl/warmStart.ts)
    if (steps !== undefined && (!Number.isInteger(steps) || steps < 1 || steps > 100_000)) throw new InputError(`init: warmStartSteps must be an integer in [1, 100000]; got ${steps}`);
    await this.stopLoop();
    return this.exclusive(async () => {
      const runIds = configs.map(() => this.nextRunId());
      try {
        const backend = await this.getBackend();
        const env = createEnv(config);
        if (K > 1) checkStackable(configs, env);
        this.checkMemory(backend, config, env, K); // before the warm start: a run that cannot fit starts nothing
        const warms: WarmStart[] = [];
        for (const c of configs) warms.push(await this.warmStartFor(preset, c, env, steps, runIds[0], K > 1));
        const trainer = this.newTrainer(backend, env, configs, warms);
        this.install(trainer, env, preset, warms, runIds);
        const warm = warms[0], members = K > 1 ? `, ${K} members stepping together (one set of dispatches per step)` : '';
        const chunked = Number.isFinite(trainer.rolloutRows) ? `; rollouts and evals generated ${trainer.rolloutRows} sequences at a time (all at once would not fit this GPU)` : '';
        this.setStatus('idle', `ready: ${preset.title}${members}; warm start from ${warm.source}${chunked}${warm.notices.length ? `. Notice: ${warm.notices.join('; ')}` : ''}`);
        return this.snapshot();
      } catch (e) {
        for (const runId of runIds) this.telemetry.status({ runId, status: 'error', message: `init failed: ${errorMessage(e)}` });
        throw e;
      }
    });
  }

  async start(): Promise<TrainerState> {
    const t = this.requireTrainer('start');
    if (this.runner.running) return this.snapshot();
    if (t.stepCount >= t.config.steps) {
      this.setStatus('idle', `the run is at its ${t.config.steps} steps; step() goes on past them, reset() starts over`);
      return this.snapshot();
    }
    this.runner.start();
    return this.snapshot();
  }

  async pause(): Promise<TrainerState> {
    await this.stopLoop();
    return this.snapshot();
  }

  async step(n = 1): Promise<StepMetrics[]> {
    this.requireTrainer('step');
    if (!Number.isInteger(n) || n < 1 || n > MAX_STEPS_PER_CALL) throw new InputError(`step: n must be an integer in [1, ${MAX_STEPS_PER_CALL}]; got ${n}`);
    if (this.runner.running) throw new InputError('step: the run is already running; pause() it first');
    return this.runner.steps(n);
  }

  async reset(): Promise<TrainerState> {
    const t = this.requireTrainer('reset');
    await this.stopLoop();
    return this.exclusive(async () => {
      const configs = t.members.map((_, k) => this.effectiveConfig(t, k));
      const env = this.env!, warms = this.warms, preset = this.preset!;
      const trainer = this.newTrainer(await this.getBackend(), env, configs, warms);
      this.install(trainer, env, preset, warms, configs.map(() => this.nextRunId()));
      this.setStatus('idle', `reset to the warm start (${warms[0].source})`);
      return this.snapshot();
    });
  }

  async setHyperparams(partial: Partial<RunConfig>, runId?: string | null): Promise<TrainerState> {
    const t = this.requireTrainer('setHyperparams');
    if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) throw new InputError('setHyperparams expects an object of config fields');
    const member = runId === undefined || runId === null ? null : this.memberOf('setHyperparams', runId);
    checkLiveChange(Object.keys(partial));
    const merged = this.pending.map((p, k) => (member === null || k === member ? { ...p, ...partial } : p));
    // throws naming the field and its range, and for a population the member when the stacking rules refuse it
    const next = t.plannedConfigs(merged);
    // a live change that would not fit is refused now; one that fits in chunks generates in chunks from its step
    const chunk = this.env && this.backend ? this.checkMemory(await this.backend, next[0], this.env, t.K) : Infinity;
    this.pending = merged;
    this.pendingRows = chunk;
    return this.snapshot(member ?? 0);
  }

  async evaluate(): Promise<EvalRecord> {
    this.requireTrainer('evaluate');
    return (await this.exclusive(() => this.runEval()))[0];
  }

  async getState(): Promise<TrainerState> {
    return this.snapshot();
  }

  async getStates(): Promise<TrainerState[]> {
    return this.runIds.length ? this.runIds.map((_, k) => this.snapshot(k)) : [this.snapshot()];
  }

  async exportCheckpoint(which: 'last' | 'best', runId?: string): Promise<Uint8Array> {
    this.requireTrainer('exportCheckpoint');
    if (which !== 'last' && which !== 'best') throw new InputError(`exportCheckpoint: which must be "last" or "best"; got ${quote(which)}`);
    return this.exclusive(async () => {
      const k = runId === undefined ? 0 : this.memberOf('exportCheckpoint', runId);
      const t = this.trainer!;
      const step = which === 'best' ? (t.members[k].bestEval?.step ?? 0) : t.stepCount;
      const own = this.checkpointBytes(t, k, await t.readWeights(which, k), which, step);
      return Comlink.transfer(own, [own.buffer]);
    });
  }

  async exportResume(runId: string): Promise<ResumeExport> {
    this.requireTrainer('exportResume');
    return this.exclusive(async () => {
      const k = this.memberOf('exportResume', runId), t = this.trainer!;
      const { weights, ...state } = await t.snapshot({ optimizer: true, member: k }); // one read: the checkpoint and the state are of one step
      const checkpoint = this.checkpointBytes(t, k, weights, 'last', state.step);
      const buffers = [checkpoint.buffer, ...(state.optimizer ? [state.optimizer.m.buffer, state.optimizer.v.buffer] : []), ...(state.reference ? [state.reference.buffer] : [])];
      return Comlink.transfer({ checkpoint, state }, buffers as ArrayBuffer[]);
    });
  }

  async loadCheckpoint(bytes: Uint8Array): Promise<TrainerState> {
    if (!(bytes instanceof Uint8Array)) throw new InputError('loadCheckpoint expects the bytes of a .safetensors file (a Uint8Array)');
    // Everything is checked before anything changes: a bad file leaves the run as it was.
    const { config, env, preset, weights, stepLabel: step, notice } = importCheckpoint(bytes, this.trainer ? this.effectiveConfig(this.trainer) : null, this.preset);
    await this.stopLoop();
    return this.exclusive(async () => {
      // several slots: the checkpoint is the trainable one's; the frozen ones come from the preset
      const frozen = slotNames(env).length > 1 ? (await this.warmStartFor(preset, config, env, undefined, this.runId ?? 'load')).slots : null;
      const start = frozen ? { ...frozen, [trainableSlot(frozen)!]: { trainable: true, weights } } : { policy: { trainable: true, weights } };
      const trainer = new Trainer(await this.getBackend(), env, config, frozen ? start : weights);
      this.install(trainer, env, preset, [{ slots: start, source: `a loaded checkpoint${step}`, notices: [] }], [this.nextRunId()]);
      this.setStatus('idle', `loaded a checkpoint${step}; reset() returns to it${notice ? ` (notice: ${notice})` : ''}`);
      return this.snapshot();
    });
  }

  async resume(runId: string, last: Uint8Array, best: Uint8Array | null, state: ResumeState | null): Promise<TrainerState> {
    return this.resumeMembers([{ runId, last, best, state }]);
  }

  async resumeMembers(members: ResumeEntry[]): Promise<TrainerState> {
    if (!Array.isArray(members) || members.length < 1 || members.length > MAX_MEMBERS) throw new InputError(`resume: a run has 1 to ${MAX_MEMBERS} members; got ${Array.isArray(members) ? members.length : 'none'}`);
    const K = members.length, who = (k: number) => (K > 1 ? `member ${k}: ` : '');
    // Everything is checked before anything changes: a bad file or state leaves the trainer as it was.
    const checked = members.map((m, k) => {
      if (K === 1) return this.checkResumeEntry(m);
      try { return this.checkResumeEntry(m); } catch (e) { throw new InputError(`resume: ${who(k)}${errorMessage(e).replace(/^resume: /, '')}`); }
    });
    const { env, preset } = checked[0];
    if (new Set(members.map((m) => m.runId)).size !== K) throw new InputError('resume: the members\' run ids must differ');
    if (checked.some((c) => c.snapshot.step !== checked[0].snapshot.step)) throw new InputError(`resume: the members are at different steps (${checked.map((c) => c.snapshot.step).join(', ')}); a population resumes from one step`);
    await this.stopLoop();
    return this.exclusive(async () => {
      const frozen = slotNames(env).length > 1 ? (await this.warmStartFor(preset, checked[0].config, env, undefined, members[0].runId)).slots : null;
      const slotOf = (w: Float32Array) => (frozen ? { ...frozen, [trainableSlot(frozen)!]: { trainable: true, weights: w } } : { policy: { trainable: true, weights: w } });
      // built from the best weights (each member's best checkpoint), then restored to the last ones and the counters
      const backend = await this.getBackend();
      const trainer = K === 1 ? new Trainer(backend, env, checked[0].config, frozen ? slotOf(checked[0].bestWeights) : checked[0].bestWeights)
        : new Trainer(backend, env, checked.map((c) => c.config), checked.map((c) => c.bestWeights));
      try {
        checked.forEach((c, k) => trainer.restore({ ...c.snapshot, weights: c.weights }, k));
      } catch (e) {
        trainer.destroy();
        throw new InputError(`resume: ${errorMessage(e)}`);
      }
      const step = checked[0].snapshot.step;
      this.install(trainer, env, preset, checked.map((c, k) => ({ slots: slotOf(c.weights), source: `run ${members[k].runId}'s last checkpoint (step ${step})`, notices: [] })), members.map((m) => m.runId));
      this.resumePoints = await Promise.all(checked.map((c, k) => captureResumePoint(trainer, null, c.bestWeights, k)));
      const restarts = checked.map((c, k) => (c.optimizerNotice ? `${who(k)}${c.optimizerNotice}` : null)).filter((x) => x !== null);
      const opt = restarts.length ? `the optimizer restarts: ${restarts.join('; ')}` : 'optimizer state restored';
      const notices = checked.flatMap((c, k) => c.notices.map((n) => `${who(k)}${n}`));
      this.setStatus('idle', `resumed ${K > 1 ? `${K} members` : 'the run'} at step ${step} (${opt})${notices.length ? `; notice: ${notices.join('; ')}` : ''}`);
      return this.snapshot();
    });
  }

  /** A stored run's last checkpoint, best checkpoint and resume state, checked whole (nothing changes here). */
  private checkResumeEntry({ runId, last, best, state }: ResumeEntry) {
    if (typeof runId !== 'string' || runId.length === 0 || runId.length > 200) throw new InputError('resume: runId must be a non-empty string');
    if (!(last instanceof Uint8Array)) throw new InputError('resume expects the run\'s last checkpoint (a Uint8Array)');
    if (best !== null && !(best instanceof Uint8Array)) throw new InputError('resume: best must be a checkpoint (a Uint8Array) or null');
    const ck = importCheckpoint(last, this.trainer ? this.effectiveConfig(this.trainer) : null, this.preset);
    const { config, env, preset, weights } = ck;
    const numParams = weights.length;
    const checked = checkResumeState(state, { step: ck.step, numParams, config });
    const notices: string[] = ck.notice ? [ck.notice] : [];
    let bestWeights = weights;
    if (best) {
      try {
        const b = importCheckpoint(best, config, preset);
        if (b.weights.length !== numParams || b.config.env !== config.env) throw new InputError('it is of another model or environment');
        bestWeights = b.weights;
      } catch (e) {
        notices.push(`the stored best checkpoint was not used (${errorMessage(e)}); the best weights start from the last ones`);
      }
    }
    return { config, env, preset, weights, bestWeights, notices, snapshot: checked.snapshot, optimizerNotice: checked.optimizerNotice };
  }

  async telemetryPort(port: MessagePort | TelemetryPortLike): Promise<void> {
    this.telemetry.attach(port as TelemetryPortLike);
    for (const runId of this.runIds) this.telemetry.status({ runId, status: this.status, ...(this.message ? { message: this.message } : {}) });
  }

  async lastTranscripts(count = 4, runId?: string): Promise<Transcripts> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_TRANSCRIPTS) throw new InputError(`lastTranscripts: count must be an integer in [1, ${MAX_TRANSCRIPTS}]; got ${count}`);
    if (!this.trainer) return { train: null, eval: null };
    const k = runId === undefined ? 0 : this.memberOf('lastTranscripts', runId);
    return this.exclusive(async () => lastTranscripts(this.memberSource(k), this.env!, count));
  }

  async probe(): Promise<GpuProbe> {
    return this.probeGpu();
  }

  async useBackend(prefer: BackendPreference): Promise<TrainerState> {
    if (prefer !== 'auto' && prefer !== 'cpu') throw new InputError(`useBackend: expected "auto" or "cpu"; got ${quote(prefer)}`);
    if (prefer === this.prefer) return this.snapshot();
    await this.stopLoop();
    return this.exclusive(async () => {
      this.prefer = prefer;
      // the run (if any) lives on the old backend: end it; the next init() builds on the new one
      this.trainer?.destroy();
      this.trainer = null;
      if (this.backend) (await this.backend.catch(() => null))?.destroy();
      this.backend = null;
      this.backendName = null;
      this.warmCache.clear();
      this.setStatus('idle', `the next run trains on ${prefer === 'cpu' ? 'the CPU' : 'WebGPU when there is an adapter'}; init() a preset`);
      return this.snapshot();
    });
  }

  async stepAnatomy(group: number): Promise<StepAnatomy> {
    const t0 = this.requireTrainer('stepAnatomy');
    if (t0.K > 1) throw new InputError(`stepAnatomy: this run is a population of ${t0.K} members stepping together; the anatomy measures a lone run's group (open a member's run alone to see it)`);
    if (!Number.isInteger(group) || group < 0) throw new InputError(`stepAnatomy: group must be an integer >= 0; got ${group}`);
    return this.exclusive(async () => {
      const t = this.trainer!;
      const w = this.lastStepWeights ?? rewardWeights(t.config, t.lambdaTok);
      return stepAnatomy(t, this.env!, group, w);
    });
  }

  async restoreBest(runId?: string): Promise<TrainerState> {
    const t = this.requireTrainer('restoreBest');
    const k = runId === undefined ? 0 : this.memberOf('restoreBest', runId), m = t.members[k];
    if (!m.bestEval) throw new InputError('restoreBest: the run has no eval yet, so there is no best checkpoint');
    await this.stopLoop();
    return this.exclusive(async () => {
      const best = m.bestEval!;
      const last = m.evals[m.evals.length - 1];
      if (last === best && t.stepCount === best.step) {
        this.setStatus(this.status, `the weights are already those of the best eval (step ${best.step})`);
        return this.snapshot(k);
      }
      t.writeWeights(await t.readWeights('best', k), k);
      this.setStatus(this.status, `restored the weights of ${t.K > 1 ? `member ${k}'s` : 'the'} best eval (step ${best.step}: accuracy ${best.accuracy.toFixed(3)}, ${best.tokens.toFixed(2)} tokens); training goes on from them`);
      return this.snapshot(k);
    });
  }

  async restoreEval(step: number, runId?: string): Promise<TrainerState> {
    const t = this.requireTrainer('restoreEval');
    if (!Number.isInteger(step) || step < 0) throw new InputError(`restoreEval: step must be an integer >= 0; got ${step}`);
    const k = runId === undefined ? 0 : this.memberOf('restoreEval', runId);
    await this.stopLoop();
    return this.exclusive(async () => {
      const rec = t.members[k].evals.find((e) => e.step === step);
      const w = this.kept[k].get(step);
      if (!rec || !w) throw new InputError(`restoreEval: the weights of the eval at step ${step} were not kept (kept: ${this.kept[k].steps().join(', ') || 'none'})`);
      t.writeWeights(w, k);
      this.setStatus(this.status, `restored the weights of the eval at step ${step} (accuracy ${rec.accuracy.toFixed(3)}, ${rec.tokens.toFixed(2)} tokens); training goes on from them`);
      return this.snapshot(k);
    });
  }

  async compare(): Promise<Comparison> {
    const t = this.requireTrainer('compare');
    if (!t.env.comparison) throw new InputError('compare: only runs whose environment declares a comparison of players (AgentPO: a frozen Actor and a Collaborator) have one');
    return this.exclusive(async () => {
      const step = t.bestEval?.step ?? t.stepCount;
      this.comparison = await comparePlayers(await this.getBackend(), t.env, t.config, this.warm!.slots, await t.readWeights('best'),
        step, `trained collaborator (best eval, step ${step})`);
      return this.comparison;
    });
  }

  /** Stops the loop and frees the backend (Node scripts and tests; the browser just ends the worker). */
  async destroy(): Promise<void> {
    await this.stopLoop();
    await this.exclusive(async () => {
      this.trainer?.destroy();
      this.trainer = null;
      this.telemetry.dispose();
      if (this.backend) (await this.backend.catch(() => null))?.destroy();
      this.backend = null;
    });
  }

  // ---- evals and lost-device recovery (the step loop is in runLoop.ts) ----

  private async runEval(): Promise<EvalRecord[]> {
    const t = this.trainer!;
    const recs = await t.evaluateAll();
    for (const [k, rec] of recs.entries()) {
      this.telemetry.eval({ runId: this.runIds[k], record: rec });
      await this.kept[k].update(t.members[k].evals, rec, () => t.readWeights('last', k));
      const warm = this.warms[k], best = warm ? warm.slots[trainableSlot(warm.slots) ?? '']?.weights : undefined;
      this.resumePoints[k] = await captureResumePoint(t, this.resumePoints[k] ?? null, best ?? await t.readWeights('best', k), k);
    }
    return recs;
  }

  private stopLoop(): Promise<void> {
    return this.runner.stop();
  }

  /** True when the backend's device is lost (WebGPU); the CPU never is. */
  private async lostDevice(): Promise<boolean> {
    if (!this.backend) return false;
    return isDeviceLost(await this.backend.catch(() => null));
  }

  /**
   * A new backend and Trainer after the device was lost, from the checkpoint of the last eval (or the
   * warm start before any): the run keeps its id, evals and counters, and goes on from that step.
   */
  private async recoverFromLostDevice(cause: unknown): Promise<void> {
    const old = this.trainer!, lostAtStep = old.stepCount, points = old.members.map((_, k) => this.resumePoints[k] ?? null), r = points[0];
    discardLost(old, (await this.backend?.catch(() => null)) ?? null);
    this.backend = null;
    const trainer = resumeTrainer(await this.getBackend(), this.env!, this.warms, old.members.map((m) => m.config), points);
    trainer.rolloutRows = old.rolloutRows;
    this.trainer = trainer;
    this.flagsSent = trainer.members.map((m) => m.flags.length);
    const step = r?.step ?? 0;
    this.recovery = { step, lostAtStep, reason: errorMessage(cause), count: (this.recovery?.count ?? 0) + 1 };
    const whose = trainer.K > 1 ? `every member from its checkpoint of step ${step}` : `from the checkpoint of step ${step}`;
    this.setStatus('running', `the GPU device was lost at step ${lostAtStep} (${errorMessage(cause)}); resumed ${whose}${r ? ' with its optimizer state' : ' (the warm start)'}`);
  }

  // ---- helpers ----

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  private getBackend(): Promise<Backend> {
    if (!this.backend) {
      const made = this.makeBackend(this.prefer);
      this.backend = made;
      made.then((b) => { this.backendName = b.name; }, () => { this.backend = null; });
    }
    return this.backend;
  }

  /**
   * On WebGPU: the rows a rollout generates at once (Infinity: all; fewer when all would not fit), or throws (naming
   * the setting to lower) when the run does not fit the device even so (memoryBudget.ts). The CPU: Infinity.
   */
  private checkMemory(backend: Backend, config: RunConfig, env: Environment, K = 1): number {
    if (!(backend instanceof WebGpuBackend)) return Infinity;
    const deviceMemory = (globalThis.navigator as { deviceMemory?: number } | undefined)?.deviceMemory;
    if (K > 1) { checkStackedBudget(config, modelConfigFor(env, config), K, backend.limits, memoryShare(deviceMemory)); return Infinity; }
    return checkGpuBudget(config, modelConfigFor(env, config), slotNames(env).length, backend.limits, memoryShare(deviceMemory)).chunkRows;
  }

  /** A lone run from its slots' starts, or a population from each member's warm start. */
  private newTrainer(backend: Backend, env: Environment, configs: RunConfig[], warms: WarmStart[]): Trainer {
    if (configs.length === 1) return new Trainer(backend, env, configs[0], warms[0].slots);
    const slot = slotNames(env)[0];
    return new Trainer(backend, env, configs, warms.map((w) => w.slots[slot].weights));
  }

  /** The member that run `runId` is (an InputError naming the runs held when it is none of them). */
  private memberOf(what: string, runId: string): number {
    const k = this.runIds.indexOf(runId);
    if (k < 0) throw new InputError(`${what}: run ${quote(String(runId))} is no longer in the trainer (it holds ${this.runIds.join(', ') || 'none'})`);
    return k;
  }

  /** Member k's share of the run, as transcripts read it. */
  private memberSource(k: number): TranscriptSource {
    const t = this.trainer!, m = t.members[k];
    return { lastRollout: m.lastRollout, lastEval: m.lastEval, config: m.config, stepCount: t.stepCount, evals: m.evals };
  }

  private requireTrainer(what: string): Trainer {
    if (!this.trainer) throw new InputError(`${what}: no run yet; call init(preset) first`);
    return this.trainer;
  }

  private nextRunId(): string {
    return `run-${++this.runCounter}-${Math.floor(Math.random() * 0x7fffffff).toString(36)}`;
  }

  private install(trainer: Trainer, env: Environment, preset: Preset, warms: WarmStart[], runIds: string[]): void {
    try {
      trainer.rolloutRows = this.checkMemory(trainer.backend, trainer.config, env); // generated in chunks when all rows at once would not fit
    } catch { /* a run over budget even in chunks was refused by init; a loaded or resumed one keeps its rows as they are */ }
    this.telemetry.flush();
    this.trainer?.destroy();
    this.trainer = trainer;
    this.env = env;
    this.preset = preset;
    this.warms = warms;
    this.runIds = runIds;
    this.pending = runIds.map(() => ({}));
    this.flagsSent = runIds.map(() => 0);
    this.comparison = null;
    this.runner.reset();
    this.resumePoints = runIds.map(() => null);
    this.recovery = null;
    this.lastStepWeights = null;
    this.kept = runIds.map(() => new KeptWeights());
  }

  private effectiveConfig(t: Trainer, k = 0): RunConfig {
    const p = this.pending[k] ?? {}, c = t.members[k].config;
    return Object.keys(p).length ? validateConfig(p as Record<string, unknown>, c) : c;
  }

  private setStatus(status: RunStatus, message?: string): void {
    this.status = status;
    this.message = message ?? null;
    for (const runId of this.runIds) this.telemetry.status({ runId, status, ...(message !== undefined ? { message } : {}) });
  }

  private sendNewFlags(): void {
    this.trainer!.members.forEach((m, k) => {
      for (; this.flagsSent[k] < m.flags.length; this.flagsSent[k]++) this.telemetry.flag({ runId: this.runIds[k], flag: m.flags[this.flagsSent[k]] });
    });
  }

  /** A checkpoint file of member k's run: its env record, preset, run config and step. */
  private checkpointBytes(t: Trainer, k: number, weights: Float32Array, which: 'last' | 'best', step: number): Uint8Array {
    return runCheckpointBytes(t.model.config, weights, this.env!, this.preset, t.members[k].config, which, step);
  }

  /** Every slot's shipped warm start when it fits this model, else one pretrained here (cached per model and env). */
  private async warmStartFor(preset: Preset, config: RunConfig, env: Environment, steps: number | undefined, runId: string, shared = false): Promise<WarmStart> {
    // a population's members share one per warm key (they differ in seed or the reward's fields, not in what pretrains)
    const key = JSON.stringify([preset.name, presetSlots(preset), shared ? warmKey(config) : config, env.blockSize, env.vocab.length, steps]);
    const cached = this.warmCache.get(key);
    if (cached) return cached;
    const backend = await this.getBackend();
    const progress = (message: string, p: number) => this.telemetry.status({ runId, status: 'idle', message, progress: p });
    const warm = await warmStarts(backend, preset, config, env, this.loadWarmStart, steps, progress);
    if (this.warmCache.size >= 4) this.warmCache.delete(this.warmCache.keys().next().value!);
    this.warmCache.set(key, warm);
    return warm;
  }

  /** Member k's state (a lone run's: k = 0). */
  private snapshot(k = 0): TrainerState {
    const t = this.trainer, m = t?.members[k], pending = this.pending[k] ?? {};
    return {
      runId: this.runIds[k] ?? null, preset: this.preset?.name ?? null, config: t ? this.effectiveConfig(t, k) : null, pending: { ...pending },
      status: this.status, message: this.message, backend: this.backendName, backendNote: this.backendNote(), warmStart: this.warms[k]?.source ?? null,
      stepCount: t?.stepCount ?? 0, lambdaTok: pending.lambdaTok ?? m?.lambdaTok ?? 0,
      evals: m ? m.evals.map((e) => ({ ...e })) : [], bestEval: m?.bestEval ? { ...m.bestEval } : null,
      flags: m ? m.flags.map((f) => ({ ...f })) : [], skippedUpdates: m?.skippedUpdates ?? 0,
      recovery: this.recovery ? { ...this.recovery } : null, rolloutRows: t && Number.isFinite(t.rolloutRows) ? t.rolloutRows : null,
      baselines: t ? t.baselines() : [], curriculum: t ? t.curriculum.map((c) => ({ ...c })) : [], comparison: this.comparison,
    };
  }
}
