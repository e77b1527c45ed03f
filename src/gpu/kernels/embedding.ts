// Bindings of shaders/embedding.wgsl: 1 out, 2 tokens, 3 wte, 4 wpe, 5 dwte, 6 dwpe, 7 dout, 8 rowStart,
// 9 chunkSlot, 10 tokenStart, 11 order (the wte gradient's sort of rows by token).
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 256;
const kernel = (entry: string) => ({ shader: 'embedding', entry, constants: { WG } });
const FORMAT = 'uuuuuuuu'; // N, T, C, V, members, maxRows, wteStride, wpeStride

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
  k.dispatch(kernel('embedding_forward'), FORMAT, [N, T, C, 0, ...mf.fields], { 1: out, 2: tokens, 3: wte, 4: wpe, 8: mf.rowStart },
    grid1D(mf.slots * C, WG));
}

/** dwte += scatter of dout by token; dwpe += sum of dout over sequences (as gathers; each member over its rows). */
export function embeddingBackward(k: KernelContext, dwte: GpuTensor, dwpe: GpuTensor, dout: GpuTensor, tokens: GpuTensor,
  N: number, T: number, C: number, V: number, members?: EmbeddingMembers): void {
  const mf = embeddingMemberFields(k, N, members);
  const params = [N, T, C, V, ...mf.fields];
  if (N > 0 && V > 0) {
    // the rows sorted by token in one workgroup (scratch: u32 bits in f32 tensors), then one gather per gradient element
    const chunkSlot = k.scratch('embedding.chunkSlot', WG * V), tokenStart = k.scratch('embedding.tokenStart', V + 1);
    const order = k.scratch('embedding.order', N);
    k.dispatch(kernel('embedding_sort'), FORMAT, params, { 2: tokens, 9: chunkSlot, 10: tokenStart, 11: order }, [1, 1, 1]);
    k.dispatch(kernel('embedding_backward_wte'), FORMAT, params, { 5: dwte, 7: dout, 8: mf.rowStart, 10: tokenStart, 11: order },
      grid1D(mf.count * V * C, WG));
  }
  k.dispatch(kernel('embedding_backward_wpe'), FORMAT, params, { 6: dwpe, 7: dout, 8: mf.rowStart }, grid1D(mf.count * T * C, WG));
}
