// The 128-bit limit of this core, measured rather than assumed (bench's per-kernel table divides each kernel's
// GFLOP/s by it): PEAK_CHAINS independent f32x4 chains of a multiply then an add (the matmuls' madd without FMA),
// no loads, no stores. 12 chains cover the mul + add latency (3 + 3 cycles) at 4 vector ops a cycle and leave
// registers spare (x86-64 has 16 xmm, V8 keeps one for itself). m and c are arguments, not constants: Binaryen
// would fold constant splats into v128.const, which V8 rematerializes inside the loop (measured: 38 against 46
// GFLOP/s on this machine's Zen 4). With m = 0.875 and c = 0.125 each chain tends to 1: no overflow, no subnormals.
// peakFmaChains is the same with the kernels' own madd (fma.ts): in the relaxed-simd build one fused
// multiply-add, the limit of what that build's dot products can reach (twice the instructions' FLOP).
import { madd } from './fma';

/** Independent chains: FLOP per iteration = PEAK_CHAINS * 4 lanes * 2 (a multiply and an add). */
export const PEAK_CHAINS: i32 = 12;
export const PEAK_FLOP_PER_ITER: i32 = PEAK_CHAINS * 4 * 2;

/** Runs `iters` iterations of x <- x * mul + add on every chain from x0 (chain j, lane l starts at x0 + j + l / 4); the sum of all lanes. */
export function peakMaddChains(iters: i32, x0: f32, mul: f32, add: f32): f32 {
  return chains(iters, x0, mul, add, false);
}

/** peakMaddChains with madd (fma.ts): relaxed_madd in the relaxed-simd build, the same mul then add in the plain one. */
export function peakFmaChains(iters: i32, x0: f32, mul: f32, add: f32): f32 {
  return chains(iters, x0, mul, add, true);
}

/** One chain step: madd when `fused` (a constant at each call: inlined, the other form folds away), else a mul then an add. */
// @ts-ignore: decorator
@inline
function step(a: v128, m: v128, c: v128, fused: bool): v128 {
  return fused ? madd(a, m, c) : f32x4.add(f32x4.mul(a, m), c);
}

// @ts-ignore: decorator
@inline
function chains(iters: i32, x0: f32, mul: f32, add: f32, fused: bool): f32 {
  const m = f32x4.splat(mul), c = f32x4.splat(add);
  const lanes = f32x4(0, 0.25, 0.5, 0.75);
  let a0 = f32x4.add(f32x4.splat(x0), lanes), a1 = f32x4.add(f32x4.splat(x0 + 1), lanes);
  let a2 = f32x4.add(f32x4.splat(x0 + 2), lanes), a3 = f32x4.add(f32x4.splat(x0 + 3), lanes);
  let a4 = f32x4.add(f32x4.splat(x0 + 4), lanes), a5 = f32x4.add(f32x4.splat(x0 + 5), lanes);
  let a6 = f32x4.add(f32x4.splat(x0 + 6), lanes), a7 = f32x4.add(f32x4.splat(x0 + 7), lanes);
  let a8 = f32x4.add(f32x4.splat(x0 + 8), lanes), a9 = f32x4.add(f32x4.splat(x0 + 9), lanes);
  let a10 = f32x4.add(f32x4.splat(x0 + 10), lanes), a11 = f32x4.add(f32x4.splat(x0 + 11), lanes);
  for (let i = 0; i < iters; i++) {
    a0 = step(a0, m, c, fused); a1 = step(a1, m, c, fused); a2 = step(a2, m, c, fused); a3 = step(a3, m, c, fused);
    a4 = step(a4, m, c, fused); a5 = step(a5, m, c, fused); a6 = step(a6, m, c, fused); a7 = step(a7, m, c, fused);
    a8 = step(a8, m, c, fused); a9 = step(a9, m, c, fused); a10 = step(a10, m, c, fused); a11 = step(a11, m, c, fused);
  }
  // lane sums in a fixed order (the test recomputes them in f32)
  const s = f32x4.add(f32x4.add(f32x4.add(a0, a1), f32x4.add(a2, a3)), f32x4.add(f32x4.add(a4, a5), f32x4.add(a6, a7)));
  const t = f32x4.add(s, f32x4.add(f32x4.add(a8, a9), f32x4.add(a10, a11)));
  return (f32x4.extract_lane(t, 0) + f32x4.extract_lane(t, 1)) + (f32x4.extract_lane(t, 2) + f32x4.extract_lane(t, 3));
}
