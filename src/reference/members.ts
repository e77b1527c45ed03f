// CPU reference of the member ops (a population's K runs stacked, see Members in
// src/backend.ts): each member runs today's op on its own rows and its own copy of
// the parameters. A member's numbers are therefore those of the same op run alone
// (bit for bit), and K = 1 is today's op. Row ranges come from the CSR offsets
// rowStart [K+1]; `stride`s are the elements between members' parameter copies.
import type { AdamWParams } from '../backend';
import * as nn from './nn';
import * as opt from './optim';
import type { F, I } from './nn';

/** Member k's rows [r0, r1) of a [N, width] array. */
function rows(x: F, rowStart: I, k: number, width: number): F {
  return x.subarray(rowStart[k] * width, rowStart[k + 1] * width);
}
/** Member k's copy (size elements) of a stacked parameter. */
function copyOf(x: F, k: number, stride: number, size: number): F {
  return x.subarray(k * stride, k * stride + size);
}
const K = (rowStart: I) => rowStart.length - 1;
const count = (rowStart: I, k: number) => rowStart[k + 1] - rowStart[k];

export function matmulForward(out: F, inp: F, w: F, bias: F | null, rowStart: I, IC: number, OC: number,
  wStride: number, bStride: number): void {
  for (let k = 0; k < K(rowStart); k++) {
    nn.matmulForward(rows(out, rowStart, k, OC), rows(inp, rowStart, k, IC), copyOf(w, k, wStride, OC * IC),
      bias ? copyOf(bias, k, bStride, OC) : null, count(rowStart, k), IC, OC);
  }
}

export function matmulBackward(dinp: F, dw: F, dbias: F | null, dout: F, inp: F, w: F, rowStart: I, IC: number, OC: number,
  wStride: number, bStride: number): void {
  for (let k = 0; k < K(rowStart); k++) {
    nn.matmulBackward(rows(dinp, rowStart, k, IC), copyOf(dw, k, wStride, OC * IC), dbias ? copyOf(dbias, k, bStride, OC) : null,
      rows(dout, rowStart, k, OC), rows(inp, rowStart, k, IC), copyOf(w, k, wStride, OC * IC), count(rowStart, k), IC, OC);
  }
}

export function layernormForward(out: F, mean: F, rstd: F, inp: F, w: F, b: F, rowStart: I, C: number, stride: number): void {
  for (let k = 0; k < K(rowStart); k++) {
    nn.layernormForward(rows(out, rowStart, k, C), rows(mean, rowStart, k, 1), rows(rstd, rowStart, k, 1), rows(inp, rowStart, k, C),
      copyOf(w, k, stride, C), copyOf(b, k, stride, C), count(rowStart, k), C);
  }
}

export function layernormBackward(dinp: F, dw: F, db: F, dout: F, inp: F, w: F, mean: F, rstd: F, rowStart: I, C: number,
  stride: number): void {
  for (let k = 0; k < K(rowStart); k++) {
    nn.layernormBackward(rows(dinp, rowStart, k, C), copyOf(dw, k, stride, C), copyOf(db, k, stride, C), rows(dout, rowStart, k, C),
      rows(inp, rowStart, k, C), copyOf(w, k, stride, C), rows(mean, rowStart, k, 1), rows(rstd, rowStart, k, 1), count(rowStart, k), C);
  }
}

// Positions count from each member's first row (n - rowStart[k]) % T, as in a lone run.
export function embeddingForward(out: F, tokens: I, wte: F, wpe: F, rowStart: I, T: number, C: number,
  wteStride: number, wpeStride: number): void {
  for (let k = 0; k < K(rowStart); k++) {
    nn.embeddingForward(rows(out, rowStart, k, C), tokens.subarray(rowStart[k], rowStart[k + 1]), copyOf(wte, k, wteStride, wteStride),
      copyOf(wpe, k, wpeStride, T * C), count(rowStart, k), T, C);
  }
}

export function embeddingBackward(dwte: F, dwpe: F, dout: F, tokens: I, rowStart: I, T: number, C: number,
  wteStride: number, wpeStride: number): void {
  for (let k = 0; k < K(rowStart); k++) {
    nn.embeddingBackward(copyOf(dwte, k, wteStride, wteStride), copyOf(dwpe, k, wpeStride, T * C), rows(dout, rowStart, k, C),
      tokens.subarray(rowStart[k], rowStart[k + 1]), count(rowStart, k), T, C);
  }
}

/** rowStart counts sequences here (one output row per sequence). */
export function embeddingLast(out: F, tokens: I, pos: I, wte: F, wpe: F, rowStart: I, T: number, C: number,
  wteStride: number, wpeStride: number): void {
  for (let k = 0; k < K(rowStart); k++) {
    nn.embeddingLast(rows(out, rowStart, k, C), tokens.subarray(rowStart[k] * T, rowStart[k + 1] * T), pos.subarray(rowStart[k], rowStart[k + 1]),
      copyOf(wte, k, wteStride, wteStride), copyOf(wpe, k, wpeStride, T * C), count(rowStart, k), T, C);
  }
}

/** out[k] = sum of squares of member k's segment x[k*stride, k*stride + n). */
export function sumSquares(out: F, x: F, n: number, members: number, stride: number): void {
  for (let k = 0; k < members; k++) opt.sumSquares(out.subarray(k, k + 1), copyOf(x, k, stride, n), n);
}

export function clipScale(scale: F, normSq: F, maxNorm: number, members: number): void {
  for (let k = 0; k < members; k++) opt.clipScale(scale.subarray(k, k + 1), normSq.subarray(k, k + 1), maxNorm);
}

/** Member k steps with scale[k] and lr[k]; decayMask [n] is shared. */
export function adamw(params: F, grads: F, m: F, v: F, decayMask: F, scale: F, lr: F, n: number, hp: AdamWParams,
  members: number, stride: number): void {
  for (let k = 0; k < members; k++) {
    opt.adamw(copyOf(params, k, stride, n), copyOf(grads, k, stride, n), copyOf(m, k, stride, n), copyOf(v, k, stride, n), decayMask,
      scale.subarray(k, k + 1), n, { ...hp, lr: lr[k] });
  }
}
