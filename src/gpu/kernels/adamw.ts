// Bindings of shaders/adamw.wgsl: 1 params, 2 grads, 3 m, 4 v, 5 decayMask, 6 scale, 7 sums,
// 8 partials, 9 x, 10 lr (members).
import type { AdamWParams } from '../../backend';
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 256;
const REDUCE_WG = 256; // RWG in the shader
const MAX_PARTIALS = 256; // first-stage workgroups of sumSquares
// Up to this length one workgroup per member sums the vector in one dispatch (the page's default model: ~100k
// parameters, about 1k loads per invocation); longer vectors take the two stages' parallelism.
const SINGLE_MAX = 1 << 18;
// n, numPartials, lr, beta1, beta2, eps, weightDecay, biasCorrection1, biasCorrection2, maxNorm, members, stride
const FORMAT = 'uuffffffffuu';

/** Stacked members: K segments of the flat vectors, stride apart (see the shader). */
export interface OptimMembers {
  K: number;
  stride: number;
}
const kernel = (entry: string) => ({ shader: 'adamw', entry, constants: { WG } });
// Entry points with a fixed workgroup size take no override constants.
const fixed = (entry: string) => ({ shader: 'adamw', entry });

function params(n: number, numPartials: number, maxNorm = 0, hp?: AdamWParams, m?: OptimMembers): number[] {
  const mf = m ? [m.K, m.stride] : [0, 0];
  if (!hp) return [n, numPartials, 0, 0, 0, 0, 0, 1, 1, maxNorm, ...mf];
  return [n, numPartials, hp.lr, hp.beta1, hp.beta2, hp.eps, hp.weightDecay,
    1 - Math.pow(hp.beta1, hp.step), 1 - Math.pow(hp.beta2, hp.step), maxNorm, ...mf];
}

/** out[0] = sum of x^2: per-workgroup partials, then one workgroup sums them (no atomics, deterministic); members: out[k]. */
export function sumSquares(k: KernelContext, out: GpuTensor, x: GpuTensor, n: number, members?: OptimMembers): void {
  const count = members?.K ?? 1;
  // one workgroup over every parameter: a win where barriers are dear (a CPU adapter), a loss on a GPU, where the
  // lone workgroup took 115 us against two dispatches of ~10 us each (H200, 2x4x64's 0.1 M parameters)
  if (n <= SINGLE_MAX && k.cpuAdapter) {
    k.dispatch(fixed('sumsq_single'), FORMAT, params(n, 1, 0, undefined, members), { 7: out, 9: x }, [count, 1, 1]);
    return;
  }
  const numPartials = Math.max(1, Math.min(MAX_PARTIALS, Math.ceil(n / REDUCE_WG)));
  const partials = k.scratch('sumSquares.partials', count * MAX_PARTIALS);
  const p = params(n, numPartials, 0, undefined, members);
  k.dispatch(fixed('sumsq_partial'), FORMAT, p, { 8: partials, 9: x }, [numPartials, count, 1]);
  k.dispatch(fixed('sumsq_final'), FORMAT, p, { 7: out, 8: partials }, [count, 1, 1]);
}

export function clipScale(k: KernelContext, scale: GpuTensor, normSq: GpuTensor, maxNorm: number, members?: OptimMembers): void {
  k.dispatch(fixed('clip_scale'), FORMAT, params(0, 0, maxNorm, undefined, members), { 6: scale, 7: normSq }, [members?.K ?? 1, 1, 1]);
}

/** clipScale then adamw in one dispatch: each invocation takes its member's scale from normSq; the segment's first writes scale[k]. */
export function clipAdamw(k: KernelContext, paramsT: GpuTensor, grads: GpuTensor, m: GpuTensor, v: GpuTensor, decayMask: GpuTensor,
  scale: GpuTensor, normSq: GpuTensor, maxNorm: number, n: number, hp: AdamWParams, members?: OptimMembers & { lr: GpuTensor }): void {
  const lr = members?.lr ?? k.scratch('adamw.noMembers', 1);
  k.dispatch(kernel('adamw_clip_update'), FORMAT, params(n, 0, maxNorm, hp, members),
    { 1: paramsT, 2: grads, 3: m, 4: v, 5: decayMask, 6: scale, 7: normSq, 10: lr }, grid1D((members?.K ?? 1) * n, WG));
}

/** members: each member's segment with its scale[k] and lr[k] (f32 [K]). */
export function adamw(k: KernelContext, paramsT: GpuTensor, grads: GpuTensor, m: GpuTensor, v: GpuTensor, decayMask: GpuTensor,
  scale: GpuTensor, n: number, hp: AdamWParams, members?: OptimMembers & { lr: GpuTensor }): void {
  const lr = members?.lr ?? k.scratch('adamw.noMembers', 1);
  k.dispatch(kernel('adamw_update'), FORMAT, params(n, 0, 0, hp, members),
    { 1: paramsT, 2: grads, 3: m, 4: v, 5: decayMask, 6: scale, 10: lr }, grid1D((members?.K ?? 1) * n, WG));
}
