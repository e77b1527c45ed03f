// The device panel's speed of the current run: steps/s and GFLOP/s from the
// per-step metrics, checked against figures worked out by hand.
import { describe, expect, it } from 'vitest';
import { MetricsHub } from '../../src/store/metricsHub';
import { MetricsSeries } from '../../src/store/metricsSeries';
import { DeviceInfo } from '../../src/ui/DeviceInfo';
import { runSpeed } from '../../src/ui/runSpeed';
import { METRIC_INDEX, METRIC_NAMES } from '../../src/worker/protocol';
import { render, text } from './render';

const C = METRIC_NAMES.length;
function rows(list: { ms: number; flops: number }[]): Float64Array {
  const data = new Float64Array(list.length * C);
  list.forEach((r, i) => {
    data[i * C + METRIC_INDEX.step] = i;
    data[i * C + METRIC_INDEX.step_time_ms] = r.ms;
    data[i * C + METRIC_INDEX.step_flops] = r.flops;
  });
  return data;
}

describe('device panel: speed of the current run', () => {
  it('two steps of 0.5 s and 1.5 s doing 4 and 6 GFLOP: 1.00 steps/s and 5.00 GFLOP/s', () => {
    const hub = new MetricsHub();
    hub.append('r', rows([{ ms: 500, flops: 4e9 }, { ms: 1500, flops: 6e9 }]), 2);
    const h = render(DeviceInfo, { runId: 'r' }, hub);
    expect(text(h)).toMatch(/This run: 1\.00 steps\/s , 5\.00 GFLOP\/s over its last 2 steps\./);
    expect(text(h)).toMatch(/counts the matrix multiplies/);
  });
  it('no run, or a run with no step yet: nothing shown', () => {
    expect(render(DeviceInfo, { runId: null })).not.toMatch(/run-speed/);
    expect(render(DeviceInfo, { runId: 'none' }, new MetricsHub())).not.toMatch(/run-speed/);
  });
  it('only the last 10 steps count; a step without a FLOP count (an older run) gives steps/s only', () => {
    const s = new MetricsSeries();
    // two slow steps (10 s each) fall out of the window; ten steps of 250 ms at 1 GFLOP each remain
    s.append(rows([{ ms: 10_000, flops: 1e9 }, { ms: 10_000, flops: 1e9 }, ...Array.from({ length: 10 }, () => ({ ms: 250, flops: 1e9 }))]), 12);
    const sp = runSpeed(s)!;
    expect(sp.steps).toBe(10);
    expect(sp.stepsPerSec).toBeCloseTo(4, 12); // 10 steps in 2.5 s
    expect(sp.gflops).toBeCloseTo(4, 12); // 10 GFLOP in 2.5 s
    const old = new MetricsSeries();
    old.append(rows([{ ms: 200, flops: NaN }, { ms: 300, flops: NaN }]), 2);
    const o = runSpeed(old)!;
    expect(o.stepsPerSec).toBeCloseTo(4, 12); // 2 steps in 0.5 s
    expect(o.gflops).toBeNaN();
    const hub = new MetricsHub();
    hub.append('r', rows([{ ms: 200, flops: NaN }, { ms: 300, flops: NaN }]), 2);
    expect(text(render(DeviceInfo, { runId: 'r' }, hub))).toMatch(/This run: 4\.00 steps\/s over its last 2 steps\./);
  });
});
