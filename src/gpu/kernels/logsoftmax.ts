// Bindings of shaders/logsoftmax.wgsl: 1 logp, 2 entropy, 3 logits, 4 targets, 5 dlogits, 6 dlogp,
// 7 losses, 8 dloss.
import type { KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { rowGrid, rowLayout } from './rows';

const FORMAT = 'uuf'; // N, V, temperature

// One row per V logits; the layout (invocations per row, rows per workgroup) follows V.
function run(k: KernelContext, entry: string, N: number, V: number, temperature: number, bindings: Record<number, GpuTensor>): void {
  const layout = rowLayout(k, V);
  k.dispatch({ shader: 'logsoftmax', entry, constants: { WG: layout.WG, TPR: layout.TPR } }, FORMAT, [N, V, temperature],
    bindings, rowGrid(N, layout));
}

export function logprobForward(k: KernelContext, logp: GpuTensor, entropy: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number, temperature: number): void {
  run(k, 'logprob_forward', N, V, temperature, { 1: logp, 2: entropy, 3: logits, 4: targets });
}

/** dlogits += dlogp * (onehot - softmax) / temperature */
export function logprobBackward(k: KernelContext, dlogits: GpuTensor, dlogp: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number, temperature: number): void {
  run(k, 'logprob_backward', N, V, temperature, { 3: logits, 4: targets, 5: dlogits, 6: dlogp });
}

export function crossEntropyForward(k: KernelContext, losses: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number): void {
  run(k, 'crossentropy_forward', N, V, 1, { 3: logits, 4: targets, 7: losses });
}

/** dlogits += dloss * (softmax - onehot) */
export function crossEntropyBackward(k: KernelContext, dlogits: GpuTensor, dloss: GpuTensor, logits: GpuTensor, targets: GpuTensor,
  N: number, V: number): void {
  run(k, 'crossentropy_backward', N, V, 1, { 3: logits, 4: targets, 5: dlogits, 8: dloss });
}
