// Bindings of shaders/matmul.wgsl: 1 out, 2 a, 3 b, 4 bias, 5 dbias, 6 dout, 7 partial, 8 residual, 9 geluOut, 10 rowStart.
// One tiled kernel out[M,N] (+)= opA(a)[M,K] @ opB(b)[K,N] (+ bias), its tile and
// split-K chosen per shape by planMatmul; split products sum their slices in a
// second kernel. The bias gradient is a two-stage column sum (planColSum).
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { COLSUM_COLS, CPU_TARGET_GROUPS, planColSum, planMembers, TARGET_GROUPS, type MatmulPlan } from './matmulPlan';

let forcedTarget: number | null = null;

/** Tests: plan every product for this many workgroups on any adapter (null: by adapter). */
export function forceMatmulTarget(groups: number | null): void {
  forcedTarget = groups;
}

const target = (k: KernelContext) => forcedTarget ?? (k.cpuAdapter ? CPU_TARGET_GROUPS : TARGET_GROUPS);

// M, N, K, transA, transB, accumulate, hasBias, kSlice, splits, epilogue, members, memberOp, bStride, biasStride, outStride
const FORMAT = 'uuuuuuuuuuuuuuu';

/**
 * A product over stacked members (see the shader): 'rows' (a Linear's forward and dinp: M counts each
 * member's rows, B and bias are the member's copies) or 'reduce' (the weight gradient: K counts each
 * member's rows, out is the member's copy). Sizes passed with it are per member: M or K = maxRows.
 */
export interface MemberProduct {
  K: number;
  rowStart: GpuTensor; // i32 [K+1]
  op: 'rows' | 'reduce';
  bStride: number;
  biasStride: number;
  outStride: number;
}

/** The members' fields of the uniform, and rowStart's binding (a 1-float scratch when there are none). */
function memberParams(k: KernelContext, m: MemberProduct | null): { fields: number[]; rowStart: GpuTensor } {
  if (!m) return { fields: [0, 0, 0, 0, 0], rowStart: k.scratch('matmul.noMembers', 1) };
  return { fields: [m.K, m.op === 'rows' ? 1 : 2, m.bStride, m.biasStride, m.outStride], rowStart: m.rowStart };
}

/**
 * The column sums' target per member: members multiply the workgroups (grid z), so each takes its share
 * (its row chunks change, never the two dispatches).
 */
function memberTarget(k: KernelContext, members: number): number {
  return Math.max(1, Math.ceil(target(k) / members));
}

/** A forward's fused epilogue: + a residual, or also the GELU of the result into a second tensor. */
export type Epilogue = { residual: GpuTensor } | { geluOut: GpuTensor } | null;
const fixed = (entry: string) => ({ shader: 'matmul', entry });

/** out[M,N] (+)= opA(a) @ opB(b) (+ bias) with the shape's plan (a test may force another). */
export function matmulProduct(k: KernelContext, out: GpuTensor, a: GpuTensor, b: GpuTensor, bias: GpuTensor | null,
  M: number, N: number, K: number, transA: boolean, transB: boolean, accumulate: boolean,
  plan?: MatmulPlan, epilogue: Epilogue = null, members: MemberProduct | null = null): void {
  const count = members?.K ?? 1;
  plan ??= planMembers(M, N, K, count, target(k)); // with one member (or none), planMatmul's plan
  if (members?.op === 'rows' && transA) throw new Error('matmul: a member product over rows reads A untransposed');
  const mode = epilogue === null ? 0 : 'residual' in epilogue ? 1 : 2;
  const mp = memberParams(k, members);
  const params = [M, N, K, +transA, +transB, +accumulate, bias ? 1 : 0, plan.kSlice, plan.splits, mode, ...mp.fields];
  // unused epilogue bindings get their own 1-float scratch (geluOut is written: it may not share k.dummy's buffer, bound read-only as bias)
  const ep = {
    8: epilogue && 'residual' in epilogue ? epilogue.residual : k.scratch('matmul.noResidual', 1),
    9: epilogue && 'geluOut' in epilogue ? epilogue.geluOut : k.scratch('matmul.noGelu', 1),
  };
  // One scratch for every split product: dispatches run in recorded order, each sum reads its partials before the next product writes.
  // Unsplit, partial is unused but bound; not k.dummy, which may stand for bias (writable bindings must not alias).
  const partial = k.scratch('matmul.partial', plan.splits > 1 ? count * plan.splits * M * N : 1);
  const tiled = { shader: 'matmul', entry: 'matmul_tiled', constants: { RM: plan.tm / 16, RN: plan.tn / 16 } };
  const [gx, gy, gz] = plan.grid;
  k.dispatch(tiled, FORMAT, params, { 1: out, 2: a, 3: b, 4: bias ?? k.dummy, 7: partial, 10: mp.rowStart, ...ep }, [gx, gy, gz * count]);
  if (plan.splits > 1) {
    k.dispatch(fixed('matmul_splitk_sum'), FORMAT, params, { 1: out, 4: bias ?? k.dummy, 7: partial, 10: mp.rowStart, ...ep },
      grid1D(count * M * N, 256));
  }
}

/**
 * A Linear over stacked members: row r of member k uses member k's weight and bias, and the gradients
 * of member k reduce over its rows only. Strides are the elements between members' copies.
 */
export interface LinearMembers {
  K: number;
  rowStart: GpuTensor; // i32 [K+1] over the N rows
  maxRows: number;
  wStride: number;
  bStride: number;
}

const rowsProduct = (m: LinearMembers | undefined): MemberProduct | null =>
  m ? { K: m.K, rowStart: m.rowStart, op: 'rows', bStride: m.wStride, biasStride: m.bStride, outStride: 0 } : null;

/** out[N,OC] = inp[N,IC] @ weight[OC,IC]^T + bias[OC] */
export function matmulForward(k: KernelContext, out: GpuTensor, inp: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  N: number, IC: number, OC: number, members?: LinearMembers): void {
  matmulProduct(k, out, inp, weight, bias, members?.maxRows ?? N, OC, IC, false, true, false, undefined, null, rowsProduct(members));
}

/** out[N,OC] = inp @ weight^T + bias + residual (the residual stream's add in the matmul's epilogue). */
export function matmulResidualForward(k: KernelContext, out: GpuTensor, inp: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  residual: GpuTensor, N: number, IC: number, OC: number, members?: LinearMembers): void {
  matmulProduct(k, out, inp, weight, bias, members?.maxRows ?? N, OC, IC, false, true, false, undefined, { residual }, rowsProduct(members));
}

/** pre[N,OC] = inp @ weight^T + bias; out = gelu(pre) (the MLP's first layer and its GELU in one pass). */
export function matmulGeluForward(k: KernelContext, pre: GpuTensor, out: GpuTensor, inp: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  N: number, IC: number, OC: number, members?: LinearMembers): void {
  matmulProduct(k, pre, inp, weight, bias, members?.maxRows ?? N, OC, IC, false, true, false, undefined, { geluOut: out },
    rowsProduct(members));
}

/** dbias[OC] += column sums of dout[N,OC]: row chunks' partial sums, then the chunks in order (per member: grid z, then y). */
function biasBackward(k: KernelContext, dbias: GpuTensor, dout: GpuTensor, N: number, OC: number, members?: LinearMembers): void {
  const count = members?.K ?? 1;
  const rows = members?.maxRows ?? N;
  const { chunks, chunkRows } = planColSum(rows, OC, memberTarget(k, count));
  const partial = k.scratch('matmul.biasPartial', count * chunks * OC);
  const mp = memberParams(k, rowsProduct(members));
  const params = [rows, OC, 0, 0, 0, 1, 0, chunkRows, chunks, 0, ...mp.fields];
  k.dispatch(fixed('matmul_bias_partial'), FORMAT, params, { 6: dout, 7: partial, 10: mp.rowStart },
    [Math.ceil(OC / COLSUM_COLS), chunks, count]);
  k.dispatch(fixed('matmul_bias_sum'), FORMAT, params, { 5: dbias, 7: partial }, [Math.ceil(OC / 64), count, 1]);
}

/** dinp += dout @ weight; dweight += dout^T @ inp; dbias += colsum(dout) (each member: its weight, its rows' sums) */
export function matmulBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor | null, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, N: number, IC: number, OC: number, members?: LinearMembers): void {
  const rows = members?.maxRows ?? N;
  matmulProduct(k, dinp, dout, weight, null, rows, IC, OC, false, false, true, undefined, null, rowsProduct(members));
  const reduce: MemberProduct | null = members
    ? { K: members.K, rowStart: members.rowStart, op: 'reduce', bStride: 0, biasStride: 0, outStride: members.wStride } : null;
  matmulProduct(k, dweight, dout, inp, null, OC, IC, rows, true, false, true, undefined, null, reduce);
  if (dbias) biasBackward(k, dbias, dout, N, OC, members);
}
