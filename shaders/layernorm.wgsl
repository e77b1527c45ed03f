// LayerNorm over the last dimension C (eps 1e-5, biased variance).
//   layernorm_forward:                out = (x - mean) * rstd * weight + bias; saves mean, rstd [N]   (=)
//   layernorm_backward_dinp:          dinp += (dnorm - mean(dnorm) - norm * mean(dnorm * norm)) * rstd (+=)
//   layernorm_backward_params:        partial[k] = per-chunk column sums of norm * dout and dout      (= scratch)
//   layernorm_backward_params_reduce: dweight[c] += sum_k partial; dbias[c] likewise                  (+=)
//   layernorm_backward_fused:         dinp (+= or =) and, when one chunk covers each member's rows, the column
//                                     sums straight into dweight, dbias (+=; both through dweight's binding):
//                                     the whole backward in one dispatch (workgroups [0, rowGroups) take rows,
//                                     the rest (column block, member) the sums; CX = 64, the columns a workgroup)
// Parallel structure:
// - forward and dinp: TPR invocations per row (WG / TPR rows per workgroup), each
//   lane striding over the row; sums go through a tree reduction (fan-in 16) in
//   workgroup memory. The forward takes the mean first and then sum (x - mean)^2 (two
//   reductions, not E[x^2] - mean^2, which cancels for rows with a large mean).
// - params: a two-stage column sum. Stage one: a workgroup owns CX columns and a
//   chunk of CHUNK rows; its WG / CX row lanes stride down the chunk and are
//   reduced in workgroup memory into partial [chunks, 2, C]. Stage two: one
//   invocation per column adds up the chunks (few: N / CHUNK) into dweight, dbias.
//   With TPR = 1, or CX = WG in params (the layouts for CPU adapters), the kernels
//   hold no barrier: each invocation owns a row, or a column of a chunk.
// Members (a population's runs stacked; CSR offsets rowStart [members+1] over rows): the row kernels
// run over members x maxRows row slots (slot q: member q / maxRows, its row q % maxRows; slots past a
// member's rows are idle), weight and bias at member * stride; the column sums take grid z (stage one)
// and y (stage two) as the member, chunks over its own rows. One dispatch each, whatever the members.
// CPU twin: src/reference/nn.ts; tests: test/gpu/nn.test.ts, test/gpu/layernormFused.test.ts

struct Params {
  N: u32,
  C: u32,
  chunk: u32, // params only: rows per chunk (stage one) / number of chunks (stage two)
  members: u32, // 0: no members (one run)
  maxRows: u32, // members: row slots per member
  stride: u32, // members: elements between members' weight (bias, dweight, dbias) copies
  // params_reduce: dweight and dbias through dweight's binding, at these offsets, when the two are overlapping
  // views of one buffer (stacked members' gradients) and writable bindings may not overlap
  joint: u32,
  wAt: u32,
  bAt: u32,
  dinpAccumulate: u32, // dinp kernels: 1 +=, 0 = (the buffer needs no zeroing first)
  rowGroups: u32, // fused: workgroups taking rows; the rest take the column sums
}

override WG: u32 = 128u;
override TPR: u32 = 32u; // row kernels: invocations per row (a power of two dividing WG)
override CX: u32 = 64u; // params: columns per workgroup (a power of two dividing WG)

const EPS: f32 = 1e-5;
const MAX_WG: u32 = 256u;
const FAN: u32 = 16u; // reduction fan-in per level

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> mean: array<f32>;
@group(0) @binding(3) var<storage, read_write> rstd: array<f32>;
@group(0) @binding(4) var<storage, read> inp: array<f32>;
// weight and bias only read: members' stacked copies are overlapping views of one buffer (read-only bindings may overlap)
@group(0) @binding(5) var<storage, read> weight: array<f32>;
@group(0) @binding(6) var<storage, read> bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(8) var<storage, read_write> dweight: array<f32>;
@group(0) @binding(9) var<storage, read_write> dbias: array<f32>;
@group(0) @binding(10) var<storage, read> dout: array<f32>;
@group(0) @binding(11) var<storage, read_write> partial: array<f32>;
@group(0) @binding(12) var<storage, read> rowStart: array<u32>;

// Member m's first row and row count (all N rows when there are no members).
fn member_rows(m: u32) -> vec2u {
  if (p.members == 0u) { return vec2u(0u, p.N); }
  let first = rowStart[m];
  return vec2u(first, rowStart[m + 1u] - first);
}

// Two halves, one per reduction in a kernel (no barrier between them): RED_A and RED_B. One module-scope
// array indexed by a base, not a pointer parameter: a workgroup pointer as a function parameter needs
// unrestricted_pointer_parameters, which not every browser's compiler has.
var<workgroup> red: array<vec2f, 512>; // 2 * MAX_WG
const RED_A: u32 = 0u;
const RED_B: u32 = MAX_WG;

// Sums x over the TPR lanes of each row's segment [seg, seg + TPR) of red's half at `half`; every lane gets the total.
// Fan-in FAN per level (lane i adds entries i, i + next, ...), so TPR <= FAN takes one level and
// TPR <= FAN^2 two: few barriers, which matters most on CPU adapters (SwiftShader), where each
// barrier switches every group of lanes. Called by every invocation of the workgroup (it holds barriers).
fn row_sum(half: u32, x: vec2f, seg: u32, lane: u32) -> vec2f {
  let base = half + seg;
  if (TPR == 1u) { return x; } // one lane per row: nothing to combine (and no barrier in the shader)
  red[base + lane] = x;
  workgroupBarrier();
  for (var n = TPR; n > 1u; n = max(n / FAN, 1u)) {
    let next = max(n / FAN, 1u);
    if (lane < next) {
      var acc = red[base + lane];
      for (var j = lane + next; j < n; j += next) { acc += red[base + j]; }
      red[base + lane] = acc;
    }
    workgroupBarrier();
  }
  return red[base];
}

struct RowId {
  n: u32, // the row
  lane: u32, // 0..TPR
  seg: u32, // first slot of this row's lanes in the reduction arrays
  valid: bool, // a row (lanes past the last row, or past their member's, still join the barriers)
  w: u32, // offset of the row's member's weight and bias
}

fn row_id(group: u32, lid: u32) -> RowId {
  let q = group * (WG / TPR) + lid / TPR;
  let lane = lid % TPR;
  if (p.members == 0u) { return RowId(q, lane, lid - lane, q < p.N, 0u); }
  let m = min(q / max(p.maxRows, 1u), p.members - 1u);
  let span = member_rows(m);
  let slot = q - m * p.maxRows;
  return RowId(span.x + slot, lane, lid - lane, q < p.members * p.maxRows && slot < span.y, m * p.stride);
}

@compute @workgroup_size(WG)
fn layernorm_forward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let r = row_id(wid.x + wid.y * nwg.x, lid);
  let C = select(0u, p.C, r.valid);
  let base = r.n * p.C;
  var sum = 0.0;
  for (var c = r.lane; c < C; c += TPR) { sum += inp[base + c]; }
  let m = row_sum(RED_A, vec2f(sum, 0.0), r.seg, r.lane).x / f32(p.C);
  var sq = 0.0;
  for (var c = r.lane; c < C; c += TPR) {
    let d = inp[base + c] - m;
    sq += d * d;
  }
  let s = 1.0 / sqrt(row_sum(RED_B, vec2f(sq, 0.0), r.seg, r.lane).x / f32(p.C) + EPS);
  for (var c = r.lane; c < C; c += TPR) {
    out[base + c] = (inp[base + c] - m) * s * weight[r.w + c] + bias[r.w + c];
  }
  if (r.valid && r.lane == 0u) {
    mean[r.n] = m;
    rstd[r.n] = s;
  }
}

// One row's dinp (TPR lanes of workgroup `group`); every invocation calls it (it holds barriers).
fn backward_dinp(group: u32, lid: u32) {
  let r = row_id(group, lid);
  let C = select(0u, p.C, r.valid);
  let base = r.n * p.C;
  var m = 0.0;
  var s = 0.0;
  if (r.valid) {
    m = mean[r.n];
    s = rstd[r.n];
  }
  var acc = vec2f(0.0); // sum dnorm, sum dnorm * norm
  for (var c = r.lane; c < C; c += TPR) {
    let norm = (inp[base + c] - m) * s;
    let dnorm = weight[r.w + c] * dout[base + c];
    acc += vec2f(dnorm, dnorm * norm);
  }
  let means = row_sum(RED_A, acc, r.seg, r.lane) / f32(p.C);
  for (var c = r.lane; c < C; c += TPR) {
    let norm = (inp[base + c] - m) * s;
    let dnorm = weight[r.w + c] * dout[base + c];
    let d = (dnorm - means.x - norm * means.y) * s;
    if (p.dinpAccumulate != 0u) { dinp[base + c] = dinp[base + c] + d; } else { dinp[base + c] = d; }
  }
}

@compute @workgroup_size(WG)
fn layernorm_backward_dinp(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  backward_dinp(wid.x + wid.y * nwg.x, lid);
}

// Column c = block * CX + lid % CX of rows [n0, n1): sum norm * dout and sum dout over the WG / CX row lanes, the
// total on the lanes of row stride 0 (ry == 0). Every invocation calls it (it holds barriers unless WG == CX).
fn column_sums(colBlock: u32, n0: u32, n1: u32, lid: u32) -> vec2f {
  let cx = lid % CX;
  let ry = lid / CX;
  let c = colBlock * CX + cx;
  var acc = vec2f(0.0); // sum norm * dout, sum dout
  if (c < p.C) {
    for (var n = n0 + ry; n < n1; n += WG / CX) {
      let d = dout[n * p.C + c];
      acc += vec2f((inp[n * p.C + c] - mean[n]) * rstd[n] * d, d);
    }
  }
  if (WG == CX) { return acc; } // one row lane per column (CPU adapters): nothing to combine, and no barrier
  red[lid] = acc;
  workgroupBarrier();
  // the WG / CX row lanes of each column, fan-in FAN per level as in row_sum
  for (var n = WG / CX; n > 1u; n = max(n / FAN, 1u)) {
    let next = max(n / FAN, 1u);
    if (ry < next) {
      var sum = red[lid];
      for (var j = ry + next; j < n; j += next) { sum += red[j * CX + cx]; }
      red[lid] = sum;
    }
    workgroupBarrier();
  }
  return red[cx];
}

@compute @workgroup_size(WG)
fn layernorm_backward_fused(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + wid.y * nwg.x;
  if (group < p.rowGroups) {
    backward_dinp(group, lid);
    return;
  }
  let blocks = (p.C + CX - 1u) / CX;
  let member = (group - p.rowGroups) / blocks;
  if (member >= max(p.members, 1u)) { return; }
  let colBlock = (group - p.rowGroups) % blocks;
  let span = member_rows(member);
  let sums = column_sums(colBlock, span.x, span.x + span.y, lid);
  let c = colBlock * CX + lid % CX;
  if (lid / CX == 0u && c < p.C) {
    let o = member * p.stride + c;
    dweight[p.wAt + o] = dweight[p.wAt + o] + sums.x;
    dweight[p.bAt + o] = dweight[p.bAt + o] + sums.y;
  }
}

// Stage one. Workgroup (x = column block, y = row chunk of member z); lane cx picks the column, ry the row stride.
// partial [members, chunks, 2, C].
@compute @workgroup_size(WG)
fn layernorm_backward_params(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let span = member_rows(wid.z);
  let n0 = span.x + wid.y * p.chunk;
  let n1 = min(n0 + p.chunk, span.x + span.y);
  let sums = column_sums(wid.x, n0, n1, lid);
  let c = wid.x * CX + lid % CX;
  let k = (wid.z * nwg.y + wid.y) * 2u * p.C;
  if (lid / CX == 0u && c < p.C) {
    partial[k + c] = sums.x;
    partial[k + p.C + c] = sums.y;
  }
}

// Stage two: one invocation per column (gid.y: the member); p.chunk is the number of chunks here.
@compute @workgroup_size(WG)
fn layernorm_backward_params_reduce(@builtin(global_invocation_id) gid: vec3u) {
  let c = gid.x;
  if (c >= p.C) { return; }
  var dw = 0.0;
  var db = 0.0;
  for (var k = 0u; k < p.chunk; k++) {
    let base = (gid.y * p.chunk + k) * 2u * p.C;
    dw += partial[base + c];
    db += partial[base + p.C + c];
  }
  let o = gid.y * p.stride + c;
  if (p.joint != 0u) {
    dweight[p.wAt + o] = dweight[p.wAt + o] + dw;
    dweight[p.bAt + o] = dweight[p.bAt + o] + db;
  } else {
    dweight[o] = dweight[o] + dw;
    dbias[o] = dbias[o] + db;
  }
}
