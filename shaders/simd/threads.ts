// The threaded build's entry (scripts/buildWasm.ts 'threads'): every kernel of index.ts, on a memory
// imported from the host and shared with the worker threads (src/simd/threads.ts), plus
// threadChunk, which runs one fixed chunk of a split op: the matmul family, attention (forward,
// backward, decode), a whole decode step (decode.ts), the GELU backward, the layer norm forward, AdamW and the log-softmax heads. Chunks
// are cut from the output (CHUNK rows of out, dinp, a layer norm or log-prob head, CHUNK output features of
// dweight, one sequence of attention, GELU_CHUNK or ADAMW_CHUNK elements), never from a sum,
// and their size does not depend on the thread count: each output element is summed by one call, over
// the same terms in the same order as the one-thread kernel, so results are bit for bit those of any
// thread count.
export * from './index';
export { setThreadSlot } from './slot';
import { matmulForward, dinpRows, dweightFeatures, dbiasFeatures, nonzeroFlags } from './matmul';
import { attentionForward, attentionBackward, attentionDecode } from './attention';
import { geluBackward } from './gelu';
import { layernormForward, layernormBackwardRows, layernormBackwardParams } from './layernorm';
import { adamw, copyRowsFrom } from './optim';
import { logprobForward, logprobBackward } from './logsoftmax';
import { decodeRows } from './decode';

/** Rows (forward, dinp) or output features (dweight) per chunk: even, so the kernels' pairs of rows are the one-thread pairs. */
export const CHUNK = 16;

/** Elements per chunk of the GELU backward: a multiple of 4, so every chunk's vector part is the one-thread kernel's. */
export const GELU_CHUNK = 4096;

/** Elements per chunk of AdamW: a multiple of 4, so every chunk's vector part is the one-thread kernel's. */
export const ADAMW_CHUNK = 4096;

/** Ops of threadChunk. */
const FORWARD = 1;
const BACKWARD = 2;
const ATTENTION_FORWARD = 3;
const ATTENTION_BACKWARD = 4;
const ATTENTION_DECODE = 5;
const GELU_BACKWARD = 6;
const LAYERNORM_FORWARD = 7;
const ADAMW = 8;
const LOGPROB_FORWARD = 9;
const LOGPROB_BACKWARD = 10;
const NONZERO_FLAGS = 11;
const LAYERNORM_BACKWARD = 12;
const COPY_ROWS = 13;
const DECODE_STEP = 14;

/**
 * One chunk c of an op. FORWARD (p0..p5 = out, inp, w, bias, residual, pre; a = N, b = K, d = M): rows
 * [c * CHUNK, +CHUNK) of out. BACKWARD (p0..p5 = dinp, dw, dout, inp, w, rows; a = R, b = IC, d = OC; e = N
 * when dinp [N, IC] is overwritten, else -1): the first ceil(OC / CHUNK) chunks are CHUNK output features of dw, the
 * rest CHUNK listed rows of dinp each (and, overwriting, the unlisted rows before them; the last chunk those after them too).
 * With p6 != 0 (dbias) each dw chunk sums its features' dbias too. ATTENTION_BACKWARD and GELU_BACKWARD: e = 1
 * when their output is overwritten (= 0 + the sums), else 0. NONZERO_FLAGS (p0 = flags, p1 = x; a = N, b = M): rows
 * [c * CHUNK * 4, +CHUNK * 4) flagged (nonzeroRows's test); the caller then lists them (flagsToRows).
 */
export function threadChunk(op: i32, c: i32, p0: usize, p1: usize, p2: usize, p3: usize, p4: usize, p5: usize, a: i32, b: i32, d: i32, e: i32, p6: usize): void {
  if (op == DECODE_STEP) { // p0 = the block (decode.ts); chunk c is the i32 triple (first row, rows, member) at p1 + 12 c
    const t = p1 + <usize>c * 12;
    decodeRows(p0, load<i32>(t), load<i32>(t, 4), load<i32>(t, 8));
    return;
  }
  if (op == LAYERNORM_BACKWARD) {
    layernormBackwardChunk(c, p0, p1, p2, p3, p4, p5, p6, a, b, e);
    return;
  }
  if (op >= LAYERNORM_FORWARD) {
    rowwiseChunk(op, c, p0, p1, p2, p3, p4, p5, a, b, d);
    return;
  }
  if (op >= ATTENTION_FORWARD) {
    otherChunk(op, c, p0, p1, p2, p3, p4, p5, p6, a, b, d, e != 0);
    return;
  }
  if (op == FORWARD) {
    const r0 = c * CHUNK, n = min(CHUNK, a - r0), ob = <usize>r0 * (<usize>d << 2);
    matmulForward(p0 + ob, p1 + <usize>r0 * (<usize>b << 2), p2, p3, p4 ? p4 + ob : 0, p5 ? p5 + ob : 0, n, b, d);
    return;
  }
  // the dweight chunks first: each sums every listed row (R / CHUNK times a dinp chunk's work), so one claimed last
  // kept the other threads waiting for it; claimed first, the small dinp chunks even out the end
  const nw = (d + CHUNK - 1) / CHUNK;
  if (c < nw) {
    const o0 = c * CHUNK, o1 = min(o0 + CHUNK, d);
    dweightFeatures(p1, p2, p3, p5, a, b, d, o0, o1);
    if (p6) dbiasFeatures(p6, p2, p5, a, d, o0, o1);
    return;
  }
  const j0 = (c - nw) * CHUNK, n = min(CHUNK, a - j0);
  dinpRows(p0, p2, p4, p5 + (<usize>j0 << 2), n, b, d, e >= 0, j0, j0 + n == a ? e : -1);
}

/**
 * The chunks of the ops outside the matmul family. Attention (a = T, b = C, d = NH; p5 = S sequences a chunk, p6 =
 * B): chunk c is sequences [c * S, min(c * S + S, B)), the one-thread kernel called on those sequences' rows
 * (sequences never share an output, so S changes no result). A decode chunk's sequences share their first one's scratch. ATTENTION_FORWARD:
 * p0..p2 = out, att, qkv. ATTENTION_BACKWARD: p0..p4 = dqkv, dpreatt, dout, qkv, att. ATTENTION_DECODE: p0..p4 = out,
 * qkvCache, qkvNew, pos, scratch (T floats per sequence: each chunk its own). GELU_BACKWARD (p0..p2 = dinp, inp, dout;
 * a = n): elements [c * GELU_CHUNK, +GELU_CHUNK).
 */
function otherChunk(op: i32, c: i32, p0: usize, p1: usize, p2: usize, p3: usize, p4: usize, S: usize, B: usize, a: i32, b: i32, d: i32, overwrite: bool): void {
  if (op == GELU_BACKWARD) {
    const e0 = c * GELU_CHUNK, at = <usize>e0 << 2;
    geluBackward(p0 + at, p1 + at, p2 + at, min(GELU_CHUNK, a - e0), overwrite);
    return;
  }
  const T = <usize>a, C = <usize>b, NH = <usize>d, seq = <usize>c * S, n = <i32>min(S, B - seq);
  const rows3 = (seq * T * 3 * C) << 2, rows = (seq * T * C) << 2, att = (seq * NH * T * T) << 2;
  if (op == ATTENTION_FORWARD) attentionForward(p0 + rows, p1 + att, p2 + rows3, n, a, b, d);
  else if (op == ATTENTION_BACKWARD) attentionBackward(p0 + rows3, p1 + att, p2 + rows, p3 + rows3, p4 + att, n, a, b, d, overwrite);
  else attentionDecode(p0 + ((seq * C) << 2), p1 + rows3, p2 + ((seq * 3 * C) << 2), p3 + (seq << 2), p4 + ((seq * T) << 2), n, a, b, d);
}

/**
 * The chunks of the row-wise and element-wise ops, each the one-thread kernel on its rows or elements.
 * LAYERNORM_FORWARD (p0..p5 = out, mean, rstd, inp, w, b; a = N, b = C): rows [c * CHUNK * 4, +CHUNK * 4).
 * ADAMW (p0..p5 = params, grads, m, v, mask, hyper: 8 f32 lr, beta1, beta2, eps, wd, bc1, bc2, k; a = n):
 * elements [c * ADAMW_CHUNK, +ADAMW_CHUNK). LOGPROB_FORWARD (p0..p4 = logp, entropy, logits, targets, scratch) and
 * LOGPROB_BACKWARD (p0..p4 = dlogits, dlogp, logits, targets, scratch), a = N, b = V, d = the temperature's f32 bits:
 * rows [c * CHUNK, +CHUNK), each chunk its own scratch of (V + 4) & ~3 floats.
 */
function rowwiseChunk(op: i32, c: i32, p0: usize, p1: usize, p2: usize, p3: usize, p4: usize, p5: usize, a: i32, b: i32, d: i32): void {
  if (op == COPY_ROWS) {
    // p0 = dst, p1 = src, p2 = repeat; a = rows, b = width, d = dstStride, and srcStride in p3: rows [c * CHUNK * 4, +CHUNK * 4)
    const r0 = c * CHUNK * 4;
    copyRowsFrom(p0, p1, r0, min(r0 + CHUNK * 4, a), b, d, <i32>p3, <i32>p2);
    return;
  }
  if (op == NONZERO_FLAGS) {
    const n0 = c * CHUNK * 4;
    nonzeroFlags(p0, p1, n0, min(n0 + CHUNK * 4, a), b);
    return;
  }
  if (op == ADAMW) {
    const e0 = c * ADAMW_CHUNK, at = <usize>e0 << 2;
    adamw(p0 + at, p1 + at, p2 + at, p3 + at, p4 + at, min(ADAMW_CHUNK, a - e0), load<f32>(p5), load<f32>(p5, 4), load<f32>(p5, 8),
      load<f32>(p5, 12), load<f32>(p5, 16), load<f32>(p5, 20), load<f32>(p5, 24), load<f32>(p5, 28));
    return;
  }
  if (op == LAYERNORM_FORWARD) {
    // CHUNK * 4 rows: a layer norm's row is a few hundred operations, so CHUNK rows were mostly the chunk's claim
    const r0 = c * CHUNK * 4, r = <usize>r0, rows = (r * <usize>b) << 2;
    layernormForward(p0 + rows, p1 + (r << 2), p2 + (r << 2), p3 + rows, p4, p5, min(CHUNK * 4, a - r0), b);
    return;
  }
  const r0 = c * CHUNK, n = min(CHUNK, a - r0), r = <usize>r0;
  const rows = (r * <usize>b) << 2, e = p4 + ((<usize>c * <usize>((b + 4) & ~3)) << 2), tau = reinterpret<f32>(d);
  if (op == LOGPROB_FORWARD) logprobForward(p0 + (r << 2), p1 + (r << 2), p2 + rows, p3 + (r << 2), e, n, b, tau);
  else logprobBackward(p0 + rows, p1 + (r << 2), p2 + rows, p3 + (r << 2), e, n, b, tau);
}

/**
 * LAYERNORM_BACKWARD (p0..p5 = dinp, dw, db, dout, inp, w; p6 = 3 u32: mean, rstd, rows (the R rows of dout with a
 * nonzero, in order); a = R, b = C; e = N when dinp [N, C] is overwritten, else -1): the first ceil(R / CHUNK) chunks
 * are CHUNK listed rows of dinp (overwriting, with the unlisted rows before them; the last chunk those after them
 * too), the rest 16 features each of dw and db, summed over every listed row in order.
 */
function layernormBackwardChunk(c: i32, dinp: usize, dw: usize, db: usize, dout: usize, inp: usize, w: usize, block: usize, R: i32, C: i32, e: i32): void {
  const mean = <usize>load<u32>(block), rstd = <usize>load<u32>(block, 4), rows = <usize>load<u32>(block, 8);
  const nr = (R + CHUNK - 1) / CHUNK;
  if (c < nr) {
    const j0 = c * CHUNK, n = min(CHUNK, R - j0);
    layernormBackwardRows(dinp, dout, inp, w, mean, rstd, rows + (<usize>j0 << 2), n, C, e >= 0, j0, j0 + n == R ? e : -1);
    return;
  }
  const c0 = (c - nr) * 16;
  layernormBackwardParams(dw, db, dout, inp, mean, rstd, rows, R, C, c0, min(c0 + 16, C));
}
