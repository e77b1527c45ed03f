// Log-softmax over the vocabulary, always max-subtracted: z = logits[n,:] / temperature,
// lse = max z + log sum exp(z - max z).
//   logprob_forward:       logp[n] = z[target] - lse (0 when target < 0);
//                          entropy[n] = log sum e - sum e (z - max) / sum e, e = exp(z - max)  (=)
//   logprob_backward:      dlogits[n,:] += dlogp[n] * (onehot(target) - p) / temperature       (+=)
//   crossentropy_forward:  losses[n] = lse - z[target] with temperature 1 (0 when target < 0)   (=)
//   crossentropy_backward: dlogits[n,:] += dloss[n] * (p - onehot(target))                      (+=)
// Rows with target < 0 (or a zero upstream gradient) get no gradient, as in the CPU reference.
// Parallel structure: TPR invocations per row (WG / TPR rows per workgroup), each lane
// striding over the row. Two passes, as the CPU reference: the row max (a max reduction in
// workgroup memory), then sum e and sum e (z - max) (a sum reduction); backward adds a
// third pass that writes its lane's gradients. A row is at most a few KB, so the passes
// after the first read it from cache. Reductions fan in 16 per level (few barriers).
// TPR = 1 (the layout on CPU adapters) skips the reductions: no barrier at all.
// CPU twin: src/reference/logsoftmax.ts; test: test/gpu/nn.test.ts.

struct Params {
  N: u32,
  V: u32,
  temperature: f32,
}

override WG: u32 = 128u;
override TPR: u32 = 32u; // invocations per row, a power of two dividing WG

const MAX_WG: u32 = 256u;
const FAN: u32 = 16u; // reduction fan-in per level
const NEG_BIG: f32 = -3.4e38; // the max of no elements (finite: WGSL does not promise infinities)

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> logp: array<f32>;
@group(0) @binding(2) var<storage, read_write> entropy: array<f32>;
@group(0) @binding(3) var<storage, read> logits: array<f32>;
@group(0) @binding(4) var<storage, read> targets: array<i32>;
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(6) var<storage, read> dlogp: array<f32>;
@group(0) @binding(7) var<storage, read_write> losses: array<f32>;
@group(0) @binding(8) var<storage, read> dloss: array<f32>;

var<workgroup> red_max: array<f32, MAX_WG>; // one array per reduction: no barrier between them
var<workgroup> red_sum: array<vec2f, MAX_WG>;

// The max of x over the TPR lanes of each row's segment [seg, seg + TPR); every lane gets it.
// Fan-in FAN per level: TPR <= FAN takes one level, TPR <= FAN^2 two.
// Called by every invocation of the workgroup (it holds barriers).
fn row_max(x: f32, seg: u32, lane: u32) -> f32 {
  if (TPR == 1u) { return x; } // one lane per row: nothing to combine (and no barrier in the shader)
  red_max[seg + lane] = x;
  workgroupBarrier();
  for (var n = TPR; n > 1u; n = max(n / FAN, 1u)) {
    let next = max(n / FAN, 1u);
    if (lane < next) {
      var acc = red_max[seg + lane];
      for (var j = lane + next; j < n; j += next) { acc = max(acc, red_max[seg + j]); }
      red_max[seg + lane] = acc;
    }
    workgroupBarrier();
  }
  return red_max[seg];
}

// The sum of x over the row's lanes, as row_max.
fn row_sum(x: vec2f, seg: u32, lane: u32) -> vec2f {
  if (TPR == 1u) { return x; }
  red_sum[seg + lane] = x;
  workgroupBarrier();
  for (var n = TPR; n > 1u; n = max(n / FAN, 1u)) {
    let next = max(n / FAN, 1u);
    if (lane < next) {
      var acc = red_sum[seg + lane];
      for (var j = lane + next; j < n; j += next) { acc += red_sum[seg + j]; }
      red_sum[seg + lane] = acc;
    }
    workgroupBarrier();
  }
  return red_sum[seg];
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

// Softmax statistics of row r over all lanes: m = max z, s = sum e, ez = sum e (z - m), e = exp(z - m).
// `contributes` false: this lane reads nothing (a row past N, or one that needs no gradient).
struct RowStats {
  m: f32,
  s: f32,
  ez: f32,
}

fn row_stats(r: RowId, contributes: bool) -> RowStats {
  let V = select(0u, p.V, contributes);
  var mx = NEG_BIG;
  for (var v = r.lane; v < V; v += TPR) { mx = max(mx, z(r.n, v)); }
  let m = row_max(mx, r.seg, r.lane);
  var acc = vec2f(0.0);
  for (var v = r.lane; v < V; v += TPR) {
    let zs = z(r.n, v) - m;
    let e = exp(zs);
    acc += vec2f(e, e * zs);
  }
  let total = row_sum(acc, r.seg, r.lane);
  return RowStats(m, total.x, total.y);
}

@compute @workgroup_size(WG)
fn logprob_forward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = row_id(wid, nwg, lid);
  let st = row_stats(r, r.valid);
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
  let st = row_stats(r, g != 0.0);
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
  let st = row_stats(r, counted);
  if (!r.valid || r.lane != 0u) { return; }
  if (counted) { losses[r.n] = st.m + log(st.s) - z(r.n, u32(targets[r.n])); } else { losses[r.n] = 0.0; }
}

@compute @workgroup_size(WG)
fn crossentropy_backward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = row_id(wid, nwg, lid);
  var g = 0.0;
  if (r.valid && has_target(r.n)) { g = dloss[r.n]; }
  let st = row_stats(r, g != 0.0);
  if (g == 0.0) { return; }
  let lse = st.m + log(st.s);
  let t = u32(targets[r.n]);
  for (var v = r.lane; v < p.V; v += TPR) {
    let i = r.n * p.V + v;
    dlogits[i] = dlogits[i] + g * (exp(z(r.n, v) - lse) - select(0.0, 1.0, v == t));
  }
}
