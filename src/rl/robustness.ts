// Do the relay lessons hold off their calibrated point? Two grids of runs, each cell a
// preset with one or two settings moved, judged against what the lesson promises:
//   clean relay (relay-silence): digits and the known-task mix moved; the run must keep the
//     warm start's accuracy, cut its tokens to 30% and split silence into known / unknown;
//   noisy relay, advantage r - mean (relay-noisy-dr): channel noise and lambda_tok moved; the
//     run must land near the analytic optimum for that eps and lambda_tok.
// `npm run gspo -- robustness` runs the cells as a population and writes docs/robustness.md.
import type { RunConfig } from '../config';
import type { EvalRecord } from './runRecord';

export type Grid = 'clean' | 'noisy' | 'length';

export interface RobustnessCell {
  grid: Grid;
  label: string; // also its run folder
  preset: string;
  overrides: Partial<RunConfig>;
}

/** One criterion of a cell: what was measured, what the lesson needs, and whether it holds. */
export interface Check { name: string; value: number; want: string; ok: boolean }

/** The clean grid: digits 2-5 at the preset's mix, and the known-task mix 0.1 / 0.5 at 3 digits (train and eval alike). */
export const CLEAN_DIGITS = [2, 3, 4, 5];
export const CLEAN_MIX = [0.1, 0.5];
/** The noisy grid: every (eps, lambda_tok) pair. */
export const NOISY_EPS = [0.1, 0.3, 0.5];
export const NOISY_LAMBDAS = [0.01, 0.03, 0.1, 0.3];

/**
 * The length grid: settings off the noisy grid's points (none of them is a point the recipe was fitted to), each
 * with three seeds of its own, judged like the noisy grid but with accuracy at least min(0.96, the optimum's - 0.03).
 */
export const LENGTH_EPS = [0.15, 0.25, 0.35, 0.45];
export const LENGTH_LAMBDAS = [0.015, 0.04, 0.08];
export const LENGTH_SEEDS = [101, 202, 303];

export function robustnessCells(grids: readonly Grid[]): RobustnessCell[] {
  const cells: RobustnessCell[] = [];
  if (grids.includes('clean')) {
    for (const digits of CLEAN_DIGITS) cells.push({ grid: 'clean', label: `clean-digits=${digits}`, preset: 'relay-silence', overrides: { digits } });
    for (const p of CLEAN_MIX) cells.push({ grid: 'clean', label: `clean-pKnown=${p}`, preset: 'relay-silence', overrides: { pKnown: p, pKnownTrain: p } });
  }
  if (grids.includes('noisy')) {
    for (const eps of NOISY_EPS) for (const lambdaTok of NOISY_LAMBDAS) {
      cells.push({ grid: 'noisy', label: `noisy-eps=${eps}-lambda=${lambdaTok}`, preset: 'relay-noisy-dr', overrides: { channelNoise: eps, lambdaTok } });
    }
  }
  if (grids.includes('length')) {
    for (const eps of LENGTH_EPS) for (const lambdaTok of LENGTH_LAMBDAS) for (const seed of LENGTH_SEEDS) {
      cells.push({ grid: 'length', label: `length-eps=${eps}-lambda=${lambdaTok}-seed=${seed}`, preset: 'relay-noisy-dr', overrides: { channelNoise: eps, lambdaTok, seed } });
    }
  }
  return cells;
}

/**
 * The noisy relay's optimum on a task the Solver does not know: n copies of s_j, each erased with
 * probability eps, are all lost with probability eps^n, and then the Solver guesses (right 1 time
 * in 10), so accuracy is 1 - 0.9 eps^n for a cost of lambda_tok n. The best n maximises
 * 1 - 0.9 eps^n - lambda_tok n over 0..maxCopies (ties: fewer copies). On a known task silence
 * is optimal, so the eval's accuracy is pKnown + (1 - pKnown)(1 - 0.9 eps^n).
 */
export function noisyOptimum(eps: number, lambdaTok: number, pKnown: number, maxCopies: number): { copies: number; accuracy: number } {
  const unknownAcc = (n: number) => 1 - 0.9 * eps ** n;
  let best = 0;
  for (let n = 1; n <= maxCopies; n++) if (unknownAcc(n) - lambdaTok * n > unknownAcc(best) - lambdaTok * best + 1e-12) best = n;
  return { copies: best, accuracy: pKnown + (1 - pKnown) * unknownAcc(best) };
}

const at = (e: EvalRecord, key: string): number => e[key] ?? NaN;

/** The clean relay's promise: accuracy within 0.02 of the warm start, tokens at most 30% of its, silence 0.95 / 0.05. */
export function judgeClean(warm: EvalRecord, final: EvalRecord): Check[] {
  return [
    { name: 'accuracy', value: final.accuracy, want: `>= ${(warm.accuracy - 0.02).toFixed(3)} (warm start ${warm.accuracy.toFixed(3)} - 0.02)`, ok: final.accuracy >= warm.accuracy - 0.02 },
    { name: 'tokens', value: final.tokens, want: `<= ${(0.3 * warm.tokens).toFixed(2)} (30% of the warm start's ${warm.tokens.toFixed(2)})`, ok: final.tokens <= 0.3 * warm.tokens },
    { name: 'silenceKnown', value: at(final, 'silenceKnown'), want: '>= 0.95', ok: at(final, 'silenceKnown') >= 0.95 },
    { name: 'silenceUnknown', value: at(final, 'silenceUnknown'), want: '<= 0.05', ok: at(final, 'silenceUnknown') <= 0.05 },
  ];
}

/** The noisy relay's promise: silence 0.9 on known tasks, copies on unknown ones within 1 of the optimum, accuracy within 0.03 of it. */
export function judgeNoisy(config: Pick<RunConfig, 'channelNoise' | 'lambdaTok' | 'pKnown' | 'maxMessage'>, final: EvalRecord): Check[] {
  const opt = noisyOptimum(config.channelNoise, config.lambdaTok, config.pKnown, config.maxMessage);
  const copies = at(final, 'tokensUnknown');
  return [
    { name: 'silenceKnown', value: at(final, 'silenceKnown'), want: '>= 0.9', ok: at(final, 'silenceKnown') >= 0.9 },
    { name: 'tokensUnknown', value: copies, want: `${opt.copies} +- 1 (the optimum)`, ok: Math.abs(copies - opt.copies) <= 1 },
    { name: 'accuracy', value: final.accuracy, want: `${opt.accuracy.toFixed(3)} +- 0.03 (the optimum)`, ok: Math.abs(final.accuracy - opt.accuracy) <= 0.03 },
  ];
}

/**
 * The length grid's promise: the noisy relay's silence and length, and accuracy at least 0.96, or at least the
 * optimum's - 0.03 where the optimum itself is below 0.99 (eps 0.45 at lambda 0.08 keeps 3 copies: 0.943 at best).
 */
export function judgeLength(config: Pick<RunConfig, 'channelNoise' | 'lambdaTok' | 'pKnown' | 'maxMessage'>, final: EvalRecord): Check[] {
  const opt = noisyOptimum(config.channelNoise, config.lambdaTok, config.pKnown, config.maxMessage);
  const floor = Math.min(0.96, opt.accuracy - 0.03);
  const [silence, copies] = judgeNoisy(config, final);
  return [silence, copies, { name: 'accuracy', value: final.accuracy, want: `>= ${floor.toFixed(3)}${floor < 0.96 ? ` (the optimum's ${opt.accuracy.toFixed(3)} - 0.03)` : ''}`, ok: final.accuracy >= floor }];
}
