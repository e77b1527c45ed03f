// Bindings of shaders/gelu.wgsl: 1 out, 2 inp, 3 dinp, 4 dout.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 256;

export function geluForward(k: KernelContext, out: GpuTensor, inp: GpuTensor, n: number): void {
  k.dispatch({ shader: 'gelu', entry: 'gelu_forward', constants: { WG } }, 'u', [n], { 1: out, 2: inp }, grid1D(n, WG));
}

/** dinp += gelu'(inp) * dout */
export function geluBackward(k: KernelContext, dinp: GpuTensor, inp: GpuTensor, dout: GpuTensor, n: number): void {
  k.dispatch({ shader: 'gelu', entry: 'gelu_backward', constants: { WG } }, 'u', [n], { 2: inp, 3: dinp, 4: dout }, grid1D(n, WG));
}
