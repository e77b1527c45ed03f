// Bindings of shaders/matmul.wgsl: 1 out, 2 a, 3 b, 4 bias, 5 dbias, 6 dout, 7 partial, 8 residual, 9 geluOut.
// One tiled kernel out[M,N] (+)= opA(a)[M,K] @ opB(b)[K,N] (+ bias), its tile and
// split-K chosen per shape by planMatmul; split products sum their slices in a
// second kernel. The bias gradient is a two-stage column sum (planColSum).
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { COLSUM_COLS, CPU_TARGET_GROUPS, planColSum, planMatmul, TARGET_GROUPS, type MatmulPlan } from './matmulPlan';

let forcedTarget: number | null = null;

/** Tests: plan every product for this many workgroups on any adapter (null: by adapter). */
export function forceMatmulTarget(groups: number | null): void {
  forcedTarget = groups;
}

const target = (k: KernelContext) => forcedTarget ?? (k.cpuAdapter ? CPU_TARGET_GROUPS : TARGET_GROUPS);

const FORMAT = 'uuuuuuuuuu'; // M, N, K, transA, transB, accumulate, hasBias, kSlice, splits, epilogue

/** A forward's fused epilogue: + a residual, or also the GELU of the result into a second tensor. */
export type Epilogue = { residual: GpuTensor } | { geluOut: GpuTensor } | null;
const fixed = (entry: string) => ({ shader: 'matmul', entry });

/** out[M,N] (+)= opA(a) @ opB(b) (+ bias) with the shape's plan (a test may force another). */
export function matmulProduct(k: KernelContext, out: GpuTensor, a: GpuTensor, b: GpuTensor, bias: GpuTensor | null,
  M: number, N: number, K: number, transA: boolean, transB: boolean, accumulate: boolean,
  plan?: MatmulPlan, epilogue: Epilogue = null): void {
  plan ??= planMatmul(M, N, K, target(k));
  const mode = epilogue === null ? 0 : 'residual' in epilogue ? 1 : 2;
  const params = [M, N, K, +transA, +transB, +accumulate, bias ? 1 : 0, plan.kSlice, plan.splits, mode];
  // unused epilogue bindings get their own 1-float scratch (writable bindings must not alias k.dummy or each other)
  const ep = {
    8: epilogue && 'residual' in epilogue ? epilogue.residual : k.scratch('matmul.noResidual', 1),
    9: epilogue && 'geluOut' in epilogue ? epilogue.geluOut : k.scratch('matmul.noGelu', 1),
  };
  // One scratch for every split product: dispatches run in recorded order, each sum reads its partials before the next product writes.
  // Unsplit, partial is unused but bound; not k.dummy, which may stand for bias (writable bindings must not alias).
  const partial = k.scratch('matmul.partial', plan.splits > 1 ? plan.splits * M * N : 1);
  const tiled = { shader: 'matmul', entry: 'matmul_tiled', constants: { RM: plan.tm / 16, RN: plan.tn / 16 } };
  k.dispatch(tiled, FORMAT, params, { 1: out, 2: a, 3: b, 4: bias ?? k.dummy, 7: partial, ...ep }, plan.grid);
  if (plan.splits > 1) {
    k.dispatch(fixed('matmul_splitk_sum'), FORMAT, params, { 1: out, 4: bias ?? k.dummy, 7: partial, ...ep }, grid1D(M * N, 256));
  }
}

/** out[N,OC] = inp[N,IC] @ weight[OC,IC]^T + bias[OC] */
export function matmulForward(k: KernelContext, out: GpuTensor, inp: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  N: number, IC: number, OC: number): void {
  matmulProduct(k, out, inp, weight, bias, N, OC, IC, false, true, false);
}

/** out[N,OC] = inp @ weight^T + bias + residual (the residual stream's add in the matmul's epilogue). */
export function matmulResidualForward(k: KernelContext, out: GpuTensor, inp: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  residual: GpuTensor, N: number, IC: number, OC: number): void {
  matmulProduct(k, out, inp, weight, bias, N, OC, IC, false, true, false, undefined, { residual });
}

/** pre[N,OC] = inp @ weight^T + bias; out = gelu(pre) (the MLP's first layer and its GELU in one pass). */
export function matmulGeluForward(k: KernelContext, pre: GpuTensor, out: GpuTensor, inp: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  N: number, IC: number, OC: number): void {
  matmulProduct(k, pre, inp, weight, bias, N, OC, IC, false, true, false, undefined, { geluOut: out });
}

/** dbias[OC] += column sums of dout[N,OC]: row chunks' partial sums, then the chunks in order. */
function biasBackward(k: KernelContext, dbias: GpuTensor, dout: GpuTensor, N: number, OC: number): void {
  const { chunks, chunkRows } = planColSum(N, OC, target(k));
  const partial = k.scratch('matmul.biasPartial', chunks * OC);
  const params = [N, OC, 0, 0, 0, 1, 0, chunkRows, chunks, 0];
  k.dispatch(fixed('matmul_bias_partial'), FORMAT, params, { 6: dout, 7: partial }, [Math.ceil(OC / COLSUM_COLS), chunks, 1]);
  k.dispatch(fixed('matmul_bias_sum'), FORMAT, params, { 5: dbias, 7: partial }, [Math.ceil(OC / 64), 1, 1]);
}

/** dinp += dout @ weight; dweight += dout^T @ inp; dbias += colsum(dout) */
export function matmulBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor | null, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, N: number, IC: number, OC: number): void {
  matmulProduct(k, dinp, dout, weight, null, N, IC, OC, false, false, true);
  matmulProduct(k, dweight, dout, inp, null, OC, IC, N, true, false, true);
  if (dbias) biasBackward(k, dbias, dout, N, OC);
}
