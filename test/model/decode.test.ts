// KV-cache decoding on the CPU reference: a decode step gives the same logits as
// the full forward's row, bit for bit, and generation with the cache draws the
// same tokens and log-probs as re-running the whole prefix (the path before it).
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import type { GPTConfig } from '../../src/model/params';
import { decodeVsForward, generateBoth, sharpModel } from './decodeCases';

const CFGS: GPTConfig[] = [
  { nLayer: 2, nHead: 3, nEmbd: 12, blockSize: 20, vocabSize: 11 },
  { nLayer: 1, nHead: 2, nEmbd: 10, blockSize: 9, vocabSize: 7 }, // head size 5
];

describe('KV-cache decoding (CPU reference)', () => {
  it('a prefill and a decode step equal the full forward\'s rows, bit for bit (pos 1 and pos Tp + 1 included)', async () => {
    for (const [i, cfg] of CFGS.entries()) {
      const { got, want, pre, preWant } = await decodeVsForward(new CpuBackend(), cfg, 6, cfg.blockSize - 1, 11 + i);
      expect(Array.from(got)).toEqual(Array.from(want));
      expect(Array.from(pre)).toEqual(Array.from(preWant));
    }
  });

  it('decode without a prefill of that shape first is refused', () => {
    const b = new CpuBackend(), cfg = CFGS[0], model = sharpModel(b, cfg, 1);
    const pos = b.alloc(2, 'i32');
    b.write(pos, [4, 2]);
    model.prefill(new Int32Array(2 * 4), 2, 4, 5, pos);
    expect(() => model.decode(b.alloc(3 * 5, 'i32'), b.alloc(3, 'i32'), 3, 5)).toThrow(/needs a prefill of that shape/);
  });

  for (const temperature of [1, 0.7, 0]) {
    it(`generation with the cache draws the same tokens and log-probs as the full prefix (temperature ${temperature})`, async () => {
      for (const [i, cfg] of CFGS.entries()) {
        const { cached, plain, maxNew } = await generateBoth(new CpuBackend(), cfg, temperature, 3 + i);
        expect(cached.tokens).toEqual(plain.tokens);
        expect(cached.logp).toEqual(plain.logp);
        // several tokens per sequence, so later tokens really came from decode steps
        expect(plain.tokens.filter((t, j) => t.length > 2 && t.length <= maxNew[j]).length).toBeGreaterThan(1);
      }
    });
  }
});
