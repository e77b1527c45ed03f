// Eval accuracy named per environment on the page (the task card, the chart's
// axis and caption), and advice after a flag that fits the environment: on the
// hackable philosophers' table a fall to 0 is the reward hack, not a cue to
// lower the learning rate.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { rewardHackable } from '../../src/envs/philosophers';
import { collapseFlag } from '../../src/rl/faults';
import { Banners } from '../../src/ui/Banners';
import { ChartsPanel } from '../../src/ui/ChartsPanel';
import { flagAdvice } from '../../src/ui/flagAdvice';
import { TaskCard } from '../../src/ui/TaskCard';
import { render, text } from './render';

const ev = (step: number, accuracy: number) => ({ step, accuracy, tokens: 1, turns: 1, lambdaTok: 0, reward: 0 });
const hackable = presetConfig(findPreset('philosophers-hackable'));
const fixed = presetConfig(findPreset('philosophers-fixed'));
const relay = presetConfig(findPreset('relay-silence'));

describe('advice after a flag fits the environment', () => {
  it('which weights are hackable: a first meal nets 1 - 3 x 0.4 + 0.1 = -0.1 (hackable), 1 - 1.2 + 2 = 1.8 (fixed)', () => {
    expect(rewardHackable(hackable)).toBe(true);
    expect(rewardHackable(fixed)).toBe(false);
    expect(rewardHackable({ mealReward: 1, actionCost: 0.4, starvePenalty: 0.2 })).toBe(true); // exactly 0: no meal pays
  });
  it('the collapse flag of the hackable table names the reward hack and the true score, not the learning rate', () => {
    const f = collapseFlag(ev(0, 0.6), ev(10, 0), hackable)!;
    expect(f.message).toMatch(/the reward hack/);
    expect(f.message).toMatch(/the share of philosophers who ate, falls to 0/);
    expect(f.message).not.toMatch(/lower lr|learning rate|gradient clipping/);
    expect(collapseFlag(ev(0, 0.6), ev(10, 0), relay)!.message).toMatch(/the updates destroyed the policy \(lower lr, or turn gradient clipping on/);
    expect(collapseFlag(ev(0, 0.6), ev(10, 0), fixed)!.message).not.toMatch(/reward hack/);
  });
  it('the banner\'s advice for the hackable table points at the hack; elsewhere the generic advice stands', () => {
    expect(flagAdvice('collapse', hackable)).toMatch(/reward hack.*share of philosophers who ate/);
    expect(flagAdvice('collapse', hackable)).not.toMatch(/try a lower learning rate|gradient clipping on/i);
    expect(flagAdvice('collapse', fixed)).toBeNull();
    expect(flagAdvice('collapse', relay)).toBeNull();
    expect(flagAdvice('diverged', hackable)).toBeNull();
  });
  it('the flags banner on the hackable table shows that advice, not the generic learning-rate line', () => {
    const flag = collapseFlag(ev(0, 0.6), ev(10, 0), hackable)!;
    const t = text(render(Banners, { guideDismissed: true, config: hackable, flags: [flag] }));
    expect(t).toMatch(/This is the reward hack the preset shows/);
    expect(t).not.toMatch(/Try a lower learning rate \(lr\) or turn gradient clipping on/);
    expect(text(render(Banners, { guideDismissed: true, config: relay, flags: [collapseFlag(ev(0, 0.6), ev(10, 0), relay)!] }))).toMatch(/Try a lower learning rate \(lr\) or turn gradient clipping on/);
  });
});

describe('eval accuracy is named for each environment', () => {
  const cases: [string, RegExp][] = [
    ['relay-silence', /Solver answers the asked digit of the secret correctly/],
    ['philosophers-hackable', /share of philosophers who ate at least once in the episode/],
    ['agentpo-hint', /final sum, after any hint or critique, is correct/],
  ];
  for (const [preset, long] of cases) {
    it(preset, () => {
      const p = findPreset(preset);
      const config = presetConfig(p);
      expect(text(render(TaskCard, { preset, config }))).toMatch(new RegExp(`Eval accuracy: the (share of .*)?${long.source}`));
      const chart = render(ChartsPanel, { preset, config });
      expect(text(chart)).toMatch(new RegExp(`Eval accuracy here is the (share of .*)?${long.source}`));
    });
  }
});
