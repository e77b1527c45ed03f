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
// p.clip and p.agg pick the clip rule and the aggregation of the variant (codes below).
// A token counts when mask > 0. Seq-mean divides by S (every sequence; an all-masked one has length max(1, 0) = 1).
// Loss and gradient are separate entry points so none binds more than 8 storage buffers.
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

// ---- the policy loss of each variant (src/contract/losses.ts, docs/losses.md) ----

// Mode codes: the same numbers as LEVEL_CODE, CLIP_CODE and AGG_CODE in src/contract/losses.ts (test/gpu/rl.test.ts compares).
const LEVEL_TOKEN: u32 = 0u;
const LEVEL_SEQUENCE: u32 = 1u;
const CLIP_PPO: u32 = 0u;
const CLIP_TWO_SIDED: u32 = 1u;
const CLIP_CISPO: u32 = 2u;
const AGG_TOKEN_MEAN: u32 = 0u;
const AGG_SEQ_MEAN_TOKEN_MEAN: u32 = 1u;
const AGG_SEQ_MEAN_TOKEN_SUM_NORM: u32 = 2u;

// One term for ratio r and advantage a: (value, d value / d log pi, clipped 0/1).
// ppo / two-sided: -min(u, c), u = r a (two-sided: min(r, delta) a), c = clip(r, 1 - epsLow, 1 + epsHigh) a;
// the gradient follows the smaller branch (u on a tie). cispo: value -w a, gradient -w a, w = clip(r) held constant.
fn loss_term(r: f32, a: f32) -> vec3f {
  let lo = 1.0 - p.epsLow;
  let hi = 1.0 + p.epsHigh;
  let w = clamp(r, lo, hi);
  if (p.clip == CLIP_CISPO) {
    return vec3f(-w * a, -w * a, select(0.0, 1.0, r < lo || r > hi));
  }
  let capped = p.clip == CLIP_TWO_SIDED && r > p.delta;
  let u = select(r, p.delta, capped) * a;
  let c = w * a;
  var slope = 0.0;
  if (u <= c) {
    slope = select(a, 0.0, capped);
  } else if (r >= lo && r <= hi) {
    slope = a;
  }
  return vec3f(-min(u, c), -slope * r, select(0.0, 1.0, a != 0.0 && slope == 0.0));
}

fn seq_length(s: u32) -> f32 {
  var count = 0.0;
  for (var t = 0u; t < p.T; t++) {
    if (mask[s * p.T + t] > 0.0) { count += 1.0; }
  }
  return max(1.0, count);
}

// c_i, the weight of each token of sequence s in the loss (len = max(1, |y_s|)).
fn seq_weight(s: u32, len: f32) -> f32 {
  var divisor = 0.0;
  if (p.perSeqNorm != 0u) { divisor = seqAdv[p.S + s]; }
  return weight_by(len, divisor);
}

// divisor: the sequence's own (perSeqNorm), else unused
fn weight_by(len: f32, divisor: f32) -> f32 {
  var seqs = f32(p.S);
  var norm = p.norm;
  if (p.perSeqNorm != 0u) { seqs = divisor; norm = divisor; }
  if (p.agg == AGG_SEQ_MEAN_TOKEN_MEAN) { return 1.0 / (max(1.0, seqs) * len); }
  return 1.0 / norm;
}

// Token sum of the k3 KL exp(ref - logp) - (ref - logp) - 1 (0 without a reference or with beta = 0).
fn seq_kl(s: u32) -> f32 {
  if (p.hasRef == 0u) { return 0.0; }
  var sum = 0.0;
  for (var t = 0u; t < p.T; t++) {
    let i = s * p.T + t;
    if (mask[i] > 0.0) {
      let d = refLogp[i] - logp[i];
      sum += exp(d) - d - 1.0;
    }
  }
  return sum;
}

// d(beta * k3_t)/dlogp_t = beta * m_t (1 - exp(ref - logp))
fn kl_grad(i: u32) -> f32 {
  if (p.hasRef == 0u || !(mask[i] > 0.0)) { return 0.0; }
  return p.beta * (1.0 - exp(refLogp[i] - logp[i]));
}

// Sequence-level rows: one term per sequence from s_i, counted max(1, |y_i|) times.
@compute @workgroup_size(WG)
fn clip_loss_seq(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = flat(gid, nwg);
  if (s >= p.S) { return; }
  let len = seq_length(s);
  let c = seq_weight(s, len);
  let term = loss_term(ratio[s], seqAdv[s]);
  lossSeq[s] = c * len * term.x;
  clipSeq[s] = term.z;
  klSeq[s] = c * seq_kl(s);
}

@compute @workgroup_size(WG)
fn clip_grad_seq(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.S * p.T) { return; }
  let s = i / p.T;
  let c = seq_weight(s, seq_length(s));
  var g = 0.0;
  // d(c |y_i| L(s_i))/dlogp_t = c L'(s_i) s_i  (d log s_i / d logp_t = m_t / |y_i|)
  if (mask[i] > 0.0) { g = loss_term(ratio[s], seqAdv[s]).y; }
  dlogp[i] = c * (g + kl_grad(i));
}

// Token-level rows: one term per masked token from rho_t.
@compute @workgroup_size(WG)
fn clip_loss_tok(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = flat(gid, nwg);
  if (s >= p.S) { return; }
  let a = seqAdv[s];
  let c = seq_weight(s, seq_length(s));
  var sum = 0.0;
  var clipped = 0.0;
  for (var t = 0u; t < p.T; t++) {
    let i = s * p.T + t;
    if (!(mask[i] > 0.0)) { continue; }
    let term = loss_term(tokRatio[i], a);
    sum += term.x;
    clipped += term.z;
  }
  lossSeq[s] = c * sum;
  clipSeq[s] = clipped;
  klSeq[s] = c * seq_kl(s);
}

@compute @workgroup_size(WG)
fn clip_grad_tok(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.S * p.T) { return; }
  let s = i / p.T;
  let c = seq_weight(s, seq_length(s));
  var g = 0.0;
  if (mask[i] > 0.0) { g = loss_term(tokRatio[i], seqAdv[s]).y; }
  dlogp[i] = c * (g + kl_grad(i));
}

// ---- stats: one workgroup, grid-stride over sequences (sequence-level ratios) or tokens (token-level ratios) ----

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

// One invocation's partial sums of the stats (the ratios': count, sum, min, max).
struct Partial {
  loss: f32,
  kl: f32,
  clip: f32,
  count: f32,
  rsum: f32,
  rmin: f32,
  rmax: f32,
}

fn no_partial() -> Partial {
  return Partial(0.0, 0.0, 0.0, 0.0, 0.0, 3.4e38, -3.4e38);
}

fn add_ratio(q: ptr<function, Partial>, r: f32) {
  (*q).count += 1.0;
  (*q).rsum += r;
  (*q).rmin = min((*q).rmin, r);
  (*q).rmax = max((*q).rmax, r);
}

fn stats_body(lid: u32, tokenLevel: bool) {
  var q = no_partial();
  for (var s = lid; s < p.S; s += RWG) {
    q.loss += lossSeq[s];
    q.kl += klSeq[s];
    q.clip += clipSeq[s];
  }
  if (tokenLevel) {
    for (var i = lid; i < p.S * p.T; i += RWG) {
      if (mask[i] > 0.0) { add_ratio(&q, tokRatio[i]); }
    }
  } else {
    for (var s = lid; s < p.S; s += RWG) { add_ratio(&q, ratio[s]); }
  }
  finish_stats(lid, q);
}

// The workgroup's sum of every invocation's partial, written to stats by invocation 0.
fn finish_stats(lid: u32, q: Partial) {
  redSum[lid] = q.loss;
  redKl[lid] = q.kl;
  redClip[lid] = q.clip;
  redCount[lid] = q.count;
  redRatio[lid] = q.rsum;
  redMin[lid] = q.rmin;
  redMax[lid] = q.rmax;
  workgroupBarrier();
  reduce_stats(lid);
  if (lid == 0u) {
    let policy = redSum[0];
    let klMean = select(0.0, redKl[0], p.beta > 0.0);
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
fn rl_stats_seq(@builtin(local_invocation_id) lid: vec3u) {
  stats_body(lid.x, false);
}

@compute @workgroup_size(RWG)
fn rl_stats_tok(@builtin(local_invocation_id) lid: vec3u) {
  stats_body(lid.x, true);
}

// ---- the whole loss in one workgroup (policy_loss) ----

// Sequences s = lid, lid + RWG, ...: each its advantage, ratios, loss terms and gradient, as the entries above compute
// them (the same expressions in the same order); then the stats, reduced as rl_stats does.
@compute @workgroup_size(RWG)
fn policy_loss(@builtin(local_invocation_id) lid3: vec3u) {
  let lid = lid3.x;
  let tokenLevel = p.level == LEVEL_TOKEN;
  var q = no_partial();
  for (var s = lid; s < p.S; s += RWG) {
    let a = adv[index[s]];
    outs[p.oAdv + s] = a;
    var sum = 0.0;
    var count = 0.0;
    for (var t = 0u; t < p.T; t++) {
      let r = token_ratio(s * p.T + t);
      sum += r.x;
      count += r.y;
      outs[p.oTok + s * p.T + t] = r.z;
    }
    let ls = clamp(sum / max(1.0, count), -20.0, 20.0);
    let r = exp(ls);
    outs[p.oLogS + s] = ls;
    outs[p.oRatio + s] = r;
    let len = max(1.0, count);
    var divisor = 0.0;
    if (p.perSeqNorm != 0u) { divisor = outs[p.oAdv + p.S + s]; }
    let c = weight_by(len, divisor);
    var lossS = 0.0;
    var clipS = 0.0;
    if (tokenLevel) {
      for (var t = 0u; t < p.T; t++) {
        let i = s * p.T + t;
        var g = 0.0;
        if (mask[i] > 0.0) {
          let term = loss_term(outs[p.oTok + i], a);
          lossS += term.x;
          clipS += term.z;
          g = term.y;
        }
        outs[p.oDlogp + i] = c * (g + kl_grad(i));
      }
      lossS = c * lossS;
    } else {
      let term = loss_term(r, a);
      lossS = c * len * term.x;
      clipS = term.z;
      for (var t = 0u; t < p.T; t++) {
        let i = s * p.T + t;
        outs[p.oDlogp + i] = c * (select(0.0, term.y, mask[i] > 0.0) + kl_grad(i));
      }
      add_ratio(&q, r);
    }
    let klS = c * seq_kl(s);
    outs[p.oLoss + s] = lossS;
    outs[p.oKl + s] = klS;
    outs[p.oClip + s] = clipS;
    q.loss += lossS;
    q.kl += klS;
    q.clip += clipS;
  }
  // token-level rows reduce their ratios by tokens, across sequences, as rl_stats_tok: the other invocations' writes
  storageBarrier();
  if (tokenLevel) {
    for (var i = lid; i < p.S * p.T; i += RWG) {
      if (mask[i] > 0.0) { add_ratio(&q, outs[p.oTok + i]); }
    }
  }
  if (p.withStats != 0u) { finish_stats(lid, q); }
}
