// GELU (tanh approximation), scalar in f64 like the reference (src/reference/nn.ts): one exp,
// 0.5 (1 + tanh u) = e / (1 + e) with e = exp(2u), 2u capped at 700. f64 so the numbers match
// the reference to the last f32 bit nearly always (the matmul, not this, is the hot part).
const GELU_S: f64 = 0.7978845608028654; // sqrt(2 / pi)

// @ts-ignore: decorator
@inline
export function gelu(x: f64): f64 {
  const u = GELU_S * (x + 0.044715 * x * x * x);
  const e = Math.exp(Math.min(2 * u, 700));
  return x * (e / (1 + e));
}

/** out[i] = gelu(inp[i]) for i < n. */
export function geluForward(out: usize, inp: usize, n: i32): void {
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 2;
    store<f32>(out + o, <f32>gelu(<f64>load<f32>(inp + o)));
  }
}

/** dinp[i] += dout[i] * gelu'(inp[i]). */
export function geluBackward(dinp: usize, inp: usize, dout: usize, n: i32): void {
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 2;
    const x = <f64>load<f32>(inp + o), u = GELU_S * (x + 0.044715 * x * x * x);
    const e = Math.exp(Math.min(2 * u, 700)), d = 1 / (1 + e), sg = e * d;
    const du = GELU_S * (1 + 3 * 0.044715 * x * x);
    store<f32>(dinp + o, <f32>(<f64>load<f32>(dinp + o) + <f64>load<f32>(dout + o) * (sg + 2 * x * sg * d * du)));
  }
}
