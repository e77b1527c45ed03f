// reward.ts against docs/rl.md sections 2 and 5; every expected value is worked out by hand.
import { describe, expect, it } from 'vitest';
import { dualUpdate, lambdaAt, messageParts, overlongFraction, reward } from '../../src/rl/reward';
import { parseField } from '../../src/config';
import type { Sequence } from '../../src/rl/rollout';

const EOS = 2;
let turnNo = 0;
function seq(generated: number[], message = true, maxNew = 9): Sequence {
  return { episode: 0, turn: turnNo++, role: message ? 'scout' : 'solver', slot: 'policy', agent: 0, context: [1], generated, logp: generated.map(() => -1), message, messageFrom: 0, countsAsTurn: false, maxNew, earlier: [], superseded: false };
}

describe('messageParts', () => {
  it('counts message tokens without EOS, one turn per non-silent message', () => {
    // [5,6,7,EOS]: 3 tokens, 1 turn, bigrams (5,6),(6,7) all new
    expect(messageParts([seq([5, 6, 7, EOS])], EOS)).toEqual({ tokens: 3, turns: 1, repetition: 0 });
  });

  it('a silent message turn (EOS first) has 0 tokens and does not count as a turn', () => {
    expect(messageParts([seq([EOS])], EOS)).toEqual({ tokens: 0, turns: 0, repetition: 0 });
    // silent, then a 2-token message, then silent again: 2 tokens, 1 turn
    expect(messageParts([seq([EOS]), seq([8, 9, EOS]), seq([EOS])], EOS)).toEqual({ tokens: 2, turns: 1, repetition: 0 });
  });

  it('ignores non-message turns entirely (tokens, turns and bigrams)', () => {
    // the solver turn [5,6,5,6] would add 4 tokens and a repeated bigram if it counted
    expect(messageParts([seq([5, 6, 5, 6, EOS], false)], EOS)).toEqual({ tokens: 0, turns: 0, repetition: 0 });
    // a message [5,6] after a non-message [5,6]: the bigram (5,6) is new among messages
    expect(messageParts([seq([5, 6, EOS], false), seq([5, 6, EOS])], EOS)).toEqual({ tokens: 2, turns: 1, repetition: 0 });
  });

  it('a message cut at the length limit (no EOS) counts what the listener receives: at most maxNew - 1 tokens', () => {
    // maxNew 4 (M = 3 + EOS): generated 4 tokens without EOS; the listener reads 3
    expect(messageParts([seq([4, 5, 6, 7], true, 4)], EOS)).toEqual({ tokens: 3, turns: 1, repetition: 0 });
    // a repeated bigram only in the dropped token does not count
    expect(messageParts([seq([4, 5, 9, 4, 5], true, 5)], EOS)).toEqual({ tokens: 4, turns: 1, repetition: 0 });
    // and a shorter message without EOS (generation stopped by the block) counts all its tokens
    expect(messageParts([seq([4, 5, 6], true, 9)], EOS)).toEqual({ tokens: 3, turns: 1, repetition: 0 });
  });

  it('repetition within one message: tokens whose bigram already occurred earlier', () => {
    // 5 6 5 6: (5,6) new, (6,5) new, (5,6) repeated -> 1
    expect(messageParts([seq([5, 6, 5, 6, EOS])], EOS)).toEqual({ tokens: 4, turns: 1, repetition: 1 });
    // 4 4 4 4: (4,4) new, then (4,4) twice more -> 2
    expect(messageParts([seq([4, 4, 4, 4, EOS])], EOS)).toEqual({ tokens: 4, turns: 1, repetition: 2 });
    // the verbose relay protocol SECRET a b c REPEAT a b c: (a,b),(b,c) repeat -> 2
    expect(messageParts([seq([20, 5, 6, 7, 21, 5, 6, 7, EOS])], EOS)).toEqual({ tokens: 8, turns: 1, repetition: 2 });
  });

  it('repetition across the episode\'s message turns (seen bigrams are shared by all messages)', () => {
    // msg1 5 6 5 6 (rep 1: (5,6) again), non-message turn ignored, msg2 6 5 9:
    // (6,5) seen in msg1 -> +1, (5,9) new -> total 2; tokens 4 + 3 = 7; turns 2
    const seqs = [seq([5, 6, 5, 6, EOS]), seq([7, 7, 7, EOS], false), seq([6, 5, 9, EOS])];
    expect(messageParts(seqs, EOS)).toEqual({ tokens: 7, turns: 2, repetition: 2 });
  });

  it('a bigram is (previous token, token) within a message: nothing pairs the end of one message with the start of the next', () => {
    // msg1 5 6 5, msg2 6. Inside messages: (5,6),(6,5) -> 0 repeats; msg2 has no bigram.
    // (Reading the messages as one stream 5 6 5 6 would give 1.)
    expect(messageParts([seq([5, 6, 5, EOS]), seq([6, EOS])], EOS)).toEqual({ tokens: 4, turns: 2, repetition: 0 });
  });

  it('an empty episode has no parts', () => {
    expect(messageParts([], EOS)).toEqual({ tokens: 0, turns: 0, repetition: 0 });
  });
});

describe('reward', () => {
  it('r = r_task - lambdaTok*tokens - lambdaTurn*turns - lambdaRep*repetition, with its parts', () => {
    // 1 - 0.125*4 - 0.25*1 - 0.5*1 = 1 - 0.5 - 0.25 - 0.5 = -0.25
    const r = reward(1, { tokens: 4, turns: 1, repetition: 1 }, { lambdaTok: 0.125, lambdaTurn: 0.25, lambdaRep: 0.5 });
    expect(r).toEqual({ reward: -0.25, rTask: 1, tokens: 4, turns: 1, repetition: 1 });
  });
  it('each weight acts only on its own term', () => {
    const parts = { tokens: 3, turns: 2, repetition: 5 };
    expect(reward(1, parts, { lambdaTok: 0.1, lambdaTurn: 0, lambdaRep: 0 }).reward).toBeCloseTo(0.7, 12);
    expect(reward(1, parts, { lambdaTok: 0, lambdaTurn: 0.1, lambdaRep: 0 }).reward).toBeCloseTo(0.8, 12);
    expect(reward(1, parts, { lambdaTok: 0, lambdaTurn: 0, lambdaRep: 0.1 }).reward).toBeCloseTo(0.5, 12);
    expect(reward(0, parts, { lambdaTok: 0, lambdaTurn: 0, lambdaRep: 0 }).reward).toBe(0);
    expect(reward(0.5, { tokens: 0, turns: 0, repetition: 0 }, { lambdaTok: 1, lambdaTurn: 1, lambdaRep: 1 }).reward).toBe(0.5);
  });
});

describe('DAPO\'s soft overlong punishment (docs/rl.md section 2)', () => {
  it('0 up to L_max - L_cache generated tokens, then linear, the whole penalty at the limit (hand values)', () => {
    // L_max = 9 (relay's M + 1), L_cache = 4: the ramp starts after 5 tokens
    expect([1, 5, 6, 7, 8, 9].map((n) => overlongFraction(n, 9, 4))).toEqual([0, 0, 0.25, 0.5, 0.75, 1]);
    expect(overlongFraction(9, 9, 0)).toBe(0); // L_cache 0: off
    expect(overlongFraction(1, 4, 8)).toBe(0.625); // L_cache past the limit: the ramp starts before the first token, (1 - (4 - 8)) / 8
  });
  it('an episode sums its message turns; the reward subtracts overlongPenalty times the sum', () => {
    // a 7-token turn (6 + EOS) and a truncated 9-token one, L_max 9, L_cache 4: 0.5 + 1 = 1.5 (the non-message turn is not counted)
    const seqs = [seq([5, 6, 7, 8, 5, 6, EOS]), seq([5, 6, 7, 8, 5, 6, 7, 8, 5]), seq([3, 3, 3, 3, 3, 3, 3, 3, 3], false)];
    const parts = messageParts(seqs, EOS, 4);
    expect(parts.overlong).toBe(1.5);
    expect(messageParts(seqs, EOS).overlong).toBeUndefined(); // off: no such part
    // 1 - 0.1 * 14 tokens - 0.5 * 1.5 = 1 - 1.4 - 0.75 = -1.15 (messages: 6 tokens + 8 = min(9, 8) tokens)
    const r = reward(1, parts, { lambdaTok: 0.1, lambdaTurn: 0, lambdaRep: 0, overlongCache: 4, overlongPenalty: 0.5 });
    expect(parts.tokens).toBe(14);
    expect(r.reward).toBeCloseTo(-1.15, 12);
    expect(r.overlong).toBe(1.5);
    // counted but the shaping off in the weights: no penalty
    expect(reward(1, parts, { lambdaTok: 0.1, lambdaTurn: 0, lambdaRep: 0, overlongCache: 0, overlongPenalty: 0.5 }).reward).toBeCloseTo(-0.4, 12);
  });
  it('the config checks its fields, naming them', () => {
    expect(() => parseField('overlongCache', -1)).toThrow(/overlongCache must be in \[0, 64\]; got -1/);
    expect(() => parseField('overlongCache', 2.5)).toThrow(/overlongCache must be an integer/);
    expect(() => parseField('overlongPenalty', 11)).toThrow(/overlongPenalty must be in \[0, 10\]/);
    expect(() => parseField('refillRounds', 9)).toThrow(/refillRounds must be in \[0, 8\]; got 9/);
  });
});

describe('dualUpdate (docs/rl.md section 5)', () => {
  it('lambda + eta * (mean - B), clamped to [0, lambdaMax]', () => {
    expect(dualUpdate(0.1, 6, 4, 0.005, 1)).toBeCloseTo(0.11, 12); // 0.1 + 0.005*2
    expect(dualUpdate(0.5, 4, 4, 0.005, 1)).toBe(0.5); // at the budget: unchanged
    expect(dualUpdate(0.5, 10, 4, 0, 1)).toBe(0.5); // eta 0: unchanged
    expect(dualUpdate(0.004, 2, 4, 0.005, 1)).toBe(0); // 0.004 - 0.01 < 0 -> 0
    expect(dualUpdate(0.99, 100, 4, 0.005, 1)).toBe(1); // 0.99 + 0.48 > 1 -> 1
    expect(dualUpdate(0, 0, 4, 0.5, 1)).toBe(0);
  });

  it('a run: rises while over budget, saturates at lambdaMax, decays to 0 when slack and stays there', () => {
    // B = 4, eta = 0.25, lambdaMax = 2 (all values exact in binary)
    const means = [8, 8, 6, 2, 2, 2, 2, 2, 3, 5];
    const want = [1, 2, 2, 1.5, 1, 0.5, 0, 0, 0, 0.25];
    let lam = 0;
    const got = means.map((m) => (lam = dualUpdate(lam, m, 4, 0.25, 2)));
    expect(got).toEqual(want);
  });
});

describe('lambdaAt', () => {
  it('trains the first lambdaHold steps at lambdaStart in manual mode, then at the live lambda_tok; budget mode ignores the hold', () => {
    const c = { lambdaMode: 'manual', lambdaStart: 0.073, lambdaHold: 2 };
    expect([0, 1, 2, 3].map((s) => lambdaAt(c, s, 0.01))).toEqual([0.073, 0.073, 0.01, 0.01]);
    expect(lambdaAt({ ...c, lambdaHold: 0 }, 0, 0.01)).toBe(0.01);
    expect(lambdaAt({ ...c, lambdaMode: 'budget' }, 0, 0.02)).toBe(0.02);
  });
});
