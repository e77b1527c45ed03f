// Token + position embedding.
//   embedding_forward:      out[n,c]   = wte[tokens[n],c] + wpe[n % T,c]        (=)
//   embedding_backward_wte: dwte[v,c] += sum_{n: tokens[n]=v} dout[n,c]          (+=)
//   embedding_backward_wpe: dwpe[t,c] += sum_{n: n%T=t} dout[n,c]                (+=)
// The backward passes are gathers (one invocation per gradient element looping
// over the tokens), so no atomics are needed and results are deterministic.

struct Params {
  N: u32,
  T: u32,
  C: u32,
  V: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> tokens: array<i32>;
@group(0) @binding(3) var<storage, read_write> wte: array<f32>;
@group(0) @binding(4) var<storage, read_write> wpe: array<f32>;
@group(0) @binding(5) var<storage, read_write> dwte: array<f32>;
@group(0) @binding(6) var<storage, read_write> dwpe: array<f32>;
@group(0) @binding(7) var<storage, read_write> dout: array<f32>;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

@compute @workgroup_size(WG)
fn embedding_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.N * p.C) { return; }
  let n = i / p.C;
  let c = i % p.C;
  let tok = u32(tokens[n]);
  out[i] = wte[tok * p.C + c] + wpe[(n % p.T) * p.C + c];
}

@compute @workgroup_size(WG)
fn embedding_backward_wte(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.V * p.C) { return; }
  let v = i32(i / p.C);
  let c = i % p.C;
  var sum = 0.0;
  for (var n = 0u; n < p.N; n++) {
    if (tokens[n] == v) {
      sum += dout[n * p.C + c];
    }
  }
  dwte[i] = dwte[i] + sum;
}

@compute @workgroup_size(WG)
fn embedding_backward_wpe(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.T * p.C) { return; }
  let t = i / p.C;
  let c = i % p.C;
  var sum = 0.0;
  for (var n = t; n < p.N; n += p.T) {
    sum += dout[n * p.C + c];
  }
  dwpe[i] = dwpe[i] + sum;
}
