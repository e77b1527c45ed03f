// The matmul family as f32x4 kernels (twin: src/reference/gemm.ts; test: test/simd/matmul.test.ts).
// Pointers are byte addresses in this module's memory; sizes count f32 elements. Forward is the
// dot-product form (no transposed copy of the weight): 2 rows x 4 columns of f32x4 partial sums
// over k, folded by hsum4. The backward pieces are the broadcast form: one output row, 32 columns
// (8 accumulators) per pass, each step one splat times 8 contiguous loads; without FMA the mul +
// add pair, not the loads, bounds a step, so one row per pass is enough. Every multiply-add is
// madd (fma.ts): a fused relaxed_madd in the relaxed-simd build, a mul then an add otherwise.
import { madd } from './fma';
import { MAX_SLOTS, threadScratch } from './slot';
import { dot, finish1, finish4, hsum4, tail4, zeroGaps } from './dot';
import { geluForward } from './gelu';
import { forwardBlock, FORWARD_BLOCK } from './forwardBlocked';

/** Bytes of w above which the forward goes by blocks of rows (forwardBlocked.ts). */
const BLOCKED_ABOVE: usize = 1 << 19;

/**
 * out[N,M] = inp[N,K] @ w[M,K]^T (+ bias[M]) (+ residual[N,M]); with pre != 0: pre = that, out = gelu(pre).
 * bias, residual, pre: 0 when absent.
 */
export function matmulForward(out: usize, inp: usize, w: usize, bias: usize, residual: usize, pre: usize, N: i32, K: i32, M: i32): void {
  const kb = <usize>K << 2, k4 = <usize>(K & ~3) << 2, mb = <usize>M << 2, m4 = <usize>(M & ~3) << 2;
  if (<usize>M * kb > BLOCKED_ABOVE && K <= 512) {
    // w beyond L2, a block's rows within L1: forwardBlocked.ts (1.1x at 2944 x 256 x 1024 on one core; at K = 1024 the
    // 16 rows outgrow L1 and it was 0.9x, at w within L2 1.0x: so only here)
    for (let n0 = 0; n0 < N; n0 += FORWARD_BLOCK) {
      const at = <usize>n0 * mb;
      forwardBlock(out + at, inp + <usize>n0 * kb, w, bias, residual ? residual + at : 0, pre ? pre + at : 0, min(FORWARD_BLOCK, N - n0), K, M);
    }
    return;
  }
  const N2 = N & ~1;
  for (let n = 0; n < N2; n += 2) {
    const x0 = inp + <usize>n * kb, x1 = x0 + kb, row0 = <usize>n * mb, row1 = row0 + mb;
    for (let mo: usize = 0; mo < m4; mo += 16) {
      const y0 = w + (mo >> 2) * kb, y1 = y0 + kb, y2 = y1 + kb, y3 = y2 + kb;
      let a00 = f32x4.splat(0), a01 = f32x4.splat(0), a02 = f32x4.splat(0), a03 = f32x4.splat(0);
      let a10 = f32x4.splat(0), a11 = f32x4.splat(0), a12 = f32x4.splat(0), a13 = f32x4.splat(0);
      for (let k: usize = 0; k < k4; k += 16) {
        const u0 = v128.load(x0 + k), u1 = v128.load(x1 + k);
        const v0 = v128.load(y0 + k), v1 = v128.load(y1 + k), v2 = v128.load(y2 + k), v3 = v128.load(y3 + k);
        a00 = madd(u0, v0, a00); a01 = madd(u0, v1, a01);
        a02 = madd(u0, v2, a02); a03 = madd(u0, v3, a03);
        a10 = madd(u1, v0, a10); a11 = madd(u1, v1, a11);
        a12 = madd(u1, v2, a12); a13 = madd(u1, v3, a13);
      }
      let r0 = hsum4(a00, a01, a02, a03), r1 = hsum4(a10, a11, a12, a13);
      if (k4 < kb) {
        r0 = f32x4.add(r0, tail4(x0, y0, y1, y2, y3, k4, kb));
        r1 = f32x4.add(r1, tail4(x1, y0, y1, y2, y3, k4, kb));
      }
      finish4(r0, row0 + mo, mo, out, bias, residual, pre);
      finish4(r1, row1 + mo, mo, out, bias, residual, pre);
    }
    for (let mo = m4; mo < mb; mo += 4) {
      const y = w + (mo >> 2) * kb;
      finish1(dot(x0, y, k4, kb), row0 + mo, mo, out, bias, residual, pre);
      finish1(dot(x1, y, k4, kb), row1 + mo, mo, out, bias, residual, pre);
    }
    if (pre) geluForward(out + row0, pre + row0, M << 1);
  }
  if (N2 < N) {
    const x0 = inp + <usize>N2 * kb, row0 = <usize>N2 * mb;
    for (let mo: usize = 0; mo < m4; mo += 16) {
      const y0 = w + (mo >> 2) * kb, y1 = y0 + kb, y2 = y1 + kb, y3 = y2 + kb;
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      for (let k: usize = 0; k < k4; k += 16) {
        const u = v128.load(x0 + k);
        a0 = madd(u, v128.load(y0 + k), a0); a1 = madd(u, v128.load(y1 + k), a1);
        a2 = madd(u, v128.load(y2 + k), a2); a3 = madd(u, v128.load(y3 + k), a3);
      }
      let r = hsum4(a0, a1, a2, a3);
      if (k4 < kb) r = f32x4.add(r, tail4(x0, y0, y1, y2, y3, k4, kb));
      finish4(r, row0 + mo, mo, out, bias, residual, pre);
    }
    for (let mo = m4; mo < mb; mo += 4) finish1(dot(x0, w + (mo >> 2) * kb, k4, kb), row0 + mo, mo, out, bias, residual, pre);
    if (pre) geluForward(out + row0, pre + row0, M);
  }
}

/**
 * c[W] += sum_q a(q) * b_q[W] over Q terms: one output row of W elements. a(q) = load(aBase + q * aStep) or,
 * with a list, a(q) = load(aBase + list[q] * aStep); b_q = bBase + q * bStep (or list[q] * bStep). Columns in
 * strips of 32, then 16, then 4, then 1; the sum over q is kept in registers and added to c once. Every element
 * sums its q in order in one lane, whatever its strip: the numbers do not depend on W. overwrite: c = 0 + the sum
 * (what zeroing c first would give, -0 included, without the zeroing's pass over memory).
 */
// @ts-ignore: decorator
@inline
export function rowAccumulate(c: usize, W: i32, aBase: usize, aStep: usize, bBase: usize, bStep: usize, list: usize, Q: i32, aByTerm: bool = false,
  overwrite: bool = false): void {
  const wb = <usize>W << 2, w32 = <usize>(W & ~31) << 2, w4 = <usize>(W & ~3) << 2, zero = f32x4.splat(0);
  for (let i: usize = 0; i < w32; i += 128) {
    let s0 = f32x4.splat(0), s1 = f32x4.splat(0), s2 = f32x4.splat(0), s3 = f32x4.splat(0);
    let s4 = f32x4.splat(0), s5 = f32x4.splat(0), s6 = f32x4.splat(0), s7 = f32x4.splat(0);
    for (let q = 0; q < Q; q++) {
      const j: usize = list ? <usize>load<i32>(list + (<usize>q << 2)) : <usize>q;
      const a = v128.load32_splat(aBase + (aByTerm ? <usize>q : j) * aStep), b = bBase + j * bStep + i;
      s0 = madd(a, v128.load(b), s0); s1 = madd(a, v128.load(b, 16), s1);
      s2 = madd(a, v128.load(b, 32), s2); s3 = madd(a, v128.load(b, 48), s3);
      s4 = madd(a, v128.load(b, 64), s4); s5 = madd(a, v128.load(b, 80), s5);
      s6 = madd(a, v128.load(b, 96), s6); s7 = madd(a, v128.load(b, 112), s7);
    }
    const o = c + i;
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o), s0)); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 16), s1), 16);
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 32), s2), 32); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 48), s3), 48);
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 64), s4), 64); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 80), s5), 80);
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 96), s6), 96); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 112), s7), 112);
  }
  const w16 = <usize>(W & ~15) << 2;
  for (let i = w32; i < w16; i += 64) {
    // 16 columns: 4 independent sums (one would wait on the add latency every q)
    let s0 = f32x4.splat(0), s1 = f32x4.splat(0), s2 = f32x4.splat(0), s3 = f32x4.splat(0);
    for (let q = 0; q < Q; q++) {
      const j: usize = list ? <usize>load<i32>(list + (<usize>q << 2)) : <usize>q;
      const a = v128.load32_splat(aBase + (aByTerm ? <usize>q : j) * aStep), b = bBase + j * bStep + i;
      s0 = madd(a, v128.load(b), s0); s1 = madd(a, v128.load(b, 16), s1);
      s2 = madd(a, v128.load(b, 32), s2); s3 = madd(a, v128.load(b, 48), s3);
    }
    const o = c + i;
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o), s0)); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 16), s1), 16);
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 32), s2), 32); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 48), s3), 48);
  }
  for (let i = w16; i < w4; i += 16) {
    let s = f32x4.splat(0);
    for (let q = 0; q < Q; q++) {
      const j: usize = list ? <usize>load<i32>(list + (<usize>q << 2)) : <usize>q;
      s = madd(v128.load32_splat(aBase + (aByTerm ? <usize>q : j) * aStep), v128.load(bBase + j * bStep + i), s);
    }
    v128.store(c + i, f32x4.add(overwrite ? zero : v128.load(c + i), s));
  }
  for (let i = w4; i < wb; i += 4) {
    let s: f32 = 0;
    for (let q = 0; q < Q; q++) {
      const j: usize = list ? <usize>load<i32>(list + (<usize>q << 2)) : <usize>q;
      s += load<f32>(aBase + (aByTerm ? <usize>q : j) * aStep) * load<f32>(bBase + j * bStep + i);
    }
    store<f32>(c + i, (overwrite ? <f32>0 : load<f32>(c + i)) + s);
  }
}

/**
 * The same for two output rows at once (c0, c1 with their own a0(q), a1(q); the same b_q): each loaded
 * b vector feeds two products, so a step is 2 splats and 4 loads for 8 mul + add pairs. Strips of 16.
 */
// @ts-ignore: decorator
@inline
export function rowAccumulate2(c0: usize, c1: usize, W: i32, a0Base: usize, a1Base: usize, aStep: usize, bBase: usize, bStep: usize, list: usize, Q: i32,
  aByTerm: bool = false, overwrite: bool = false): void {
  const w16 = <usize>(W & ~15) << 2, zero = f32x4.splat(0);
  for (let i: usize = 0; i < w16; i += 64) {
    let s0 = f32x4.splat(0), s1 = f32x4.splat(0), s2 = f32x4.splat(0), s3 = f32x4.splat(0);
    let t0 = f32x4.splat(0), t1 = f32x4.splat(0), t2 = f32x4.splat(0), t3 = f32x4.splat(0);
    for (let q = 0; q < Q; q++) {
      const j: usize = list ? <usize>load<i32>(list + (<usize>q << 2)) : <usize>q;
      const ja: usize = aByTerm ? <usize>q : j;
      const a0 = v128.load32_splat(a0Base + ja * aStep), a1 = v128.load32_splat(a1Base + ja * aStep), b = bBase + j * bStep + i;
      const v0 = v128.load(b), v1 = v128.load(b, 16), v2 = v128.load(b, 32), v3 = v128.load(b, 48);
      s0 = madd(a0, v0, s0); s1 = madd(a0, v1, s1);
      s2 = madd(a0, v2, s2); s3 = madd(a0, v3, s3);
      t0 = madd(a1, v0, t0); t1 = madd(a1, v1, t1);
      t2 = madd(a1, v2, t2); t3 = madd(a1, v3, t3);
    }
    const o = c0 + i, p = c1 + i;
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o), s0)); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 16), s1), 16);
    v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 32), s2), 32); v128.store(o, f32x4.add(overwrite ? zero : v128.load(o, 48), s3), 48);
    v128.store(p, f32x4.add(overwrite ? zero : v128.load(p), t0)); v128.store(p, f32x4.add(overwrite ? zero : v128.load(p, 16), t1), 16);
    v128.store(p, f32x4.add(overwrite ? zero : v128.load(p, 32), t2), 32); v128.store(p, f32x4.add(overwrite ? zero : v128.load(p, 48), t3), 48);
  }
  if (w16 < (<usize>W << 2)) {
    // the last W % 16 columns, one row at a time
    const rest = W & 15, off = w16;
    rowAccumulate(c0 + off, rest, a0Base, aStep, bBase + off, bStep, list, Q, aByTerm, overwrite);
    rowAccumulate(c1 + off, rest, a1Base, aStep, bBase + off, bStep, list, Q, aByTerm, overwrite);
  }
}

/** Listed rows of dinp per block: a block's rows of dout stay in cache while each 16-column strip of w passes over them. */
export const DINP_BLOCK = 16;

/** Bytes of w above which matmulDinp goes strip by strip (below, w stays in L2 and pair by pair is faster: measured). */
const DINP_STRIPS_ABOVE: usize = 1 << 19;

/**
 * dinp[r,:] += dout[r,:] @ w for the R listed rows r = rows[j]; w [OC, IC]. Rows in pairs. When w is larger than
 * L2 (256 x 1024 at the largest model), rows in blocks of DINP_BLOCK, and in a block each strip of 16 columns of w
 * (OC x 64 bytes) serves every pair before the next strip, instead of all of w coming from L3 for each pair (1.1x
 * at 2944 x 256 x 1024 on one Zen 4 core; 0.9x at the small shapes, so not there). Each element's sum is the same
 * in either order. N >= 0: dinp [N, IC] is overwritten (= 0 + the sums; unlisted rows zeroed), not accumulated into.
 */
export function matmulDinp(dinp: usize, dout: usize, w: usize, rows: usize, R: i32, IC: i32, OC: i32, N: i32): void {
  dinpRows(dinp, dout, w, rows, R, IC, OC, N >= 0, 0, N);
}

/**
 * matmulDinp, or with overwrite (dinp = 0 + the sums, as zeroing dinp first would give): the listed rows are written
 * once, and the rows before each listed one back to the previous listed row (from row 0 for the first of the whole
 * list, `rows` being its entries [first, first + R)) and, when `last` >= 0, the rows after the last one up to row
 * `last` are zeroed: a split of the list into chunks zeroes every unlisted row once (threads.ts).
 */
export function dinpRows(dinp: usize, dout: usize, w: usize, rows: usize, R: i32, IC: i32, OC: i32, overwrite: bool, first: i32 = 0, last: i32 = -1): void {
  const ib = <usize>IC << 2, ob = <usize>OC << 2;
  if (overwrite) zeroGaps(dinp, ib, rows, R, first, last);
  if (ib * <usize>OC > DINP_STRIPS_ABOVE) {
    for (let j0 = 0; j0 < R; j0 += DINP_BLOCK) dinpBlock(dinp, dout, w, rows + (<usize>j0 << 2), min(DINP_BLOCK, R - j0), IC, OC, overwrite);
    return;
  }
  let j = 0;
  for (; j + 1 < R; j += 2) {
    const r0 = <usize>load<i32>(rows + (<usize>j << 2)), r1 = <usize>load<i32>(rows + (<usize>j << 2), 4);
    rowAccumulate2(dinp + r0 * ib, dinp + r1 * ib, IC, dout + r0 * ob, dout + r1 * ob, 4, w, ib, 0, OC, false, overwrite);
  }
  if (j < R) {
    const r = <usize>load<i32>(rows + (<usize>j << 2));
    rowAccumulate(dinp + r * ib, IC, dout + r * ob, 4, w, ib, 0, OC, false, overwrite);
  }
}

function dinpBlock(dinp: usize, dout: usize, w: usize, rows: usize, R: i32, IC: i32, OC: i32, overwrite: bool): void {
  const ib = <usize>IC << 2, ob = <usize>OC << 2, w16 = <usize>(IC & ~15) << 2, R2 = R & ~1;
  for (let i: usize = 0; i < w16; i += 64) {
    for (let j = 0; j < R2; j += 2) {
      const r0 = <usize>load<i32>(rows + (<usize>j << 2)), r1 = <usize>load<i32>(rows + (<usize>j << 2), 4);
      rowAccumulate2(dinp + r0 * ib + i, dinp + r1 * ib + i, 16, dout + r0 * ob, dout + r1 * ob, 4, w + i, ib, 0, OC, false, overwrite);
    }
  }
  if (w16 < ib) {
    // the last IC % 16 columns, as rowAccumulate2 does them: one row at a time
    for (let j = 0; j < R2; j += 2) {
      const r0 = <usize>load<i32>(rows + (<usize>j << 2)), r1 = <usize>load<i32>(rows + (<usize>j << 2), 4);
      rowAccumulate(dinp + r0 * ib + w16, IC & 15, dout + r0 * ob, 4, w + w16, ib, 0, OC, false, overwrite);
      rowAccumulate(dinp + r1 * ib + w16, IC & 15, dout + r1 * ob, 4, w + w16, ib, 0, OC, false, overwrite);
    }
  }
  if (R2 < R) {
    const r = <usize>load<i32>(rows + (<usize>R2 << 2));
    rowAccumulate(dinp + r * ib, IC, dout + r * ob, 4, w, ib, 0, OC, false, overwrite);
  }
}

/** Rows per tile of dweight: a tile's dout and inp rows stay in cache while every output row reads them. */
export const ROW_TILE = 64;

/** dw[o,:] += sum over the R listed rows r of dout[r,o] * inp[r,:]; tiles of rows, each tile's sum added once; o in pairs. */
export function matmulDweight(dw: usize, dout: usize, inp: usize, rows: usize, R: i32, IC: i32, OC: i32): void {
  dweightFeatures(dw, dout, inp, rows, R, IC, OC, 0, OC);
}

/**
 * matmulDweight restricted to output features [o0, o1) (o0 even; the threads' chunks). Each pair's two columns of
 * dout over the tile's rows are first copied to a contiguous buffer: read in place they are OC floats apart, and at
 * 1 or 4 KiB strides the tile's 64 rows fall in a few L1 sets and miss (1.02x to 1.23x on one Zen 4 core, the most
 * at 2944 x 256 x 1024). The same values in the same order: the results do not change.
 */
export function dweightFeatures(dw: usize, dout: usize, inp: usize, rows: usize, R: i32, IC: i32, OC: i32, o0: i32, o1: i32): void {
  const ib = <usize>IC << 2, ob = <usize>OC << 2, g = threadScratch(GATHER, ROW_TILE * 8);
  for (let j0 = 0; j0 < R; j0 += ROW_TILE) {
    const tile = min(ROW_TILE, R - j0), list = rows + (<usize>j0 << 2);
    let o = o0;
    for (; o + 1 < o1; o += 2) {
      // the pair's dout column, gathered: strided by OC floats, 64 rows alias a few L1 sets (stride 1 KiB, 4 KiB)
      const d = dout + (<usize>o << 2);
      for (let q = 0; q < tile; q++) {
        const at = d + <usize>load<i32>(list + (<usize>q << 2)) * ob;
        store<f32>(g + (<usize>q << 2), load<f32>(at));
        store<f32>(g + (<usize>q << 2), load<f32>(at, 4), ROW_TILE << 2);
      }
      rowAccumulate2(dw + <usize>o * ib, dw + <usize>(o + 1) * ib, IC, g, g + (ROW_TILE << 2), 4, inp, ib, list, tile, true);
    }
    if (o < o1) rowAccumulate(dw + <usize>o * ib, IC, dout + (<usize>o << 2), ob, inp, ib, list, tile);
  }
}

/** dweight's gather buffers: one per thread, since the threaded build's memory is shared (2 x ROW_TILE floats each). */
const GATHER = memory.data(ROW_TILE * 8 * MAX_SLOTS, 64);

/** 1.0f: the factor that turns rowAccumulate into a column sum (a product by 1 is exact). */
const ONE = memory.data<f32>([1.0]);

/** dbias[o] += sum over the R listed rows r of dout[r,o]: row by row over contiguous strips. */
export function matmulDbias(dbias: usize, dout: usize, rows: usize, R: i32, OC: i32): void {
  dbiasFeatures(dbias, dout, rows, R, OC, 0, OC);
}

/** matmulDbias restricted to features [o0, o1) (the threads' chunks): each sum over the same rows in the same order. */
export function dbiasFeatures(dbias: usize, dout: usize, rows: usize, R: i32, OC: i32, o0: i32, o1: i32): void {
  const at = <usize>o0 << 2;
  rowAccumulate(dbias + at, o1 - o0, ONE, 0, dout + at, <usize>OC << 2, rows, R);
}

/** Whether row `row` of M floats holds a nonzero (NaN counts, -0 does not). */
// @ts-ignore: decorator
@inline
function rowHasNonzero(row: usize, M: i32): bool {
  const mb = <usize>M << 2, m4 = <usize>(M & ~3) << 2, zero = f32x4.splat(0);
  let any = false;
  for (let m: usize = 0; m < m4 && !any; m += 16) any = v128.any_true(f32x4.ne(v128.load(row + m), zero));
  for (let m = m4; m < mb && !any; m += 4) any = load<f32>(row + m) != 0;
  return any;
}

/** Writes the indices of the rows of x [N, M] that hold a nonzero (NaN counts, -0 does not) to rows; returns their count. */
export function nonzeroRows(rows: usize, x: usize, N: i32, M: i32): i32 {
  let R = 0;
  for (let n = 0; n < N; n++) {
    if (rowHasNonzero(x + <usize>n * (<usize>M << 2), M)) { store<i32>(rows + (<usize>R << 2), n); R++; }
  }
  return R;
}

/** flags[n] = 1 where row n of x [N, M] holds a nonzero, else 0, for n in [n0, n1) (the threads' chunks of nonzeroRows). */
export function nonzeroFlags(flags: usize, x: usize, n0: i32, n1: i32, M: i32): void {
  for (let n = n0; n < n1; n++) store<i32>(flags + (<usize>n << 2), rowHasNonzero(x + <usize>n * (<usize>M << 2), M) ? 1 : 0);
}

/** Turns N flags (nonzeroFlags) into the list of the flagged indices in order, in place; returns its length. */
export function flagsToRows(rows: usize, N: i32): i32 {
  let R = 0;
  for (let n = 0; n < N; n++) {
    if (load<i32>(rows + (<usize>n << 2)) != 0) { store<i32>(rows + (<usize>R << 2), n); R++; }
  }
  return R;
}
