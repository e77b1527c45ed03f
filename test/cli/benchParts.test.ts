// The CPU engine's step by kind of op (src/cli/commands/benchParts.ts): the wrapper's counting on a fake
// backend whose ops take known times, and the table's arithmetic from hand figures.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { opShares, partOf, splitByOp, type OpSplit } from '../../src/cli/commands/benchParts';

/** Busy-waits `ms` (the wrapper reads performance.now, so the op must take wall time). */
const spin = (ms: number) => { const t = performance.now(); while (performance.now() - t < ms) { /* wait */ } };

class FakeBackend {
  calls: string[] = [];
  matmulForward(): void { this.calls.push('matmulForward'); spin(4); }
  /** An op that calls another: only the outer call is timed (its helper's time is its own). */
  attentionForward(): void { this.calls.push('attentionForward'); this.matmulForward(); spin(2); }
  sample(): number { this.calls.push('sample'); return 7; }
}

describe('splitByOp: every op timed, outermost calls only, then unwrapped', () => {
  it('times two steps of known ops, returns what the ops return, and leaves the backend as it was', async () => {
    const b = new FakeBackend();
    const step = async () => {
      b.matmulForward();
      b.attentionForward();
      expect(b.sample()).toBe(7); // the wrapped op's return value passes through
      spin(3); // the host's own time, between ops
      return { dense: 100, attention: 10 };
    };
    const s = await splitByOp(b as unknown as Backend, step, 2);
    expect(Object.keys(s.ops).sort()).toEqual(['attentionForward', 'matmulForward', 'sample']);
    expect(s.ops.matmulForward.calls).toBe(1); // a step's mean: the nested call inside attentionForward is not counted
    expect(s.ops.attentionForward.calls).toBe(1);
    expect(s.ops.matmulForward.ms).toBeGreaterThanOrEqual(4);
    expect(s.ops.attentionForward.ms).toBeGreaterThanOrEqual(6); // its own 2 ms and the nested 4
    expect(s.stepMs).toBeGreaterThanOrEqual(4 + 6 + 3);
    expect(s.flops).toEqual({ dense: 100, attention: 10, decode: { dense: 0, attention: 0 } });
    expect(Object.getOwnPropertyNames(b)).toEqual(['calls']); // no wrapper left on the instance
    expect(b.calls.filter((c) => c === 'matmulForward')).toHaveLength(4); // 2 steps x (1 direct + 1 nested): the ops ran
  });
  it('an op that throws is still counted and unwrapped', async () => {
    const b = new FakeBackend();
    (FakeBackend.prototype as unknown as { boom: () => void }).boom = () => { throw new Error('boom'); };
    await expect(splitByOp(b as unknown as Backend, async () => { (b as unknown as { boom: () => void }).boom(); return { dense: 0, attention: 0 }; }, 1)).rejects.toThrow('boom');
    expect(Object.getOwnPropertyNames(b)).toEqual(['calls']);
    delete (FakeBackend.prototype as unknown as { boom?: unknown }).boom;
  });
});

describe('opShares: the step by part, by hand', () => {
  // a 100 ms step: matmuls 60 ms (two ops), attention 10, a layer norm 5, AdamW 4, 21 ms of host between ops
  const s: OpSplit = {
    stepMs: 100,
    ops: { layernormMatmulForward: { ms: 40, calls: 10 }, matmulBackward: { ms: 20, calls: 4 }, attentionForward: { ms: 10, calls: 2 }, layernormBackward: { ms: 5, calls: 2 }, clipAdamw: { ms: 4, calls: 1 } },
    flops: { dense: 3e9, attention: 0.2e9 },
  };
  it('each part\'s time and share; GFLOP/s over threads x the core\'s limit for the parts that count FLOPs', () => {
    const rows = Object.fromEntries(opShares(s, 50, 2).map((r) => [r.part, r]));
    expect(Object.keys(rows)).toEqual(['matmuls', 'attention', 'layer norms', 'optimizer', 'host, between ops', 'whole step']);
    expect(rows.matmuls.ms).toBe(60);
    expect(rows.matmuls.gflops).toBeCloseTo(50, 9); // 3 GFLOP in 60 ms
    expect(rows.matmuls.ofLimit).toBeCloseTo(0.5, 9); // of 50 x 2
    expect(rows.attention.gflops).toBeCloseTo(20, 9); // 0.2 GFLOP in 10 ms
    expect(rows['layer norms'].gflop).toBe(0);
    expect(rows['host, between ops'].ms).toBe(21); // 100 - 79
    expect(rows['whole step'].gflops).toBeCloseTo(32, 9); // 3.2 GFLOP in 100 ms
    expect(rows['whole step'].ofLimit).toBeCloseTo(0.32, 9);
    expect(Object.values(rows).filter((r) => r.part !== 'whole step').reduce((a, r) => a + r.ofStep, 0)).toBeCloseTo(1, 12);
  });
  it('a decode step run as one op (decodeSample) is its own part, with the decode steps\' FLOPs taken from the matmuls\' and attention\'s', () => {
    // the same step with 20 of the matmuls' ms and 4 of attention's in 12 decodeSample calls; of the FLOPs, 0.8e9 dense and 0.05e9 attention are theirs
    const fused: OpSplit = { ...s, ops: { ...s.ops, layernormMatmulForward: { ms: 20, calls: 4 }, attentionForward: { ms: 6, calls: 1 }, decodeSample: { ms: 24, calls: 12 } },
      flops: { ...s.flops, decode: { dense: 0.8e9, attention: 0.05e9 } } };
    const rows = Object.fromEntries(opShares(fused, 50, 2).map((r) => [r.part, r]));
    expect(Object.keys(rows)).toEqual(['matmuls', 'attention', 'decode steps', 'layer norms', 'optimizer', 'host, between ops', 'whole step']);
    expect(rows.matmuls.gflop).toBeCloseTo(2.2, 9); // 3 - 0.8
    expect(rows.attention.gflop).toBeCloseTo(0.15, 9);
    expect(rows['decode steps'].ms).toBe(24);
    expect(rows['decode steps'].gflops).toBeCloseTo(0.85e9 / 24 / 1e6, 9);
    expect(rows['whole step'].gflop).toBeCloseTo(3.2, 9);
    // where no decodeSample ran (the per-op path), the decode FLOPs stay with the matmuls and attention
    // (the model asks decodeSampleFused which path to take, and that question is timed too: it is no decode step)
    const asked = { ...s.ops, decodeSampleFused: { ms: 0.003, calls: 4 } };
    const perOp = Object.fromEntries(opShares({ ...s, ops: asked, flops: fused.flops }, 50, 2).map((r) => [r.part, r]));
    expect([perOp.matmuls.gflop, perOp.attention.gflop, 'decode steps' in perOp]).toEqual([3, 0.2, false]);
  });
  it('names the part of each op; one it does not know is "other ops"', () => {
    expect(['matmulGeluBackward', 'attentionDecode', 'geluBackward', 'decodeSampleFused', 'policyLoss', 'sumSquares', 'copyRows', 'sync', 'somethingNew'].map(partOf))
      .toEqual(['matmuls', 'attention', 'GELU', 'other ops', 'loss and RL ops', 'optimizer', 'embeddings and copies', 'other ops', 'other ops']);
  });
});
