// Bindings of shaders/residual.wgsl: 1 out, 2 a, 3 b.
import { grid1D, type KernelContext } from '../kernelContext';
import type { GpuTensor } from '../tensor';

const WG = 256;
const kernel = (entry: string) => ({ shader: 'residual', entry, constants: { WG } });

function sameRange(x: GpuTensor, y: GpuTensor): boolean {
  return x.buffer === y.buffer && x.byteOffset === y.byteOffset;
}

export function residualForward(k: KernelContext, out: GpuTensor, a: GpuTensor, b: GpuTensor, n: number): void {
  // In place (out = a + b with out = a or b) is an accumulate: one writable binding per range.
  if (sameRange(out, a)) return accumulate(k, out, b, n);
  if (sameRange(out, b)) return accumulate(k, out, a, n);
  k.dispatch(kernel('residual_forward'), 'u', [n], { 1: out, 2: a, 3: b }, grid1D(n, WG));
}

/** dst += src */
export function accumulate(k: KernelContext, dst: GpuTensor, src: GpuTensor, n: number): void {
  k.dispatch(kernel('accumulate_forward'), 'u', [n], { 1: dst, 2: src }, grid1D(n, WG));
}

/** dst = src (a kernel, so both may be views of one buffer) */
export function copyKernel(k: KernelContext, dst: GpuTensor, src: GpuTensor, n: number): void {
  k.dispatch(kernel('copy_forward'), 'u', [n], { 1: dst, 2: src }, grid1D(n, WG));
}

/** t[0..n) = 0 (f32 zero is all zero bits, so i32 tensors clear too) */
export function zeroKernel(k: KernelContext, t: GpuTensor, n: number, counter?: 'dispatches' | 'clears'): void {
  k.dispatch(kernel('zero_forward'), 'u', [n], { 1: t }, grid1D(n, WG), counter);
}
