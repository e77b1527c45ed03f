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
