// Trainer.snapshot()/restore(): what the worker's lost-device resume point carries,
// and (with { optimizer: true }) what a page reload's Resume continues from.
// A restored Trainer holds the same weights (bit for bit) and counters, and steps
// as the original does. Without the optimizer a restored Trainer's AdamW starts
// fresh, so those comparisons start where the original's is fresh too; with it,
// a Trainer restored mid-run steps bit for bit as its uninterrupted twin.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { createRelay, type RelayState, type RelayTask } from '../../src/envs/relay';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Trainer } from '../../src/rl/trainer';
import { type StepMetrics } from '../../src/rl/runRecord';

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

  it('with the optimizer, a Trainer restored mid-run steps bit for bit as the uninterrupted one (dual lambda too)', async () => {
    const a = make({ lambdaMode: 'budget', budget: 1, dualEta: 0.05 });
    await a.step();
    await a.evaluate();
    await a.step();
    // through structuredClone, as IndexedDB stores it
    const snap = structuredClone(await a.snapshot({ optimizer: true }));
    expect(snap.optimizer!.step).toBe(4); // 2 steps x 2 minibatches, one AdamW update each
    expect(snap.optimizer!.m.length).toBe(a.model.numParams);
    expect(snap.optimizer!.v.some((x) => x > 0)).toBe(true);
    expect(snap.lambdaTok).not.toBe(a.config.lambdaTok); // the dual update moved it

    const b = make({ seed: 7, lr: 0.05 }); // built otherwise: restore replaces config, weights, moments, counters
    b.restore(snap);
    for (let i = 0; i < 2; i++) {
      const [ma, mb] = [await a.step(), await b.step()];
      expect(mb.step).toBe(2 + i);
      expect(untimed(mb)).toEqual(untimed(ma));
      expect(bytes(await b.readWeights('last'))).toEqual(bytes(await a.readWeights('last')));
    }
    expect(b.lambdaTok).toBe(a.lambdaTok);
    const [sa, sb] = [await a.snapshot({ optimizer: true }), await b.snapshot({ optimizer: true })];
    expect(sb.optimizer!.step).toBe(8);
    expect(bytes(sb.optimizer!.m)).toEqual(bytes(sa.optimizer!.m));
    expect(bytes(sb.optimizer!.v)).toEqual(bytes(sa.optimizer!.v));
  });

  it('without the optimizer the step after restore differs from the uninterrupted one (the moments matter)', async () => {
    const a = make();
    await a.step();
    await a.step();
    const plain = await a.snapshot();
    expect(plain.optimizer).toBeUndefined();
    const b = make();
    b.restore(plain);
    await Promise.all([a.step(), b.step()]);
    expect(bytes(await b.readWeights('last'))).not.toEqual(bytes(await a.readWeights('last')));
    expect((await b.snapshot({ optimizer: true })).optimizer!.step).toBe(2); // a fresh AdamW: 1 step x 2 updates
  });

  it('with beta > 0 the KL reference (the weights RL started from) goes with the optimizer', async () => {
    const a = make({ beta: 0.5 });
    const start = await a.readWeights('last');
    await a.step();
    const snap = await a.snapshot({ optimizer: true });
    expect(bytes(snap.reference!)).toEqual(bytes(start));
    const b = make({ seed: 5 });
    b.restore(snap);
    const [ma, mb] = [await a.step(), await b.step()];
    expect(untimed(mb)).toEqual(untimed(ma));
    expect(mb.kl).not.toBe(0);
    expect(bytes(await b.readWeights('last'))).toEqual(bytes(await a.readWeights('last')));
  });

  it('an optimizer state of another size is refused before anything changes', async () => {
    const a = make();
    await a.step();
    const snap = await a.snapshot({ optimizer: true });
    const b = make({ seed: 9 });
    const before = bytes(await b.readWeights('last')).slice();
    expect(() => b.restore({ ...snap, optimizer: { ...snap.optimizer!, v: new Float32Array(3) } }))
      .toThrow(`optimizer state: m has ${a.model.numParams} and v 3 values; this model has ${a.model.numParams} parameters`);
    expect(bytes(await b.readWeights('last'))).toEqual(before);
    expect(b.stepCount).toBe(0);
  });
});
