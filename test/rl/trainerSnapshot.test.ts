// Trainer.snapshot()/restore(): what the worker's lost-device resume point carries.
// A restored Trainer holds the same weights (bit for bit) and counters, and steps
// as the original does (the optimizer's moments are not in a snapshot, so the
// step-for-step comparison starts where the original's optimizer is fresh too).
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { createRelay, type RelayState, type RelayTask } from '../../src/envs/relay';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Trainer, type StepMetrics } from '../../src/rl/trainer';

const TINY = { promptsPerStep: 2, groupSize: 3, minibatches: 2, evalEpisodes: 8, nLayer: 1, nHead: 2, nEmbd: 16 };
const make = (extra: Record<string, unknown> = {}) =>
  new Trainer<RelayTask, RelayState>(new CpuBackend(), createRelay({}), validateConfig({ ...TINY, ...extra }));
const bytes = (w: Float32Array) => new Uint8Array(w.buffer, w.byteOffset, w.byteLength);
/** A step's metrics without its wall-clock figures. */
const untimed = ({ step_time_ms: _a, tokens_per_s: _b, ...m }: StepMetrics) => m;

describe('Trainer snapshot/restore', () => {
  it('restore(snapshot()) round-trips weights bit for bit and every counter', async () => {
    const a = make({ lambdaMode: 'budget' });
    await a.step();
    await a.evaluate();
    await a.step();
    a.flags.push({ kind: 'nonfinite-update', step: 1, message: 'test flag' });
    a.skippedUpdates = 2;
    const snap = await a.snapshot();
    expect(snap.step).toBe(2);

    const b = make({ seed: 99, lr: 0.05 }); // other weights and config: restore replaces them
    b.restore(snap);
    expect(bytes(await b.readWeights('last'))).toEqual(bytes(await a.readWeights('last')));
    expect(b.stepCount).toBe(a.stepCount);
    expect(b.config).toEqual(a.config);
    expect(b.lambdaTok).toBe(a.lambdaTok);
    expect(b.evals).toEqual(a.evals);
    expect(b.bestEval).toBe(b.evals[0]); // one of its own evals, not the snapshot's copy
    expect(b.flags).toEqual(a.flags);
    expect(b.skippedUpdates).toBe(2);
    const again = await b.snapshot();
    expect({ ...again, weights: bytes(again.weights) }).toEqual({ ...snap, weights: bytes(snap.weights) });

    // the snapshot is a copy: changing it later changes neither Trainer
    snap.evals[0].accuracy = -1;
    snap.flags.length = 0;
    snap.weights.fill(0);
    expect(b.evals[0].accuracy).toBe(a.evals[0].accuracy);
    expect(b.flags).toHaveLength(1);
    expect(bytes(await b.readWeights('last'))).toEqual(bytes(await a.readWeights('last')));
  });

  it('a step after restore equals the original\'s step (same seed, CPU backend)', async () => {
    const a = make();
    await a.evaluate();
    const b = make({ seed: 7 });
    b.restore(await a.snapshot());
    const [ma, mb] = [await a.step(), await b.step()];
    expect(untimed(mb)).toEqual(untimed(ma));
    expect(bytes(await b.readWeights('last'))).toEqual(bytes(await a.readWeights('last')));

    // later in a run: two Trainers built differently, restored from one snapshot, step alike
    await a.step();
    const snap = await a.snapshot();
    const c = make({ seed: 3 }), d = make({ seed: 11 });
    c.restore(snap);
    d.restore(snap);
    const [mc, md] = [await c.step(), await d.step()];
    expect(mc.step).toBe(2);
    expect(untimed(md)).toEqual(untimed(mc));
    expect(bytes(await d.readWeights('last'))).toEqual(bytes(await c.readWeights('last')));
  });

  it('restore refuses a snapshot of another model size', async () => {
    const snap = await make({ nEmbd: 32 }).snapshot();
    expect(() => make().restore(snap)).toThrow(/weights/);
  });
});
