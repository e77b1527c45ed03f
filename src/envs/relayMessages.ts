// relay's token sequences: the held-out split, the Scouts' demo and short messages, each role's context,
// the noisy channel and the demonstrations' formats (the environment that uses them: relay.ts).
import { hashInts } from './hash';
import { digitId, RELAY_DEFAULTS, RELAY_EOS, RELAY_ID, RELAY_VOCAB, type RelayTask } from './relayVocab';
import type { Demonstration } from './types';

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

export function truncate(msg: number[], maxMessage: number): number[] {
  return msg.length > maxMessage ? msg.slice(0, maxMessage) : msg;
}

/** The verbose demo message (EOS excluded): SECRET|NOTE s_1..s_k REPEAT s_1..s_k, truncated to M. */
export function greedyVerboseMessage(task: RelayTask, maxMessage = RELAY_DEFAULTS.maxMessage, flagAware = true): number[] {
  const s = task.secret.map(digitId);
  const head = flagAware && task.known ? RELAY_ID.NOTE : RELAY_ID.SECRET;
  return truncate([head, ...s, RELAY_ID.REPEAT, ...s], maxMessage);
}

/** A demo message and where s_j sits in it (-1: nowhere; the first copy). */
export interface DemoMessage {
  tokens: number[]; // EOS excluded
  answerAt: number;
  /** Every position holding s_j (default [answerAt]): with erasures, any surviving copy reveals it. */
  copiesAt?: number[];
}

/** The short formats: POS j DIGIT s_j | DIGIT s_j | s_j | IS s_1..s_j | s_1..s_k. */
export function shortMessage(task: RelayTask, which: number): DemoMessage {
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
export const SHORT_FORMATS = 5;

/** The Scout's message from what it generated: tokens before EOS, at most M. */
export function messageOf(generated: number[], maxMessage: number): number[] {
  const end = generated.indexOf(RELAY_EOS);
  return truncate(end < 0 ? generated.slice() : generated.slice(0, end), maxMessage);
}

// ---------------------------------------------------------------- contexts

/** Which Scout (0..N-1) holds secret position p (0-based): contiguous parts, sizes differing by at most 1. */
export function holderOf(p: number, digits: number, scouts: number): number {
  return Math.floor((p * scouts) / digits);
}

/** Scout `scout`'s view: its part of the secret, MASK elsewhere (N = 1: the whole secret). */
export function scoutContext(task: RelayTask, scout = 0, scouts = 1): number[] {
  const k = task.secret.length;
  const view = task.secret.map((d, p) => (holderOf(p, k, scouts) === scout ? digitId(d) : RELAY_ID.MASK));
  return [
    RELAY_ID.BOS, RELAY_ID.SCOUT, ...view,
    RELAY_ID.Q, digitId(task.j), task.known ? RELAY_ID.KNOWN : RELAY_ID.UNKNOWN, RELAY_ID.SEP,
  ];
}

/** The Solver's context; `messages` are what it receives from each Scout, in order (one message: the two-role relay). */
export function solverContext(task: RelayTask, messages: number[] | number[][]): number[] {
  const ms = (messages.length > 0 && Array.isArray(messages[0]) ? messages : [messages]) as number[][];
  // pushed, not spread: every episode of every step builds one
  const out = [RELAY_ID.BOS, RELAY_ID.SOLVER, RELAY_ID.Q, digitId(task.j)];
  for (const d of task.secret) out.push(task.known ? digitId(d) : RELAY_ID.MASK);
  out.push(RELAY_ID.SEP);
  ms.forEach((m, i) => {
    if (i > 0) out.push(RELAY_ID.SEP);
    for (const x of m) out.push(x);
  });
  out.push(RELAY_ID.ANS);
  return out;
}

/** True when the channel erases token `position` of Scout `scout`'s message in this episode. */
export function erased(task: RelayTask, replica: number, scout: number, position: number, eps: number): boolean {
  if (eps <= 0) return false;
  return hashInts(task.noiseKey ?? 0, replica, scout, position) / 2 ** 32 < eps;
}

/** A message as the Solver receives it: erased tokens become MASK. */
export function throughChannel(message: number[], task: RelayTask, replica: number, scout: number, eps: number): number[] {
  return message.map((t, i) => (erased(task, replica, scout, i, eps) ? RELAY_ID.MASK : t));
}

// ---------------------------------------------------------------- demonstrations

/** The copy protocol's messages (noisy channel): s_j repeated n times, NOTE first when the Solver knows (flag-aware). */
export function copyMessage(task: RelayTask, n: number, flagAware: boolean): DemoMessage {
  const sj = digitId(task.secret[task.j - 1]);
  const head = flagAware && task.known ? [RELAY_ID.NOTE] : [];
  const tokens = [...head, ...Array.from({ length: n }, () => sj)];
  return { tokens, answerAt: head.length, copiesAt: tokens.map((_, i) => i).filter((i) => i >= head.length) };
}

/** Scout `scout`'s verbose message for its own part: SECRET|NOTE part REPEAT part (N = 1: the whole secret). */
export function partMessage(task: RelayTask, scout: number, scouts: number, flagAware: boolean): DemoMessage {
  const k = task.secret.length;
  const held = task.secret.map((_, p) => p).filter((p) => holderOf(p, k, scouts) === scout);
  const part = held.map((p) => digitId(task.secret[p]));
  const head = flagAware && task.known ? RELAY_ID.NOTE : RELAY_ID.SECRET;
  const at = held.indexOf(task.j - 1);
  return { tokens: [head, ...part, RELAY_ID.REPEAT, ...part], answerAt: at < 0 ? -1 : 1 + at, copiesAt: at < 0 ? [] : [1 + at, 2 + part.length + at] };
}

/**
 * A Scout's short format about a digit it holds (one of its part, drawn from `rand`), for a Scout
 * that does not hold s_j: POS p DIGIT s_p | DIGIT s_p | s_p, the holder's formats (shortMessage 0-2)
 * about its own digit. It does not reveal s_j (answerAt -1).
 */
export function ownShortMessage(task: RelayTask, scout: number, scouts: number, which: number, rand: () => number): DemoMessage {
  const k = task.secret.length;
  const held = task.secret.map((_, p) => p).filter((p) => holderOf(p, k, scouts) === scout);
  const p = held[Math.floor(rand() * held.length)];
  const d = digitId(task.secret[p]);
  const tokens = which === 0 ? [RELAY_ID.POS, digitId(p + 1), RELAY_ID.DIGIT, d] : which === 1 ? [RELAY_ID.DIGIT, d] : [d];
  return { tokens, answerAt: -1, copiesAt: [] };
}

/** Does the received message still carry s_j (some copy inside M and not erased)? */
export function reveals(msg: DemoMessage, tokens: number[], received: number[]): boolean {
  const at = msg.copiesAt ?? (msg.answerAt >= 0 ? [msg.answerAt] : []);
  return at.some((i) => i < tokens.length && received[i] !== RELAY_ID.MASK);
}

/** Context + generated part; targets exactly on the generated tokens. */
export function withTargets(context: number[], generated: number[]): Demonstration {
  return {
    tokens: [...context, ...generated],
    target: [...context.map(() => 0), ...generated.map(() => 1)],
  };
}

/** Readable text of token ids (unknown ids as <id>). */
export function tokenText(tokens: number[]): string {
  return tokens.map((t) => RELAY_VOCAB[t] ?? `<${t}>`).join(' ');
}
