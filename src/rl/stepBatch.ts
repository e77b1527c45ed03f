// A step's batch on the host: the loss rows' length, sequences as a PolicyBatch in
// prediction space, dynamic sampling's group choice and refill streams, and a member's
// share of a population rollout.
import { meanStd } from '../reference/rl';
import { shiftIntoRow } from './batch';
import type { PolicyBatch } from './objective';
import type { Rollout, Sequence } from './rollout';

/** Rows are cut to a multiple of this many positions: few shapes (each keeps its buffers), little padding. */
const ROW_QUANTUM = 8;

/** Per group of `G` consecutive rewards: whether they are all equal (the groups that carry no signal, A = 0). */
export function flatGroups(rewards: ArrayLike<number>, G: number): boolean[] {
  const P = Math.floor(rewards.length / G);
  return Array.from({ length: P }, (_, g) => meanStd(rewards, g * G, g * G + G).allEqual);
}

/** Dynamic sampling's refill round r (>= 1) draws its prompts here in the train stream, past any step's own (P * steps < 2^27). */
export const REFILL_INDEX = 1 << 27;
/** Its sampling seed: a stream of its own, so a refill round never repeats the first round's draws. */
export function refillSeed(seed: number, round: number): number { return (seed ^ Math.imul(round, 0x9e3779b1)) & 0x7fffffff; }

/** One rollout after another, as one: episodes of `b` are numbered after `a`'s (groups stay consecutive). */
export function concatRollouts<State>(a: Rollout<State>, b: Rollout<State>): Rollout<State> {
  const E = a.states.length;
  return { states: [...a.states, ...b.states], scores: [...a.scores, ...b.scores], sequences: [...a.sequences, ...b.sequences.map((q) => ({ ...q, episode: q.episode + E }))] };
}

/**
 * Dynamic sampling's choice: the first `P` groups that are not flat, in sampling order (a later round's groups
 * only fill what the earlier ones left). Returns their indices and how many came after the first round's `P0` groups.
 */
export function keptGroups(flat: boolean[], P: number, P0: number): { kept: number[]; refilled: number } {
  const kept: number[] = [];
  for (let g = 0; g < flat.length && kept.length < P; g++) if (!flat[g]) kept.push(g);
  return { kept, refilled: kept.filter((g) => g >= P0).length };
}

/**
 * The row length a batch of these sequences needs in prediction space (a sequence of n tokens fills n - 1
 * positions), rounded up to ROW_QUANTUM and at most blockSize - 1. Positions past a sequence are masked and,
 * attention being causal, change nothing before them: a shorter row gives the same loss and gradient for less work.
 */
export function rowLength(seqs: Sequence[], blockSize: number): number {
  let n = 1;
  for (const s of seqs) n = Math.max(n, s.context.length + s.generated.length - 1);
  return Math.min(blockSize - 1, Math.ceil(n / ROW_QUANTUM) * ROW_QUANTUM);
}

/**
 * Sequences as a PolicyBatch in prediction space (row per sequence). A continued sequence
 * also trains on its earlier turns' tokens, which sit inside its context.
 */
export function sequencesToBatch(seqs: Sequence[], episodeIndex: (e: number) => number, T: number): PolicyBatch {
  const S = seqs.length, ST = S * T;
  const tokens = new Int32Array(ST), targets = new Int32Array(ST).fill(-1), mask = new Float32Array(ST), oldLogp = new Float32Array(ST);
  const rows = { T, tokens, targets, mask, oldLogp, refLogp: null };
  seqs.forEach((s, i) => {
    const full = [...s.context, ...s.generated];
    const trained = new Float32Array(full.length), logp = new Float32Array(full.length); // indexed like `full`
    for (const x of s.earlier) { trained[x.at] = 1; logp[x.at] = x.logp; }
    s.generated.forEach((_, g) => { trained[s.context.length + g] = 1; logp[s.context.length + g] = s.logp[g]; });
    shiftIntoRow(rows, i, full, trained, logp);
  });
  return {
    S, T, tokens, targets, mask, oldLogp, refLogp: null, seqEpisode: Int32Array.from(seqs.map((s) => episodeIndex(s.episode))), rewards: new Float32Array(0), groupStart: new Int32Array(0),
    tMax: Math.max(1, ...seqs.map((s) => s.maxNew)), // the turns' token limit (docs/rl.md section 4b: Dr. GRPO's L_max)
  };
}


/** Member k's share of a population rollout: its episodes renumbered from 0, as its lone rollout numbers them. */
export function memberRollout<State>(ro: Rollout<State>, k: number, episodes: number): Rollout<State> {
  const from = k * episodes, to = from + episodes;
  return {
    states: ro.states.slice(from, to), scores: ro.scores.slice(from, to),
    sequences: ro.sequences.filter((s) => s.episode >= from && s.episode < to).map((s) => ({ ...s, episode: s.episode - from })),
  };
}
