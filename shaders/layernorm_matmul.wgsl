// A LayerNorm and the Linear that reads it in one dispatch (the training forward's ln_1 -> c_attn, ln_2 -> c_fc with
// its GELU, ln_f -> the tied head):
//   ln[i,:] = (x[i,:] - mean_i) * rstd_i * lnw + lnb   (mean, rstd and ln written for the backward)
//   out[i,j] = sum_k ln[i,k] W[j,k] + bias[j];  geluOut = gelu(out) when epilogue is 2
// Each workgroup of a (16 RM) x (16 RN) output tile (tiles and loop as matmul.wgsl's matmul_tiled, K = C unsplit)
// first takes its rows' mean and rstd (the mean first, then the squares about it, as layernorm_forward), then
// normalizes the A tile as it stages it; the workgroups of the first column block also write ln, mean and rstd.
// The four parameter tensors are read through one binding spanning them (they lie in the model's flat parameter
// vector), so the kernel binds 8 storage buffers, the default limit. Members (rowStart over the rows): grid z is
// the member; its rows and its parameters (stride apart) are used.
// CPU twin: src/reference/cpuBackend.ts; test: test/gpu/layernormMatmul.test.ts

struct Params {
  N: u32, // rows (with members: each member's at most)
  C: u32,
  OC: u32,
  hasBias: u32,
  epilogue: u32, // 0: none; 2: geluOut = gelu(out)
  members: u32,
  stride: u32, // between members' parameter copies
  wAt: u32, // offsets of W, bias, lnw, lnb in the parameter binding
  bAt: u32,
  lnwAt: u32,
  lnbAt: u32,
}

override RM: u32 = 4u;
override RN: u32 = 4u;
const BK: u32 = 16u;
const THREADS: u32 = 256u;
const PAD: u32 = 2u;
const EPS: f32 = 1e-5;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> geluOut: array<f32>;
@group(0) @binding(3) var<storage, read> inp: array<f32>;
@group(0) @binding(4) var<storage, read> params: array<f32>;
@group(0) @binding(5) var<storage, read_write> ln: array<f32>;
@group(0) @binding(6) var<storage, read_write> mean: array<f32>;
@group(0) @binding(7) var<storage, read_write> rstd: array<f32>;
@group(0) @binding(8) var<storage, read> rowStart: array<u32>;

var<workgroup> As: array<f32, 1056>;
var<workgroup> Bs: array<f32, 1056>;
var<workgroup> lanesSum: array<f32, 256>;
var<workgroup> rowStat: array<vec2f, 64>; // mean, rstd of the tile's rows
var<workgroup> span: vec2u;

// GELU as shaders/gelu.wgsl's gelu_forward (the same expression, so fused and unfused agree).
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const CUBE_COEF: f32 = 0.044715;
fn gelu(x: f32) -> f32 {
  return 0.5 * x * (1.0 + tanh(clamp(SQRT_2_OVER_PI * (x + CUBE_COEF * x * x * x), -10.0, 10.0)));
}

@compute @workgroup_size(16, 16)
fn layernorm_matmul(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let TM = 16u * RM;
  let TN = 16u * RN;
  let SA = TM + PAD;
  let SB = TN + PAD;
  let tid = lid.y * 16u + lid.x;
  let member = wid.z;
  let row0 = wid.y * TM;
  let col0 = wid.x * TN;
  if (tid == 0u) {
    var s = vec2u(0u, p.N);
    if (p.members != 0u) { s = vec2u(rowStart[member], rowStart[member + 1u] - rowStart[member]); }
    span = s;
  }
  let sp = workgroupUniformLoad(&span);
  if (row0 >= sp.y) { return; } // past the member's rows (the grid covers the largest member)
  let off = member * p.stride;
  let firstBlock = col0 == 0u;
  // The rows' statistics: THREADS / TM lanes a row, each striding over it, then the lanes in order.
  let lanes = THREADS / TM;
  let r = tid / lanes;
  let lane = tid % lanes;
  let valid = row0 + r < sp.y;
  let base = (sp.x + row0 + r) * p.C;
  var sum = 0.0;
  if (valid) { for (var c = lane; c < p.C; c += lanes) { sum += inp[base + c]; } }
  lanesSum[tid] = sum;
  workgroupBarrier();
  if (lane == 0u) {
    var t = 0.0;
    for (var l = 0u; l < lanes; l++) { t += lanesSum[tid + l]; }
    rowStat[r] = vec2f(t / f32(p.C), 0.0);
  }
  workgroupBarrier();
  let m = rowStat[r].x;
  var sq = 0.0;
  if (valid) {
    for (var c = lane; c < p.C; c += lanes) {
      let d = inp[base + c] - m;
      sq += d * d;
    }
  }
  workgroupBarrier(); // every lane has read rowStat[r].x
  lanesSum[tid] = sq;
  workgroupBarrier();
  if (lane == 0u) {
    var t = 0.0;
    for (var l = 0u; l < lanes; l++) { t += lanesSum[tid + l]; }
    let s = 1.0 / sqrt(t / f32(p.C) + EPS);
    rowStat[r] = vec2f(m, s);
    if (valid && firstBlock) {
      mean[sp.x + row0 + r] = m;
      rstd[sp.x + row0 + r] = s;
    }
  }
  workgroupBarrier();
  var acc: array<f32, 16>;
  for (var k0 = 0u; k0 < p.C; k0 += BK) {
    for (var e = 0u; e < RM; e++) {
      let idx = tid + e * THREADS;
      let i = idx / BK;
      let ka = idx % BK;
      var v = 0.0;
      if (row0 + i < sp.y && k0 + ka < p.C) {
        let o = (sp.x + row0 + i) * p.C + k0 + ka;
        let st = rowStat[i];
        v = (inp[o] - st.x) * st.y * params[p.lnwAt + off + k0 + ka] + params[p.lnbAt + off + k0 + ka];
        if (firstBlock) { ln[o] = v; }
      }
      As[ka * SA + i] = v;
    }
    for (var e = 0u; e < RN; e++) {
      let idx = tid + e * THREADS;
      let j = idx / BK;
      let kb = idx % BK;
      var v = 0.0;
      if (col0 + j < p.OC && k0 + kb < p.C) { v = params[p.wAt + off + (col0 + j) * p.C + k0 + kb]; }
      Bs[kb * SB + j] = v;
    }
    workgroupBarrier();
    for (var k = 0u; k < BK; k++) {
      var av: array<f32, 4>;
      var bv: array<f32, 4>;
      for (var q = 0u; q < RM; q++) { av[q] = As[k * SA + lid.y + 16u * q]; }
      for (var c = 0u; c < RN; c++) { bv[c] = Bs[k * SB + lid.x + 16u * c]; }
      for (var q = 0u; q < RM; q++) {
        for (var c = 0u; c < RN; c++) {
          acc[q * RN + c] = fma(av[q], bv[c], acc[q * RN + c]);
        }
      }
    }
    workgroupBarrier();
  }
  for (var q = 0u; q < RM; q++) {
    let i = row0 + lid.y + 16u * q;
    if (i >= sp.y) { continue; }
    for (var c = 0u; c < RN; c++) {
      let j = col0 + lid.x + 16u * c;
      if (j >= p.OC) { continue; }
      var v = acc[q * RN + c];
      if (p.hasBias != 0u) { v += params[p.bAt + off + j]; }
      let o = (sp.x + i) * p.OC + j;
      out[o] = v;
      if (p.epilogue == 2u) { geluOut[o] = gelu(v); }
    }
  }
}
