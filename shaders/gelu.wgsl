// GELU, tanh approximation: out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//   gelu_forward:  out   = gelu(inp)                 (=)
//   gelu_backward: dinp += gelu'(inp) * dout         (+=)
// CPU twin: src/reference/nn.ts; test: test/gpu/nn.test.ts.

struct Params {
  n: u32,
}

override WG: u32 = 256u;

const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const CUBE_COEF: f32 = 0.044715;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> inp: array<f32>;
@group(0) @binding(3) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(4) var<storage, read> dout: array<f32>;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

// tanh of a clamped argument: some drivers build tanh from exp and return NaN
// for large |u|; tanh(10) already rounds to 1 in f32, so the clamp is exact.
fn tanh_arg(x: f32) -> f32 {
  return clamp(SQRT_2_OVER_PI * (x + CUBE_COEF * x * x * x), -10.0, 10.0);
}

@compute @workgroup_size(WG)
fn gelu_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.n) { return; }
  let x = inp[i];
  out[i] = 0.5 * x * (1.0 + tanh(tanh_arg(x)));
}

@compute @workgroup_size(WG)
fn gelu_backward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.n) { return; }
  let x = inp[i];
  let th = tanh(tanh_arg(x));
  // sech^2 = 1 - tanh^2 (cosh would overflow for large arguments)
  let sech2 = 1.0 - th * th;
  let local_grad = 0.5 * (1.0 + th) + 0.5 * x * sech2 * SQRT_2_OVER_PI * (1.0 + 3.0 * CUBE_COEF * x * x);
  dinp[i] = dinp[i] + local_grad * dout[i];
}
