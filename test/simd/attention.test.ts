// Twin tests of the wasm attention kernels (shaders/simd/attention.ts) against the reference
// (src/reference/attention.ts); and a decode step equal to the wasm forward's row, bit for bit.
import { describe, expect, it } from 'vitest';
import { randn, twin, wasm } from './twin';

// [B, T, C, NH]: head sizes 1, 4, 5, 12, 16, 48 reach every strip and tail of the kernels
const SHAPES: [number, number, number, number][] = [[1, 1, 4, 4], [2, 5, 12, 3], [3, 11, 20, 4], [2, 7, 24, 2], [2, 48, 64, 4], [1, 9, 96, 2]];
const TOL = { rtol: 1e-5, atol: 2e-6 };

describe('wasm attention vs reference', () => {
  for (const [B, T, C, NH] of SHAPES) {
    it(`B${B} T${T} C${C} NH${NH}: forward (out, att) and backward (dqkv accumulated, dpreatt)`, async () => {
      const BT = B * T, A = B * NH * T * T;
      const qkv = randn(BT * 3 * C, 1, 1.5);
      await twin({ out: randn(BT * C, 2), att: randn(A, 3), qkv }, (b, t) => b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH), ['out', 'att'], TOL);
      const inputs = { out: new Float32Array(BT * C), att: new Float32Array(A), qkv, dqkv: randn(BT * 3 * C, 4), dpre: randn(A, 5), dout: randn(BT * C, 6) };
      await twin(inputs, (b, t) => {
        b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH);
        b.attentionBackward(t.dqkv, t.dpre, t.dout, t.qkv, t.att, B, T, C, NH);
      }, ['dqkv', 'dpre'], TOL);
    });
  }
});

describe('wasm attention decode', () => {
  for (const [B, T, C, NH] of [[3, 9, 12, 3], [2, 48, 64, 4], [2, 6, 20, 4]] as [number, number, number, number][]) {
    it(`B${B} T${T} C${C} NH${NH}: the reference's numbers, and the wasm forward's row t bit for bit`, async () => {
      const C3 = 3 * C, qkvFull = randn(B * T * C3, 7, 1.5);
      const pos = Int32Array.from({ length: B }, (_, b) => 1 + ((b * 5 + 3) % T));
      // the cache holds rows < t of the full qkv; row t comes as qkvNew; rows above are noise the step must not read
      const cache = randn(B * T * C3, 8), fresh = new Float32Array(B * C3);
      for (let b = 0; b < B; b++) {
        const t = pos[b] - 1;
        cache.set(qkvFull.subarray(b * T * C3, (b * T + t) * C3), b * T * C3);
        fresh.set(qkvFull.subarray((b * T + t) * C3, (b * T + t + 1) * C3), b * C3);
      }
      const { got } = await twin({ out: randn(B * C, 9), cache, fresh, pos }, (b, t) => b.attentionDecode(t.out, t.cache, t.fresh, t.pos, B, T, C, NH),
        ['out', 'cache'], TOL);
      const q = wasm.alloc(qkvFull.length), out = wasm.alloc(B * T * C), att = wasm.alloc(B * NH * T * T);
      wasm.write(q, qkvFull);
      wasm.attentionForward(out, att, q, B, T, C, NH);
      const full = await wasm.read(out);
      for (let b = 0; b < B; b++) {
        const t = pos[b] - 1;
        expect(Array.from(got.out.subarray(b * C, (b + 1) * C)), `sequence ${b}`).toEqual(Array.from(full.subarray((b * T + t) * C, (b * T + t + 1) * C)));
      }
      [q, out, att].forEach((x) => wasm.free(x));
    });
  }
  it('a position outside 1..T is refused with the reference\'s message', () => {
    const pos = wasm.alloc(2, 'i32');
    wasm.write(pos, [1, 7]);
    expect(() => wasm.attentionDecode(wasm.alloc(2 * 8), wasm.alloc(2 * 6 * 24), wasm.alloc(2 * 24), pos, 2, 6, 8, 2)).toThrow(/pos\[1\] = 7 outside 1..6/);
    expect(() => wasm.attentionForward(wasm.alloc(8), wasm.alloc(8), wasm.alloc(24), 1, 1, 8, 3)).toThrow(/C = 8 does not split into NH = 3 heads/);
  });
});
