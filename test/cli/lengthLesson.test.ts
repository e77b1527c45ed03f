// The length half of the noisy relay's lesson, reduced: three cell-seeds of the length grid
// (`npm run gspo -- robustness --grid length`, docs/recipe.md "The length half") that failed with the
// warm start whose demos sent six copies 72% of the time. Each trains `train --preset relay-noisy-dr`
// with no flag but the setting and its seed, as a person would, and is judged against the analytic
// optimum (noisyOptimum: argmax_n 1 - 0.9 eps^n - lambda_tok n, checked by hand in test/rl/robustness.test.ts):
// silence on known tasks >= 0.9, copies on unknown tasks within 1 of n*, accuracy >= min(0.96, optimum - 0.03).
// Before: 6.00 copies against n* = 4 (two cells) and silence 0.11 with 6.00 copies against n* = 3. The three pass on
// both kernel builds (the CLI's fused one and GSPO_KERNELS=simd's plain one; docs/recipe.md, "On the fused kernel build").
import { describe, expect, it } from 'vitest';
import { judgeLength, noisyOptimum } from '../../src/rl/robustness';
import { gspo, tempDir } from './run';
import { join } from 'node:path';

const CELLS = [
  { eps: 0.35, lambdaTok: 0.015, seed: 101, nStar: 4 },
  { eps: 0.45, lambdaTok: 0.04, seed: 202, nStar: 4 },
  { eps: 0.15, lambdaTok: 0.015, seed: 202, nStar: 3 },
];

describe('the noisy relay reaches the optimum length off the grid (reduced length grid)', () => {
  for (const { eps, lambdaTok, seed, nStar } of CELLS) {
    it(`eps ${eps}, lambda_tok ${lambdaTok}, seed ${seed}: silence, ${nStar} +- 1 copies, accuracy`, () => {
      const config = { channelNoise: eps, lambdaTok, pKnown: 0.3, maxMessage: 8 };
      expect(noisyOptimum(eps, lambdaTok, 0.3, 8).copies).toBe(nStar); // the optimum the comment names
      const r = gspo(['train', '--preset', 'relay-noisy-dr', '--backend', 'cpu', '--out', join(tempDir(), 'run'),
        '--set', `channelNoise=${eps}`, '--set', `lambdaTok=${lambdaTok}`, '--set', `seed=${seed}`]);
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const checks = judgeLength(config, r.json.final);
      expect(checks.filter((c) => !c.ok).map((c) => `${c.name} ${c.value.toFixed(3)}, needs ${c.want}`)).toEqual([]);
    }, 600_000);
  }
});
