// Linear layers as one tiled matmul:  out[M,N] (+)= opA(a)[M,K] @ opB(b)[K,N] (+ bias[N])
// where opA(a)[i,k] = transA ? a[k*M + i] : a[i*K + k] and opB(b)[k,j] = transB ? b[j*K + k] : b[k*N + j].
//   forward  out[N,OC]  = inp[N,IC] @ W[OC,IC]^T + b     transB, overwrite (=)
//   dinp[N,IC]         += dout[N,OC] @ W[OC,IC]         accumulate (+=)
//   dweight[OC,IC]     += dout[N,OC]^T @ inp[N,IC]      transA, accumulate (+=)
// (the Linear ops' backward, with dbias, runs as one dispatch of linear_backward.wgsl; these layouts remain for tests and other callers)
// Fused forward epilogues: out = ... + residual (the residual stream's add), or also geluOut = gelu(out).
// The wrapper (src/gpu/kernels/matmul.ts) picks per shape, in matmulPlan.ts:
// - the tile: (16 RM) x (16 RN) outputs per workgroup of 16x16 invocations,
//   RM x RN outputs per invocation (strided by 16 so neighbouring invocations
//   touch neighbouring addresses), RM, RN in {1, 2, 4} as override constants;
//   K in steps of BK = 16; workgroup memory 2 * 16 * 66 f32 = 8.25 KiB (fixed).
// - split-K: grid z = p.splits slices of p.kSlice; with more than one, each
//   workgroup writes its partial tile to partial[z, M, N] and matmul_splitk_sum
//   adds the slices in order z = 0, 1, ... (deterministic; WGSL has no float
//   atomics) and applies bias and accumulate. With one, matmul_tiled does.
// Loads outside [M,K]x[K,N] (or the slice) read as 0, so any size works.
// Members (a population's K runs stacked, CSR offsets rowStart [members+1] over rows): grid z =
// member * splits + slice, so the dispatch count does not grow with the members. memberOp 1 ('rows'):
// M is each member's row count (the grid covers the largest), A's and out's rows are the member's,
// B and bias are the member's copies (bStride, biasStride apart); tiles past a member's rows exit.
// memberOp 2 ('reduce'): K runs over the member's rows (the weight gradient) and out is the member's
// copy (outStride apart). A tile never straddles two members, so each stages one weight.
// CPU twin: src/reference/gemm.ts; test: test/gpu/matmul.test.ts.

struct Params {
  M: u32,
  N: u32,
  K: u32,
  transA: u32,
  transB: u32,
  accumulate: u32,
  hasBias: u32,
  kSlice: u32, // K per slice
  splits: u32, // K slices
  epilogue: u32, // 0: none; 1: + residual[i,j]; 2: also geluOut[i,j] = gelu(out[i,j])
  members: u32, // 0: no members (one run); else their number
  memberOp: u32, // 0: none; 1: rows; 2: reduce (see above)
  bStride: u32,
  biasStride: u32,
  outStride: u32,
}

override RM: u32 = 4u; // output rows per invocation
override RN: u32 = 4u; // output columns per invocation
const BK: u32 = 16u;
const THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
// b and bias only read: members' stacked weights are overlapping views of one buffer (read-only bindings may overlap)
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> partial: array<f32>;
@group(0) @binding(8) var<storage, read> residual: array<f32>;
@group(0) @binding(9) var<storage, read_write> geluOut: array<f32>;
@group(0) @binding(10) var<storage, read> rowStart: array<u32>;

// The current member's offsets (set_member), so loads and finish() index its rows and copies.
var<private> rowOff: u32; // added to the rows of A (untransposed) and out
var<private> mEnd: u32; // rows of A and out: p.M, or the member's row count
var<private> kLo: u32; // K range: [0, p.K), or the member's rows when reducing over them
var<private> kHi: u32;
var<private> bOff: u32;
var<private> biasOff: u32;
var<private> outOff: u32;

fn set_member(m: u32) {
  rowOff = 0u; mEnd = p.M; kLo = 0u; kHi = p.K; bOff = 0u; biasOff = 0u; outOff = 0u;
  if (p.memberOp == 1u) {
    rowOff = rowStart[m];
    mEnd = rowStart[m + 1u] - rowOff;
    bOff = m * p.bStride;
    biasOff = m * p.biasStride;
  } else if (p.memberOp == 2u) {
    kLo = rowStart[m];
    kHi = rowStart[m + 1u];
    outOff = m * p.outStride;
  }
}

// GELU as shaders/gelu.wgsl's gelu_forward (the same expression, so fused and unfused agree).
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const CUBE_COEF: f32 = 0.044715;
fn gelu(x: f32) -> f32 {
  return 0.5 * x * (1.0 + tanh(clamp(SQRT_2_OVER_PI * (x + CUBE_COEF * x * x * x), -10.0, 10.0)));
}

// Fixed sizes (the largest tile, RM = RN = 4), not sized from the override constants: some compilers
// have sized such arrays wrongly. Rows are padded by PAD: the k-major staging stores of untransposed A
// and transposed B (consecutive invocations, consecutive k) then fall in distinct banks, not all in one.
const PAD: u32 = 2u;
var<workgroup> As: array<f32, 1056>; // [BK][TM + PAD]: As[k * (TM + PAD) + i], TM = 16 RM <= 64
var<workgroup> Bs: array<f32, 1056>; // [BK][TN + PAD]: Bs[k * (TN + PAD) + j], TN = 16 RN <= 64

fn load_a(i: u32, k: u32, kEnd: u32) -> f32 {
  if (i >= mEnd || k >= kEnd) { return 0.0; }
  if (p.transA != 0u) { return a[k * p.M + i]; }
  return a[(rowOff + i) * p.K + k];
}

fn load_b(k: u32, j: u32, kEnd: u32) -> f32 {
  if (k >= kEnd || j >= p.N) { return 0.0; }
  if (p.transB != 0u) { return b[bOff + j * p.K + k]; }
  return b[bOff + k * p.N + j];
}

// out[i,j] = (accumulate ? out[i,j] : 0) + sum + bias[j] (+ residual[i,j]), and geluOut[i,j] = gelu of it:
// the one place the op's semantics and its fused epilogues (the residual add, the MLP's GELU) are applied.
fn finish(i: u32, j: u32, sum: f32) {
  let o = outOff + (rowOff + i) * p.N + j;
  var v = sum;
  if (p.hasBias != 0u) { v += bias[biasOff + j]; }
  if (p.accumulate != 0u) { v += out[o]; }
  if (p.epilogue == 1u) { v += residual[o]; }
  out[o] = v;
  if (p.epilogue == 2u) { geluOut[o] = gelu(v); }
}

var<workgroup> memberSpan: vec3u; // rows, kLo, kHi of the workgroup's member, read uniformly

@compute @workgroup_size(16, 16)
fn matmul_tiled(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let TM = 16u * RM;
  let TN = 16u * RN;
  let SA = TM + PAD; // row strides of the staged tiles
  let SB = TN + PAD;
  let row0 = wid.y * TM;
  let col0 = wid.x * TN;
  let tid = lid.y * 16u + lid.x;
  let member = wid.z / p.splits;
  set_member(member);
  // The K loop holds barriers, so its bounds must be uniform: a member's span comes through workgroup memory.
  var kFirst = 0u;
  var kLast = p.K;
  if (p.memberOp != 0u) {
    if (tid == 0u) { memberSpan = vec3u(mEnd, kLo, kHi); }
    let span = workgroupUniformLoad(&memberSpan);
    // a tile past its member's rows has nothing to do (the grid covers the largest member)
    if (p.memberOp == 1u && row0 >= span.x) { return; }
    kFirst = span.y;
    kLast = span.z;
  }
  let kBegin = kFirst + (wid.z % p.splits) * p.kSlice;
  let kEnd = min(kLast, kBegin + p.kSlice);
  var acc: array<f32, 16>; // RM * RN used
  for (var k0 = kBegin; k0 < kEnd; k0 += BK) {
    // Each invocation stages RM elements of A's tile and RN of B's; consecutive
    // invocations read consecutive addresses of whichever layout is in memory.
    for (var e = 0u; e < RM; e++) {
      let idx = tid + e * THREADS;
      var i: u32;
      var ka: u32;
      if (p.transA != 0u) { ka = idx / TM; i = idx % TM; } else { i = idx / BK; ka = idx % BK; }
      As[ka * SA + i] = load_a(row0 + i, k0 + ka, kEnd);
    }
    for (var e = 0u; e < RN; e++) {
      let idx = tid + e * THREADS;
      var j: u32;
      var kb: u32;
      if (p.transB != 0u) { j = idx / BK; kb = idx % BK; } else { kb = idx / TN; j = idx % TN; }
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
    }
    workgroupBarrier();
  }
  for (var r = 0u; r < RM; r++) {
    let i = row0 + lid.y + 16u * r;
    if (i >= mEnd) { continue; }
    for (var c = 0u; c < RN; c++) {
      let j = col0 + lid.x + 16u * c;
      if (j >= p.N) { continue; }
      if (p.splits > 1u) {
        partial[(wid.z * p.M + i) * p.N + j] = acc[r * RN + c]; // [member, slice, M, N]
      } else {
        finish(i, j, acc[r * RN + c]);
      }
    }
  }
}

// Split-K's second stage: one invocation per output, the slices summed in order.
// A 2-D grid of 256-wide workgroups when M * N needs more than 65535 of them.
@compute @workgroup_size(256)
fn matmul_splitk_sum(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let flat = gid.x + gid.y * nwg.x * 256u;
  let mn = p.M * p.N;
  let member = flat / mn;
  if (member >= max(p.members, 1u)) { return; }
  set_member(member);
  let idx = flat % mn;
  if (idx / p.N >= mEnd) { return; }
  var sum = 0.0;
  for (var z = 0u; z < p.splits; z++) { sum += partial[(member * p.splits + z) * mn + idx]; }
  finish(idx / p.N, idx % p.N, sum);
}
