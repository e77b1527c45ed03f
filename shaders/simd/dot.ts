// The dot products and output epilogues that matmul.ts, forwardBlocked.ts and attention.ts share (all
// inlined where they are called). Sizes and offsets are bytes of this module's memory.
import { madd } from './fma';

// @ts-ignore: decorator
@inline
export function hsum4(a: v128, b: v128, c: v128, d: v128): v128 {
  // [sum a, sum b, sum c, sum d] in 6 shuffles and 3 adds
  const t0 = f32x4.add(v128.shuffle<f32>(a, b, 0, 1, 4, 5), v128.shuffle<f32>(a, b, 2, 3, 6, 7));
  const t1 = f32x4.add(v128.shuffle<f32>(c, d, 0, 1, 4, 5), v128.shuffle<f32>(c, d, 2, 3, 6, 7));
  return f32x4.add(v128.shuffle<f32>(t0, t1, 0, 2, 4, 6), v128.shuffle<f32>(t0, t1, 1, 3, 5, 7));
}

// @ts-ignore: decorator
@inline
function hsum1(a: v128): f32 {
  return (f32x4.extract_lane(a, 0) + f32x4.extract_lane(a, 2)) + (f32x4.extract_lane(a, 1) + f32x4.extract_lane(a, 3));
}

/** sum_k x[k] * y[k] for k in [k0, k1) (bytes), scalar: the tail of K when K % 4 != 0. */
// @ts-ignore: decorator
@inline
function dotTail(x: usize, y: usize, k0: usize, k1: usize): f32 {
  let s: f32 = 0;
  for (let k = k0; k < k1; k += 4) s += load<f32>(x + k) * load<f32>(y + k);
  return s;
}

/** The four dot products of row x with rows y0..y3 over the tail [k0, k1) as one vector. */
// @ts-ignore: decorator
@inline
export function tail4(x: usize, y0: usize, y1: usize, y2: usize, y3: usize, k0: usize, k1: usize): v128 {
  let v = f32x4.splat(dotTail(x, y0, k0, k1));
  v = f32x4.replace_lane(v, 1, dotTail(x, y1, k0, k1));
  v = f32x4.replace_lane(v, 2, dotTail(x, y2, k0, k1));
  return f32x4.replace_lane(v, 3, dotTail(x, y3, k0, k1));
}

/** sum_k x[k] * y[k] over K4 bytes of vectors then the scalar tail up to kb bytes. */
// @ts-ignore: decorator
@inline
export function dot(x: usize, y: usize, k4: usize, kb: usize): f32 {
  let a = f32x4.splat(0);
  for (let k: usize = 0; k < k4; k += 16) a = madd(v128.load(x + k), v128.load(y + k), a);
  return hsum1(a) + dotTail(x, y, k4, kb);
}

/**
 * The forward's epilogue for 4 outputs at byte offset `at` of [N, M] (column byte offset `mo`). With pre, the sums
 * go to pre and the GELU runs over each finished pair of rows (still in cache) by geluForward: inlined here,
 * its exp made the dot-product loop's function too large for the JIT to keep it fast (2x slower).
 */
// @ts-ignore: decorator
@inline
export function finish4(v: v128, at: usize, mo: usize, out: usize, bias: usize, residual: usize, pre: usize): void {
  if (bias) v = f32x4.add(v, v128.load(bias + mo));
  if (residual) v = f32x4.add(v, v128.load(residual + at));
  v128.store((pre ? pre : out) + at, v);
}

// @ts-ignore: decorator
@inline
export function finish1(s: f32, at: usize, mo: usize, out: usize, bias: usize, residual: usize, pre: usize): void {
  if (bias) s += load<f32>(bias + mo);
  if (residual) s += load<f32>(residual + at);
  store<f32>((pre ? pre : out) + at, s);
}

/**
 * Zeroes nb bytes (a multiple of 4) at p: 16 at a time, then 4. For the short rows of attention, where memory.fill
 * is a call out of the module (V8 runs it as a runtime function) that costs more than the stores.
 */
// @ts-ignore: decorator
@inline
export function zeroBytes(p: usize, nb: usize): void {
  const z = f32x4.splat(0), n16 = nb & ~15;
  let i: usize = 0;
  for (; i < n16; i += 16) v128.store(p + i, z);
  for (; i < nb; i += 4) store<f32>(p + i, 0);
}

/** Copies nb bytes (a multiple of 4) from src to dst (not overlapping), inline: a short row, where memory.copy's call costs more. */
// @ts-ignore: decorator
@inline
export function copyBytes(dst: usize, src: usize, nb: usize): void {
  const n16 = nb & ~15;
  let i: usize = 0;
  for (; i < n16; i += 16) v128.store(dst + i, v128.load(src + i));
  for (; i < nb; i += 4) store<f32>(dst + i, load<f32>(src + i));
}

/**
 * Overwriting the listed rows of an output (rows[j], ascending; this chunk's entries [first, first + R) of the
 * list): zeroes the unlisted rows before each listed one, back to the previous listed row (or row 0 for the list's
 * first), and with last >= 0 those after the last one up to row `last`. Chunks of one list zero every unlisted row once.
 */
// @ts-ignore: decorator
@inline
export function zeroGaps(out: usize, rowBytes: usize, rows: usize, R: i32, first: i32, last: i32): void {
  let prev = first == 0 ? 0 : load<i32>(rows - 4) + 1;
  for (let j = 0; j < R; j++) {
    const r = load<i32>(rows + (<usize>j << 2));
    if (r > prev) memory.fill(out + <usize>prev * rowBytes, 0, <usize>(r - prev) * rowBytes);
    prev = r + 1;
  }
  if (last > prev) memory.fill(out + <usize>prev * rowBytes, 0, <usize>(last - prev) * rowBytes);
}
