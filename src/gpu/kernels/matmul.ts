// Bindings of shaders/matmul.wgsl: 1 out, 2 a, 3 b, 4 bias, 7 partial, 8 residual, 9 geluOut, 10 rowStart.
// One tiled kernel out[M,N] (+)= opA(a)[M,K] @ opB(b)[K,N] (+ bias), its tile and
// split-K chosen per shape by planMatmul; split products sum their slices in a
// second kernel. A Linear's backward (dinp, dweight and dbias) is one dispatch of
// shaders/linear_backward.wgsl (planBackward).
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { jointGrads, spanGrads } from './layernorm';
import { CPU_TARGET_GROUPS, planBackward, planMembers, TARGET_GROUPS, type BackwardPlan, type MatmulPlan } from './matmulPlan';

let forcedTarget: number | null = null;

/** Tests: plan every product for this many workgroups on any adapter (null: by adapter). */
export function forceMatmulTarget(groups: number | null): void {
  forcedTarget = groups;
}

/** The workgroups products are planned for on this adapter (or a test's forced number). */
export const matmulTarget = (k: KernelContext) => forcedTarget ?? (k.cpuAdapter ? CPU_TARGET_GROUPS : TARGET_GROUPS);
const target = matmulTarget;

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

// N, IC, OC, dinpAccumulate, hasBias, tx, ty0, splits0, kSlice0, ty1, splits1, kSlice1, members, wStride, bStride, joint, wAt, bAt, dinpGelu
const BACKWARD_FORMAT = 'uuuuuuuuuuuuuuuuuuu';
const MAX_GROUPS_X = 65535;

/**
 * dinp (+)= dout @ weight; dweight += dout^T @ inp; dbias += colsum(dout) (each member: its weight, its rows' sums):
 * one dispatch of linear_backward (a second when a product splits K). dinpAccumulate false overwrites dinp (=),
 * so a caller whose dinp held nothing need not zero it first; the Backend op accumulates. With `pre` (GELU mode)
 * dinp (+)= gelu'(pre) * (dout @ weight): the GELU's backward in the epilogue (dweight, dbias in one buffer).
 */
export function matmulBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor | null, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, N: number, IC: number, OC: number, members?: LinearMembers, dinpAccumulate = true,
  plan?: BackwardPlan, pre: GpuTensor | null = null): void {
  const rows = members?.maxRows ?? N;
  const count = members?.K ?? 1;
  if (rows === 0 || IC === 0) return;
  plan ??= planBackward(rows, IC, OC, count, target(k));
  const { dinp: p0, dweight: p1 } = plan;
  if (p0.tm !== p1.tm || p0.tn !== p1.tn) throw new Error('linear_backward: both products take one tile');
  // GELU mode: pre takes binding 3, so dbias must come through dweight's (the caller checked they share a buffer)
  const sg = pre && dbias ? spanGrads(dweight, dbias) : null;
  if (pre && dbias && !sg) throw new Error('linear_backward: the GELU mode needs dweight and dbias in one buffer');
  const g = sg ? { dweight: sg.span, dbias: pre, at: [1, sg.wAt, sg.bAt] }
    : dbias ? jointGrads(dweight, dbias) : { dweight, dbias: pre, at: [0, 0, 0] };
  const params = [rows, IC, OC, +dinpAccumulate, dbias ? 1 : 0, p1.grid[0], p0.grid[1], p0.splits, p0.kSlice,
    p1.grid[1], p1.splits, p1.kSlice, members ? count : 0, members?.wStride ?? 0, members?.bStride ?? 0, ...g.at, pre ? 1 : 0];
  const split0 = p0.splits > 1 ? count * p0.splits * rows * IC : 0;
  const split1 = p1.splits > 1 ? count * p1.splits * OC * (IC + 1) : 0;
  const outputs = {
    1: dinp, 2: g.dweight, 3: g.dbias ?? k.scratch('linear.noBias', 1),
    // one scratch for every backward's partials: dispatches run in recorded order (as matmul.partial)
    7: k.scratch('linear.partial', Math.max(1, split0 + split1)),
    8: members?.rowStart ?? k.scratch('linear.noMembers', 1),
  };
  const groups = count * (p0.grid[0] * p0.grid[1] * p0.splits + p1.grid[0] * p1.grid[1] * p1.splits);
  k.dispatch({ shader: 'linear_backward', entry: 'linear_backward', constants: { RM: p1.tm / 16, RN: p1.tn / 16 } },
    BACKWARD_FORMAT, params, { ...outputs, 4: dout, 5: weight, 6: inp }, [Math.min(groups, MAX_GROUPS_X), Math.ceil(groups / MAX_GROUPS_X), 1]);
  const sums = (p0.splits > 1 ? count * rows * IC : 0) + (p1.splits > 1 ? count * OC * (IC + (dbias ? 1 : 0)) : 0);
  if (sums > 0) k.dispatch({ shader: 'linear_backward', entry: 'linear_backward_sum' }, BACKWARD_FORMAT, params, outputs, grid1D(sums, 256));
}
