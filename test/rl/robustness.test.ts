// The robustness grid's yardsticks against hand-worked cases: the noisy relay's analytic
// optimum (a copy pays while it adds more than lambda_tok: 0.9 eps^(n-1) (1 - eps) for the
// n-th), and the pass/fail rules of each lesson.
import { describe, expect, it } from 'vitest';
import { judgeClean, judgeLength, judgeNoisy, noisyOptimum, robustnessCells } from '../../src/rl/robustness';
import { robustnessMarkdown, type CellResult } from '../../src/cli/commands/robustness';
import { findPreset, presetConfig } from '../../src/envs/presets';
import type { EvalRecord } from '../../src/rl/runRecord';

const evalOf = (over: Partial<EvalRecord>): EvalRecord => ({ step: 80, accuracy: 1, tokens: 1, turns: 2, lambdaTok: 0.1, reward: 0, ...over } as EvalRecord);

describe('noisyOptimum', () => {
  it('keeps a copy while its gain 0.9 eps^(n-1)(1-eps) exceeds lambda_tok', () => {
    // eps 0.3: gains 0.63, 0.189, 0.0567, 0.0170, 0.0051
    expect(noisyOptimum(0.3, 0.1, 0.3, 8).copies).toBe(2);
    expect(noisyOptimum(0.3, 0.03, 0.3, 8).copies).toBe(3);
    expect(noisyOptimum(0.3, 0.01, 0.3, 8).copies).toBe(4);
    // eps 0.5: gains 0.45, 0.225, 0.1125, 0.05625, 0.028, 0.014, 0.007
    expect(noisyOptimum(0.5, 0.01, 0.3, 8).copies).toBe(6);
    expect(noisyOptimum(0.5, 0.01, 0.3, 4).copies).toBe(4); // the message limit binds
    expect(noisyOptimum(0.1, 0.3, 0.3, 8).copies).toBe(1); // gains 0.81, 0.081
    expect(noisyOptimum(0.3, 1, 0.3, 8).copies).toBe(0); // no copy is worth 1 per token
  });

  it('accuracy is pKnown + (1 - pKnown)(1 - 0.9 eps^n*)', () => {
    expect(noisyOptimum(0.3, 0.1, 0.3, 8).accuracy).toBeCloseTo(0.3 + 0.7 * (1 - 0.9 * 0.09), 12);
    expect(noisyOptimum(0.3, 1, 0.3, 8).accuracy).toBeCloseTo(0.3 + 0.7 * 0.1, 12);
  });
});

describe('judging a cell', () => {
  const warm = evalOf({ accuracy: 0.99, tokens: 8 });
  it('clean: accuracy within 0.02 of the warm start, tokens at most 30%, silence split', () => {
    const good = evalOf({ accuracy: 0.975, tokens: 2.4, silenceKnown: 0.96, silenceUnknown: 0.04 });
    expect(judgeClean(warm, good).every((c) => c.ok)).toBe(true);
    const bad = evalOf({ accuracy: 0.96, tokens: 2.5, silenceKnown: 0.94, silenceUnknown: 0.06 });
    expect(judgeClean(warm, bad).filter((c) => !c.ok).map((c) => c.name)).toEqual(['accuracy', 'tokens', 'silenceKnown', 'silenceUnknown']);
  });

  it('noisy: copies on unknown tasks within 1 of n*, accuracy within 0.03 of the optimum', () => {
    const cfg = { channelNoise: 0.3, lambdaTok: 0.1, pKnown: 0.3, maxMessage: 8 }; // n* 2, accuracy 0.9433
    expect(judgeNoisy(cfg, evalOf({ accuracy: 0.93, tokensUnknown: 2.9, silenceKnown: 0.95 })).every((c) => c.ok)).toBe(true);
    const bad = judgeNoisy(cfg, evalOf({ accuracy: 0.91, tokensUnknown: 3.1, silenceKnown: 0.85 }));
    expect(bad.filter((c) => !c.ok).map((c) => c.name)).toEqual(['silenceKnown', 'tokensUnknown', 'accuracy']);
  });
});

describe('judging a length cell', () => {
  it('accuracy at least 0.96 where the optimum allows it, else the optimum - 0.03', () => {
    // eps 0.25, lambda 0.015: gains 0.675, 0.169, 0.042, 0.0105 -> n* 3, accuracy 0.3 + 0.7 (1 - 0.9 / 64) = 0.99016
    const easy = { channelNoise: 0.25, lambdaTok: 0.015, pKnown: 0.3, maxMessage: 8 };
    expect(judgeLength(easy, evalOf({ accuracy: 0.961, tokensUnknown: 3.9, silenceKnown: 0.9 })).every((c) => c.ok)).toBe(true);
    expect(judgeLength(easy, evalOf({ accuracy: 0.959, tokensUnknown: 4.1, silenceKnown: 0.89 })).filter((c) => !c.ok).map((c) => c.name))
      .toEqual(['silenceKnown', 'tokensUnknown', 'accuracy']);
    // eps 0.45, lambda 0.08: gains 0.495, 0.223, 0.100, 0.045 -> n* 3, accuracy 0.3 + 0.7 (1 - 0.9 x 0.091125) = 0.94259
    const hard = { channelNoise: 0.45, lambdaTok: 0.08, pKnown: 0.3, maxMessage: 8 };
    const floor = 0.3 + 0.7 * (1 - 0.9 * 0.45 ** 3) - 0.03;
    expect(judgeLength(hard, evalOf({ accuracy: floor + 0.001, tokensUnknown: 3, silenceKnown: 1 }))[2].ok).toBe(true);
    expect(judgeLength(hard, evalOf({ accuracy: floor - 0.001, tokensUnknown: 3, silenceKnown: 1 }))[2].ok).toBe(false);
  });

  it('the length grid: 4 channel noises x 3 penalties x 3 seeds, none of them a point of the noisy grid', () => {
    const cells = robustnessCells(['length']);
    expect(cells).toHaveLength(36);
    const noisy = new Set(robustnessCells(['noisy']).map((c) => `${c.overrides.channelNoise}/${c.overrides.lambdaTok}`));
    for (const c of cells) {
      expect(noisy.has(`${c.overrides.channelNoise}/${c.overrides.lambdaTok}`)).toBe(false);
      expect(() => presetConfig(findPreset(c.preset)!, c.overrides)).not.toThrow();
    }
    expect(new Set(cells.map((c) => c.overrides.seed))).toEqual(new Set([101, 202, 303]));
  });
});

describe('the grid', () => {
  it('every cell is a valid config of its preset, and the noisy cells cover every (eps, lambda_tok) pair', () => {
    const cells = robustnessCells(['clean', 'noisy']);
    for (const c of cells) expect(() => presetConfig(findPreset(c.preset), c.overrides as Record<string, unknown>)).not.toThrow();
    const noisy = cells.filter((c) => c.grid === 'noisy');
    expect(new Set(noisy.map((c) => `${c.overrides.channelNoise}/${c.overrides.lambdaTok}`)).size).toBe(3 * 4);
    expect(new Set(cells.map((c) => c.label)).size).toBe(cells.length); // one folder each
  });

  it('the table names every failing cell and why', () => {
    const r = (label: string, pass: boolean, why = ''): CellResult => ({
      label, grid: 'noisy', overrides: {}, out: '', wallSeconds: 1, warmStart: { accuracy: 1, tokens: 6 },
      final: { accuracy: 0.9, tokens: 2, tokensUnknown: 2.5, silenceKnown: 0.9 }, checks: [], pass, why, warmStartSource: '',
    });
    const withRecipe = { ...r('c', true), overrides: { channelNoise: 0.1, lambdaTok: 0.01, steps: 180, temperature: 0.7, lambdaStart: 0.073, lambdaHold: 100 } };
    const md = robustnessMarkdown([r('a', true), r('b', false, 'accuracy 0.900, needs 0.943 +- 0.03'), withRecipe], 'npm run gspo -- robustness', 10);
    expect(md).toContain('3 cells, 2 pass, 1 fail');
    expect(md).toContain('| b | as shipped | 1.000 / 6.000 |');
    // the recipe column: what the recipe set beyond the cell's own settings
    expect(md).toContain('| c | 180 steps, T 0.7, lambda 0.073 for 100 steps | 1.000 / 6.000 |');
    expect(md).toContain('- **b**: accuracy 0.900, needs 0.943 +- 0.03');
    expect(md).not.toContain('- **a**');
  });
});
