// CPU reference of the model's layers, after llm.c's train_gpt2.c: plain loops,
// outputs first, then inputs, then sizes. Forward ops overwrite (=) their
// outputs; backward ops accumulate (+=) into gradients. Arrays are f32 or f64
// (f64 for finite-difference tests); the math is the same.

import { colSum, gemmDinp, gemmDweight, gemmNT, iota, nonzeroRows } from './gemm';

export type F = Float32Array | Float64Array;
export type I = Int32Array;

// out[n,:] = wte[tokens[n],:] + wpe[n % T,:]
export function embeddingForward(out: F, tokens: I, wte: F, wpe: F, N: number, T: number, C: number): void {
  for (let n = 0; n < N; n++) {
    const tok = tokens[n], t = n % T;
    for (let c = 0; c < C; c++) out[n * C + c] = wte[tok * C + c] + wpe[t * C + c];
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
    const o = n * C;
    let m = 0;
    for (let c = 0; c < C; c++) m += inp[o + c];
    m /= C;
    let v = 0;
    for (let c = 0; c < C; c++) { const d = inp[o + c] - m; v += d * d; }
    v /= C; // biased variance, as PyTorch's LayerNorm
    const s = 1 / Math.sqrt(v + LN_EPS);
    for (let c = 0; c < C; c++) out[o + c] = (inp[o + c] - m) * s * w[c] + b[c];
    mean[n] = m;
    rstd[n] = s;
  }
}

export function layernormBackward(dinp: F, dw: F, db: F, dout: F, inp: F, w: F, mean: F, rstd: F, N: number, C: number): void {
  for (let n = 0; n < N; n++) {
    const o = n * C, m = mean[n], s = rstd[n];
    // two reductions: mean of dnorm and mean of dnorm * norm
    let dnormMean = 0, dnormNormMean = 0;
    for (let c = 0; c < C; c++) {
      const norm = (inp[o + c] - m) * s;
      const dnorm = w[c] * dout[o + c];
      dnormMean += dnorm;
      dnormNormMean += dnorm * norm;
    }
    dnormMean /= C;
    dnormNormMean /= C;
    for (let c = 0; c < C; c++) {
      const norm = (inp[o + c] - m) * s;
      const dnorm = w[c] * dout[o + c];
      db[c] += dout[o + c];
      dw[c] += norm * dout[o + c];
      dinp[o + c] += (dnorm - dnormMean - norm * dnormNormMean) * s;
    }
  }
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
export function attentionForward(out: F, att: F, qkv: F, B: number, T: number, C: number, NH: number): void {
  const hs = C / NH, scale = 1 / Math.sqrt(hs), C3 = 3 * C;
  for (let b = 0; b < B; b++) for (let h = 0; h < NH; h++) for (let t = 0; t < T; t++) {
    const q = b * T * C3 + t * C3 + h * hs;
    const a = ((b * NH + h) * T + t) * T;
    let max = -Infinity;
    for (let t2 = 0; t2 <= t; t2++) {
      const k = b * T * C3 + t2 * C3 + C + h * hs;
      let s = 0;
      for (let i = 0; i < hs; i++) s += qkv[q + i] * qkv[k + i];
      s *= scale;
      att[a + t2] = s;
      if (s > max) max = s;
    }
    let sum = 0;
    for (let t2 = 0; t2 <= t; t2++) { const e = Math.exp(att[a + t2] - max); att[a + t2] = e; sum += e; }
    for (let t2 = 0; t2 < T; t2++) att[a + t2] = t2 <= t ? att[a + t2] / sum : 0;
    const o = b * T * C + t * C + h * hs;
    for (let i = 0; i < hs; i++) out[o + i] = 0;
    for (let t2 = 0; t2 <= t; t2++) {
      const v = b * T * C3 + t2 * C3 + 2 * C + h * hs, p = att[a + t2];
      for (let i = 0; i < hs; i++) out[o + i] += p * qkv[v + i];
    }
  }
}

export function attentionBackward(dqkv: F, dpreatt: F, dout: F, qkv: F, att: F, B: number, T: number, C: number, NH: number): void {
  const hs = C / NH, scale = 1 / Math.sqrt(hs), C3 = 3 * C;
  dpreatt.fill(0, 0, B * NH * T * T);
  for (let b = 0; b < B; b++) for (let h = 0; h < NH; h++) for (let t = 0; t < T; t++) {
    const a = ((b * NH + h) * T + t) * T;
    const o = b * T * C + t * C + h * hs;
    // datt[t2] = dout[t] . v[t2]; dv[t2] += att[t,t2] * dout[t]
    let dot = 0; // sum_t2 att * datt, for the softmax backward
    const datt = new Float64Array(t + 1);
    for (let t2 = 0; t2 <= t; t2++) {
      const v = b * T * C3 + t2 * C3 + 2 * C + h * hs, p = att[a + t2];
      let s = 0;
      for (let i = 0; i < hs; i++) { s += dout[o + i] * qkv[v + i]; dqkv[v + i] += p * dout[o + i]; }
      datt[t2] = s;
      dot += p * s;
    }
    const q = b * T * C3 + t * C3 + h * hs;
    for (let t2 = 0; t2 <= t; t2++) {
      const d = att[a + t2] * (datt[t2] - dot) * scale;
      dpreatt[a + t2] = d;
      const k = b * T * C3 + t2 * C3 + C + h * hs;
      for (let i = 0; i < hs; i++) { dqkv[q + i] += d * qkv[k + i]; dqkv[k + i] += d * qkv[q + i]; }
    }
  }
}

const GELU_S = Math.sqrt(2 / Math.PI);

export function geluForward(out: F, inp: F, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = inp[i];
    out[i] = 0.5 * x * (1 + Math.tanh(GELU_S * (x + 0.044715 * x * x * x)));
  }
}

export function geluBackward(dinp: F, inp: F, dout: F, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = inp[i], u = GELU_S * (x + 0.044715 * x * x * x), th = Math.tanh(u);
    const du = GELU_S * (1 + 3 * 0.044715 * x * x);
    dinp[i] += dout[i] * (0.5 * (1 + th) + 0.5 * x * (1 - th * th) * du);
  }
}

export function residualForward(out: F, a: F, b: F, n: number): void {
  for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
}

export function accumulate(dst: F, src: F, n: number): void {
  for (let i = 0; i < n; i++) dst[i] += src[i];
}
