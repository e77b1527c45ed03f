// The trainer worker's API and its telemetry, as types the page can import
// without pulling in the engine. Control goes through comlink (request/response);
// telemetry flows one way on a dedicated MessagePort, batched (10-20 Hz):
// per-step metrics as one Float64Array per flush (rows x METRIC_NAMES columns),
// eval records, status changes and flags as single rare events.
import type { RunConfig } from '../config';
import type { BaselineResult, Score, TranscriptLine } from '../envs/types';
import type { GpuProbe } from '../gpu/probe';
import type { Comparison } from '../rl/compare';
import type { RewardParts, RewardWeights } from '../rl/reward';
import type { EvalRecord, Flag, StepMetrics, TrainerSnapshot } from '../rl/runRecord';

// ---- metrics columns ----

/** Column order of a metrics batch: the StepMetrics fields (docs/rl.md section 7, plus step and skipped_updates). */
export const METRIC_NAMES = [
  'step', 'reward', 'reward_std', 'r_task', 'tokens', 'turns', 'repetition', 'lambda_tok', 'frac_zero_std',
  'policy_loss', 'kl', 'entropy', 'clip_frac', 'ratio_mean', 'ratio_min', 'ratio_max', 'grad_norm',
  'seq_len_mean', 'silence_rate', 'step_time_ms', 'tokens_per_s', 'skipped_updates', 'step_flops', 'groups_dropped', 'groups_refilled',
  'groups_len_varied', 'len_spread', 'shorter_adv',
] as const satisfies ReadonlyArray<keyof StepMetrics>;

export type MetricName = (typeof METRIC_NAMES)[number];
/** Compile-time check: METRIC_NAMES names every StepMetrics field (a new field must be added here). */
export type MetricNamesCoverStepMetrics = [Exclude<keyof StepMetrics, MetricName>] extends [never] ? true : never;
export const METRIC_NAMES_COMPLETE: MetricNamesCoverStepMetrics = true;

/** Column index of a metric in a batch row. */
export const METRIC_INDEX: Readonly<Record<MetricName, number>> = Object.fromEntries(METRIC_NAMES.map((n, i) => [n, i])) as Record<MetricName, number>;

/** One row of a metrics batch, in METRIC_NAMES order. */
export function metricsRow(m: StepMetrics, out: Float64Array = new Float64Array(METRIC_NAMES.length), offset = 0): Float64Array {
  for (let i = 0; i < METRIC_NAMES.length; i++) out[offset + i] = m[METRIC_NAMES[i]];
  return out;
}

// ---- telemetry events (worker -> page, on the telemetry port) ----

export type RunStatus = 'idle' | 'running' | 'paused' | 'error';

/** `rows` steps' metrics, row-major: data[r * columns + c] is METRIC_NAMES[c] of row r. */
export interface MetricsEvent { kind: 'metrics'; runId: string; columns: number; rows: number; data: Float64Array }
export interface EvalEvent { kind: 'eval'; runId: string; record: EvalRecord }
/**
 * `progress` in [0, 1] while something long runs (the warm start's pretraining); `within`: how far a
 * long step is (`done` of `of` minibatch updates made; 0 when its rollout is done; `step` is its index);
 * `starting`: the run is being born in init() (the page has no such run yet): its stage, for the page's busy line.
 */
export interface StatusEvent { kind: 'status'; runId: string; status: RunStatus; message?: string; progress?: number; within?: StepWithin; starting?: true }
export interface StepWithin { step: number; done: number; of: number }
export interface FlagEvent { kind: 'flag'; runId: string; flag: Flag }

export type TelemetryEvent = MetricsEvent | EvalEvent | StatusEvent | FlagEvent;
export type TelemetryKind = TelemetryEvent['kind'];

export function assertNever(x: never, what = 'value'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(x)}`);
}

/** One handler per event kind; the mapped type makes a missing kind a compile error. */
export type TelemetryHandlers = { [K in TelemetryKind]: (e: Extract<TelemetryEvent, { kind: K }>) => void };

export function dispatchTelemetry(e: TelemetryEvent, h: TelemetryHandlers): void {
  switch (e.kind) {
    case 'metrics': return h.metrics(e);
    case 'eval': return h.eval(e);
    case 'status': return h.status(e);
    case 'flag': return h.flag(e);
    default: return assertNever(e, 'telemetry event');
  }
}

const STATUSES: readonly string[] = ['idle', 'running', 'paused', 'error'] satisfies RunStatus[];

/** Structural check of a message received on the telemetry port. */
export function isTelemetryEvent(x: unknown): x is TelemetryEvent {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as Record<string, unknown>;
  if (typeof e.runId !== 'string') return false;
  const kind = e.kind as TelemetryKind;
  switch (kind) {
    case 'metrics':
      return e.data instanceof Float64Array && e.columns === METRIC_NAMES.length && typeof e.rows === 'number' && e.data.length === e.rows * e.columns;
    case 'eval': return typeof e.record === 'object' && e.record !== null;
    case 'status': return typeof e.status === 'string' && STATUSES.includes(e.status);
    case 'flag': return typeof e.flag === 'object' && e.flag !== null;
    default: {
      const unknownKind: never = kind; // a new kind must be checked above
      void unknownKind;
      return false; // not ours (untrusted input: never throws)
    }
  }
}

/** A metrics batch back as objects (for logs and tests; charts can read columns directly). */
export function decodeMetrics(e: MetricsEvent): StepMetrics[] {
  const out: StepMetrics[] = [];
  for (let r = 0; r < e.rows; r++) {
    const m = {} as StepMetrics;
    METRIC_NAMES.forEach((n, c) => { m[n] = e.data[r * e.columns + c]; });
    out.push(m);
  }
  return out;
}

// ---- the control API (page -> worker, through comlink) ----

export interface InitOptions {
  /**
   * Pretraining steps when the preset's shipped warm start does not fit the run (a cap when the preset
   * gives a target accuracy). Default: twice the shipped warm start's steps (src/rl/warmStart.ts).
   */
  warmStartSteps?: number;
}

export interface TrainerState {
  runId: string | null; // changes on init, reset and loadCheckpoint; telemetry of older runs can be dropped
  preset: string | null;
  config: RunConfig | null; // what the next step uses (pending hyperparameters included)
  pending: Partial<RunConfig>; // hyperparameters set but not yet applied (they apply at the next step)
  status: RunStatus;
  message: string | null; // the last status message
  backend: 'cpu' | 'webgpu' | null;
  /** On the CPU: the WebAssembly SIMD engine, or the plain JavaScript reference (where simd128 does not validate). */
  cpuEngine?: 'wasm' | 'reference' | null;
  /**
   * The WebAssembly engine's threads (count), the chunks of split matmuls its worker threads ran so far, and its kernels'
   * build ('fma': relaxed-simd, where the browser validates it) (null: not on it).
   */
  cpuThreads?: { count: number; workerChunks: number; variant: 'simd' | 'fma' } | null;
  /** Why WebGPU was available but the CPU was chosen (pipelines failing at load, or the self-check, naming the kernel). */
  backendNote?: string | null;
  warmStart: string | null; // where the weights the run started from came from
  stepCount: number;
  lambdaTok: number;
  evals: EvalRecord[];
  bestEval: EvalRecord | null;
  flags: Flag[];
  skippedUpdates: number;
  /** Scripted baselines on the eval tasks (philosophers: random, resource hierarchy), drawn as references. */
  baselines?: BaselineResult[];
  /** Curriculum stage changes (philosophers: N = 3 -> 5 -> 7), marked on the charts. */
  curriculum?: { step: number; stage: number; label: string }[];
  /** AgentPO: actor alone / untrained / trained collaborator, once computed. */
  comparison?: Comparison | null;
  /** The last time the GPU device was lost and the run resumed from its last checkpoint (null: never). */
  recovery?: Recovery | null;
  /** Rows its rollouts and evals generate at once when all of them would not fit the GPU (null: all at once). */
  rolloutRows?: number | null;
  /**
   * Your task stopped a run of this task's code (a function that looped, ran out of memory, threw, returned a bad
   * score): which function, in which step, and its one-line message. Start and step are refused for this code until
   * the task is changed (the steps before it are kept). null: none.
   */
  taskFailure?: TaskFailure | null;
}

/** A task function's failure that stopped a run (TrainerState.taskFailure). */
export interface TaskFailure { fn: string; step: number; message: string }

/**
 * What Resume continues a run from, stored with the run's last checkpoint (the same step): the
 * Trainer's counters (step, evals, best eval, dual lambda, flags, skipped updates) and AdamW's
 * moments and update counter (`optimizer`; absent for runs stored before it was kept: the
 * optimizer then restarts). The weights are the last checkpoint's.
 */
export type ResumeState = Omit<TrainerSnapshot, 'weights'>;

/** One member of a run to resume: its run id, last checkpoint, best checkpoint (null: none stored) and resume state. */
export interface ResumeEntry { runId: string; last: Uint8Array; best: Uint8Array | null; state: ResumeState | null }

/** exportResume's answer: the last checkpoint and its resume state, read in one go (the same step). */
export interface ResumeExport { checkpoint: Uint8Array; state: ResumeState }

/** A lost GPU device: the run went back to the checkpoint of `step` (taken at its last eval) and goes on from there. */
export interface Recovery { step: number; lostAtStep: number; reason: string; count: number }

/** Which backend init() builds: WebGPU when there is an adapter (else the CPU), or the CPU engine (WebAssembly SIMD, else the reference). */
export type BackendPreference = 'auto' | 'cpu';

/** One generated turn: the tokens the policy sampled (EOS included) and each one's log-prob at sampling time. */
export interface TranscriptTurn {
  role: string;
  turn: number;
  agent: number; // which agent of the episode spoke (several at once in simultaneous turns)
  message: boolean; // a message to another agent (its tokens count), else an action or answer
  ids: number[];
  tokens: string[]; // the vocabulary's text of each id
  logp: number[]; // log pi_old(token), same length as ids
  silent: boolean; // a message turn whose first token is EOS: nothing was said
}

export interface EpisodeTranscript {
  episode: number;
  lines: TranscriptLine[];
  /** The generated turns in the order they were generated (line i with generated=true is the i-th of its role). */
  turns: TranscriptTurn[];
  score: Score;
  reward: RewardParts; // for eval episodes: with the lambdas in force at that eval
  /** Training episodes: the group (the task played G times, from 0) and the episode's advantage A_i. */
  group?: number;
  advantage?: number;
}

/** `step`: the step's index (from 0; the page shows step + 1) or the eval's step (steps taken); `total`: episodes in it (`episodes` is a sample). */
export interface Transcripts {
  train: { step: number; episodes: EpisodeTranscript[]; total?: number } | null;
  eval: { step: number; episodes: EpisodeTranscript[]; total?: number } | null;
}

// ---- the anatomy of a step (teaching view of one group of the last step) ----

/** One trainable sequence of an episode, measured by a forward of the current weights. */
export interface AnatomySequence {
  role: string;
  turn: number;
  tokens: string[]; // the tokens in the loss (a continued sequence's earlier turns included), EOS included
  length: number; // |y_i|: how many
  logRatio: number; // log s_i = mean_t (logp_t - old_logp_t), clamped to [-20, 20]
  ratio: number; // s_i (GSPO) or the mean token ratio rho_t (GRPO)
  tokenRatios: number[]; // rho_t per generated token
  clipped: boolean; // GSPO: the clipped branch is the active minimum; GRPO: any token clipped
  clippedTokens: number; // token-level rows: tokens where clipping is active (sequence-level: 0 or 1 for the sequence)
  loss: number; // L_i: the sequence's term (sequence-level rows), or the token mean of its terms (token-level)
  /** c_i: the weight of each of its tokens in L under the variant's aggregation (this group taken as the minibatch). */
  weight?: number;
  /** Its share of L: c_i times the sum of its terms. */
  share?: number;
  /** The variant's terms with this sequence's numbers: what is clipped or capped, and what its length does to its weight. */
  termsText?: string;
}

export interface AnatomyEpisode {
  episode: number; // index in the rollout
  lines: TranscriptLine[];
  reward: RewardParts;
  /** The environment's reward the penalties are taken from: r_task, or the env's own (philosophers' four terms). */
  rEnv: number;
  rEnvName: 'r_task' | 'r_env';
  terms?: Record<string, number>; // the parts of r_env, when the env reports them
  advantage: number; // A_i, given to every sequence of the episode
  sequences: AnatomySequence[];
}

export interface StepAnatomy {
  step: number; // the step whose rollout this is
  group: number;
  groups: number; // groups the step sampled: P, more when dynamic sampling refilled
  /** Dynamic sampling on: per group, whether it entered the loss (flat groups and those past the first P with signal did not). */
  inLoss?: boolean[];
  groupSize: number; // G of that step
  algorithm: RunConfig['algorithm'];
  advantageMode: RunConfig['advantage'];
  /** From the loss table row: whose ratio is clipped (sequence-level rows show s_i), the formula, label, aggregation, clip rule. */
  level?: 'sequence' | 'token';
  formula?: string;
  lossLabel?: string;
  aggregation?: string;
  clipRule?: string;
  delta?: number;
  /** How L is built from the sequences, with this group's numbers. */
  aggregationNote?: string;
  /** The per-token term of token-level rows, with this run's clip numbers (e.g. −min(ρ_t·A_i, clip(ρ_t, 0.8, 1.2)·A_i)). */
  termFormula?: string;
  epsLow: number;
  epsHigh: number;
  weights: RewardWeights; // the reward weights of that step
  mean: number; // mean reward of the group
  std: number; // its std (Bessel, n - 1)
  batchStd: number; // std over the whole batch (advantage mode 'batch')
  stdEps: number; // the 1e-4 added to the std
  zeroStd: boolean; // every reward equal: A = 0 for the whole group
  /** Per group of that step: whether it has a learning signal (its rewards are not all equal). */
  signal?: boolean[];
  episodes: AnatomyEpisode[];
  /** How the ratios were measured (one sentence, shown beside them). */
  ratioNote: string;
}

/**
 * What the trainer worker exposes. Every argument and result is structured-clonable. A run is K >= 1 members
 * (init with a list of overrides: one member each); a call about one member's run takes its run id (absent:
 * member 0), and the answers that are one TrainerState are that member's.
 */
export interface TrainerWorkerApi {
  init(presetName: string, overrides?: Partial<RunConfig> | Partial<RunConfig>[], options?: InitOptions): Promise<TrainerState>;
  /** Starts the step loop and returns at once; it runs until paused, an error, divergence, or config.steps. */
  start(): Promise<TrainerState>;
  /** Stops the loop after the step in flight; resolves once it has stopped. */
  pause(): Promise<TrainerState>;
  /** n steps now (not while running); evaluates at evalEvery boundaries like the loop. */
  step(n?: number): Promise<StepMetrics[]>;
  reset(): Promise<TrainerState>;
  /** A live change from the next step, to run `runId`'s member or to every member (absent or null); refused whole, naming member and field. */
  setHyperparams(partial: Partial<RunConfig>, runId?: string | null): Promise<TrainerState>;
  evaluate(): Promise<EvalRecord>;
  getState(): Promise<TrainerState>;
  /** Every member's state, in member order. */
  getStates(): Promise<TrainerState[]>;
  exportCheckpoint(which: 'last' | 'best', runId?: string): Promise<Uint8Array>;
  /** The last checkpoint of run `runId` and its resume state (optimizer included), of the same step. */
  exportResume(runId: string): Promise<ResumeExport>;
  loadCheckpoint(bytes: Uint8Array): Promise<TrainerState>;
  /**
   * Continues stored run `runId` (after a page reload): the same run id, from its last checkpoint
   * `last`, with its best checkpoint `best` (null: none stored) and `state` (its counters and,
   * when stored, AdamW's state). Checked whole before the run changes; without optimizer state the
   * run goes on from its weights and counters, and the status says the optimizer restarts.
   */
  resume(runId: string, last: Uint8Array, best: Uint8Array | null, state: ResumeState | null): Promise<TrainerState>;
  /** resume() for a population: every member continues from its stored checkpoints (all of one step), under its own run id. */
  resumeMembers(members: ResumeEntry[]): Promise<TrainerState>;
  telemetryPort(port: MessagePort): Promise<void>;
  lastTranscripts(count?: number, runId?: string): Promise<Transcripts>;
  /** Whether this host offers a WebGPU adapter, in words a person can read. */
  probe(): Promise<GpuProbe>;
  /**
   * The backend the next init() builds (a run on another backend is ended). lanes: how many training workers run at
   * once on the page, this one included (a population's lanes; default 1): the next CPU engine divides the cores among them.
   */
  useBackend(prefer: BackendPreference, lanes?: number): Promise<TrainerState>;
  /**
   * On a WebGPU backend chosen by default: a warm step of WebGPU and of the CPU engine at this run's shapes, and the
   * faster kept for the next init() (the other freed); null where there is nothing to choose (no WebGPU).
   */
  chooseEngine(preset: string, overrides?: Partial<RunConfig>): Promise<EngineChoice | null>;
  /** Group `group` of the last step: rewards, advantages, ratios at the current weights, clipping, losses. */
  /** `runId`: the member whose step it shows (default the first); a stacked population of several refuses, saying why. */
  stepAnatomy(group: number, runId?: string): Promise<StepAnatomy>;
  /** Puts the weights of the best eval back into the run (it goes on from them). */
  restoreBest(runId?: string): Promise<TrainerState>;
  /** Puts back the weights of the eval at `step` (one a "best" rule can pick: the frontier or the highest reward). */
  restoreEval(step: number, runId?: string): Promise<TrainerState>;
  /** AgentPO runs: the Actor alone / with the untrained / with the trained (best) Collaborator on the held-out set. */
  compare(): Promise<Comparison>;
}

import type { EngineChoice } from '../rl/engineTiming';
export type { EngineChoice };
