// Log-softmax over the vocabulary, one invocation per row n (V <= a few hundred),
// always max-subtracted: z = logits[n,:] / temperature, lse = max z + log sum exp(z - max z).
//   logprob_forward:       logp[n] = z[target] - lse (0 when target < 0); entropy[n] = lse - sum p z  (=)
//   logprob_backward:      dlogits[n,:] += dlogp[n] * (onehot(target) - p) / temperature              (+=)
//   crossentropy_forward:  losses[n] = lse - z[target] with temperature 1 (0 when target < 0)          (=)
//   crossentropy_backward: dlogits[n,:] += dloss[n] * (p - onehot(target))                             (+=)
// Rows with target < 0 get no gradient.

struct Params {
  N: u32,
  V: u32,
  temperature: f32,
}

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> logp: array<f32>;
@group(0) @binding(2) var<storage, read_write> entropy: array<f32>;
@group(0) @binding(3) var<storage, read_write> logits: array<f32>;
@group(0) @binding(4) var<storage, read_write> targets: array<i32>;
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(6) var<storage, read_write> dlogp: array<f32>;
@group(0) @binding(7) var<storage, read_write> losses: array<f32>;
@group(0) @binding(8) var<storage, read_write> dloss: array<f32>;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

fn z(n: u32, v: u32) -> f32 {
  return logits[n * p.V + v] / p.temperature;
}

fn row_lse(n: u32) -> f32 {
  var mx = -3.4e38;
  for (var v = 0u; v < p.V; v++) { mx = max(mx, z(n, v)); }
  var sum = 0.0;
  for (var v = 0u; v < p.V; v++) { sum += exp(z(n, v) - mx); }
  return mx + log(sum);
}

fn has_target(n: u32) -> bool {
  let t = targets[n];
  return t >= 0 && u32(t) < p.V;
}

@compute @workgroup_size(WG)
fn logprob_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = flat(gid, nwg);
  if (n >= p.N) { return; }
  let lse = row_lse(n);
  var pz = 0.0;
  for (var v = 0u; v < p.V; v++) {
    let zv = z(n, v);
    pz += exp(zv - lse) * zv;
  }
  entropy[n] = lse - pz;
  if (has_target(n)) { logp[n] = z(n, u32(targets[n])) - lse; } else { logp[n] = 0.0; }
}

@compute @workgroup_size(WG)
fn logprob_backward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = flat(gid, nwg);
  if (n >= p.N || !has_target(n)) { return; }
  let lse = row_lse(n);
  let g = dlogp[n] / p.temperature;
  let t = u32(targets[n]);
  for (var v = 0u; v < p.V; v++) {
    let pv = exp(z(n, v) - lse);
    let onehot = select(0.0, 1.0, v == t);
    dlogits[n * p.V + v] = dlogits[n * p.V + v] + g * (onehot - pv);
  }
}

@compute @workgroup_size(WG)
fn crossentropy_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = flat(gid, nwg);
  if (n >= p.N) { return; }
  if (!has_target(n)) { losses[n] = 0.0; return; }
  losses[n] = row_lse(n) - z(n, u32(targets[n]));
}

@compute @workgroup_size(WG)
fn crossentropy_backward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = flat(gid, nwg);
  if (n >= p.N || !has_target(n)) { return; }
  let lse = row_lse(n);
  let g = dloss[n];
  let t = u32(targets[n]);
  for (var v = 0u; v < p.V; v++) {
    let pv = exp(z(n, v) - lse);
    let onehot = select(0.0, 1.0, v == t);
    dlogits[n * p.V + v] = dlogits[n * p.V + v] + g * (pv - onehot);
  }
}
