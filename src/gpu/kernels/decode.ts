// Bindings of shaders/decode.wgsl: 1 out, 2 tokens, 3 pos, 4 wte, 5 wpe, 6 qkvCache, 7 qkvNew (copy_rows: 6 dst, 7 src;
// gather_last: 1 dst, 7 src),
// 8 rowStart.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { embeddingMemberFields, type EmbeddingMembers } from './embedding';
import { rowMode } from './rows';

const WG = 64;
const kernel = (entry: string) => ({ shader: 'decode', entry, constants: { WG } });

/** out[b,:] = embedding of sequence b's last token (at pos[b] - 1); members: rowStart counts sequences. */
export function embeddingLast(k: KernelContext, out: GpuTensor, tokens: GpuTensor, pos: GpuTensor, wte: GpuTensor, wpe: GpuTensor,
  B: number, T: number, C: number, members?: EmbeddingMembers): void {
  const mf = embeddingMemberFields(k, B, members);
  k.dispatch(kernel('embedding_last'), 'uuuuuuuu', [B, T, C, 0, ...mf.fields], { 1: out, 2: tokens, 3: pos, 4: wte, 5: wpe, 8: mf.rowStart },
    grid1D(mf.slots * C, WG));
}

/**
 * Appends qkvNew to the cache at each sequence's last position and attends over the cache, in one dispatch (a workgroup
 * per (b, h) on a GPU): each (b, h) appends the slices of the row it reads itself.
 */
export function attentionDecode(k: KernelContext, out: GpuTensor, qkvCache: GpuTensor, qkvNew: GpuTensor, pos: GpuTensor,
  B: number, T: number, C: number, NH: number): void {
  if (C % NH !== 0) throw new Error(`attentionDecode: C=${C} is not a multiple of NH=${NH}`);
  if (T > 256) throw new Error(`attentionDecode: T=${T} exceeds the kernel's 256 cached rows`);
  const sizes = [B, T, C, NH];
  const bindings = { 1: out, 3: pos, 6: qkvCache, 7: qkvNew };
  if (rowMode(k) === 'single') {
    k.dispatch(kernel('attention_decode_serial'), 'uuuu', sizes, bindings, grid1D(B * NH, WG));
  } else {
    k.dispatch({ shader: 'decode', entry: 'attention_decode' }, 'uuuu', sizes, bindings, grid1D(B * NH, 1));
  }
}

/** dst[r*dstStride + i] = src[floor(r/repeat)*srcStride + i] for r < rows, i < width. */
export function copyRows(k: KernelContext, dst: GpuTensor, src: GpuTensor, rows: number, width: number, dstStride: number, srcStride: number, repeat = 1): void {
  k.dispatch(kernel('copy_rows'), 'uuuuu', [rows, width, dstStride, srcStride, repeat], { 6: dst, 7: src }, grid1D(rows * width, WG));
}

/** dst[b,:] = the row of sequence b's last position (pos[b] - 1) in src [B / repeat, T, width]. */
export function gatherLast(k: KernelContext, dst: GpuTensor, src: GpuTensor, pos: GpuTensor, B: number, T: number, width: number, repeat = 1): void {
  k.dispatch(kernel('gather_last'), 'uuuuu', [B, T, width, 0, repeat], { 1: dst, 3: pos, 7: src }, grid1D(B * width, WG));
}
