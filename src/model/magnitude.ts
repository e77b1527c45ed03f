// Finite is not enough: a value whose magnitude overflows float32 arithmetic (a weight of 3e38
// squared in a layer norm, a reward of 1e308 in a group mean) turns every result non-finite.
// These bounds refuse such inputs at the boundary, naming the tensor or field. They sit far
// outside anything a run makes: the shipped warm starts' weights are within 2.4 in magnitude,
// rewards are O(1), a log-prob below -1e4 is a probability of exp(-10,000).
import { InputError } from '../contract/errors';

/** |weight| at most this: squares and dot products over n_embd <= 1024 stay far inside float32 (3.4e38). */
export const MAX_WEIGHT = 1e4;
/** |reward| at most this: the group mean and std of 64 such rewards stay finite. */
export const MAX_REWARD = 1e6;
/** |log-prob| at most this (and a log-prob is <= 0 anyway). */
export const MAX_LOGPROB = 1e4;

/** Index of the first value whose magnitude exceeds `max`, or -1. */
export function firstBeyond(data: ArrayLike<number>, max: number): number {
  for (let i = 0; i < data.length; i++) if (Math.abs(data[i]) > max) return i;
  return -1;
}

/** `v` when |v| <= max, else an InputError naming `where`. */
export function bounded(v: number, max: number, where: string): number {
  if (Math.abs(v) > max) throw new InputError(`${where} is ${v}, beyond +-${max}: a value that large overflows float32 arithmetic`);
  return v;
}
