// TRL's names for the per-step metrics the playground also logs (read from
// trl/trainer/grpo_trainer.py at the commit in optionNames.json), so a CSV
// export overlays on a TRL run's logs. reward, reward_std, kl and entropy
// already share TRL's names. The sampling/importance_sampling_ratio columns
// carry the policy ratio pi/pi_old of the last update here; TRL logs its
// sampler-vs-trainer ratio under that name (docs/export.md).
import type { StepMetrics } from '../rl/runRecord';

export const TRL_METRIC_ALIASES: ReadonlyArray<readonly [trl: string, playground: keyof StepMetrics]> = [
  ['frac_reward_zero_std', 'frac_zero_std'],
  ['clip_ratio/region_mean', 'clip_frac'],
  ['completions/mean_length', 'seq_len_mean'],
  ['sampling/importance_sampling_ratio/min', 'ratio_min'],
  ['sampling/importance_sampling_ratio/mean', 'ratio_mean'],
  ['sampling/importance_sampling_ratio/max', 'ratio_max'],
];
