// The trainer behind the worker boundary: one run at a time, driven by the
// page through comlink (init, start, pause, step, setHyperparams, ...), with
// telemetry batched on a MessagePort. Independent of the worker's global scope:
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
import { checkGpuBudget, memoryShare } from '../rl/memoryBudget';
import { modelConfigFor } from '../rl/pretrain';
import { slotNames, Trainer, type EvalRecord, type StepMetrics } from '../rl/trainer';
import { trainableSlot, warmStarts, type WarmStarts } from '../rl/warmStart';
import { comparePlayers, type Comparison } from '../rl/compare';
import { DIVERGENCE_LIMIT, DivergenceWatch } from '../rl/faults';
import type { GpuProbe } from '../gpu/probe';
import { stepAnatomy } from './anatomy';
import type {
  BackendPreference, InitOptions, Recovery, ResumeExport, ResumeState, RunStatus, StepAnatomy, TrainerState, TrainerWorkerApi, Transcripts,
} from './protocol';
import { checkResumeState } from './resumeRun';
import { captureResumePoint, discardLost, isDeviceLost, resumeTrainer, type ResumePoint } from './recovery';
import { RunLoop } from './runLoop';
import { importCheckpoint } from './checkpointImport';
import { Serial } from './serial';
import { TelemetryBatcher, type TelemetryPortLike } from './telemetry';
import { KeptWeights } from './keptWeights';
import { lastTranscripts } from './transcripts';
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
  private warm: WarmStart | null = null;
  private readonly warmCache = new Map<string, WarmStart>();
  private pending: Partial<RunConfig> = {};
  private pendingRows = Infinity; // the rollout chunk the pending change needs (memory budget)
  private status: RunStatus = 'idle';
  private message: string | null = null;
  private runId: string | null = null;
  private runCounter = 0;
  private readonly lock = new Serial();
  private flagsSent = 0;
  private comparison: Comparison | null = null;
  private readonly telemetry = new TelemetryBatcher();
  private readonly runner = new RunLoop({
    telemetry: this.telemetry,
    trainer: () => this.trainer!,
    runId: () => this.runId!,
    status: () => this.status,
    setStatus: (status, message) => this.setStatus(status, message),
    exclusive: (fn) => this.exclusive(fn),
    applyPending: (t) => {
      if (Object.keys(this.pending).length === 0) return;
      t.setHyperparams(this.pending);
      t.rolloutRows = this.pendingRows;
      this.pending = {};
    },
    stepWeights: (w) => { this.lastStepWeights = w; },
    runEval: () => this.runEval(),
    sendNewFlags: () => this.sendNewFlags(),
    lostDevice: () => this.lostDevice(),
    recover: (cause) => this.recoverFromLostDevice(cause),
  });
  private prefer: BackendPreference = 'auto';
  private resumePoint: ResumePoint | null = null; // taken at every eval: where a lost device resumes
  private recovery: Recovery | null = null;
  private lastStepWeights: RewardWeights | null = null;
  private readonly kept = new KeptWeights(); // the evals a "best" rule can pick

  constructor(private readonly makeBackend: BackendFactory, private readonly loadWarmStart: WarmStartLoader,
    private readonly probeGpu: GpuProber = async () => ({ ok: false, reason: 'this host has no WebGPU probe' }),
    /** Why WebGPU was there but the backend factory chose the CPU (null: it did not). */
    private readonly backendNote: () => string | null = () => null) {}

  // ---- control ----

  async init(presetName: string, overrides: Partial<RunConfig> = {}, options: InitOptions = {}): Promise<TrainerState> {
    if (typeof presetName !== 'string') throw new InputError('init: the preset name must be a string');
    if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) throw new InputError('init: overrides must be an object of config fields');
    const preset = findPreset(presetName);
    const config = presetConfig(preset, overrides as Record<string, unknown>);
    const steps = options.warmStartSteps; // undefined: the preset's cap (src/rl/warmStart.ts)
    if (steps !== undefined && (!Number.isInteger(steps) || steps < 1 || steps > 100_000)) throw new InputError(`init: warmStartSteps must be an integer in [1, 100000]; got ${steps}`);
    await this.stopLoop();
    return this.exclusive(async () => {
      const runId = this.nextRunId();
      try {
        const backend = await this.getBackend();
        const env = createEnv(config);
        this.checkMemory(backend, config, env); // before the warm start: a run that cannot fit starts nothing
        const warm = await this.warmStartFor(preset, config, env, steps, runId);
        const trainer = new Trainer(backend, env, config, warm.slots);
        this.install(trainer, env, preset, warm, runId);
        const chunked = Number.isFinite(trainer.rolloutRows) ? `; rollouts and evals generated ${trainer.rolloutRows} sequences at a time (all at once would not fit this GPU)` : '';
        this.setStatus('idle', `ready: ${preset.title}; warm start from ${warm.source}${chunked}${warm.notices.length ? `. Notice: ${warm.notices.join('; ')}` : ''}`);
        return this.snapshot();
      } catch (e) {
        this.telemetry.status({ runId, status: 'error', message: `init failed: ${errorMessage(e)}` });
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
      const config = this.effectiveConfig(t);
      const env = this.env!, warm = this.warm!, preset = this.preset!;
      const trainer = new Trainer(await this.getBackend(), env, config, warm.slots);
      this.install(trainer, env, preset, warm, this.nextRunId());
      this.setStatus('idle', `reset to the warm start (${warm.source})`);
      return this.snapshot();
    });
  }

  async setHyperparams(partial: Partial<RunConfig>): Promise<TrainerState> {
    const t = this.requireTrainer('setHyperparams');
    if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) throw new InputError('setHyperparams expects an object of config fields');
    checkLiveChange(Object.keys(partial));
    const merged = { ...this.pending, ...partial };
    const next = validateConfig(merged as Record<string, unknown>, t.config); // throws naming the field and its range
    // a live change that would not fit is refused now; one that fits in chunks generates in chunks from its step
    const chunk = this.env && this.backend ? this.checkMemory(await this.backend, next, this.env) : Infinity;
    this.pending = merged;
    this.pendingRows = chunk;
    return this.snapshot();
  }

  async evaluate(): Promise<EvalRecord> {
    this.requireTrainer('evaluate');
    return this.exclusive(() => this.runEval());
  }

  async getState(): Promise<TrainerState> {
    return this.snapshot();
  }

  async exportCheckpoint(which: 'last' | 'best', runId?: string): Promise<Uint8Array> {
    this.requireTrainer('exportCheckpoint');
    if (which !== 'last' && which !== 'best') throw new InputError(`exportCheckpoint: which must be "last" or "best"; got ${quote(which)}`);
    return this.exclusive(async () => {
      if (runId !== undefined && runId !== this.runId) throw new InputError(`exportCheckpoint: run ${runId} is no longer in the trainer (it holds ${this.runId})`);
      const t = this.trainer!;
      const step = which === 'best' ? (t.bestEval?.step ?? 0) : t.stepCount;
      const own = this.checkpointBytes(t, await t.readWeights(which), which, step);
      return Comlink.transfer(own, [own.buffer]);
    });
  }

  async exportResume(runId: string): Promise<ResumeExport> {
    this.requireTrainer('exportResume');
    return this.exclusive(async () => {
      if (runId !== this.runId) throw new InputError(`exportResume: run ${quote(runId)} is no longer in the trainer (it holds ${this.runId})`);
      const t = this.trainer!;
      const { weights, ...state } = await t.snapshot({ optimizer: true }); // one read: the checkpoint and the state are of one step
      const checkpoint = this.checkpointBytes(t, weights, 'last', state.step);
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
      this.install(trainer, env, preset, { slots: start, source: `a loaded checkpoint${step}`, notices: [] }, this.nextRunId());
      this.setStatus('idle', `loaded a checkpoint${step}; reset() returns to it${notice ? ` (notice: ${notice})` : ''}`);
      return this.snapshot();
    });
  }

  async resume(runId: string, last: Uint8Array, best: Uint8Array | null, state: ResumeState | null): Promise<TrainerState> {
    if (typeof runId !== 'string' || runId.length === 0 || runId.length > 200) throw new InputError('resume: runId must be a non-empty string');
    if (!(last instanceof Uint8Array)) throw new InputError('resume expects the run\'s last checkpoint (a Uint8Array)');
    if (best !== null && !(best instanceof Uint8Array)) throw new InputError('resume: best must be a checkpoint (a Uint8Array) or null');
    // Everything is checked before anything changes: a bad file or state leaves the trainer as it was.
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
    await this.stopLoop();
    return this.exclusive(async () => {
      const frozen = slotNames(env).length > 1 ? (await this.warmStartFor(preset, config, env, undefined, runId)).slots : null;
      const slotOf = (w: Float32Array) => (frozen ? { ...frozen, [trainableSlot(frozen)!]: { trainable: true, weights: w } } : { policy: { trainable: true, weights: w } });
      // built from the best weights (its best checkpoint), then restored to the last ones and the counters
      const trainer = new Trainer(await this.getBackend(), env, config, frozen ? slotOf(bestWeights) : bestWeights);
      try {
        trainer.restore({ ...checked.snapshot, weights });
      } catch (e) {
        trainer.destroy();
        throw new InputError(`resume: ${errorMessage(e)}`);
      }
      const step = checked.snapshot.step;
      this.install(trainer, env, preset, { slots: slotOf(weights), source: `run ${runId}'s last checkpoint (step ${step})`, notices: [] }, runId);
      this.resumePoint = await captureResumePoint(trainer, null, bestWeights);
      const opt = checked.optimizerNotice ? `the optimizer restarts: ${checked.optimizerNotice}` : 'optimizer state restored';
      this.setStatus('idle', `resumed the run at step ${step} (${opt})${notices.length ? `; notice: ${notices.join('; ')}` : ''}`);
      return this.snapshot();
    });
  }

  async telemetryPort(port: MessagePort | TelemetryPortLike): Promise<void> {
    this.telemetry.attach(port as TelemetryPortLike);
    if (this.runId) this.telemetry.status({ runId: this.runId, status: this.status, ...(this.message ? { message: this.message } : {}) });
  }

  async lastTranscripts(count = 4): Promise<Transcripts> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_TRANSCRIPTS) throw new InputError(`lastTranscripts: count must be an integer in [1, ${MAX_TRANSCRIPTS}]; got ${count}`);
    if (!this.trainer) return { train: null, eval: null };
    return this.exclusive(async () => {
      return lastTranscripts(this.trainer!, this.env!, count);
    });
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
    this.requireTrainer('stepAnatomy');
    if (!Number.isInteger(group) || group < 0) throw new InputError(`stepAnatomy: group must be an integer >= 0; got ${group}`);
    return this.exclusive(async () => {
      const t = this.trainer!;
      const w = this.lastStepWeights ?? rewardWeights(t.config, t.lambdaTok);
      return stepAnatomy(t, this.env!, group, w);
    });
  }

  async restoreBest(): Promise<TrainerState> {
    const t = this.requireTrainer('restoreBest');
    if (!t.bestEval) throw new InputError('restoreBest: the run has no eval yet, so there is no best checkpoint');
    await this.stopLoop();
    return this.exclusive(async () => {
      const best = t.bestEval!;
      const last = t.evals[t.evals.length - 1];
      if (last === best && t.stepCount === best.step) {
        this.setStatus(this.status, `the weights are already those of the best eval (step ${best.step})`);
        return this.snapshot();
      }
      t.backend.write(t.model.params, await t.readWeights('best'));
      this.setStatus(this.status, `restored the weights of the best eval (step ${best.step}: accuracy ${best.accuracy.toFixed(3)}, ${best.tokens.toFixed(2)} tokens); training goes on from them`);
      return this.snapshot();
    });
  }

  async restoreEval(step: number): Promise<TrainerState> {
    const t = this.requireTrainer('restoreEval');
    if (!Number.isInteger(step) || step < 0) throw new InputError(`restoreEval: step must be an integer >= 0; got ${step}`);
    await this.stopLoop();
    return this.exclusive(async () => {
      const rec = t.evals.find((e) => e.step === step);
      const w = this.kept.get(step);
      if (!rec || !w) throw new InputError(`restoreEval: the weights of the eval at step ${step} were not kept (kept: ${this.kept.steps().join(', ') || 'none'})`);
      t.backend.write(t.model.params, w);
      this.setStatus(this.status, `restored the weights of the eval at step ${step} (accuracy ${rec.accuracy.toFixed(3)}, ${rec.tokens.toFixed(2)} tokens); training goes on from them`);
      return this.snapshot();
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

  private async runEval(): Promise<EvalRecord> {
    const t = this.trainer!;
    const rec = await t.evaluate();
    this.telemetry.eval({ runId: this.runId!, record: rec });
    await this.kept.update(t.evals, rec, () => t.readWeights('last'));
    const best = this.warm ? this.warm.slots[trainableSlot(this.warm.slots) ?? '']?.weights : undefined;
    this.resumePoint = await captureResumePoint(t, this.resumePoint, best ?? await t.readWeights('best'));
    return rec;
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
    const old = this.trainer!, lostAtStep = old.stepCount, r = this.resumePoint;
    discardLost(old, (await this.backend?.catch(() => null)) ?? null);
    this.backend = null;
    const trainer = resumeTrainer(await this.getBackend(), this.env!, this.warm!, old.config, r);
    trainer.rolloutRows = old.rolloutRows;
    this.trainer = trainer;
    this.flagsSent = trainer.flags.length;
    const step = r?.step ?? 0;
    this.recovery = { step, lostAtStep, reason: errorMessage(cause), count: (this.recovery?.count ?? 0) + 1 };
    this.setStatus('running', `the GPU device was lost at step ${lostAtStep} (${errorMessage(cause)}); resumed from the checkpoint of step ${step}${r ? ' with its optimizer state' : ' (the warm start)'}`);
  }

  // ---- helpers ----

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  private getBackend(): Promise<Backend> {
    if (!this.backend) {
      const made = this.makeBackend(this.prefer);
      this.backend = made;
      // the page names both CPU engines (reference and wasm) 'cpu'
      made.then((b) => { this.backendName = b.name === 'wasm' ? 'cpu' : b.name; }, () => { this.backend = null; });
    }
    return this.backend;
  }

  /**
   * On WebGPU: the rows a rollout generates at once (Infinity: all; fewer when all would not fit), or throws (naming
   * the setting to lower) when the run does not fit the device even so (memoryBudget.ts). The CPU: Infinity.
   */
  private checkMemory(backend: Backend, config: RunConfig, env: Environment): number {
    if (!(backend instanceof WebGpuBackend)) return Infinity;
    const deviceMemory = (globalThis.navigator as { deviceMemory?: number } | undefined)?.deviceMemory;
    return checkGpuBudget(config, modelConfigFor(env, config), slotNames(env).length, backend.limits, memoryShare(deviceMemory)).chunkRows;
  }

  private requireTrainer(what: string): Trainer {
    if (!this.trainer) throw new InputError(`${what}: no run yet; call init(preset) first`);
    return this.trainer;
  }

  private nextRunId(): string {
    return `run-${++this.runCounter}-${Math.floor(Math.random() * 0x7fffffff).toString(36)}`;
  }

  private install(trainer: Trainer, env: Environment, preset: Preset, warm: WarmStart, runId: string): void {
    try {
      trainer.rolloutRows = this.checkMemory(trainer.backend, trainer.config, env); // generated in chunks when all rows at once would not fit
    } catch { /* a run over budget even in chunks was refused by init; a loaded or resumed one keeps its rows as they are */ }
    this.telemetry.flush();
    this.trainer?.destroy();
    this.trainer = trainer;
    this.env = env;
    this.preset = preset;
    this.warm = warm;
    this.runId = runId;
    this.pending = {};
    this.flagsSent = 0;
    this.comparison = null;
    this.runner.reset();
    this.resumePoint = null;
    this.recovery = null;
    this.lastStepWeights = null;
    this.kept.clear();
  }

  private effectiveConfig(t: Trainer): RunConfig {
    return Object.keys(this.pending).length ? validateConfig(this.pending as Record<string, unknown>, t.config) : t.config;
  }

  private setStatus(status: RunStatus, message?: string): void {
    this.status = status;
    this.message = message ?? null;
    if (this.runId) this.telemetry.status({ runId: this.runId, status, ...(message !== undefined ? { message } : {}) });
  }

  private sendNewFlags(): void {
    const t = this.trainer!;
    for (; this.flagsSent < t.flags.length; this.flagsSent++) this.telemetry.flag({ runId: this.runId!, flag: t.flags[this.flagsSent] });
  }

  /** A checkpoint file of `t`'s run: its env record, preset, run config and step. */
  private checkpointBytes(t: Trainer, weights: Float32Array, which: 'last' | 'best', step: number): Uint8Array {
    return runCheckpointBytes(t.model.config, weights, this.env!, this.preset, t.config, which, step);
  }

  /** Every slot's shipped warm start when it fits this model, else one pretrained here (cached per model and env). */
  private async warmStartFor(preset: Preset, config: RunConfig, env: Environment, steps: number | undefined, runId: string): Promise<WarmStart> {
    const key = JSON.stringify([preset.name, presetSlots(preset), config, env.blockSize, env.vocab.length, steps]);
    const cached = this.warmCache.get(key);
    if (cached) return cached;
    const backend = await this.getBackend();
    const progress = (message: string, p: number) => this.telemetry.status({ runId, status: 'idle', message, progress: p });
    const warm = await warmStarts(backend, preset, config, env, this.loadWarmStart, steps, progress);
    if (this.warmCache.size >= 4) this.warmCache.delete(this.warmCache.keys().next().value!);
    this.warmCache.set(key, warm);
    return warm;
  }

  private snapshot(): TrainerState {
    const t = this.trainer;
    return {
      runId: this.runId, preset: this.preset?.name ?? null, config: t ? this.effectiveConfig(t) : null, pending: { ...this.pending },
      status: this.status, message: this.message, backend: this.backendName, backendNote: this.backendNote(), warmStart: this.warm?.source ?? null,
      stepCount: t?.stepCount ?? 0, lambdaTok: this.pending.lambdaTok ?? t?.lambdaTok ?? 0,
      evals: t ? t.evals.map((e) => ({ ...e })) : [], bestEval: t?.bestEval ? { ...t.bestEval } : null,
      flags: t ? t.flags.map((f) => ({ ...f })) : [], skippedUpdates: t?.skippedUpdates ?? 0,
      recovery: this.recovery ? { ...this.recovery } : null, rolloutRows: t && Number.isFinite(t.rolloutRows) ? t.rolloutRows : null,
      baselines: t ? t.baselines() : [], curriculum: t ? t.curriculum.map((c) => ({ ...c })) : [], comparison: this.comparison,
    };
  }
}
