// What to try after a flag, where the environment changes the answer. On the
// philosophers' table with a hackable reward (the philosophers-hackable
// preset), accuracy falling to 0 is the preset's lesson, the reward hack, and
// the generic advice (a lower learning rate, gradient clipping) points away
// from it. Null: the generic advice for the flag's kind stands.
import type { RunConfig } from '../config';
import { rewardHackable } from '../envs/philosophers';
import type { Flag } from '../rl/runRecord';

export function flagAdvice(kind: Flag['kind'], config: Pick<RunConfig, 'env' | 'mealReward' | 'actionCost' | 'starvePenalty'> | null): string | null {
  if (!config || config.env !== 'philosophers' || !rewardHackable(config)) return null;
  if (kind !== 'collapse' && kind !== 'degenerate') return null;
  return 'This is the reward hack the preset shows, not a training fault: under these weights a meal costs more than it earns, so the reward rises while the true score, '
    + 'the share of philosophers who ate (eval accuracy here), falls. Compare Reward with Accuracy on the charts and read the transcripts (THINK, round after round); '
    + 'Restore best goes back to the policy that ate, and philosophers-fixed has weights that make eating pay. A lower learning rate would only slow the hack.';
}
