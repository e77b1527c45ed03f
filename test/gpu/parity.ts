// Runs one op on the WebGPU backend and on the f32 CPU reference with the same
// host inputs, then compares the named outputs element by element:
// |gpu - cpu| <= atol + rtol * |cpu|.
import { expect } from 'vitest';
import type { Backend, Tensor } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import type { WebGpuBackend } from '../../src/gpu/webgpuBackend';

export type HostArray = Float32Array | Int32Array;
export type Tensors = Record<string, Tensor>;
export interface Tolerance { rtol: number; atol: number }

/** f32 on both sides, same formulas: differences come from summation order and transcendental functions. */
export const TOL: Tolerance = { rtol: 1e-4, atol: 1e-5 };

/** The op on backend `b` from host inputs; the named outputs read back (the twins' common step, WebGPU's and wasm's). */
export async function runOn(b: Backend, inputs: Record<string, HostArray>, op: (b: Backend, t: Tensors) => void, outputs: readonly string[]) {
  const t: Tensors = {};
  for (const [name, data] of Object.entries(inputs)) {
    t[name] = b.alloc(data.length, data instanceof Int32Array ? 'i32' : 'f32');
    b.write(t[name], data);
  }
  op(b, t);
  const result: Record<string, Float64Array> = {};
  for (const name of outputs) result[name] = Float64Array.from(await b.read(t[name]));
  for (const x of Object.values(t)) b.free(x);
  return result;
}

/** Index and size of the worst violation, or null when every element is within tolerance. */
function worst(got: Float64Array, want: Float64Array, tol: Tolerance): { i: number; excess: number } | null {
  let bad: { i: number; excess: number } | null = null;
  for (let i = 0; i < want.length; i++) {
    if (Object.is(got[i], want[i])) continue; // the same value: also the same infinity (a guard's norm), or both NaN
    const excess = Math.abs(got[i] - want[i]) - (tol.atol + tol.rtol * Math.abs(want[i]));
    if (!(excess <= 0) && (bad === null || excess > bad.excess || Number.isNaN(excess))) bad = { i, excess };
  }
  return bad;
}

export function expectClose(label: string, got: ArrayLike<number>, want: ArrayLike<number>, tol: Tolerance = TOL): void {
  const g = Float64Array.from(got);
  const w = Float64Array.from(want);
  expect(g.length, `${label}: length`).toBe(w.length);
  const bad = worst(g, w, tol);
  const where = bad ? `${label}[${bad.i}]: gpu ${g[bad.i]} vs cpu ${w[bad.i]} (rtol ${tol.rtol}, atol ${tol.atol})` : '';
  expect(bad, where).toBeNull();
}

/**
 * The op on both backends; every output compared. Inputs that are outputs too
 * (gradients that accumulate) start from the same values on both sides.
 */
export async function parity(gpu: WebGpuBackend, inputs: Record<string, HostArray>, op: (b: Backend, t: Tensors) => void,
  outputs: readonly string[], tol: Tolerance = TOL): Promise<Record<string, Float64Array>> {
  const got = await runOn(gpu, inputs, op, outputs);
  expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  const want = await runOn(new CpuBackend('f32'), inputs, op, outputs);
  for (const name of outputs) expectClose(name, got[name], want[name], tol);
  return got;
}

/** LayerNorm forward then backward (accumulating) at N x C on random inputs, compared on `keys`. */
export async function layernormParity(gpu: WebGpuBackend, N: number, C: number, rand: { normal(n: number, scale?: number): Float32Array },
  keys: string[], tol: Tolerance): Promise<void> {
  await parity(gpu, {
    inp: rand.normal(N * C, 2), weight: rand.normal(C), bias: rand.normal(C), out: rand.normal(N * C), mean: rand.normal(N), rstd: rand.normal(N),
    dout: rand.normal(N * C), dinp: rand.normal(N * C), dweight: rand.normal(C), dbias: rand.normal(C),
  }, (b, t) => {
    b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.weight, t.bias, N, C);
    b.layernormBackward(t.dinp, t.dweight, t.dbias, t.dout, t.inp, t.weight, t.mean, t.rstd, N, C);
  }, keys, tol);
}
