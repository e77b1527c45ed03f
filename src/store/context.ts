// What the three slices share: the deps, the recorder, and the few steps every
// slice takes (start a run, ask before losing one, keep the URL and the run
// records in step with the worker).
import type { StoreApi } from 'zustand/vanilla';
import { findPreset, presetConfig } from '../envs/presets';
import type { RunConfig } from '../config';
import type { ResumeState, TelemetryEvent, TrainerState } from '../worker/protocol';
import { MemoryPrefs } from './pagePrefs';
import { Recorder } from './recorder';
import type { CheckpointKind } from './runsDb';
import type { RunMeta, RunStatus } from './runTypes';
import type { AppDeps, AppState, ConfirmRequest } from './types';
import { encodeSetup } from './urlState';
import { populationRun } from './currentRun';
import { lessonQuery } from './lessonLink';
import type { KeptLanes, Members } from './ports';

/** The step count of a run that trains until paused (sweepPopulation.ts MAX_STEPS: the config's largest). */
const MAX_STEPS_SEEN = 100_000;

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export type { MemberPort, Members } from './ports';

export class StoreContext {
  readonly deps: Required<Omit<AppDeps, 'kv' | 'spawnTrainer' | 'population' | 'tasks'>> & Pick<AppDeps, 'kv' | 'spawnTrainer' | 'population' | 'tasks'>;
  readonly recorder: Recorder;
  /** A population's running members (their checkpoints are stored at evals through these, like the current run's). */
  readonly members: Members = new Map();
  /** The current population's lane workers, kept while it is paused or finished (sweepPopulation.ts). */
  lanes: KeptLanes | null = null;
  /** Newer versions of run records than the store shows (steps move with every metrics batch; the table catches up on rare events). */
  private readonly latest = new Map<string, RunMeta>();
  private lastQuery: string | null = null;
  /** Routes a telemetry event into the hub, the recorder and the run records (the session sets it; population members use it too). */
  telemetry: (e: TelemetryEvent) => void = () => {};
  /** Set once boot has read the stored prefs back: saving them before would overwrite them with defaults. */
  booted = false;
  private saving: Promise<void> = Promise.resolve();
  private readonly toPublish = new Set<string>();
  private publishTimer: ReturnType<typeof setTimeout> | null = null;
  /** Per run and kind: when its checkpoint was last stored, and whether a newer one is waiting. */
  private readonly ckptState = new Map<string, { at: number; stale: boolean }>();

  constructor(deps: AppDeps, readonly set: StoreApi<AppState>['setState'], readonly get: () => AppState) {
    this.deps = { now: () => Date.now(), persistIntervalMs: 1000, publishDelayMs: 0, checkpointIntervalMs: 0, resumeIntervalMs: 0, prefs: new MemoryPrefs(), probeGpu: () => deps.client.api.probe(), ...deps };
    this.recorder = new Recorder(deps.storage, this.deps.persistIntervalMs, (e) => set({ error: `saving the run failed: ${errorText(e)}` }));
  }

  get api() { return this.deps.client.api; }

  /** Runs `fn`, showing its error (if any) instead of throwing. */
  async guard(fn: () => Promise<void>): Promise<void> {
    try { await fn(); } catch (e) { this.set({ error: errorText(e) }); }
  }

  /** Does `fn` now, or (when `needed`) asks first through the confirm dialog. */
  async askFirst(req: Omit<ConfirmRequest, 'onConfirm'>, fn: () => Promise<void>, needed: boolean): Promise<void> {
    if (!needed) return fn();
    this.set({ confirm: { ...req, onConfirm: fn } });
  }

  setQueryKnown(query: string): void { this.lastQuery = query; }

  /** While the page asks whether to run a link's task, the address keeps that link (a reload asks again). */
  urlHeld = false;

  /** The URL follows the setup: replaced only when its query changes (never once per step). */
  syncUrl(): void {
    if (this.urlHeld) return;
    const { preset, config, population, untilPaused, recipeAtStart, lesson } = this.get();
    // a lesson open: its link (the step's setting is the lesson's to give), else the setup's
    const q = lesson ? lessonQuery(lesson.lesson, lesson.index) : encodeSetup(preset, config, population, untilPaused, recipeAtStart);
    if (q === this.lastQuery) return;
    this.lastQuery = q;
    this.deps.replaceUrl(q);
  }

  applySnapshot(s: TrainerState): void {
    // until paused, the worker's step count is MAX_STEPS: the setup keeps the person's count (and the URL with it)
    const config = s.config && s.config.steps === MAX_STEPS_SEEN ? { ...s.config, steps: this.get().config.steps } : s.config;
    this.set({
      trainer: s, runId: s.runId, status: s.status, message: s.message, flags: s.flags,
      ...(config ? { config } : {}), ...(s.preset ? { preset: s.preset } : {}),
      ...(s.status === 'running' || s.status === 'paused' ? {} : { progress: null }),
    });
    this.syncUrl();
    const meta = s.runId ? this.meta(s.runId) : undefined;
    if (meta) {
      const patch: Partial<RunMeta> = {};
      if (s.baselines) patch.baselines = s.baselines;
      if (s.curriculum) patch.curriculum = s.curriculum;
      if (s.comparison !== undefined) patch.comparison = s.comparison;
      if (s.evals.length >= meta.evals.length) { patch.evals = s.evals; patch.bestEval = s.bestEval; }
      if (Object.keys(patch).length) this.updateMeta(meta.id, patch, true);
    }
  }

  /** A new run in the worker from a preset (its warm start), with progress while it loads. */
  async initRun(preset: string, overrides: Partial<RunConfig>): Promise<void> {
    await this.finishCurrent();
    this.set({ busy: 'Loading the warm start…', progress: null, error: null, transcripts: null, anatomy: null, anatomyError: null });
    try {
      const s = await this.api.init(preset, overrides);
      this.set({ preset });
      this.applySnapshot(s);
    } catch (e) {
      this.set({ error: `Could not start ${preset}: ${errorText(e)}`, preset, config: presetConfig(findPreset(preset), overrides) });
    } finally {
      this.set({ busy: null, progress: null });
    }
  }

  /** Before the worker switches runs: stop the loop and store the current run's last checkpoint. */
  async finishCurrent(): Promise<void> {
    const id = this.get().runId;
    if (!id || !this.get().trainer?.config) return;
    if (this.get().status === 'running') {
      try { this.applySnapshot(await this.api.pause()); } catch { /* the switch goes on */ }
    }
    if (this.meta(id)) await this.saveStaleCheckpoints(id);
    this.flushPublish();
    await this.recorder.flush();
  }

  /** Steps the current run has taken, from telemetry (ahead of the last snapshot). */
  /**
   * What a new run (Reset, Warm start, a new preset, a new population) would stop: the current population (its
   * members' steps), else the lone run. `needed`: there is something to lose (any member has steps, or a population
   * trains), so the page asks first.
   */
  heldWork(): { text: string; needed: boolean } {
    const pop = populationRun(this.get());
    const members = pop ? pop.runs.filter((r) => r.runId !== null) : [];
    if (pop && members.length > 0) {
      const steps = Math.max(0, ...members.map((r) => Math.max(this.meta(r.runId!)?.steps ?? 0, this.deps.hub.get(r.runId!)?.rows ?? 0)));
      return { text: `The current population (${steps} steps of ${members.length} runs)`, needed: steps > 0 || pop.status === 'running' };
    }
    const n = this.currentSteps();
    return { text: `The current run (${n} steps)`, needed: n > 0 };
  }

  /** The current population, if any, ends (every member stops, the sweep record goes): a new run takes its place. */
  async endCurrentPopulation(): Promise<void> {
    if (populationRun(this.get()) || this.get().sweep?.status === 'running') await this.get().endPopulation();
  }

  currentSteps(): number {
    const { runId, trainer } = this.get();
    const s = runId ? this.deps.hub.get(runId) : undefined;
    const fromMetrics = s && s.rows > 0 ? s.last('step') + 1 : 0;
    return Math.max(trainer?.stepCount ?? 0, fromMetrics);
  }

  // ---- run records ----

  meta(id: string): RunMeta | undefined {
    return this.latest.get(id) ?? this.get().runs.find((r) => r.id === id);
  }

  /** Changes a run record; `publish` also updates the store now (rare events), else only storage soon. */
  updateMeta(id: string, patch: Partial<RunMeta>, publish: boolean): RunMeta | undefined {
    const old = this.meta(id);
    if (!old) return undefined;
    const meta: RunMeta = { ...old, ...patch, updatedAt: this.deps.now() };
    this.latest.set(id, meta);
    this.recorder.queueRun(meta);
    if (publish) this.publish(id);
    return meta;
  }

  /** Shows the latest version of a run record in the store (with others that changed meanwhile: one store update). */
  publish(id: string): void {
    this.toPublish.add(id);
    if (this.deps.publishDelayMs <= 0) { this.flushPublish(); return; }
    this.publishTimer ??= setTimeout(() => this.flushPublish(), this.deps.publishDelayMs);
  }

  flushPublish(): void {
    if (this.publishTimer !== null) { clearTimeout(this.publishTimer); this.publishTimer = null; }
    if (this.toPublish.size === 0) return;
    let runs = this.get().runs;
    for (const id of this.toPublish) {
      const meta = this.latest.get(id);
      if (!meta) continue;
      this.latest.delete(id);
      runs = runs.some((r) => r.id === id) ? runs.map((r) => (r.id === id ? meta : r)) : [meta, ...runs];
    }
    this.toPublish.clear();
    if (runs !== this.get().runs) this.set({ runs });
  }

  /**
   * A new run started by the person: the charts show it and the pinned runs only (overlays of older runs
   * would pile up run after run). The run that was current stays shown only if it was pinned.
   */
  overlayForNewRun(): void {
    const { pinned, runs } = this.get();
    this.set({ overlay: pinned.filter((id) => runs.some((r) => r.id === id)) });
  }

  addRun(meta: RunMeta): void {
    this.set({ runs: [meta, ...this.get().runs.filter((r) => r.id !== meta.id)] });
  }

  dropRun(id: string): void {
    this.latest.delete(id);
    this.recorder.forget(id);
    this.set({ runs: this.get().runs.filter((r) => r.id !== id), overlay: this.get().overlay.filter((x) => x !== id), pinned: this.get().pinned.filter((x) => x !== id) });
  }

  nextColor(): number {
    const used = this.get().runs.map((r) => r.colorIndex);
    return used.length ? Math.max(...used) + 1 : 0;
  }

  /**
   * Stores a checkpoint of the current run or of a running population member (skipped when the run is in no
   * worker any more). Unless
   * `force`, at most once per checkpointIntervalMs per kind: the skipped one is marked stale and stored
   * when the run stops (saveStaleCheckpoints).
   */
  saveCheckpoint(id: string, which: CheckpointKind, force = false): Promise<void> {
    const key = `${id}:${which}`, st = this.ckptState.get(key) ?? { at: -Infinity, stale: false };
    if (!force && this.deps.now() - st.at < this.deps.checkpointIntervalMs) {
      this.ckptState.set(key, { ...st, stale: true });
      return this.saving;
    }
    this.ckptState.set(key, { at: this.deps.now(), stale: false });
    const job = async () => {
      const port = this.get().runId === id ? null : this.members.get(id);
      if ((this.get().runId !== id && !port) || !this.meta(id)) return;
      // 'last' goes with its resume state (the counters and AdamW's moments of the same step)
      let saved: { bytes: Uint8Array; resume?: ResumeState };
      try {
        if (which === 'last') { const r = port ? await port.exportResume() : await this.api.exportResume(id); saved = { bytes: r.checkpoint, resume: r.state }; }
        else saved = { bytes: port ? await port.exportBest() : await this.api.exportCheckpoint(which, id) };
      } catch { return; } // another run by now, or none
      await this.deps.storage.putCheckpoint(id, which, saved.bytes, saved.resume);
      const m = this.meta(id)!;
      const step = which === 'best' ? (m.bestEval?.step ?? 0) : saved.resume!.step;
      this.updateMeta(id, { checkpoints: { ...m.checkpoints, [which]: step } }, true);
      await this.recorder.flush(); // the record says so now: a reload right after finds the checkpoint it names
    };
    this.saving = this.saving.then(job).catch((e) => this.set({ error: `saving a checkpoint failed: ${errorText(e)}` }));
    return this.saving;
  }

  /** When a run stops: its last checkpoint, and the best one if a newer best was not stored yet. */
  async saveStaleCheckpoints(id: string): Promise<void> {
    const best = this.ckptState.get(`${id}:best`);
    const jobs = [this.saveCheckpoint(id, 'last', true)];
    if (best?.stale) jobs.push(this.saveCheckpoint(id, 'best', true));
    await Promise.all(jobs);
  }
}

/** The run-table status of a worker status. */
export function runStatusOf(status: TrainerState['status'], message: string | null | undefined, steps: number, diverged: boolean): RunStatus {
  switch (status) {
    case 'running': return 'running';
    case 'paused': return diverged ? 'diverged' : 'paused';
    case 'error': return 'error';
    case 'idle': return message?.startsWith('finished') ? 'finished' : steps > 0 ? 'stopped' : 'ready';
  }
}
