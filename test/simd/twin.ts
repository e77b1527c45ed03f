// Runs one op on the wasm engine and on the f32 reference with the same host inputs, then
// compares the named outputs element by element: |wasm - ref| <= atol + rtol * |ref|.
import { expect } from 'vitest';
import type { Backend } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { mulberry32 } from '../../src/model/random';

import { runOn, type HostArray, type Tensors, type Tolerance } from '../gpu/parity';

export type { HostArray, Tensors, Tolerance };

export const wasm = new WasmBackend();

export function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = mulberry32(seed);
  return Float32Array.from({ length: n }, () => (r() - 0.5) * 2 * scale);
}

export function expectClose(label: string, got: Float64Array, want: Float64Array, tol: Tolerance): void {
  expect(got.length, `${label}: length`).toBe(want.length);
  let bad = -1, worst = 0;
  for (let i = 0; i < want.length; i++) {
    if (Object.is(got[i], want[i]) || got[i] === want[i]) continue; // equal, infinities and NaN included
    const excess = Math.abs(got[i] - want[i]) - (tol.atol + tol.rtol * Math.abs(want[i]));
    if (!(excess <= 0) && (bad < 0 || excess > worst || Number.isNaN(excess))) { bad = i; worst = excess; }
  }
  expect(bad < 0 ? null : `${label}[${bad}]: wasm ${got[bad]} vs reference ${want[bad]} (rtol ${tol.rtol}, atol ${tol.atol})`).toBeNull();
}

/** The op on both backends, every output compared; outputs that are inputs too (accumulated gradients) start equal on both. */
export async function twin(inputs: Record<string, HostArray>, op: (b: Backend, t: Tensors) => void, outputs: readonly string[],
  tol: Tolerance): Promise<{ got: Record<string, Float64Array>; want: Record<string, Float64Array> }> {
  const got = await runOn(wasm, inputs, op, outputs);
  const want = await runOn(new CpuBackend('f32'), inputs, op, outputs);
  for (const name of outputs) expectClose(name, got[name], want[name], tol);
  return { got, want };
}
