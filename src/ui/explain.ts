// The page's explanations, one or two sentences each, shown beside the
// controls they explain (not only in tooltips).
import type { RunConfig } from '../config';
import { LOSSES } from '../contract/losses';

export const EXPLAIN = {
  group: 'Group normalization: A = (r − group mean) / group std. A group whose G episodes all got the same reward has std 0 and gives no gradient; frac_zero_std on the Clip fraction chart is the share of such groups.',
  none: '"none": A = r − group mean, not divided by the std (Dr. GRPO style). The mean is still subtracted; the gradient now scales with the reward, so small token penalties give small updates.',
  batch: 'Batch normalization: A = (r − group mean) / std of the whole batch, so groups with a small spread keep a small advantage. Equal-reward groups (frac_zero_std) still give no gradient.',
  resetVsWarm: 'Reset goes back to the warm start with the settings of this run. Warm start starts a new run from the preset\'s warm-start weights with the settings shown now (changed fields included). Either way the current run stays in the runs table.',
  lambda: 'Each message token costs lambda_tok in the reward. Drag it and watch the trail on the accuracy-vs-tokens chart: higher means fewer tokens, until accuracy starts to pay.',
  changes: 'A live change (lambda_tok, G, lr…) applies at the next step; it is marked on every time series and labelled on the trail.',
} as const;

/** A loss variant's explanation: its row of the loss table. */
export const algorithmExplain = (a: RunConfig['algorithm']): string => LOSSES[a].explain;
export const advantageExplain = (a: RunConfig['advantage']): string => EXPLAIN[a];
