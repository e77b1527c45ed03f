// Causal self-attention, one (batch, head) at a time (twin: src/reference/attention.ts; test:
// test/simd/attention.test.ts). Scores are f32x4 dot products over the head size; the softmax
// takes expf4 (exp.ts) over 4 keys at a time; weighted sums over keys are rowAccumulate (matmul.ts).
// A decode step computes its row with the same function as the forward's row t, so the two
// agree bit for bit, as the reference's do.
import { madd } from './fma';
import { copyBytes, hsum4, tail4, zeroBytes } from './dot';
import { rowAccumulate } from './matmul';

/**
 * s[j] = x . y_j for 4 rows y_j = y0 + j * stride (j < 4): 4 partial sums over the head, folded by hsum4 (as the
 * forward matmul), so each loaded x vector feeds 4 products.
 */
// @ts-ignore: decorator
@inline
function dot4(x: usize, y0: usize, stride: usize, h4: usize, hb: usize): v128 {
  return dot4p(x, y0, y0 + stride, y0 + 2 * stride, y0 + 3 * stride, h4, hb);
}

/**
 * The last (t + 1) % 4 keys' dot products (keys t4 .. t) as dot4's lanes: lanes past t read key t again and are never
 * used. One dot4 instead of up to three one-key dots; each lane's sum is dot()'s, in the same order (neither is ever -0).
 */
// @ts-ignore: decorator
@inline
function dotLast(x: usize, k0: usize, t4: i32, t: i32, stride: usize, h4: usize, hb: usize): v128 {
  const y0 = k0 + <usize>t4 * stride, last = k0 + <usize>t * stride;
  return dot4p(x, y0, min(y0 + stride, last), min(y0 + 2 * stride, last), min(y0 + 3 * stride, last), h4, hb);
}

/** x . y_j for the 4 rows y0..y3. */
// @ts-ignore: decorator
@inline
function dot4p(x: usize, y0: usize, y1: usize, y2: usize, y3: usize, h4: usize, hb: usize): v128 {
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  for (let i: usize = 0; i < h4; i += 16) {
    const u = v128.load(x + i);
    a0 = madd(u, v128.load(y0 + i), a0); a1 = madd(u, v128.load(y1 + i), a1);
    a2 = madd(u, v128.load(y2 + i), a2); a3 = madd(u, v128.load(y3 + i), a3);
  }
  const r = hsum4(a0, a1, a2, a3);
  return h4 < hb ? f32x4.add(r, tail4(x, y0, y1, y2, y3, h4, hb)) : r;
}
import { expf4 } from './exp';

/**
 * One query row: p[j] = softmax_j(q . k_j * scale) for j <= t (written to p), out[hs] = sum_j p[j] v_j.
 * k0, v0: key and value of token 0 of this head; tokens `stride` bytes apart.
 */
// @ts-ignore: decorator
@inline
function attendRow(out: usize, p: usize, q: usize, k0: usize, v0: usize, t: i32, hs: i32, stride: usize, scale: f32): void {
  const hb = <usize>hs << 2, h4 = <usize>(hs & ~3) << 2;
  // scores 4 keys at a time, then one at a time
  const t4 = (t + 1) & ~3, sc = f32x4.splat(scale);
  let mv = f32x4.splat(-Infinity);
  for (let j = 0; j < t4; j += 4) {
    const s = f32x4.mul(dot4(q, k0 + <usize>j * stride, stride, h4, hb), sc);
    v128.store(p + (<usize>j << 2), s);
    mv = f32x4.pmax(mv, s);
  }
  let top: f32 = max(max(f32x4.extract_lane(mv, 0), f32x4.extract_lane(mv, 1)), max(f32x4.extract_lane(mv, 2), f32x4.extract_lane(mv, 3)));
  // the last keys (t4 .. t, at most 3) in one vector's first lanes, kept in registers (p has no room past t)
  const nt = t + 1 - t4;
  let last = f32x4.splat(0);
  if (nt > 0) {
    last = f32x4.mul(dotLast(q, k0, t4, t, stride, h4, hb), sc);
    const s0 = f32x4.extract_lane(last, 0);
    top = s0 > top ? s0 : top;
    if (nt > 1) { const s1 = f32x4.extract_lane(last, 1); top = s1 > top ? s1 : top; }
    if (nt > 2) { const s2 = f32x4.extract_lane(last, 2); top = s2 > top ? s2 : top; }
  }
  // e = exp(s - max) 4 keys at a time (lanes past t are never stored), summed in lanes, then the last keys one by one
  const n = <usize>(t + 1) << 2, n4 = <usize>((t + 1) & ~3) << 2, m = f32x4.splat(top);
  let acc = f32x4.splat(0);
  for (let j: usize = 0; j < n4; j += 16) {
    const e = expf4(f32x4.sub(v128.load(p + j), m));
    v128.store(p + j, e);
    acc = f32x4.add(acc, e);
  }
  let sum = (f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 2)) + (f32x4.extract_lane(acc, 1) + f32x4.extract_lane(acc, 3));
  if (nt > 0) {
    const e = expf4(f32x4.sub(last, m)), e0 = f32x4.extract_lane(e, 0);
    store<f32>(p + n4, e0);
    sum += e0;
    if (nt > 1) { const e1 = f32x4.extract_lane(e, 1); store<f32>(p + n4, e1, 4); sum += e1; }
    if (nt > 2) { const e2 = f32x4.extract_lane(e, 2); store<f32>(p + n4, e2, 8); sum += e2; }
  }
  const s = f32x4.splat(sum);
  for (let j: usize = 0; j < n4; j += 16) v128.store(p + j, f32x4.div(v128.load(p + j), s));
  for (let j = n4; j < n; j += 4) store<f32>(p + j, load<f32>(p + j) / sum);
  rowAccumulate(out, hs, p, 4, v0, stride, 0, t + 1, false, true); // out = 0 + the sum: no zeroing pass first
}

/** qkv [B,T,3C], out [B,T,C], att [B,NH,T,T] (softmax probabilities, 0 above the diagonal). */
export function attentionForward(out: usize, att: usize, qkv: usize, B: i32, T: i32, C: i32, NH: i32): void {
  const hs = C / NH, scale = <f32>(1 / Math.sqrt(<f64>hs)), stride = <usize>(3 * C) << 2, tb = <usize>T << 2;
  for (let b = 0; b < B; b++) for (let h = 0; h < NH; h++) {
    const q0 = qkv + ((<usize>b * T * 3 * C + <usize>h * hs) << 2), k0 = q0 + (<usize>C << 2), v0 = k0 + (<usize>C << 2);
    const a0 = att + ((<usize>(b * NH + h) * T * T) << 2);
    for (let t = 0; t < T; t++) {
      const row = a0 + <usize>t * tb;
      attendRow(out + ((<usize>(b * T + t) * C + <usize>h * hs) << 2), row, q0 + <usize>t * stride, k0, v0, t, hs, stride, scale);
      zeroBytes(row + (<usize>(t + 1) << 2), <usize>(T - t - 1) << 2);
    }
  }
}

/**
 * dqkv += the gradient of attentionForward (overwrite: dqkv = 0 + it; every element of dqkv gets exactly one sum);
 * dpreatt [B,NH,T,T] is overwritten with the scaled pre-softmax gradient (0 above the diagonal), then read back for dq and dk.
 */
export function attentionBackward(dqkv: usize, dpreatt: usize, dout: usize, qkv: usize, att: usize, B: i32, T: i32, C: i32, NH: i32, overwrite: bool): void {
  const hs = C / NH, scale = 1 / Math.sqrt(<f64>hs), stride = <usize>(3 * C) << 2, tb = <usize>T << 2, cb = <usize>C << 2;
  const hb = <usize>hs << 2, h4 = <usize>(hs & ~3) << 2;
  for (let b = 0; b < B; b++) for (let h = 0; h < NH; h++) {
    const head = (<usize>b * T * 3 * C + <usize>h * hs) << 2;
    const q0 = qkv + head, k0 = q0 + cb, v0 = k0 + cb, dq0 = dqkv + head, dk0 = dq0 + cb, dv0 = dk0 + cb;
    const a0 = att + ((<usize>(b * NH + h) * T * T) << 2), d0 = dpreatt + ((<usize>(b * NH + h) * T * T) << 2);
    const o0 = dout + ((<usize>b * T * C + <usize>h * hs) << 2);
    // 1. datt[t,j] = dout[t] . v[j]; D = softmax backward, scaled
    for (let t = 0; t < T; t++) {
      const o = o0 + <usize>t * cb, a = a0 + <usize>t * tb, d = d0 + <usize>t * tb;
      const t4 = (t + 1) & ~3;
      // sum_j att[t,j] datt[t,j]: f32 products summed in four f32 lanes, the lanes and the tail in f64 (a serial
      // f64 chain through every key was the kernel's critical path)
      let sv = f32x4.splat(0);
      for (let j = 0; j < t4; j += 4) {
        const g = dot4(o, v0 + <usize>j * stride, stride, h4, hb), at = <usize>j << 2;
        v128.store(d + at, g);
        sv = f32x4.add(sv, f32x4.mul(v128.load(a + at), g));
      }
      let s: f64 = (<f64>f32x4.extract_lane(sv, 0) + <f64>f32x4.extract_lane(sv, 2)) + (<f64>f32x4.extract_lane(sv, 1) + <f64>f32x4.extract_lane(sv, 3));
      const nt = t + 1 - t4;
      if (nt > 0) {
        // the last keys (at most 3) by one dot4, then one by one as before
        const g = dotLast(o, v0, t4, t, stride, h4, hb), at = <usize>t4 << 2, g0 = f32x4.extract_lane(g, 0);
        store<f32>(d + at, g0);
        s += <f64>load<f32>(a + at) * <f64>g0;
        if (nt > 1) { const g1 = f32x4.extract_lane(g, 1); store<f32>(d + at, g1, 4); s += <f64>load<f32>(a + at, 4) * <f64>g1; }
        if (nt > 2) { const g2 = f32x4.extract_lane(g, 2); store<f32>(d + at, g2, 8); s += <f64>load<f32>(a + at, 8) * <f64>g2; }
      }
      // D = att * (datt - s) * scale, four keys at a time in f32
      const sf = f32x4.splat(<f32>s), scv = f32x4.splat(<f32>scale);
      for (let j = 0; j < t4; j += 4) {
        const at = <usize>j << 2;
        v128.store(d + at, f32x4.mul(f32x4.mul(v128.load(a + at), f32x4.sub(v128.load(d + at), sf)), scv));
      }
      for (let j = t4; j <= t; j++) {
        const at = <usize>j << 2;
        store<f32>(d + at, load<f32>(a + at) * (load<f32>(d + at) - <f32>s) * <f32>scale);
      }
      zeroBytes(d + (<usize>(t + 1) << 2), <usize>(T - t - 1) << 2);
    }
    // 2. dq[t] += sum_{j<=t} D[t,j] k[j]
    for (let t = 0; t < T; t++) rowAccumulate(dq0 + <usize>t * stride, hs, d0 + <usize>t * tb, 4, k0, stride, 0, t + 1, false, overwrite);
    // 3. dk[j] += sum_{t>=j} D[t,j] q[t];  dv[j] += sum_{t>=j} att[t,j] dout[t]
    for (let j = 0; j < T; j++) {
      const diag = (<usize>j * T + j) << 2;
      rowAccumulate(dk0 + <usize>j * stride, hs, d0 + diag, tb, q0 + <usize>j * stride, stride, 0, T - j, false, overwrite);
      rowAccumulate(dv0 + <usize>j * stride, hs, a0 + diag, tb, o0 + <usize>j * cb, cb, 0, T - j, false, overwrite);
    }
  }
}

/**
 * One decode step: qkvNew [B,3C] goes to row t = pos[b] - 1 of qkvCache [B,T,3C], then out [B,C] = attention of
 * that q over cache rows 0..t, by attendRow as the forward's row t. p: scratch of T floats. pos checked by the host.
 */
export function attentionDecode(out: usize, qkvCache: usize, qkvNew: usize, pos: usize, p: usize, B: i32, T: i32, C: i32, NH: i32): void {
  const hs = C / NH, scale = <f32>(1 / Math.sqrt(<f64>hs)), stride = <usize>(3 * C) << 2;
  for (let b = 0; b < B; b++) {
    const t = load<i32>(pos + (<usize>b << 2)) - 1;
    const row = qkvCache + (<usize>b * T + t) * stride;
    copyBytes(row, qkvNew + <usize>b * stride, stride);
    for (let h = 0; h < NH; h++) {
      const q0 = qkvCache + ((<usize>b * T * 3 * C + <usize>h * hs) << 2), k0 = q0 + (<usize>C << 2), v0 = k0 + (<usize>C << 2);
      attendRow(out + ((<usize>b * C + <usize>h * hs) << 2), p, row + ((<usize>h * hs) << 2), k0, v0, t, hs, stride, scale);
    }
  }
}
