// The RL objective (design/rl.md sections 3 and 4).
//   gather_forward:        out[i] = src[index[i]]                                      (=)
//   group_normalize:       adv per episode from rewards, groups as CSR groupStart[P+1] (=)
//   group_normalize_stats: advStats = [groups with all-equal rewards or size 1, P]     (=)
//   seq_ratio:             logS, ratio per sequence; tokRatio per token (1 where masked out) (=)
//   clip_loss_gspo / clip_loss_grpo: lossSeq, klSeq, clipSeq per sequence            (=)
//   clip_grad_gspo / clip_grad_grpo: dlogp per token = dL/dlogp, L = mean_i (L_i + beta kl_i) (=)
//   rl_stats:              the RL_STATS vector (src/backend.ts)                         (=)
// Clipping is active only when (ratio < 1 - epsLow and A < 0) or (ratio > 1 + epsHigh and A > 0);
// there the clipped branch is the minimum and the gradient is zero.
// A token counts when mask > 0. Means over sequences divide by S (every sequence; an all-masked one has length max(1, 0) = 1).
// Loss and gradient are separate entry points so none binds more than 8 storage buffers.

struct Params {
  n: u32,      // gather length
  E: u32,      // episodes
  P: u32,      // groups
  mode: u32,   // 0 group, 1 none, 2 batch
  S: u32,      // sequences
  T: u32,      // tokens per sequence row
  hasRef: u32, // refLogp bound and beta > 0: the KL term is computed
  epsLow: f32,
  epsHigh: f32,
  beta: f32,
}

override WG: u32 = 64u;
const RWG: u32 = 256u; // rl_stats workgroup size (sizes the workgroup arrays)

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> src: array<f32>;
@group(0) @binding(3) var<storage, read_write> index: array<i32>;
@group(0) @binding(4) var<storage, read_write> adv: array<f32>;
@group(0) @binding(5) var<storage, read_write> advStats: array<f32>;
@group(0) @binding(6) var<storage, read_write> rewards: array<f32>;
@group(0) @binding(7) var<storage, read_write> groupStart: array<i32>;
@group(0) @binding(8) var<storage, read_write> logS: array<f32>;
@group(0) @binding(9) var<storage, read_write> ratio: array<f32>;
@group(0) @binding(10) var<storage, read_write> tokRatio: array<f32>;
@group(0) @binding(11) var<storage, read_write> logp: array<f32>;
@group(0) @binding(12) var<storage, read_write> oldLogp: array<f32>;
@group(0) @binding(13) var<storage, read_write> mask: array<f32>;
@group(0) @binding(14) var<storage, read_write> lossSeq: array<f32>;
@group(0) @binding(15) var<storage, read_write> klSeq: array<f32>;
@group(0) @binding(16) var<storage, read_write> clipSeq: array<f32>;
@group(0) @binding(17) var<storage, read_write> dlogp: array<f32>;
@group(0) @binding(18) var<storage, read_write> seqAdv: array<f32>;
@group(0) @binding(19) var<storage, read_write> refLogp: array<f32>;
@group(0) @binding(20) var<storage, read_write> stats: array<f32>;

var<workgroup> redSum: array<f32, RWG>;
var<workgroup> redKl: array<f32, RWG>;
var<workgroup> redClip: array<f32, RWG>;
var<workgroup> redCount: array<f32, RWG>;
var<workgroup> redRatio: array<f32, RWG>;
var<workgroup> redMin: array<f32, RWG>;
var<workgroup> redMax: array<f32, RWG>;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

@compute @workgroup_size(WG)
fn gather_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.n) { return; }
  out[i] = src[index[i]];
}

// ---- advantages ----

fn group_range(g: u32) -> vec2u {
  let start = min(u32(max(groupStart[g], 0)), p.E);
  let end = min(max(u32(max(groupStart[g + 1u], 0)), start), p.E);
  return vec2u(start, end);
}

// A group of one, or with exactly equal rewards, carries no signal: A = 0.
fn group_is_flat(r: vec2u) -> bool {
  if (r.y - r.x <= 1u) { return true; }
  for (var e = r.x + 1u; e < r.y; e++) {
    if (rewards[e] != rewards[r.x]) { return false; }
  }
  return true;
}

// Bessel std of all E rewards (0 when E < 2).
fn batch_std() -> f32 {
  if (p.E < 2u) { return 0.0; }
  var sum = 0.0;
  for (var e = 0u; e < p.E; e++) { sum += rewards[e]; }
  let mean = sum / f32(p.E);
  var ss = 0.0;
  for (var e = 0u; e < p.E; e++) {
    let d = rewards[e] - mean;
    ss += d * d;
  }
  return sqrt(ss / f32(p.E - 1u));
}

// One invocation per group.
@compute @workgroup_size(WG)
fn group_normalize(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let g = flat(gid, nwg);
  if (g >= p.P) { return; }
  let r = group_range(g);
  if (group_is_flat(r)) {
    for (var e = r.x; e < r.y; e++) { adv[e] = 0.0; }
    return;
  }
  let count = f32(r.y - r.x);
  var sum = 0.0;
  for (var e = r.x; e < r.y; e++) { sum += rewards[e]; }
  let mean = sum / count;
  var ss = 0.0;
  for (var e = r.x; e < r.y; e++) {
    let d = rewards[e] - mean;
    ss += d * d;
  }
  var sd = sqrt(ss / (count - 1.0));
  if (p.mode == 2u) { sd = batch_std(); }
  for (var e = r.x; e < r.y; e++) {
    var a = rewards[e] - mean;
    if (p.mode != 1u) { a = a / (sd + 1e-4); }
    adv[e] = a;
  }
}

@compute @workgroup_size(1)
fn group_normalize_stats() {
  var flatGroups = 0u;
  for (var g = 0u; g < p.P; g++) {
    if (group_is_flat(group_range(g))) { flatGroups++; }
  }
  advStats[0] = f32(flatGroups);
  advStats[1] = f32(p.P);
}

// ---- ratios ----

// One invocation per sequence.
@compute @workgroup_size(WG)
fn seq_ratio(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = flat(gid, nwg);
  if (s >= p.S) { return; }
  var sum = 0.0;
  var count = 0.0;
  for (var t = 0u; t < p.T; t++) {
    let i = s * p.T + t;
    let d = logp[i] - oldLogp[i];
    if (mask[i] > 0.0) {
      sum += d;
      count += 1.0;
      tokRatio[i] = exp(d);
    } else {
      tokRatio[i] = 1.0;
    }
  }
  let ls = clamp(sum / max(1.0, count), -20.0, 20.0);
  logS[s] = ls;
  ratio[s] = exp(ls);
}

// ---- clipped surrogate ----

fn clip_active(r: f32, a: f32) -> bool {
  return (r < 1.0 - p.epsLow && a < 0.0) || (r > 1.0 + p.epsHigh && a > 0.0);
}

// -min(r A, clip(r, 1 - epsLow, 1 + epsHigh) A)
fn surrogate(r: f32, a: f32) -> f32 {
  return -min(r * a, clamp(r, 1.0 - p.epsLow, 1.0 + p.epsHigh) * a);
}

fn seq_length(s: u32) -> f32 {
  var count = 0.0;
  for (var t = 0u; t < p.T; t++) {
    if (mask[s * p.T + t] > 0.0) { count += 1.0; }
  }
  return max(1.0, count);
}

// Token mean of the k3 KL exp(ref - logp) - (ref - logp) - 1 (0 without a reference or with beta = 0).
fn seq_kl(s: u32, len: f32) -> f32 {
  if (p.hasRef == 0u) { return 0.0; }
  var sum = 0.0;
  for (var t = 0u; t < p.T; t++) {
    let i = s * p.T + t;
    if (mask[i] > 0.0) {
      let d = refLogp[i] - logp[i];
      sum += exp(d) - d - 1.0;
    }
  }
  return sum / len;
}

// d(beta * kl_i)/dlogp_t = beta * m_t (1 - exp(ref - logp)) / |y_i|
fn kl_grad(i: u32, len: f32) -> f32 {
  if (p.hasRef == 0u || !(mask[i] > 0.0)) { return 0.0; }
  return p.beta * (1.0 - exp(refLogp[i] - logp[i])) / len;
}

@compute @workgroup_size(WG)
fn clip_loss_gspo(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = flat(gid, nwg);
  if (s >= p.S) { return; }
  let a = seqAdv[s];
  let r = ratio[s];
  lossSeq[s] = surrogate(r, a);
  clipSeq[s] = select(0.0, 1.0, clip_active(r, a));
  klSeq[s] = seq_kl(s, seq_length(s));
}

@compute @workgroup_size(WG)
fn clip_grad_gspo(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.S * p.T) { return; }
  let s = i / p.T;
  let a = seqAdv[s];
  let r = ratio[s];
  let len = seq_length(s);
  var g = 0.0;
  // d(-s_i A_i)/dlogp_t = -A_i s_i m_t / |y_i|  (d log s_i / d logp_t = m_t / |y_i|)
  if (mask[i] > 0.0 && !clip_active(r, a)) { g = -a * r / len; }
  dlogp[i] = (g + kl_grad(i, len)) / f32(p.S);
}

@compute @workgroup_size(WG)
fn clip_loss_grpo(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = flat(gid, nwg);
  if (s >= p.S) { return; }
  let a = seqAdv[s];
  let len = seq_length(s);
  var sum = 0.0;
  var clipped = 0.0;
  for (var t = 0u; t < p.T; t++) {
    let i = s * p.T + t;
    if (!(mask[i] > 0.0)) { continue; }
    let r = tokRatio[i];
    sum += surrogate(r, a);
    if (clip_active(r, a)) { clipped += 1.0; }
  }
  lossSeq[s] = sum / len;
  clipSeq[s] = clipped;
  klSeq[s] = seq_kl(s, len);
}

@compute @workgroup_size(WG)
fn clip_grad_grpo(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.S * p.T) { return; }
  let s = i / p.T;
  let a = seqAdv[s];
  let r = tokRatio[i];
  let len = seq_length(s);
  var g = 0.0;
  // d(-rho_t A)/dlogp_t = -A rho_t
  if (mask[i] > 0.0 && !clip_active(r, a)) { g = -a * r / len; }
  dlogp[i] = (g + kl_grad(i, len)) / f32(p.S);
}

// ---- stats: one workgroup, grid-stride over sequences (GSPO ratios) or tokens (GRPO ratios) ----

fn reduce_stats(lid: u32) {
  for (var stride = RWG / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) {
      redSum[lid] += redSum[lid + stride];
      redKl[lid] += redKl[lid + stride];
      redClip[lid] += redClip[lid + stride];
      redCount[lid] += redCount[lid + stride];
      redRatio[lid] += redRatio[lid + stride];
      redMin[lid] = min(redMin[lid], redMin[lid + stride]);
      redMax[lid] = max(redMax[lid], redMax[lid + stride]);
    }
    workgroupBarrier();
  }
}

fn stats_body(lid: u32, tokenLevel: bool) {
  var loss = 0.0;
  var kl = 0.0;
  var clip = 0.0;
  for (var s = lid; s < p.S; s += RWG) {
    loss += lossSeq[s];
    kl += klSeq[s];
    clip += clipSeq[s];
  }
  var count = 0.0;
  var rsum = 0.0;
  var rmin = 3.4e38;
  var rmax = -3.4e38;
  if (tokenLevel) {
    for (var i = lid; i < p.S * p.T; i += RWG) {
      if (!(mask[i] > 0.0)) { continue; }
      let r = tokRatio[i];
      count += 1.0;
      rsum += r;
      rmin = min(rmin, r);
      rmax = max(rmax, r);
    }
  } else {
    for (var s = lid; s < p.S; s += RWG) {
      let r = ratio[s];
      count += 1.0;
      rsum += r;
      rmin = min(rmin, r);
      rmax = max(rmax, r);
    }
  }
  redSum[lid] = loss;
  redKl[lid] = kl;
  redClip[lid] = clip;
  redCount[lid] = count;
  redRatio[lid] = rsum;
  redMin[lid] = rmin;
  redMax[lid] = rmax;
  workgroupBarrier();
  reduce_stats(lid);
  if (lid == 0u) {
    let nSeq = max(1.0, f32(p.S));
    let policy = redSum[0] / nSeq;
    let klMean = select(0.0, redKl[0] / nSeq, p.beta > 0.0);
    let n = redCount[0];
    stats[0] = policy + p.beta * klMean;
    stats[1] = policy;
    stats[2] = klMean;
    stats[3] = redClip[0];
    stats[4] = n;
    // No ratios at all (no masked token): report the identity ratio.
    stats[5] = select(1.0, redRatio[0] / n, n > 0.0);
    stats[6] = select(1.0, redMin[0], n > 0.0);
    stats[7] = select(1.0, redMax[0], n > 0.0);
  }
}

@compute @workgroup_size(RWG)
fn rl_stats_gspo(@builtin(local_invocation_id) lid: vec3u) {
  stats_body(lid.x, false);
}

@compute @workgroup_size(RWG)
fn rl_stats_grpo(@builtin(local_invocation_id) lid: vec3u) {
  stats_body(lid.x, true);
}
