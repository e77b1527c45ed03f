// Bindings of shaders/matmul.wgsl: 1 out, 2 a, 3 b, 4 bias, 5 dbias, 6 dout.
// One tiled kernel out[M,N] (+)= opA(a)[M,K] @ opB(b)[K,N] (+ bias); 64x64 tiles.
import type { KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const TILE = 64;
const FORMAT = 'uuuuuuu'; // M, N, K, transA, transB, accumulate, hasBias
const tiled = { shader: 'matmul', entry: 'matmul_forward' };

function matmulTiled(k: KernelContext, out: GpuTensor, a: GpuTensor, b: GpuTensor, bias: GpuTensor | null,
  M: number, N: number, K: number, transA: boolean, transB: boolean, accumulate: boolean): void {
  k.dispatch(tiled, FORMAT, [M, N, K, +transA, +transB, +accumulate, bias ? 1 : 0],
    { 1: out, 2: a, 3: b, 4: bias ?? k.dummy }, [Math.ceil(N / TILE), Math.ceil(M / TILE), 1]);
}

/** out[N,OC] = inp[N,IC] @ weight[OC,IC]^T + bias[OC] */
export function matmulForward(k: KernelContext, out: GpuTensor, inp: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  N: number, IC: number, OC: number): void {
  matmulTiled(k, out, inp, weight, bias, N, OC, IC, false, true, false);
}

/** dinp += dout @ weight; dweight += dout^T @ inp; dbias += colsum(dout) */
export function matmulBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor | null, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, N: number, IC: number, OC: number): void {
  matmulTiled(k, dinp, dout, weight, null, N, IC, OC, false, false, true);
  matmulTiled(k, dweight, dout, inp, null, OC, IC, N, true, false, true);
  if (dbias) {
    k.dispatch({ shader: 'matmul', entry: 'matmul_bias_backward' }, FORMAT, [N, OC, 0, 0, 0, 1, 0],
      { 5: dbias, 6: dout }, [Math.ceil(OC / 64), 1, 1]);
  }
}
