// Attention's forward (the layouts: shaders/attention.wgsl): attention_forward_rows, a row's scores, softmax and
// values (CPU adapters), and attention_forward_tiled, a tile's scores (scores_tile) then values (values_tile) (GPUs).
// Part of the module shaders/attention.wgsl (params, bindings, row_reduce, att_row, the tiles), joined after it.
// CPU twin: src/reference/attention.ts; test: test/gpu/nn.test.ts.

// Scores, softmax and values of (b, h, t) rows in one pass (CPU adapters: TPR = 1, no barrier): the row's lanes
// write its att row, then (after a storage barrier, when the row has several lanes) each lane sums the values of
// the head columns d = lane, lane + TPR, ...
@compute @workgroup_size(WG)
fn attention_forward_rows(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = att_row(wid, nwg, lid);
  let hs = head_size();
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let q = (r.b * p.T + r.t) * C3 + r.h * hs;
  let arow = r.row * p.T;
  let last = select(0u, r.t + 1u, r.valid); // keys t2 < last
  var mx = NEG_BIG;
  for (var t2 = r.lane; t2 < last; t2 += TPR) {
    let k = (r.b * p.T + t2) * C3 + p.C + r.h * hs;
    var dot = 0.0;
    for (var d = 0u; d < hs; d++) { dot += qkv[q + d] * qkv[k + d]; }
    dot *= scale;
    att[arow + t2] = dot;
    mx = max(mx, dot);
  }
  mx = row_reduce(RED_A, mx, r.seg, r.lane, true);
  var sum = 0.0;
  for (var t2 = r.lane; t2 < last; t2 += TPR) {
    let e = exp(att[arow + t2] - mx);
    att[arow + t2] = e;
    sum += e;
  }
  let inv = 1.0 / row_reduce(RED_B, sum, r.seg, r.lane, false);
  if (r.valid) {
    for (var t2 = r.lane; t2 < p.T; t2 += TPR) {
      if (t2 < last) { att[arow + t2] = att[arow + t2] * inv; } else { att[arow + t2] = 0.0; }
    }
  }
  if (TPR > 1u) { storageBarrier(); } // the row's other lanes wrote part of it
  if (!r.valid) { return; }
  // out[b, t, h*hs + d] = sum_{t2 <= t} att[t, t2] v[t2, d], in ascending t2 (as the reference)
  let o = (r.b * p.T + r.t) * p.C + r.h * hs;
  for (var d = r.lane; d < hs; d += TPR) {
    var acc = 0.0;
    for (var t2 = 0u; t2 < last; t2++) {
      acc += att[arow + t2] * qkv[(r.b * p.T + t2) * C3 + 2u * p.C + r.h * hs + d];
    }
    out[o + d] = acc;
  }
}

var<workgroup> q_s: array<f32, 1024>; // [TQ][DCH]; then the rows' max and sum

// The scores of a tile (a workgroup per (b, h, 16 query rows)); invocation lid owns the
// scores of rows lid / TK and lid / TK + 8 at keys k0 + lid % TK of every key tile (and only it
// rereads them), dot products summed over hs chunks of q [16 x 64] and k [32 x 64] staged tiles.
// The rows' max and sum: each row's TK partials go through p_s, summed by one lane per row.
fn scores_tile(tl: Tile, lid: u32) {
  let hs = head_size();
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let c = lid % TK;
  let r0 = lid / TK; // rows r0 and r0 + TILE_WG / TK
  let RSTEP = TILE_WG / TK;
  let kend = min(tl.o0 + TQ, p.T);
  var mx = array<f32, 2>(NEG_BIG, NEG_BIG);
  for (var k0 = 0u; k0 < kend; k0 += TK) {
    var dot = array<f32, 2>();
    for (var d0 = 0u; d0 < hs; d0 += DCH) {
      let cols = min(DCH, hs - d0);
      for (var e = lid; e < TQ * DCH; e += TILE_WG) {
        let tq = tl.o0 + e / DCH;
        let d = e % DCH;
        var x = 0.0;
        if (tq < p.T && d < cols) { x = qkv[(tl.b * p.T + tq) * C3 + tl.h * hs + d0 + d]; }
        q_s[e] = x;
      }
      for (var e = lid; e < TK * DCH; e += TILE_WG) {
        let tk = k0 + e / DCH;
        let d = e % DCH;
        var x = 0.0;
        if (tk < p.T && d < cols) { x = qkv[(tl.b * p.T + tk) * C3 + p.C + tl.h * hs + d0 + d]; }
        x_s[(e / DCH) * XS + d] = x;
      }
      workgroupBarrier();
      for (var i = 0u; i < 2u; i++) {
        let qr = (r0 + RSTEP * i) * DCH;
        for (var d = 0u; d < cols; d++) { dot[i] += q_s[qr + d] * x_s[c * XS + d]; }
      }
      workgroupBarrier();
    }
    for (var i = 0u; i < 2u; i++) {
      let t = tl.o0 + r0 + RSTEP * i;
      let t2 = k0 + c;
      if (t < p.T && t2 <= t) {
        let sc = dot[i] * scale;
        att[(tl.bh * p.T + t) * p.T + t2] = sc;
        mx[i] = max(mx[i], sc);
      }
    }
  }
  // the rows' max: partials at p_s[row * TK + c] = p_s[lid + TILE_WG * i]
  p_s[lid] = mx[0];
  p_s[lid + TILE_WG] = mx[1];
  workgroupBarrier();
  if (lid < TQ) {
    var m = NEG_BIG;
    for (var j = 0u; j < TK; j++) { m = max(m, p_s[lid * TK + j]); }
    q_s[lid] = m;
  }
  workgroupBarrier();
  var sum = array<f32, 2>();
  for (var i = 0u; i < 2u; i++) {
    let t = tl.o0 + r0 + RSTEP * i;
    if (t >= p.T) { continue; }
    let m = q_s[r0 + RSTEP * i];
    for (var t2 = c; t2 <= t; t2 += TK) {
      let a = (tl.bh * p.T + t) * p.T + t2;
      let ex = exp(att[a] - m);
      att[a] = ex;
      sum[i] += ex;
    }
  }
  p_s[lid] = sum[0];
  p_s[lid + TILE_WG] = sum[1];
  workgroupBarrier();
  if (lid < TQ) {
    var acc = 0.0;
    for (var j = 0u; j < TK; j++) { acc += p_s[lid * TK + j]; }
    q_s[TQ + lid] = acc;
  }
  workgroupBarrier();
  for (var i = 0u; i < 2u; i++) {
    let t = tl.o0 + r0 + RSTEP * i;
    if (t >= p.T) { continue; }
    let inv = 1.0 / q_s[TQ + r0 + RSTEP * i];
    for (var t2 = c; t2 < p.T; t2 += TK) {
      let a = (tl.bh * p.T + t) * p.T + t2;
      if (t2 <= t) { att[a] = att[a] * inv; } else { att[a] = 0.0; }
    }
  }
}

// The tile's values: out[b, t, h*hs + d] = sum_{t2 <= t} att[t, t2] v[t2, d], from the att rows scores_tile wrote.
fn values_tile(tl: Tile, lid: u32) {
  let hs = head_size();
  let C3 = 3u * p.C;
  let r = lid / DL;
  let lane = lid % DL;
  let t = tl.o0 + r;
  let kend = min(tl.o0 + TQ, p.T); // keys < kend: every tile right of it is above the diagonal
  for (var d0 = 0u; d0 < hs; d0 += DCH) {
    let cols = min(DCH, hs - d0);
    var acc = array<f32, DPT>();
    for (var k0 = 0u; k0 < kend; k0 += TK) {
      for (var e = lid; e < TQ * TK; e += TILE_WG) {
        let tq = tl.o0 + e / TK;
        let tk = k0 + e % TK;
        var a = 0.0;
        if (tq < p.T && tk <= tq) { a = att[(tl.bh * p.T + tq) * p.T + tk]; }
        p_s[e] = a;
      }
      for (var e = lid; e < TK * DCH; e += TILE_WG) {
        let tk = k0 + e / DCH;
        let d = e % DCH;
        var v = 0.0;
        if (tk < p.T && d < cols) { v = qkv[(tl.b * p.T + tk) * C3 + 2u * p.C + tl.h * hs + d0 + d]; }
        x_s[e] = v;
      }
      workgroupBarrier();
      tile_accumulate(&acc, r, lane, min(TK, kend - k0), cols);
      workgroupBarrier();
    }
    if (t < p.T) {
      for (var j = 0u; j < DPT; j++) {
        let d = lane + DL * j;
        if (d < cols) { out[(tl.b * p.T + t) * p.C + tl.h * hs + d0 + d] = acc[j]; }
      }
    }
  }
}

// The forward of a (b, h, 16 query rows) tile in one dispatch: its att rows (scores_tile), then their values
// (values_tile). Only this workgroup writes and reads those rows: a storage barrier orders them.
@compute @workgroup_size(TILE_WG)
fn attention_forward_tiled(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let tl = tile_of(wid, nwg, 1u);
  if (!tl.valid) { return; } // the whole workgroup: uniform
  scores_tile(tl, lid);
  storageBarrier();
  workgroupBarrier(); // p_s, x_s, q_s are reused
  values_tile(tl, lid);
}
