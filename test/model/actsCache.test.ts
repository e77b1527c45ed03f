// The model's activation cache (gpt.ts KEEP_ACTS): on the CPU engines it keeps the sets of the 8 shapes used
// last and frees older ones, so a run whose shapes drift does not hold a set for every shape it has seen; a shape
// freed and used again gives the same logits. Short of memory (the largest model's sets are hundreds of MiB each),
// older sets go before a new one is made.
import { describe, expect, it } from 'vitest';
import { GPT } from '../../src/model/gpt';
import { paramSpecs } from '../../src/model/params';
import { Rng } from '../gpu/random';
import { WasmBackend } from '../../src/simd/wasmBackend';
import type { Tensor } from '../../src/backend';

const cfg = { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 16, vocabSize: 11 };
/** Tensors one activation set holds (gpt.ts activations): 14 for the model, 13 per layer. */
const PER_SET = 14 + 13 * cfg.nLayer;

describe('the activation cache keeps the shapes used last', () => {
  it('12 shapes: the 4 oldest sets freed, whole; an evicted shape run again gives the logits it gave', async () => {
    const b = new WasmBackend();
    const model = new GPT(b, cfg, new Rng(5).normal(paramSpecs(cfg).total, 0.3));
    let freed = 0;
    const free = b.free.bind(b);
    b.free = (t: Tensor) => { freed++; free(t); };
    const tokens = (B: number, T: number) => Array.from({ length: B * T }, (_, i) => (i * 7 + 3) % cfg.vocabSize);
    const first = Array.from(await b.read(model.forward(tokens(2, 3), 2, 3, undefined, undefined, false)));
    for (let T = 4; T <= 10; T++) model.forward(tokens(2, T), 2, T, undefined, undefined, false); // 8 shapes: T 3..10
    expect(freed).toBe(0);
    model.forward(tokens(2, 11), 2, 11, undefined, undefined, false); // the 9th: T 3's set goes
    expect(freed).toBe(PER_SET);
    model.forward(tokens(2, 4), 2, 4, undefined, undefined, false); // kept: nothing freed, T 4 becomes the newest
    expect(freed).toBe(PER_SET);
    for (const T of [12, 13, 14]) model.forward(tokens(2, T), 2, T, undefined, undefined, false); // T 5, 6, 7 go (4 was used again)
    expect(freed).toBe(4 * PER_SET);
    const again = Array.from(await b.read(model.forward(tokens(2, 3), 2, 3, undefined, undefined, false)));
    expect(again).toEqual(first);
    expect(freed).toBe(5 * PER_SET); // T 8's set made room for T 3's
  });

  it('short of memory (Backend.memoryRoom), older sets go before a new one is made, the last forward\'s never', async () => {
    // 64 MiB: always short of a new set's size plus the 256 MiB kept free, so only the last forward's set stays
    const b = new WasmBackend({ maxBytes: 64 * 1024 * 1024 }), roomy = new WasmBackend();
    const model = new GPT(b, cfg, new Rng(5).normal(paramSpecs(cfg).total, 0.3));
    const twin = new GPT(roomy, cfg, new Rng(5).normal(paramSpecs(cfg).total, 0.3)); // keeps every set (the first test)
    let freed = 0;
    const free = b.free.bind(b);
    b.free = (t: Tensor) => { freed++; free(t); };
    const tokens = (B: number, T: number) => Array.from({ length: B * T }, (_, i) => (i * 5 + 1) % cfg.vocabSize);
    const run = async (m: GPT, T: number) => Array.from(await m.backend.read(m.forward(tokens(2, T), 2, T, undefined, undefined, false)));
    await run(model, 3);
    await run(model, 4); // 3's set is the last forward's: kept
    expect(freed).toBe(0);
    await run(model, 5); // 3's goes, 4's is the last forward's
    expect(freed).toBe(PER_SET);
    await run(model, 6);
    expect(freed).toBe(2 * PER_SET);
    for (const T of [3, 6, 4]) expect(await run(model, T), `T ${T}`).toEqual(await run(twin, T)); // made again: the same logits
    expect(freed).toBe(4 * PER_SET); // 5's made room for 3's; 6's was kept (the last forward's), so 3's for 4's
  });
});
