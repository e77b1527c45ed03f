// Bindings of shaders/embedding.wgsl: 1 out, 2 tokens, 3 wte, 4 wpe, 5 dwte, 6 dwpe, 7 dout, 8 rowStart,
// 9 chunkSlot, 10 tokenStart, 11 order (the wte gradient's sort of rows by token).
import { grid1D, type KernelContext } from '../runtime';
import { jointGrads } from './layernorm';
import type { GpuTensor } from '../tensor';

const WG = 256;
const kernel = (entry: string) => ({ shader: 'embedding', entry, constants: { WG } });
const FORMAT = 'uuuuuuuuuuuu'; // N, T, C, V, members, maxRows, wteStride, wpeStride, joint, wteAt, wpeAt, pad

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

export function embeddingForward(k: KernelContext, out: GpuTensor, tokens: GpuTensor, wte: GpuTensor, wpe: GpuTensor,
  N: number, T: number, C: number, members?: EmbeddingMembers): void {
  const mf = embeddingMemberFields(k, N, members);
  k.dispatch(kernel('embedding_forward'), FORMAT, [N, T, C, 0, ...mf.fields, 0, 0, 0, 0], { 1: out, 2: tokens, 3: wte, 4: wpe, 8: mf.rowStart },
    grid1D(mf.slots * C, WG));
}

/** dwte += scatter of dout by token; dwpe += sum of dout over sequences (as gathers; each member over its rows). */
export function embeddingBackward(k: KernelContext, dwte: GpuTensor, dwpe: GpuTensor, dout: GpuTensor, tokens: GpuTensor,
  N: number, T: number, C: number, V: number, members?: EmbeddingMembers): void {
  const mf = embeddingMemberFields(k, N, members);
  // stacked members' dwte and dwpe views overlap in the flat gradients: then one binding spans both (writable
  // bindings of one dispatch may not overlap), else each its own
  const jg = jointGrads(dwte, dwpe);
  const params = [N, T, C, V, ...mf.fields, ...jg.at, 0];
  const tokenStart = k.scratch('embedding.tokenStart', V + 1), order = k.scratch('embedding.order', Math.max(1, N));
  if (N > 0 && V > 0) {
    // the rows sorted by token in one workgroup (scratch: u32 bits in f32 tensors), then one gather per gradient element
    const chunkSlot = k.scratch('embedding.chunkSlot', WG * V);
    k.dispatch(kernel('embedding_sort'), FORMAT, params, { 2: tokens, 9: chunkSlot, 10: tokenStart, 11: order }, [1, 1, 1]);
  }
  const wteElems = N > 0 ? mf.count * V * C : 0;
  k.dispatch(kernel('embedding_backward'), FORMAT, params,
    { 5: jg.dweight, 6: jg.dbias ?? k.scratch('embedding.noDwpe', 1), 7: dout, 8: mf.rowStart, 10: tokenStart, 11: order },
    grid1D(wteElems + mf.count * T * C, WG));
}
