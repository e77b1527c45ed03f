// What the Trainer needs of an environment. Turns run in lockstep across a
// batch: turn k of every episode is generated in one batched call per role.
// Everything here runs on the CPU and is plain data (no backend types).

/** One turn a policy must generate. */
export interface Turn {
  role: string; // e.g. 'scout' | 'solver'
  context: number[]; // token ids the policy conditions on (role token included)
  maxNew: number; // at most this many tokens are generated, EOS included
  message: boolean; // true when the generated tokens are a message to another agent (they count in `tokens`)
}

/** Per-episode outcome. `extras` are 0/1 or numeric flags the env aggregates in evalExtras. */
export interface Score {
  rTask: number; // in [0, 1]
  extras: Record<string, number>;
}

/** A transcript line for the viewer: who said what (silence as an empty message). */
export interface TranscriptLine {
  role: string;
  text: string; // the rendered context the env showed, or the generated tokens
  generated: boolean;
  tokens: number[];
}

/** A supervised demonstration: a full sequence and which positions are targets (1 = train on predicting this token). */
export interface Demonstration {
  tokens: number[];
  target: number[]; // same length; target[0] is always 0
}

export interface Environment<Task = unknown, State = unknown> {
  readonly id: string;
  readonly vocab: readonly string[]; // index = token id
  readonly eos: number; // token id of EOS
  readonly blockSize: number; // longest context + generation any turn needs

  /** Seeded tasks; the train and eval streams never share a task. `index` positions the stream. */
  sampleTasks(split: 'train' | 'eval', count: number, seed: number, index: number): Task[];
  start(task: Task): State;
  /** Turn k of an episode, or null when the episode is over. */
  turn(state: State, k: number): Turn | null;
  /** Records what the policy generated for turn k (EOS included when it was generated). */
  applyTurn(state: State, k: number, generated: number[]): void;
  score(state: State): Score;
  /** Aggregates per-episode extras of an eval into the reported env extras (camelCase, e.g. silenceKnown). */
  evalExtras(scores: Score[]): Record<string, number>;
  /** Verbose demonstrations for the warm start. */
  demonstrations(count: number, seed: number): Demonstration[];
  /** Human-readable transcript. */
  render(state: State): TranscriptLine[];
}
