// lengthSignal: does the token penalty have anything to compare? Hand-computed groups of G = 4.
import { describe, expect, it } from 'vitest';
import { lengthSignal } from '../../src/rl/member';
import type { RewardParts } from '../../src/rl/reward';

const ep = (tokens: number, reward: number): RewardParts => ({ reward, rTask: 1, tokens, turns: 1, repetition: 0 });

describe('lengthSignal (per step: groups that vary in length, their spread, what a shorter message is paid)', () => {
  it('a group of equal lengths counts as flat and adds no shorter advantage', () => {
    const s = lengthSignal([ep(6, 0.9), ep(6, 0.8), ep(6, 1), ep(6, 0.7)], 4);
    expect(s).toEqual({ groups_len_varied: 0, len_spread: 0, shorter_adv: 0 });
  });

  it('two groups, one varied: the shorter episodes\' mean of r - mean(group)', () => {
    // group 1 tokens 2, 4, 6, 8 (mean 5), rewards 0.9, 0.8, 0.6, 0.5 (mean 0.7): the shorter two get +0.2 and +0.1
    // group 2 flat at 3 tokens. Spread: std(2, 4, 6, 8) with n - 1 = sqrt(20 / 3); group 2's is 0.
    const s = lengthSignal([ep(2, 0.9), ep(4, 0.8), ep(6, 0.6), ep(8, 0.5), ep(3, 1), ep(3, 0), ep(3, 1), ep(3, 0)], 4);
    expect(s.groups_len_varied).toBe(0.5);
    expect(s.len_spread).toBeCloseTo(Math.sqrt(20 / 3) / 2, 12);
    expect(s.shorter_adv).toBeCloseTo(0.15, 12);
  });

  it('a shorter message that loses the task is paid less than nothing', () => {
    // tokens 1, 3, 3, 3 (mean 2.5): the one-token episode missed (reward 0 - 0.01) while the others scored 1 - 0.03
    const s = lengthSignal([ep(1, -0.01), ep(3, 0.97), ep(3, 0.97), ep(3, 0.97)], 4);
    expect(s.shorter_adv).toBeCloseTo(-0.01 - (-0.01 + 3 * 0.97) / 4, 12);
    expect(s.shorter_adv).toBeLessThan(0);
  });
});
