// What the Trainer needs of an environment. Turns run in lockstep across a
// batch: turn k of every episode is generated in one batched call per slot.
// Everything here runs on the CPU and is plain data (no backend types).
// What an env can do beyond playing episodes it declares as capabilities
// (curriculum, taskMeasure, comparison): the Trainer, worker and CLI read them
// and never test an env's id (docs/architecture.md).
import type { RunConfig } from '../config';

/** One turn a policy must generate. */
export interface Turn {
  role: string; // e.g. 'scout' | 'solver'; the env's roleSlot maps it to a policy slot
  context: number[]; // token ids the policy conditions on (role token included)
  maxNew: number; // at most this many tokens are generated, EOS included
  message: boolean; // true when the generated tokens are a message to another agent (they count in `tokens`)
  /** Generated tokens before this index are an action, not message (default 0): philosophers' action token. */
  messageFrom?: number;
  /** Counts in `turns` even when it is not a message (AgentPO critic: the Actor's second answer). */
  countsAsTurn?: boolean;
  /** Which agent of the episode speaks (default 0). Parallel turns of one k have distinct agents. */
  agent?: number;
  /**
   * The context extends this agent's previous turn (its context + generated tokens are a prefix of this
   * context): both turns are one sequence for the loss (docs/rl.md: one sequence per agent over the rounds).
   */
  continues?: boolean;
}

/** Per-episode outcome. */
export interface Score {
  rTask: number; // the task measure in [0, 1]: the "accuracy" axis of the Pareto chart
  /** The environment's reward used in place of rTask in r = r_env - lambda... (philosophers' four terms); default rTask. */
  reward?: number;
  /** The parts of `reward`, each logged per step (e.g. meals, deadlock, starvation, actionCost). */
  terms?: Record<string, number>;
  extras: Record<string, number>; // 0/1 or numeric flags the env aggregates in evalExtras
}

/** A transcript line for the viewer: who said what (silence as an empty message). */
export interface TranscriptLine {
  role: string;
  text: string; // the rendered context the env showed, or the generated tokens (may be several lines: a drawn table)
  generated: boolean;
  tokens: number[];
}

/** A supervised demonstration: a full sequence and which positions are targets (1 = train on predicting this token). */
export interface Demonstration {
  tokens: number[];
  target: number[]; // same length; target[0] is always 0
}

/** A scripted policy's eval figures, drawn on the charts as a reference. */
export interface BaselineResult {
  name: string; // e.g. 'random', 'resource hierarchy'
  accuracy: number; // mean rTask on the eval tasks
  tokens: number; // mean message tokens per episode
  extras: Record<string, number>; // evalExtras of its episodes (and mean terms)
}

/** The env grows in stages once the eval task measure (accuracy) passes a threshold (src/rl/curriculum.ts). */
export interface CurriculumSpec {
  readonly stages: readonly number[]; // e.g. philosophers' N = 3, 5, 7
  readonly stage: number; // where this env instance stands
  readonly threshold: number;
  readonly patience: number;
  /** The config change that builds the env at another stage (philosophers: { philosophers: N }). */
  configAt(stage: number): Partial<RunConfig>;
  label(stage: number): string; // e.g. 'N = 5'
}

/**
 * A behaviour RL can only compress toward if the warm start already samples it now and then
 * (relay: silence on known tasks, the short formats): its rate at temperature 1, and the rate the
 * demonstrations hold on the same tasks.
 */
export interface RepertoireRate { key: string; label: string; sampled: number; demos: number }

/** An eval extra that measures the task better than accuracy, for the degenerate-policy detector. */
export interface TaskMeasure { key: string; label: string }

/** A frozen player and a trainable helper, compared alone / with the untrained helper / with the trained one. */
export interface PlayerComparison {
  frozen: string; // its slot, e.g. 'actor'
  helper: string; // e.g. 'collaborator'
  episodes: number; // held-out tasks the comparison uses by default
}

export interface Environment<Task = unknown, State = unknown> {
  readonly id: string;
  readonly vocab: readonly string[]; // index = token id
  readonly eos: number; // token id of EOS
  readonly blockSize: number; // longest context + generation any turn needs
  /** Role -> policy slot. Absent: every role is played by the one slot 'policy'. */
  readonly roleSlot?: Readonly<Record<string, string>>;

  /** Seeded tasks; the train and eval streams never share a task. `index` positions the stream. */
  sampleTasks(split: 'train' | 'eval', count: number, seed: number, index: number): Task[];
  /** A fresh episode; `replica` is its index within the task's group (0..G-1), for envs with per-episode chance (relay's channel). */
  start(task: Task, replica?: number): State;
  /** The turns of step k of an episode: one, several generated at once (simultaneous moves), or [] when it is over. */
  turn(state: State, k: number): Turn[];
  /** Records what the policy generated for step k: generated[i] answers turn(state, k)[i] (EOS included when generated). */
  applyTurn(state: State, k: number, generated: number[][]): void;
  score(state: State): Score;
  /** Aggregates per-episode extras of an eval into the reported env extras (camelCase, e.g. silenceKnown). */
  evalExtras(scores: Score[]): Record<string, number>;
  /** Verbose demonstrations for the warm start of one slot (default 'policy'). */
  demonstrations(count: number, seed: number, slot?: string): Demonstration[];
  /** Human-readable transcript. */
  render(state: State): TranscriptLine[];
  /** Scripted baselines on the given (eval) tasks. */
  baselines?(tasks: Task[], seed: number): BaselineResult[];

  // ---- capabilities (absent: the env does not have it)
  readonly curriculum?: CurriculumSpec;
  readonly taskMeasure?: TaskMeasure;
  readonly comparison?: PlayerComparison;
  /** The repertoire of finished episodes (played at temperature 1) against the demonstrations' (src/rl/warmStart.ts). */
  repertoire?(states: State[]): RepertoireRate[];
}

/** How a warm start's demonstrations are made (a preset's `demo`; createEnv's second argument). */
export interface DemoOptions {
  demoSilence?: number; flagAwareDemos?: boolean; demoCopies?: number;
  /** relay with demoCopies: 'every' spreads unknown tasks' demos evenly over 1..demoCopies copies (RL then compares every length); see relayVocab.ts. */
  demoLengths?: 'verbose' | 'every';
  /** relay: demos across channels, eps uniform in [lo, hi] per episode (the warm start then fits any channelNoise in it). */
  demoNoise?: readonly [number, number];
}
