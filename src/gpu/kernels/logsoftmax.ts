// Bindings of shaders/logsoftmax.wgsl: 1 logp, 2 entropy, 3 logits, 4 targets, 5 dlogits, 6 dlogp,
// 7 losses, 8 dloss.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 64;
const kernel = (entry: string) => ({ shader: 'logsoftmax', entry, constants: { WG } });
const FORMAT = 'uuf'; // N, V, temperature

export function logprobForward(k: KernelContext, logp: GpuTensor, entropy: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number, temperature: number): void {
  k.dispatch(kernel('logprob_forward'), FORMAT, [N, V, temperature],
    { 1: logp, 2: entropy, 3: logits, 4: targets }, grid1D(N, WG));
}

/** dlogits += dlogp * (onehot - softmax) / temperature */
export function logprobBackward(k: KernelContext, dlogits: GpuTensor, dlogp: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number, temperature: number): void {
  k.dispatch(kernel('logprob_backward'), FORMAT, [N, V, temperature],
    { 3: logits, 4: targets, 5: dlogits, 6: dlogp }, grid1D(N, WG));
}

export function crossEntropyForward(k: KernelContext, losses: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number): void {
  k.dispatch(kernel('crossentropy_forward'), FORMAT, [N, V, 1], { 3: logits, 4: targets, 7: losses }, grid1D(N, WG));
}

/** dlogits += dloss * (softmax - onehot) */
export function crossEntropyBackward(k: KernelContext, dlogits: GpuTensor, dloss: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number): void {
  k.dispatch(kernel('crossentropy_backward'), FORMAT, [N, V, 1],
    { 3: logits, 4: targets, 5: dlogits, 8: dloss }, grid1D(N, WG));
}
