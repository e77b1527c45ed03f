// evaluateCheck on run views written by hand: every kind and op, pass and fail, and the words of
// the "expected ... got ..." line. The expected values are worked out in the comments.
import { describe, expect, it } from 'vitest';
import { checkProblems, evaluateCheck, parseComparison, resultLine, scaleCheck, type Check } from '../../src/lessons/checks';
import { stepRowOf, type LessonEval, type LessonMember, type LessonRunView } from '../../src/lessons/runView';

const ev = (step: number, accuracy: number, tokens: number, reward: number, extra: Record<string, number> = {}): LessonEval => ({ step, accuracy, tokens, reward, ...extra });

// a lone run: silence on known tasks rises 0 -> 0.5 -> 0.95 -> 0.9 over evals at steps 0, 10, 20, 30
const silence: LessonMember = {
  label: 'relay-silence',
  evals: [ev(0, 1, 8, 0.2, { silenceKnown: 0 }), ev(10, 1, 4, 0.6, { silenceKnown: 0.5 }), ev(20, 1, 1, 0.9, { silenceKnown: 0.95 }), ev(30, 0.98, 0.8, 0.9, { silenceKnown: 0.9 })],
  // frac_zero_std over 3 steps with P = 8 groups: 0.75 -> 6 groups, 0.125 -> 1, 0 -> 0
  metrics: [{ step: 1, frac_zero_std: 0.75, reward: 0.5 }, { step: 2, frac_zero_std: 0.125, reward: 0.7 }, { step: 3, frac_zero_std: 0, reward: 0.8 }],
  flags: [], bestStep: 20,
};
const lone: LessonRunView = { members: [silence], chosen: 0, groupsPerStep: 8 };

const run = (c: Check, v: LessonRunView = lone) => evaluateCheck(c, v);

describe('metric', () => {
  it('reads the last eval by default, and each op passes or fails as hand-computed', () => {
    // last silenceKnown is 0.9
    expect(run({ metric: 'silenceKnown', op: '>=', value: 0.9 }).pass).toBe(true);
    expect(run({ metric: 'silenceKnown', op: '>', value: 0.9 }).pass).toBe(false);
    expect(run({ metric: 'silenceKnown', op: '<=', value: 0.9 }).pass).toBe(true);
    expect(run({ metric: 'silenceKnown', op: '<', value: 0.9 }).pass).toBe(false);
    expect(run({ metric: 'silenceKnown', op: '==', value: 0.9 }).pass).toBe(true);
    expect(run({ metric: 'silenceKnown', op: '==', value: 0.95 }).pass).toBe(false);
  });
  it('at first / best / any / all / change, and within', () => {
    expect(run({ metric: 'tokens', op: '==', value: 8, at: 'first' }).pass).toBe(true);
    expect(run({ metric: 'tokens', op: '==', value: 1, at: 'best' }).pass).toBe(true); // bestStep 20 has 1 token
    expect(run({ metric: 'silenceKnown', op: '>=', value: 0.95, at: 'any' }).pass).toBe(true); // step 20
    expect(run({ metric: 'silenceKnown', op: '>=', value: 0.95, at: 'any', within: 10 }).pass).toBe(false); // 0 and 0.5 only
    expect(run({ metric: 'accuracy', op: '>=', value: 0.99, at: 'all' }).pass).toBe(false); // 0.98 at step 30
    expect(run({ metric: 'accuracy', op: '>=', value: 0.99, at: 'all', within: 20 }).pass).toBe(true);
    expect(run({ metric: 'tokens', op: '<=', value: -7, at: 'change' }).pass).toBe(true); // 0.8 - 8 = -7.2
    expect(run({ metric: 'tokens', op: '<=', value: -7.5, at: 'change' }).pass).toBe(false);
    // the last eval by step 10 is step 10's (0.5)
    expect(run({ metric: 'silenceKnown', op: '==', value: 0.5, within: 10 }).pass).toBe(true);
  });
  it('says what was expected and what the run gave, in one line', () => {
    const r = run({ metric: 'silenceKnown', op: '>=', value: 0.96, at: 'any', within: 200 });
    expect(r.pass).toBe(false);
    expect(r.expected).toBe('silenceKnown >= 0.96 at some eval by step 200');
    expect(r.got).toBe('0.95 (highest of 4, step 20)');
    expect(resultLine(r)).toBe('expected silenceKnown >= 0.96 at some eval by step 200, got 0.95 (highest of 4, step 20)');
    const c = run({ metric: 'tokens', op: '<=', value: -7.5, at: 'change' });
    expect(c.expected).toBe('the change in tokens <= -7.5 from the first eval to the last');
    expect(c.got).toBe('-7.2 (step 0 to 30: 8 to 0.8)');
    const missing = run({ metric: 'meals', op: '>=', value: 1 });
    expect(missing).toEqual({ pass: false, expected: 'meals >= 1 at the last eval', got: 'the run has no figure "meals"' });
  });
});

describe('stepMetric and zeroStdGroups', () => {
  it('reads the per-step metrics', () => {
    expect(run({ stepMetric: 'reward', op: '>=', value: 0.8 }).pass).toBe(true);
    // mean of 0.5, 0.7, 0.8 = 0.6667
    expect(run({ stepMetric: 'reward', op: '>', value: 0.66, at: 'mean' }).pass).toBe(true);
    expect(run({ stepMetric: 'reward', op: '>', value: 0.67, at: 'mean' }).pass).toBe(false);
  });
  it('counts the groups of a step whose rewards were all equal: round(frac_zero_std x P)', () => {
    expect(run({ zeroStdGroups: '==0' })).toEqual({ pass: true, expected: 'groups whose rewards are all equal == 0 (of 8) at the last step', got: '0 (step 3)' });
    expect(run({ zeroStdGroups: '>=6', at: 'first' }).pass).toBe(true);
    expect(run({ zeroStdGroups: '>= 7', at: 'first' })).toEqual({ pass: false, expected: 'groups whose rewards are all equal >= 7 (of 8) at the first step', got: '6 (step 1)' });
    expect(run({ zeroStdGroups: '==1', at: 'any' }).got).toBe('1 (step 2)');
    expect(run({ zeroStdGroups: '>=1' }, { ...lone, members: [{ ...silence, metrics: [] }] }).got).toBe('no step with frac_zero_std yet');
  });
});

// a population of three: final evals (tokens, accuracy) = (6, 1), (2, 0.9), (3, 0.85)
// the third is dominated by the second (fewer tokens and higher accuracy): 2 frontier points
const pop: LessonRunView = {
  chosen: 2, groupsPerStep: 8,
  members: [
    { label: 'lambda_tok 0', evals: [ev(0, 1, 6, 1), ev(40, 1, 6, 1)], metrics: [], flags: [], bestStep: 40 },
    { label: 'lambda_tok 0.1', evals: [ev(0, 1, 6, 0.4), ev(40, 0.9, 2, 0.7)], metrics: [], flags: [], bestStep: 40 },
    { label: 'lambda_tok 0.3', evals: [ev(0, 1, 6, -0.8), ev(40, 0.85, 3, -0.05)], metrics: [], flags: [], bestStep: 40 },
  ],
};

describe('populations', () => {
  it('frontierPoints counts the members on the frontier of the last evals', () => {
    const r = run({ frontierPoints: '>=3' }, pop);
    expect(r).toEqual({ pass: false, expected: 'members on the accuracy-vs-tokens frontier of their last evals >= 3', got: '2 of 3 (2 tokens at 0.9, 6 tokens at 1)' });
    expect(run({ frontierPoints: '==2' }, pop).pass).toBe(true);
  });
  it('member each / any / chosen / index, with the failing members named', () => {
    const each = run({ metric: 'tokens', op: '<=', value: 3 }, pop);
    expect(each).toEqual({ pass: false, expected: 'tokens <= 3 at the last eval for every member', got: 'lambda_tok 0: 6 (step 40)' });
    expect(run({ metric: 'tokens', op: '<=', value: 3, member: 'any' }, pop).pass).toBe(true);
    expect(run({ metric: 'tokens', op: '==', value: 3, member: 'chosen' }, pop).pass).toBe(true);
    expect(run({ metric: 'tokens', op: '==', value: 6, member: 0 }, pop)).toEqual({ pass: true, expected: 'tokens == 6 at the last eval for member 0', got: '6 (step 40)' });
    expect(run({ metric: 'tokens', op: '==', value: 6, member: 5 }, pop)).toEqual({ pass: false, expected: 'tokens == 6 at the last eval for member 5', got: 'no member 5 (the run has 3)' });
  });
});

// the philosophers' hack: accuracy 1 -> 0 while the reward rises -1.7 -> -0.3, a collapse flag at step 5
const hacked: LessonMember = {
  label: 'philosophers-hackable',
  evals: [ev(0, 1, 24, -1.7), ev(5, 0, 24, -1.98), ev(40, 0, 0, -0.3)],
  metrics: [], bestStep: 0,
  flags: [{ kind: 'collapse', step: 5, message: 'collapse: eval accuracy fell from 1.000 (step 0) to 0 (step 5)' }],
};
const hackRun: LessonRunView = { members: [hacked], chosen: 0, groupsPerStep: 4 };

describe('flags and the best checkpoint', () => {
  it('rewardHack: a collapse or degenerate flag and the reward above the most accurate eval\'s while accuracy is below it', () => {
    expect(run({ flag: 'rewardHack' }, hackRun)).toEqual({
      pass: true,
      expected: 'a reward hack (a degenerate or collapse flag, with the reward up while accuracy fell)',
      got: 'collapse flag at step 5; accuracy 1 at step 0 to 0 at step 40, reward -1.7 to -0.3',
    });
    expect(run({ flag: 'rewardHack', raised: false }, hackRun).pass).toBe(false);
    // the same evals without a flag: no hack; a flag but the reward fell with accuracy: no hack
    expect(run({ flag: 'rewardHack' }, { ...hackRun, members: [{ ...hacked, flags: [] }] }).pass).toBe(false);
    const fell = { ...hacked, evals: [ev(0, 1, 24, -1.7), ev(40, 0, 0, -2)] };
    expect(run({ flag: 'rewardHack' }, { ...hackRun, members: [fell] }).got).toMatch(/^collapse flag, but the reward did not rise while accuracy fell/);
  });
  it('a flag by kind, raised or not', () => {
    expect(run({ flag: 'collapse' }, hackRun).pass).toBe(true);
    expect(run({ flag: 'degenerate' }, hackRun)).toEqual({ pass: false, expected: 'a degenerate flag', got: 'none in 1 flag' });
    expect(run({ flag: 'degenerate', raised: false }, hackRun).pass).toBe(true);
  });
  it('bestIsNotLast: the run\'s own best, or the best by a rule', () => {
    expect(run({ bestIsNotLast: true }, hackRun)).toEqual({ pass: true, expected: 'the best eval earlier than the last eval', got: 'best at step 0, last at step 40' });
    // by accuracy: step 0 (1); by reward: step 40 (-0.3 is the highest)
    expect(run({ bestIsNotLast: true, rule: 'accuracy' }, hackRun).pass).toBe(true);
    expect(run({ bestIsNotLast: true, rule: 'reward' }, hackRun)).toEqual({ pass: false, expected: 'the best eval by highest mean reward earlier than the last eval', got: 'best at step 40, last at step 40' });
    expect(run({ bestIsNotLast: false, rule: 'reward' }, hackRun).pass).toBe(true);
  });
});

describe('compare (a comparison of players)', () => {
  const withCmp: LessonRunView = { ...lone, members: [{ ...silence, comparison: {
    alone: { accuracy: 0.68, lo: 0.66, hi: 0.70, n: 2020 }, untrained: { accuracy: 0.52, lo: 0.50, hi: 0.55, n: 2020 }, trained: { accuracy: 0.85, lo: 0.84, hi: 0.87, n: 2020 },
  } }] };
  it('compares two arms\' accuracies', () => {
    expect(run({ compare: 'untrained', op: '<', to: 'alone' }, withCmp)).toEqual({
      pass: true, expected: 'accuracy with the untrained collaborator < with the actor alone', got: 'untrained 0.52 [0.5, 0.55] vs alone 0.68 [0.66, 0.7], n 2020',
    });
    expect(run({ compare: 'trained', op: '<=', to: 'alone' }, withCmp).pass).toBe(false);
    expect(run({ compare: 'trained', op: '>', to: 'alone' }, lone).got).toMatch(/^no comparison of players/);
  });
});

describe('the vocabulary is checked like any input', () => {
  it('names each problem', () => {
    expect(checkProblems({ metric: 'accuracy', op: '>=', value: 1 })).toEqual([]);
    expect(checkProblems({ metrik: 'accuracy' })).toEqual(['check: unknown check (keys "metrik"); a check has one of metric, stepMetric, zeroStdGroups, frontierPoints, flag, bestIsNotLast, compare']);
    expect(checkProblems({ metric: 'accuracy', op: '=>', value: '1', whithin: 3 })).toEqual([
      'check (metric): unknown field "whithin" (it takes op, value, at, within, member)',
      'check (metric): op must be one of >= > <= < ==, got "=>"',
      'check (metric): value must be a finite number, got "1"',
    ]);
    expect(checkProblems({ zeroStdGroups: 'many' })).toEqual(['check (zeroStdGroups): must be a comparison such as ">=1" (an op of >= > <= < == and a number), got "many"']);
    expect(checkProblems({ flag: 'hack' })[0]).toBe('check (flag): unknown flag "hack" (flags: rewardHack, degenerate, collapse, diverged, nonfiniteUpdate)');
    expect(checkProblems({ flag: 'collapse', metric: 'accuracy' })).toEqual(['check: one check per step, but it names metric and flag']);
    expect(checkProblems({ bestIsNotLast: true, rule: 'tokens' })).toEqual(['check (bestIsNotLast): rule must be "accuracy" or "reward", got "tokens"']);
    expect(checkProblems({ metric: 'accuracy', op: '>=', value: 1, member: -1 })[0]).toMatch(/member must be "each", "any", "chosen" or a member index/);
    // an unsound check never passes
    expect(evaluateCheck({ flag: 'hack' } as unknown as Check, lone).pass).toBe(false);
  });
  it('parses comparisons and scales within', () => {
    expect(parseComparison('>= 3')).toEqual({ op: '>=', value: 3 });
    expect(parseComparison('<0.5')).toEqual({ op: '<', value: 0.5 });
    expect(parseComparison('3')).toBeNull();
    expect(scaleCheck({ metric: 'accuracy', op: '>=', value: 1, within: 200 }, 0.25)).toEqual({ metric: 'accuracy', op: '>=', value: 1, within: 50 });
    expect(scaleCheck({ flag: 'collapse' }, 0.25)).toEqual({ flag: 'collapse' });
  });
});

describe('stepRowOf', () => {
  it('counts a row\'s step from 1 and keeps its numbers, the env\'s prefixed env_', () => {
    expect(stepRowOf({ step: 0, reward: 0.5, frac_zero_std: 0.75, note: 'x', env: { silent: 0.25, label: 'y' } }))
      .toEqual({ step: 1, reward: 0.5, frac_zero_std: 0.75, env_silent: 0.25 });
  });
});
