// The RL objective (docs/losses.md); CPU twin: src/reference/rl.ts.
//   gather_forward:        out[i] = src[index[i]]                                      (=)
//   group_normalize:       adv per episode from rewards, groups as CSR groupStart[P+1] (=);
//                          invocation 0 also writes advStats = [groups with all-equal rewards or size 1, P] (=)
//   seq_ratio:             logS, ratio per sequence; tokRatio per token (1 where masked out) (=)
//   clip_loss_seq / clip_loss_tok: lossSeq, klSeq, clipSeq per sequence (each its share of L) (=)
//   clip_grad_seq / clip_grad_tok: dlogp per token = dL/dlogp, L = sum_i (lossSeq_i + beta klSeq_i) (=)
//   rl_stats:              the RL_STATS vector (src/backend.ts)                         (=)
//   policy_loss:           gather, seq_ratio, clip_loss + clip_grad and rl_stats in one workgroup: a minibatch's whole
//                          loss in one dispatch (src/backend.ts, policyLoss). Its outputs are views of one buffer
//                          (binding 21 at the o* offsets): apart, it would bind 13 storage buffers. Each output is
//                          computed as by the entries above, in the same order (twin: src/contract/policyLoss.ts)
// _seq entries read the sequence ratio s_i (binding 9), _tok ones the token ratios rho_t (binding 10);
// p.clip and p.agg pick the clip rule and the aggregation of the variant (codes in rl.loss.wgsl).
// A token counts when mask > 0. Seq-mean divides by S (every sequence; an all-masked one has length max(1, 0) = 1).
// Loss and gradient are separate entry points so none binds more than 8 storage buffers.
// Files: this one (the params, bindings and workgroup arrays every part uses; gather_forward, the advantages, the
// ratios), rl.loss.wgsl (each variant's loss and gradient), rl.stats.wgsl (rl_stats), rl.policy_loss.wgsl (the whole
// loss in one workgroup): one module, the parts joined after this file (src/gpu/shaderModules.ts).
// CPU twin: src/reference/rl.ts; test: test/gpu/rl.test.ts.

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
  level: u32,  // LEVEL_* (the wrapper picks the _seq or _tok entry by it)
  clip: u32,   // CLIP_*
  agg: u32,    // AGG_*
  delta: f32,  // the two-sided clip's cap
  norm: f32,   // token-mean: masked tokens; seq-mean-token-sum-norm: S * L_max
  perSeqNorm: u32, // 1: seqAdv[S + s] is sequence s's divisor (its member's S or norm: a population's minibatch)
  // policy_loss: whether it reduces the stats, and where each output lies in outs (elements)
  withStats: u32,
  oAdv: u32,
  oLogS: u32,
  oRatio: u32,
  oLoss: u32,
  oKl: u32,
  oClip: u32,
  oTok: u32,
  oDlogp: u32,
}

override WG: u32 = 64u;
const RWG: u32 = 256u; // rl_stats workgroup size (sizes the workgroup arrays)

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;
@group(0) @binding(3) var<storage, read> index: array<i32>;
@group(0) @binding(4) var<storage, read_write> adv: array<f32>;
@group(0) @binding(5) var<storage, read_write> advStats: array<f32>;
@group(0) @binding(6) var<storage, read> rewards: array<f32>;
@group(0) @binding(7) var<storage, read> groupStart: array<i32>;
@group(0) @binding(8) var<storage, read_write> logS: array<f32>;
@group(0) @binding(9) var<storage, read_write> ratio: array<f32>;
@group(0) @binding(10) var<storage, read_write> tokRatio: array<f32>;
@group(0) @binding(11) var<storage, read> logp: array<f32>;
@group(0) @binding(12) var<storage, read> oldLogp: array<f32>;
@group(0) @binding(13) var<storage, read> mask: array<f32>;
@group(0) @binding(14) var<storage, read_write> lossSeq: array<f32>;
@group(0) @binding(15) var<storage, read_write> klSeq: array<f32>;
@group(0) @binding(16) var<storage, read_write> clipSeq: array<f32>;
@group(0) @binding(17) var<storage, read_write> dlogp: array<f32>;
@group(0) @binding(18) var<storage, read> seqAdv: array<f32>;
@group(0) @binding(19) var<storage, read> refLogp: array<f32>;
@group(0) @binding(20) var<storage, read_write> stats: array<f32>;
@group(0) @binding(21) var<storage, read_write> outs: array<f32>;

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
  if (g == 0u) { write_adv_stats(); }
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

// One invocation's loop over the groups: P is a batch's prompts, so a dispatch of its own cost more than this.
fn write_adv_stats() {
  var flatGroups = 0u;
  for (var g = 0u; g < p.P; g++) {
    if (group_is_flat(group_range(g))) { flatGroups++; }
  }
  advStats[0] = f32(flatGroups);
  advStats[1] = f32(p.P);
}

// ---- ratios ----

// Token i where it counts (mask > 0): (its log-ratio, 1, rho_t); else (0, 0, 1). Adding the 0 changes no sum.
fn token_ratio(i: u32) -> vec3f {
  let d = logp[i] - oldLogp[i];
  if (mask[i] > 0.0) { return vec3f(d, 1.0, exp(d)); }
  return vec3f(0.0, 0.0, 1.0);
}

// One invocation per sequence.
@compute @workgroup_size(WG)
fn seq_ratio(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = flat(gid, nwg);
  if (s >= p.S) { return; }
  var sum = 0.0;
  var count = 0.0;
  for (var t = 0u; t < p.T; t++) {
    let r = token_ratio(s * p.T + t);
    sum += r.x;
    count += r.y;
    tokRatio[s * p.T + t] = r.z;
  }
  let ls = clamp(sum / max(1.0, count), -20.0, 20.0);
  logS[s] = ls;
  ratio[s] = exp(ls);
}
