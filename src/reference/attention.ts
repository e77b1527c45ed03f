// Causal self-attention kernels of the CPU reference, one (batch, head) at a
// time: scores and their gradients in f64 scratch matrices [T, T], dot products
// 4 keys at a time, outputs and gradients summed in local accumulators 4 lanes
// at a time and written once. No allocation per call once scratch has grown.
// Kernel twins: shaders/attention.wgsl (with shaders/attention.forward.wgsl, shaders/attention.backward.wgsl), shaders/decode.wgsl; tests: test/gpu/nn.test.ts, test/gpu/decode.test.ts.
import type { F } from './gemm';

let S64 = new Float64Array(0); // [T, T] scores, then probabilities, of one (b, h)

function scratch(T: number): Float64Array {
  if (S64.length < T * T) S64 = new Float64Array(T * T);
  return S64;
}

// qkv [B,T,3C], out [B,T,C], att [B,NH,T,T] (softmax probs, 0 above the diagonal).
export function attentionForward(out: F, att: F, qkv: F, B: number, T: number, C: number, NH: number): void {
  const hs = C / NH, scale = 1 / Math.sqrt(hs), C3 = 3 * C, hs4 = hs - (hs & 3);
  const S = scratch(T);
  for (let b = 0; b < B; b++) for (let h = 0; h < NH; h++) {
    const base = b * T * C3 + h * hs; // q of token 0 of this head; k at +C, v at +2C
    const abase = (b * NH + h) * T * T;
    for (let t = 0; t < T; t++) {
      const q = base + t * C3, row = t * T;
      let max = -Infinity, t2 = 0;
      for (; t2 + 3 <= t; t2 += 4) {
        const k0 = base + C + t2 * C3, k1 = k0 + C3, k2 = k1 + C3, k3 = k2 + C3;
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (let i = 0; i < hs; i++) {
          const x = qkv[q + i];
          s0 += x * qkv[k0 + i]; s1 += x * qkv[k1 + i]; s2 += x * qkv[k2 + i]; s3 += x * qkv[k3 + i];
        }
        s0 *= scale; s1 *= scale; s2 *= scale; s3 *= scale;
        S[row + t2] = s0; S[row + t2 + 1] = s1; S[row + t2 + 2] = s2; S[row + t2 + 3] = s3;
        if (s0 > max) max = s0;
        if (s1 > max) max = s1;
        if (s2 > max) max = s2;
        if (s3 > max) max = s3;
      }
      for (; t2 <= t; t2++) {
        const k0 = base + C + t2 * C3;
        let s = 0;
        for (let i = 0; i < hs; i++) s += qkv[q + i] * qkv[k0 + i];
        s *= scale;
        S[row + t2] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      for (let j = 0; j <= t; j++) { const e = Math.exp(S[row + j] - max); S[row + j] = e; sum += e; }
      const a = abase + row;
      for (let j = 0; j <= t; j++) { const p = S[row + j] / sum; S[row + j] = p; att[a + j] = p; }
      for (let j = t + 1; j < T; j++) att[a + j] = 0;
      // out[t] = sum_j p[j] v[j]
      const o = (b * T + t) * C + h * hs;
      let i = 0;
      for (; i < hs4; i += 4) {
        let a0 = 0, a1 = 0, a2 = 0, a3 = 0, v = base + 2 * C + i;
        for (let j = 0; j <= t; j++, v += C3) {
          const p = S[row + j];
          a0 += p * qkv[v]; a1 += p * qkv[v + 1]; a2 += p * qkv[v + 2]; a3 += p * qkv[v + 3];
        }
        out[o + i] = a0; out[o + i + 1] = a1; out[o + i + 2] = a2; out[o + i + 3] = a3;
      }
      for (; i < hs; i++) {
        let a0 = 0, v = base + 2 * C + i;
        for (let j = 0; j <= t; j++, v += C3) a0 += S[row + j] * qkv[v];
        out[o + i] = a0;
      }
    }
  }
}

export function attentionBackward(dqkv: F, dpreatt: F, dout: F, qkv: F, att: F, B: number, T: number, C: number, NH: number): void {
  const hs = C / NH, scale = 1 / Math.sqrt(hs), C3 = 3 * C, hs4 = hs - (hs & 3);
  const D = scratch(T); // d(pre-softmax scores) of one (b, h)
  for (let b = 0; b < B; b++) for (let h = 0; h < NH; h++) {
    const base = b * T * C3 + h * hs; // q of token 0 of this head; k at +C, v at +2C
    const abase = (b * NH + h) * T * T;
    const obase = b * T * C + h * hs; // dout of token 0 of this head
    // 1. datt[t,j] = dout[t] . v[j]; D = softmax backward, scaled
    for (let t = 0; t < T; t++) {
      const o = obase + t * C, row = t * T, a = abase + row;
      let dot = 0, j = 0;
      for (; j + 3 <= t; j += 4) {
        const v0 = base + 2 * C + j * C3, v1 = v0 + C3, v2 = v1 + C3, v3 = v2 + C3;
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (let i = 0; i < hs; i++) {
          const x = dout[o + i];
          s0 += x * qkv[v0 + i]; s1 += x * qkv[v1 + i]; s2 += x * qkv[v2 + i]; s3 += x * qkv[v3 + i];
        }
        D[row + j] = s0; D[row + j + 1] = s1; D[row + j + 2] = s2; D[row + j + 3] = s3;
        dot += att[a + j] * s0 + att[a + j + 1] * s1 + att[a + j + 2] * s2 + att[a + j + 3] * s3;
      }
      for (; j <= t; j++) {
        const v0 = base + 2 * C + j * C3;
        let s = 0;
        for (let i = 0; i < hs; i++) s += dout[o + i] * qkv[v0 + i];
        D[row + j] = s;
        dot += att[a + j] * s;
      }
      for (let k = 0; k <= t; k++) {
        const d = att[a + k] * (D[row + k] - dot) * scale;
        D[row + k] = d;
        dpreatt[a + k] = d;
      }
      for (let k = t + 1; k < T; k++) dpreatt[a + k] = 0;
    }
    // 2. dq[t] += sum_{j<=t} D[t,j] k[j]
    for (let t = 0; t < T; t++) {
      const dq = base + t * C3, row = t * T;
      let i = 0;
      for (; i < hs4; i += 4) {
        let a0 = 0, a1 = 0, a2 = 0, a3 = 0, k = base + C + i;
        for (let j = 0; j <= t; j++, k += C3) {
          const d = D[row + j];
          a0 += d * qkv[k]; a1 += d * qkv[k + 1]; a2 += d * qkv[k + 2]; a3 += d * qkv[k + 3];
        }
        dqkv[dq + i] += a0; dqkv[dq + i + 1] += a1; dqkv[dq + i + 2] += a2; dqkv[dq + i + 3] += a3;
      }
      for (; i < hs; i++) {
        let a0 = 0, k = base + C + i;
        for (let j = 0; j <= t; j++, k += C3) a0 += D[row + j] * qkv[k];
        dqkv[dq + i] += a0;
      }
    }
    // 3. dk[j] += sum_{t>=j} D[t,j] q[t];  dv[j] += sum_{t>=j} att[t,j] dout[t]
    for (let j = 0; j < T; j++) {
      const dk = base + C + j * C3, dv = dk + C;
      let i = 0;
      for (; i < hs4; i += 4) {
        let k0 = 0, k1 = 0, k2 = 0, k3 = 0, v0 = 0, v1 = 0, v2 = 0, v3 = 0;
        let q = base + j * C3 + i, o = obase + j * C + i, r = j * T + j;
        for (let t = j; t < T; t++, q += C3, o += C, r += T) {
          const d = D[r], p = att[abase + r];
          k0 += d * qkv[q]; k1 += d * qkv[q + 1]; k2 += d * qkv[q + 2]; k3 += d * qkv[q + 3];
          v0 += p * dout[o]; v1 += p * dout[o + 1]; v2 += p * dout[o + 2]; v3 += p * dout[o + 3];
        }
        dqkv[dk + i] += k0; dqkv[dk + i + 1] += k1; dqkv[dk + i + 2] += k2; dqkv[dk + i + 3] += k3;
        dqkv[dv + i] += v0; dqkv[dv + i + 1] += v1; dqkv[dv + i + 2] += v2; dqkv[dv + i + 3] += v3;
      }
      for (; i < hs; i++) {
        let k0 = 0, v0 = 0, q = base + j * C3 + i, o = obase + j * C + i, r = j * T + j;
        for (let t = j; t < T; t++, q += C3, o += C, r += T) { k0 += D[r] * qkv[q]; v0 += att[abase + r] * dout[o]; }
        dqkv[dk + i] += k0; dqkv[dv + i] += v0;
      }
    }
  }
}

/**
 * One decode step (docs/rl.md section 1): qkvNew [B,3C] is written to row t = pos[b] - 1 of qkvCache [B,T,3C], then
 * out [B,C] = attention of that row's q over cache rows 0..t. The sums run in the same order as attentionForward's
 * row t, so a decode step gives the same numbers as the full forward, bit for bit.
 */
export function attentionDecode(out: F, qkvCache: F, qkvNew: F, pos: Int32Array, B: number, T: number, C: number, NH: number): void {
  const hs = C / NH, scale = 1 / Math.sqrt(hs), C3 = 3 * C;
  const S = scratch(T);
  for (let b = 0; b < B; b++) {
    const t = pos[b] - 1;
    if (t < 0 || t >= T) throw new Error(`attentionDecode: pos[${b}] = ${pos[b]} outside 1..${T}`);
    const row = (b * T + t) * C3;
    for (let c = 0; c < C3; c++) qkvCache[row + c] = qkvNew[b * C3 + c];
    for (let h = 0; h < NH; h++) {
      const base = b * T * C3 + h * hs, q = row + h * hs;
      let max = -Infinity;
      for (let j = 0; j <= t; j++) {
        const k0 = base + C + j * C3;
        let s = 0;
        for (let i = 0; i < hs; i++) s += qkvCache[q + i] * qkvCache[k0 + i];
        s *= scale;
        S[j] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      for (let j = 0; j <= t; j++) { const e = Math.exp(S[j] - max); S[j] = e; sum += e; }
      for (let j = 0; j <= t; j++) S[j] = S[j] / sum;
      const o = b * C + h * hs;
      for (let i = 0; i < hs; i++) {
        let a0 = 0, v = base + 2 * C + i;
        for (let j = 0; j <= t; j++, v += C3) a0 += S[j] * qkvCache[v];
        out[o + i] = a0;
      }
    }
  }
}
