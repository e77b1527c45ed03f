// Bindings of shaders/layernorm.wgsl: 1 out, 2 mean, 3 rstd, 4 inp, 5 weight, 6 bias,
// 7 dinp, 8 dweight, 9 dbias, 10 dout.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 64;
const kernel = (entry: string) => ({ shader: 'layernorm', entry, constants: { WG } });

export function layernormForward(k: KernelContext, out: GpuTensor, mean: GpuTensor, rstd: GpuTensor, inp: GpuTensor,
  weight: GpuTensor, bias: GpuTensor, N: number, C: number): void {
  k.dispatch(kernel('layernorm_forward'), 'uu', [N, C],
    { 1: out, 2: mean, 3: rstd, 4: inp, 5: weight, 6: bias }, grid1D(N, WG));
}

/** dinp += ...; dweight += ...; dbias += ... */
export function layernormBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, mean: GpuTensor, rstd: GpuTensor, N: number, C: number): void {
  k.dispatch(kernel('layernorm_backward_dinp'), 'uu', [N, C],
    { 2: mean, 3: rstd, 4: inp, 5: weight, 7: dinp, 10: dout }, grid1D(N, WG));
  k.dispatch(kernel('layernorm_backward_params'), 'uu', [N, C],
    { 2: mean, 3: rstd, 4: inp, 8: dweight, 9: dbias, 10: dout }, grid1D(C, WG));
}
