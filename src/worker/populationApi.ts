// The population worker's API: a sweep's K members as one stacked population on WebGPU
// (src/rl/populationTrainer.ts), so the page's sweep costs one set of dispatches per step
// whatever K. Each member is a run of its own to the page: its run id, its telemetry on the
// shared port, its checkpoints and resume state (a lone trainer continues it). The loop is
// the lone worker's in small: the warm start's eval first, pending changes between steps,
// evals at evalEvery, a pause at the next step.
import * as Comlink from 'comlink';
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import { InputError, quote } from '../errors';
import { findPreset, presetConfig, type Preset } from '../envs/presets';
import { createEnv } from '../envs/registry';
import type { Environment } from '../envs/types';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { checkStackedBudget, memoryShare } from '../rl/memoryBudget';
import { Trainer } from '../rl/trainer';
import { checkStackable } from '../rl/populationPlan';
import { modelConfigFor } from '../rl/pretrain';
import { slotNames } from '../rl/slots';
import { warmKey, warmStarts, type WarmStarts } from '../rl/warmStart';
import type { PopulationWorkerApi, ResumeExport, RunStatus, TrainerState, Transcripts } from './protocol';
import { Serial } from './serial';
import { TelemetryBatcher, type TelemetryPortLike } from './telemetry';
import { lastTranscripts } from './transcripts';
import { runCheckpointBytes } from './checkpointBytes';
import type { BackendFactory, WarmStartLoader } from './trainerApi';

const MAX_MEMBERS = 64;
const MAX_TRANSCRIPTS = 32;
const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const yieldToEventLoop = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

export class PopulationApi implements PopulationWorkerApi {
  private backendMade: Promise<Backend> | null = null;
  private trainer: Trainer | null = null;
  private env: Environment | null = null;
  private preset: Preset | null = null;
  private warm: WarmStarts[] = [];
  private runIds: string[] = [];
  private flagsSent: number[] = [];
  private status: RunStatus = 'idle';
  private message: string | null = null;
  private loop: Promise<void> | null = null;
  private stopRequested = false;
  private readonly lock = new Serial();
  private readonly telemetry = new TelemetryBatcher();
  private static made = 0;

  constructor(private readonly makeBackend: BackendFactory, private readonly loadWarmStart: WarmStartLoader,
    private readonly backendNote: () => string | null = () => null) {}

  async backend(): Promise<{ name: 'cpu' | 'webgpu'; note: string | null }> {
    const b = await this.getBackend();
    return { name: b.name as 'cpu' | 'webgpu', note: this.backendNote() };
  }

  async init(presetName: string, overrides: Partial<RunConfig>[]): Promise<TrainerState[]> {
    if (typeof presetName !== 'string') throw new InputError('init: the preset name must be a string');
    if (!Array.isArray(overrides) || overrides.length < 1 || overrides.length > MAX_MEMBERS) throw new InputError(`init: overrides must be a list of 1 to ${MAX_MEMBERS} members' config fields`);
    const preset = findPreset(presetName);
    const configs = overrides.map((o, k) => {
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new InputError(`init: member ${k}'s overrides must be an object of config fields`);
      return presetConfig(preset, o as Record<string, unknown>);
    });
    await this.stop();
    return this.exclusive(async () => {
      const backend = await this.getBackend();
      if (!(backend instanceof WebGpuBackend)) {
        const note = this.backendNote();
        throw new InputError(`a stacked population trains on WebGPU; this worker computes on the CPU${note ? ` (${note})` : ''}`);
      }
      const env = createEnv(configs[0]);
      checkStackable(configs, env);
      const deviceMemory = (globalThis.navigator as { deviceMemory?: number } | undefined)?.deviceMemory;
      checkStackedBudget(configs[0], modelConfigFor(env, configs[0]), configs.length, backend.limits, memoryShare(deviceMemory));
      const runIds = configs.map(() => `run-p${++PopulationApi.made}-${Math.floor(Math.random() * 0x7fffffff).toString(36)}`);
      // one warm start per distinct warm key (members differing in seed or lambda_tok share it)
      const byKey = new Map<string, WarmStarts>();
      const warm: WarmStarts[] = [];
      for (const c of configs) {
        const key = warmKey(c);
        if (!byKey.has(key)) {
          const progress = (message: string, p: number) => runIds.forEach((runId) => this.telemetry.status({ runId, status: 'idle', message, progress: p }));
          byKey.set(key, await warmStarts(backend, preset, c, env, this.loadWarmStart, undefined, progress));
        }
        warm.push(byKey.get(key)!);
      }
      const slot = slotNames(env)[0];
      const trainer = new Trainer(backend, env, configs, warm.map((w) => w.slots[slot].weights));
      this.telemetry.flush();
      this.trainer?.destroy();
      Object.assign(this, { trainer, env, preset, warm, runIds, flagsSent: configs.map(() => 0) });
      this.setStatus('idle', `ready: ${preset.title}, ${configs.length} members stacked on WebGPU (one set of dispatches per step); warm start from ${warm[0].source}`);
      return this.states();
    });
  }

  async start(): Promise<TrainerState[]> {
    const t = this.need('start');
    if (this.loop) return this.states();
    if (t.stepCount >= t.members[0].config.steps) {
      this.setStatus('idle', `the members are at their ${t.members[0].config.steps} steps`);
      return this.states();
    }
    this.stopRequested = false;
    const loop = this.run();
    this.loop = loop;
    void loop.then(() => { if (this.loop === loop) this.loop = null; });
    return this.states();
  }

  async pause(): Promise<TrainerState[]> {
    await this.stop();
    return this.states();
  }

  async getStates(): Promise<TrainerState[]> {
    return this.states();
  }

  async setHyperparams(member: number | null, partial: Partial<RunConfig>): Promise<TrainerState[]> {
    const t = this.need('setHyperparams');
    if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) throw new InputError('setHyperparams: expected an object of config fields');
    // under the lock: the change lands between two steps, never inside one
    return this.exclusive(async () => {
      t.setHyperparams(partial, member);
      return this.states();
    });
  }

  async exportCheckpoint(which: 'last' | 'best', member: number): Promise<Uint8Array> {
    const t = this.need('exportCheckpoint');
    if (which !== 'last' && which !== 'best') throw new InputError(`exportCheckpoint: which must be "last" or "best"; got ${quote(which)}`);
    this.checkMember(member);
    return this.exclusive(async () => {
      const m = t.members[member];
      const step = which === 'best' ? (m.bestEval?.step ?? 0) : t.stepCount;
      const bytes = this.checkpointBytes(member, await t.readWeights(which, member), which, step);
      return Comlink.transfer(bytes, [bytes.buffer as ArrayBuffer]);
    });
  }

  async exportResume(member: number): Promise<ResumeExport> {
    const t = this.need('exportResume');
    this.checkMember(member);
    return this.exclusive(async () => {
      const { weights, ...state } = await t.snapshot({ optimizer: true, member }); // one read: the checkpoint and the state are of one step
      const checkpoint = this.checkpointBytes(member, weights, 'last', state.step);
      const buffers = [checkpoint.buffer, ...(state.optimizer ? [state.optimizer.m.buffer, state.optimizer.v.buffer] : []), ...(state.reference ? [state.reference.buffer] : [])];
      return Comlink.transfer({ checkpoint, state }, buffers as ArrayBuffer[]);
    });
  }

  async lastTranscripts(member: number, count = 4): Promise<Transcripts> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_TRANSCRIPTS) throw new InputError(`lastTranscripts: count must be an integer in [1, ${MAX_TRANSCRIPTS}]; got ${count}`);
    const t = this.trainer;
    if (!t) return { train: null, eval: null };
    this.checkMember(member);
    return this.exclusive(async () => {
      const m = t.members[member];
      return lastTranscripts({ lastRollout: m.lastRollout, lastEval: m.lastEval, config: m.config, stepCount: t.stepCount, evals: m.evals }, this.env!, count);
    });
  }

  async telemetryPort(port: MessagePort | TelemetryPortLike): Promise<void> {
    this.telemetry.attach(port as TelemetryPortLike);
  }

  /** Stops the loop and frees the device (Node tests; the browser ends the worker). */
  async destroy(): Promise<void> {
    await this.stop();
    await this.exclusive(async () => {
      this.trainer?.destroy();
      this.trainer = null;
      this.telemetry.dispose();
      if (this.backendMade) (await this.backendMade.catch(() => null))?.destroy();
      this.backendMade = null;
    });
  }

  // ---- the loop ----

  private async run(): Promise<void> {
    const t = this.trainer!;
    this.setStatus('running');
    try {
      while (!this.stopRequested && t.stepCount < t.members[0].config.steps) {
        await this.exclusive(() => this.oneStep(t));
        await yieldToEventLoop(); // lets pause, setHyperparams and getStates in
      }
      if (!this.stopRequested) {
        if (t.members[0].evals[t.members[0].evals.length - 1]?.step !== t.stepCount) await this.exclusive(() => this.evaluate(t));
        this.setStatus('idle', `finished ${t.stepCount} steps`);
      } else this.setStatus('paused', `paused at step ${t.stepCount}`);
    } catch (e) {
      this.setStatus('error', errorMessage(e));
    } finally {
      this.telemetry.flush();
    }
  }

  private async oneStep(t: Trainer): Promise<void> {
    if (t.stepCount === 0 && t.members[0].evals.length === 0) await this.evaluate(t); // the warm start's point on the frontier
    const ms = await t.stepAll();
    ms.forEach((m, k) => this.telemetry.metrics(this.runIds[k], m));
    this.sendNewFlags(t);
    if (t.stepCount % t.members[0].config.evalEvery === 0) await this.evaluate(t);
  }

  private async evaluate(t: Trainer): Promise<void> {
    const recs = await t.evaluateAll();
    recs.forEach((record, k) => this.telemetry.eval({ runId: this.runIds[k], record }));
    this.sendNewFlags(t);
  }

  private sendNewFlags(t: Trainer): void {
    t.members.forEach((m, k) => {
      for (; this.flagsSent[k] < m.flags.length; this.flagsSent[k]++) this.telemetry.flag({ runId: this.runIds[k], flag: m.flags[this.flagsSent[k]] });
    });
  }

  private async stop(): Promise<void> {
    const loop = this.loop;
    if (!loop) return;
    this.stopRequested = true;
    await loop;
    if (this.loop === loop) this.loop = null;
  }

  // ---- helpers ----

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  private getBackend(): Promise<Backend> {
    if (!this.backendMade) {
      const made = this.makeBackend('auto');
      this.backendMade = made;
      made.catch(() => { this.backendMade = null; });
    }
    return this.backendMade;
  }

  private need(what: string): Trainer {
    if (!this.trainer) throw new InputError(`${what}: no population yet; call init(preset, overrides) first`);
    return this.trainer;
  }

  private checkMember(member: number): void {
    const K = this.trainer?.K ?? 0;
    if (!Number.isInteger(member) || member < 0 || member >= K) throw new InputError(`member ${member} does not exist (members 0..${K - 1})`);
  }

  private setStatus(status: RunStatus, message?: string): void {
    this.status = status;
    this.message = message ?? null;
    for (const runId of this.runIds) this.telemetry.status({ runId, status, ...(message !== undefined ? { message } : {}) });
  }

  private checkpointBytes(k: number, weights: Float32Array, which: 'last' | 'best', step: number): Uint8Array {
    const t = this.trainer!;
    return runCheckpointBytes(t.model.config, weights, this.env!, this.preset, t.members[k].config, which, step);
  }

  private states(): TrainerState[] {
    const t = this.trainer;
    if (!t) return [];
    return t.members.map((m, k) => ({
      runId: this.runIds[k], preset: this.preset!.name, config: { ...m.config }, pending: {}, status: this.status, message: this.message,
      backend: 'webgpu', backendNote: null, warmStart: this.warm[k].source, stepCount: t.stepCount, lambdaTok: m.lambdaTok,
      evals: m.evals.map((e) => ({ ...e })), bestEval: m.bestEval ? { ...m.bestEval } : null, flags: m.flags.map((f) => ({ ...f })),
      skippedUpdates: m.skippedUpdates, recovery: null, baselines: t.baselines(), curriculum: [], comparison: null,
    }));
  }
}
