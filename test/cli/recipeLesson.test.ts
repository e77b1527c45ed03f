// A user moves the sliders off the calibrated point: for settings drawn at random (a seeded draw,
// not picked by hand) of the noisy relay, `train --recipe` on the CPU engine applies the setting's
// recipe and the run moves in the lesson's direction: silence on known tasks rises from the warm
// start's 0, and the copies sent on unknown tasks move toward the analytic optimum n* (or stay
// within one of it when the warm start's six copies already are optimal).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/model/random';
import { noisyOptimum } from '../../src/rl/robustness';
import { gspo, tempDir } from './run';

/** The draw: eps uniform in [0.1, 0.5], lambda_tok log-uniform in [0.01, 0.3], to 3 decimals. */
function drawSettings(seed: number, n: number): { eps: number; lambdaTok: number }[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => ({
    eps: Math.round((0.1 + 0.4 * r()) * 1000) / 1000,
    lambdaTok: Math.round(0.01 * 30 ** r() * 1000) / 1000,
  }));
}

const SETTINGS = drawSettings(20261126, 2);

describe('the recipe off the calibrated point (seeded draw)', () => {
  for (const { eps, lambdaTok } of SETTINGS) {
    it(`eps ${eps}, lambda_tok ${lambdaTok}: silence and copies move in the lesson's direction`, () => {
      const out = join(tempDir(), 'run');
      const r = gspo(['train', '--preset', 'relay-noisy-dr', '--recipe', '--backend', 'cpu', '--out', out,
        '--set', `channelNoise=${eps}`, '--set', `lambdaTok=${lambdaTok}`, '--set', 'evalEpisodes=256']);
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(r.stderr).toMatch(/recipe: /);
      const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
      const c = config.config ?? config;
      // what ran is what the recipe logged, and the penalty followed its schedule step by step
      const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(metrics).toHaveLength(c.steps);
      metrics.forEach((m, i) => expect(m.lambda_tok, `step ${i}`).toBeCloseTo(c.lambdaHold > i ? c.lambdaStart : lambdaTok, 12));
      const warm = r.json.warmStart, final = r.json.final;
      const nStar = noisyOptimum(eps, lambdaTok, c.pKnown, c.maxMessage).copies;
      expect(final.silenceKnown - warm.silenceKnown).toBeGreaterThan(0.5);
      if (Math.abs(warm.tokensUnknown - nStar) > 1) expect(Math.abs(final.tokensUnknown - nStar)).toBeLessThan(Math.abs(warm.tokensUnknown - nStar));
      else expect(Math.abs(final.tokensUnknown - nStar)).toBeLessThanOrEqual(1);
    }, 900_000);
  }
});
