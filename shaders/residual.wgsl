// Residual stream and buffer helpers, elementwise over n.
//   residual_forward:   out  = a + b      (=)
//   accumulate_forward: out += a          (+=, the residual's backward into each branch)
//   copy_forward:       out  = a          (a kernel, so source and destination may share a buffer)
// Every binding is read_write so that views of one buffer may be bound together
// (read-only next to writable usage of one buffer is a validation error).
// CPU twin: src/reference/nn.ts; test: test/gpu/nn.test.ts.

struct Params {
  n: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> a: array<f32>;
@group(0) @binding(3) var<storage, read_write> b: array<f32>;

// Dispatches wider than 65535 workgroups are split over y.
fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

@compute @workgroup_size(WG)
fn residual_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.n) { return; }
  out[i] = a[i] + b[i];
}

@compute @workgroup_size(WG)
fn accumulate_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.n) { return; }
  out[i] = out[i] + a[i];
}

@compute @workgroup_size(WG)
fn copy_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.n) { return; }
  out[i] = a[i];
}

// out[i] = 0: the runtime's clear, as a dispatch in the open compute pass (clearBuffer would end it).
@compute @workgroup_size(WG)
fn zero_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.n) { return; }
  out[i] = 0.0;
}
