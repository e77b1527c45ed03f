// Which time series the page draws, and from which metrics (rl.md section 7).
import type { MetricName } from '../worker/protocol';

export interface SeriesDef {
  metric: MetricName | 'steps_per_s';
  label: string;
  axis?: 'left' | 'right';
}

export interface ChartDef { id: string; title: string; series: SeriesDef[]; yDomain?: [number | 'auto', number | 'auto'] }

export const TIME_SERIES: ChartDef[] = [
  { id: 'reward', title: 'Reward', series: [{ metric: 'reward', label: 'reward' }, { metric: 'r_task', label: 'r_task' }] },
  { id: 'accuracy', title: 'Accuracy', series: [{ metric: 'r_task', label: 'train r_task' }], yDomain: [0, 1] },
  { id: 'tokens', title: 'Tokens', series: [{ metric: 'tokens', label: 'train tokens' }, { metric: 'turns', label: 'turns' }, { metric: 'repetition', label: 'repetition' }] },
  { id: 'lambda', title: 'lambda_tok', series: [{ metric: 'lambda_tok', label: 'lambda_tok' }] },
  { id: 'clip', title: 'Clip fraction', series: [{ metric: 'clip_frac', label: 'clip_frac' }, { metric: 'frac_zero_std', label: 'frac_zero_std' }], yDomain: [0, 'auto'] },
  { id: 'ratio', title: 'Ratio range', series: [{ metric: 'ratio_min', label: 'min' }, { metric: 'ratio_mean', label: 'mean' }, { metric: 'ratio_max', label: 'max' }] },
  { id: 'kl', title: 'KL', series: [{ metric: 'kl', label: 'kl' }] },
  { id: 'entropy', title: 'Entropy', series: [{ metric: 'entropy', label: 'entropy' }] },
  { id: 'grad', title: 'Grad norm', series: [{ metric: 'grad_norm', label: 'grad_norm' }] },
  { id: 'speed', title: 'Steps/s', series: [{ metric: 'steps_per_s', label: 'steps/s' }] },
  { id: 'silence', title: 'Silence rate', series: [{ metric: 'silence_rate', label: 'silence_rate' }], yDomain: [0, 1] },
];

/** EvalRecord keys that are not env extras. */
export const EVAL_CORE_KEYS = new Set(['step', 'accuracy', 'tokens', 'turns', 'lambdaTok', 'reward']);
