// Fused ops as the unfused ops they stand for: the CPU engines' implementation (on a CPU a fused kernel saves no
// dispatch), and so the twin of WebGPU's fused kernels (shaders/layernorm_matmul.wgsl, shaders/linear_backward.wgsl's
// GELU mode, shaders/adamw.wgsl's adamw_clip_update). The decode step's composition is in src/reference/decodeSample.ts.
import type { AdamWParams, Backend, MemberOptim, Members, Tensor } from '../backend';

/** layernormMatmulForward: the layer norm, then the Linear (with its GELU when geluOut is given). */
export function layernormMatmulComposed(b: Backend, ln: Tensor, mean: Tensor, rstd: Tensor, out: Tensor, geluOut: Tensor | null, inp: Tensor,
  lnWeight: Tensor, lnBias: Tensor, weight: Tensor, bias: Tensor | null, N: number, C: number, OC: number, members?: Members): void {
  b.layernormForward(ln, mean, rstd, inp, lnWeight, lnBias, N, C, members);
  if (geluOut) b.matmulGeluForward(out, geluOut, ln, weight, bias, N, C, OC, members);
  else b.matmulForward(out, ln, weight, bias, N, C, OC, members);
}

/** matmulGeluBackward: the Linear's backward into dinpScratch (overwritten), then GELU's into dpre (zeroRows: dpre[0, n) = 0 first). */
export function matmulGeluBackwardComposed(b: Backend, zeroRows: (t: Tensor, n: number) => void, dpre: Tensor, dinpScratch: Tensor,
  dweight: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, pre: Tensor, weight: Tensor, N: number, IC: number, OC: number, members?: Members): void {
  b.matmulBackward(dinpScratch, dweight, dbias, dout, inp, weight, N, IC, OC, members, true);
  zeroRows(dpre, N * IC);
  b.geluBackward(dpre, pre, dinpScratch, N * IC);
}

/** clipAdamw: the clip scale from the norm, then AdamW with it. */
export function clipAdamwComposed(b: Backend, params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, normSq: Tensor,
  maxNorm: number, n: number, hp: AdamWParams, members?: MemberOptim): void {
  b.clipScale(scale, normSq, maxNorm, members);
  b.adamw(params, grads, m, v, decayMask, scale, n, hp, members);
}
