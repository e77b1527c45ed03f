// A Linear's whole backward in one dispatch (two when a product splits K):
//   product 0: dinp[N,IC]     (+)= dout[N,OC] @ W[OC,IC]        (= when dinpAccumulate is 0: the buffer needs no zeroing)
//   product 1: dweight[OC,IC] +=  dout[N,OC]^T @ inp[N,IC]
//   dbias[OC] += colsum(dout): the product-1 tiles of the first column block also sum the dout^T tile they
//   stage (a column of ones appended to inp, in effect), so the bias gradient costs no dispatch of its own.
// The grid is flat: per member, workgroups [0, g0) are product 0's tiles (x tile, y tile, K slice) and
// [g0, g0 + g1) product 1's; one tile shape (override RM, RN as in matmul.wgsl) serves both (both have IC columns).
// Split-K: a product with splits > 1 writes partial tiles ([member, slice, rows, IC], then [member, slice, OC, IC],
// then the bias [member, slice, OC]) and linear_backward_sum adds the slices in order (deterministic) and finishes.
// Members (rowStart over the N rows): product 0 runs over each member's rows with its weight copy (wStride apart),
// product 1 reduces over its rows into its dweight (wStride) and dbias (bStride) copies. When the members' dweight
// and dbias views overlap in one buffer (writable bindings may not), both go through dweight's binding (joint).
// GELU mode (dinpGelu, the MLP's c_proj): product 0 writes dpre = gelu'(pre) * (dout @ W) instead of dinp, the
// GELU's backward in the epilogue; pre comes through binding 3, and dbias then through dweight's binding (joint).
// Kept apart from matmul.wgsl: together with its forward's bias, residual and GELU bindings an entry point would
// bind more than the 8 storage buffers a stage that WebGPU's default limits allow; this one binds exactly 8.
// Its twins: the reference's matmulBackward (the three products apart) and matmulGeluBackward (that, then geluBackward).
// CPU twins: src/reference/nn.ts, src/reference/cpuBackend.ts; test: test/gpu/linearBackward.test.ts

struct Params {
  N: u32, // rows (with members: each member's at most, maxRows)
  IC: u32,
  OC: u32,
  dinpAccumulate: u32,
  hasBias: u32,
  tx: u32, // column tiles (IC / TN), both products
  ty0: u32, // product 0: row tiles over N (0: product 0 not in this dispatch)
  splits0: u32,
  kSlice0: u32,
  ty1: u32, // product 1: row tiles over OC
  splits1: u32,
  kSlice1: u32,
  members: u32, // 0: none
  wStride: u32,
  bStride: u32,
  joint: u32, // dbias through dweight's binding, at bAt (dweight at wAt)
  wAt: u32,
  bAt: u32,
  dinpGelu: u32, // 1: GELU mode (binding 3 is pre)
}

override RM: u32 = 4u;
override RN: u32 = 4u;
const BK: u32 = 16u;
const THREADS: u32 = 256u;
const PAD: u32 = 2u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(2) var<storage, read_write> dweight: array<f32>;
// dbias (+=); in GELU mode the pre-activation pre [N, IC] (only read; dbias goes through dweight's binding)
@group(0) @binding(3) var<storage, read_write> dbias: array<f32>;
@group(0) @binding(4) var<storage, read> dout: array<f32>;
// weight only read: members' stacked copies are overlapping views of one buffer (read-only bindings may overlap)
@group(0) @binding(5) var<storage, read> weight: array<f32>;
@group(0) @binding(6) var<storage, read> inp: array<f32>;
@group(0) @binding(7) var<storage, read_write> partial: array<f32>;
@group(0) @binding(8) var<storage, read> rowStart: array<u32>;

var<workgroup> As: array<f32, 1056>; // [BK][TM + PAD], as matmul.wgsl
var<workgroup> Bs: array<f32, 1056>; // [BK][TN + PAD]
var<workgroup> span: vec2u; // the member's first row and row count, read uniformly

// The current tile's operands (set per workgroup): product, member rows, K range, copies' offsets.
var<private> prod: u32;
var<private> rowOff: u32;
var<private> rows: u32;
var<private> wOff: u32;

fn count() -> u32 { return max(p.members, 1u); }

// opA: product 0 reads dout's rows (i: row, k: output column); product 1 dout^T (i: output column, k: row).
fn load_a(i: u32, k: u32, kEnd: u32) -> f32 {
  if (k >= kEnd) { return 0.0; }
  if (prod == 0u) {
    if (i >= rows) { return 0.0; }
    return dout[(rowOff + i) * p.OC + k];
  }
  if (i >= p.OC) { return 0.0; }
  return dout[k * p.OC + i];
}

// opB: product 0 the member's W [OC,IC], product 1 inp [N,IC]; both untransposed.
fn load_b(k: u32, j: u32, kEnd: u32) -> f32 {
  if (k >= kEnd || j >= p.IC) { return 0.0; }
  if (prod == 0u) { return weight[wOff + k * p.IC + j]; }
  return inp[k * p.IC + j];
}

// Partial regions: product 0's (when it splits), product 1's (when it splits), then the bias's (with product 1's).
fn base1() -> u32 { return select(0u, count() * p.splits0 * p.N * p.IC, p.splits0 > 1u && p.ty0 > 0u); }
fn base2() -> u32 { return base1() + count() * p.splits1 * p.OC * p.IC; }

// gelu'(x) as shaders/gelu.wgsl's gelu_backward (the same expression, so fused and unfused agree)
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const CUBE_COEF: f32 = 0.044715;
fn gelu_grad(x: f32) -> f32 {
  let th = tanh(clamp(SQRT_2_OVER_PI * (x + CUBE_COEF * x * x * x), -10.0, 10.0));
  let sech2 = 1.0 - th * th;
  return 0.5 * (1.0 + th) + 0.5 * x * sech2 * SQRT_2_OVER_PI * (1.0 + 3.0 * CUBE_COEF * x * x);
}

fn finish_dinp(i: u32, j: u32, v: f32) {
  let o = (rowOff + i) * p.IC + j;
  var d = v;
  if (p.dinpGelu != 0u) { d = gelu_grad(dbias[o]) * v; }
  if (p.dinpAccumulate != 0u) { dinp[o] = dinp[o] + d; } else { dinp[o] = d; }
}

fn finish_dweight(m: u32, i: u32, j: u32, v: f32) {
  let o = p.wAt + m * p.wStride + i * p.IC + j;
  dweight[o] = dweight[o] + v;
}

fn finish_dbias(m: u32, i: u32, v: f32) {
  let o = m * p.bStride + i;
  if (p.joint != 0u) { dweight[p.bAt + o] = dweight[p.bAt + o] + v; } else { dbias[o] = dbias[o] + v; }
}

@compute @workgroup_size(16, 16)
fn linear_backward(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_id) lid: vec3u) {
  let TM = 16u * RM;
  let TN = 16u * RN;
  let SA = TM + PAD;
  let SB = TN + PAD;
  let tid = lid.y * 16u + lid.x;
  let g0 = p.tx * p.ty0 * p.splits0;
  let g1 = p.tx * p.ty1 * p.splits1;
  let flat = wid.x + wid.y * nwg.x; // 2-D only past 65535 workgroups
  if (flat >= count() * (g0 + g1)) { return; }
  let m = flat / (g0 + g1);
  var w = flat % (g0 + g1);
  // pr (a let: uniform) steers the control flow; the private copy only the loads (a private read is never uniform)
  let pr = select(1u, 0u, w < g0);
  prod = pr;
  if (pr == 1u) { w -= g0; }
  let ty = select(p.ty1, p.ty0, pr == 0u);
  let splits = select(p.splits1, p.splits0, pr == 0u);
  let kSlice = select(p.kSlice1, p.kSlice0, pr == 0u);
  let slice = w / (p.tx * ty);
  let row0 = ((w / p.tx) % ty) * TM;
  let col0 = (w % p.tx) * TN;
  // The K loop holds barriers, so its bounds must be uniform: the member's span comes through workgroup memory.
  if (tid == 0u) {
    var s = vec2u(0u, p.N);
    if (p.members != 0u) { s = vec2u(rowStart[m], rowStart[m + 1u] - rowStart[m]); }
    span = s;
  }
  let sp = workgroupUniformLoad(&span);
  rowOff = sp.x;
  rows = sp.y;
  wOff = m * p.wStride;
  var kBegin: u32;
  var kEnd: u32;
  if (pr == 0u) {
    if (row0 >= sp.y) { return; } // past the member's rows (the grid covers the largest member)
    kBegin = slice * kSlice;
    kEnd = min(p.OC, kBegin + kSlice);
  } else {
    kBegin = sp.x + slice * kSlice;
    kEnd = min(sp.x + sp.y, kBegin + kSlice);
  }
  let biasTile = pr == 1u && col0 == 0u && p.hasBias != 0u;
  var acc: array<f32, 16>;
  var biasAcc: array<f32, 4>; // dout's column sums of this tile's RM rows (product 1, first column block)
  for (var k0 = kBegin; k0 < kEnd; k0 += BK) {
    for (var e = 0u; e < RM; e++) {
      let idx = tid + e * THREADS;
      var i: u32;
      var ka: u32;
      // consecutive invocations read consecutive addresses of dout in either layout
      if (pr == 1u) { ka = idx / TM; i = idx % TM; } else { i = idx / BK; ka = idx % BK; }
      As[ka * SA + i] = load_a(row0 + i, k0 + ka, kEnd);
    }
    for (var e = 0u; e < RN; e++) {
      let idx = tid + e * THREADS;
      let kb = idx / TN;
      let j = idx % TN;
      Bs[kb * SB + j] = load_b(k0 + kb, col0 + j, kEnd);
    }
    workgroupBarrier();
    for (var k = 0u; k < BK; k++) {
      var av: array<f32, 4>;
      var bv: array<f32, 4>;
      for (var r = 0u; r < RM; r++) { av[r] = As[k * SA + lid.y + 16u * r]; }
      for (var c = 0u; c < RN; c++) { bv[c] = Bs[k * SB + lid.x + 16u * c]; }
      for (var r = 0u; r < RM; r++) {
        for (var c = 0u; c < RN; c++) {
          acc[r * RN + c] = fma(av[r], bv[c], acc[r * RN + c]);
        }
      }
      if (biasTile && lid.x == 0u) {
        for (var r = 0u; r < RM; r++) { biasAcc[r] += av[r]; }
      }
    }
    workgroupBarrier();
  }
  let mEnd = select(p.OC, sp.y, pr == 0u);
  for (var r = 0u; r < RM; r++) {
    let i = row0 + lid.y + 16u * r;
    if (i >= mEnd) { continue; }
    if (biasTile && lid.x == 0u) {
      if (splits > 1u) { partial[base2() + (m * splits + slice) * p.OC + i] = biasAcc[r]; } else { finish_dbias(m, i, biasAcc[r]); }
    }
    for (var c = 0u; c < RN; c++) {
      let j = col0 + lid.x + 16u * c;
      if (j >= p.IC) { continue; }
      let v = acc[r * RN + c];
      if (pr == 0u) {
        if (splits > 1u) { partial[((m * splits + slice) * p.N + i) * p.IC + j] = v; } else { finish_dinp(i, j, v); }
      } else {
        if (splits > 1u) { partial[base1() + ((m * splits + slice) * p.OC + i) * p.IC + j] = v; } else { finish_dweight(m, i, j, v); }
      }
    }
  }
}

// Split-K's second stage: one invocation per output of each product that split (product 0's [member, N, IC],
// product 1's [member, OC, IC], then the bias [member, OC]), the slices added in order.
@compute @workgroup_size(256)
fn linear_backward_sum(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  var flat = gid.x + gid.y * nwg.x * 256u;
  let n0 = select(0u, count() * p.N * p.IC, p.splits0 > 1u && p.ty0 > 0u);
  let n1 = select(0u, count() * p.OC * p.IC, p.splits1 > 1u);
  let n2 = select(0u, count() * p.OC, p.splits1 > 1u && p.hasBias != 0u);
  if (flat < n0) {
    let m = flat / (p.N * p.IC);
    let idx = flat % (p.N * p.IC);
    var s = vec2u(0u, p.N);
    if (p.members != 0u) { s = vec2u(rowStart[m], rowStart[m + 1u] - rowStart[m]); }
    if (idx / p.IC >= s.y) { return; }
    rowOff = s.x;
    var sum = 0.0;
    for (var z = 0u; z < p.splits0; z++) { sum += partial[(m * p.splits0 + z) * p.N * p.IC + idx]; }
    finish_dinp(idx / p.IC, idx % p.IC, sum);
    return;
  }
  flat -= n0;
  if (flat < n1) {
    let m = flat / (p.OC * p.IC);
    let idx = flat % (p.OC * p.IC);
    var sum = 0.0;
    for (var z = 0u; z < p.splits1; z++) { sum += partial[base1() + (m * p.splits1 + z) * p.OC * p.IC + idx]; }
    finish_dweight(m, idx / p.IC, idx % p.IC, sum);
    return;
  }
  flat -= n1;
  if (flat < n2) {
    let m = flat / p.OC;
    let i = flat % p.OC;
    var sum = 0.0;
    for (var z = 0u; z < p.splits1; z++) { sum += partial[base2() + (m * p.splits1 + z) * p.OC + i]; }
    finish_dbias(m, i, sum);
  }
}
