// relay's vocabulary, parameters and episode types (the environment: relay.ts; its header says the game).

export const RELAY_VOCAB = [
  'PAD', // 0, never generated on purpose
  'BOS', // 1
  'EOS', // 2
  'SCOUT', // 3
  'SOLVER', // 4
  'Q', // 5
  'KNOWN', // 6
  'UNKNOWN', // 7
  'SEP', // 8
  'ANS', // 9
  'MASK', // 10
  '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', // 11..20
  'SECRET', // 21
  'IS', // 22
  'REPEAT', // 23
  'NOTE', // 24
  'POS', // 25
  'DIGIT', // 26
] as const;

export type RelayToken = (typeof RELAY_VOCAB)[number];

/** Token id of a vocabulary word. */
export const RELAY_ID: Readonly<Record<RelayToken, number>> = Object.fromEntries(
  RELAY_VOCAB.map((w, i) => [w, i]),
) as Record<RelayToken, number>;

export const RELAY_EOS = RELAY_ID.EOS; // 2
/** Id of the digit d (0..9). */
export const digitId = (d: number): number => RELAY_ID['0'] + d;

export interface RelayParams {
  digits: number; // k, length of the secret, 1..5
  pKnown: number; // rate of KNOWN tasks in the eval stream, [0, 1]
  pKnownTrain: number; // rate of KNOWN tasks in the train stream (and demos), [0, 1]
  maxMessage: number; // M, longest Scout message (EOS excluded), 1..12
  demoSilence?: number; // fraction of silent Scout demonstrations, [0, 1]
  flagAwareDemos?: boolean; // verbose demo starts with NOTE instead of SECRET when the Solver knows
  channelNoise?: number; // eps: each message token is erased (the Solver reads MASK) with this probability, [0, 0.9]
  scouts?: number; // N Scouts, each holding a disjoint part of the secret, 1..6 (at most k)
  /** Demos for a noisy channel: the verbose message is s_j repeated this many times; short ones 1-4 copies (0 = the secret protocol). */
  demoCopies?: number;
  /**
   * With demoCopies: 'verbose' (80% of non-silent demos send demoCopies copies, the rest 1-4 or POS j DIGIT s_j)
   * or 'every' (on unknown tasks every count 1..demoCopies equally often; on known ones the clean relay's verbose message,
   * which has no copies to count, and its short formats). A warm start samples the lengths its demos hold, and the token penalty can
   * only compare lengths that groups sample (docs/recipe.md, "The length half").
   */
  demoLengths?: 'verbose' | 'every';
  /**
   * Demos for a range of channels: each demo episode draws its own eps uniformly from [lo, hi] (null: the env's eps).
   * A warm start made on them reads messages through any eps in the range, so it fits runs across it.
   */
  demoNoise?: readonly [number, number] | null;
}

export const RELAY_DEFAULTS: Required<RelayParams> = {
  digits: 3,
  pKnown: 0.3,
  pKnownTrain: 0.5,
  maxMessage: 8,
  demoSilence: 0.1,
  flagAwareDemos: true,
  channelNoise: 0,
  scouts: 1,
  demoCopies: 0,
  demoLengths: 'verbose',
  demoNoise: null,
};

export interface RelayTask {
  secret: number[]; // k digits, each 0..9
  j: number; // query position, 1..k
  known: boolean; // the Solver sees the secret
  noiseKey?: number; // seeds this task's channel erasures (default 0)
}

export interface RelayState {
  task: RelayTask;
  replica: number; // which episode of the task's group (erasures differ between them)
  scoutGenerated: number[][] | null; // what each Scout generated (EOS included when generated)
  messages: number[][] | null; // each Scout's message as sent: generated tokens before EOS, at most M
  received: number[][] | null; // what the Solver reads of each: erased tokens are MASK
  answer: number[] | null; // what the Solver generated
}
