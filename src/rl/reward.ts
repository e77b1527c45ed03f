// The communication-aware reward of docs/rl.md section 2, per episode, with its parts.
import type { Sequence } from './rollout';

export interface RewardWeights {
  lambdaTok: number; lambdaTurn: number; lambdaRep: number;
  /** DAPO's soft overlong punishment (docs/rl.md section 2): L_cache (0 or absent = off) and the penalty at the limit. */
  overlongCache?: number; overlongPenalty?: number;
}

/** The weights in force: lambda_tok as the run has it now (the dual update moves it), the others from the config. */
export function rewardWeights(c: { lambdaTurn: number; lambdaRep: number; overlongCache: number; overlongPenalty: number }, lambdaTok: number): RewardWeights {
  return { lambdaTok, lambdaTurn: c.lambdaTurn, lambdaRep: c.lambdaRep, overlongCache: c.overlongCache, overlongPenalty: c.overlongPenalty };
}

/**
 * DAPO's soft overlong punishment of one turn, as a fraction of the penalty: 0 up to L_max - L_cache generated
 * tokens, then linear, 1 at the turn's limit L_max (`maxNew`, EOS included). |y| never exceeds L_max here (the
 * sampler stops there), so DAPO's "-1 beyond L_max" case is the limit itself.
 */
export function overlongFraction(generated: number, maxNew: number, cache: number): number {
  if (cache <= 0) return 0;
  return Math.min(1, Math.max(0, (generated - (maxNew - cache)) / cache));
}

export interface RewardParts {
  reward: number;
  rTask: number;
  tokens: number; // message tokens, EOS excluded, summed over the episode's agents
  turns: number; // message turns actually taken (a silent turn does not count)
  repetition: number; // message tokens whose bigram (previous, token) already occurred in the episode's messages
  overlong?: number; // sum over the episode's message turns of overlongFraction (0 or absent when the shaping is off)
}

/** Message parts of one episode from its sequences (EOS excluded). */
export function messageParts(seqs: (Pick<Sequence, 'message' | 'generated' | 'maxNew'> & Partial<Pick<Sequence, 'messageFrom' | 'countsAsTurn'>>)[], eos: number,
  overlongCache = 0): MessageParts {
  let tokens = 0, turns = 0, repetition = 0, overlong = 0;
  let seen: Set<number | string> | null = null; // made at the episode's first bigram (silent episodes need none)
  for (const s of seqs) {
    if (s.countsAsTurn) turns++;
    if (!s.message) continue;
    overlong += overlongFraction(s.generated.length, s.maxNew, overlongCache);
    // what the listener receives: the tokens before EOS, at most maxNew - 1 of them (after an action token, if any)
    const end = s.generated.indexOf(eos);
    const msg = s.generated.slice(s.messageFrom ?? 0, Math.min(end < 0 ? s.generated.length : end, s.maxNew - 1));
    if (msg.length > 0 && !s.countsAsTurn) turns++;
    tokens += msg.length;
    for (let i = 1; i < msg.length; i++) {
      const key = bigramKey(msg[i - 1], msg[i]);
      seen ??= new Set();
      if (seen.has(key)) repetition++;
      else seen.add(key);
    }
  }
  const parts: MessageParts = { tokens, turns, repetition };
  if (overlongCache > 0) parts.overlong = overlong; // added, not spread in: this runs for every episode
  return parts;
}

/**
 * A set key for the bigram (a, b): a number for token ids below 2^16 (every vocabulary here; no string to build for
 * each token of each step), the string "a,b" otherwise. A number and a string never collide, so each bigram has one key.
 */
function bigramKey(a: number, b: number): number | string {
  return a >= 0 && a < 0x10000 && b >= 0 && b < 0x10000 && Number.isInteger(a) && Number.isInteger(b) ? a * 0x10000 + b : `${a},${b}`;
}

export interface MessageParts { tokens: number; turns: number; repetition: number; overlong?: number }

/**
 * r = r_env - lambda... - overlongPenalty * overlong, where r_env is the env's own reward when it has one
 * (philosophers), else r_task. `parts.overlong` must have been counted with w.overlongCache (messageParts' third argument).
 */
export function reward(rTask: number, parts: MessageParts, w: RewardWeights, rEnv = rTask): RewardParts {
  const overlong = (w.overlongCache ?? 0) > 0 ? parts.overlong ?? 0 : 0;
  const out: RewardParts = {
    reward: rEnv - w.lambdaTok * parts.tokens - w.lambdaTurn * parts.turns - w.lambdaRep * parts.repetition - (overlong > 0 ? (w.overlongPenalty ?? 0) * overlong : 0),
    rTask, tokens: parts.tokens, turns: parts.turns, repetition: parts.repetition,
  };
  if ((w.overlongCache ?? 0) > 0) out.overlong = overlong; // added, not spread in: this runs for every episode
  return out;
}

/** docs/rl.md section 5: lambda_tok <- clamp(lambda_tok + eta (mean_tokens - B), 0, lambda_max). */
/** The token penalty a step trains with: lambdaStart during the first lambdaHold steps (manual mode), else the live lambda_tok. */
export function lambdaAt(c: { lambdaMode: string; lambdaStart: number; lambdaHold: number }, step: number, lambdaTok: number): number {
  return c.lambdaMode === 'manual' && step < c.lambdaHold ? c.lambdaStart : lambdaTok;
}

export function dualUpdate(lambdaTok: number, meanTokens: number, budget: number, eta: number, lambdaMax: number): number {
  return Math.min(lambdaMax, Math.max(0, lambdaTok + eta * (meanTokens - budget)));
}
