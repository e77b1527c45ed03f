// Visible labels of the config fields (each control's accessible name is its
// label), and number formatting for the page.
import type { RunConfig } from '../config';
import { LOSS_IDS, LOSSES } from '../contract/losses';

export const FIELD_LABELS: Partial<Record<keyof RunConfig, string>> = {
  env: 'Environment', algorithm: 'Algorithm', groupSize: 'Group size', promptsPerStep: 'Prompts per step', minibatches: 'Minibatches',
  lr: 'Learning rate', epsLow: 'eps_low', epsHigh: 'eps_high', delta: 'delta (two-sided clip)', beta: 'beta (KL)', temperature: 'Temperature', advantage: 'Advantage mode', dynamicSampling: 'Dynamic sampling',
  gradClip: 'Gradient clip', weightDecay: 'Weight decay', lambdaTok: 'lambda_tok', lambdaTurn: 'lambda_turn', lambdaRep: 'lambda_rep', overlongCache: 'Overlong L_cache', overlongPenalty: 'Overlong penalty', refillRounds: 'Refill rounds',
  lambdaMode: 'lambda mode', budget: 'Budget B', dualEta: 'eta', lambdaMax: 'lambda_max', lambdaStart: 'lambda at start', lambdaHold: 'steps at start', evalEvery: 'Eval every', evalEpisodes: 'Eval episodes',
  steps: 'Steps', seed: 'Seed', nLayer: 'Layers', nHead: 'Heads', nEmbd: 'Width', channelNoise: 'Channel noise', scouts: 'Scouts',
};

export const labelOf = (k: keyof RunConfig): string => FIELD_LABELS[k] ?? k;

/** The visible text of an enum value where the bare value would mislead (the value sent stays the same). */
export const OPTION_LABELS: Partial<Record<keyof RunConfig, Record<string, string>>> = {
  advantage: { group: 'group: (r − mean) / std', none: 'none: r − mean (Dr. GRPO)', batch: 'batch: (r − mean) / batch std' },
  algorithm: Object.fromEntries(LOSS_IDS.map((id) => [id, LOSSES[id].label])),
};

export const optionLabel = (k: keyof RunConfig, v: string): string => OPTION_LABELS[k]?.[v] ?? v;

/** A number for people: 3 significant digits, small/large ones in exponent form. */
export function fmt(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e5 || a < 1e-3) return x.toExponential(2);
  return Number(x.toPrecision(digits)).toString();
}

export const pct = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(1)}%`);

export function fmtCount(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}
