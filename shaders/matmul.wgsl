// Linear layers as one tiled matmul:  out[M,N] (+)= opA(a)[M,K] @ opB(b)[K,N] (+ bias[N])
// where opA(a)[i,k] = transA ? a[k*M + i] : a[i*K + k] and opB(b)[k,j] = transB ? b[j*K + k] : b[k*N + j].
//   forward  out[N,OC]  = inp[N,IC] @ W[OC,IC]^T + b     transB, overwrite (=)
//   dinp[N,IC]         += dout[N,OC] @ W[OC,IC]         accumulate (+=)
//   dweight[OC,IC]     += dout[N,OC]^T @ inp[N,IC]      transA, accumulate (+=)
//   matmul_bias_backward: dbias[j] += sum_i dout[i,j]   (+=, a column sum)
// Tile: 64x64 outputs per workgroup of 16x16 invocations, 4x4 outputs per
// invocation (strided by 16 so neighbouring invocations touch neighbouring
// addresses), K in steps of 16. Workgroup memory: 2 * 16 * 64 f32 = 8 KiB.
// Loads outside [M,K]x[K,N] read as 0, so any size works.

struct Params {
  M: u32,
  N: u32,
  K: u32,
  transA: u32,
  transB: u32,
  accumulate: u32,
  hasBias: u32,
}

const TILE: u32 = 64u;
const BK: u32 = 16u;
const THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> a: array<f32>;
@group(0) @binding(3) var<storage, read_write> b: array<f32>;
@group(0) @binding(4) var<storage, read_write> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> dbias: array<f32>;
@group(0) @binding(6) var<storage, read_write> dout: array<f32>;

var<workgroup> As: array<f32, 1024>; // [BK][TILE]: As[k * TILE + i]
var<workgroup> Bs: array<f32, 1024>; // [BK][TILE]: Bs[k * TILE + j]

fn load_a(i: u32, k: u32) -> f32 {
  if (i >= p.M || k >= p.K) { return 0.0; }
  if (p.transA != 0u) { return a[k * p.M + i]; }
  return a[i * p.K + k];
}

fn load_b(k: u32, j: u32) -> f32 {
  if (k >= p.K || j >= p.N) { return 0.0; }
  if (p.transB != 0u) { return b[j * p.K + k]; }
  return b[k * p.N + j];
}

@compute @workgroup_size(16, 16)
fn matmul_forward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  let tid = lid.y * 16u + lid.x;
  var acc: array<f32, 16>;
  for (var k0 = 0u; k0 < p.K; k0 += BK) {
    // Each invocation stages 4 elements of each tile; consecutive invocations
    // read consecutive addresses of whichever operand layout is in memory.
    for (var e = 0u; e < 4u; e++) {
      let idx = tid + e * THREADS;
      var i: u32;
      var ka: u32;
      if (p.transA != 0u) { ka = idx / TILE; i = idx % TILE; } else { i = idx / BK; ka = idx % BK; }
      As[ka * TILE + i] = load_a(row0 + i, k0 + ka);
      var j: u32;
      var kb: u32;
      if (p.transB != 0u) { j = idx / BK; kb = idx % BK; } else { kb = idx / TILE; j = idx % TILE; }
      Bs[kb * TILE + j] = load_b(k0 + kb, col0 + j);
    }
    workgroupBarrier();
    for (var k = 0u; k < BK; k++) {
      var av: array<f32, 4>;
      var bv: array<f32, 4>;
      for (var r = 0u; r < 4u; r++) { av[r] = As[k * TILE + lid.y + 16u * r]; }
      for (var c = 0u; c < 4u; c++) { bv[c] = Bs[k * TILE + lid.x + 16u * c]; }
      for (var r = 0u; r < 4u; r++) {
        for (var c = 0u; c < 4u; c++) {
          acc[r * 4u + c] = fma(av[r], bv[c], acc[r * 4u + c]);
        }
      }
    }
    workgroupBarrier();
  }
  for (var r = 0u; r < 4u; r++) {
    let i = row0 + lid.y + 16u * r;
    if (i >= p.M) { continue; }
    for (var c = 0u; c < 4u; c++) {
      let j = col0 + lid.x + 16u * c;
      if (j >= p.N) { continue; }
      var v = acc[r * 4u + c];
      if (p.hasBias != 0u) { v += bias[j]; }
      if (p.accumulate != 0u) { v += out[i * p.N + j]; }
      out[i * p.N + j] = v;
    }
  }
}

// dbias[j] += sum over the M rows of dout[:, j]; one invocation per column.
@compute @workgroup_size(64)
fn matmul_bias_backward(@builtin(global_invocation_id) gid: vec3u) {
  let j = gid.x;
  if (j >= p.N) { return; }
  var sum = 0.0;
  for (var i = 0u; i < p.M; i++) { sum += dout[i * p.N + j]; }
  dbias[j] = dbias[j] + sum;
}
