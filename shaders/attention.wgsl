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
// Files: this one (the params, bindings, the row reduction and the tiles both halves use), attention.forward.wgsl
// (scores, softmax, values) and attention.backward.wgsl (dpreatt, dq, dk, dv): one module, the parts joined after
// this file (src/gpu/shaderModules.ts).
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
