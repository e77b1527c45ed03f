// Log-softmax heads over rows of V logits (twin: src/reference/logsoftmax.ts; test:
// test/simd/rows.test.ts): exp by expf4 four logits at a time into scratch e [V], the sums in f32
// lanes, the one log per row in f64. Rows with no target (target < 0) are as the reference's.
import { expf4 } from './exp';

// @ts-ignore: decorator
@inline
function hsum(a: v128): f32 {
  return (f32x4.extract_lane(a, 0) + f32x4.extract_lane(a, 2)) + (f32x4.extract_lane(a, 1) + f32x4.extract_lane(a, 3));
}

/** Max of row[v] * inv over V. */
// @ts-ignore: decorator
@inline
function rowMax(row: usize, V: i32, inv: f32): f32 {
  const vb = <usize>V << 2, v4 = <usize>(V & ~3) << 2, iv = f32x4.splat(inv);
  let mv = f32x4.splat(-Infinity);
  for (let i: usize = 0; i < v4; i += 16) mv = f32x4.pmax(mv, f32x4.mul(v128.load(row + i), iv));
  let m = max(max(f32x4.extract_lane(mv, 0), f32x4.extract_lane(mv, 1)), max(f32x4.extract_lane(mv, 2), f32x4.extract_lane(mv, 3)));
  for (let i = v4; i < vb; i += 4) m = max(m, load<f32>(row + i) * inv);
  return m;
}

/** e[v] = exp(row[v] * inv - mx); returns sum e; with ez != 0 also stores sum e * (z - mx) there. */
// @ts-ignore: decorator
@inline
function rowExp(e: usize, row: usize, V: i32, inv: f32, mx: f32, ez: usize): f32 {
  const vb = <usize>V << 2, v4 = <usize>(V & ~3) << 2, iv = f32x4.splat(inv), m = f32x4.splat(mx);
  let s = f32x4.splat(0), t = f32x4.splat(0);
  for (let i: usize = 0; i < v4; i += 16) {
    const zs = f32x4.sub(f32x4.mul(v128.load(row + i), iv), m), x = expf4(zs);
    v128.store(e + i, x);
    s = f32x4.add(s, x);
    t = f32x4.add(t, f32x4.mul(x, zs));
  }
  let sum = hsum(s), tz = hsum(t);
  for (let i = v4; i < vb; i += 4) {
    const zs = load<f32>(row + i) * inv - mx, x = f32x4.extract_lane(expf4(f32x4.splat(zs)), 0);
    store<f32>(e + i, x);
    sum += x;
    tz += x * zs;
  }
  if (ez) store<f32>(ez, tz);
  return sum;
}

/** logp[n] = log softmax(logits[n] / tau)[targets[n]] (0 when target < 0); entropy[n] of that softmax. */
export function logprobForward(logp: usize, entropy: usize, logits: usize, targets: usize, e: usize, N: i32, V: i32, tau: f32): void {
  const inv: f32 = 1 / tau, vb = <usize>V << 2, ezAt = e + vb;
  for (let n = 0; n < N; n++) {
    const row = logits + <usize>n * vb, mx = rowMax(row, V, inv);
    const sum = rowExp(e, row, V, inv, mx, ezAt);
    const ls = Math.log(<f64>sum), lse = <f64>mx + ls;
    store<f32>(entropy + (<usize>n << 2), <f32>(ls - <f64>load<f32>(ezAt) / <f64>sum));
    const tgt = load<i32>(targets + (<usize>n << 2));
    store<f32>(logp + (<usize>n << 2), tgt >= 0 ? <f32>(<f64>(load<f32>(row + (<usize>tgt << 2)) * inv) - lse) : 0);
  }
}

/** dlogits[n] += dlogp[n] * (onehot(target) - softmax(logits[n] / tau)) / tau; rows with no target or dlogp 0 skipped. */
export function logprobBackward(dlogits: usize, dlogp: usize, logits: usize, targets: usize, e: usize, N: i32, V: i32, tau: f32): void {
  const inv: f32 = 1 / tau, vb = <usize>V << 2, v4 = <usize>(V & ~3) << 2;
  for (let n = 0; n < N; n++) {
    const tgt = load<i32>(targets + (<usize>n << 2)), g = load<f32>(dlogp + (<usize>n << 2));
    if (tgt < 0 || g == 0) continue;
    const row = logits + <usize>n * vb, d = dlogits + <usize>n * vb, mx = rowMax(row, V, inv);
    const sum = rowExp(e, row, V, inv, mx, 0);
    const gi = g * inv, k = f32x4.splat(-gi / sum);
    for (let i: usize = 0; i < v4; i += 16) v128.store(d + i, f32x4.add(v128.load(d + i), f32x4.mul(k, v128.load(e + i))));
    for (let i = v4; i < vb; i += 4) store<f32>(d + i, load<f32>(d + i) - gi / sum * load<f32>(e + i));
    const t = d + (<usize>tgt << 2);
    store<f32>(t, load<f32>(t) + gi);
  }
}

/** losses[n] = -log softmax(logits[n])[targets[n]]; 0 where target < 0. */
export function crossEntropyForward(losses: usize, logits: usize, targets: usize, e: usize, N: i32, V: i32): void {
  const vb = <usize>V << 2;
  for (let n = 0; n < N; n++) {
    const tgt = load<i32>(targets + (<usize>n << 2));
    if (tgt < 0) { store<f32>(losses + (<usize>n << 2), 0); continue; }
    const row = logits + <usize>n * vb, mx = rowMax(row, V, 1);
    const sum = rowExp(e, row, V, 1, mx, 0);
    store<f32>(losses + (<usize>n << 2), <f32>(<f64>mx + Math.log(<f64>sum) - <f64>load<f32>(row + (<usize>tgt << 2))));
  }
}

/** dlogits[n] += dloss[n] * (softmax - onehot); rows with no target or dloss 0 skipped. */
export function crossEntropyBackward(dlogits: usize, dloss: usize, logits: usize, targets: usize, e: usize, N: i32, V: i32): void {
  const vb = <usize>V << 2, v4 = <usize>(V & ~3) << 2;
  for (let n = 0; n < N; n++) {
    const tgt = load<i32>(targets + (<usize>n << 2)), g = load<f32>(dloss + (<usize>n << 2));
    if (tgt < 0 || g == 0) continue;
    const row = logits + <usize>n * vb, d = dlogits + <usize>n * vb, mx = rowMax(row, V, 1);
    const sum = rowExp(e, row, V, 1, mx, 0);
    const k = f32x4.splat(g / sum);
    for (let i: usize = 0; i < v4; i += 16) v128.store(d + i, f32x4.add(v128.load(d + i), f32x4.mul(k, v128.load(e + i))));
    for (let i = v4; i < vb; i += 4) store<f32>(d + i, load<f32>(d + i) + g / sum * load<f32>(e + i));
    const t = d + (<usize>tgt << 2);
    store<f32>(t, load<f32>(t) - g);
  }
}
