// rl/sweep.ts and rl/dualStatic.ts: value parsing with named errors, the planned
// runs' overrides, and the settle measures on hand-made token series.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { defaultSweep, parseOver, parseValues, planSweep } from '../../src/rl/sweep';
import { settleReport } from '../../src/rl/dualStatic';
import { DEFAULTS } from '../../src/config';

describe('sweep plans', () => {
  it('parses values against the field\'s range and names the bad entry', () => {
    expect(parseValues('0, 0.003,0.1', 'lambdaTok', '--lambdas')).toEqual([0, 0.003, 0.1]);
    const bad = (text: string, key: 'lambdaTok' | 'seed' = 'lambdaTok') => { try { parseValues(text, key, '--x'); } catch (e) { expect(e).toBeInstanceOf(InputError); return (e as Error).message; } return ''; };
    expect(bad('0,x')).toMatch(/--x: entry 2 \("x"\)/);
    expect(bad('0,11')).toMatch(/entry 2.*lambdaTok must be in \[0, 10\]; got 11/);
    expect(bad('0,,1')).toMatch(/comma-separated/);
    expect(bad('0.1,0.1')).toMatch(/repeated/);
    expect(bad('1,2.5', 'seed')).toMatch(/integer/);
    expect(bad('x'.repeat(10_000))).toMatch(/"x{40}…"/); // quoted, never echoed whole
  });

  it('--over takes numeric config fields only, by own name', () => {
    expect(parseOver('scouts=1,2,3')).toEqual({ key: 'scouts', values: [1, 2, 3] });
    expect(() => parseOver('scouts=1,7')).toThrow(/scouts must be in \[1, 6\]/);
    expect(() => parseOver('algorithm=1')).toThrow(/not numeric/);
    expect(() => parseOver('constructor=1')).toThrow(/config key/);
    expect(() => parseOver('toString=1')).toThrow(/config key/);
    expect(() => parseOver('=1')).toThrow(/key=v1/);
  });

  it('plans one run per (value, seed) with the overrides that make it', () => {
    const runs = planSweep({ axis: 'lambdaTok', values: [0, 0.1], seeds: [1, 2] });
    expect(runs.map((r) => r.overrides)).toEqual([
      { lambdaMode: 'manual', lambdaTok: 0, seed: 1 }, { lambdaMode: 'manual', lambdaTok: 0, seed: 2 },
      { lambdaMode: 'manual', lambdaTok: 0.1, seed: 1 }, { lambdaMode: 'manual', lambdaTok: 0.1, seed: 2 },
    ]);
    expect(runs.map((r) => r.label)).toEqual(['lambda_tok=0 seed 1', 'lambda_tok=0 seed 2', 'lambda_tok=0.1 seed 1', 'lambda_tok=0.1 seed 2']);
    expect(planSweep({ axis: 'budget', values: [4], seeds: [] })[0].overrides).toEqual({ lambdaMode: 'budget', budget: 4 });
    expect(planSweep({ axis: 'scouts', values: [3], seeds: [] })[0]).toMatchObject({ overrides: { scouts: 3 }, label: 'scouts=3' });
    expect(() => planSweep({ axis: 'lambdaTok', values: [], seeds: [] })).toThrow(InputError);
    expect(defaultSweep({ ...DEFAULTS, lambdaMode: 'budget' }).axis).toBe('budget');
    expect(defaultSweep(DEFAULTS)).toEqual({ axis: 'lambdaTok', values: [0, 0.01, 0.03, 0.1, 0.3], seeds: [] });
  });
});

describe('dual vs static: settle measures', () => {
  const series = (tokens: number[], lambdas: number[] = tokens.map(() => 0.1)) => tokens.map((t, i) => ({ step: i, tokens: t, lambdaTok: lambdas[i] }));

  it('tokens over the last third, the budget gap, and the mean lambda there', () => {
    // 9 steps: the last third is steps 6..8
    const r = settleReport(series([8, 8, 6, 4, 2.2, 2, 2, 1.8, 2.2], [0, 0.05, 0.1, 0.1, 0.1, 0.1, 0.2, 0.1, 0.3]), 2);
    expect(r.tokensLastThird).toBeCloseTo(2, 12);
    expect(r.budgetGap).toBeCloseTo((0 + 0.1 + 0.1) / 3, 12);
    expect(r.meanLambdaLastThird).toBeCloseTo(0.2, 12);
    expect(settleReport(series([1, 2, 3]), null).budgetGap).toBeNull();
  });

  it('steps to settle: where the 5-step moving mean enters 10% of the final tokens and stays', () => {
    // 15 steps, final (last third, steps 10..14) = 1; moving means (window of 5 ending at the step):
    // step 8 = (3+2+1+1+1)/5 = 1.6, step 9 = (2+1+1+1+1)/5 = 1.2 (outside 10%), step 10 = 1.0 and it stays
    const r = settleReport(series([6, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]), 1);
    expect(r.tokensLastThird).toBe(1);
    expect(r.stepsToSettle).toBe(10);
    // a dip back out of the band later resets it: settling is counted from the last entry
    expect(settleReport(series([1, 1, 1, 1, 1, 1, 1, 1, 5, 1, 1, 1, 1, 1, 1]), null).stepsToSettle).toBe(13);
    // a run that never leaves its final level has settled from step 0
    expect(settleReport(series([3, 3, 3, 3]), 3).stepsToSettle).toBe(0);
  });
});
