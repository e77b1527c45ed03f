// exp on f32x4 (after Cephes expf): n = round(x / ln 2), r = x - n ln 2 in two parts, a degree-6
// polynomial for exp(r) on [-ln2/2, ln2/2], times 2^n built in the exponent bits. Within 2 ulp
// of exp in f32; x is clamped to [-87, 88] so 2^n stays a normal f32 (no inf, no denormals).
// n comes from adding 1.5 * 2^23 (the sum's low mantissa bits are round(x / ln 2)): no floor and
// no float-to-int conversion, both long instruction sequences on x64 without AVX-512.
// Each multiply-then-add is madd (fma.ts): the plain build's operations and bits are as before (c + a * b is
// a * b + c in IEEE, and c - n * K is c + n * -K), the fused build's one rounding each and fewer instructions.
import { madd } from './fma';

const LOG2E: f32 = 1.44269504088896341;
const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;
const ROUND: f32 = 12582912; // 1.5 * 2^23: its f32 bits are 0x4B400000

// @ts-ignore: decorator
@inline
export function expf4(x: v128): v128 {
  const c = expClamp(x), big = expBig(c), r = expR(c, big);
  return expEnd(expPolyHi(expPolyLo(r), r), r, big);
}

// expf4 in stages (each a short dependent chain), for callers that run several vectors at once stage by stage
// (gelu.ts): the engine issues the code in the order written, and four whole chains one after another kept too
// few independent operations in flight. Each lane's operations are expf4's, in its order.

/** x clamped to [-87, 88]. pmin/pmax: one instruction each on x64 (min/max must order NaN and -0); NaN propagates. */
// @ts-ignore: decorator
@inline
export function expClamp(x: v128): v128 { return f32x4.pmin(f32x4.pmax(x, f32x4.splat(-87)), f32x4.splat(88)); }
/** The bits 0x4B400000 + n, n = round(x / ln 2). */
// @ts-ignore: decorator
@inline
export function expBig(c: v128): v128 { return madd(c, f32x4.splat(LOG2E), f32x4.splat(ROUND)); }
/** r = x - n ln 2, in two parts. */
// @ts-ignore: decorator
@inline
export function expR(c: v128, big: v128): v128 {
  const n = f32x4.sub(big, f32x4.splat(ROUND));
  return madd(n, f32x4.splat(-LN2_LO), madd(n, f32x4.splat(-LN2_HI), c));
}
/** The polynomial's first three steps. */
// @ts-ignore: decorator
@inline
export function expPolyLo(r: v128): v128 {
  let p = madd(f32x4.splat(1.9875691500e-4), r, f32x4.splat(1.3981999507e-3));
  p = madd(p, r, f32x4.splat(8.3334519073e-3));
  return madd(p, r, f32x4.splat(4.1665795894e-2));
}
/** Its last two. */
// @ts-ignore: decorator
@inline
export function expPolyHi(p: v128, r: v128): v128 {
  p = madd(p, r, f32x4.splat(1.6666665459e-1));
  return madd(p, r, f32x4.splat(5.0000001201e-1));
}
/** exp(r) = p r^2 + r + 1, times 2^n built in the exponent bits. */
// @ts-ignore: decorator
@inline
export function expEnd(p: v128, r: v128, big: v128): v128 {
  const y = f32x4.add(madd(p, f32x4.mul(r, r), r), f32x4.splat(1));
  const pow2n = i32x4.shl(i32x4.add(big, i32x4.splat(127 - 0x4B400000)), 23);
  return f32x4.mul(y, pow2n);
}
