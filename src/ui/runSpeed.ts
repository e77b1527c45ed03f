// The current run's speed for the device panel: steps/s and GFLOP/s over its
// last few steps, from the per-step metrics (step_time_ms, step_flops).
import type { MetricsSeries } from '../store/metricsSeries';

export interface RunSpeed { steps: number; stepsPerSec: number; gflops: number }

/**
 * Over the last `window` steps: steps / total time, and total matmul FLOPs / total time.
 * Rows without a time (or, for GFLOP/s, without a FLOP count: runs recorded before it existed) are left out.
 */
export function runSpeed(series: MetricsSeries | undefined, window = 10): RunSpeed | null {
  if (!series || series.rows === 0) return null;
  let steps = 0, ms = 0, flops = 0, msWithFlops = 0;
  for (let r = Math.max(0, series.rows - window); r < series.rows; r++) {
    const t = series.value(r, 'step_time_ms'), f = series.value(r, 'step_flops');
    if (!(t > 0)) continue;
    steps++; ms += t;
    if (Number.isFinite(f)) { flops += f; msWithFlops += t; }
  }
  if (steps === 0) return null;
  return { steps, stepsPerSec: (steps * 1000) / ms, gflops: msWithFlops > 0 ? flops / msWithFlops / 1e6 : NaN };
}
