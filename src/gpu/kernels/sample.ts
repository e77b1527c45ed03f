// Bindings of shaders/sample.wgsl: 1 tokens, 2 logp, 3 pos, 4 done, 5 limit, 6 logits, 7 rowRng.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 64;

export function sample(k: KernelContext, tokens: GpuTensor, logp: GpuTensor, pos: GpuTensor, done: GpuTensor, limit: GpuTensor,
  logits: GpuTensor, B: number, T: number, V: number, temperature: number, eos: number, seed: number, counter: number, logitsT: number,
  rowRng: GpuTensor | null = null): void {
  k.dispatch({ shader: 'sample', entry: 'sample_next', constants: { WG } }, 'uuuuuufuu',
    [B, T, V, eos, seed >>> 0, counter >>> 0, temperature, logitsT, rowRng ? 1 : 0],
    { 1: tokens, 2: logp, 3: pos, 4: done, 5: limit, 6: logits, 7: rowRng ?? k.dummy }, grid1D(B, WG));
}
