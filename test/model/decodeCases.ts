// Shared cases of the KV-cache tests (CPU in test/model/decode.test.ts, WebGPU in test/gpu/decode.test.ts).
import { expect } from 'vitest';
import type { Backend } from '../../src/backend';
import { GPT } from '../../src/model/gpt';
import { paramSpecs, type GPTConfig } from '../../src/model/params';
import { Generator } from '../../src/rl/rollout';
import { Rng } from '../gpu/random';

/** Weights larger than the init's, so logits are far from uniform and greedy choices are clear. */
export function sharpModel(b: Backend, cfg: GPTConfig, seed: number): GPT {
  return new GPT(b, cfg, new Rng(seed).normal(paramSpecs(cfg).total, 0.35));
}

export async function decodeVsForward(b: Backend, cfg: GPTConfig, B: number, T: number, seed: number) {
  const r = new Rng(seed), model = sharpModel(b, cfg, seed), V = cfg.vocabSize;
  // the prefill covers the first Tp = T - 3 rows; a decode step reads cache rows below pos - 1 <= Tp
  const Tp = T - 3, tokens = b.alloc(B * T, 'i32'), pos = b.alloc(B, 'i32'), host = r.ints(B * T, 0, V);
  const posHost = Int32Array.from({ length: B }, (_, i) => (i === 0 ? 1 : i === 1 ? Tp + 1 : 1 + Math.floor(r.uniformIn(1, 0, Tp + 1)[0])));
  b.write(tokens, host);
  b.write(pos, posHost);
  const full = Float64Array.from(await b.read(model.forward(tokens, B, T)));
  const prefix = new Int32Array(B * Tp);
  for (let i = 0; i < B; i++) prefix.set(host.subarray(i * T, i * T + Tp), i * Tp);
  // the prefill's contexts: lengths 1, Tp and between (its logits are those of each context's last row)
  const ctxHost = Int32Array.from({ length: B }, (_, i) => (i === 0 ? Tp : i === 1 ? 1 : 1 + Math.floor(r.uniformIn(1, 0, Tp)[0])));
  const ctx = b.alloc(B, 'i32');
  b.write(ctx, ctxHost);
  const pre = Float64Array.from(await b.read(model.prefill(prefix, B, Tp, T, ctx)));
  const dec = Float64Array.from(await b.read(model.decode(tokens, pos, B, T)));
  expect(full.some((x) => Math.abs(x) > 0.5)).toBe(true); // logits far from zero (a real model)
  const rowsAt = (at: Int32Array) => {
    const w = new Float64Array(B * V);
    for (let i = 0; i < B; i++) w.set(full.subarray((i * T + at[i] - 1) * V, (i * T + at[i]) * V), i * V);
    return w;
  };
  model.destroy();
  return { got: dec, want: rowsAt(posHost), pre: pre.subarray(0, B * V), preWant: rowsAt(ctxHost) };
}

export async function generateBoth(b: Backend, cfg: GPTConfig, temperature: number, seed: number) {
  const model = sharpModel(b, cfg, seed), r = new Rng(seed + 1);
  const contexts = Array.from({ length: 9 }, (_, i) => Array.from(r.ints(1 + (i * 5) % 7, 0, cfg.vocabSize)));
  const maxNew = contexts.map((_, i) => 1 + (i * 3) % 8);
  const run = (kv: boolean) => new Generator(b, model, kv).generate(contexts, maxNew, temperature, 2, 77, 5);
  const cached = await run(true), plain = await run(false);
  model.destroy();
  return { cached, plain, maxNew };
}
