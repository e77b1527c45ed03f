// Token + position embedding.
//   embedding_forward:      out[n,c]   = wte[tokens[n],c] + wpe[n % T,c]        (=)
//   embedding_backward (one dispatch for both gradients):
//     dwte[v,c] += sum_{n: tokens[n]=v} dout[n,c]                                  (+=)
//     dwpe[t,c] += sum_{n: n%T=t} dout[n,c]                                        (+=)
// The backward passes are gathers (one invocation per gradient element looping over its rows, for
// dwte after a counting sort of the rows by token), so no atomics are needed and results are deterministic.
// Members (a population's runs stacked; CSR offsets rowStart [members+1] over rows): member m's rows
// read and reduce into its own wte, wpe (wteStride, wpeStride apart), positions count from its first
// row; the forward runs over members x maxRows row slots (idle past a member's rows), the backward
// gathers over members x V x C and members x T x C gradient elements, each looping over its member's
// rows only. One dispatch each, whatever the members.
// CPU twin: src/reference/nn.ts; test: test/gpu/nn.test.ts.

struct Params {
  N: u32,
  T: u32,
  C: u32,
  V: u32,
  members: u32, // 0: no members (one run)
  maxRows: u32, // row slots per member (N without members)
  wteStride: u32,
  wpeStride: u32,
  joint: u32, // embedding_backward: 1 when dwte and dwpe overlap (stacked members' views): both through dwte's binding
  wteAt: u32, // ... at these element offsets in it
  wpeAt: u32,
  sortGroup: u32, // embedding_forward_sort: the flat index of the workgroup that sorts (the forward's come before it)
}

override WG: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> tokens: array<i32>;
// wte and wpe only read: members' stacked copies are overlapping views of one buffer (read-only bindings may overlap)
@group(0) @binding(3) var<storage, read> wte: array<f32>;
@group(0) @binding(4) var<storage, read> wpe: array<f32>;
@group(0) @binding(5) var<storage, read_write> dwte: array<f32>;
@group(0) @binding(6) var<storage, read_write> dwpe: array<f32>;
@group(0) @binding(7) var<storage, read> dout: array<f32>;
@group(0) @binding(8) var<storage, read> rowStart: array<u32>;

// Member m's first row and row count (all N rows when there are no members).
fn member_rows(m: u32) -> vec2u {
  if (p.members == 0u) { return vec2u(0u, p.N); }
  let first = rowStart[m];
  return vec2u(first, rowStart[m + 1u] - first);
}

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

// Row slot i's element of the forward (idle past the slots or a member's rows).
fn forward_at(i: u32) {
  if (i >= max(p.members, 1u) * p.maxRows * p.C) { return; }
  let q = i / p.C; // row slot
  let c = i % p.C;
  let m = q / p.maxRows;
  let span = member_rows(m);
  let slot = q % p.maxRows;
  if (slot >= span.y) { return; }
  let n = span.x + slot;
  let tok = u32(tokens[n]);
  out[n * p.C + c] = wte[m * p.wteStride + tok * p.C + c] + wpe[m * p.wpeStride + (slot % p.T) * p.C + c];
}

@compute @workgroup_size(WG)
fn embedding_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  forward_at(flat(gid, nwg));
}

// dwte, as a counting sort of the rows by token and then a gather: a gather over all
// rows per (v, c) would compare V * C * N tokens; this reads the tokens twice in all and dout once.
// The sort is stable (each token's rows ascending), so each sum runs over its rows in ascending order,
// as the CPU reference adds them; no atomics, deterministic.
//   embedding_sort (one workgroup of WG invocations, one dispatch; or the last workgroup of the training
//     forward's, embedding_forward_sort): invocation k owns chunk k, the rows
//     [k * S, (k + 1) * S) with S = ceil(N / WG); then, a barrier apart:
//     1. chunkSlot[k][v] = rows of chunk k with token v
//     2. per token v: chunkSlot[k][v] = rows with token v in chunks before k; tokenStart[v] = its total
//     3. tokenStart = the exclusive prefix sum of the totals; tokenStart[V] = rows with a valid token
//     4. per chunk, its rows in order: order[tokenStart[v] + chunkSlot[k][v]++] = n
//   embedding_backward:     dwte[m, v, c] += sum of dout[n, c] over order[tokenStart[v] .. tokenStart[v + 1]),
//                           the rows of member m found by binary search (each token's rows ascend)
// Tokens outside [0, V) belong to no row list (as they match no v in the reference).
@group(0) @binding(9) var<storage, read_write> chunkSlot: array<u32>; // [WG][V]
@group(0) @binding(10) var<storage, read_write> tokenStart: array<u32>; // [V + 1]
@group(0) @binding(11) var<storage, read_write> order: array<u32>; // [N]

fn sort_barrier() {
  storageBarrier(); // chunkSlot and tokenStart: written by some invocations, read by others
  workgroupBarrier();
}

// The sort by invocation k of the one workgroup that runs it.
fn sort_rows(k: u32) {
  let S = (p.N + WG - 1u) / WG;
  let lo = min(p.N, k * S);
  let hi = min(p.N, lo + S);
  for (var v = 0u; v < p.V; v++) { chunkSlot[k * p.V + v] = 0u; }
  for (var n = lo; n < hi; n++) {
    let t = tokens[n];
    if (t >= 0 && u32(t) < p.V) { chunkSlot[k * p.V + u32(t)] += 1u; }
  }
  sort_barrier();
  for (var v = k; v < p.V; v += WG) {
    var at = 0u;
    for (var j = 0u; j < WG; j++) {
      let c = chunkSlot[j * p.V + v];
      chunkSlot[j * p.V + v] = at;
      at += c;
    }
    tokenStart[v] = at;
  }
  sort_barrier();
  if (k == 0u) {
    var at = 0u;
    for (var v = 0u; v < p.V; v++) {
      let c = tokenStart[v];
      tokenStart[v] = at;
      at += c;
    }
    tokenStart[p.V] = at;
  }
  sort_barrier();
  for (var n = lo; n < hi; n++) {
    let t = tokens[n];
    if (t < 0 || u32(t) >= p.V) { continue; }
    let s = k * p.V + u32(t);
    order[tokenStart[t] + chunkSlot[s]] = n;
    chunkSlot[s] = chunkSlot[s] + 1u;
  }
}

@compute @workgroup_size(WG)
fn embedding_sort(@builtin(local_invocation_index) k: u32) {
  sort_rows(k);
}

// A training forward and its backward's sort in one dispatch (the sort reads only the tokens the forward binds):
// workgroups before sortGroup run the forward, workgroup sortGroup the sort. The branch is on the workgroup id and
// the uniform, so it is uniform and the sort's barriers may sit in it. 8 storage bindings, WebGPU's default cap.
@compute @workgroup_size(WG)
fn embedding_forward_sort(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) k: u32,
  @builtin(num_workgroups) nwg: vec3u) {
  let g = wid.x + wid.y * nwg.x;
  if (g == p.sortGroup) { sort_rows(k); } else if (g < p.sortGroup) { forward_at(g * WG + k); }
}

// The first index j in [lo, hi) with order[j] >= row (hi when none): order ascends within a token's list.
fn first_at_or_after(lo: u32, hi: u32, row: u32) -> u32 {
  var a = lo;
  var b = hi;
  while (a < b) {
    let mid = (a + b) / 2u;
    if (order[mid] < row) { a = mid + 1u; } else { b = mid; }
  }
  return a;
}

fn backward_wte(i: u32) {
  let vc = p.V * p.C;
  let m = i / vc;
  let e = i % vc;
  let v = e / p.C;
  let c = e % p.C;
  let span = member_rows(m);
  var lo = tokenStart[v];
  var hi = tokenStart[v + 1u];
  if (p.members != 0u) {
    lo = first_at_or_after(lo, hi, span.x);
    hi = first_at_or_after(lo, hi, span.x + span.y);
  }
  var sum = 0.0;
  for (var j = lo; j < hi; j++) {
    sum += dout[order[j] * p.C + c];
  }
  var o = m * p.wteStride + e;
  if (p.joint != 0u) { o += p.wteAt; }
  dwte[o] = dwte[o] + sum;
}

fn backward_wpe(i: u32) {
  let tc = p.T * p.C;
  let m = i / tc;
  let e = i % tc;
  let t = e / p.C;
  let c = e % p.C;
  let span = member_rows(m);
  var sum = 0.0;
  for (var n = span.x + t; n < span.x + span.y; n += p.T) {
    sum += dout[n * p.C + c];
  }
  let o = m * p.wpeStride + e;
  if (p.joint != 0u) { dwte[p.wpeAt + o] = dwte[p.wpeAt + o] + sum; } else { dwpe[o] = dwpe[o] + sum; }
}

// Both gradients in one dispatch: elements [0, members x V x C) of dwte (none without rows: no sort ran),
// then members x T x C of dwpe.
@compute @workgroup_size(WG)
fn embedding_backward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  let nwte = select(0u, max(p.members, 1u) * p.V * p.C, p.N > 0u);
  if (i < nwte) { backward_wte(i); } else if (i < nwte + max(p.members, 1u) * p.T * p.C) { backward_wpe(i - nwte); }
}
