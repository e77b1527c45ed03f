// The threaded build's entry (scripts/buildWasm.ts 'threads'): every kernel of index.ts, on a memory
// imported from the host and shared with the worker threads (src/simd/threads.ts), plus
// threadChunk, which runs one fixed chunk of a matmul-family op. Chunks are cut from the output
// (CHUNK rows of out or dinp, CHUNK output features of dweight), never from a sum, and their size does
// not depend on the thread count: each output element is summed by one call, over the same terms
// in the same order as the one-thread kernel, so results are bit for bit those of any thread count.
export * from './index';
import { matmulForward, matmulDinp, rowAccumulate, rowAccumulate2, ROW_TILE } from './matmul';

/** Rows (forward, dinp) or output features (dweight) per chunk: even, so the kernels' pairs of rows are the one-thread pairs. */
export const CHUNK = 16;

/** Ops of threadChunk. */
const FORWARD = 1;
const BACKWARD = 2;

/**
 * One chunk c of an op. FORWARD (p0..p5 = out, inp, w, bias, residual, pre; a = N, b = K, d = M): rows
 * [c * CHUNK, +CHUNK) of out. BACKWARD (p0..p5 = dinp, dw, dout, inp, w, rows; a = R, b = IC, d = OC):
 * the first ceil(R / CHUNK) chunks are CHUNK listed rows of dinp, the rest CHUNK output features of dw.
 */
export function threadChunk(op: i32, c: i32, p0: usize, p1: usize, p2: usize, p3: usize, p4: usize, p5: usize, a: i32, b: i32, d: i32): void {
  if (op == FORWARD) {
    const r0 = c * CHUNK, n = min(CHUNK, a - r0), ob = <usize>r0 * (<usize>d << 2);
    matmulForward(p0 + ob, p1 + <usize>r0 * (<usize>b << 2), p2, p3, p4 ? p4 + ob : 0, p5 ? p5 + ob : 0, n, b, d);
    return;
  }
  const nd = (a + CHUNK - 1) / CHUNK;
  if (c < nd) {
    const j0 = c * CHUNK;
    matmulDinp(p0, p2, p4, p5 + (<usize>j0 << 2), min(CHUNK, a - j0), b, d);
    return;
  }
  const o0 = (c - nd) * CHUNK;
  dweightFeatures(p1, p2, p3, p5, a, b, d, o0, min(o0 + CHUNK, d));
}

/** matmulDweight restricted to output features [o0, o1) (o0 even): the same tiles, pairs and order per feature. */
function dweightFeatures(dw: usize, dout: usize, inp: usize, rows: usize, R: i32, IC: i32, OC: i32, o0: i32, o1: i32): void {
  const ib = <usize>IC << 2, ob = <usize>OC << 2;
  for (let j0 = 0; j0 < R; j0 += ROW_TILE) {
    const tile = min(ROW_TILE, R - j0), list = rows + (<usize>j0 << 2);
    let o = o0;
    for (; o + 1 < o1; o += 2) {
      rowAccumulate2(dw + <usize>o * ib, dw + <usize>(o + 1) * ib, IC, dout + (<usize>o << 2), dout + (<usize>(o + 1) << 2), ob, inp, ib, list, tile);
    }
    if (o < o1) rowAccumulate(dw + <usize>o * ib, IC, dout + (<usize>o << 2), ob, inp, ib, list, tile);
  }
}
