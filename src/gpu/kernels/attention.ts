// Bindings of shaders/attention.wgsl: 1 out, 2 att, 3 qkv, 4 dqkv, 5 dpreatt, 6 dout.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 64;
const kernel = (entry: string) => ({ shader: 'attention', entry, constants: { WG } });

export function attentionForward(k: KernelContext, out: GpuTensor, att: GpuTensor, qkv: GpuTensor,
  B: number, T: number, C: number, NH: number): void {
  if (C % NH !== 0) throw new Error(`attention: C=${C} is not a multiple of NH=${NH}`);
  const sizes = [B, T, C, NH];
  k.dispatch(kernel('attention_forward_scores'), 'uuuu', sizes, { 2: att, 3: qkv }, grid1D(B * NH * T, WG));
  k.dispatch(kernel('attention_forward_values'), 'uuuu', sizes, { 1: out, 2: att, 3: qkv }, grid1D(B * T * C, WG));
}

/** dqkv += ...; dpreatt is scratch (overwritten). */
export function attentionBackward(k: KernelContext, dqkv: GpuTensor, dpreatt: GpuTensor, dout: GpuTensor, qkv: GpuTensor,
  att: GpuTensor, B: number, T: number, C: number, NH: number): void {
  const sizes = [B, T, C, NH];
  k.dispatch(kernel('attention_backward_dpreatt'), 'uuuu', sizes,
    { 2: att, 3: qkv, 5: dpreatt, 6: dout }, grid1D(B * NH * T, WG));
  k.dispatch(kernel('attention_backward_dqkv'), 'uuuu', sizes,
    { 2: att, 3: qkv, 4: dqkv, 5: dpreatt, 6: dout }, grid1D(B * T * 3 * C, WG));
}
