// CPU reference of the model's layers, after llm.c's train_gpt2.c: plain loops,
// outputs first, then inputs, then sizes. Forward ops overwrite (=) their
// outputs; backward ops accumulate (+=) into gradients. Arrays are f32 or f64
// (f64 for finite-difference tests); the math is the same.
// Kernel twins: shaders/decode.wgsl, shaders/embedding.wgsl, shaders/gelu.wgsl, shaders/layernorm.wgsl, shaders/linear_backward.wgsl, shaders/residual.wgsl; tests: test/gpu/decode.test.ts, test/gpu/nn.test.ts, test/gpu/linearBackward.test.ts.

import { attentionBackward as attnBackward, attentionDecode as attnDecode, attentionForward as attnForward } from './attention';
import { colSum, gemmDinp, gemmDweight, gemmNT, iota, nonzeroRows } from './gemm';

import type { F } from './gemm';
export type { F };
export type I = Int32Array;

// out[n,:] = wte[tokens[n],:] + wpe[n % T,:]
export function embeddingForward(out: F, tokens: I, wte: F, wpe: F, N: number, T: number, C: number): void {
  for (let n = 0; n < N; n++) {
    const tok = tokens[n], t = n % T;
    for (let c = 0; c < C; c++) out[n * C + c] = wte[tok * C + c] + wpe[t * C + c];
  }
}

// out[b,:] = wte[tokens[b*T + t],:] + wpe[t,:], t = pos[b] - 1: the last token of each sequence (a decode step's input)
export function embeddingLast(out: F, tokens: I, pos: I, wte: F, wpe: F, B: number, T: number, C: number): void {
  for (let b = 0; b < B; b++) {
    const t = pos[b] - 1;
    if (t < 0 || t >= T) throw new Error(`embeddingLast: pos[${b}] = ${pos[b]} outside 1..${T}`);
    const tok = tokens[b * T + t];
    for (let c = 0; c < C; c++) out[b * C + c] = wte[tok * C + c] + wpe[t * C + c];
  }
}

export function embeddingBackward(dwte: F, dwpe: F, dout: F, tokens: I, N: number, T: number, C: number): void {
  for (let n = 0; n < N; n++) {
    const tok = tokens[n], t = n % T;
    for (let c = 0; c < C; c++) {
      const d = dout[n * C + c];
      dwte[tok * C + c] += d;
      dwpe[t * C + c] += d;
    }
  }
}

const LN_EPS = 1e-5;

export function layernormForward(out: F, mean: F, rstd: F, inp: F, w: F, b: F, N: number, C: number): void {
  for (let n = 0; n < N; n++) {
    const o = n * C, e = o + C;
    let m = 0;
    for (let j = o; j < e; j++) m += inp[j];
    m /= C;
    let v = 0;
    for (let j = o; j < e; j++) { const d = inp[j] - m; v += d * d; }
    v /= C; // biased variance, as PyTorch's LayerNorm
    const s = 1 / Math.sqrt(v + LN_EPS);
    for (let c = 0; c < C; c++) out[o + c] = (inp[o + c] - m) * s * w[c] + b[c];
    mean[n] = m;
    rstd[n] = s;
  }
}

let lnAcc = new Float64Array(0); // [2C]: dw and db sums over rows, added once

export function layernormBackward(dinp: F, dw: F, db: F, dout: F, inp: F, w: F, mean: F, rstd: F, N: number, C: number): void {
  if (lnAcc.length < 2 * C) lnAcc = new Float64Array(2 * C);
  const acc = lnAcc;
  acc.fill(0, 0, 2 * C);
  for (let n = 0; n < N; n++) {
    const o = n * C, m = mean[n], s = rstd[n];
    // two reductions: mean of dnorm and mean of dnorm * norm
    let dnormMean = 0, dnormNormMean = 0;
    for (let c = 0; c < C; c++) {
      const dnorm = w[c] * dout[o + c];
      dnormMean += dnorm;
      dnormNormMean += dnorm * (inp[o + c] - m) * s;
    }
    dnormMean /= C;
    dnormNormMean /= C;
    if (dnormMean === 0 && dnormNormMean === 0) {
      // dout row all zero (masked): dinp, dw and db get exact zeros; skip the row
      let any = false;
      for (let c = 0; c < C; c++) if (dout[o + c] !== 0) { any = true; break; }
      if (!any) continue;
    }
    for (let c = 0; c < C; c++) {
      const g = dout[o + c], norm = (inp[o + c] - m) * s;
      acc[C + c] += g;
      acc[c] += norm * g;
      dinp[o + c] += (w[c] * g - dnormMean - norm * dnormNormMean) * s;
    }
  }
  for (let c = 0; c < C; c++) { dw[c] += acc[c]; db[c] += acc[C + c]; }
}

// out[N,OC] = inp[N,IC] @ w[OC,IC]^T + bias  (4x4 register-blocked, see gemm.ts)
export function matmulForward(out: F, inp: F, w: F, bias: F | null, N: number, IC: number, OC: number): void {
  gemmNT(out, inp, w, bias, iota(N), N, IC, OC, false);
}

// dinp += dout @ w; dw += dout^T @ inp; dbias += colsum(dout). Rows of dout that are all zero
// (masked positions) contribute nothing and are skipped.
export function matmulBackward(dinp: F, dw: F, dbias: F | null, dout: F, inp: F, w: F, N: number, IC: number, OC: number): void {
  const [rows, R] = nonzeroRows(dout, N, OC);
  if (R === 0) return;
  gemmDinp(dinp, dout, w, rows, R, IC, OC);
  gemmDweight(dw, dout, inp, rows, R, IC, OC);
  if (dbias) colSum(dbias, dout, rows, R, OC);
}

// Causal self-attention. qkv [B,T,3C], out [B,T,C], att [B,NH,T,T] (softmax probs, 0 above the diagonal).
// Kernels in attention.ts (blocked per batch and head).
export function attentionForward(out: F, att: F, qkv: F, B: number, T: number, C: number, NH: number): void {
  attnForward(out, att, qkv, B, T, C, NH);
}

/** dpreatt [B,NH,T,T] is scratch (overwritten: the scaled pre-softmax gradient, 0 above the diagonal). */
export function attentionBackward(dqkv: F, dpreatt: F, dout: F, qkv: F, att: F, B: number, T: number, C: number, NH: number): void {
  attnBackward(dqkv, dpreatt, dout, qkv, att, B, T, C, NH);
}

/** dst[r*dstStride + i] = src[floor(r/repeat)*srcStride + i] for r < rows, i < width (a prefill's q, k, v into the KV cache). */
export function copyRows(dst: F, src: F, rows: number, width: number, dstStride: number, srcStride: number, repeat = 1): void {
  for (let r = 0; r < rows; r++) {
    const s = Math.floor(r / repeat) * srcStride;
    dst.set(src.subarray(s, s + width), r * dstStride);
  }
}

/** dst[b,:] = src's row floor(b/repeat)*T + pos[b] - 1 of `width` floats (each sequence's last row; Backend.gatherLast). */
export function gatherLast(dst: F, src: F, pos: I, B: number, T: number, width: number, repeat = 1): void {
  for (let b = 0; b < B; b++) if (!(pos[b] >= 1 && pos[b] <= T)) throw new Error(`gatherLast: pos[${b}] = ${pos[b]} outside 1..${T}`);
  for (let b = 0; b < B; b++) {
    const s = (Math.floor(b / repeat) * T + pos[b] - 1) * width;
    dst.set(src.subarray(s, s + width), b * width);
  }
}

/** A decode step over the KV cache (see attention.ts attentionDecode). */
export function attentionDecode(out: F, qkvCache: F, qkvNew: F, pos: I, B: number, T: number, C: number, NH: number): void {
  attnDecode(out, qkvCache, qkvNew, pos, B, T, C, NH);
}

const GELU_S = Math.sqrt(2 / Math.PI);

// 0.5 * (1 + tanh(u)) = sigmoid(2u) = e / (1 + e) with e = exp(2u): one Math.exp (cheaper than
// Math.tanh), no cancellation, no branch; 2u is capped at 700 so e stays finite (e / (1 + e) is 1 there).
export function geluForward(out: F, inp: F, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = inp[i], u = GELU_S * (x + 0.044715 * x * x * x);
    const e = Math.exp(Math.min(2 * u, 700));
    out[i] = x * (e / (1 + e));
  }
}

// d/dx [x * sigmoid(2u)] = sg + 2 x sg (1 - sg) du/dx, with 1 - sg = 1 / (1 + e)
export function geluBackward(dinp: F, inp: F, dout: F, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = inp[i], u = GELU_S * (x + 0.044715 * x * x * x);
    const e = Math.exp(Math.min(2 * u, 700)), d = 1 / (1 + e), sg = e * d;
    const du = GELU_S * (1 + 3 * 0.044715 * x * x);
    dinp[i] += dout[i] * (sg + 2 * x * sg * d * du);
  }
}

export function residualForward(out: F, a: F, b: F, n: number): void {
  for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
}

export function accumulate(dst: F, src: F, n: number): void {
  for (let i = 0; i < n; i++) dst[i] += src[i];
}
