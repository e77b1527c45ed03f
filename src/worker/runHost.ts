// What the worker API stands on (trainerApi.ts is the API itself): the run's state (its
// Trainer of K >= 1 members, each member's run id, pending changes, resume points and kept
// evals), the step loop's host, evals, the lost-device recovery, the warm-start cache and
// each member's state for the page.
import type { Backend } from '../backend';
import { taskCodeOf, validateConfig, type RunConfig } from '../config';
import { InputError, quote } from '../contract/errors';
import { presetSlots, type Preset } from '../envs/presets';
import type { Environment } from '../envs/types';
import type { RewardWeights } from '../rl/reward';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { checkCpuMemory, checkGpuBudget, checkStackedBudget, memoryShare } from '../rl/memoryBudget';
import { modelConfigFor } from '../rl/pretrain';
import { slotNames } from '../rl/slots';
import { Trainer } from '../rl/trainer';
import { type EvalRecord } from '../rl/runRecord';
import { trainableSlot, warmKey, warmStarts, type WarmStarts } from '../rl/warmStart';
import type { Comparison } from '../rl/compare';
import type { GpuProbe } from '../gpu/probe';
import type { BackendPreference, Recovery, ResumeEntry, RunStatus, TaskFailure, TrainerState } from './protocol';
import { checkResumeState } from './resumeRun';
import { captureResumePoint, discardLost, isDeviceLost, resumeTrainer, type ResumePoint } from './recovery';
import { RunLoop } from './runLoop';
import { importCheckpoint } from './checkpointImport';
import { Serial } from './serial';
import { TelemetryBatcher } from './telemetry';
import { KeptWeights } from './keptWeights';
import { type TranscriptSource } from './transcripts';
import { runCheckpointBytes } from './checkpointBytes';
import { cpuEngineOf, cpuThreadsOf } from './cpuEngine';

/** Makes the backend: 'auto' is WebGPU when there is an adapter, else the CPU; 'cpu' is the CPU reference. */
/** lanes: training workers running at once on the page, this one included (the CPU engine divides the cores among them). */
export type BackendFactory = (prefer: BackendPreference, lanes: number) => Promise<Backend>;
/** Whether the host offers WebGPU (the browser entry asks navigator.gpu). */
export type GpuProber = () => Promise<GpuProbe>;
/** The bytes of a shipped warm start (public/checkpoints/<file>), or null when there is none. */
export type WarmStartLoader = (file: string) => Promise<Uint8Array | null>;

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export type WarmStart = WarmStarts;

export abstract class RunHost {
  protected backend: Promise<Backend> | null = null;
  /** The backend once started (any engine; null: none, or still starting): the state names it from this. */
  protected startedBackend: Backend | null = null;
  /** Training workers running at once on the page (useBackend's lanes): the next CPU engine's share of the cores. */
  protected lanes = 1;
  protected trainer: Trainer | null = null;
  protected env: Environment | null = null;
  protected preset: Preset | null = null;
  protected warms: WarmStart[] = []; // each member's
  protected get warm(): WarmStart | null { return this.warms[0] ?? null; }
  protected readonly warmCache = new Map<string, WarmStart>();
  protected pending: Partial<RunConfig>[] = []; // each member's change for the next step
  protected pendingRows = Infinity; // the rollout chunk the pending change needs (memory budget)
  protected status: RunStatus = 'idle';
  protected message: string | null = null;
  protected runIds: string[] = []; // each member's
  protected get runId(): string | null { return this.runIds[0] ?? null; }
  protected runCounter = 0;
  protected readonly lock = new Serial();
  protected flagsSent: number[] = [];
  protected comparison: Comparison | null = null;
  protected readonly telemetry = new TelemetryBatcher();
  protected readonly runner = new RunLoop({
    telemetry: this.telemetry,
    trainer: () => this.trainer!,
    runIds: () => this.runIds,
    status: () => this.status,
    setStatus: (status, message) => this.setStatus(status, message),
    taskFailed: (e, step) => {
      const code = this.trainer ? taskCodeOf(this.trainer.config) : undefined;
      const f: TaskFailure = { fn: e.where.fn, step, message: e.message };
      if (code !== undefined) this.failedTasks.set(code, f);
      return `your task's ${f.fn} stopped the run in step ${step}: ${f.message}`;
    },
    exclusive: (fn) => this.exclusive(fn),
    applyPending: (t) => {
      if (this.pending.every((p) => Object.keys(p).length === 0)) return;
      t.setMemberChanges(this.pending);
      t.rolloutRows = this.pendingRows;
      this.pending = this.pending.map(() => ({}));
    },
    plannedSteps: () => this.effectiveConfig(this.trainer!).steps,
    stepWeights: (w) => { this.lastStepWeights = w; },
    runEval: () => this.runEval(),
    sendNewFlags: () => this.sendNewFlags(),
    lostDevice: () => this.lostDevice(),
    recover: (cause) => this.recoverFromLostDevice(cause),
  });
  protected prefer: BackendPreference = 'auto';
  protected resumePoints: (ResumePoint | null)[] = []; // each member's, taken at every eval: where a lost device resumes
  protected recovery: Recovery | null = null;
  protected lastStepWeights: RewardWeights | null = null;
  protected kept: KeptWeights[] = []; // each member's evals a "best" rule can pick
  /** Tasks (by code) whose functions stopped a run: training them is refused until the code changes. */
  protected readonly failedTasks = new Map<string, TaskFailure>();

  /** The failure that stopped a run of the current run's task code (null: none, or not a task of your own). */
  protected taskFailure(): TaskFailure | null {
    const code = this.trainer ? taskCodeOf(this.trainer.config) : undefined;
    return code === undefined ? null : this.failedTasks.get(code) ?? null;
  }

  constructor(protected readonly makeBackend: BackendFactory, protected readonly loadWarmStart: WarmStartLoader,
    protected readonly probeGpu: GpuProber = async () => ({ ok: false, reason: 'this host has no WebGPU probe' }),
    /** Why WebGPU was there but the backend factory chose the CPU (null: it did not). */
    protected readonly backendNote: () => string | null = () => null) {}

  protected checkResumeEntry({ runId, last, best, state }: ResumeEntry) {
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

  // ---- evals and lost-device recovery (the step loop is in runLoop.ts) ----

  protected async runEval(): Promise<EvalRecord[]> {
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

  protected stopLoop(): Promise<void> {
    return this.runner.stop();
  }

  /** True when the backend's device is lost (WebGPU); the CPU never is. */
  protected async lostDevice(): Promise<boolean> {
    if (!this.backend) return false;
    return isDeviceLost(await this.backend.catch(() => null));
  }

  /**
   * A new backend and Trainer after the device was lost, from the checkpoint of the last eval (or the
   * warm start before any): the run keeps its id, evals and counters, and goes on from that step.
   */
  protected async recoverFromLostDevice(cause: unknown): Promise<void> {
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

  protected exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  protected getBackend(): Promise<Backend> {
    if (!this.backend) {
      const made = this.makeBackend(this.prefer, this.lanes);
      this.backend = made;
      made.then((b) => { this.startedBackend = b; }, () => { this.backend = null; });
    }
    return this.backend;
  }

  /**
   * On WebGPU: the rows a rollout generates at once (Infinity: all; fewer when all would not fit), or throws (naming
   * the setting to lower) when the run does not fit the device even so (memoryBudget.ts). The CPU engines: Infinity,
   * after the same estimate against the page's share of memory (a run that cannot fit is refused, not started).
   */
  protected checkMemory(backend: Backend, config: RunConfig, env: Environment, K = 1): number {
    const deviceMemory = (globalThis.navigator as { deviceMemory?: number } | undefined)?.deviceMemory;
    if (!(backend instanceof WebGpuBackend)) {
      const share = memoryShare(deviceMemory);
      checkCpuMemory(config, modelConfigFor(env, config), slotNames(env).length, share, K, `half the ${deviceMemory ? `${deviceMemory} GiB the browser reports` : '4 GiB assumed for this browser'}`);
      return Infinity;
    }
    if (K > 1) { checkStackedBudget(config, modelConfigFor(env, config), K, backend.limits, memoryShare(deviceMemory)); return Infinity; }
    return checkGpuBudget(config, modelConfigFor(env, config), slotNames(env).length, backend.limits, memoryShare(deviceMemory)).chunkRows;
  }

  /** A lone run from its slots' starts, or a population from each member's warm start. */
  protected newTrainer(backend: Backend, env: Environment, configs: RunConfig[], warms: WarmStart[]): Trainer {
    if (configs.length === 1) return new Trainer(backend, env, configs[0], warms[0].slots);
    const slot = slotNames(env)[0];
    return new Trainer(backend, env, configs, warms.map((w) => w.slots[slot].weights));
  }

  /** The member that run `runId` is (an InputError naming the runs held when it is none of them). */
  protected memberOf(what: string, runId: string): number {
    const k = this.runIds.indexOf(runId);
    if (k < 0) throw new InputError(`${what}: run ${quote(String(runId))} is no longer in the trainer (it holds ${this.runIds.join(', ') || 'none'})`);
    return k;
  }

  /** Member k's share of the run, as transcripts read it. */
  protected memberSource(k: number): TranscriptSource {
    const t = this.trainer!, m = t.members[k];
    return { lastRollout: m.lastRollout, lastEval: m.lastEval, config: m.config, stepCount: t.stepCount, evals: m.evals };
  }

  protected requireTrainer(what: string): Trainer {
    if (!this.trainer) throw new InputError(`${what}: no run yet; call init(preset) first`);
    return this.trainer;
  }

  /** A stage of init() for the run being born (the page shows it while it waits). */
  protected stage(runId: string, message: string): void {
    this.telemetry.status({ runId, status: 'idle', message, starting: true });
  }

  protected nextRunId(): string {
    return `run-${++this.runCounter}-${Math.floor(Math.random() * 0x7fffffff).toString(36)}`;
  }

  protected install(trainer: Trainer, env: Environment, preset: Preset, warms: WarmStart[], runIds: string[]): void {
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

  protected effectiveConfig(t: Trainer, k = 0): RunConfig {
    const p = this.pending[k] ?? {}, c = t.members[k].config;
    return Object.keys(p).length ? validateConfig(p as Record<string, unknown>, c) : c;
  }

  protected setStatus(status: RunStatus, message?: string): void {
    this.status = status;
    this.message = message ?? null;
    for (const runId of this.runIds) this.telemetry.status({ runId, status, ...(message !== undefined ? { message } : {}) });
  }

  protected sendNewFlags(): void {
    this.trainer!.members.forEach((m, k) => {
      for (; this.flagsSent[k] < m.flags.length; this.flagsSent[k]++) this.telemetry.flag({ runId: this.runIds[k], flag: m.flags[this.flagsSent[k]] });
    });
  }

  /** A checkpoint file of member k's run: its env record, preset, run config and step. */
  protected checkpointBytes(t: Trainer, k: number, weights: Float32Array, which: 'last' | 'best', step: number): Uint8Array {
    return runCheckpointBytes(t.model.config, weights, this.env!, this.preset, t.members[k].config, which, step);
  }

  /** Every slot's shipped warm start when it fits this model, else one pretrained here (cached per model and env). */
  protected async warmStartFor(preset: Preset, config: RunConfig, env: Environment, steps: number | undefined, runId: string, shared = false, starting = false): Promise<WarmStart> {
    // a population's members share one per warm key (they differ in seed or the reward's fields, not in what pretrains)
    const key = JSON.stringify([preset.name, presetSlots(preset), shared ? warmKey(config) : config, env.blockSize, env.vocab.length, steps]);
    const cached = this.warmCache.get(key);
    if (cached) return cached;
    const backend = await this.getBackend();
    const progress = (message: string, p: number) => this.telemetry.status({ runId, status: 'idle', message, progress: p, ...(starting ? { starting: true } : {}) });
    // a run being born says which file it waits on, so a load that never answers is named on the page
    const load: WarmStartLoader = starting ? (file) => { this.stage(runId, `Fetching the warm start (${file})…`); return this.loadWarmStart(file); } : this.loadWarmStart;
    const warm = await warmStarts(backend, preset, config, env, load, steps, progress);
    if (this.warmCache.size >= 4) this.warmCache.delete(this.warmCache.keys().next().value!);
    this.warmCache.set(key, warm);
    return warm;
  }

  /** The started backend as the state names it: the page calls both CPU engines (reference and wasm) 'cpu', and says which in cpuEngine. */
  private engineNames(): Pick<TrainerState, 'backend' | 'cpuEngine' | 'cpuThreads'> {
    const b = this.startedBackend;
    if (!b) return { backend: null, cpuEngine: null, cpuThreads: null };
    return { backend: b.name === 'wasm' ? 'cpu' : b.name, cpuEngine: cpuEngineOf(b), cpuThreads: cpuThreadsOf(b) };
  }

  /** Member k's state (a lone run's: k = 0). */
  protected snapshot(k = 0): TrainerState {
    const t = this.trainer, m = t?.members[k], pending = this.pending[k] ?? {};
    return {
      runId: this.runIds[k] ?? null, preset: this.preset?.name ?? null, config: t ? this.effectiveConfig(t, k) : null, pending: { ...pending },
      status: this.status, message: this.message, ...this.engineNames(), backendNote: this.backendNote(), warmStart: this.warms[k]?.source ?? null,
      stepCount: t?.stepCount ?? 0, lambdaTok: pending.lambdaTok ?? m?.lambdaTok ?? 0,
      evals: m ? m.evals.map((e) => ({ ...e })) : [], bestEval: m?.bestEval ? { ...m.bestEval } : null,
      flags: m ? m.flags.map((f) => ({ ...f })) : [], skippedUpdates: m?.skippedUpdates ?? 0,
      recovery: this.recovery ? { ...this.recovery } : null, rolloutRows: t && Number.isFinite(t.rolloutRows) ? t.rolloutRows : null,
      baselines: t ? t.baselines() : [], curriculum: t ? t.curriculum.map((c) => ({ ...c })) : [], comparison: this.comparison,
      taskFailure: this.taskFailure(),
    };
  }
}
