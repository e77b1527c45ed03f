// addition's vocabulary, options and tasks: the arithmetic (carry, the answer a hint leads to), the
// held-out split and its streams, each role's context and the options' checks. The environment that plays
// them, and the game in full: addition.ts.
import { mulberry32 } from '../model/random';
import { hashInts } from './hash';
import type { Environment } from './types';

export const ADD_VOCAB = [
  'PAD', // 0, never generated on purpose
  'BOS', // 1
  'EOS', // 2
  'ACTOR', // 3
  'COLLAB', // 4
  'CRITIC', // 5
  '+', // 6
  'SEP', // 7
  'ANS', // 8
  'HINT', // 9
  'DRAFT', // 10
  'CRIT', // 11
  '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', // 12..21
  'CARRY', // 22
  'NOCARRY', // 23
  'OK', // 24
  'FIX', // 25
] as const;

export type AddToken = (typeof ADD_VOCAB)[number];

/** Token id of a vocabulary word. */
export const ADD_ID: Readonly<Record<AddToken, number>> = Object.fromEntries(
  ADD_VOCAB.map((w, i) => [w, i]),
) as Record<AddToken, number>;

export const ADD_EOS = ADD_ID.EOS;
export const digitId = (d: number): number => ADD_ID['0'] + d;

export type Topology = 'alone' | 'hint' | 'critic';

export interface AdditionOptions {
  topology: Topology;
  dropCarry?: number; // share of the Actor's alone demos on carry problems that drop the carry, [0, 1]
  untrainedSilence?: number; // share of silent hints / critiques in the collaborator's demos, [0, 1]
  untrainedFlip?: number; // P(the untrained collaborator says the opposite of its belief), [0, 1]
}

/** The untrained collaborator believes the units column carries from this units sum up (the truth: 10). */
export const UNTRAINED_CARRY_FROM = 5;

export const ADDITION_DEFAULTS: Required<Omit<AdditionOptions, 'topology'>> = {
  dropCarry: 0.7,
  untrainedSilence: 0.1,
  untrainedFlip: 0.2,
};

export interface AddTask {
  a: number; // 10..99
  b: number; // 10..99
}

export interface AddState {
  task: AddTask;
  hint: number[] | null; // hint topology: what the Collaborator generated (EOS included when generated)
  draft: number[] | null; // critic topology: the Actor's first answer
  critique: number[] | null; // critic topology: what the Critic generated
  answer: number[] | null; // the Actor's answer (alone, hint) or its revision (critic, only after a critique)
}

export interface AdditionEnv extends Environment<AddTask, AddState> {
  readonly topology: Topology;
}

const EVAL_SHARE = 4; // 1 in EVAL_SHARE (a, b) pairs is eval-only
export const ADD_BLOCK_SIZE = 24;

// ---------------------------------------------------------------- arithmetic

/** 1 when the units column carries (the hint a collaborator should learn), else 0. */
export const carryOf = (t: AddTask): number => ((t.a % 10) + (t.b % 10) >= 10 ? 1 : 0);

/** The answer of an Actor that follows carry c: the sum when c = carryOf(t), else the sum -+ 10. */
export function followedAnswer(t: AddTask, c: number): number {
  const tens = Math.floor(t.a / 10) + Math.floor(t.b / 10) + c;
  return 10 * tens + ((t.a % 10) + (t.b % 10)) % 10;
}

/** What the Actor must generate: the decimal digits of n (no leading zero), then EOS. */
export function answerTokens(n: number): number[] {
  return [...String(n)].map((ch) => digitId(Number(ch))).concat(ADD_EOS);
}

/** Exact: the digits of a+b then EOS, nothing else (a missing EOS or an extra digit is wrong). */
export function isCorrect(t: AddTask, generated: number[] | null): boolean {
  const want = answerTokens(t.a + t.b);
  return generated !== null && generated.length === want.length && want.every((tok, i) => generated[i] === tok);
}

// ---------------------------------------------------------------- split

/** 32-bit integer mixer (murmur3 finalizer). */
/** True when (a, b) belongs to the held-out eval set. */
export function isEvalProblem(t: AddTask): boolean {
  return hashInts(0xadd, t.a, t.b) % EVAL_SHARE === 0;
}

/** Every eval pair, in (a, b) order. */
export const EVAL_PROBLEMS: readonly AddTask[] = (() => {
  const out: AddTask[] = [];
  for (let a = 10; a <= 99; a++) for (let b = 10; b <= 99; b++) if (isEvalProblem({ a, b })) out.push({ a, b });
  return out;
})();

/** Train task `index` of a seed: its own RNG, so it depends only on (seed, index). */
export function trainTask(seed: number, index: number): AddTask {
  const rand = mulberry32(hashInts(seed, 0x7a1, index));
  for (;;) {
    const t = { a: 10 + Math.floor(rand() * 90), b: 10 + Math.floor(rand() * 90) };
    if (!isEvalProblem(t)) return t;
  }
}

/** The eval set in a seeded order (Fisher-Yates), cached per seed. */
const evalOrders = new Map<number, AddTask[]>();
export function evalOrder(seed: number): AddTask[] {
  let order = evalOrders.get(seed);
  if (!order) {
    order = EVAL_PROBLEMS.slice();
    const rand = mulberry32(hashInts(seed, 0xe7a1));
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    if (evalOrders.size > 16) evalOrders.clear();
    evalOrders.set(seed, order);
  }
  return order;
}

// ---------------------------------------------------------------- contexts

export const problemTokens = (t: AddTask): number[] => [
  digitId(Math.floor(t.a / 10)), digitId(t.a % 10), ADD_ID['+'], digitId(Math.floor(t.b / 10)), digitId(t.b % 10),
];

/** The alone context, also the draft's and the one a silent hint leaves. */
export function actorContext(t: AddTask): number[] {
  return [ADD_ID.BOS, ADD_ID.ACTOR, ...problemTokens(t), ADD_ID.ANS];
}

export function actorHintContext(t: AddTask, hint: number[]): number[] {
  if (hint.length === 0) return actorContext(t);
  return [ADD_ID.BOS, ADD_ID.ACTOR, ...problemTokens(t), ADD_ID.HINT, ...hint, ADD_ID.ANS];
}

export function collaboratorContext(t: AddTask): number[] {
  return [ADD_ID.BOS, ADD_ID.COLLAB, ...problemTokens(t), ADD_ID.SEP];
}

export function criticContext(t: AddTask, draft: number[]): number[] {
  return [ADD_ID.BOS, ADD_ID.CRITIC, ...problemTokens(t), ADD_ID.DRAFT, ...draft, ADD_ID.SEP];
}

export function actorRevisionContext(t: AddTask, draft: number[], critique: number[]): number[] {
  return [ADD_ID.BOS, ADD_ID.ACTOR, ...problemTokens(t), ADD_ID.DRAFT, ...draft, ADD_ID.CRIT, ...critique, ADD_ID.ANS];
}

/** What the next turn reads of a generation: its tokens before EOS, at most maxNew - 1. */
export function textOf(generated: number[], maxNew: number): number[] {
  const end = generated.indexOf(ADD_EOS);
  return generated.slice(0, Math.min(end < 0 ? generated.length : end, maxNew - 1));
}

/** A critique accepts the draft when it is silent or starts with OK. */
export function accepts(critique: number[]): boolean {
  return critique.length === 0 || critique[0] === ADD_ID.OK;
}

// ---------------------------------------------------------------- options

export function resolveOptions(opts: AdditionOptions): Required<AdditionOptions> {
  for (const key of Object.keys(opts)) {
    if (key !== 'topology' && !(key in ADDITION_DEFAULTS)) throw new Error(`addition: unknown option '${key}'`);
  }
  if (!['alone', 'hint', 'critic'].includes(opts.topology)) throw new Error(`addition: unknown topology '${opts.topology}'`);
  const o: Required<AdditionOptions> = { ...ADDITION_DEFAULTS, topology: opts.topology };
  for (const [key, value] of Object.entries(opts)) {
    if (value !== undefined) (o as unknown as Record<string, unknown>)[key] = value;
  }
  for (const key of Object.keys(ADDITION_DEFAULTS) as (keyof typeof ADDITION_DEFAULTS)[]) {
    const v = o[key];
    if (!(v >= 0 && v <= 1)) throw new Error(`addition: ${key} must be in [0, 1], got ${v}`);
  }
  return o;
}
