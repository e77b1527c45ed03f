// The WGSL of a population's row ops against the CPU reference (whose members equal their lone
// calls: test/reference/populationRows.test.ts): clipLoss with perSequenceNorm, every aggregation,
// and sample with rowRng, token for token.
import { describe, expect, it } from 'vitest';
import { LOSS_IDS } from '../../src/contract/losses';
import type { Backend } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { divisors, lossCase } from '../reference/populationRowsCase';
import { noGpu, theGpu } from './device';
import { parity } from './parity';
import { Rng } from './random';

describe.skipIf(noGpu)('a population\'s row ops on WebGPU vs the CPU reference', () => {
  for (const algorithm of LOSS_IDS) {
    it(`clipLoss with perSequenceNorm: ${algorithm}`, async () => {
      const c = lossCase(12), seqAdv = new Float32Array(2 * c.S);
      seqAdv.set(c.seqAdv);
      seqAdv.set(divisors(c, algorithm, 9), c.S);
      const r = new Rng(3);
      await parity(theGpu(), {
        logp: c.logp, mask: c.mask, refLogp: c.refLogp, ratio: c.ratio, tokRatio: c.tokRatio, seqAdv,
        lossSeq: r.normal(c.S), klSeq: r.normal(c.S), clipSeq: r.normal(c.S), dlogp: r.normal(c.S * c.T),
      }, (b, t) => b.clipLoss(t.lossSeq, t.klSeq, t.clipSeq, t.dlogp, t.logp, t.ratio, t.tokRatio, t.seqAdv, t.mask, t.refLogp, c.S, c.T,
        { algorithm, epsLow: 0.2, epsHigh: 0.28, beta: 0.1, delta: 1.5, norm: 1, perSequenceNorm: true }), ['lossSeq', 'klSeq', 'clipSeq', 'dlogp']);
    });
  }

  it('sample with rowRng: the CPU reference\'s tokens', async () => {
    const B = 29, T = 6, V = 9, r = new Rng(8);
    const logits = r.normal(B * T * V, 2);
    const rowRng = Int32Array.from({ length: 2 * B }, (_, i) => (i % 2 === 0 ? (i < B ? 3 : 2 ** 31 - 1) : Math.floor(i / 2) % 7));
    const run = async (b: Backend) => {
      const t = { tokens: b.alloc(B * T, 'i32'), logp: b.alloc(B * T), pos: b.alloc(B, 'i32'), done: b.alloc(B, 'i32'), limit: b.alloc(B, 'i32'),
        logits: b.alloc(B * T * V), rowRng: b.alloc(2 * B, 'i32') };
      b.write(t.logits, logits); b.write(t.pos, new Int32Array(B).fill(1)); b.write(t.limit, new Int32Array(B).fill(T)); b.write(t.rowRng, rowRng);
      for (let step = 0; step < T - 1; step++) b.sample(t.tokens, t.logp, t.pos, t.done, t.limit, t.logits, B, T, V, 0.8, 0, 999, step, T, t.rowRng);
      b.submit();
      return { tokens: Array.from(await b.read(t.tokens)), logp: Array.from(await b.read(t.logp)) };
    };
    const want = await run(new CpuBackend()), got = await run(theGpu());
    expect(got.tokens).toEqual(want.tokens);
    for (let i = 0; i < B * T; i++) expect(Math.abs(got.logp[i] - want.logp[i])).toBeLessThan(1e-4);
  });
});
