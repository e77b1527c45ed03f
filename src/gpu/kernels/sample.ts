// Bindings of shaders/sample.wgsl: 1 tokens, 2 logp, 3 pos, 4 done, 5 limit, 6 logits.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 64;

export function sample(k: KernelContext, tokens: GpuTensor, logp: GpuTensor, pos: GpuTensor, done: GpuTensor, limit: GpuTensor,
  logits: GpuTensor, B: number, T: number, V: number, temperature: number, eos: number, seed: number, counter: number, logitsT: number): void {
  k.dispatch({ shader: 'sample', entry: 'sample_next', constants: { WG } }, 'uuuuuufu',
    [B, T, V, eos, seed >>> 0, counter >>> 0, temperature, logitsT],
    { 1: tokens, 2: logp, 3: pos, 4: done, 5: limit, 6: logits }, grid1D(B, WG));
}
