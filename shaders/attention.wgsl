// Causal multi-head self-attention. qkv [B,T,3C] holds q, k, v in that order;
// head h uses channels [h*hs, (h+1)*hs) of each, hs = C / NH; scores scaled by 1/sqrt(hs).
//   forward, one dispatch (attention_forward_tiled on GPUs, attention_forward_rows on CPU adapters):
//     scores: att[b,h,t,:] = softmax over t2 <= t of q_t . k_t2 * scale, zeros above the diagonal (=)
//     values: out[b,t,h*hs+d] = sum_t2 att[b,h,t,t2] v[b,t2,h*hs+d]   (=), from the att rows just written
//   backward: dpreatt = att * (datt - sum(att * datt)) * scale, datt[t,t2] = dout_t . v_t2 (= scratch),
//             then dq, dk, dv as gathers over the causal rows/columns (+=): in one dispatch per (b, h)
//             pairs (attention_backward_bh) on CPU adapters and, for T <= 64, on GPUs; else
//             attention_backward_dpreatt (rows) then attention_backward_dqkv_tiled
// Parallel structure:
// - On GPUs ('lanes' layout), scores, values and dqkv are tiled: one workgroup of TILE_WG = 256
//   per (part, b, h, tile of TQ = 16 output rows), tiles of TK = 32 rows of q / k / v / dout /
//   att / dpreatt staged in workgroup memory (at most 14 KiB) in chunks of DCH = 64 columns of
//   the head (hs up to 256: up to 4 chunks); tiles wholly on the zero side of the diagonal are
//   skipped. Values and dqkv: 16 invocations per output row, each owning 4 columns of a chunk.
//   Scores: each invocation owns 2 rows x 1 key per key tile, the rows' max and sum go through
//   workgroup memory. See "Tiled" below.
//   The forward's tile computes its scores, then (a storage barrier later) the values of the same 16 rows.
// - dpreatt (all adapters) and the forward on CPU adapters: TPR invocations per (b, h, t) row
//   (WG / TPR rows per workgroup); lane j computes the dot products of keys t2 = j, j + TPR, ...
//   <= t, and the row's max and sums go through a tree reduction (fan-in 16) in workgroup memory.
//   The att / dpreatt row itself holds the intermediate scores (each lane rereads only what it
//   wrote). TPR = 1 (the layout on CPU adapters) skips the reductions: no barrier at all.
//   The forward's row then sums its values (lane j: head columns j, j + TPR, ...).
// - the backward of a (b, h) pair (attention_backward_bh): on GPUs a workgroup of 256 lanes per pair
//   (rows of dpreatt, a storage barrier, then dqkv elements, lane-strided); on CPU adapters
//   ('single', e.g. SwiftShader, which pays ~1 ms per workgroup with barriers) one invocation per
//   pair, no barrier.
// CPU twin: src/reference/attention.ts; test: test/gpu/nn.test.ts.

struct Params {
  B: u32,
  T: u32,
  C: u32,
  NH: u32,
}

override WG: u32 = 64u;
override TPR: u32 = 32u; // scores and dpreatt: invocations per row, a power of two dividing WG

const MAX_WG: u32 = 256u;
const FAN: u32 = 16u; // reduction fan-in per level
const NEG_BIG: f32 = -3.4e38; // the max of an empty set (finite: WGSL does not promise infinities)

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> att: array<f32>;
@group(0) @binding(3) var<storage, read> qkv: array<f32>;
@group(0) @binding(4) var<storage, read_write> dqkv: array<f32>;
@group(0) @binding(5) var<storage, read_write> dpreatt: array<f32>;
@group(0) @binding(6) var<storage, read> dout: array<f32>;

// Two halves, one per reduction in a kernel (no barrier between them): RED_A and RED_B. One module-scope
// array indexed by a base, not a pointer parameter: a workgroup pointer as a function parameter needs
// unrestricted_pointer_parameters, which not every browser's compiler has.
var<workgroup> red: array<f32, 512>; // 2 * MAX_WG
const RED_A: u32 = 0u;
const RED_B: u32 = MAX_WG;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

fn head_size() -> u32 {
  return p.C / p.NH;
}

// Reduces x over the TPR lanes of each row's segment [seg, seg + TPR) of red's half at `half` (the sum, or the
// max when take_max); every lane gets the result. Fan-in FAN per level: TPR <= FAN takes one
// level, TPR <= FAN^2 two (few barriers: each one switches every group of lanes on a CPU
// adapter such as SwiftShader). Called by every invocation of the workgroup (it holds barriers).
fn row_reduce(half: u32, x: f32, seg: u32, lane: u32, take_max: bool) -> f32 {
  let base = half + seg;
  if (TPR == 1u) { return x; } // one lane per row: nothing to combine (and no barrier in the shader)
  red[base + lane] = x;
  workgroupBarrier();
  for (var n = TPR; n > 1u; n = max(n / FAN, 1u)) {
    let next = max(n / FAN, 1u);
    if (lane < next) {
      var acc = red[base + lane];
      for (var j = lane + next; j < n; j += next) {
        let y = red[base + j];
        acc = select(acc + y, max(acc, y), take_max);
      }
      red[base + lane] = acc;
    }
    workgroupBarrier();
  }
  return red[base];
}

// A (b, h, t) row of att / dpreatt, index (b*NH + h)*T + t, and this invocation's lane in it.
struct AttRow {
  row: u32,
  b: u32,
  h: u32,
  t: u32,
  lane: u32,
  seg: u32, // first slot of this row's lanes in the reduction arrays
  valid: bool, // row < B*NH*T (lanes past the last row still join the barriers)
}

fn att_row(wid: vec3u, nwg: vec3u, lid: u32) -> AttRow {
  let group = wid.x + wid.y * nwg.x;
  let row = group * (WG / TPR) + lid / TPR;
  let lane = lid % TPR;
  let t = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
  return AttRow(row, b, h, t, lane, lid - lane, row < p.B * p.NH * p.T);
}

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

// ---- Tiled (GPUs, the 'lanes' layout). Products: out rows = P @ X or P^T @ X for one (b, h) ----
// One workgroup of TILE_WG = TQ * DL invocations per (b, h, tile of TQ output rows): invocation
// lid owns output row lid / DL and the columns lane, lane + DL, ... (lane = lid % DL) of a chunk
// of DCH columns of the head. Per chunk, it walks the summed index in tiles of TK: the workgroup
// stages P's [TQ x TK] block (zero above the diagonal and past T) and X's [TK x DCH] block (zero
// past T and past hs) in workgroup memory, then each invocation accumulates TK products per column.
// Causal: only the tiles that touch the triangle are visited (P @ X: keys < the tile's last query
// + 1; P^T @ X: queries >= the tile's first key). The sums run in ascending order of the summed
// index, like the CPU reference (the masked terms add exact zeros).
const TQ: u32 = 16u; // output rows per workgroup
const DL: u32 = 16u; // invocations per output row
const TILE_WG: u32 = 256u; // TQ * DL
const TK: u32 = 32u; // summed rows per staged tile
const DCH: u32 = 64u; // head columns per chunk (hs up to C: chunks keep the tile within 16 KiB)
const DPT: u32 = 4u; // DCH / DL: columns per invocation

var<workgroup> p_s: array<f32, 512>; // [TQ][TK]
var<workgroup> x_s: array<f32, 2080>; // [TK][DCH]; the scores kernel pads its rows to XS
// Row stride of the scores kernel's key tile: its lanes read x_s[c * XS + d] for 32 consecutive c at
// once, which with a stride of DCH = 64 would all hit one memory bank; 65 spreads them over 32.
const XS: u32 = 65u; // DCH + 1

// A workgroup's (b, h, output tile); valid false for the padding groups of a 2-D grid.
struct Tile {
  b: u32,
  h: u32,
  bh: u32,
  o0: u32, // first output row
  part: u32, // attention_backward_dqkv: 0 dq, 1 dk, 2 dv
  valid: bool,
}

fn tile_of(wid: vec3u, nwg: vec3u, parts: u32) -> Tile {
  let group = wid.x + wid.y * nwg.x;
  let tiles = (p.T + TQ - 1u) / TQ;
  let per_part = p.B * p.NH * tiles;
  let part = group / per_part;
  let g = group % per_part;
  let bh = g / tiles;
  return Tile(bh / p.NH, bh % p.NH, bh, (g % tiles) * TQ, part, group < parts * per_part);
}

// acc[j] += sum_{k < nk} p_s[r][k] * x_s[k][lane + DL * j] for the columns lane + DL * j < cols.
fn tile_accumulate(acc: ptr<function, array<f32, DPT>>, r: u32, lane: u32, nk: u32, cols: u32) {
  for (var k = 0u; k < nk; k++) {
    let a = p_s[r * TK + k];
    for (var j = 0u; j < DPT; j++) {
      let d = lane + DL * j;
      if (d < cols) { (*acc)[j] += a * x_s[k * DCH + d]; }
    }
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
