// Bindings of shaders/embedding.wgsl: 1 out, 2 tokens, 3 wte, 4 wpe, 5 dwte, 6 dwpe, 7 dout.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 256;
const kernel = (entry: string) => ({ shader: 'embedding', entry, constants: { WG } });

export function embeddingForward(k: KernelContext, out: GpuTensor, tokens: GpuTensor, wte: GpuTensor, wpe: GpuTensor,
  N: number, T: number, C: number): void {
  k.dispatch(kernel('embedding_forward'), 'uuuu', [N, T, C, 0], { 1: out, 2: tokens, 3: wte, 4: wpe }, grid1D(N * C, WG));
}

/** dwte += scatter of dout by token; dwpe += sum of dout over sequences (as gathers). */
export function embeddingBackward(k: KernelContext, dwte: GpuTensor, dwpe: GpuTensor, dout: GpuTensor, tokens: GpuTensor,
  N: number, T: number, C: number, V: number): void {
  k.dispatch(kernel('embedding_backward_wte'), 'uuuu', [N, T, C, V], { 2: tokens, 5: dwte, 7: dout }, grid1D(V * C, WG));
  k.dispatch(kernel('embedding_backward_wpe'), 'uuuu', [N, T, C, V], { 6: dwpe, 7: dout }, grid1D(T * C, WG));
}
