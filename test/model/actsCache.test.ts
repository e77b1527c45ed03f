// The model's activation cache (gpt.ts KEEP_ACTS): on the CPU engines it keeps the sets of the 8 shapes used
// last and frees older ones, so a run whose shapes drift does not hold a set for every shape it has seen; a shape
// freed and used again gives the same logits. The sets kept also hold at most CACHE_FLOATS.acts floats (the largest
// model's are hundreds of MiB each), counted by hand below.
import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_FLOATS, GPT } from '../../src/model/gpt';
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

  const budget = { ...CACHE_FLOATS };
  afterEach(() => Object.assign(CACHE_FLOATS, budget));
  it('within the floats budget: older sets go to make room, the last forward\'s never', async () => {
    // a set of B = 2 sequences of T (gpt.ts activations, C 16, NH 2, V 11, one layer): the model's tensors
    // BT (3 + 2V + 15C) + B NH T^2, the layer's BT (16C + 4) + B NH T^2: 1050 T + 8 T^2
    const floats = (T: number) => 1050 * T + 8 * T * T;
    CACHE_FLOATS.acts = floats(3) + floats(4) + floats(5) - 1; // three sets do not fit, two do
    const b = new WasmBackend();
    const model = new GPT(b, cfg, new Rng(5).normal(paramSpecs(cfg).total, 0.3));
    let freed = 0;
    const free = b.free.bind(b);
    b.free = (t: Tensor) => { freed++; free(t); };
    const tokens = (B: number, T: number) => Array.from({ length: B * T }, (_, i) => (i * 5 + 1) % cfg.vocabSize);
    const run = async (T: number) => Array.from(await b.read(model.forward(tokens(2, T), 2, T, undefined, undefined, false)));
    const first = await run(3);
    await run(4);
    expect(freed).toBe(0);
    const live = b.memoryUse.live;
    await run(5); // 3, 4 and 5 pass the budget by one float: 3's set goes
    expect(freed).toBe(PER_SET);
    expect(b.memoryUse.live - live).toBeLessThan(4 * floats(5) - 4 * floats(3) + 64 * 2 * PER_SET); // 5's in, 3's out (64-byte blocks)
    await run(6); // 4, 5, 6: 4 goes; 5 and 6 fit
    expect(freed).toBe(2 * PER_SET);
    CACHE_FLOATS.acts = 1; // no set fits: every set but the last forward's (6) goes, so 5
    await run(7);
    expect(freed).toBe(3 * PER_SET);
    expect(await run(3)).toEqual(first); // made again, the same logits; 6 goes, 7 (the last forward's then) stays
    expect(freed).toBe(4 * PER_SET);
  });
});
