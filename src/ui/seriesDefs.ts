// Which time series the page draws, from which metrics (docs/rl.md section 7), in
// which group, and the unit of each chart's y axis (the x axis is the step).
import type { MetricName } from '../worker/protocol';

export interface SeriesDef {
  metric: MetricName | 'steps_per_s';
  label: string;
  axis?: 'left' | 'right';
}

export interface ChartDef { id: string; title: string; unit: string; series: SeriesDef[]; yDomain?: [number | 'auto', number | 'auto'] }

export interface ChartGroup { id: string; title: string; charts: ChartDef[] }

export const CHART_GROUPS: ChartGroup[] = [
  { id: 'reward', title: 'Reward and its parts', charts: [
    { id: 'reward', title: 'Reward', unit: 'per episode', series: [{ metric: 'reward', label: 'reward' }, { metric: 'r_task', label: 'r_task' }] },
    { id: 'lambda', title: 'lambda_tok', unit: 'penalty per token', series: [{ metric: 'lambda_tok', label: 'lambda_tok' }] },
  ] },
  { id: 'accuracy', title: 'Accuracy and tokens', charts: [
    { id: 'accuracy', title: 'Accuracy', unit: 'fraction correct', series: [{ metric: 'r_task', label: 'train r_task' }], yDomain: [0, 1] },
    { id: 'tokens', title: 'Tokens', unit: 'per episode', series: [{ metric: 'tokens', label: 'train tokens' }, { metric: 'turns', label: 'turns' }, { metric: 'repetition', label: 'repetition' }] },
    { id: 'silence', title: 'Silence rate', unit: 'fraction of messages', series: [{ metric: 'silence_rate', label: 'silence_rate' }], yDomain: [0, 1] },
  ] },
  { id: 'clip', title: 'Clipping and ratios', charts: [
    { id: 'clip', title: 'Clip fraction', unit: 'fraction', series: [{ metric: 'clip_frac', label: 'clip_frac' }, { metric: 'frac_zero_std', label: 'frac_zero_std (no-signal groups)' }], yDomain: [0, 'auto'] },
    { id: 'dynamic', title: 'Dynamic sampling', unit: 'groups per step', series: [{ metric: 'groups_dropped', label: 'groups_dropped (flat, left the loss)' }, { metric: 'groups_refilled', label: 'groups_refilled (sampled again)' }], yDomain: [0, 'auto'] },
    { id: 'ratio', title: 'Ratio range', unit: 'π_θ / π_old', series: [{ metric: 'ratio_min', label: 'min' }, { metric: 'ratio_mean', label: 'mean' }, { metric: 'ratio_max', label: 'max' }] },
  ] },
  { id: 'optim', title: 'KL, entropy, grad norm', charts: [
    { id: 'kl', title: 'KL', unit: 'nats', series: [{ metric: 'kl', label: 'kl' }] },
    { id: 'entropy', title: 'Entropy', unit: 'nats per token', series: [{ metric: 'entropy', label: 'entropy' }] },
    { id: 'grad', title: 'Grad norm', unit: 'L2 norm', series: [{ metric: 'grad_norm', label: 'grad_norm' }] },
  ] },
  { id: 'speed', title: 'Speed', charts: [
    { id: 'speed', title: 'Steps/s', unit: 'steps per second', series: [{ metric: 'steps_per_s', label: 'steps/s' }] },
  ] },
];

export const TIME_SERIES: ChartDef[] = CHART_GROUPS.flatMap((g) => g.charts);

/** EvalRecord keys that are not env extras. */
export const EVAL_CORE_KEYS = new Set(['step', 'accuracy', 'tokens', 'turns', 'lambdaTok', 'reward']);
