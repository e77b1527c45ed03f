// Attention's backward (the layouts: shaders/attention.wgsl): dpreatt = att * (datt - sum(att * datt)) * scale, then
// dq, dk, dv added in: attention_backward_bh (a (b, h) pair's whole backward, one dispatch) or attention_backward_dpreatt
// (rows) then attention_backward_dqkv_tiled. Part of the module shaders/attention.wgsl (params, bindings, row_reduce,
// att_row, the tiles), joined after it.
// CPU twin: src/reference/attention.ts; test: test/gpu/nn.test.ts.

// Tiled attention_backward_dqkv: a workgroup per (part, b, h, tile of 16 rows t of that part):
//   dq[t]  += sum_{t2 <= t} dpreatt[t,t2] k[t2]   (P @ X: key tiles up to the diagonal)
//   dk[t]  += sum_{tq >= t} dpreatt[tq,t] q[tq]   (P^T @ X: query tiles from the diagonal on)
//   dv[t]  += sum_{tq >= t} att[tq,t] dout[tq]
@compute @workgroup_size(TILE_WG)
fn attention_backward_dqkv_tiled(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let tl = tile_of(wid, nwg, 3u);
  if (!tl.valid) { return; } // the whole workgroup: uniform
  let hs = head_size();
  let C3 = 3u * p.C;
  let r = lid / DL;
  let lane = lid % DL;
  let t = tl.o0 + r;
  let trans = tl.part != 0u; // dk, dv: sums over the queries tq >= t (a column of P)
  let ibeg = select(0u, tl.o0, trans);
  let iend = select(min(tl.o0 + TQ, p.T), p.T, trans);
  for (var d0 = 0u; d0 < hs; d0 += DCH) {
    let cols = min(DCH, hs - d0);
    var acc = array<f32, DPT>();
    for (var i0 = ibeg; i0 < iend; i0 += TK) {
      for (var e = lid; e < TQ * TK; e += TILE_WG) {
        // P @ X reads P[o0 + e / TK][i0 + e % TK]; P^T @ X reads P[i0 + e / TQ][o0 + e % TQ]
        // (consecutive e, consecutive addresses either way); p_s holds [output row][summed index].
        let ro = select(e / TK, e % TQ, trans);
        let ki = select(e % TK, e / TQ, trans);
        let to = tl.o0 + ro;
        let ti = i0 + ki;
        let tq = select(to, ti, trans); // the query (row of att / dpreatt)
        let tk = select(ti, to, trans); // the key (column)
        var a = 0.0;
        if (tq < p.T && tk <= tq) {
          let ai = (tl.bh * p.T + tq) * p.T + tk;
          if (tl.part == 2u) { a = att[ai]; } else { a = dpreatt[ai]; }
        }
        p_s[ro * TK + ki] = a;
      }
      for (var e = lid; e < TK * DCH; e += TILE_WG) {
        let ti = i0 + e / DCH;
        let d = e % DCH;
        var x = 0.0;
        if (ti < p.T && d < cols) {
          let c = tl.h * hs + d0 + d;
          if (tl.part == 2u) {
            x = dout[(tl.b * p.T + ti) * p.C + c];
          } else {
            // dq takes k (offset C), dk takes q (offset 0)
            x = qkv[(tl.b * p.T + ti) * C3 + select(0u, p.C, tl.part == 0u) + c];
          }
        }
        x_s[e] = x;
      }
      workgroupBarrier();
      tile_accumulate(&acc, r, lane, min(TK, iend - i0), cols);
      workgroupBarrier();
    }
    if (t < p.T) {
      for (var j = 0u; j < DPT; j++) {
        let d = lane + DL * j;
        if (d < cols) {
          let i = (tl.b * p.T + t) * C3 + tl.part * p.C + tl.h * hs + d0 + d;
          dqkv[i] = dqkv[i] + acc[j];
        }
      }
    }
  }
}

// The whole backward of (b, h) pairs in one dispatch: TPR lanes per (b, h), WG / TPR pairs per workgroup
// (GPUs: TPR = WG = 256, one pair per workgroup, for T <= 64; CPU adapters: TPR = 1, no barrier).
//   1. dpreatt rows t = lane, lane + TPR, ...: datt[t, t2] = dout_t . v_t2, then the softmax backward in place
//   2. (a storage barrier later) dq, dk, dv of the pair's elements (t, part, d), lane-strided, as attention_backward_dqkv
@compute @workgroup_size(WG)
fn attention_backward_bh(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u) {
  let pair = (wid.x + wid.y * nwg.x) * (WG / TPR) + lid / TPR;
  let lane = lid % TPR;
  let valid = pair < p.B * p.NH;
  let b = pair / p.NH;
  let h = pair % p.NH;
  let hs = head_size();
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let rows = pair * p.T; // first att row of this (b, h)
  if (valid) {
    for (var t = lane; t < p.T; t += TPR) {
      let o = (b * p.T + t) * p.C + h * hs;
      let arow = (rows + t) * p.T;
      var dot_att_datt = 0.0;
      for (var t2 = 0u; t2 <= t; t2++) {
        let v = (b * p.T + t2) * C3 + 2u * p.C + h * hs;
        var datt = 0.0;
        for (var d = 0u; d < hs; d++) { datt += dout[o + d] * qkv[v + d]; }
        dpreatt[arow + t2] = datt;
        dot_att_datt += att[arow + t2] * datt;
      }
      for (var t2 = 0u; t2 < p.T; t2++) {
        if (t2 <= t) {
          dpreatt[arow + t2] = att[arow + t2] * (dpreatt[arow + t2] - dot_att_datt) * scale;
        } else {
          dpreatt[arow + t2] = 0.0;
        }
      }
    }
  }
  if (TPR > 1u) { storageBarrier(); } // other lanes' dpreatt rows are read below
  if (!valid) { return; }
  for (var e = lane; e < p.T * 3u * hs; e += TPR) {
    let t = e / (3u * hs);
    let part = (e / hs) % 3u;
    let c = h * hs + e % hs;
    var sum = 0.0;
    if (part == 0u) {
      for (var t2 = 0u; t2 <= t; t2++) {
        sum += dpreatt[(rows + t) * p.T + t2] * qkv[(b * p.T + t2) * C3 + p.C + c];
      }
    } else if (part == 1u) {
      for (var tq = t; tq < p.T; tq++) {
        sum += dpreatt[(rows + tq) * p.T + t] * qkv[(b * p.T + tq) * C3 + c];
      }
    } else {
      for (var tq = t; tq < p.T; tq++) {
        sum += att[(rows + tq) * p.T + t] * dout[(b * p.T + tq) * p.C + c];
      }
    }
    let i = (b * p.T + t) * C3 + part * p.C + c;
    dqkv[i] = dqkv[i] + sum;
  }
}

// datt into the scratch row, then the softmax backward in place.
@compute @workgroup_size(WG)
fn attention_backward_dpreatt(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = att_row(wid, nwg, lid);
  let hs = head_size();
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let o = (r.b * p.T + r.t) * p.C + r.h * hs;
  let arow = r.row * p.T;
  let last = select(0u, r.t + 1u, r.valid); // keys t2 < last
  var dot_att_datt = 0.0;
  for (var t2 = r.lane; t2 < last; t2 += TPR) {
    let v = (r.b * p.T + t2) * C3 + 2u * p.C + r.h * hs;
    var datt = 0.0;
    for (var d = 0u; d < hs; d++) { datt += dout[o + d] * qkv[v + d]; }
    dpreatt[arow + t2] = datt;
    dot_att_datt += att[arow + t2] * datt;
  }
  dot_att_datt = row_reduce(RED_A, dot_att_datt, r.seg, r.lane, false);
  if (!r.valid) { return; }
  for (var t2 = r.lane; t2 < p.T; t2 += TPR) {
    if (t2 < last) {
      dpreatt[arow + t2] = att[arow + t2] * (dpreatt[arow + t2] - dot_att_datt) * scale;
    } else {
      dpreatt[arow + t2] = 0.0;
    }
  }
}
