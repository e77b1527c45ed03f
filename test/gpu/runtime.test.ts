// The WebGPU runtime: memory semantics of the Backend interface, record order,
// and that a repeated step creates no GPU objects (pooled buffers, cached bind groups).
import { describe, expect, it } from 'vitest';
import type { Backend, Tensor } from '../../src/backend';
import { noGpu, theGpu } from './device';
import { expectClose } from './parity';
import { Rng } from './random';

describe.skipIf(noGpu)('WebGPU runtime', () => {
  it('alloc is zero-filled, also when a freed buffer is reused', async () => {
    const b = theGpu();
    const a = b.alloc(100);
    b.write(a, new Float32Array(100).fill(3));
    expect(Array.from(await b.read(a))).toEqual(new Array(100).fill(3));
    b.free(a);
    const again = b.alloc(90); // same size class: the freed buffer
    expect(Array.from(await b.read(again))).toEqual(new Array(90).fill(0));
    const ints = b.alloc(5, 'i32');
    b.write(ints, [1, -2, 3, 2147483647, -2147483648]);
    const back = await b.read(ints);
    expect(back).toBeInstanceOf(Int32Array);
    expect(Array.from(back)).toEqual([1, -2, 3, 2147483647, -2147483648]);
  });

  it('views: aligned windows sharing memory; misaligned offsets rejected', async () => {
    const b = theGpu();
    const base = b.alloc(256);
    const v = b.view(base, 128, 64);
    b.write(v, new Float32Array(64).fill(2), 0);
    b.write(base, [5], 0);
    const all = await b.read(base);
    expect(all[0]).toBe(5);
    expect(all[127]).toBe(0);
    expect(all[128]).toBe(2);
    expect(all[191]).toBe(2);
    expect(all[192]).toBe(0);
    expect(() => b.view(base, 10, 4)).toThrow(/multiple of 64/);
    expect(() => b.view(base, 192, 100)).toThrow(/outside/);
    // ops on views of one buffer (all bindings read_write, disjoint ranges)
    const x = b.view(base, 0, 64), y = b.view(base, 64, 64), out = b.view(base, 192, 64);
    b.write(x, new Float32Array(64).fill(1));
    b.write(y, new Float32Array(64).fill(10));
    b.residualForward(out, x, y, 64);
    b.copy(y, out);
    b.residualForward(x, x, y, 64); // in place: x += y
    const r = await b.read(base);
    expect(r[0]).toBe(12);
    expect(r[64]).toBe(11);
    expect(r[192]).toBe(11);
    expect(b.takeErrors()).toEqual([]);
  });

  it('a read-only input sharing a buffer with a written output is refused when recorded (WebGPU would reject the dispatch)', async () => {
    const b = theGpu();
    const base = b.alloc(256);
    const inp = b.view(base, 0, 64), out = b.view(base, 128, 64);
    // gelu_forward: binding 2 (inp) is read-only, binding 1 (out) written; disjoint ranges of one buffer still conflict
    expect(() => b.geluForward(out, inp, 64)).toThrow(/gelu:gelu_forward.*read-only binding 2 and written binding 1 are views of one buffer/);
    const other = b.alloc(64);
    b.write(inp, new Float32Array(64).fill(1));
    b.geluForward(other, inp, 64); // separate tensors: fine
    expect((await b.read(other))[0]).toBeCloseTo(0.8412, 3);
    expect(b.takeErrors()).toEqual([]);
  });

  it('write lands in record order: ops recorded before a write see the old data', async () => {
    const b = theGpu();
    const x = b.alloc(4), y = b.alloc(4), z = b.alloc(4);
    b.write(x, [1, 2, 3, 4]);
    b.copy(y, x);
    b.write(x, [10, 20, 30, 40]); // after the recorded copy
    b.copy(z, x);
    expect(Array.from(await b.read(y))).toEqual([1, 2, 3, 4]);
    expect(Array.from(await b.read(z))).toEqual([10, 20, 30, 40]);
    b.zero(x);
    expect(Array.from(await b.read(x))).toEqual([0, 0, 0, 0]);
  });

  it('reads issued together, and a submit() right after a read, share one submission; each still sees its own data', async () => {
    const b = theGpu();
    const x = b.alloc(4), y = b.alloc(4, 'i32'), z = b.alloc(4);
    b.write(x, [1, 2, 3, 4]);
    b.write(y, [5, 6, 7, 8]);
    await b.sync();
    let before = b.counters.submissions;
    b.copy(z, x);
    const [gx, gy] = await Promise.all([b.read(z), b.read(y)]);
    expect(Array.from(gx)).toEqual([1, 2, 3, 4]);
    expect(Array.from(gy)).toEqual([5, 6, 7, 8]);
    expect(b.counters.submissions - before).toBe(1);
    // the trainer's minibatch: record, issue the read, record more, then submit: the copy precedes what follows it
    before = b.counters.submissions;
    const z2x = b.alloc(4);
    b.write(z2x, [2, 4, 6, 8]);
    b.copy(z, z2x); // z = 2x
    const reading = b.read(z);
    b.residualForward(z, x, z2x, 4); // z = x + 2x, recorded after the copy
    b.submit();
    expect(Array.from(await reading)).toEqual([2, 4, 6, 8]);
    expect(Array.from(await b.read(z))).toEqual([3, 6, 9, 12]);
    expect(b.counters.submissions - before).toBe(2); // the submit (with the first copy), then the second read's
    expect(b.takeErrors()).toEqual([]);
  });

  it('a repeated step creates no buffers or bind groups and submits once', async () => {
    const b = theGpu();
    const r = new Rng(3);
    const [N, IC, OC] = [16, 24, 40];
    const t: Record<string, Tensor> = {};
    for (const [name, size] of [['inp', N * IC], ['w', OC * IC], ['bias', OC], ['out', N * OC], ['act', N * OC], ['dw', OC * IC],
      ['dinp', N * IC], ['db', OC], ['norm', 1], ['scale', 1], ['m', OC * IC], ['v', OC * IC], ['mask', OC * IC]] as const) {
      t[name] = b.alloc(size);
    }
    b.write(t.inp, r.normal(N * IC));
    b.write(t.w, r.normal(OC * IC));
    b.write(t.mask, new Float32Array(OC * IC).fill(1));
    const step = (bk: Backend, s: number) => {
      bk.zero(t.dw);
      bk.zero(t.dinp);
      bk.zero(t.db);
      bk.matmulForward(t.out, t.inp, t.w, t.bias, N, IC, OC);
      bk.geluForward(t.act, t.out, N * OC);
      bk.matmulBackward(t.dinp, t.dw, t.db, t.act, t.inp, t.w, N, IC, OC);
      bk.sumSquares(t.norm, t.dw, OC * IC);
      bk.clipScale(t.scale, t.norm, 1);
      bk.adamw(t.w, t.dw, t.m, t.v, t.mask, t.scale, OC * IC, { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, step: s });
      bk.submit();
    };
    step(b, 1);
    await b.sync();
    const before = b.counters;
    step(b, 2);
    await b.sync();
    const after = b.counters;
    expect(after.buffersCreated).toBe(before.buffersCreated);
    expect(after.bindGroupsCreated).toBe(before.bindGroupsCreated);
    expect(after.submissions - before.submissions).toBe(1);
    // forward, GELU, the Linear backward (dinp, dweight, dbias: one), sumSquares (one up to 2^18), clipScale, adamw
    expect(after.dispatches - before.dispatches).toBe(6);
    expect(b.takeErrors()).toEqual([]);
  });

  it('many dispatches in one step (more than the uniform arena holds) still run in order', async () => {
    const b = theGpu();
    const acc = b.alloc(3), one = b.alloc(3);
    b.write(one, [1, 2, 3]);
    for (let i = 0; i < 5000; i++) b.accumulate(acc, one, 3);
    expectClose('acc', await b.read(acc), [5000, 10000, 15000]);
  });
});
