// The forward matmul for weights larger than L2 (the largest model's qkv and MLP-up projections, 768 or 1024 x 256):
// rows in blocks of FORWARD_BLOCK, and in a block each 4 rows of w (a column quad of out, 4 KiB at K = 256) meet
// every pair of the block's rows while in L1, instead of all of w coming from L3 for each pair. Same kernel, same
// sums in the same order (lane l sums k = l mod 4, then hsum4), so the results are those of matmul.ts's order.
import { madd } from './fma';
import { dot, finish1, finish4, hsum4, tail4 } from './dot';
import { geluForward } from './gelu';

/** Rows per block: 16 rows of inp at K <= 512 are at most 32 KiB. */
export const FORWARD_BLOCK = 16;

/** matmulForward on at most FORWARD_BLOCK rows: column quads outer, row pairs inner. */
export function forwardBlock(out: usize, inp: usize, w: usize, bias: usize, residual: usize, pre: usize, N: i32, K: i32, M: i32): void {
  const kb = <usize>K << 2, k4 = <usize>(K & ~3) << 2, mb = <usize>M << 2, m4 = <usize>(M & ~3) << 2;
  const N2 = N & ~1;
  for (let mo: usize = 0; mo < m4; mo += 16) {
    const y0 = w + (mo >> 2) * kb, y1 = y0 + kb, y2 = y1 + kb, y3 = y2 + kb;
    for (let n = 0; n < N2; n += 2) {
      const x0 = inp + <usize>n * kb, x1 = x0 + kb, row0 = <usize>n * mb, row1 = row0 + mb;
      let a00 = f32x4.splat(0), a01 = f32x4.splat(0), a02 = f32x4.splat(0), a03 = f32x4.splat(0);
      let a10 = f32x4.splat(0), a11 = f32x4.splat(0), a12 = f32x4.splat(0), a13 = f32x4.splat(0);
      for (let k: usize = 0; k < k4; k += 16) {
        const u0 = v128.load(x0 + k), u1 = v128.load(x1 + k);
        const v0 = v128.load(y0 + k), v1 = v128.load(y1 + k), v2 = v128.load(y2 + k), v3 = v128.load(y3 + k);
        a00 = madd(u0, v0, a00); a01 = madd(u0, v1, a01); a02 = madd(u0, v2, a02); a03 = madd(u0, v3, a03);
        a10 = madd(u1, v0, a10); a11 = madd(u1, v1, a11); a12 = madd(u1, v2, a12); a13 = madd(u1, v3, a13);
      }
      let r0 = hsum4(a00, a01, a02, a03), r1 = hsum4(a10, a11, a12, a13);
      if (k4 < kb) {
        r0 = f32x4.add(r0, tail4(x0, y0, y1, y2, y3, k4, kb));
        r1 = f32x4.add(r1, tail4(x1, y0, y1, y2, y3, k4, kb));
      }
      finish4(r0, row0 + mo, mo, out, bias, residual, pre);
      finish4(r1, row1 + mo, mo, out, bias, residual, pre);
    }
    if (N2 < N) {
      const x0 = inp + <usize>N2 * kb, row0 = <usize>N2 * mb;
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
  }
  for (let n = 0; n < N; n++) {
    const x0 = inp + <usize>n * kb, row0 = <usize>n * mb;
    for (let mo = m4; mo < mb; mo += 4) finish1(dot(x0, w + (mo >> 2) * kb, k4, kb), row0 + mo, mo, out, bias, residual, pre);
  }
  if (pre) geluForward(out, pre, N * M);
}
