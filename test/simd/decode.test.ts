// KV-cache decoding on the wasm engine, as test/model/decode.test.ts on the reference: a decode
// step gives the same logits as the full forward's row bit for bit (a row's numbers do not depend
// on the batch's rows, and attentionDecode is the forward's row), and generation with the cache
// draws the same tokens and log-probs as re-running the whole prefix.
import { describe, expect, it } from 'vitest';
import type { GPTConfig } from '../../src/model/params';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { decodeVsForward, generateBoth } from '../model/decodeCases';

const CFGS: GPTConfig[] = [
  { nLayer: 2, nHead: 3, nEmbd: 12, blockSize: 20, vocabSize: 11 },
  { nLayer: 1, nHead: 2, nEmbd: 10, blockSize: 9, vocabSize: 7 }, // head size 5: the kernels' scalar tails
  { nLayer: 2, nHead: 4, nEmbd: 64, blockSize: 24, vocabSize: 32 }, // the default width: the vector paths
];

describe('KV-cache decoding (wasm engine)', () => {
  it('a prefill and a decode step equal the full forward\'s rows, bit for bit', async () => {
    for (const [i, cfg] of CFGS.entries()) {
      const { got, want, pre, preWant } = await decodeVsForward(new WasmBackend(), cfg, 6, cfg.blockSize - 1, 11 + i);
      expect(Array.from(got)).toEqual(Array.from(want));
      expect(Array.from(pre)).toEqual(Array.from(preWant));
    }
  });
  for (const temperature of [1, 0]) {
    it(`generation with the cache draws the same tokens and log-probs as the full prefix (temperature ${temperature})`, async () => {
      for (const [i, cfg] of CFGS.entries()) {
        const { cached, plain } = await generateBoth(new WasmBackend(), cfg, temperature, 3 + i);
        expect(cached.tokens).toEqual(plain.tokens);
        expect(cached.logp).toEqual(plain.logp);
      }
    });
  }
});
