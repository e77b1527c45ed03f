// The stats of a minibatch's loss (the RL_STATS vector, src/backend.ts): one workgroup, grid-stride over sequences
// (sequence-level ratios, rl_stats_seq) or tokens (token-level ratios, rl_stats_tok). Part of the module
// shaders/rl.wgsl (params, bindings, the workgroup arrays), joined after it; policy_loss reduces its stats here too.
// CPU twin: src/reference/rl.ts; test: test/gpu/rl.test.ts.

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
