// Register-blocked matrix kernels behind the CPU reference's matmul. Plain JS
// scalar code tuned for V8: 4x4 blocks with 16 local (double) accumulators,
// inner loops over contiguous memory, no allocation per call once scratch has
// grown. The same code serves Float32Array and Float64Array.
// Kernel twin: shaders/matmul.wgsl; test: test/gpu/matmul.test.ts.
/** The element arrays the reference computes in (float32, or float64 for the finite-difference oracle). */
export type F = Float32Array | Float64Array;

// ---- scratch, grown on demand, one per element type so the kernels see a single array type per call ----
let rowsScratch = new Int32Array(0);
let iotaScratch = new Int32Array(0);
let t32 = new Float32Array(0);
let t64 = new Float64Array(0);

/** 0, 1, ..., n-1 (shared; do not write). */
export function iota(n: number): Int32Array {
  if (iotaScratch.length < n) {
    iotaScratch = new Int32Array(Math.max(n, 2 * iotaScratch.length));
    for (let i = 0; i < iotaScratch.length; i++) iotaScratch[i] = i;
  }
  return iotaScratch;
}

function rowsBuffer(n: number): Int32Array {
  if (rowsScratch.length < n) rowsScratch = new Int32Array(Math.max(n, 2 * rowsScratch.length));
  return rowsScratch;
}

/** A scratch array of the same element type as `like`, at least n long (contents undefined). */
function scratchLike(like: F, n: number): F {
  if (like instanceof Float64Array) {
    if (t64.length < n) t64 = new Float64Array(Math.max(n, 2 * t64.length));
    return t64;
  }
  if (t32.length < n) t32 = new Float32Array(Math.max(n, 2 * t32.length));
  return t32;
}

/** Indices of the rows of x [N, M] that are not all zero, into a shared scratch; returns [rows, count]. */
export function nonzeroRows(x: F, N: number, M: number): [Int32Array, number] {
  const rows = rowsBuffer(N);
  let R = 0;
  for (let n = 0; n < N; n++) {
    const base = n * M;
    for (let m = 0; m < M; m++) {
      if (x[base + m] !== 0) { rows[R++] = n; break; }
    }
  }
  return [rows, R];
}

/**
 * For each listed row r = rows[j] (j < R):
 *   out[r*M + m] (= bias[m] +  |  +=) sum_k a[r*K + k] * b[m*K + k]      for m < M.
 * accumulate=false overwrites (adding bias when given); accumulate=true adds (bias ignored).
 */
export function gemmNT(out: F, a: F, b: F, bias: F | null, rows: Int32Array, R: number, K: number, M: number, accumulate: boolean): void {
  const R4 = R - (R & 3), M4 = M - (M & 3);
  for (let j = 0; j < R4; j += 4) {
    const n0 = rows[j], n1 = rows[j + 1], n2 = rows[j + 2], n3 = rows[j + 3];
    const r0 = n0 * K, r1 = n1 * K, r2 = n2 * K, r3 = n3 * K;
    const q0 = n0 * M, q1 = n1 * M, q2 = n2 * M, q3 = n3 * M;
    for (let m = 0; m < M4; m += 4) {
      const w0 = m * K, w1 = w0 + K, w2 = w1 + K, w3 = w2 + K;
      let a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
      let a20 = 0, a21 = 0, a22 = 0, a23 = 0, a30 = 0, a31 = 0, a32 = 0, a33 = 0;
      for (let k = 0; k < K; k++) {
        const x0 = a[r0 + k], x1 = a[r1 + k], x2 = a[r2 + k], x3 = a[r3 + k];
        const y0 = b[w0 + k], y1 = b[w1 + k], y2 = b[w2 + k], y3 = b[w3 + k];
        a00 += x0 * y0; a01 += x0 * y1; a02 += x0 * y2; a03 += x0 * y3;
        a10 += x1 * y0; a11 += x1 * y1; a12 += x1 * y2; a13 += x1 * y3;
        a20 += x2 * y0; a21 += x2 * y1; a22 += x2 * y2; a23 += x2 * y3;
        a30 += x3 * y0; a31 += x3 * y1; a32 += x3 * y2; a33 += x3 * y3;
      }
      if (accumulate) {
        out[q0 + m] += a00; out[q0 + m + 1] += a01; out[q0 + m + 2] += a02; out[q0 + m + 3] += a03;
        out[q1 + m] += a10; out[q1 + m + 1] += a11; out[q1 + m + 2] += a12; out[q1 + m + 3] += a13;
        out[q2 + m] += a20; out[q2 + m + 1] += a21; out[q2 + m + 2] += a22; out[q2 + m + 3] += a23;
        out[q3 + m] += a30; out[q3 + m + 1] += a31; out[q3 + m + 2] += a32; out[q3 + m + 3] += a33;
      } else {
        let b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        if (bias !== null) { b0 = bias[m]; b1 = bias[m + 1]; b2 = bias[m + 2]; b3 = bias[m + 3]; }
        out[q0 + m] = a00 + b0; out[q0 + m + 1] = a01 + b1; out[q0 + m + 2] = a02 + b2; out[q0 + m + 3] = a03 + b3;
        out[q1 + m] = a10 + b0; out[q1 + m + 1] = a11 + b1; out[q1 + m + 2] = a12 + b2; out[q1 + m + 3] = a13 + b3;
        out[q2 + m] = a20 + b0; out[q2 + m + 1] = a21 + b1; out[q2 + m + 2] = a22 + b2; out[q2 + m + 3] = a23 + b3;
        out[q3 + m] = a30 + b0; out[q3 + m + 1] = a31 + b1; out[q3 + m + 2] = a32 + b2; out[q3 + m + 3] = a33 + b3;
      }
    }
    // leftover columns: 4 rows x 1
    for (let m = M4; m < M; m++) {
      const w0 = m * K;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let k = 0; k < K; k++) {
        const y = b[w0 + k];
        s0 += a[r0 + k] * y; s1 += a[r1 + k] * y; s2 += a[r2 + k] * y; s3 += a[r3 + k] * y;
      }
      if (accumulate) { out[q0 + m] += s0; out[q1 + m] += s1; out[q2 + m] += s2; out[q3 + m] += s3; } else {
        const bb = bias !== null ? bias[m] : 0;
        out[q0 + m] = s0 + bb; out[q1 + m] = s1 + bb; out[q2 + m] = s2 + bb; out[q3 + m] = s3 + bb;
      }
    }
  }
  // leftover rows: 1 x 4, then 1 x 1
  for (let j = R4; j < R; j++) {
    const n0 = rows[j], r0 = n0 * K, q0 = n0 * M;
    for (let m = 0; m < M4; m += 4) {
      const w0 = m * K, w1 = w0 + K, w2 = w1 + K, w3 = w2 + K;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let k = 0; k < K; k++) {
        const x = a[r0 + k];
        s0 += x * b[w0 + k]; s1 += x * b[w1 + k]; s2 += x * b[w2 + k]; s3 += x * b[w3 + k];
      }
      if (accumulate) { out[q0 + m] += s0; out[q0 + m + 1] += s1; out[q0 + m + 2] += s2; out[q0 + m + 3] += s3; } else {
        let b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        if (bias !== null) { b0 = bias[m]; b1 = bias[m + 1]; b2 = bias[m + 2]; b3 = bias[m + 3]; }
        out[q0 + m] = s0 + b0; out[q0 + m + 1] = s1 + b1; out[q0 + m + 2] = s2 + b2; out[q0 + m + 3] = s3 + b3;
      }
    }
    for (let m = M4; m < M; m++) {
      const w0 = m * K;
      let s = 0;
      for (let k = 0; k < K; k++) s += a[r0 + k] * b[w0 + k];
      if (accumulate) out[q0 + m] += s; else out[q0 + m] = s + (bias !== null ? bias[m] : 0);
    }
  }
}

/** dst[c*Rn + r] = src[r*Cn + c]: the [Rn, Cn] matrix src transposed into dst [Cn, Rn]. */
function transpose(dst: F, src: F, Rn: number, Cn: number): void {
  for (let r = 0; r < Rn; r++) {
    const s = r * Cn;
    for (let c = 0; c < Cn; c++) dst[c * Rn + r] = src[s + c];
  }
}

/** dinp[r,:] += dout[r,:] @ w for the listed rows; w [OC, IC]. Transposes w once into scratch (exact copy). */
export function gemmDinp(dinp: F, dout: F, w: F, rows: Int32Array, R: number, IC: number, OC: number): void {
  if (R === 0) return;
  const wT = scratchLike(w, IC * OC);
  transpose(wT, w, OC, IC); // wT [IC, OC]
  gemmNT(dinp, dout, wT, null, rows, R, OC, IC, true);
}

const ROW_TILE = 32;

/** dw[o,i] += sum_{listed rows r} dout[r,o] * inp[r,i]; rows tiled so each tile's rows stay in cache. */
export function gemmDweight(dw: F, dout: F, inp: F, rows: Int32Array, R: number, IC: number, OC: number): void {
  const O4 = OC - (OC & 3), I4 = IC - (IC & 3);
  for (let j0 = 0; j0 < R; j0 += ROW_TILE) {
    const je = j0 + ROW_TILE < R ? j0 + ROW_TILE : R;
    for (let o = 0; o < O4; o += 4) {
      const d0 = o * IC, d1 = d0 + IC, d2 = d1 + IC, d3 = d2 + IC;
      for (let i = 0; i < I4; i += 4) {
        let a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
        let a20 = 0, a21 = 0, a22 = 0, a23 = 0, a30 = 0, a31 = 0, a32 = 0, a33 = 0;
        for (let j = j0; j < je; j++) {
          const n = rows[j], g = n * OC + o, p = n * IC + i;
          const x0 = dout[g], x1 = dout[g + 1], x2 = dout[g + 2], x3 = dout[g + 3];
          const y0 = inp[p], y1 = inp[p + 1], y2 = inp[p + 2], y3 = inp[p + 3];
          a00 += x0 * y0; a01 += x0 * y1; a02 += x0 * y2; a03 += x0 * y3;
          a10 += x1 * y0; a11 += x1 * y1; a12 += x1 * y2; a13 += x1 * y3;
          a20 += x2 * y0; a21 += x2 * y1; a22 += x2 * y2; a23 += x2 * y3;
          a30 += x3 * y0; a31 += x3 * y1; a32 += x3 * y2; a33 += x3 * y3;
        }
        dw[d0 + i] += a00; dw[d0 + i + 1] += a01; dw[d0 + i + 2] += a02; dw[d0 + i + 3] += a03;
        dw[d1 + i] += a10; dw[d1 + i + 1] += a11; dw[d1 + i + 2] += a12; dw[d1 + i + 3] += a13;
        dw[d2 + i] += a20; dw[d2 + i + 1] += a21; dw[d2 + i + 2] += a22; dw[d2 + i + 3] += a23;
        dw[d3 + i] += a30; dw[d3 + i + 1] += a31; dw[d3 + i + 2] += a32; dw[d3 + i + 3] += a33;
      }
      for (let i = I4; i < IC; i++) {
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (let j = j0; j < je; j++) {
          const n = rows[j], g = n * OC + o, y = inp[n * IC + i];
          s0 += dout[g] * y; s1 += dout[g + 1] * y; s2 += dout[g + 2] * y; s3 += dout[g + 3] * y;
        }
        dw[d0 + i] += s0; dw[d1 + i] += s1; dw[d2 + i] += s2; dw[d3 + i] += s3;
      }
    }
    for (let o = O4; o < OC; o++) {
      const d0 = o * IC;
      for (let i = 0; i < IC; i++) {
        let s = 0;
        for (let j = j0; j < je; j++) { const n = rows[j]; s += dout[n * OC + o] * inp[n * IC + i]; }
        dw[d0 + i] += s;
      }
    }
  }
}

let colAcc = new Float64Array(0);

/** dbias[o] += sum_{listed rows r} dout[r,o] (summed in doubles, row by row). */
export function colSum(dbias: F, dout: F, rows: Int32Array, R: number, OC: number): void {
  if (colAcc.length < OC) colAcc = new Float64Array(OC);
  const acc = colAcc;
  acc.fill(0, 0, OC);
  for (let j = 0; j < R; j++) {
    const g = rows[j] * OC;
    for (let o = 0; o < OC; o++) acc[o] += dout[g + o];
  }
  for (let o = 0; o < OC; o++) dbias[o] += acc[o];
}
