// Members (src/backend.ts) as each kernel wrapper takes them: the device offsets and the strides of its tensors.
import { checkMemberRows, memberStride, type Members, type MemberStack, type Tensor } from '../backend';
import type { EmbeddingMembers } from './kernels/embedding';
import type { RowMembers } from './kernels/layernorm';
import type { LnLinearMembers } from './kernels/layernormMatmul';
import type { LinearMembers } from './kernels/matmul';
import { asGpu } from './tensor';

/** What every member kernel takes of the rows: K, each member's first row on the device, the longest member's rows. */
function memberRows(m: Members, N: number): { K: number; rowStart: ReturnType<typeof asGpu>; maxRows: number } {
  checkMemberRows(m, N);
  return { K: m.K, rowStart: asGpu(m.rowStart), maxRows: m.maxRows };
}

export function linearMembers(m: Members | undefined, N: number, weight: Tensor, bias: Tensor | null): LinearMembers | undefined {
  if (!m) return undefined;
  return { ...memberRows(m, N), wStride: memberStride(weight, m), bStride: bias ? memberStride(bias, m) : 0 };
}

export function rowMembers(m: Members | undefined, N: number, ...params: Tensor[]): RowMembers | undefined {
  if (!m) return undefined;
  return { ...memberRows(m, N), stride: sameStride(m, params) };
}

/** The kernels take one stride for a parameter, its bias and their gradients: the tensors must agree. */
export function sameStride(m: Members, ts: Tensor[]): number {
  const s = memberStride(ts[0], m);
  if (ts.some((t) => memberStride(t, m) !== s)) throw new Error('members: tensors of one shape with different member strides');
  return s;
}

export function embeddingMembers(m: Members | undefined, N: number, wte: Tensor, wpe: Tensor): EmbeddingMembers | undefined {
  if (!m) return undefined;
  return { ...memberRows(m, N), wteStride: memberStride(wte, m), wpeStride: memberStride(wpe, m) };
}

export const optimMembers = (m: MemberStack | undefined, n: number) => (m ? { K: m.K, stride: m.paramStride ?? n } : undefined);

/**
 * A LayerNorm and its Linear's members: the fused kernel takes one stride for the four parameters (the model's flat
 * vectors); `one` false when they differ (then the two ops run apart).
 */
export function lnLinearMembers(m: Members | undefined, N: number, params: Tensor[]): { one: boolean; lm: LnLinearMembers | undefined } {
  if (!m) return { one: true, lm: undefined };
  const rows = memberRows(m, N), stride = memberStride(params[0], m);
  return { one: params.every((t) => memberStride(t, m) === stride), lm: { ...rows, stride } };
}
