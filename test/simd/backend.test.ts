// The engine's memory: one arena in wasm memory, views rebuilt after growth, freed blocks reused,
// no growth in steady state; and the ops still in the reference code agree with it on wasm memory.
import { describe, expect, it } from 'vitest';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { GPT } from '../../src/model/gpt';
import { AdamW } from '../../src/model/optimizer';
import { PolicyObjective, type ObjectiveConfig } from '../../src/rl/objective';
import { randomPolicyBatch } from '../../src/rl/randomBatch';
import { randn, twin } from './twin';

describe('WasmBackend memory', () => {
  it('alloc is zero-filled, write/read round-trip, views share memory at the 64-element rule', async () => {
    const b = new WasmBackend();
    const t = b.alloc(200);
    expect(Array.from(await b.read(t))).toEqual(new Array(200).fill(0));
    b.write(t, Float32Array.from({ length: 200 }, (_, i) => i));
    const v = b.view(t, 128, 10);
    expect(Array.from(await b.read(v))).toEqual([128, 129, 130, 131, 132, 133, 134, 135, 136, 137]);
    b.write(v, [-1], 2);
    expect((await b.read(t, 130, 1))[0]).toBe(-1);
    expect(() => b.view(t, 10, 4)).toThrow(/multiple of 64/);
    expect(() => b.view(t, 192, 20)).toThrow(/outside a tensor of 200/);
    const i = b.alloc(3, 'i32');
    b.write(i, [1, -2, 3]);
    expect(Array.from(await b.read(i))).toEqual([1, -2, 3]);
  });
  it('a tensor survives memory growth (its view is rebuilt), and a freed block is reused zero-filled', async () => {
    const b = new WasmBackend();
    const t = b.alloc(1000);
    b.write(t, randn(1000, 1));
    const before = b.memory.buffer;
    const big = b.alloc(8 * 1024 * 1024); // 32 MiB: grows the memory and detaches the old buffer
    expect(b.memory.buffer).not.toBe(before);
    expect(Array.from(await b.read(t))).toEqual(Array.from(randn(1000, 1)));
    b.free(big);
    const live = b.memoryUse.live, reserved = b.memoryUse.reserved;
    const again = b.alloc(8 * 1024 * 1024);
    expect(b.memoryUse.reserved).toBe(reserved); // reused, not grown
    expect(b.memoryUse.live).toBeGreaterThan(live);
    b.write(again, [5], 123);
    b.free(again);
    const third = b.alloc(8 * 1024 * 1024);
    expect((await b.read(third, 123, 1))[0]).toBe(0);
    await expect(b.read(again)).rejects.toThrow(/freed tensor/);
    expect(() => b.zero(again)).toThrow(/freed tensor/);
    const base = b.alloc(256), view = b.view(b.view(base, 64, 128), 64, 10);
    b.free(view); // a view owns nothing: freeing it changes nothing
    b.write(view, [1]);
    b.free(base);
    expect(() => b.write(view, [1])).toThrow(/a view of one/);
  });
  it('a freed block serves a smaller request up to half its size, zero-filled, and goes back to its own size', async () => {
    const b = new WasmBackend();
    const big = b.alloc(1024 * 1024); // 4 MiB
    b.write(big, [7], 1000);
    b.free(big);
    const reserved = b.memoryUse.reserved, live = b.memoryUse.live;
    const smaller = b.alloc(600 * 1024); // 2.34 MiB: within 2x of the freed 4 MiB block, so it takes it
    expect(b.memoryUse.reserved).toBe(reserved);
    expect(b.memoryUse.live).toBe(live + 4 * 1024 * 1024); // the whole block is held
    expect((await b.read(smaller, 1000, 1))[0]).toBe(0);
    b.free(smaller);
    const same = b.alloc(1024 * 1024); // the block went back as 4 MiB: the original size fits it again
    expect(b.memoryUse.reserved).toBe(reserved);
    b.free(same);
    const tiny = b.alloc(400 * 1024); // 1.56 MiB: past 2x, a fresh block
    expect(b.memoryUse.reserved).toBeGreaterThan(reserved);
    b.free(tiny);
  });
  it('at the budget, freed blocks that touch merge and a larger one is cut: a request fits that no single freed block holds', async () => {
    const M = 1024 * 1024, b = new WasmBackend({ maxBytes: 16 * M });
    const a = b.alloc(M), c = b.alloc(M), d = b.alloc(M); // 4 MiB each, one after another
    b.write(a, [3], 5);
    b.write(c, [4], 7);
    b.write(d, [9], 11);
    b.free(a);
    b.free(c);
    const reserved = b.memoryUse.reserved;
    // 7 MiB: neither freed 4 MiB block holds it, and growing would pass 16 MiB; the two touch, so merged they do
    const big = b.alloc(7 * M / 4);
    expect(b.memoryUse.reserved).toBe(reserved);
    expect((await b.read(big, 5, 1))[0]).toBe(0); // zero-filled
    expect((await b.read(big, 1024 * 1024 + 7, 1))[0]).toBe(0);
    expect((await b.read(d, 11, 1))[0]).toBe(9); // the live block is untouched
    const rest = b.alloc(M / 4); // the 1 MiB cut off serves the next request
    expect(b.memoryUse.reserved).toBe(reserved);
    expect(b.memoryUse.live).toBe(12 * M);
    // everything freed, the top block included: the merged space goes back to the top and a 12 MiB request fits
    b.free(big); b.free(rest); b.free(d);
    const all = b.alloc(3 * M);
    expect(b.memoryUse.reserved).toBe(reserved);
    expect((await b.read(all, 2 * M + 11, 1))[0]).toBe(0);
    expect(() => b.alloc(M)).toThrow(/do not fit the 16.0 MiB the engine may use \(12.0 MiB live\)/); // still a budget
  });
  it('tensors of another backend and memory beyond the budget get clear messages', () => {
    const b = new WasmBackend({ maxBytes: 4 * 1024 * 1024 }), other = new WasmBackend();
    expect(() => b.zero(other.alloc(4))).toThrow(/tensor of this backend/);
    expect(() => b.alloc(2 * 1024 * 1024)).toThrow(/do not fit the 4.0 MiB the engine may use/);
    expect(() => b.alloc(-1)).toThrow(/alloc of -1 elements/);
  });
  it('training steps allocate nothing once warm: the arena stops growing after the first step', async () => {
    const b = new WasmBackend();
    const model = new GPT(b, { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 12, vocabSize: 11 }, undefined, 3);
    const obj = new PolicyObjective(b), opt = new AdamW(b, model, { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, gradClip: 1 });
    const cfg: ObjectiveConfig = { algorithm: 'gspo', epsLow: 3e-4, epsHigh: 4e-4, beta: 0, advantage: 'group', temperature: 1 };
    const batch = randomPolicyBatch({ vocabSize: 11, S: 8, T: 11, groupSize: 4, maskFrom: 5, oldLogpNoise: 0.01, seed: 3 });
    const step = async () => { model.zeroGrad(); obj.record(model, batch, cfg); opt.measure(); opt.apply(); b.submit(); await obj.readStats(batch); };
    await step();
    const warm = b.memoryUse;
    for (let i = 0; i < 3; i++) await step();
    expect(b.memoryUse).toEqual(warm);
  });
});

describe('wasm GELU vs reference', () => {
  for (const n of [1, 3, 4, 17, 1000]) {
    it(`n ${n}: forward and backward (accumulating)`, async () => {
      const x = randn(n, 1, 6);
      x[0] = 400; // past the exp cap
      const tol = { rtol: 1e-6, atol: 1e-7 };
      await twin({ out: randn(n, 2), inp: x }, (b, t) => b.geluForward(t.out, t.inp, n), ['out'], tol);
      await twin({ dinp: randn(n, 3), inp: x, dout: randn(n, 4) }, (b, t) => b.geluBackward(t.dinp, t.inp, t.dout, n), ['dinp'], tol);
    });
  }
});
