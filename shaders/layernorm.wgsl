// LayerNorm over the last dimension C (eps 1e-5, biased variance).
//   layernorm_forward:         out = (x - mean) * rstd * weight + bias; saves mean, rstd [N]   (=)
//   layernorm_backward_dinp:   dinp += (dnorm - mean(dnorm) - norm * mean(dnorm * norm)) * rstd (+=)
//   layernorm_backward_params: dweight[c] += sum_n norm * dout; dbias[c] += sum_n dout        (+=)
// One invocation per row (forward, dinp) or per column (params): C <= a few hundred.

struct Params {
  N: u32,
  C: u32,
}

override WG: u32 = 64u;

const EPS: f32 = 1e-5;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> mean: array<f32>;
@group(0) @binding(3) var<storage, read_write> rstd: array<f32>;
@group(0) @binding(4) var<storage, read_write> inp: array<f32>;
@group(0) @binding(5) var<storage, read_write> weight: array<f32>;
@group(0) @binding(6) var<storage, read_write> bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(8) var<storage, read_write> dweight: array<f32>;
@group(0) @binding(9) var<storage, read_write> dbias: array<f32>;
@group(0) @binding(10) var<storage, read_write> dout: array<f32>;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

@compute @workgroup_size(WG)
fn layernorm_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = flat(gid, nwg);
  if (n >= p.N) { return; }
  let base = n * p.C;
  var sum = 0.0;
  for (var c = 0u; c < p.C; c++) { sum += inp[base + c]; }
  let m = sum / f32(p.C);
  var sq = 0.0;
  for (var c = 0u; c < p.C; c++) {
    let d = inp[base + c] - m;
    sq += d * d;
  }
  let s = 1.0 / sqrt(sq / f32(p.C) + EPS);
  for (var c = 0u; c < p.C; c++) {
    out[base + c] = (inp[base + c] - m) * s * weight[c] + bias[c];
  }
  mean[n] = m;
  rstd[n] = s;
}

@compute @workgroup_size(WG)
fn layernorm_backward_dinp(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = flat(gid, nwg);
  if (n >= p.N) { return; }
  let base = n * p.C;
  let m = mean[n];
  let s = rstd[n];
  var dnorm_mean = 0.0;
  var dnorm_norm_mean = 0.0;
  for (var c = 0u; c < p.C; c++) {
    let norm = (inp[base + c] - m) * s;
    let dnorm = weight[c] * dout[base + c];
    dnorm_mean += dnorm;
    dnorm_norm_mean += dnorm * norm;
  }
  dnorm_mean /= f32(p.C);
  dnorm_norm_mean /= f32(p.C);
  for (var c = 0u; c < p.C; c++) {
    let norm = (inp[base + c] - m) * s;
    let dnorm = weight[c] * dout[base + c];
    dinp[base + c] = dinp[base + c] + (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
  }
}

@compute @workgroup_size(WG)
fn layernorm_backward_params(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let c = flat(gid, nwg);
  if (c >= p.C) { return; }
  var dw = 0.0;
  var db = 0.0;
  for (var n = 0u; n < p.N; n++) {
    let d = dout[n * p.C + c];
    dw += (inp[n * p.C + c] - mean[n]) * rstd[n] * d;
    db += d;
  }
  dweight[c] = dweight[c] + dw;
  dbias[c] = dbias[c] + db;
}
