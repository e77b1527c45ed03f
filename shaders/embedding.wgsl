// Token + position embedding.
//   embedding_forward:      out[n,c]   = wte[tokens[n],c] + wpe[n % T,c]        (=)
//   embedding_backward_wte: dwte[v,c] += sum_{n: tokens[n]=v} dout[n,c]          (+=)
//   embedding_backward_wpe: dwpe[t,c] += sum_{n: n%T=t} dout[n,c]                (+=)
// The backward passes are gathers (one invocation per gradient element looping
// over the tokens), so no atomics are needed and results are deterministic.
// Members (a population's runs stacked; CSR offsets rowStart [members+1] over rows): member m's rows
// read and reduce into its own wte, wpe (wteStride, wpeStride apart), positions count from its first
// row; the forward runs over members x maxRows row slots (idle past a member's rows), the backward
// gathers over members x V x C and members x T x C gradient elements, each looping over its member's
// rows only. One dispatch each, whatever the members.

struct Params {
  N: u32,
  T: u32,
  C: u32,
  V: u32,
  members: u32, // 0: no members (one run)
  maxRows: u32, // row slots per member (N without members)
  wteStride: u32,
  wpeStride: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> tokens: array<i32>;
// wte and wpe only read: members' stacked copies are overlapping views of one buffer (read-only bindings may overlap)
@group(0) @binding(3) var<storage, read> wte: array<f32>;
@group(0) @binding(4) var<storage, read> wpe: array<f32>;
@group(0) @binding(5) var<storage, read_write> dwte: array<f32>;
@group(0) @binding(6) var<storage, read_write> dwpe: array<f32>;
@group(0) @binding(7) var<storage, read_write> dout: array<f32>;
@group(0) @binding(8) var<storage, read_write> rowStart: array<u32>;

// Member m's first row and row count (all N rows when there are no members).
fn member_rows(m: u32) -> vec2u {
  if (p.members == 0u) { return vec2u(0u, p.N); }
  let first = rowStart[m];
  return vec2u(first, rowStart[m + 1u] - first);
}

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

@compute @workgroup_size(WG)
fn embedding_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= max(p.members, 1u) * p.maxRows * p.C) { return; }
  let q = i / p.C; // row slot
  let c = i % p.C;
  let m = q / p.maxRows;
  let span = member_rows(m);
  let slot = q % p.maxRows;
  if (slot >= span.y) { return; }
  let n = span.x + slot;
  let tok = u32(tokens[n]);
  out[n * p.C + c] = wte[m * p.wteStride + tok * p.C + c] + wpe[m * p.wpeStride + (slot % p.T) * p.C + c];
}

@compute @workgroup_size(WG)
fn embedding_backward_wte(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  let vc = p.V * p.C;
  if (i >= max(p.members, 1u) * vc) { return; }
  let m = i / vc;
  let e = i % vc;
  let v = i32(e / p.C);
  let c = e % p.C;
  let span = member_rows(m);
  var sum = 0.0;
  for (var n = span.x; n < span.x + span.y; n++) {
    if (tokens[n] == v) {
      sum += dout[n * p.C + c];
    }
  }
  let o = m * p.wteStride + e;
  dwte[o] = dwte[o] + sum;
}

@compute @workgroup_size(WG)
fn embedding_backward_wpe(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  let tc = p.T * p.C;
  if (i >= max(p.members, 1u) * tc) { return; }
  let m = i / tc;
  let e = i % tc;
  let t = e / p.C;
  let c = e % p.C;
  let span = member_rows(m);
  var sum = 0.0;
  for (var n = span.x + t; n < span.x + span.y; n += p.T) {
    sum += dout[n * p.C + c];
  }
  let o = m * p.wpeStride + e;
  dwpe[o] = dwpe[o] + sum;
}
