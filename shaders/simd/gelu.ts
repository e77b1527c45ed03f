// GELU (tanh approximation) on f32x4 (twin: nn.ts geluForward/Backward in src/reference; test: test/simd/backend.test.ts),
// as the reference writes it: 0.5 (1 + tanh u) = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3), here x / (1 + exp(-2u)) with
// expf4 (exp.ts); -2u is capped by expf4's clamp, where the result is x * 1e-38 (0 in effect).
// f32 throughout (the reference is f64 inside): within a few ulp of it.
import { expBig, expClamp, expEnd, expf4, expPolyHi, expPolyLo, expR } from './exp';
import { madd } from './fma';
import { MAX_SLOTS, threadScratch } from './slot';

const GELU_S: f32 = 0.7978845608028654; // sqrt(2 / pi)
const GELU_C: f32 = 0.044715;

/**
 * -2u for each lane (exp's argument): -2 S (x + C x^3), the x + C x^3 a madd (fma.ts); (S s) (-2) and s (-2 S) are
 * the same bits (a power of two scales exactly), so one multiply does both.
 */
// @ts-ignore: decorator
@inline
function minus2u(x: v128): v128 {
  const x3 = f32x4.mul(f32x4.mul(x, x), x);
  return f32x4.mul(madd(f32x4.splat(GELU_C), x3, x), f32x4.splat(-2 * GELU_S));
}

/** exp(-2u) for each lane. */
// @ts-ignore: decorator
@inline
function expMinus2u(x: v128): v128 {
  return expf4(minus2u(x));
}

// @ts-ignore: decorator
@inline
export function gelu4(x: v128): v128 {
  return f32x4.div(x, f32x4.add(f32x4.splat(1), expMinus2u(x)));
}

/** gelu'(x) * g: with sg = sigmoid(2u) = 1 / (1 + en) and 1 - sg = en * sg: sg + 2 x sg (1 - sg) du/dx. */
// @ts-ignore: decorator
@inline
function geluGrad4(x: v128, g: v128): v128 {
  return geluGradOf(x, g, expMinus2u(x));
}

/** geluGrad4 from en = exp(-2u). */
// @ts-ignore: decorator
@inline
function geluGradOf(x: v128, g: v128, en: v128): v128 {
  const sg = f32x4.div(f32x4.splat(1), f32x4.add(f32x4.splat(1), en)), d = f32x4.mul(en, sg);
  const du = f32x4.mul(f32x4.splat(GELU_S), madd(f32x4.splat(3 * GELU_C), f32x4.mul(x, x), f32x4.splat(1)));
  const two = f32x4.mul(f32x4.mul(f32x4.mul(f32x4.add(x, x), sg), d), du);
  return f32x4.mul(g, f32x4.add(sg, two));
}

/**
 * exp(-2u) of the 4 vectors at x, stage by stage across the four (exp.ts), stored to e. Four whole chains one after
 * another kept too few independent operations in flight: the backward ran at 0.44 G elements/s on one Zen 5 core,
 * 0.64 so. Held in locals instead, the engine moved each stage back to its use, which rebuilt the chains (0.44); the
 * store keeps the order. The forward gained nothing so (it keeps gelu4). Each lane's operations are expf4's, in order.
 */
// @ts-ignore: decorator
@inline
function expMinus2u4(e: usize, x: usize): void {
  const c0 = expClamp(minus2u(v128.load(x))), c1 = expClamp(minus2u(v128.load(x, 16))), c2 = expClamp(minus2u(v128.load(x, 32))), c3 = expClamp(minus2u(v128.load(x, 48)));
  const b0 = expBig(c0), b1 = expBig(c1), b2 = expBig(c2), b3 = expBig(c3);
  const r0 = expR(c0, b0), r1 = expR(c1, b1), r2 = expR(c2, b2), r3 = expR(c3, b3);
  let q0 = expPolyLo(r0), q1 = expPolyLo(r1), q2 = expPolyLo(r2), q3 = expPolyLo(r3);
  q0 = expPolyHi(q0, r0); q1 = expPolyHi(q1, r1); q2 = expPolyHi(q2, r2); q3 = expPolyHi(q3, r3);
  v128.store(e, expEnd(q0, r0, b0)); v128.store(e, expEnd(q1, r1, b1), 16); v128.store(e, expEnd(q2, r2, b2), 32); v128.store(e, expEnd(q3, r3, b3), 48);
}

/** expMinus2u4's results: 4 vectors a thread (slot.ts). */
const EN = memory.data(64 * MAX_SLOTS, 64);

/** out[i] = gelu(inp[i]) for i < n; the tail through the same vector code (one lane used). */
export function geluForward(out: usize, inp: usize, n: i32): void {
  const nb = <usize>n << 2, n4 = <usize>(n & ~3) << 2, n16 = <usize>(n & ~15) << 2;
  let o: usize = 0;
  for (; o < n16; o += 64) {
    // four independent vectors per iteration, as the backward (its long dependent chain of exp and division)
    const y0 = gelu4(v128.load(inp + o)), y1 = gelu4(v128.load(inp + o, 16)), y2 = gelu4(v128.load(inp + o, 32)), y3 = gelu4(v128.load(inp + o, 48));
    v128.store(out + o, y0); v128.store(out + o, y1, 16); v128.store(out + o, y2, 32); v128.store(out + o, y3, 48);
  }
  for (; o < n4; o += 16) v128.store(out + o, gelu4(v128.load(inp + o)));
  for (o = n4; o < nb; o += 4) store<f32>(out + o, f32x4.extract_lane(gelu4(f32x4.splat(load<f32>(inp + o))), 0));
}

/** dinp[i] += dout[i] * gelu'(inp[i]); overwrite: dinp[i] = 0 + that (as zeroing dinp first would give). */
export function geluBackward(dinp: usize, inp: usize, dout: usize, n: i32, overwrite: bool): void {
  const nb = <usize>n << 2, n4 = <usize>(n & ~3) << 2, n16 = <usize>(n & ~15) << 2, zero = f32x4.splat(0), en = threadScratch(EN, 64);
  let o: usize = 0;
  for (; o < n16; o += 64) {
    // four independent vectors per iteration: each is a long dependent chain (exp, a division), and one at a time the
    // out-of-order window overlapped too few of them (1.5x on one Zen 4 core; the same values element by element)
    expMinus2u4(en, inp + o);
    const g0 = geluGradOf(v128.load(inp + o), v128.load(dout + o), v128.load(en)), g1 = geluGradOf(v128.load(inp + o, 16), v128.load(dout + o, 16), v128.load(en, 16));
    const g2 = geluGradOf(v128.load(inp + o, 32), v128.load(dout + o, 32), v128.load(en, 32)), g3 = geluGradOf(v128.load(inp + o, 48), v128.load(dout + o, 48), v128.load(en, 48));
    v128.store(dinp + o, f32x4.add(overwrite ? zero : v128.load(dinp + o), g0));
    v128.store(dinp + o, f32x4.add(overwrite ? zero : v128.load(dinp + o, 16), g1), 16);
    v128.store(dinp + o, f32x4.add(overwrite ? zero : v128.load(dinp + o, 32), g2), 32);
    v128.store(dinp + o, f32x4.add(overwrite ? zero : v128.load(dinp + o, 48), g3), 48);
  }
  for (; o < n4; o += 16) {
    v128.store(dinp + o, f32x4.add(overwrite ? zero : v128.load(dinp + o), geluGrad4(v128.load(inp + o), v128.load(dout + o))));
  }
  for (o = n4; o < nb; o += 4) {
    const g = f32x4.extract_lane(geluGrad4(f32x4.splat(load<f32>(inp + o)), f32x4.splat(load<f32>(dout + o))), 0);
    store<f32>(dinp + o, (overwrite ? <f32>0 : load<f32>(dinp + o)) + g);
  }
}
