// Bindings of shaders/embedding.wgsl: 1 out, 2 tokens, 3 wte, 4 wpe, 5 dwte, 6 dwpe, 7 dout, 8 rowStart,
// 9 chunkSlot, 10 tokenStart, 11 order (the wte gradient's sort of rows by token).
import { grid1D, type KernelContext } from '../runtime';
import { jointGrads } from './layernorm';
import type { GpuTensor } from '../tensor';

const WG = 256;
const kernel = (entry: string) => ({ shader: 'embedding', entry, constants: { WG } });
const FORMAT = 'uuuuuuuuuuuu'; // N, T, C, V, members, maxRows, wteStride, wpeStride, joint, wteAt, wpeAt, sortGroup

/** Stacked members over the op's rows: rowStart i32 [K+1]; strides between members' wte and wpe copies. */
export interface EmbeddingMembers {
  K: number;
  rowStart: GpuTensor;
  maxRows: number;
  wteStride: number;
  wpeStride: number;
}

/** The uniform's member fields after the four sizes, and rowStart's binding (a scratch without members). */
export function embeddingMemberFields(k: KernelContext, rows: number, m: EmbeddingMembers | undefined) {
  return m ? { fields: [m.K, m.maxRows, m.wteStride, m.wpeStride], rowStart: m.rowStart, slots: m.K * m.maxRows, count: m.K }
    : { fields: [0, rows, 0, 0], rowStart: k.scratch('embedding.noMembers', 1), slots: rows, count: 1 };
}

/**
 * What a training forward's folded sort left in the scratch (tokenStart, order): the backward over the same
 * tokens, N and V reuses it (the backend drops it when the tokens' buffer or the scratch is written).
 */
export interface EmbeddingSorted {
  tokens: GpuTensor; N: number; T: number; V: number; rowStart: GpuTensor | null; K: number;
  scratch: readonly GpuTensor[]; // tokenStart, order, chunkSlot as the sort bound them (a grown scratch is another)
}

function sortScratch(k: KernelContext, N: number, V: number) {
  return { tokenStart: k.scratch('embedding.tokenStart', V + 1), order: k.scratch('embedding.order', Math.max(1, N)),
    chunkSlot: k.scratch('embedding.chunkSlot', WG * V) };
}

/**
 * out = wte[tokens] + wpe. With `sortV` (a backward of vocab size sortV follows), one more workgroup sorts the rows
 * by token for it in the same dispatch (saves embedding_sort's dispatch); returns what it sorted, else null.
 */
export function embeddingForward(k: KernelContext, out: GpuTensor, tokens: GpuTensor, wte: GpuTensor, wpe: GpuTensor,
  N: number, T: number, C: number, members?: EmbeddingMembers, sortV?: number): EmbeddingSorted | null {
  const mf = embeddingMemberFields(k, N, members);
  const bind = { 1: out, 2: tokens, 3: wte, 4: wpe, 8: mf.rowStart };
  if (!sortV || N <= 0) { // (no rows: the backward sorts nothing either)
    k.dispatch(kernel('embedding_forward'), FORMAT, [N, T, C, 0, ...mf.fields, 0, 0, 0, 0], bind, grid1D(mf.slots * C, WG));
    return null;
  }
  const sc = sortScratch(k, N, sortV), groups = Math.ceil((mf.slots * C) / WG);
  k.dispatch(kernel('embedding_forward_sort'), FORMAT, [N, T, C, sortV, ...mf.fields, 0, 0, 0, groups],
    { ...bind, 9: sc.chunkSlot, 10: sc.tokenStart, 11: sc.order }, grid1D((groups + 1) * WG, WG));
  return { tokens, N, T, V: sortV, rowStart: members?.rowStart ?? null, K: members?.K ?? 0, scratch: [sc.tokenStart, sc.order, sc.chunkSlot] };
}

/** Whether `s` (a forward's sort) is the sort this backward needs, in the scratch as it is now. */
function sortedFor(k: KernelContext, s: EmbeddingSorted | null, tokens: GpuTensor, N: number, T: number, V: number,
  members: EmbeddingMembers | undefined): boolean {
  if (!s || s.tokens !== tokens || s.N !== N || s.T !== T || s.V !== V) return false;
  if (s.rowStart !== (members?.rowStart ?? null) || s.K !== (members?.K ?? 0)) return false;
  const sc = sortScratch(k, N, V);
  return s.scratch[0] === sc.tokenStart && s.scratch[1] === sc.order && s.scratch[2] === sc.chunkSlot;
}

/**
 * dwte += scatter of dout by token; dwpe += sum of dout over sequences (as gathers; each member over its rows).
 * `sorted`: the last forward's folded sort (the caller clears it when the tokens were written since); sorts itself
 * unless it matches. Returns true when the sort it used was `sorted` (else the scratch no longer holds that).
 */
export function embeddingBackward(k: KernelContext, dwte: GpuTensor, dwpe: GpuTensor, dout: GpuTensor, tokens: GpuTensor,
  N: number, T: number, C: number, V: number, members?: EmbeddingMembers, sorted: EmbeddingSorted | null = null): boolean {
  const mf = embeddingMemberFields(k, N, members);
  // stacked members' dwte and dwpe views overlap in the flat gradients: then one binding spans both (writable
  // bindings of one dispatch may not overlap), else each its own
  const jg = jointGrads(dwte, dwpe);
  const params = [N, T, C, V, ...mf.fields, ...jg.at, 0];
  const reuse = sortedFor(k, sorted, tokens, N, T, V, members);
  const { tokenStart, order } = sortScratch(k, N, V);
  if (N > 0 && V > 0 && !reuse) {
    // the rows sorted by token in one workgroup (scratch: u32 bits in f32 tensors), then one gather per gradient element
    const chunkSlot = k.scratch('embedding.chunkSlot', WG * V);
    k.dispatch(kernel('embedding_sort'), FORMAT, params, { 2: tokens, 9: chunkSlot, 10: tokenStart, 11: order }, [1, 1, 1]);
  }
  const wteElems = N > 0 ? mf.count * V * C : 0;
  k.dispatch(kernel('embedding_backward'), FORMAT, params,
    { 5: jg.dweight, 6: jg.dbias ?? k.scratch('embedding.noDwpe', 1), 7: dout, 8: mf.rowStart, 10: tokenStart, 11: order },
    grid1D(wteElems + mf.count * T * C, WG));
  return reuse;
}
