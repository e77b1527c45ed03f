// GELU (tanh approximation) on f32x4 (twin: nn.ts geluForward/Backward in src/reference; test: test/simd/backend.test.ts),
// as the reference writes it: 0.5 (1 + tanh u) = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3), here x / (1 + exp(-2u)) with
// expf4 (exp.ts); -2u is capped by expf4's clamp, where the result is x * 1e-38 (0 in effect).
// f32 throughout (the reference is f64 inside): within a few ulp of it.
import { expf4 } from './exp';

const GELU_S: f32 = 0.7978845608028654; // sqrt(2 / pi)
const GELU_C: f32 = 0.044715;

/** exp(-2u) for each lane. */
// @ts-ignore: decorator
@inline
function expMinus2u(x: v128): v128 {
  const x3 = f32x4.mul(f32x4.mul(x, x), x);
  const u = f32x4.mul(f32x4.splat(GELU_S), f32x4.add(x, f32x4.mul(f32x4.splat(GELU_C), x3)));
  return expf4(f32x4.mul(u, f32x4.splat(-2)));
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
  const en = expMinus2u(x), sg = f32x4.div(f32x4.splat(1), f32x4.add(f32x4.splat(1), en)), d = f32x4.mul(en, sg);
  const du = f32x4.mul(f32x4.splat(GELU_S), f32x4.add(f32x4.splat(1), f32x4.mul(f32x4.splat(3 * GELU_C), f32x4.mul(x, x))));
  const two = f32x4.mul(f32x4.mul(f32x4.mul(f32x4.add(x, x), sg), d), du);
  return f32x4.mul(g, f32x4.add(sg, two));
}

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
  const nb = <usize>n << 2, n4 = <usize>(n & ~3) << 2, n16 = <usize>(n & ~15) << 2, zero = f32x4.splat(0);
  let o: usize = 0;
  for (; o < n16; o += 64) {
    // four independent vectors per iteration: each is a long dependent chain (exp, a division), and one at a time the
    // out-of-order window overlapped too few of them (1.5x on one Zen 4 core; the same values element by element)
    const g0 = geluGrad4(v128.load(inp + o), v128.load(dout + o)), g1 = geluGrad4(v128.load(inp + o, 16), v128.load(dout + o, 16));
    const g2 = geluGrad4(v128.load(inp + o, 32), v128.load(dout + o, 32)), g3 = geluGrad4(v128.load(inp + o, 48), v128.load(dout + o, 48));
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
