// Incremental decoding with a KV cache (docs/rl.md section 1): each generated token
// runs the model on one row per sequence and attends over the cached q, k, v of
// the rows before it, instead of re-running the whole prefix.
//   embedding_last:   out[b,c] = wte[tokens[b*T + t],c] + wpe[t,c],  t = pos[b] - 1     (=)
//   copy_rows:        qkvCache[r*dstStride + i] = qkvNew[(r / repeat)*srcStride + i]  (a prefill's rows into the
//                     cache; Params read as rows, width, dstStride, srcStride, repeat)      (=)
//   gather_last:      out[b*width + i] = qkvNew[((b / repeat)*T + pos[b] - 1)*width + i]  (each sequence's last
//                     row of a prefill's; Params read as B, T, width, -, repeat)            (=)
//   attention_decode: qkvCache[b,t,:] = qkvNew[b,:], then
//                     out[b, h*hs + d] = sum_{t2<=t} softmax_t2(q . k_t2 * scale) v_t2[d]
//                     over the cache rows of sequence b; one workgroup per (b, h)       (=)
//                     The append is fused in (one dispatch, not two): (b, h) writes head h's q, k, v
//                     slices of row t, the only ones of that row it reads.
// The cache [B,T,3C] per layer is filled from the qkv of the prefill (a forward over the contexts' rows).
// CPU twin: src/reference/nn.ts, src/reference/attention.ts; test: test/gpu/decode.test.ts.

struct Params {
  B: u32,
  T: u32,
  C: u32,
  NH: u32,
  // embedding_last over stacked members (CSR offsets rowStart [members+1] over sequences): sequence
  // slots members x maxRows, member m's wte, wpe at m * wteStride, m * wpeStride. Other entries ignore these.
  members: u32, // 0: no members
  maxRows: u32, // sequence slots per member (B without members)
  wteStride: u32,
  wpeStride: u32,
}

override WG: u32 = 64u;
const MAX_T: u32 = 256u; // the model's largest block_size (src/model/params.ts)

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> tokens: array<i32>;
@group(0) @binding(3) var<storage, read> pos: array<i32>;
// wte and wpe only read: members' stacked copies are overlapping views of one buffer (read-only bindings may overlap)
@group(0) @binding(4) var<storage, read> wte: array<f32>;
@group(0) @binding(5) var<storage, read> wpe: array<f32>;
@group(0) @binding(6) var<storage, read_write> qkvCache: array<f32>;
@group(0) @binding(7) var<storage, read> qkvNew: array<f32>;
@group(0) @binding(8) var<storage, read> rowStart: array<u32>;

// The position of sequence b's last token, clamped so a bad pos cannot write outside its rows.
fn last_pos(b: u32) -> u32 {
  return u32(clamp(pos[b] - 1, 0, i32(p.T) - 1));
}

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

// One invocation per (b, c).
@compute @workgroup_size(WG)
fn embedding_last(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= max(p.members, 1u) * p.maxRows * p.C) { return; }
  let q = i / p.C; // sequence slot
  let c = i % p.C;
  let m = q / p.maxRows;
  var b = q;
  if (p.members != 0u) {
    let first = rowStart[m];
    let slot = q % p.maxRows;
    if (slot >= rowStart[m + 1u] - first) { return; }
    b = first + slot;
  }
  let t = last_pos(b);
  let tok = u32(tokens[b * p.T + t]);
  out[b * p.C + c] = wte[m * p.wteStride + tok * p.C + c] + wpe[m * p.wpeStride + t * p.C + c];
}

// One invocation per copied element; the first five Params fields are (rows, width, dstStride, srcStride, repeat):
// each source row fills `repeat` rows in turn (a group's one prefill into its G sequences; 0 reads as 1).
@compute @workgroup_size(WG)
fn copy_rows(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  let rows = p.B;
  let width = p.T;
  if (i >= rows * width) { return; }
  let r = i / width;
  let c = i % width;
  qkvCache[r * p.C + c] = qkvNew[(r / max(p.members, 1u)) * p.NH + c];
}

// One invocation per copied element; the Params fields are (B, T, width, -, repeat) (0 reads as 1).
@compute @workgroup_size(WG)
fn gather_last(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  let width = p.C;
  if (i >= p.B * width) { return; }
  let b = i / width;
  out[i] = qkvNew[((b / max(p.members, 1u)) * p.T + last_pos(b)) * width + i % width];
}

// q . k over the head's hs channels, in channel order (as attention.wgsl's rows).
fn qk(q: u32, k: u32, hs: u32) -> f32 {
  var dot = 0.0;
  for (var d = 0u; d < hs; d++) { dot += qkvCache[q + d] * qkvCache[k + d]; }
  return dot;
}

// Sequence b's new row t into the cache, head h's slices only (q, k and v: 3 hs values), j = first, first + stride, ...
fn append_head(b: u32, h: u32, t: u32, hs: u32, first: u32, stride: u32) {
  let C3 = 3u * p.C;
  for (var j = first; j < 3u * hs; j += stride) {
    let o = (j / hs) * p.C + h * hs + j % hs;
    qkvCache[(b * p.T + t) * C3 + o] = qkvNew[b * C3 + o];
  }
}

var<workgroup> scores: array<f32, MAX_T>;
var<workgroup> red: array<f32, 64>;

// One workgroup of WG (64) invocations per (b, h): scores spread over the invocations, a tree
// reduction for the max and the sum, then each invocation sums a channel of v.
@compute @workgroup_size(64)
fn attention_decode(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let row = wid.x + wid.y * nwg.x; // (b, h)
  if (row >= p.B * p.NH) { return; }
  let b = row / p.NH;
  let h = row % p.NH;
  let tid = lid.x;
  let hs = p.C / p.NH;
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let t = last_pos(b);
  let base = b * p.T * C3 + h * hs;
  let q = base + t * C3;
  append_head(b, h, t, hs, tid, 64u);
  storageBarrier(); // the row's values written by the other invocations are read below
  var mx = -3.4e38;
  for (var t2 = tid; t2 <= t; t2 += 64u) {
    let dot = qk(q, base + t2 * C3 + p.C, hs) * scale;
    scores[t2] = dot;
    mx = max(mx, dot);
  }
  red[tid] = mx;
  workgroupBarrier();
  for (var s = 32u; s > 0u; s >>= 1u) {
    if (tid < s) { red[tid] = max(red[tid], red[tid + s]); }
    workgroupBarrier();
  }
  let rowMax = red[0];
  workgroupBarrier();
  var sum = 0.0;
  for (var t2 = tid; t2 <= t; t2 += 64u) {
    let e = exp(scores[t2] - rowMax);
    scores[t2] = e;
    sum += e;
  }
  red[tid] = sum;
  workgroupBarrier();
  for (var s = 32u; s > 0u; s >>= 1u) {
    if (tid < s) { red[tid] = red[tid] + red[tid + s]; }
    workgroupBarrier();
  }
  let inv = 1.0 / red[0];
  for (var d = tid; d < hs; d += 64u) {
    var acc = 0.0;
    for (var t2 = 0u; t2 <= t; t2++) { acc += scores[t2] * qkvCache[base + t2 * C3 + 2u * p.C + d]; }
    out[b * p.C + h * hs + d] = acc * inv;
  }
}

// The same attention with one invocation per (b, h) and no barrier, for CPU adapters (see
// src/gpu/kernels/rows.ts: SwiftShader runs kernels with barriers as costly coroutines).
@compute @workgroup_size(WG)
fn attention_decode_serial(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let row = flat(gid, nwg);
  if (row >= p.B * p.NH) { return; }
  let b = row / p.NH;
  let h = row % p.NH;
  let hs = p.C / p.NH;
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let t = last_pos(b);
  let base = b * p.T * C3 + h * hs;
  let q = base + t * C3;
  append_head(b, h, t, hs, 0u, 1u);
  var s: array<f32, MAX_T>;
  var mx = -3.4e38;
  for (var t2 = 0u; t2 <= t; t2++) {
    s[t2] = qk(q, base + t2 * C3 + p.C, hs) * scale;
    mx = max(mx, s[t2]);
  }
  var sum = 0.0;
  for (var t2 = 0u; t2 <= t; t2++) { s[t2] = exp(s[t2] - mx); sum += s[t2]; }
  let inv = 1.0 / sum;
  for (var d = 0u; d < hs; d++) {
    var acc = 0.0;
    for (var t2 = 0u; t2 <= t; t2++) { acc += s[t2] * qkvCache[base + t2 * C3 + 2u * p.C + d]; }
    out[b * p.C + h * hs + d] = acc * inv;
  }
}
