// LayerNorm over the last dim C (eps 1e-5, biased variance), f32x4 over C (twin: nn.ts
// layernormForward/Backward in src/reference; test: test/simd/layernorm.test.ts). Row sums are
// taken in f32 lanes (the reference sums in f64): C is a model width, tens to hundreds.
import { zeroGaps } from './dot';
const EPS: f32 = 1e-5;

// @ts-ignore: decorator
@inline
function hsum(a: v128): f32 {
  return (f32x4.extract_lane(a, 0) + f32x4.extract_lane(a, 2)) + (f32x4.extract_lane(a, 1) + f32x4.extract_lane(a, 3));
}

/** out[n,:] = (inp[n,:] - mean) * rstd * w + b; mean[n], rstd[n] saved for the backward. */
export function layernormForward(out: usize, mean: usize, rstd: usize, inp: usize, w: usize, b: usize, N: i32, C: i32): void {
  const cb = <usize>C << 2, c4 = <usize>(C & ~3) << 2;
  for (let n = 0; n < N; n++) {
    const x = inp + <usize>n * cb, y = out + <usize>n * cb;
    let acc = f32x4.splat(0);
    for (let c: usize = 0; c < c4; c += 16) acc = f32x4.add(acc, v128.load(x + c));
    let s = hsum(acc);
    for (let c = c4; c < cb; c += 4) s += load<f32>(x + c);
    const m = s / <f32>C, mv = f32x4.splat(m);
    acc = f32x4.splat(0);
    for (let c: usize = 0; c < c4; c += 16) { const d = f32x4.sub(v128.load(x + c), mv); acc = f32x4.add(acc, f32x4.mul(d, d)); }
    let v = hsum(acc);
    for (let c = c4; c < cb; c += 4) { const d = load<f32>(x + c) - m; v += d * d; }
    const r = <f32>(1 / Math.sqrt(<f64>(v / <f32>C) + <f64>EPS)), rv = f32x4.splat(r);
    for (let c: usize = 0; c < c4; c += 16) {
      v128.store(y + c, f32x4.add(f32x4.mul(f32x4.mul(f32x4.sub(v128.load(x + c), mv), rv), v128.load(w + c)), v128.load(b + c)));
    }
    for (let c = c4; c < cb; c += 4) store<f32>(y + c, (load<f32>(x + c) - m) * r * load<f32>(w + c) + load<f32>(b + c));
    store<f32>(mean + (<usize>n << 2), m);
    store<f32>(rstd + (<usize>n << 2), r);
  }
}

/** [mean(w g), mean(w g norm), 0, 0] over a row (norm = (x - m) r): f32 lanes over the vector part, then its tail. */
// @ts-ignore: decorator
@inline
function gradMeans(x: usize, g: usize, w: usize, m: v128, r: v128, C: i32): v128 {
  const cb = <usize>C << 2, c4 = <usize>(C & ~3) << 2;
  let a1 = f32x4.splat(0), a2 = f32x4.splat(0);
  for (let c: usize = 0; c < c4; c += 16) {
    const dn = f32x4.mul(v128.load(w + c), v128.load(g + c)), norm = f32x4.mul(f32x4.sub(v128.load(x + c), m), r);
    a1 = f32x4.add(a1, dn);
    a2 = f32x4.add(a2, f32x4.mul(dn, norm));
  }
  let s1 = hsum(a1), s2 = hsum(a2);
  const ms = f32x4.extract_lane(m, 0), rs = f32x4.extract_lane(r, 0);
  for (let c = c4; c < cb; c += 4) {
    const dn = load<f32>(w + c) * load<f32>(g + c);
    s1 += dn;
    s2 += dn * (load<f32>(x + c) - ms) * rs;
  }
  return f32x4.replace_lane(f32x4.splat(s1 / <f32>C), 1, s2 / <f32>C);
}

/**
 * dinp += (w g - mean(w g) - norm mean(w g norm)) rstd; dw += sum_n norm g; db += sum_n g. Rows of dout that are
 * all zero are skipped (as the reference). acc: scratch of 2C floats (the dw and db sums, added once).
 */
export function layernormBackward(dinp: usize, dw: usize, db: usize, dout: usize, inp: usize, w: usize, mean: usize, rstd: usize,
  acc: usize, N: i32, C: i32): void {
  const cb = <usize>C << 2, c4 = <usize>(C & ~3) << 2, zero = f32x4.splat(0), accB = acc + cb;
  memory.fill(acc, 0, cb << 1);
  for (let n = 0; n < N; n++) {
    const x = inp + <usize>n * cb, g = dout + <usize>n * cb, d = dinp + <usize>n * cb;
    let any = false;
    for (let c: usize = 0; c < c4 && !any; c += 16) any = v128.any_true(f32x4.ne(v128.load(g + c), zero));
    for (let c = c4; c < cb && !any; c += 4) any = load<f32>(g + c) != 0;
    if (!any) continue;
    const m = f32x4.splat(load<f32>(mean + (<usize>n << 2))), r = f32x4.splat(load<f32>(rstd + (<usize>n << 2)));
    const means = gradMeans(x, g, w, m, r, C), dm = f32x4.splat(f32x4.extract_lane(means, 0)), dnm = f32x4.splat(f32x4.extract_lane(means, 1));
    const ms = f32x4.extract_lane(m, 0), rs = f32x4.extract_lane(r, 0);
    for (let c: usize = 0; c < c4; c += 16) {
      const gv = v128.load(g + c), norm = f32x4.mul(f32x4.sub(v128.load(x + c), m), r);
      v128.store(accB + c, f32x4.add(v128.load(accB + c), gv));
      v128.store(acc + c, f32x4.add(v128.load(acc + c), f32x4.mul(norm, gv)));
      const t = f32x4.sub(f32x4.sub(f32x4.mul(v128.load(w + c), gv), dm), f32x4.mul(norm, dnm));
      v128.store(d + c, f32x4.add(v128.load(d + c), f32x4.mul(t, r)));
    }
    const dms = f32x4.extract_lane(dm, 0), dnms = f32x4.extract_lane(dnm, 0);
    for (let c = c4; c < cb; c += 4) {
      const gs = load<f32>(g + c), norm = (load<f32>(x + c) - ms) * rs;
      store<f32>(accB + c, load<f32>(accB + c) + gs);
      store<f32>(acc + c, load<f32>(acc + c) + norm * gs);
      store<f32>(d + c, load<f32>(d + c) + (load<f32>(w + c) * gs - dms - norm * dnms) * rs);
    }
  }
  for (let c: usize = 0; c < c4; c += 16) {
    v128.store(dw + c, f32x4.add(v128.load(dw + c), v128.load(acc + c)));
    v128.store(db + c, f32x4.add(v128.load(db + c), v128.load(accB + c)));
  }
  for (let c = c4; c < cb; c += 4) {
    store<f32>(dw + c, load<f32>(dw + c) + load<f32>(acc + c));
    store<f32>(db + c, load<f32>(db + c) + load<f32>(accB + c));
  }
}

/**
 * layernormBackward's dinp for the R listed rows (rows[j], the rows of dout with a nonzero, in order): each row's
 * numbers as the one-pass kernel's. overwrite: dinp = 0 + them, and the unlisted rows before each listed one (back to
 * the previous listed row, or row 0 for the list's first, `first` being this chunk's index in it) and, with last >= 0,
 * after the last one up to row `last` are zeroed. The threads' row chunks (threads.ts).
 */
export function layernormBackwardRows(dinp: usize, dout: usize, inp: usize, w: usize, mean: usize, rstd: usize, rows: usize, R: i32, C: i32,
  overwrite: bool, first: i32, last: i32): void {
  const cb = <usize>C << 2, c4 = <usize>(C & ~3) << 2, zero = f32x4.splat(0);
  if (overwrite) zeroGaps(dinp, cb, rows, R, first, last);
  for (let j = 0; j < R; j++) {
    const n = <usize>load<i32>(rows + (<usize>j << 2));
    const x = inp + n * cb, g = dout + n * cb, d = dinp + n * cb;
    const m = f32x4.splat(load<f32>(mean + (n << 2))), r = f32x4.splat(load<f32>(rstd + (n << 2)));
    const means = gradMeans(x, g, w, m, r, C), dm = f32x4.splat(f32x4.extract_lane(means, 0)), dnm = f32x4.splat(f32x4.extract_lane(means, 1));
    const ms = f32x4.extract_lane(m, 0), rs = f32x4.extract_lane(r, 0);
    for (let c: usize = 0; c < c4; c += 16) {
      const gv = v128.load(g + c), norm = f32x4.mul(f32x4.sub(v128.load(x + c), m), r);
      const t = f32x4.sub(f32x4.sub(f32x4.mul(v128.load(w + c), gv), dm), f32x4.mul(norm, dnm));
      v128.store(d + c, f32x4.add(overwrite ? zero : v128.load(d + c), f32x4.mul(t, r)));
    }
    const dms = f32x4.extract_lane(dm, 0), dnms = f32x4.extract_lane(dnm, 0);
    for (let c = c4; c < cb; c += 4) {
      const gs = load<f32>(g + c), norm = (load<f32>(x + c) - ms) * rs;
      store<f32>(d + c, (overwrite ? <f32>0 : load<f32>(d + c)) + (load<f32>(w + c) * gs - dms - norm * dnms) * rs);
    }
  }
}

/**
 * layernormBackward's dw += sum norm g, db += sum g for features [c0, c1) (c0 a multiple of 4) over the R listed rows
 * in order, summed in registers and added once: each feature's numbers as the one-pass kernel's. The threads'
 * feature chunks (threads.ts).
 */
export function layernormBackwardParams(dw: usize, db: usize, dout: usize, inp: usize, mean: usize, rstd: usize, rows: usize, R: i32, C: i32,
  c0: i32, c1: i32): void {
  const cb = <usize>C << 2, zero = f32x4.splat(0), v1 = <usize>(c0 + ((c1 - c0) & ~3)) << 2;
  for (let c = <usize>c0 << 2; c < v1; c += 16) {
    let aw = zero, ab = zero;
    for (let j = 0; j < R; j++) {
      const n = <usize>load<i32>(rows + (<usize>j << 2));
      const gv = v128.load(dout + n * cb + c);
      const norm = f32x4.mul(f32x4.sub(v128.load(inp + n * cb + c), f32x4.splat(load<f32>(mean + (n << 2)))), f32x4.splat(load<f32>(rstd + (n << 2))));
      ab = f32x4.add(ab, gv);
      aw = f32x4.add(aw, f32x4.mul(norm, gv));
    }
    v128.store(dw + c, f32x4.add(v128.load(dw + c), aw));
    v128.store(db + c, f32x4.add(v128.load(db + c), ab));
  }
  for (let c = v1; c < (<usize>c1 << 2); c += 4) {
    let aw: f32 = 0, ab: f32 = 0;
    for (let j = 0; j < R; j++) {
      const n = <usize>load<i32>(rows + (<usize>j << 2));
      const gs = load<f32>(dout + n * cb + c), norm = (load<f32>(inp + n * cb + c) - load<f32>(mean + (n << 2))) * load<f32>(rstd + (n << 2));
      ab += gs;
      aw += norm * gs;
    }
    store<f32>(dw + c, load<f32>(dw + c) + aw);
    store<f32>(db + c, load<f32>(db + c) + ab);
  }
}
