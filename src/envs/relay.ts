// relay: communication efficiency and strategic silence (envs.md section 1).
//
// Two roles share one episode: the Scout sees a k-digit secret, a query
// position j and whether the Solver already knows the secret; it writes a
// message of at most M tokens ending in EOS (EOS first = silence). The Solver
// sees the query, the secret or k MASKs, and the message; it answers one digit
// and EOS. r_task = 1 when the answer is s_j.
//
// Layouts (ids in RELAY_VOCAB):
//   scout context   BOS SCOUT s_1..s_k Q j (KNOWN|UNKNOWN) SEP          k+6 tokens, then <= M+1 generated
//   solver context  BOS SOLVER Q j (s_1..s_k | MASK x k) SEP <msg> ANS  k+6+|msg| tokens, then 2 generated
// so the longest sequence is k+M+8 tokens; blockSize rounds it up to 8.
//
// Train / eval split: a task's (secret, j) is hashed and about 20% of pairs
// are eval-only; each stream samples by rejection. For k = 1 there are only 10
// pairs, and holding two of them out would hold out whole digits (the model
// would never see them in training), so for k = 1 the flag joins the key: the
// eval-only (secret, known) pairs are digits {2, 7} when UNKNOWN and {4, 9}
// when KNOWN. Every digit then appears in training with one of the flags.
//
// Demonstrations follow relay-calibration.md: mostly the verbose protocol
// (SECRET s_1..s_k REPEAT s_1..s_k, 2k+2 tokens, truncated to M; NOTE instead
// of SECRET when the Solver knows and flagAwareDemos), a minority of shorter
// formats, and a demoSilence fraction of silent messages drawn independently
// of the flag.

import { mulberry32 } from '../model/random';
import { hashInts } from './hash';
import type { Demonstration, Environment, Score, TranscriptLine, Turn } from './types';

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
};

export interface RelayTask {
  secret: number[]; // k digits, each 0..9
  j: number; // query position, 1..k
  known: boolean; // the Solver sees the secret
}

export interface RelayState {
  task: RelayTask;
  scoutGenerated: number[] | null; // what the Scout generated (EOS included when generated)
  message: number[] | null; // the message the Solver reads: generated tokens before EOS, at most M
  answer: number[] | null; // what the Solver generated
}

/** Share of verbose messages among non-silent Scout demonstrations; the rest are short formats. */
const DEMO_VERBOSE_SHARE = 0.8;
const EVAL_SHARE = 5; // 1 in EVAL_SHARE (secret, j) pairs is eval-only

// ---------------------------------------------------------------- hashing

/** 32-bit integer mixer (murmur3 finalizer). */
/** True when the task belongs to the held-out eval stream (see the file header). */
export function isEvalTask(task: RelayTask): boolean {
  if (task.secret.length === 1) return (task.secret[0] + (task.known ? 3 : 0)) % 5 === 2;
  let value = 0;
  for (const d of task.secret) value = value * 10 + d;
  return hashInts(0x5eed, value, task.j) % EVAL_SHARE === 0;
}

// ---------------------------------------------------------------- messages

function truncate(msg: number[], maxMessage: number): number[] {
  return msg.length > maxMessage ? msg.slice(0, maxMessage) : msg;
}

/** The verbose demo message (EOS excluded): SECRET|NOTE s_1..s_k REPEAT s_1..s_k, truncated to M. */
export function greedyVerboseMessage(task: RelayTask, maxMessage = RELAY_DEFAULTS.maxMessage, flagAware = true): number[] {
  const s = task.secret.map(digitId);
  const head = flagAware && task.known ? RELAY_ID.NOTE : RELAY_ID.SECRET;
  return truncate([head, ...s, RELAY_ID.REPEAT, ...s], maxMessage);
}

/** A demo message and where s_j sits in it (-1: nowhere). */
interface DemoMessage {
  tokens: number[]; // EOS excluded
  answerAt: number;
}

/** The short formats: POS j DIGIT s_j | DIGIT s_j | s_j | IS s_1..s_j | s_1..s_k. */
function shortMessage(task: RelayTask, which: number): DemoMessage {
  const s = task.secret.map(digitId);
  const sj = s[task.j - 1];
  switch (which) {
    case 0: return { tokens: [RELAY_ID.POS, digitId(task.j), RELAY_ID.DIGIT, sj], answerAt: 3 };
    case 1: return { tokens: [RELAY_ID.DIGIT, sj], answerAt: 1 };
    case 2: return { tokens: [sj], answerAt: 0 };
    case 3: return { tokens: [RELAY_ID.IS, ...s.slice(0, task.j)], answerAt: task.j };
    default: return { tokens: s, answerAt: task.j - 1 };
  }
}
const SHORT_FORMATS = 5;

/** The Scout's message from what it generated: tokens before EOS, at most M. */
function messageOf(generated: number[], maxMessage: number): number[] {
  const end = generated.indexOf(RELAY_EOS);
  return truncate(end < 0 ? generated.slice() : generated.slice(0, end), maxMessage);
}

// ---------------------------------------------------------------- contexts

export function scoutContext(task: RelayTask): number[] {
  return [
    RELAY_ID.BOS, RELAY_ID.SCOUT, ...task.secret.map(digitId),
    RELAY_ID.Q, digitId(task.j), task.known ? RELAY_ID.KNOWN : RELAY_ID.UNKNOWN, RELAY_ID.SEP,
  ];
}

export function solverContext(task: RelayTask, message: number[]): number[] {
  const view = task.known ? task.secret.map(digitId) : task.secret.map(() => RELAY_ID.MASK);
  return [RELAY_ID.BOS, RELAY_ID.SOLVER, RELAY_ID.Q, digitId(task.j), ...view, RELAY_ID.SEP, ...message, RELAY_ID.ANS];
}

// ---------------------------------------------------------------- params

function resolveParams(params: Partial<RelayParams>): Required<RelayParams> {
  for (const key of Object.keys(params)) {
    if (!(key in RELAY_DEFAULTS)) throw new Error(`relay: unknown parameter '${key}'`);
  }
  const p: Required<RelayParams> = { ...RELAY_DEFAULTS };
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) (p as Record<string, unknown>)[key] = value;
  }
  const intIn = (name: string, v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new Error(`relay: ${name} must be an integer in ${lo}..${hi}, got ${v}`);
  };
  const rate = (name: string, v: number) => {
    if (!(v >= 0 && v <= 1)) throw new Error(`relay: ${name} must be in [0, 1], got ${v}`);
  };
  intIn('digits', p.digits, 1, 5);
  intIn('maxMessage', p.maxMessage, 1, 12);
  rate('pKnown', p.pKnown);
  rate('pKnownTrain', p.pKnownTrain);
  rate('demoSilence', p.demoSilence);
  return p;
}

/** Longest sequence any turn needs (the Solver's: k+M+8), rounded up to a multiple of 8. */
export function relayBlockSize(digits: number, maxMessage: number): number {
  const scout = digits + 6 + maxMessage + 1;
  const solver = digits + 6 + maxMessage + 2;
  return Math.ceil(Math.max(scout, solver) / 8) * 8;
}

// ---------------------------------------------------------------- environment

export function createRelay(params: Partial<RelayParams> = {}): Environment<RelayTask, RelayState> {
  const p = resolveParams(params);
  const k = p.digits;
  const M = p.maxMessage;

  /** Task `index` of a stream: its own RNG, so a task depends only on (split, seed, index). */
  function sampleTask(split: 'train' | 'eval', seed: number, index: number): RelayTask {
    const rand = mulberry32(hashInts(seed, split === 'eval' ? 0xe7a1 : 0x7a1, index));
    const known = rand() < (split === 'eval' ? p.pKnown : p.pKnownTrain);
    for (let tries = 0; tries < 10_000; tries++) {
      const secret = Array.from({ length: k }, () => Math.floor(rand() * 10));
      const j = 1 + Math.floor(rand() * k);
      const task = { secret, j, known };
      if (isEvalTask(task) === (split === 'eval')) return task;
    }
    throw new Error(`relay: no ${split} task found by rejection (k=${k})`);
  }

  const env: Environment<RelayTask, RelayState> = {
    id: 'relay',
    vocab: RELAY_VOCAB,
    eos: RELAY_EOS,
    blockSize: relayBlockSize(k, M),

    sampleTasks(split, count, seed, index) {
      return Array.from({ length: count }, (_, i) => sampleTask(split, seed, index + i));
    },

    start(task) {
      return { task, scoutGenerated: null, message: null, answer: null };
    },

    turn(state, t): Turn[] {
      if (t === 0) return [{ role: 'scout', context: scoutContext(state.task), maxNew: M + 1, message: true }];
      if (t === 1) {
        if (state.message === null) throw new Error('relay: turn 1 before the Scout turn was applied');
        return [{ role: 'solver', context: solverContext(state.task, state.message), maxNew: 2, message: false }];
      }
      return [];
    },

    applyTurn(state, t, [generated]) {
      if (t === 0) {
        state.scoutGenerated = generated.slice();
        state.message = messageOf(generated, M);
      } else if (t === 1) {
        state.answer = generated.slice();
      } else {
        throw new Error(`relay: no turn ${t}`);
      }
    },

    score(state): Score {
      const { task } = state;
      const right = state.answer !== null && state.answer[0] === digitId(task.secret[task.j - 1]);
      return {
        rTask: right ? 1 : 0,
        extras: {
          known: task.known ? 1 : 0,
          silent: state.scoutGenerated !== null && state.scoutGenerated[0] === RELAY_EOS ? 1 : 0,
          messageTokens: state.message?.length ?? 0,
        },
      };
    },

    evalExtras(scores) {
      const mean = (known: number) => {
        const xs = scores.filter((s) => s.extras.known === known);
        return xs.length === 0 ? 0 : xs.reduce((a, s) => a + (s.extras.silent ?? 0), 0) / xs.length;
      };
      return { silenceKnown: mean(1), silenceUnknown: mean(0) };
    },

    demonstrations(count, seed) {
      // Episodes on training tasks; each gives a Scout demo and, when the Solver
      // can answer (the message reveals s_j, or it knows), a Solver demo.
      const rand = mulberry32(hashInts(seed, 0xde70));
      const demos: Demonstration[] = [];
      for (let episode = 0; demos.length < count; episode++) {
        const task = sampleTask('train', seed, episode);
        let msg: DemoMessage;
        if (rand() < p.demoSilence) {
          msg = { tokens: [], answerAt: -1 };
        } else if (rand() < DEMO_VERBOSE_SHARE) {
          msg = { tokens: greedyVerboseMessage(task, M, p.flagAwareDemos), answerAt: task.j };
        } else {
          msg = shortMessage(task, Math.floor(rand() * SHORT_FORMATS));
        }
        const tokens = truncate(msg.tokens, M);
        const reveals = msg.answerAt >= 0 && msg.answerAt < tokens.length;

        demos.push(withTargets(scoutContext(task), [...tokens, RELAY_EOS]));
        if (demos.length < count && (reveals || task.known)) {
          demos.push(withTargets(solverContext(task, tokens), [digitId(task.secret[task.j - 1]), RELAY_EOS]));
        }
      }
      return demos;
    },

    render(state): TranscriptLine[] {
      const { task } = state;
      const lines: TranscriptLine[] = [];
      const sj = task.secret[task.j - 1];
      lines.push({
        role: 'scout',
        text: `Scout sees ${task.secret.join(' ')}, asked position ${task.j}, Solver knows: ${task.known ? 'yes' : 'no'}`,
        generated: false,
        tokens: scoutContext(task),
      });
      if (state.scoutGenerated === null || state.message === null) return lines;
      lines.push({
        role: 'scout',
        text: state.message.length === 0 ? '(silent)' : tokenText(state.message),
        generated: true,
        tokens: state.scoutGenerated.slice(),
      });
      const view = task.known ? task.secret.join(' ') : task.secret.map(() => '?').join(' ');
      lines.push({
        role: 'solver',
        text: `Solver sees ${view}, asked position ${task.j}, message: ${state.message.length === 0 ? '(silent)' : tokenText(state.message)}`,
        generated: false,
        tokens: solverContext(task, state.message),
      });
      if (state.answer === null) return lines;
      const right = state.answer[0] === digitId(sj);
      lines.push({
        role: 'solver',
        text: `answers ${tokenText(state.answer.slice(0, 1))} (${right ? 'correct' : `wrong, s_${task.j} = ${sj}`})`,
        generated: true,
        tokens: state.answer.slice(),
      });
      return lines;
    },
  };
  return env;
}

/** Context + generated part; targets exactly on the generated tokens. */
function withTargets(context: number[], generated: number[]): Demonstration {
  return {
    tokens: [...context, ...generated],
    target: [...context.map(() => 0), ...generated.map(() => 1)],
  };
}

/** Readable text of token ids (unknown ids as <id>). */
export function tokenText(tokens: number[]): string {
  return tokens.map((t) => RELAY_VOCAB[t] ?? `<${t}>`).join(' ');
}
