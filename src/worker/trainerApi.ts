// The trainer behind the worker boundary, driven by the page through comlink (init,
// start, pause, step, setHyperparams, ...), with telemetry batched on a MessagePort. A
// run is K >= 1 members (one Trainer of K members stepping together); each member has
// its own run id, telemetry, live changes, checkpoints, resume state, divergence watch
// and lost-device resume point, and a call about one member's run takes its run id
// (absent: member 0). Independent of the worker's global scope: the browser entry
// (trainer.worker.ts), Node tests and scripts construct it with a backend factory and a
// warm-start loader. The run's state and helpers are runHost.ts, the step loop
// runLoop.ts, the lost-device resume recovery.ts, checkpoint checks checkpointImport.ts.
import * as Comlink from 'comlink';
import { checkLiveChange, taskCodeOf, type RunConfig } from '../config';
import { InputError, quote } from '../contract/errors';
import { presetConfig } from '../envs/presets';
import { presetWithTask } from '../envs/userTask/register';
import { createEnv } from '../envs/registry';
import { rewardWeights } from '../rl/reward';
import { slotNames } from '../rl/slots';
import { Trainer } from '../rl/trainer';
import { checkStackable } from '../rl/populationPlan';
import { MAX_MEMBERS } from '../rl/placement';
import { type EvalRecord, type StepMetrics } from '../rl/runRecord';
import { trainableSlot } from '../rl/warmStart';
import { comparePlayers, type Comparison } from '../rl/compare';
import { DIVERGENCE_LIMIT, DivergenceWatch } from '../rl/faults';
import type { GpuProbe } from '../gpu/probe';
import type { Backend } from '../backend';
import type { Environment } from '../envs/types';
import { pickFaster, timeWarmStep, type EngineChoice, type EngineTiming } from '../rl/engineTiming';
import { stepAnatomy } from './anatomy';
import type { BackendPreference, InitOptions, ResumeEntry, ResumeExport, ResumeState, StepAnatomy, TrainerState, TrainerWorkerApi, Transcripts } from './protocol';
import { captureResumePoint } from './recovery';
import { importCheckpoint } from './checkpointImport';
import { type TelemetryPortLike } from './telemetry';
import { lastTranscripts } from './transcripts';

const MAX_STEPS_PER_CALL = 100_000;
const MAX_TRANSCRIPTS = 32;

export { DIVERGENCE_LIMIT, DivergenceWatch }; // moved to rl/faults (the CLI stops on the same streak)
export type { BackendFactory, GpuProber, WarmStartLoader } from './runHost';

import { errorMessage, RunHost, type WarmStart } from './runHost';

export class TrainerApi extends RunHost implements TrainerWorkerApi {
  // ---- control ----

  async init(presetName: string, overrides: Partial<RunConfig> | Partial<RunConfig>[] = {}, options: InitOptions = {}): Promise<TrainerState> {
    if (typeof presetName !== 'string') throw new InputError('init: the preset name must be a string');
    const list = Array.isArray(overrides) ? overrides : [overrides];
    if (list.length < 1 || list.length > MAX_MEMBERS) throw new InputError(`init: a run has 1 to ${MAX_MEMBERS} members; got ${list.length}`);
    list.forEach((o, k) => {
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new InputError(`init: ${list.length > 1 ? `member ${k}'s ` : ''}overrides must be an object of config fields`);
    });
    // a task of your own: its preset is registered from the code the run carries (src/envs/userTask/register.ts)
    const preset = await presetWithTask(presetName, list.map((o) => taskCodeOf(o as RunConfig)).find((c) => c !== undefined));
    const configs = list.map((o) => presetConfig(preset, o as Record<string, unknown>)), config = configs[0], K = configs.length;
    const steps = options.warmStartSteps; // undefined: the preset's cap (src/rl/warmStart.ts)
    if (steps !== undefined && (!Number.isInteger(steps) || steps < 1 || steps > 100_000)) throw new InputError(`init: warmStartSteps must be an integer in [1, 100000]; got ${steps}`);
    await this.stopLoop();
    return this.exclusive(async () => {
      const runIds = configs.map(() => this.nextRunId());
      try {
        if (!this.startedBackend) this.stage(runIds[0], 'Starting the compute engine…');
        const backend = await this.getBackend();
        const env = createEnv(config);
        if (K > 1) checkStackable(configs, env);
        this.checkMemory(backend, config, env, K); // before the warm start: a run that cannot fit starts nothing
        const warms: WarmStart[] = [];
        for (const c of configs) warms.push(await this.warmStartFor(preset, c, env, steps, runIds[0], K > 1, true));
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

  /** Training a task whose function stopped a run is refused until its code changes (the steps before are kept). */
  private refuseFailedTask(call: string): void {
    const f = this.taskFailure();
    if (f) throw new InputError(`${call}: your task's ${f.fn} stopped this run in step ${f.step}; change the task (the editor: Check, then Use this task) to train it again`);
  }

  async start(): Promise<TrainerState> {
    const t = this.requireTrainer('start');
    if (this.runner.running) return this.snapshot();
    this.refuseFailedTask('start');
    const steps = this.effectiveConfig(t).steps;
    if (t.stepCount >= steps) {
      this.setStatus('idle', `the run is at its ${steps} steps; step() goes on past them, setHyperparams({ steps }) raises the count, reset() starts over`);
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
    this.refuseFailedTask('step');
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
      this.install(trainer, env, preset, checked.map((c) => ({ slots: slotOf(c.weights), source: `this run's own last checkpoint (step ${step}), resumed`, notices: [] })), members.map((m) => m.runId));
      this.resumePoints = await Promise.all(checked.map((c, k) => captureResumePoint(trainer, null, c.bestWeights, k)));
      const restarts = checked.map((c, k) => (c.optimizerNotice ? `${who(k)}${c.optimizerNotice}` : null)).filter((x) => x !== null);
      const opt = restarts.length ? `the optimizer restarts: ${restarts.join('; ')}` : 'optimizer state restored';
      const notices = checked.flatMap((c, k) => c.notices.map((n) => `${who(k)}${n}`));
      this.setStatus('idle', `resumed ${K > 1 ? `${K} members` : 'the run'} at step ${step} (${opt})${notices.length ? `; notice: ${notices.join('; ')}` : ''}`);
      return this.snapshot();
    });
  }

  /** A stored run's last checkpoint, best checkpoint and resume state, checked whole (nothing changes here). */
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

  async useBackend(prefer: BackendPreference, lanes?: number): Promise<TrainerState> {
    if (prefer !== 'auto' && prefer !== 'cpu') throw new InputError(`useBackend: expected "auto" or "cpu"; got ${quote(prefer)}`);
    if (lanes !== undefined && !(Number.isInteger(lanes) && lanes >= 1 && lanes <= 1024)) throw new InputError(`useBackend: lanes must be an integer from 1 to 1024; got ${String(lanes)}`);
    if (lanes !== undefined) this.lanes = lanes; // the next backend built takes its share; a built one keeps its threads
    if (prefer === this.prefer) return this.snapshot();
    await this.stopLoop();
    return this.exclusive(async () => {
      this.prefer = prefer;
      // the run (if any) lives on the old backend: end it; the next init() builds on the new one
      this.trainer?.destroy();
      this.trainer = null;
      if (this.backend) (await this.backend.catch(() => null))?.destroy();
      this.backend = null;
      this.startedBackend = null;
      this.warmCache.clear();
      this.setStatus('idle', `the next run trains on ${prefer === 'cpu' ? 'the CPU engine' : 'WebGPU when there is an adapter'}; init() a preset`);
      return this.snapshot();
    });
  }

  async chooseEngine(presetName: string, overrides: Partial<RunConfig> = {}): Promise<EngineChoice | null> {
    if (typeof presetName !== 'string') throw new InputError('chooseEngine: the preset name must be a string');
    await this.stopLoop();
    return this.exclusive(async () => {
      const gpu = await this.getBackend();
      if (gpu.name !== 'webgpu') return null;
      const preset = await presetWithTask(presetName, taskCodeOf(overrides as RunConfig));
      const config = presetConfig(preset, overrides as Record<string, unknown>), env = createEnv(config);
      const cpu = await this.makeBackend('cpu', this.lanes);
      const timings: EngineTiming[] = [];
      for (const [engine, b] of [['webgpu', gpu], [cpu.name, cpu]] as const) {
        let ms = Number.NaN;
        try { ms = await this.timeStep(b, env, config); } catch { /* it cannot train this run: not chosen */ }
        timings.push({ engine, msPerStep: ms });
      }
      const pick = pickFaster(timings);
      if (pick.chosen === 'webgpu') cpu.destroy();
      else { // the CPU engine trains the next run: this worker is a CPU worker now, as after useBackend('cpu')
        this.trainer?.destroy();
        this.trainer = null;
        gpu.destroy();
        this.prefer = 'cpu';
        this.backend = Promise.resolve(cpu);
        this.startedBackend = cpu;
        this.warmCache.clear();
      }
      return { chosen: pick.chosen, timings, cached: false, line: pick.line };
    });
  }

  /** One warm step of `config` on `b`, in ms (a test plants figures here). */
  protected timeStep(b: Backend, env: Environment, config: RunConfig): Promise<number> { return timeWarmStep(b, env, config); }

  async stepAnatomy(group: number, runId?: string): Promise<StepAnatomy> {
    const t0 = this.requireTrainer('stepAnatomy');
    if (runId !== undefined) this.memberOf('stepAnatomy', runId);
    if (t0.K > 1) throw new InputError(`stepAnatomy: this member steps stacked with ${t0.K - 1} others in one worker (WebGPU); the anatomy replays a lone run's group, so it is shown for members that train alone (the CPU engine) or once the population ends`);
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

}
