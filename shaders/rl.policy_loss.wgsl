// The whole loss in one workgroup (policy_loss): a minibatch's gather, ratios, loss terms, gradient and stats in one
// dispatch, its outputs views of one buffer (binding 21 at the o* offsets; shaders/rl.wgsl's header). Part of the
// module shaders/rl.wgsl, joined after it: the helpers of rl.wgsl, rl.loss.wgsl and rl.stats.wgsl.
// CPU twin: src/reference/rl.ts; test: test/gpu/rl.test.ts.

// Sequences s = lid, lid + RWG, ...: each its advantage, ratios, loss terms and gradient, as the other parts' entries compute
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
