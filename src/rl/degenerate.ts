// Degenerate-policy detector (docs/envs.md section 3): a run is degenerate
// when the policy found a way to score without doing the task, e.g. the
// philosophers stop acting because every action costs more than it earns.
//
// It compares the LAST `window` records with a REFERENCE window: the earlier
// `window` consecutive records (not overlapping the last ones) where the task
// measure was highest (the earliest such window on ties). It flags
//   1. collapse: actions or messages fell toward zero (last mean <= collapseRatio
//      x reference mean and <= collapseFloor) while the task measure fell;
//   2. reward hacking: reward rose (last mean > reference mean + minRewardRise)
//      while the task measure fell.
// "The task measure fell" means it dropped by at least max(minTaskDrop,
// relTaskDrop x reference). So a healthy run (task and reward rising together:
// the reference is the last window itself, or a lower one) is never flagged,
// and neither is a run whose messages shrink while the task holds: that is
// what lambda_tok is for.
// Pure: no state, the whole stream in, a verdict and a plain sentence out.

export interface DegenerateRecord {
  step: number;
  reward: number;
  actionRate: number; // non-THINK actions per philosopher-round
  messageRate: number; // message tokens per philosopher-round
  task: number; // the task measure (meals per philosopher, or r_task)
}

export interface DegenerateOptions {
  window: number; // records averaged on each side of the comparison
  collapseRatio: number; // activity collapsed when last <= collapseRatio x reference ...
  collapseFloor: number; // ... and last <= collapseFloor
  minTaskDrop: number; // the task measure fell by at least max(minTaskDrop, relTaskDrop x reference)
  relTaskDrop: number;
  minRewardRise: number; // reward rose when last > reference + minRewardRise
  taskLabel: string; // how the reason names the task measure
}

export const DEGENERATE_DEFAULTS: DegenerateOptions = {
  window: 3,
  collapseRatio: 0.25,
  collapseFloor: 0.1,
  minTaskDrop: 0.05,
  relTaskDrop: 0.2,
  minRewardRise: 0,
  taskLabel: 'the task measure',
};

export interface DegenerateVerdict {
  degenerate: boolean;
  reason: string;
}

const mean = (xs: readonly DegenerateRecord[], key: keyof DegenerateRecord): number =>
  xs.reduce((a, r) => a + (r[key] as number), 0) / xs.length;
const f2 = (x: number): string => x.toFixed(2);

export function detectDegenerate(records: readonly DegenerateRecord[], options: Partial<DegenerateOptions> = {}): DegenerateVerdict {
  const o: DegenerateOptions = { ...DEGENERATE_DEFAULTS, ...options };
  const w = Math.max(1, Math.floor(o.window));
  if (records.length < 2 * w) {
    return { degenerate: false, reason: `too few evaluations to judge (${records.length}, need ${2 * w})` };
  }
  const last = records.slice(records.length - w);
  let refStart = 0, refTask = -Infinity;
  for (let s = 0; s + w <= records.length - w; s++) {
    const t = mean(records.slice(s, s + w), 'task');
    if (t > refTask) { refTask = t; refStart = s; }
  }
  const ref = records.slice(refStart, refStart + w);
  const steps = `steps ${ref[0].step}-${ref[w - 1].step} vs ${last[0].step}-${last[w - 1].step}`;
  const taskNow = mean(last, 'task');
  const taskFell = refTask - taskNow >= Math.max(o.minTaskDrop, o.relTaskDrop * Math.abs(refTask));
  const taskText = `${o.taskLabel} fell from ${f2(refTask)} to ${f2(taskNow)}`;
  if (!taskFell) {
    return { degenerate: false, reason: `${o.taskLabel} held (best ${f2(refTask)}, now ${f2(taskNow)}; ${steps})` };
  }

  const collapsed: string[] = [];
  for (const [key, name] of [['actionRate', 'actions'], ['messageRate', 'messages']] as const) {
    const before = mean(ref, key), now = mean(last, key);
    if (before > 0 && now <= o.collapseRatio * before && now <= o.collapseFloor) {
      collapsed.push(`${name} fell from ${f2(before)} to ${f2(now)} per philosopher-round`);
    }
  }
  const rewardBefore = mean(ref, 'reward'), rewardNow = mean(last, 'reward');
  const rewardRose = rewardNow > rewardBefore + o.minRewardRise;
  if (collapsed.length > 0) {
    const also = rewardRose ? `; reward rose from ${f2(rewardBefore)} to ${f2(rewardNow)}` : '';
    return { degenerate: true, reason: `${collapsed.join(' and ')} while ${taskText}${also} (${steps}).` };
  }
  if (rewardRose) {
    return { degenerate: true, reason: `reward rose from ${f2(rewardBefore)} to ${f2(rewardNow)} while ${taskText} (${steps}).` };
  }
  return { degenerate: false, reason: `${taskText}, but activity and reward did not show a degenerate policy (${steps})` };
}
