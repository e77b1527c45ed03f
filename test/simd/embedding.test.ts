// Twin tests of the wasm embeddings (shaders/simd/embedding.ts) against the reference: forward,
// backward (repeated tokens accumulate in order: the same numbers exactly) and the decode step's
// last-token embedding, alone and with members; tokens and positions out of range refused.
import { describe, expect, it } from 'vitest';
import { membersOf, type Backend } from '../../src/backend';
import { randn, twin, wasm } from './twin';

const EXACT = { rtol: 0, atol: 0 };
const tokensFor = (n: number, V: number) => Int32Array.from({ length: n }, (_, i) => (i * 5 + (i >> 2)) % V);

describe('wasm embeddings vs reference', () => {
  for (const [N, T, C, V] of [[1, 1, 1, 1], [7, 3, 5, 4], [24, 8, 64, 32], [10, 10, 13, 3]]) {
    it(`N ${N} T ${T} C ${C} V ${V}: forward, backward (accumulating), last`, async () => {
      const inputs = { out: randn(N * C, 1), tok: tokensFor(N, V), wte: randn(V * C, 2), wpe: randn(T * C, 3), dwte: randn(V * C, 4), dwpe: randn(T * C, 5),
        dout: randn(N * C, 6) };
      await twin(inputs, (b, t) => b.embeddingForward(t.out, t.tok, t.wte, t.wpe, N, T, C), ['out'], EXACT);
      await twin(inputs, (b, t) => b.embeddingBackward(t.dwte, t.dwpe, t.dout, t.tok, N, T, C, V), ['dwte', 'dwpe'], EXACT);
      const B = 3, pos = Int32Array.from({ length: B }, (_, b) => 1 + ((b * 2) % T));
      await twin({ out: randn(B * C, 7), tok: tokensFor(B * T, V), pos, wte: inputs.wte, wpe: inputs.wpe },
        (b, t) => b.embeddingLast(t.out, t.tok, t.pos, t.wte, t.wpe, B, T, C), ['out'], EXACT);
    });
  }
  for (const stride of [undefined, 300]) {
    it(`members K 3 (an empty one), ${stride ? `paramStride ${stride}` : 'packed'}`, async () => {
      const N = 9, T = 4, C = 6, V = 5, K = 3, rowStart = Int32Array.from([0, 5, 5, 9]);
      const es = stride ?? V * C, ps = stride ?? T * C;
      const ms = (b: Backend, rs: Int32Array) => { const t = b.alloc(rs.length, 'i32'); b.write(t, rs); return membersOf(t, rs, stride); };
      const inputs = { out: randn(N * C, 1), tok: tokensFor(N, V), wte: randn((K - 1) * es + V * C, 2), wpe: randn((K - 1) * ps + T * C, 3),
        dout: randn(N * C, 4) };
      if (stride === undefined) { inputs.wpe = randn(K * T * C, 3); }
      await twin(inputs, (b, t) => b.embeddingForward(t.out, t.tok, t.wte, t.wpe, N, T, C, ms(b, rowStart)), ['out'], EXACT);
      await twin(inputs, (b, t) => b.embeddingBackward(t.wte, t.wpe, t.dout, t.tok, N, T, C, V, ms(b, rowStart)), ['wte', 'wpe'], EXACT);
      const seqStart = Int32Array.from([0, 2, 2, 3]), pos = Int32Array.from([1, 4, 2]);
      await twin({ out: randn(3 * C, 5), tok: tokensFor(3 * T, V), pos, wte: inputs.wte, wpe: inputs.wpe },
        (b, t) => b.embeddingLast(t.out, t.tok, t.pos, t.wte, t.wpe, 3, T, C, ms(b, seqStart)), ['out'], EXACT);
    });
  }
  it('a token outside the vocabulary and a position outside 1..T are refused', () => {
    const tok = wasm.alloc(2, 'i32'), wte = wasm.alloc(3 * 4), wpe = wasm.alloc(2 * 4);
    wasm.write(tok, [1, 3]);
    expect(() => wasm.embeddingForward(wasm.alloc(8), tok, wte, wpe, 2, 2, 4)).toThrow(/token 3 at 1 is outside the vocabulary \[0, 3\)/);
    const pos = wasm.alloc(1, 'i32');
    wasm.write(pos, [3]);
    expect(() => wasm.embeddingLast(wasm.alloc(4), tok, pos, wte, wpe, 1, 2, 4)).toThrow(/pos\[0\] = 3 outside 1..2/);
  });
});
