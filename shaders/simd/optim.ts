// AdamW with decoupled weight decay on a flat vector, f32x4 (twin: src/reference/optim.ts adamw;
// test: test/simd/rows.test.ts). The host passes the bias corrections and the clip scale k
// (k < 0, the divergence guard, is handled there: nothing runs).

/** g = grads * k; m, v updated; params -= lr (mhat / (sqrt(vhat) + eps) + wd * mask * p). */
export function adamw(params: usize, grads: usize, m: usize, v: usize, mask: usize, n: i32,
  lr: f32, beta1: f32, beta2: f32, eps: f32, wd: f32, bc1: f32, bc2: f32, k: f32): void {
  const nb = <usize>n << 2, n4 = <usize>(n & ~3) << 2;
  const K = f32x4.splat(k), B1 = f32x4.splat(beta1), C1 = f32x4.splat(1 - beta1), B2 = f32x4.splat(beta2), C2 = f32x4.splat(1 - beta2);
  const BC1 = f32x4.splat(bc1), BC2 = f32x4.splat(bc2), EPS = f32x4.splat(eps), LR = f32x4.splat(lr), WD = f32x4.splat(wd);
  for (let i: usize = 0; i < n4; i += 16) {
    const g = f32x4.mul(v128.load(grads + i), K);
    const mi = f32x4.add(f32x4.mul(B1, v128.load(m + i)), f32x4.mul(C1, g));
    const vi = f32x4.add(f32x4.mul(B2, v128.load(v + i)), f32x4.mul(f32x4.mul(C2, g), g));
    v128.store(m + i, mi);
    v128.store(v + i, vi);
    const p = v128.load(params + i);
    const step = f32x4.add(f32x4.div(f32x4.div(mi, BC1), f32x4.add(f32x4.sqrt(f32x4.div(vi, BC2)), EPS)), f32x4.mul(f32x4.mul(WD, v128.load(mask + i)), p));
    v128.store(params + i, f32x4.sub(p, f32x4.mul(LR, step)));
  }
  for (let i = n4; i < nb; i += 4) {
    const g = load<f32>(grads + i) * k;
    const mi = beta1 * load<f32>(m + i) + (1 - beta1) * g, vi = beta2 * load<f32>(v + i) + (1 - beta2) * g * g;
    store<f32>(m + i, mi);
    store<f32>(v + i, vi);
    const p = load<f32>(params + i);
    store<f32>(params + i, p - lr * ((mi / bc1) / (Mathf.sqrt(vi / bc2) + eps) + wd * load<f32>(mask + i) * p));
  }
}

/** out = a + b (n elements); out may be a or b. */
export function residualForward(out: usize, a: usize, b: usize, n: i32): void {
  const nb = <usize>n << 2, n4 = <usize>(n & ~3) << 2;
  for (let i: usize = 0; i < n4; i += 16) v128.store(out + i, f32x4.add(v128.load(a + i), v128.load(b + i)));
  for (let i = n4; i < nb; i += 4) store<f32>(out + i, load<f32>(a + i) + load<f32>(b + i));
}

/** The sum of squares of x[0..n), in f32 lanes then f64 across them (the global gradient norm squared). */
export function sumSquares(x: usize, n: i32): f64 {
  const nb = <usize>n << 2, n16 = <usize>(n & ~15) << 2;
  // 4 independent sums: one would wait on the add latency every vector
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  for (let i: usize = 0; i < n16; i += 64) {
    const v0 = v128.load(x + i), v1 = v128.load(x + i, 16), v2 = v128.load(x + i, 32), v3 = v128.load(x + i, 48);
    a0 = f32x4.add(a0, f32x4.mul(v0, v0)); a1 = f32x4.add(a1, f32x4.mul(v1, v1));
    a2 = f32x4.add(a2, f32x4.mul(v2, v2)); a3 = f32x4.add(a3, f32x4.mul(v3, v3));
  }
  const a = f32x4.add(f32x4.add(a0, a1), f32x4.add(a2, a3));
  let s: f64 = <f64>f32x4.extract_lane(a, 0) + <f64>f32x4.extract_lane(a, 1) + <f64>f32x4.extract_lane(a, 2) + <f64>f32x4.extract_lane(a, 3);
  for (let i = n16; i < nb; i += 4) { const v = <f64>load<f32>(x + i); s += v * v; }
  return s;
}

/**
 * Zeroes n floats at p. memory.fill is a native fill on the threads' shared memory too, where the host's
 * TypedArray.fill stores element by element (10x slower: 56 against 5 us for 2944 x 64 floats in Node 20).
 */
export function zeroFloats(p: usize, n: i32): void {
  memory.fill(p, 0, <usize>n << 2);
}

/** dst[r * dstStride + i] = src[(r / repeat) * srcStride + i] for r < rows, i < width (strides and width in elements; repeat >= 1). */
export function copyRows(dst: usize, src: usize, rows: i32, width: i32, dstStride: i32, srcStride: i32, repeat: i32): void {
  copyRowsFrom(dst, src, 0, rows, width, dstStride, srcStride, repeat);
}

/** copyRows' rows [r0, r1) (the threads' chunks). */
export function copyRowsFrom(dst: usize, src: usize, r0: i32, r1: i32, width: i32, dstStride: i32, srcStride: i32, repeat: i32): void {
  const wb = <usize>width << 2, db = <usize>dstStride << 2, sb = <usize>srcStride << 2;
  for (let r = r0; r < r1; r++) memory.copy(dst + <usize>r * db, src + <usize>(r / repeat) * sb, wb);
}
