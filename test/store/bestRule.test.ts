// "Best" by rule, on hand-made evals; and which evals' weights the worker keeps.
import { describe, expect, it } from 'vitest';
import { bestBy, ruleSentence } from '../../src/store/bestRule';
import { stepsToKeep } from '../../src/worker/keptWeights';
import { DEFAULT_PREFS } from '../../src/store/pagePrefs';

const ev = (step: number, accuracy: number, tokens: number, reward: number) => ({ step, accuracy, tokens, reward });
const evals = [ev(0, 0.9, 8, 0.1), ev(10, 0.9, 3, 0.6), ev(20, 0.85, 1, 0.75), ev(30, 0.5, 0.2, 0.48), ev(40, 0.8, 1.2, 0.68)];

describe('best by rule', () => {
  it('highest accuracy, ties to fewer tokens', () => expect(bestBy('accuracy', 0, evals)?.step).toBe(10));
  it('highest mean reward', () => expect(bestBy('reward', 0, evals)?.step).toBe(20));
  it('nearest the token target from below: the highest accuracy within it', () => {
    expect(bestBy('tokens', 2, evals)?.step).toBe(20); // within 2 tokens: steps 20 (0.85), 30 (0.5), 40 (0.8)
    expect(bestBy('tokens', 1.1, evals)?.step).toBe(20); // 20 at 1 token
    expect(bestBy('tokens', 0.5, evals)?.step).toBe(30);
    expect(bestBy('tokens', 0.1, evals)?.step).toBe(30); // none within: the fewest tokens
  });
  it('highest reward ties: fewer tokens, then the later step (the untrained warm start loses a tie to a trained eval)', () => {
    expect(bestBy('reward', 0, [ev(0, 1, 6, 0.4), ev(10, 0.98, 4, 0.4)])?.step).toBe(10); // equal reward, fewer tokens
    expect(bestBy('reward', 0, [ev(0, 1, 6, 0.4), ev(10, 1, 6, 0.4)])?.step).toBe(10); // equal in all: the trained one
    expect(bestBy('reward', 0, [ev(10, 1, 6, 0.4), ev(0, 1, 6, 0.4)])?.step).toBe(10); // in any order
    expect(bestBy('reward', 0, [ev(0, 1, 6, 0.41), ev(10, 1, 6, 0.4)])?.step).toBe(0); // a better warm start stays best
    expect(stepsToKeep([ev(0, 1, 6, 0.4), ev(10, 0.5, 6, 0.4)]).has(10)).toBe(true); // and its weights are kept
  });
  it('the default rule is the highest reward', () => expect(DEFAULT_PREFS.bestRule).toBe('reward'));
  it('no evals: none', () => expect(bestBy('reward', 0, [])).toBeNull());
  it('says its rule in a sentence with the target', () => expect(ruleSentence('tokens', 2)).toMatch(/within 2 tokens/));
});

describe('weights kept for the rules', () => {
  it('the frontier and the highest reward; nothing dominated', () => {
    // frontier: 10 (0.9 @ 3), 20 (0.85 @ 1), 30 (0.5 @ 0.2); 0 is dominated by 10, 40 by 20
    expect([...stepsToKeep(evals)].sort((a, b) => a - b)).toEqual([10, 20, 30]);
    // every rule's pick is kept, whatever the target
    for (const target of [0.1, 0.5, 1.1, 2, 5]) expect(stepsToKeep(evals).has(bestBy('tokens', target, evals)!.step)).toBe(true);
  });
});
