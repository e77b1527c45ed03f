// Log-softmax over the vocabulary, always max-subtracted: z = logits[n,:] / temperature,
// lse = max z + log sum exp(z - max z).
//   logprob_forward:       logp[n] = z[target] - lse (0 when target < 0);
//                          entropy[n] = log sum e - sum e (z - max) / sum e, e = exp(z - max)  (=)
//   logprob_backward:      dlogits[n,:] += dlogp[n] * (onehot(target) - p) / temperature       (+=)
//   crossentropy_forward:  losses[n] = lse - z[target] with temperature 1 (0 when target < 0)   (=)
//   crossentropy_backward: dlogits[n,:] += dloss[n] * (p - onehot(target))                      (+=)
// Rows with target < 0 (or a zero upstream gradient) get no gradient, as in the CPU reference.
// Parallel structure: TPR invocations per row (WG / TPR rows per workgroup). Each lane
// makes one pass over its strided elements keeping an online softmax state (running
// max m, sum of exp(z - m), and for the entropy sum of exp(z - m) (z - m)); the lanes'
// states are merged by a tree reduction in workgroup memory. Backward then writes its
// lane's elements. One exp per element in the pass, one more per written gradient.

struct Params {
  N: u32,
  V: u32,
  temperature: f32,
}

override WG: u32 = 128u;
override TPR: u32 = 32u; // invocations per row, a power of two dividing WG

const MAX_WG: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> logp: array<f32>;
@group(0) @binding(2) var<storage, read_write> entropy: array<f32>;
@group(0) @binding(3) var<storage, read_write> logits: array<f32>;
@group(0) @binding(4) var<storage, read_write> targets: array<i32>;
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(6) var<storage, read_write> dlogp: array<f32>;
@group(0) @binding(7) var<storage, read_write> losses: array<f32>;
@group(0) @binding(8) var<storage, read_write> dloss: array<f32>;

// Online softmax state of a set of z: m = max, s = sum exp(z - m), ez = sum exp(z - m) (z - m).
// s == 0 marks the empty set (no infinities: WGSL does not promise them).
struct Soft {
  m: f32,
  s: f32,
  ez: f32,
}

var<workgroup> red_m: array<f32, MAX_WG>;
var<workgroup> red_s: array<f32, MAX_WG>;
var<workgroup> red_ez: array<f32, MAX_WG>;

fn soft_add(a: Soft, z: f32) -> Soft {
  if (a.s == 0.0) { return Soft(z, 1.0, 0.0); }
  if (z <= a.m) {
    let e = exp(z - a.m);
    return Soft(a.m, a.s + e, a.ez + e * (z - a.m));
  }
  // z is the new max: rescale, exp(z - a.m) (z - a.m) terms shift by (a.m - z) each.
  let r = exp(a.m - z);
  return Soft(z, a.s * r + 1.0, r * (a.ez + a.s * (a.m - z)));
}

fn soft_merge(a: Soft, b: Soft) -> Soft {
  if (a.s == 0.0) { return b; }
  if (b.s == 0.0) { return a; }
  let m = max(a.m, b.m);
  let ra = exp(a.m - m);
  let rb = exp(b.m - m);
  return Soft(m, a.s * ra + b.s * rb, ra * (a.ez + a.s * (a.m - m)) + rb * (b.ez + b.s * (b.m - m)));
}

// Merges the states of the TPR lanes of each row's segment [seg, seg + TPR); every lane gets the row's.
// Called by every invocation of the workgroup (it holds barriers).
fn row_soft(x: Soft, seg: u32, lane: u32) -> Soft {
  let i = seg + lane;
  red_m[i] = x.m;
  red_s[i] = x.s;
  red_ez[i] = x.ez;
  workgroupBarrier();
  for (var st = TPR / 2u; st > 0u; st >>= 1u) {
    if (lane < st) {
      let y = soft_merge(Soft(red_m[i], red_s[i], red_ez[i]), Soft(red_m[i + st], red_s[i + st], red_ez[i + st]));
      red_m[i] = y.m;
      red_s[i] = y.s;
      red_ez[i] = y.ez;
    }
    workgroupBarrier();
  }
  let total = Soft(red_m[seg], red_s[seg], red_ez[seg]);
  workgroupBarrier();
  return total;
}

struct RowId {
  n: u32, // the row
  lane: u32, // 0..TPR
  seg: u32, // first slot of this row's lanes in the reduction arrays
  valid: bool, // n < N (lanes past the last row still join the barriers)
}

fn row_id(wid: vec3u, nwg: vec3u, lid: u32) -> RowId {
  let group = wid.x + wid.y * nwg.x;
  let n = group * (WG / TPR) + lid / TPR;
  let lane = lid % TPR;
  return RowId(n, lane, lid - lane, n < p.N);
}

fn z(n: u32, v: u32) -> f32 {
  return logits[n * p.V + v] / p.temperature;
}

fn has_target(n: u32) -> bool {
  let t = targets[n];
  return t >= 0 && u32(t) < p.V;
}

// The row's softmax state over all lanes (`contributes` false: this lane adds nothing).
fn row_state(r: RowId, contributes: bool) -> Soft {
  var a = Soft(0.0, 0.0, 0.0);
  if (contributes) {
    for (var v = r.lane; v < p.V; v += TPR) { a = soft_add(a, z(r.n, v)); }
  }
  return row_soft(a, r.seg, r.lane);
}

@compute @workgroup_size(WG)
fn logprob_forward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = row_id(wid, nwg, lid);
  let st = row_state(r, r.valid);
  if (!r.valid || r.lane != 0u) { return; }
  let ls = log(st.s);
  entropy[r.n] = ls - st.ez / st.s;
  if (has_target(r.n)) { logp[r.n] = z(r.n, u32(targets[r.n])) - st.m - ls; } else { logp[r.n] = 0.0; }
}

@compute @workgroup_size(WG)
fn logprob_backward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = row_id(wid, nwg, lid);
  var g = 0.0;
  if (r.valid && has_target(r.n)) { g = dlogp[r.n] / p.temperature; }
  let st = row_state(r, g != 0.0);
  if (g == 0.0) { return; }
  let lse = st.m + log(st.s);
  let t = u32(targets[r.n]);
  for (var v = r.lane; v < p.V; v += TPR) {
    let i = r.n * p.V + v;
    dlogits[i] = dlogits[i] + g * (select(0.0, 1.0, v == t) - exp(z(r.n, v) - lse));
  }
}

@compute @workgroup_size(WG)
fn crossentropy_forward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = row_id(wid, nwg, lid);
  let counted = r.valid && has_target(r.n);
  let st = row_state(r, counted);
  if (!r.valid || r.lane != 0u) { return; }
  if (counted) { losses[r.n] = st.m + log(st.s) - z(r.n, u32(targets[r.n])); } else { losses[r.n] = 0.0; }
}

@compute @workgroup_size(WG)
fn crossentropy_backward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = row_id(wid, nwg, lid);
  var g = 0.0;
  if (r.valid && has_target(r.n)) { g = dloss[r.n]; }
  let st = row_state(r, g != 0.0);
  if (g == 0.0) { return; }
  let lse = st.m + log(st.s);
  let t = u32(targets[r.n]);
  for (var v = r.lane; v < p.V; v += TPR) {
    let i = r.n * p.V + v;
    dlogits[i] = dlogits[i] + g * (exp(z(r.n, v) - lse) - select(0.0, 1.0, v == t));
  }
}
