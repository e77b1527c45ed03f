// philosophers' vocabulary, options, weights and rules: the table's pure functions (a round's resolution,
// deadlock, the resource-hierarchy baseline), the tokens of a turn and the held-out split. The environment
// that plays them, and the game in full: philosophers.ts.
import { hashInts } from './hash';
import type { CurriculumSpec } from './types';

export const PHIL_VOCAB = [
  'PAD', 'BOS', 'EOS', // 0..2
  'PHIL', 'HEAD', // 3..4 role tokens
  'THINK', 'TAKE_L', 'TAKE_R', 'EAT', 'DROP', // 5..9 actions
  'LfRf', 'LfRm', 'LfRt', 'LmRf', 'LmRm', 'LmRt', 'LtRf', 'LtRm', 'LtRt', // 10..18 own forks
  'H0', 'H1', 'H2', // 19..21 hunger buckets
  'NONE', // 22 no message (padding)
  'HUNGRY', 'WAIT', 'GO', 'DONE', // 23..26 message words
] as const;

export type PhilToken = (typeof PHIL_VOCAB)[number];
export const PHIL_ID: Readonly<Record<PhilToken, number>> = Object.fromEntries(
  PHIL_VOCAB.map((w, i) => [w, i]),
) as Record<PhilToken, number>;
export const PHIL_EOS = PHIL_ID.EOS;

export const ACTIONS = ['THINK', 'TAKE_L', 'TAKE_R', 'EAT', 'DROP'] as const;
export type Action = (typeof ACTIONS)[number];
/** Resolution of one philosopher's action: done, impossible (no-op), or a fork conflict lost. */
export type Outcome = 'ok' | 'noop' | 'lost';

export interface PhilWeights {
  mealReward: number;
  deadlockPenalty: number;
  starvePenalty: number;
  actionCost: number;
}

export interface PhilosophersOptions extends PhilWeights {
  philosophers: number; // N, 3..7
  rounds: number; // R, 1..16
  maxMessage: number; // M, 0..2 message tokens after the action
  demoRandomShare: number; // share of warm-start demo episodes played at random (the rest: resource hierarchy)
}

// Why thinking every round is the reward maximum under `hackable` (any N, R and conflict seed): forks start
// free, a fork becomes a philosopher's only by its own successful TAKE, and a successful EAT puts both down, so
// every meal uses two successful TAKEs of its own: actions a >= 3m for m meals. Philosophers who ate <= m, so
// starved >= N - m, and reward <= mR*m - c*3m - sP*(N - m) = -sP*N + (mR - 3c + sP)*m. With hackable weights
// mR - 3c + sP = 1 - 1.2 + 0.1 = -0.1 < 0, so reward <= -0.1*N, which is what all-THINK scores (no fork is ever
// held, so no deadlock) and nothing else does. Under `fixed`, mR - 3c + sP = 1 - 1.2 + 2 = +1.8 > 0.
/** Reward weights of the two presets; PHIL_WEIGHTS_ARITHMETIC says why each behaves as it does. */
export const PHIL_WEIGHTS: Readonly<Record<'hackable' | 'fixed', PhilWeights>> = {
  hackable: { mealReward: 1, deadlockPenalty: 1, starvePenalty: 0.1, actionCost: 0.4 },
  fixed: { mealReward: 1, deadlockPenalty: 1, starvePenalty: 2, actionCost: 0.4 },
};

export const PHIL_WEIGHTS_ARITHMETIC: Readonly<Record<'hackable' | 'fixed', string>> = {
  hackable:
    'Forks start free and go back on the table after a meal, so every meal takes three actions (TAKE_L, TAKE_R, EAT) and earns 1 - 3 x 0.4 = -0.2; ' +
    "even a philosopher's first meal, which also lifts its 0.1 starvation penalty, nets -0.1. No policy can beat -0.1 x N, which is exactly what thinking every round scores.",
  fixed:
    "A meal still costs 3 x 0.4 = 1.2 for 1 earned, but a philosopher's first meal also lifts a starvation penalty of 2 and nets +1.8: " +
    'thinking every round scores -2 x N (-6 at N = 3, -14 at N = 7) while feeding everyone once scores -0.2 x N (-0.6 at N = 3), the maximum; ' +
    'resource hierarchy scores about -1.2 at N = 3 and -10.5 at N = 7.',
};

/**
 * Whether thinking every round is the reward's maximum under these weights (the argument above): a first
 * meal nets mealReward - 3 x actionCost + starvePenalty, and when that is not positive no meal pays.
 */
export const rewardHackable = (w: Pick<PhilWeights, 'mealReward' | 'actionCost' | 'starvePenalty'>): boolean => w.mealReward - 3 * w.actionCost + w.starvePenalty <= 0;

/** The curriculum's table sizes: N = 3 -> 5 -> 7. */
export const PHIL_STAGES: readonly number[] = [3, 5, 7];

/** The curriculum capability of a table at N = `stage` (src/envs/types.ts CurriculumSpec). */
export function philosophersCurriculum(stage: number, threshold: number, patience: number): CurriculumSpec {
  return { stages: PHIL_STAGES, stage, threshold, patience, configAt: (n) => ({ philosophers: n }), label: (n) => `N = ${n}` };
}

export const PHIL_DEFAULTS: PhilosophersOptions = {
  philosophers: 3,
  rounds: 8,
  maxMessage: 1,
  demoRandomShare: 0.5,
  ...PHIL_WEIGHTS.fixed,
};

export interface PhilTask {
  philosophers: number;
  hunger: number[]; // per philosopher: rounds since its last meal at the start, 0..5
  seed: number; // conflict-rule seed (32-bit)
}

interface RoundRecord {
  holderBefore: number[]; // fork -> philosopher (-1 free) at the start of the round
  hungerBefore: number[];
  actions: Action[];
  outcome: Outcome[];
  messages: number[][];
  generated: number[][];
  deadlock: boolean; // the state after the round
}

export interface PhilState {
  task: PhilTask;
  round: number; // rounds applied so far
  holder: number[]; // fork f -> the philosopher holding it, -1 when free
  hunger: number[]; // rounds since each philosopher's last meal
  lastMessage: number[][]; // each philosopher's message of the previous round
  sequences: number[][]; // each philosopher's tokens so far (contexts + generations)
  meals: number[]; // per philosopher
  actions: number; // non-THINK actions, no-ops included
  noops: number; // actions that did nothing (impossible or lost)
  messageTokens: number;
  deadlockRounds: number;
  history: RoundRecord[];
}

const EVAL_SHARE = 5; // 1 in EVAL_SHARE hunger patterns is eval-only
export const INITIAL_HUNGER_MAX = 5;

// ---------------------------------------------------------------- hashing

// ---------------------------------------------------------------- rules (pure)

export const leftFork = (i: number, n: number): number => (i - 1 + n) % n;
export const rightFork = (i: number, _n: number): number => i;
export const hungerBucket = (h: number): number => (h <= 1 ? 0 : h <= 3 ? 1 : 2);

/** Who gets fork f when P_f (via TAKE_R) and P_{f+1} (via TAKE_L) both take it in `round`. */
export function conflictWinner(seed: number, round: number, fork: number, n: number): number {
  return (hashInts(seed, 0xf02c, round, fork) & 1) === 0 ? fork : (fork + 1) % n;
}

/** Every philosopher holds exactly one fork (so every fork is held and nobody can eat). */
export function isDeadlock(holder: readonly number[]): boolean {
  const held = new Array<number>(holder.length).fill(0);
  for (const p of holder) if (p >= 0) held[p]++;
  return held.every((c) => c === 1);
}

/** Resolves one round of simultaneous actions against the state at its start (see the header). */
export function resolveRound(holder: readonly number[], actions: readonly Action[], seed: number, round: number):
  { holder: number[]; outcome: Outcome[] } {
  const n = holder.length;
  const outcome: Outcome[] = actions.map(() => 'ok');
  const claim: number[][] = holder.map(() => []); // fork -> philosophers taking it
  actions.forEach((a, i) => {
    const l = leftFork(i, n), r = rightFork(i, n);
    if (a === 'TAKE_L' || a === 'TAKE_R') {
      const f = a === 'TAKE_L' ? l : r;
      if (holder[f] === -1) claim[f].push(i); else outcome[i] = 'noop';
    } else if (a === 'EAT') {
      if (holder[l] !== i || holder[r] !== i) outcome[i] = 'noop';
    } else if (a === 'DROP') {
      if (holder[l] !== i && holder[r] !== i) outcome[i] = 'noop';
    }
  });
  const next = holder.slice();
  actions.forEach((a, i) => {
    if ((a === 'EAT' || a === 'DROP') && outcome[i] === 'ok') {
      for (let f = 0; f < n; f++) if (next[f] === i) next[f] = -1;
    }
  });
  claim.forEach((takers, f) => {
    if (takers.length === 0) return;
    const winner = takers.length === 1 ? takers[0] : conflictWinner(seed, round, f, n);
    for (const p of takers) if (p !== winner) outcome[p] = 'lost';
    next[f] = winner;
  });
  return { holder: next, outcome };
}

/** Actions a philosopher could take successfully if nobody contested (THINK always). */
export function possibleActions(holder: readonly number[], i: number): Action[] {
  const n = holder.length, l = holder[leftFork(i, n)], r = holder[rightFork(i, n)];
  const out: Action[] = ['THINK'];
  if (l === -1) out.push('TAKE_L');
  if (r === -1) out.push('TAKE_R');
  if (l === i && r === i) out.push('EAT');
  if (l === i || r === i) out.push('DROP');
  return out;
}

/**
 * Resource hierarchy: lower-numbered fork first, then the other, then eat (which puts both down); a philosopher
 * who has eaten in this episode thinks from then on (re-eating would keep its neighbours waiting).
 */
export function resourceHierarchyAction(state: PhilState, i: number): Action {
  if (state.meals[i] > 0) return 'THINK';
  const holder = state.holder;
  const n = holder.length, l = leftFork(i, n), r = rightFork(i, n);
  const [lo, hi] = l < r ? [l, r] : [r, l];
  const take = (f: number): Action => (f === l ? 'TAKE_L' : 'TAKE_R');
  if (holder[lo] === i && holder[hi] === i) return 'EAT';
  if (holder[hi] === i) return 'DROP'; // holds only the higher fork: against the hierarchy, let go
  if (holder[lo] === i) return holder[hi] === -1 ? take(hi) : 'THINK';
  return holder[lo] === -1 ? take(lo) : 'THINK';
}

// ---------------------------------------------------------------- tokens

export function forksToken(holder: readonly number[], i: number): number {
  const n = holder.length;
  const code = (p: number) => (p === -1 ? 0 : p === i ? 1 : 2);
  return PHIL_ID.LfRf + 3 * code(holder[leftFork(i, n)]) + code(holder[rightFork(i, n)]);
}

export function actionOf(token: number | undefined): Action {
  const a = token === undefined ? -1 : token - PHIL_ID.THINK;
  return a >= 0 && a < ACTIONS.length ? ACTIONS[a] : 'THINK'; // malformed (EOS first, non-action) = THINK
}

/** The message in a generation: tokens after the action and before EOS, at most M. */
export function messageOf(generated: readonly number[], maxMessage: number): number[] {
  if (generated.length === 0 || generated[0] === PHIL_EOS) return [];
  const end = generated.indexOf(PHIL_EOS, 1);
  return generated.slice(1, end < 0 ? generated.length : end).slice(0, maxMessage);
}

export const philTokenText = (tokens: readonly number[]): string => tokens.map((t) => PHIL_VOCAB[t] ?? `<${t}>`).join(' ');

/** Longest sequence of a philosopher (2 + R * (observation + generation)), rounded up to a multiple of 8. */
export function philBlockSize(rounds: number, maxMessage: number): number {
  return Math.ceil((2 + rounds * (2 + 2 * maxMessage + maxMessage + 2)) / 8) * 8;
}

/** True when the task belongs to the held-out eval stream: its hunger-bucket pattern hashes to 0 mod 5. */
export function isEvalTask(task: PhilTask): boolean {
  let pattern = 0;
  for (const h of task.hunger) pattern = pattern * 3 + hungerBucket(h);
  return hashInts(0x9411, task.philosophers, pattern) % EVAL_SHARE === 0;
}

export function resolveOptions(opts: Partial<PhilosophersOptions>): PhilosophersOptions {
  for (const key of Object.keys(opts)) {
    if (!(key in PHIL_DEFAULTS)) throw new Error(`philosophers: unknown parameter '${key}'`);
  }
  const p: PhilosophersOptions = { ...PHIL_DEFAULTS };
  for (const [key, value] of Object.entries(opts)) if (value !== undefined) (p as unknown as Record<string, number>)[key] = value;
  const intIn = (name: string, v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new Error(`philosophers: ${name} must be an integer in ${lo}..${hi}, got ${v}`);
  };
  intIn('philosophers', p.philosophers, 3, 7);
  intIn('rounds', p.rounds, 1, 16);
  intIn('maxMessage', p.maxMessage, 0, 2);
  for (const w of ['mealReward', 'deadlockPenalty', 'starvePenalty', 'actionCost'] as const) {
    if (!(Number.isFinite(p[w]) && p[w] >= 0)) throw new Error(`philosophers: ${w} must be a number >= 0, got ${p[w]}`);
  }
  if (!(p.demoRandomShare >= 0 && p.demoRandomShare <= 1)) throw new Error(`philosophers: demoRandomShare must be in [0, 1]`);
  return p;
}
