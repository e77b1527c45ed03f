// Optimizer kernels over the flat parameter vector.
//   sumsq_partial: partials[w] = sum of x^2 over workgroup w's grid-stride slice    (=)
//   sumsq_final:   sums[0] = sum of partials (one workgroup; deterministic order)    (=)
//   sumsq_single:  sums[0] = sum of x^2 by one workgroup (vectors up to SINGLE_MAX: one dispatch)
//   clip_scale:    scale[0] = maxNorm > 0 ? min(1, maxNorm / (sqrt(sums[0]) + 1e-6)) : 1  (=)
//   adamw_clip_update: clip_scale and adamw_update in one dispatch (the scale computed per invocation)
//   adamw_update:  g = grads * scale[0]; m, v moments; params -= lr * (mhat / (sqrt(vhat) + eps)
//                  + weightDecay * decayMask * params)                                (in place)
// The scale stays on the device so clipping needs no readback.
// Members (a population's runs stacked): member m's segment of each vector starts at m * stride;
// sumsq's grid y (first stage) and x (second) are the member, sums[m] its own norm^2; clip_scale's x
// is the member, scale[m] from sums[m]; adamw_update runs over members x n with scale[m] and lr[m].
// One dispatch each, whatever the members.
// CPU twin: src/reference/optim.ts; test: test/gpu/optim.test.ts.

struct Params {
  n: u32,
  numPartials: u32,
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weightDecay: f32,
  biasCorrection1: f32, // 1 - beta1^step, computed in f64 on the host
  biasCorrection2: f32, // 1 - beta2^step
  maxNorm: f32,
  members: u32, // 0: no members (one run)
  stride: u32, // members: elements between members' segments
}

override WG: u32 = 256u;
const RWG: u32 = 256u; // reduction workgroup size (fixed: it sizes the workgroup array)

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> params: array<f32>;
@group(0) @binding(2) var<storage, read> grads: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;
@group(0) @binding(5) var<storage, read> decayMask: array<f32>;
@group(0) @binding(6) var<storage, read_write> scale: array<f32>;
@group(0) @binding(7) var<storage, read_write> sums: array<f32>;
@group(0) @binding(8) var<storage, read_write> partials: array<f32>;
@group(0) @binding(9) var<storage, read> x: array<f32>;
@group(0) @binding(10) var<storage, read> lr: array<f32>; // members: each member's learning rate

var<workgroup> red: array<f32, RWG>;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

fn reduce_workgroup(lid: u32) {
  for (var stride = RWG / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) { red[lid] += red[lid + stride]; }
    workgroupBarrier();
  }
}

@compute @workgroup_size(RWG)
fn sumsq_partial(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let base = wid.y * p.stride;
  var sum = 0.0;
  for (var i = wid.x * RWG + lid.x; i < p.n; i += p.numPartials * RWG) {
    sum += x[base + i] * x[base + i];
  }
  red[lid.x] = sum;
  workgroupBarrier();
  reduce_workgroup(lid.x);
  if (lid.x == 0u) { partials[wid.y * p.numPartials + wid.x] = red[0]; }
}

// Small vectors: one workgroup per member sums its whole segment (one dispatch instead of two).
@compute @workgroup_size(RWG)
fn sumsq_single(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let base = wid.x * p.stride;
  var sum = 0.0;
  for (var i = lid.x; i < p.n; i += RWG) { sum += x[base + i] * x[base + i]; }
  red[lid.x] = sum;
  workgroupBarrier();
  reduce_workgroup(lid.x);
  if (lid.x == 0u) { sums[wid.x] = red[0]; }
}

@compute @workgroup_size(RWG)
fn sumsq_final(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  var sum = 0.0;
  for (var i = lid.x; i < p.numPartials; i += RWG) { sum += partials[wid.x * p.numPartials + i]; }
  red[lid.x] = sum;
  workgroupBarrier();
  reduce_workgroup(lid.x);
  if (lid.x == 0u) { sums[wid.x] = red[0]; }
}

// The clip scale of member m from its norm^2: the divergence guard, a NaN or Inf norm (exponent bits all
// ones), gives -1 (adamw skips the member); maxNorm 0 turns clipping off.
fn clip_of(normSq: f32) -> f32 {
  if ((bitcast<u32>(normSq) & 0x7f800000u) == 0x7f800000u) { return -1.0; }
  if (p.maxNorm > 0.0) { return min(1.0, p.maxNorm / (sqrt(normSq) + 1e-6)); }
  return 1.0;
}

@compute @workgroup_size(1)
fn clip_scale(@builtin(workgroup_id) wid: vec3u) {
  scale[wid.x] = clip_of(sums[wid.x]);
}

// Element j of member mem's segment with clip scale s (skipped by the caller when s < 0).
fn adamw_element(mem: u32, j: u32, s: f32) {
  let i = mem * p.stride + j;
  var rate = p.lr;
  if (p.members != 0u) { rate = lr[mem]; }
  let g = grads[i] * s;
  let mi = p.beta1 * m[i] + (1.0 - p.beta1) * g;
  let vi = p.beta2 * v[i] + (1.0 - p.beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  let mhat = mi / p.biasCorrection1;
  let vhat = vi / p.biasCorrection2;
  let w = params[i];
  params[i] = w - rate * (mhat / (sqrt(vhat) + p.eps) + p.weightDecay * decayMask[j] * w);
}

@compute @workgroup_size(WG)
fn adamw_update(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let flat_i = flat(gid, nwg);
  let mem = flat_i / max(p.n, 1u); // the member
  if (mem >= max(p.members, 1u) || scale[mem] < 0.0) { return; }
  adamw_element(mem, flat_i % max(p.n, 1u), scale[mem]); // j: the index in the segment (decayMask is shared)
}

// clip_scale and adamw_update in one dispatch: each invocation computes its member's scale from sums (the
// norms^2) itself; the first element of each segment writes it to scale, which no invocation reads.
@compute @workgroup_size(WG)
fn adamw_clip_update(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let flat_i = flat(gid, nwg);
  let mem = flat_i / max(p.n, 1u);
  if (mem >= max(p.members, 1u)) { return; }
  let j = flat_i % max(p.n, 1u);
  let s = clip_of(sums[mem]);
  if (j == 0u) { scale[mem] = s; }
  if (s < 0.0) { return; }
  adamw_element(mem, j, s);
}
