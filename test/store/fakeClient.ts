// A stand-in for the trainer worker: records every call, keeps a config like
// the real one (validated, live fields pending), and lets a test push
// telemetry events as the worker would.
import { checkLiveChange, validateConfig, type RunConfig } from '../../src/config';
import { findPreset, presetConfig } from '../../src/envs/presets';
import type { EngineChoice } from '../../src/rl/engineTiming';
import type { GpuProbe } from '../../src/gpu/probe';
import { betterEval } from '../../src/rl/pareto';
import type { EvalRecord } from '../../src/rl/runRecord';
import { METRIC_NAMES, type ResumeExport, type ResumeEntry, type ResumeState, type TelemetryEvent, type TrainerState, type TrainerWorkerApi } from '../../src/worker/protocol';
import type { TrainerClient } from '../../src/store/types';

export interface Call { method: string; args: unknown[] }

let runCounter = 0; // run ids are unique across fakes, as the worker's (random) ones are across page loads

export class FakeTrainer implements TrainerWorkerApi {
  calls: Call[] = [];
  listeners = new Set<(e: TelemetryEvent) => void>();
  state: TrainerState = {
    runId: null, preset: null, config: null, pending: {}, status: 'idle', message: null, backend: null, warmStart: null,
    stepCount: 0, lambdaTok: 0, evals: [], bestEval: null, flags: [], skippedUpdates: 0,
  };
  gpu: GpuProbe = { ok: true, adapter: 'fake adapter' };
  checkpointBytes = new Uint8Array([1, 2, 3]);

  private log(method: string, ...args: unknown[]) { this.calls.push({ method, args }); }
  callsOf(method: string): unknown[][] { return this.calls.filter((c) => c.method === method).map((c) => c.args); }
  private snap(): TrainerState { return structuredClone(this.state); }

  emit(e: TelemetryEvent) { for (const l of this.listeners) l(e); }

  /** Metrics rows for steps [from, to) of the current run, as one batch. */
  emitSteps(from: number, to: number, value = (step: number, name: string) => (name === 'step' ? step : step * 0.01)) {
    const C = METRIC_NAMES.length, rows = to - from, data = new Float64Array(rows * C);
    for (let r = 0; r < rows; r++) METRIC_NAMES.forEach((n, c) => { data[r * C + c] = value(from + r, n); });
    this.state.stepCount = to;
    this.emit({ kind: 'metrics', runId: this.state.runId!, columns: C, rows, data });
    return data;
  }

  emitEval(step: number, accuracy: number, tokens: number) {
    const record: EvalRecord = { step, accuracy, tokens, turns: 1, lambdaTok: this.state.lambdaTok, reward: accuracy - 0.1 * tokens, silenceKnown: 0.5 };
    this.state.evals.push(record);
    if (betterEval(record, this.state.bestEval)) this.state.bestEval = record; // as the Trainer does
    this.emit({ kind: 'eval', runId: this.state.runId!, record });
  }

  /** Ends `runId` at its last step, as a finished run: a final eval (by default one that falls with lambda_tok), then idle. */
  finishRun(runId: string, final = { accuracy: 1 - this.state.lambdaTok, tokens: 4 - 10 * this.state.lambdaTok }) {
    const steps = this.state.config!.steps;
    this.state.stepCount = steps;
    this.emitEval(steps, final.accuracy, final.tokens);
    this.state.status = 'idle';
    this.state.message = `finished ${steps} steps`;
    this.emit({ kind: 'status', runId, status: 'idle', message: this.state.message });
  }

  async init(preset: string, overrides: Partial<RunConfig> = {}) {
    this.log('init', preset, overrides);
    const config = presetConfig(findPreset(preset), overrides as Record<string, unknown>);
    this.state = { ...this.state, runId: `run-${++runCounter}`, preset, config, pending: {}, status: 'idle', stepCount: 0, evals: [], bestEval: null, flags: [],
      lambdaTok: config.lambdaTok, backend: 'webgpu', warmStart: 'checkpoints/fake.safetensors', message: 'ready' };
    return this.snap();
  }
  async start() { this.log('start'); this.state.status = 'running'; return this.snap(); }
  async pause() { this.log('pause'); this.state.status = 'paused'; return this.snap(); }
  async step(n = 1) { this.log('step', n); return []; }
  async reset() { this.log('reset'); this.state = { ...this.state, runId: `run-${++runCounter}`, stepCount: 0, evals: [], status: 'idle', message: 'reset to the warm start (fake)' }; return this.snap(); }
  async setHyperparams(partial: Partial<RunConfig>) {
    this.log('setHyperparams', partial);
    checkLiveChange(Object.keys(partial));
    this.state.config = validateConfig(partial as Record<string, unknown>, this.state.config!);
    this.state.pending = { ...this.state.pending, ...partial };
    return this.snap();
  }
  async evaluate(): Promise<EvalRecord> { throw new Error('not in the fake'); }
  async getState() { this.log('getState'); return this.snap(); }
  async getStates() { this.log('getStates'); return [this.snap()]; }
  async exportCheckpoint(which: 'last' | 'best', runId?: string) {
    this.log('exportCheckpoint', which, runId);
    if (runId !== undefined && runId !== this.state.runId) throw new Error('another run');
    return this.checkpointBytes.slice();
  }
  /** The fake's optimizer: a counter of updates and one moment value per step (what exportResume stores). */
  async exportResume(runId: string): Promise<ResumeExport> {
    this.log('exportResume', runId);
    if (runId !== this.state.runId) throw new Error('another run');
    const step = this.state.stepCount;
    const state: ResumeState = {
      step, config: structuredClone(this.state.config!), evals: structuredClone(this.state.evals), bestEval: structuredClone(this.state.bestEval),
      lambdaTok: this.state.lambdaTok, flags: structuredClone(this.state.flags), skippedUpdates: this.state.skippedUpdates,
      optimizer: { m: new Float32Array([step]), v: new Float32Array([step * 2]), step: step * 4 },
    };
    return { checkpoint: this.checkpointBytes.slice(), state };
  }
  /** As the worker does: the same run id and counters; says whether the optimizer was restored. */
  async resumeMembers(members: ResumeEntry[]) {
    if (members.length !== 1) throw new Error('the fake trainer holds one member');
    const [m] = members;
    return this.resume(m.runId, m.last, m.best, m.state);
  }
  async resume(runId: string, last: Uint8Array, best: Uint8Array | null, state: ResumeState | null) {
    this.log('resume', runId, last.length, best?.length ?? null, state === null ? null : structuredClone(state));
    const config = state?.config ?? presetConfig(findPreset('relay-silence'));
    const step = state?.step ?? 0;
    this.state = { ...this.state, runId, preset: 'relay-silence', config, pending: {}, status: 'idle', stepCount: step, evals: state?.evals ?? [],
      bestEval: state?.bestEval ?? null, flags: state?.flags ?? [], lambdaTok: state?.lambdaTok ?? config.lambdaTok,
      message: `resumed the run at step ${step} (${state?.optimizer ? 'optimizer state restored' : 'the optimizer restarts: no optimizer state was stored with this run'})` };
    return this.snap();
  }
  async loadCheckpoint(bytes: Uint8Array) { this.log('loadCheckpoint', bytes.length); return this.init('relay-silence'); }
  async telemetryPort() { /* the fake delivers through emit() */ }
  async lastTranscripts() { this.log('lastTranscripts'); return { train: null, eval: null }; }
  async probe() { this.log('probe'); return this.gpu; }
  /** lanes is logged only when given (a population's lane workers are told how many train at once). */
  /** What chooseEngine answers (null: nothing to choose, as without WebGPU). */
  engineChoice: EngineChoice | null = null;
  async chooseEngine(preset: string, overrides?: unknown) { this.log('chooseEngine', preset, overrides); return this.engineChoice; }
  async useBackend(prefer: 'auto' | 'cpu', lanes?: number) { this.log('useBackend', prefer, ...(lanes === undefined ? [] : [lanes])); return this.snap(); }
  async stepAnatomy(group: number, runId?: string): Promise<never> { this.log('stepAnatomy', group, runId); throw new Error('not in the fake'); }
  async restoreBest() { this.log('restoreBest'); return this.snap(); }
  async restoreEval(step: number) { this.log('restoreEval', step); return this.snap(); }
  async compare(): Promise<never> { throw new Error('not in the fake'); }
}

export function fakeClient(t: FakeTrainer): TrainerClient {
  return { api: t, onTelemetry(fn) { t.listeners.add(fn); return () => { t.listeners.delete(fn); }; } };
}

/** Lets pending promise callbacks run. */
export const settle = () => new Promise((r) => setTimeout(r, 0));

/**
 * A lane's worker as the page sees it: one TrainerWorkerApi holding K fake members (init with a list of
 * overrides), each call about one run routed to that member by run id, as TrainerApi does. `make` builds each
 * member (a test keeps them to check their calls); the members' telemetry reaches the lane's listeners.
 */
export function fakeLane(make: () => FakeTrainer, onDispose: (members: FakeTrainer[]) => void = () => {}): TrainerClient {
  const listeners = new Set<(e: TelemetryEvent) => void>();
  let members: FakeTrainer[] = [];
  let prefer: 'auto' | 'cpu' | null = null;
  let lanes: number | undefined;
  const adopt = (m: FakeTrainer) => { m.listeners = listeners; return m; };
  const of = (runId?: string | null) => {
    const m = members.find((x) => x.state.runId === runId);
    if (!m) throw new Error(`run ${runId} is no longer in the trainer`);
    return m;
  };
  const all = <T>(fn: (m: FakeTrainer) => Promise<T>) => Promise.all(members.map(fn));
  const lane: Partial<TrainerWorkerApi> = {
    async init(preset, overrides = {}) {
      const list = Array.isArray(overrides) ? overrides : [overrides];
      members = list.map(() => adopt(make()));
      if (prefer) await all((m) => m.useBackend(prefer!, lanes));
      const states = await Promise.all(members.map((m, k) => m.init(preset, list[k])));
      return states[0];
    },
    async resumeMembers(entries) {
      members = entries.map(() => adopt(make()));
      if (prefer) await all((m) => m.useBackend(prefer!, lanes));
      const states = await Promise.all(entries.map((e, k) => members[k].resume(e.runId, e.last, e.best, e.state)));
      return states[0];
    },
    async chooseEngine() { return null; },
    async useBackend(p, n) { prefer = p; lanes = n; await all((m) => m.useBackend(p, n)); return members[0]?.getState() ?? new FakeTrainer().getState(); },
    async getStates() { return all((m) => m.getState()); },
    async getState() { return members[0].getState(); },
    async start() { return (await all((m) => m.start()))[0]; },
    async pause() { return (await all((m) => m.pause()))[0]; },
    async evaluate() { return (await all((m) => m.evaluate()))[0]; },
    async setHyperparams(partial, runId) {
      if (runId === undefined || runId === null) return (await all((m) => m.setHyperparams(partial)))[0];
      return of(runId).setHyperparams(partial);
    },
    async exportCheckpoint(which, runId) { return of(runId ?? members[0].state.runId).exportCheckpoint(which, runId); },
    async exportResume(runId) { return of(runId).exportResume(runId); },
    async step(n = 1) { return (await all((m) => m.step(n))).flat(); },
    async restoreBest(runId) { return of(runId ?? members[0].state.runId).restoreBest(); },
    async restoreEval(step, runId) { return of(runId ?? members[0].state.runId).restoreEval(step); },
    async lastTranscripts(_n, runId) { return (runId === undefined ? members[0] : of(runId)).lastTranscripts(); },
    async stepAnatomy(group, runId) { return (runId === undefined ? members[0] : of(runId)).stepAnatomy(group, runId); },
  };
  return { api: lane as TrainerWorkerApi, onTelemetry(fn) { listeners.add(fn); return () => { listeners.delete(fn); }; }, dispose: () => onDispose(members) };
}
