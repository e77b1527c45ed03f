// The policy loss of each variant (src/contract/losses.ts, docs/losses.md): the mode codes, one term's value and
// gradient (loss_term), the weights c_i, the k3 KL, and the clip_loss_* / clip_grad_* entries. Part of the module
// shaders/rl.wgsl (params, bindings), joined after it; policy_loss (rl.policy_loss.wgsl) uses these helpers too.
// CPU twin: src/reference/rl.ts; test: test/gpu/rl.test.ts.

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
