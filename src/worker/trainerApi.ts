// The trainer behind the worker boundary: one run at a time, driven by the
// page through comlink (init, start, pause, step, setHyperparams, ...), with
// telemetry batched on a MessagePort. Independent of the worker's global scope:
// the browser entry (trainer.worker.ts), Node tests and scripts construct it
// with a backend factory and a warm-start loader.
import * as Comlink from 'comlink';
import type { Backend } from '../backend';
import { checkLiveChange, validateConfig, type RunConfig } from '../config';
import { InputError } from '../errors';
import { findPreset, presetConfig, PRESETS, type Preset } from '../envs/presets';
import { createEnv } from '../envs/registry';
import type { Environment } from '../envs/types';
import { readCheckpoint, writeCheckpoint } from '../model/checkpoint';
import { GPT } from '../model/gpt';
import { modelConfigFor, pretrain, PRETRAIN_DEFAULTS } from '../rl/pretrain';
import { messageParts, reward, type RewardParts } from '../rl/reward';
import type { Rollout, Sequence } from '../rl/rollout';
import { Trainer, type EvalRecord, type StepMetrics } from '../rl/trainer';
import type { EpisodeTranscript, InitOptions, RunStatus, TrainerState, TrainerWorkerApi, Transcripts } from './protocol';
import { TelemetryBatcher, type TelemetryPortLike } from './telemetry';

export type BackendFactory = () => Promise<Backend>;
/** The bytes of a shipped warm start (public/checkpoints/<file>), or null when there is none. */
export type WarmStartLoader = (file: string) => Promise<Uint8Array | null>;

/** Consecutive skipped updates (non-finite loss or gradient) that pause a run. */
export const DIVERGENCE_LIMIT = 3;
const MAX_STEPS_PER_CALL = 100_000;
const MAX_TRANSCRIPTS = 32;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const yieldToEventLoop = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

/**
 * Counts consecutive skipped optimizer updates from per-step counts. A step
 * whose updates were all skipped extends the streak; a step with some skipped
 * restarts it at that count (the skips are taken to be its last updates); a
 * clean step ends it.
 */
export class DivergenceWatch {
  streak = 0;
  constructor(readonly limit = DIVERGENCE_LIMIT) {}
  record(skipped: number, updates: number): boolean {
    if (skipped <= 0) this.streak = 0;
    else if (skipped >= updates) this.streak += skipped;
    else this.streak = skipped;
    return this.tripped;
  }
  get tripped(): boolean { return this.streak >= this.limit; }
  reset(): void { this.streak = 0; }
}

interface WarmStart { weights: Float32Array; source: string }

export class TrainerApi implements TrainerWorkerApi {
  private backend: Promise<Backend> | null = null;
  private backendName: 'cpu' | 'webgpu' | null = null;
  private trainer: Trainer | null = null;
  private env: Environment | null = null;
  private preset: Preset | null = null;
  private warm: WarmStart | null = null;
  private readonly warmCache = new Map<string, WarmStart>();
  private pending: Partial<RunConfig> = {};
  private status: RunStatus = 'idle';
  private message: string | null = null;
  private runId: string | null = null;
  private runCounter = 0;
  private loop: Promise<{ metrics: StepMetrics[]; error: unknown }> | null = null;
  private stopRequested = false;
  private lock: Promise<unknown> = Promise.resolve();
  private flagsSent = 0;
  private readonly divergence = new DivergenceWatch();
  private readonly telemetry = new TelemetryBatcher();

  constructor(private readonly makeBackend: BackendFactory, private readonly loadWarmStart: WarmStartLoader) {}

  // ---- control ----

  async init(presetName: string, overrides: Partial<RunConfig> = {}, options: InitOptions = {}): Promise<TrainerState> {
    if (typeof presetName !== 'string') throw new InputError('init: the preset name must be a string');
    if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) throw new InputError('init: overrides must be an object of config fields');
    const preset = findPreset(presetName);
    const config = presetConfig(preset, overrides as Record<string, unknown>);
    const steps = options.warmStartSteps ?? PRETRAIN_DEFAULTS.steps;
    if (!Number.isInteger(steps) || steps < 1 || steps > 100_000) throw new InputError(`init: warmStartSteps must be an integer in [1, 100000]; got ${steps}`);
    await this.stopLoop();
    return this.exclusive(async () => {
      const runId = this.nextRunId();
      try {
        const backend = await this.getBackend();
        const env = createEnv(config);
        const warm = await this.warmStartFor(preset, config, env, steps, runId);
        const trainer = new Trainer(backend, env, config, warm.weights);
        this.install(trainer, env, preset, warm, runId);
        this.setStatus('idle', `ready: ${preset.title}; warm start from ${warm.source}`);
        return this.snapshot();
      } catch (e) {
        this.telemetry.status({ runId, status: 'error', message: `init failed: ${errorMessage(e)}` });
        throw e;
      }
    });
  }

  async start(): Promise<TrainerState> {
    const t = this.requireTrainer('start');
    if (this.loop) return this.snapshot();
    if (t.stepCount >= t.config.steps) {
      this.setStatus('idle', `the run is at its ${t.config.steps} steps; step() goes on past them, reset() starts over`);
      return this.snapshot();
    }
    this.divergence.reset();
    const loop = this.runSteps(Infinity, true);
    this.loop = loop;
    void loop.then(() => { if (this.loop === loop) this.loop = null; });
    return this.snapshot();
  }

  async pause(): Promise<TrainerState> {
    await this.stopLoop();
    return this.snapshot();
  }

  async step(n = 1): Promise<StepMetrics[]> {
    this.requireTrainer('step');
    if (!Number.isInteger(n) || n < 1 || n > MAX_STEPS_PER_CALL) throw new InputError(`step: n must be an integer in [1, ${MAX_STEPS_PER_CALL}]; got ${n}`);
    if (this.loop) throw new InputError('step: the run is already running; pause() it first');
    this.divergence.reset();
    const loop = this.runSteps(n, false);
    this.loop = loop;
    try {
      const { metrics, error } = await loop;
      if (error) throw error;
      return metrics;
    } finally {
      if (this.loop === loop) this.loop = null;
    }
  }

  async reset(): Promise<TrainerState> {
    const t = this.requireTrainer('reset');
    await this.stopLoop();
    return this.exclusive(async () => {
      const config = this.effectiveConfig(t);
      const env = this.env!, warm = this.warm!, preset = this.preset!;
      const trainer = new Trainer(await this.getBackend(), env, config, warm.weights);
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
    validateConfig(merged as Record<string, unknown>, t.config); // throws naming the field and its range
    this.pending = merged;
    return this.snapshot();
  }

  async evaluate(): Promise<EvalRecord> {
    this.requireTrainer('evaluate');
    return this.exclusive(() => this.runEval());
  }

  async getState(): Promise<TrainerState> {
    return this.snapshot();
  }

  async exportCheckpoint(which: 'last' | 'best'): Promise<Uint8Array> {
    this.requireTrainer('exportCheckpoint');
    if (which !== 'last' && which !== 'best') throw new InputError(`exportCheckpoint: which must be "last" or "best"; got ${JSON.stringify(which)}`);
    return this.exclusive(async () => {
      const t = this.trainer!, env = this.env!;
      const weights = await t.readWeights(which);
      const step = which === 'best' ? (t.bestEval?.step ?? 0) : t.stepCount;
      const bytes = writeCheckpoint({
        config: t.model.config, weights, vocab: [...env.vocab],
        extras: { env: env.id, preset: this.preset?.name ?? '', run_config: JSON.stringify(t.config), step: String(step), which },
      });
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      return Comlink.transfer(own, [own.buffer]);
    });
  }

  async loadCheckpoint(bytes: Uint8Array): Promise<TrainerState> {
    if (!(bytes instanceof Uint8Array)) throw new InputError('loadCheckpoint expects the bytes of a .safetensors file (a Uint8Array)');
    // Everything is checked before anything changes: a bad file leaves the run as it was.
    const reject = (why: string): never => { throw new InputError(`checkpoint rejected: ${why}`); };
    let ck: ReturnType<typeof readCheckpoint>;
    try { ck = readCheckpoint(bytes); } catch (e) { return reject(errorMessage(e)); }
    let config: RunConfig;
    const current = this.trainer ? this.effectiveConfig(this.trainer) : null;
    if (ck.extras.run_config !== undefined) {
      let raw: unknown;
      try { raw = JSON.parse(ck.extras.run_config); } catch { return reject('__metadata__.run_config is not valid JSON'); }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return reject('__metadata__.run_config must be a JSON object');
      try { config = validateConfig(raw as Record<string, unknown>); } catch (e) { return reject(`run_config: ${errorMessage(e)}`); }
    } else if (current) {
      try { config = validateConfig({ nLayer: ck.config.nLayer, nHead: ck.config.nHead, nEmbd: ck.config.nEmbd }, current); } catch (e) { return reject(errorMessage(e)); }
    } else {
      return reject('it has no run_config in its metadata; init() a preset first so its config can be used');
    }
    const m = ck.config;
    if (m.nLayer !== config.nLayer || m.nHead !== config.nHead || m.nEmbd !== config.nEmbd) {
      reject(`its tensors are n_layer ${m.nLayer}, n_head ${m.nHead}, n_embd ${m.nEmbd} but its run_config says ${config.nLayer}, ${config.nHead}, ${config.nEmbd}`);
    }
    let env: Environment;
    try { env = createEnv(config); } catch (e) { return reject(errorMessage(e)); }
    if (m.blockSize !== env.blockSize || m.vocabSize !== env.vocab.length) {
      reject(`block_size ${m.blockSize} / vocab_size ${m.vocabSize} do not fit the ${env.id} environment (${env.blockSize} / ${env.vocab.length})`);
    }
    if (ck.vocab && ck.vocab.join('\u0000') !== env.vocab.join('\u0000')) reject(`its vocabulary does not match the ${env.id} environment's`);
    const named = ck.extras.preset ? PRESETS.find((p) => p.name === ck.extras.preset) : undefined;
    const preset = named ?? this.preset ?? PRESETS.find((p) => (p.config.env ?? 'relay') === config.env);
    if (!preset) return reject(`no preset for the ${config.env} environment`);
    const weights = ck.weights;
    const step = ck.extras.step ? ` (step ${ck.extras.step}${ck.extras.preset ? ` of ${ck.extras.preset}` : ''})` : '';
    await this.stopLoop();
    return this.exclusive(async () => {
      const trainer = new Trainer(await this.getBackend(), env, config, weights);
      this.install(trainer, env, preset, { weights, source: `a loaded checkpoint${step}` }, this.nextRunId());
      this.setStatus('idle', `loaded a checkpoint${step}; reset() returns to it`);
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
      const t = this.trainer!, env = this.env!;
      const out: Transcripts = { train: null, eval: null };
      if (t.lastRollout) {
        const { rollout: ro, rewards } = t.lastRollout;
        out.train = { step: t.stepCount - 1, episodes: this.episodes(ro, count, (e) => rewards[e]) };
      }
      const lastEval = t.evals[t.evals.length - 1];
      if (t.lastEval && lastEval) {
        const ro = t.lastEval.rollout;
        const bySeq = this.sequencesByEpisode(ro);
        const w = { lambdaTok: lastEval.lambdaTok, lambdaTurn: t.config.lambdaTurn, lambdaRep: t.config.lambdaRep };
        out.eval = { step: lastEval.step, episodes: this.episodes(ro, count, (e) => reward(ro.scores[e].rTask, messageParts(bySeq[e], env.eos), w)) };
      }
      return out;
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

  // ---- the step loop ----

  /** Steps until `max` steps, a pause, an error, divergence, or (when `untilDone`) config.steps. */
  private async runSteps(max: number, untilDone: boolean): Promise<{ metrics: StepMetrics[]; error: unknown }> {
    const metrics: StepMetrics[] = [];
    this.stopRequested = false;
    this.setStatus('running');
    try {
      for (let i = 0; i < max; i++) {
        if (this.stopRequested) break;
        const t = this.trainer!;
        if (untilDone && t.stepCount >= t.config.steps) break;
        metrics.push(await this.exclusive(() => this.oneStep()));
        if (this.divergence.tripped) break;
        await yieldToEventLoop(); // lets pause, setHyperparams and getState in
      }
      const t = this.trainer!;
      if (this.divergence.tripped) {
        const message = `paused: ${this.divergence.streak} consecutive updates were skipped (non-finite loss or gradient); lower lr or reset()`;
        const flag = { kind: 'diverged' as const, step: t.stepCount, message };
        t.flags.push(flag);
        this.sendNewFlags();
        this.setStatus('paused', message);
      } else if (!this.stopRequested && untilDone && t.stepCount >= t.config.steps) {
        if (t.evals[t.evals.length - 1]?.step !== t.stepCount) await this.exclusive(() => this.runEval());
        this.setStatus('idle', `finished ${t.stepCount} steps`);
      } else {
        this.setStatus('paused', `paused at step ${t.stepCount}`);
      }
      return { metrics, error: null };
    } catch (e) {
      this.setStatus('error', errorMessage(e));
      return { metrics, error: e };
    } finally {
      this.telemetry.flush();
    }
  }

  /** One step under the lock: the warm start's eval first, pending hyperparameters, the step, evals at evalEvery. */
  private async oneStep(): Promise<StepMetrics> {
    const t = this.trainer!;
    if (t.stepCount === 0 && t.evals.length === 0) await this.runEval(); // the warm start's point on the frontier
    if (Object.keys(this.pending).length > 0) {
      t.setHyperparams(this.pending);
      this.pending = {};
    }
    const before = t.skippedUpdates;
    const m = await t.step();
    this.telemetry.metrics(this.runId!, m);
    this.sendNewFlags();
    const updates = Math.min(t.config.minibatches, t.config.promptsPerStep * t.config.groupSize);
    this.divergence.record(t.skippedUpdates - before, updates);
    if (t.stepCount % t.config.evalEvery === 0) await this.runEval();
    return m;
  }

  private async runEval(): Promise<EvalRecord> {
    const t = this.trainer!;
    const rec = await t.evaluate();
    this.telemetry.eval({ runId: this.runId!, record: rec });
    return rec;
  }

  private async stopLoop(): Promise<void> {
    const loop = this.loop;
    if (!loop) return;
    this.stopRequested = true;
    await loop;
    if (this.loop === loop) this.loop = null;
  }

  // ---- helpers ----

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  private getBackend(): Promise<Backend> {
    if (!this.backend) {
      const made = this.makeBackend();
      this.backend = made;
      made.then((b) => { this.backendName = b.name; }, () => { this.backend = null; });
    }
    return this.backend;
  }

  private requireTrainer(what: string): Trainer {
    if (!this.trainer) throw new InputError(`${what}: no run yet; call init(preset) first`);
    return this.trainer;
  }

  private nextRunId(): string {
    return `run-${++this.runCounter}-${Math.floor(Math.random() * 0x7fffffff).toString(36)}`;
  }

  private install(trainer: Trainer, env: Environment, preset: Preset, warm: WarmStart, runId: string): void {
    this.telemetry.flush();
    this.trainer?.destroy();
    this.trainer = trainer;
    this.env = env;
    this.preset = preset;
    this.warm = warm;
    this.runId = runId;
    this.pending = {};
    this.flagsSent = 0;
    this.divergence.reset();
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

  /** The preset's shipped warm start when it fits this model, else one pretrained here (cached per model and env). */
  private async warmStartFor(preset: Preset, config: RunConfig, env: Environment, steps: number, runId: string): Promise<WarmStart> {
    const file = preset.warmStart.file;
    const key = JSON.stringify([file, preset.warmStart.seed, config.nLayer, config.nHead, config.nEmbd, config.digits, config.pKnown, config.pKnownTrain, config.maxMessage, env.blockSize, env.vocab.length, steps]);
    const cached = this.warmCache.get(key);
    if (cached) return cached;
    let why = '';
    let bytes: Uint8Array | null = null;
    try { bytes = await this.loadWarmStart(file); } catch (e) { why = `loading ${file} failed (${errorMessage(e)})`; }
    if (bytes) {
      try {
        const ck = readCheckpoint(bytes);
        const c = ck.config;
        if (c.nLayer !== config.nLayer || c.nHead !== config.nHead || c.nEmbd !== config.nEmbd) why = `${file} is for another model size (n_layer ${c.nLayer}, n_head ${c.nHead}, n_embd ${c.nEmbd})`;
        else if (c.blockSize !== env.blockSize || c.vocabSize !== env.vocab.length || (ck.vocab && ck.vocab.join('\u0000') !== env.vocab.join('\u0000'))) why = `${file} is for another environment setting (block size or vocabulary differ)`;
        else {
          const warm = { weights: ck.weights, source: `checkpoints/${file}` };
          this.warmCache.set(key, warm);
          return warm;
        }
      } catch (e) {
        why = `${file} is not a valid checkpoint (${errorMessage(e)})`;
      }
    } else {
      why ||= `there is no shipped ${file}`;
    }
    const backend = await this.getBackend();
    const progress = (message: string, p: number) => this.telemetry.status({ runId, status: 'idle', message, progress: p });
    progress(`warm start: ${why}; pretraining ${steps} steps on the demonstrations`, 0);
    const demoEnv = createEnv(config, preset.warmStart.demo);
    const model = new GPT(backend, modelConfigFor(demoEnv, config), undefined, preset.warmStart.seed);
    try {
      const loss = await pretrain(backend, model, demoEnv, { ...PRETRAIN_DEFAULTS, steps, seed: preset.warmStart.seed },
        (s, l) => progress(`warm start: pretraining step ${s + 1}/${steps}, loss ${l.toFixed(4)}`, (s + 1) / steps));
      const warm = { weights: Float32Array.from(await backend.read(model.params)), source: `${steps} pretraining steps here (final loss ${loss.toFixed(4)})` };
      if (this.warmCache.size >= 4) this.warmCache.delete(this.warmCache.keys().next().value!);
      this.warmCache.set(key, warm);
      return warm;
    } finally {
      model.destroy();
    }
  }

  private sequencesByEpisode(ro: Rollout<unknown>): Sequence[][] {
    const by: Sequence[][] = ro.states.map(() => []);
    for (const s of ro.sequences) by[s.episode].push(s);
    return by;
  }

  /** `count` episodes spread over the rollout (different prompts), rendered by the env. */
  private episodes(ro: Rollout<unknown>, count: number, rewardOf: (e: number) => RewardParts): EpisodeTranscript[] {
    const E = ro.states.length, n = Math.min(count, E), env = this.env!;
    return Array.from({ length: n }, (_, i) => {
      const e = Math.floor((i * E) / n);
      return { episode: e, lines: env.render(ro.states[e]), score: ro.scores[e], reward: rewardOf(e) };
    });
  }

  private snapshot(): TrainerState {
    const t = this.trainer;
    return {
      runId: this.runId, preset: this.preset?.name ?? null, config: t ? this.effectiveConfig(t) : null, pending: { ...this.pending },
      status: this.status, message: this.message, backend: this.backendName, warmStart: this.warm?.source ?? null,
      stepCount: t?.stepCount ?? 0, lambdaTok: this.pending.lambdaTok ?? t?.lambdaTok ?? 0,
      evals: t ? t.evals.map((e) => ({ ...e })) : [], bestEval: t?.bestEval ? { ...t.bestEval } : null,
      flags: t ? t.flags.map((f) => ({ ...f })) : [], skippedUpdates: t?.skippedUpdates ?? 0,
    };
  }
}
