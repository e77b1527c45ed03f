// A step's batch on the host: the loss rows' length, sequences as a PolicyBatch in
// prediction space, dynamic sampling's group choice and refill streams, and a member's
// share of a population rollout.
import { meanStd } from '../reference/rl';
import type { PredictionRows } from './batch';
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
  const seqEpisode = new Int32Array(S);
  const rows = { T, tokens, targets, mask, oldLogp };
  let tMax = 1;
  seqs.forEach((s, i) => {
    sequenceIntoRow(rows, i, s);
    seqEpisode[i] = episodeIndex(s.episode);
    if (s.maxNew > tMax) tMax = s.maxNew;
  });
  return {
    S, T, tokens, targets, mask, oldLogp, refLogp: null, seqEpisode, rewards: new Float32Array(0), groupStart: new Int32Array(0),
    tMax, // the turns' token limit (docs/rl.md section 4b: Dr. GRPO's L_max)
  };
}

/**
 * One sequence into row `row`, as shiftIntoRow (batch.ts) puts context + generated with its trained positions
 * (the earlier turns', then the generated tokens') and their log-probs, without building those arrays (nor closures):
 * this runs for every loss row of every step.
 */
function sequenceIntoRow(b: Omit<PredictionRows, 'refLogp'>, row: number, s: Sequence): void {
  const { context, generated, logp, earlier } = s, o = row * b.T, C = context.length, n = C + generated.length;
  // token u is the context at position u (the last one only while it fits the row) and the target at position u - 1
  for (let u = 0; u < n; u++) {
    const x = u < C ? context[u] : generated[u - C];
    if (u < n - 1 || u < b.T) b.tokens[o + u] = x;
    if (u >= 1) b.targets[o + u - 1] = x;
  }
  // a trained token u (u >= 1) is predicted at position u - 1
  for (let i = 0; i < earlier.length; i++) {
    const u = earlier[i].at;
    if (u >= 1 && u < n) { b.mask[o + u - 1] = 1; b.oldLogp[o + u - 1] = earlier[i].logp; }
  }
  for (let g = C > 0 ? 0 : 1; g < generated.length; g++) { b.mask[o + C + g - 1] = 1; b.oldLogp[o + C + g - 1] = logp[g]; }
}

/**
 * Each member's share of a population rollout (K members of `episodes` each): its episodes renumbered from 0, as its
 * lone rollout numbers them; one pass over the sequences for all K.
 */
export function memberRollouts<State>(ro: Rollout<State>, K: number, episodes: number): Rollout<State>[] {
  const out = Array.from({ length: K }, (_, k) => ({
    states: ro.states.slice(k * episodes, (k + 1) * episodes), scores: ro.scores.slice(k * episodes, (k + 1) * episodes), sequences: [] as Sequence[],
  }));
  for (const s of ro.sequences) {
    const k = Math.floor(s.episode / episodes);
    if (k >= 0 && k < K) out[k].sequences.push({ ...s, episode: s.episode - k * episodes });
  }
  return out;
}
