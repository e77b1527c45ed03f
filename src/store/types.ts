// The app store's shape: three slices (setup, session, runs) in one zustand
// store, and what the store needs from outside (the worker, storage, the URL).
import type { TaskService } from '../envs/userTask/taskService';
import type { GpuProbe } from '../gpu/probe';
import type { RunConfig } from '../config';
import type { Flag } from '../rl/runRecord';
import type { ExportTarget } from '../export/recipe';
import type { CheckResult, Lesson } from '../lessons';
import type { StepAnatomy, StepWithin, TelemetryEvent, TrainerState, TrainerWorkerApi, Transcripts, RunStatus as WorkerStatus } from '../worker/protocol';
import type { BestRule } from './bestRule';
import type { MetricsHub } from './metricsHub';
import type { PrefsStore } from './pagePrefs';
import type { CheckpointKind, RunStorage } from './runsDb';
import type { RunMeta } from './runTypes';
import type { KeyValueStore, SweepRecord } from './sweepRecord';

/** The worker's API and its telemetry stream (comlink in the page; a fake in tests). */
export interface TrainerClient {
  api: TrainerWorkerApi;
  onTelemetry(fn: (e: TelemetryEvent) => void): () => void;
  /** Ends the worker (a population member's, when its run is over). */
  dispose?(): void;
}

/**
 * What a population may use in this browser: cores (navigator.hardwareConcurrency), bytes of memory, and how many
 * lanes (workers) train at once. How many members one population holds is capped once, in src/rl/placement.ts.
 */
export interface PopulationLimits { cores: number; memoryBytes: number; maxMembers: number }

/** A file picked by the person (a File in the browser). */
export interface PickedFile { name: string; size: number; text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer> }

export interface AppDeps {
  client: TrainerClient;
  storage: RunStorage;
  hub: MetricsHub;
  /** Replaces the page's query string (history.replaceState); called only when it changes. */
  replaceUrl: (query: string) => void;
  download: (fileName: string, blob: Blob) => void;
  now?: () => number;
  /** How often metrics and run changes are written to storage (ms). */
  persistIntervalMs?: number;
  /** Rare events (evals, checkpoints saved) reach the store together, at most this often (ms; 0: at once). */
  publishDelayMs?: number;
  /** While a run trains, its checkpoints are stored at most this often (ms); stopping stores them at once. */
  checkpointIntervalMs?: number;
  /**
   * Between evals, a training run's (and each member's) last checkpoint with its resume state is stored at most
   * this often (ms), so a reload resumes within a few steps of where it was; 0 (the default): only at evals.
   */
  resumeIntervalMs?: number;
  /** Where the page's own choices persist across reloads (localStorage in the browser; memory by default). */
  prefs?: PrefsStore;
  /** Small records kept between page loads (the sweep): localStorage in the page, a map in tests. */
  kv?: KeyValueStore;
  /** A new trainer worker for a population's lane; without it a sweep is refused (the main worker keeps the single run). */
  spawnTrainer?: () => TrainerClient;
  /** How large a population may be here (defaults: 2 cores, 1 GiB, 16 members). */
  population?: Partial<PopulationLimits>;
  /** Where a task's code is checked and its preset made (the page: a worker of its own, src/store/taskWorker.ts); absent: this thread (Node tests). */
  tasks?: TaskService;
  /**
   * Which WebGPU adapter the page has, asked on the page's thread as it loads (main.tsx) so the answer does not wait for
   * the trainer worker; absent: the trainer worker is asked (Node tests).
   */
  probeGpu?: () => Promise<GpuProbe>;
}

export interface ConfirmRequest {
  title: string;
  body: string;
  confirmLabel: string;
  /** Code the person reads before confirming (a task's code from a link). */
  code?: string;
  onConfirm: () => Promise<void>;
}

export type ConfigField = keyof RunConfig;

export interface SetupSlice {
  preset: string;
  config: RunConfig;
  /** Parameters of the opened URL that were not applied, each naming the parameter and why. */
  urlProblems: string[];
  fieldErrors: Partial<Record<ConfigField, string>>;
  confirm: ConfirmRequest | null;
  /** The values (of lambda_tok, or of B in budget mode) that Start trains side by side as a population; null: Start trains one run. In the URL. */
  population: number[] | null;
  /** Start trains until Pause (the first visit does), not to config.steps. In the URL (`until=paused`). */
  untilPaused: boolean;
  setUntilPaused(on: boolean): Promise<void>;
  /** Off a preset's calibrated point Start applies the setting's recipe (default); off: the setting as typed. In the URL (`recipe=off`). */
  recipeAtStart: boolean;
  setRecipeAtStart(on: boolean): void;
  /** Makes the setup a population over these values, or (null) one run again. */
  setPopulation(values: number[] | null): void;
  /** Sets one field: live fields at the next step; the others ask before a new run. */
  setField(key: ConfigField, raw: unknown): Promise<void>;
  /** A field's message beside it (null: none), for a value the page refused before it reached the config. */
  setFieldError(key: ConfigField, message: string | null): void;
  choosePreset(name: string): Promise<void>;
  chooseEnv(env: RunConfig['env']): Promise<void>;
  answerConfirm(ok: boolean): Promise<void>;
  /** Sets the fields the current setting's recipe asks for (src/rl/recipe.ts); with a run under way, asks before a new run. */
  applyRecipe(): Promise<void>;
  dismissUrlProblems(): void;
}

export type GpuState = { state: 'probing' } | { state: 'ok'; adapter: string; fallback?: boolean } | { state: 'none'; reason: string };

export interface SessionSlice {
  /** How far the step in flight is, when it is a long one (from the worker; null between steps). */
  stepWithin: StepWithin | null;
  gpu: GpuState;
  /** What the worker was told: WebGPU when there is a usable adapter ('auto'), or the CPU engine. */
  backendChoice: 'auto' | 'cpu' | null;
  /** WebGPU against the CPU engine, timed at the run's shapes when WebGPU was the default (not a person's choice); null: not measured. */
  engineChoice: import('../rl/engineTiming').EngineChoice | null;
  /** The person's own choice (remembered across reloads); null: the page chooses (the CPU engine on a software or absent GPU). */
  backendPref: 'cpu' | 'webgpu' | null;
  trainer: TrainerState | null;
  runId: string | null;
  status: WorkerStatus;
  message: string | null;
  progress: number | null;
  busy: string | null;
  error: string | null;
  flags: Flag[];
  speed: 'normal' | 'fast';
  transcripts: Transcripts | null;
  anatomy: StepAnatomy | null;
  anatomyGroup: number;
  anatomyError: string | null;
  /** Whose transcripts and anatomy the panels hold: a population member (its sweep label), or null for the lone run. */
  panelMember: { runId: string; label: string } | null;
  boot(search: string): Promise<void>;
  useCpu(): Promise<void>;
  /** WebGPU, after the person or the page chose the CPU (the choice is remembered across reloads, so it must be undoable). */
  useGpu(): Promise<void>;
  start(): Promise<void>;
  pause(): Promise<void>;
  stepOnce(): Promise<void>;
  reset(): Promise<void>;
  warmStart(): Promise<void>;
  restoreBest(): Promise<void>;
  /** AgentPO: the Actor alone / with the untrained / with the trained Collaborator, on the held-out set. */
  compare(): Promise<void>;
  setSpeed(s: 'normal' | 'fast'): void;
  loadTranscripts(): Promise<void>;
  /** Group `group` of the last step; `auto` (following the run, not a person's pick): a group with a learning signal instead of one without. */
  loadAnatomy(group: number, auto?: boolean): Promise<void>;
  dismissError(): void;
  /** Steps the current run has taken (from telemetry, which is ahead of `trainer`). */
  currentSteps(): number;
}

export interface RunsSlice {
  runs: RunMeta[];
  overlay: string[];
  /** Runs kept on the charts when a new run starts; other overlays are cleared then. */
  pinned: string[];
  storageKind: RunStorage['kind'] | null;
  /** Why runs are kept in memory only (null: in IndexedDB, or not known yet). */
  storageWhy: string | null;
  notice: string | null;
  importError: string | null;
  toggleOverlay(id: string): Promise<void>;
  /** Pins a run on the charts (showing it) or unpins it (it stays shown until the next run starts). */
  togglePin(id: string): Promise<void>;
  renameRun(id: string, name: string): Promise<void>;
  deleteRun(id: string): Promise<void>;
  duplicateRun(id: string): Promise<void>;
  /** Trains a twin of a run: its preset, settings and seed with another loss variant (losses.ts twinSettings); both on the charts. */
  twinRun(id: string, algorithm: string): Promise<void>;
  exportRun(id: string, what: 'json' | 'csv' | CheckpointKind | ExportTarget): Promise<void>;
  importFiles(files: PickedFile[]): Promise<void>;
  /** Puts a stored checkpoint of a run into the trainer: a new run goes on from those weights. */
  loadRunCheckpoint(id: string, which: CheckpointKind): Promise<void>;
  dismissNotice(): void;
}

/** A stored run that was training (or paused) when the page closed, with a last checkpoint to go on from. */
export interface Resumable {
  id: string; name: string; step: number; /** paused by the person, or interrupted (training when the page closed) */ status: 'paused' | 'interrupted';
  /** Set when what resumes is a population (the sweep `id`): how many members go on; `step` is the least of their stored steps. */
  members?: number;
}

export interface PageSlice {
  /** The first-run guide was dismissed (it never comes back). */
  guideDismissed: boolean;
  bestRule: BestRule;
  bestTarget: number;
  accuracyAxis: 'data' | 'full';
  /** What the middle column shows: the charts, or the runs table. */
  middleTab: 'charts' | 'runs';
  resumable: Resumable | null;
  /** The run under the mouse (its trail, label or legend entry): its trail and time series are drawn over the others'. */
  hoveredRun: string | null;
  setHoveredRun(id: string | null): void;
  dismissGuide(): void;
  setBestRule(rule: BestRule, target?: number): void;
  setAccuracyAxis(a: 'data' | 'full'): void;
  setMiddleTab(t: 'charts' | 'runs'): void;
  /**
   * The resumable run goes on from its last checkpoint: the same run record (metrics and evals appended),
   * its step counter, evals, dual lambda and AdamW state (stored with the checkpoint); it starts training.
   */
  resume(): Promise<void>;
  dismissResume(): void;
  /** Runs the current preset's sister preset (same size overrides) and overlays the current run on it. */
  runSister(name: string): Promise<void>;
}


export interface SweepSlice {
  /** The current (or last) sweep, kept between page loads. */
  sweep: SweepRecord | null;
  /** The values typed for the next sweep (null: the preset's default grid), and what is wrong with them. */
  sweepDraft: string | null;
  sweepDraftError: string | null;
  /** The sweep run picked on the sweep's chart. */
  sweepSelected: string | null;
  /** One live episode of a training member (the first running one), for the task card while a population trains. */
  sweepExample: { runId: string; label: string; transcripts: Transcripts } | null;
  /** How many of the population's members are loaded ahead of Start (preparePopulation). */
  populationLoaded: number;
  /** How the running population trains: stacked in one worker on WebGPU, or one worker per member and why (null: no population). */
  sweepLayout: string | null;
  setSweepDraft(text: string): void;
  /**
   * Keeps the population's member workers loaded ahead of Start (warm start and step-0 eval done) on the CPU
   * backend before the first sweep, and lets go of those the setup no longer asks for. Called on store changes.
   */
  preparePopulation(): void;
  /** One run per value, each to its last step: side by side as a population (one worker each) when the page can spawn workers. */
  startSweep(mode?: 'train' | 'step'): Promise<void>;
  /** Trains the population until paused (MAX_STEPS) or to its step count again; from its members' next step. */
  sweepUntilPaused(on: boolean): Promise<void>;
  /** A live change to one running member of the sweep (its run id), or to every running member (null); recorded in each run's changes. */
  setMemberField(runId: string | null, key: ConfigField, raw: unknown): Promise<void>;
  stopSweep(): Promise<void>;
  /** Continues the population: its paused and pending members, and a finished one's members past their step count. */
  resumeSweep(): Promise<void>;
  /** Steps every member of a paused or finished population once (Step on the current run). */
  stepSweep(): Promise<void>;
  clearSweep(): void;
  /** The Sweep panel's Run sweep: a new population of the values typed, asking first when the current run has steps (it stops). */
  runSweep(): Promise<void>;
  /** Ends the current population whatever its state: every member stops (its steps recorded), its workers go and the sweep record is cleared, so nothing trains that the chart does not show. */
  endPopulation(): Promise<void>;
  selectSweepRun(runId: string): Promise<void>;
  /**
   * The same values on a sister preset (relay-noisy -> relay-noisy-dr): the finished sweep's runs stay on the
   * chart, so the two populations draw two frontiers side by side.
   */
  sweepSister(preset: string): Promise<void>;
}


/** Your own task (docs/your-task.md): the editor, Check and Use. */
export interface TaskSlice {
  /** The task editor's text; null: the editor is closed. */
  taskDraft: string | null;
  /** The last Check of the draft (problems naming rule and function; sample episodes); null: not checked since the last edit. */
  taskCheck: import('../envs/userTask').TaskCheck | null;
  /** What the task's worker is doing for the editor (the page stays usable meanwhile); null: nothing. */
  taskBusy: 'check' | 'use' | null;
  openTaskEditor(example?: string): void;
  closeTaskEditor(): void;
  setTaskDraft(code: string): void;
  checkTask(): Promise<void>;
  /**
   * Checks the code, registers its preset and makes a run of it the current run (nothing trains on a failing task);
   * `link`: the opened link's query, whose other parameters (fields, population) then apply to it.
   */
  useTask(code?: string, link?: string): Promise<void>;
}

/** A lesson open on the page: which step, each step's last check, and whether its explanation is shown. */
export interface LessonProgress { lesson: Lesson; index: number; results: Record<number, StepCheck>; explained: boolean }
/** A step's check on the learner's run; `final`: the step's run has done what the step asks (a training step's run finished), so a fail is a fail. */
export type StepCheck = CheckResult & { final: boolean };

export interface LessonSlice {
  lesson: LessonProgress | null;
  /** Opens a lesson (`param`: a shipped lesson's name, or "~" and an encoded lesson) at step `at` (from 0), its setting the current run. */
  openLesson(param: string, at?: number): Promise<void>;
  /** Opens a lesson from a file's text, checked first (each problem named). */
  openLessonText(text: string): Promise<void>;
  /** Back, Next or a step chosen: a step with a setting makes it the current run. */
  lessonGo(index: number): Promise<void>;
  /** The current step's setting (or the setting its run came from) trained again from its start. */
  lessonRerun(): Promise<void>;
  /** Evaluates the current step's check on the learner's run (and records it). */
  lessonCheck(): StepCheck | null;
  lessonExplain(on: boolean): void;
  closeLesson(): void;
}

export type AppState = SetupSlice & SessionSlice & RunsSlice & PageSlice & SweepSlice & TaskSlice & LessonSlice;
