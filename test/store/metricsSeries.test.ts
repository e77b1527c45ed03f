// The columnar metrics store: appends batches, reads columns, rewinds when a resumed run repeats steps.
import { describe, expect, it } from 'vitest';
import { MetricsSeries } from '../../src/store/metricsSeries';
import { METRIC_INDEX, METRIC_NAMES } from '../../src/worker/protocol';

const C = METRIC_NAMES.length;
const rows = (steps: number[], reward: (s: number) => number) => {
  const d = new Float64Array(steps.length * C);
  steps.forEach((s, r) => { d[r * C + METRIC_INDEX.step] = s; d[r * C + METRIC_INDEX.reward] = reward(s); });
  return d;
};

describe('MetricsSeries', () => {
  it('appends batches (growing past its first buffer) and reads columns', () => {
    const s = new MetricsSeries();
    for (let b = 0; b < 30; b++) s.append(rows([3 * b, 3 * b + 1, 3 * b + 2], (x) => x * 2), 3);
    expect(s.rows).toBe(90);
    expect(Array.from(s.column('step'))).toEqual(Array.from({ length: 90 }, (_, i) => i));
    expect(Array.from(s.column('reward'))).toEqual(Array.from({ length: 90 }, (_, i) => 2 * i));
    expect(s.last('reward')).toBe(178);
    expect(() => s.append(new Float64Array(5), 1)).toThrow(/5 numbers for 1 rows/);
  });

  it('a batch starting at a step already held drops the rows from that step on (a run resumed from a checkpoint)', () => {
    const s = new MetricsSeries();
    s.append(rows([0, 1, 2, 3, 4], () => 1), 5);
    s.append(rows([2, 3], () => 7), 2);
    expect(Array.from(s.column('step'))).toEqual([0, 1, 2, 3]);
    expect(Array.from(s.column('reward'))).toEqual([1, 1, 7, 7]);
    expect(MetricsSeries.from(s.toArray()).column('reward')).toEqual(s.column('reward'));
  });
});
