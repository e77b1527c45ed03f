// A test helper: K members of one GPT shape as one population model (src/model/gpt.ts with
// K weight vectors: flat parameter vectors side by side, member ops on one batch, member
// k's sequences after member k-1's), and the oracle: each member a GPT of its own.
import type { Backend } from '../../src/backend';
import { GPT } from '../../src/model/gpt';
import { paramSpecs, type GPTConfig } from '../../src/model/params';

export interface ModelRun {
  logits: Float64Array; // [rows, V], member-major
  grads: Float64Array; // [K, numParams]
}

/**
 * Forward over tokens [sum(B) * T] (member-major), then backward from dlogits [sum(B) * T, V],
 * with member k's weights weights[k] and B[k] sequences, through one population GPT.
 */
export async function stackedForwardBackward(b: Backend, config: GPTConfig, weights: Float32Array[], B: number[], T: number,
  tokens: Int32Array, dlogitsHost: Float32Array): Promise<ModelRun> {
  const gpt = new GPT(b, config, weights);
  gpt.zeroGrad();
  const Bsum = B.reduce((s, x) => s + x, 0);
  const logits = Float64Array.from(await b.read(gpt.forward(tokens, Bsum, T, undefined, B)));
  b.write(gpt.dlogits(), dlogitsHost);
  gpt.backward();
  const grads = Float64Array.from(await b.read(gpt.grads));
  gpt.destroy();
  return { logits, grads };
}

/** The oracle: each member a GPT of its own (src/model/gpt.ts), forward and backward alone on its sequences. */
export async function loneForwardBackward(b: Backend, config: GPTConfig, weights: Float32Array[], B: number[], T: number,
  tokens: Int32Array, dlogitsHost: Float32Array): Promise<ModelRun> {
  const { total } = paramSpecs(config), V = config.vocabSize;
  const rows = B.reduce((s, x) => s + x, 0) * T;
  const logits = new Float64Array(rows * V), grads = new Float64Array(weights.length * total);
  let row = 0;
  for (let k = 0; k < weights.length; k++) {
    const n = B[k] * T;
    if (n === 0) continue; // no sequences: no logits, and its gradient stays zero
    const gpt = new GPT(b, config, weights[k]);
    gpt.zeroGrad();
    const out = await b.read(gpt.forward(tokens.subarray(row, row + n), B[k], T));
    logits.set(out, row * V);
    b.write(gpt.dlogits(), dlogitsHost.subarray(row * V, (row + n) * V));
    gpt.backward();
    grads.set(await b.read(gpt.grads), k * total);
    gpt.destroy();
    row += n;
  }
  return { logits, grads };
}

/**
 * A prefill of the first Tp positions then one decode step at positions pos (one per sequence) through the population
 * GPT, and the same per member through lone GPTs: the prefill's logits (each context's last row, a context min(pos, Tp)
 * long) then the decode step's, [2 sum(B), V], member-major in each.
 */
export async function decodeBoth(b: Backend, config: GPTConfig, weights: Float32Array[], B: number[], T: number, Tp: number,
  tokens: Int32Array, pos: Int32Array): Promise<{ stacked: Float64Array; lone: Float64Array }> {
  const Bsum = B.reduce((s, x) => s + x, 0), V = config.vocabSize;
  const run = async (gpt: GPT, from: number, n: number, seqs?: number[]) => {
    const tok = b.alloc(n * T, 'i32'), p = b.alloc(n, 'i32'), ctx = b.alloc(n, 'i32'), prefix = new Int32Array(n * Tp);
    b.write(tok, tokens.subarray(from * T, (from + n) * T));
    b.write(p, pos.subarray(from, from + n));
    b.write(ctx, pos.subarray(from, from + n).map((x) => Math.min(x, Tp))); // the contexts' lengths, 1..Tp
    for (let i = 0; i < n; i++) prefix.set(tokens.subarray((from + i) * T, (from + i) * T + Tp), i * Tp);
    const pre = Float64Array.from(await b.read(gpt.prefill(prefix, n, Tp, T, ctx, seqs))).subarray(0, n * V);
    const out = Float64Array.from(await b.read(gpt.decode(tok, p, n, T, seqs)));
    b.free(tok); b.free(p); b.free(ctx);
    return { pre, out };
  };
  const pop = new GPT(b, config, weights);
  const both = await run(pop, 0, Bsum, B), stacked = new Float64Array(2 * Bsum * V);
  stacked.set(both.pre);
  stacked.set(both.out, Bsum * V);
  pop.destroy();
  const lone = new Float64Array(2 * Bsum * V);
  let at = 0;
  for (const [k, n] of B.entries()) {
    if (n === 0) continue;
    const gpt = new GPT(b, config, weights[k]), got = await run(gpt, at, n);
    lone.set(got.pre, at * V);
    lone.set(got.out, (Bsum + at) * V);
    gpt.destroy();
    at += n;
  }
  return { stacked, lone };
}
