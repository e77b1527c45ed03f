// c + a * b, the step of every dot product and row accumulation. Built twice (scripts/buildWasm.ts):
// plain simd128, a mul then an add (two roundings); with relaxed-simd, relaxed_madd, which the engine
// may fuse (one rounding, the CPU's FMA). ASC_FEATURE_RELAXED_SIMD is a compile-time constant, so each
// module holds one form only.

// @ts-ignore: decorator
@inline
export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(c, f32x4.mul(a, b));
}
