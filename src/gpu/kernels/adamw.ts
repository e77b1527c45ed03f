// Bindings of shaders/adamw.wgsl: 1 params, 2 grads, 3 m, 4 v, 5 decayMask, 6 scale, 7 sums,
// 8 partials, 9 x.
import type { AdamWParams } from '../../backend';
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';

const WG = 256;
const REDUCE_WG = 256; // RWG in the shader
const MAX_PARTIALS = 256; // first-stage workgroups of sumSquares
const FORMAT = 'uuffffffff'; // n, numPartials, lr, beta1, beta2, eps, weightDecay, biasCorrection1, biasCorrection2, maxNorm
const kernel = (entry: string) => ({ shader: 'adamw', entry, constants: { WG } });
// Entry points with a fixed workgroup size take no override constants.
const fixed = (entry: string) => ({ shader: 'adamw', entry });

function params(n: number, numPartials: number, maxNorm = 0, hp?: AdamWParams): number[] {
  if (!hp) return [n, numPartials, 0, 0, 0, 0, 0, 1, 1, maxNorm];
  return [n, numPartials, hp.lr, hp.beta1, hp.beta2, hp.eps, hp.weightDecay,
    1 - Math.pow(hp.beta1, hp.step), 1 - Math.pow(hp.beta2, hp.step), maxNorm];
}

/** out[0] = sum of x^2: per-workgroup partials, then one workgroup sums them (no atomics, deterministic). */
export function sumSquares(k: KernelContext, out: GpuTensor, x: GpuTensor, n: number): void {
  const numPartials = Math.max(1, Math.min(MAX_PARTIALS, Math.ceil(n / REDUCE_WG)));
  const partials = k.scratch('sumSquares.partials', MAX_PARTIALS);
  const p = params(n, numPartials);
  k.dispatch(fixed('sumsq_partial'), FORMAT, p, { 8: partials, 9: x }, [numPartials, 1, 1]);
  k.dispatch(fixed('sumsq_final'), FORMAT, p, { 7: out, 8: partials }, [1, 1, 1]);
}

export function clipScale(k: KernelContext, scale: GpuTensor, normSq: GpuTensor, maxNorm: number): void {
  k.dispatch(fixed('clip_scale'), FORMAT, params(0, 0, maxNorm), { 6: scale, 7: normSq }, [1, 1, 1]);
}

export function adamw(k: KernelContext, paramsT: GpuTensor, grads: GpuTensor, m: GpuTensor, v: GpuTensor, decayMask: GpuTensor,
  scale: GpuTensor, n: number, hp: AdamWParams): void {
  k.dispatch(kernel('adamw_update'), FORMAT, params(n, 0, 0, hp),
    { 1: paramsT, 2: grads, 3: m, 4: v, 5: decayMask, 6: scale }, grid1D(n, WG));
}
