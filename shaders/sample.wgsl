// Sampling one token per sequence (docs/rl.md section 1), appended on the device so a
// whole turn is generated without a readback. The RNG is counter-based: the
// uniform for (seed, counter, sequence) is the same as src/reference/sample.ts.
//   sample_next: tokens[b,pos] = token; logp[b,pos] = its log-prob; pos += 1; done when EOS or limit  (=)
// The logits hold logitsT rows per sequence: a full forward's [B*T,V], a prefill's [B*Tp,V] or a decode step's [B,V].
//   decode_sample: a GPT's whole rollout step on one row (a workgroup per sequence) and then sample_next's draw:
//                  the embedding, every block over the KV cache (its q, k, v appended), ln_f, the tied head's logits
//                  and the token, one dispatch per generated token (the prefill too: positions 0..pos[b]-1 in turn)
// decode_sample's twin is src/reference/decodeSample.ts (the unfused ops composed), tested by test/gpu/decodeFused.test.ts.
// CPU twins: src/reference/sample.ts, src/reference/decodeSample.ts; tests: test/gpu/sample.test.ts, test/gpu/decodeFused.test.ts

struct Params {
  B: u32,
  T: u32,
  V: u32,
  eos: u32,
  seed: u32,
  counter: u32,
  temperature: f32, // 0 = greedy (argmax)
  logitsT: u32, // logits rows per sequence: T (full forward), Tp (prefill) or 1 (decode step)
  perRow: u32, // 1: each sequence's (seed, stream) from rowRng (a population's batch: its member's seed, its index in the member)
  // decode_sample only (sample_next leaves them unset): the model's shape, where its weights sit in `wts`
  // (element offsets; layer l's at + l * layerStride; member k's at + k * paramStride) and the members' rows
  C: u32,
  NH: u32,
  L: u32,
  prefill: u32, // 1: positions 0..pos[b]-1 (the prefill); 0: position pos[b]-1 (a decode step)
  K: u32, // members (1: a lone model)
  paramStride: u32,
  kvStride: u32, // elements between layers of the cache
  wte: u32,
  wpe: u32,
  lnfw: u32,
  lnfb: u32,
  layerStride: u32,
  ln1w: u32,
  ln1b: u32,
  qkvw: u32,
  qkvb: u32,
  attprojw: u32,
  attprojb: u32,
  ln2w: u32,
  ln2b: u32,
  fcw: u32,
  fcb: u32,
  fcprojw: u32,
  fcprojb: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
  rowStart: array<vec4u, 7>, // member k's rows start at rowStart[k] (K + 1 offsets, K <= 27); at byte 144
}

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> tokens: array<i32>;
@group(0) @binding(2) var<storage, read_write> logp: array<f32>;
@group(0) @binding(3) var<storage, read_write> pos: array<i32>;
@group(0) @binding(4) var<storage, read_write> done: array<i32>;
@group(0) @binding(5) var<storage, read> limit: array<i32>;
@group(0) @binding(6) var<storage, read> logits: array<f32>;
@group(0) @binding(7) var<storage, read> rowRng: array<u32>;
// decode_sample: the weights (a GPT's flat vector, members side by side) and the KV cache [L][B,T,3C]
@group(0) @binding(8) var<storage, read> wts: array<f32>;
@group(0) @binding(9) var<storage, read_write> kv: array<f32>;

// lowbias32 (Chris Wellons), as hash32 in src/reference/sample.ts
fn hash32(v: u32) -> u32 {
  var x = v;
  x = x ^ (x >> 16u);
  x = x * 0x7feb352du;
  x = x ^ (x >> 15u);
  x = x * 0x846ca68bu;
  return x ^ (x >> 16u);
}

fn uniform01(seed: u32, counter: u32, stream: u32) -> f32 {
  let h = hash32(seed + hash32(counter + hash32(stream)));
  return f32(h >> 8u) / 16777216.0;
}

@compute @workgroup_size(WG)
fn sample_next(@builtin(global_invocation_id) gid: vec3u) {
  let b = gid.x;
  if (b >= p.B || done[b] != 0) { return; }
  let at = u32(pos[b]);
  let o = (b * p.logitsT + min(at, p.logitsT) - 1u) * p.V;
  let greedy = p.temperature == 0.0;
  let inv = select(1.0 / p.temperature, 1.0, greedy);
  var mx = -3.4e38;
  var arg = 0u;
  for (var v = 0u; v < p.V; v++) {
    let x = logits[o + v] * inv;
    if (x > mx) { mx = x; arg = v; }
  }
  var sum = 0.0;
  for (var v = 0u; v < p.V; v++) { sum += exp(logits[o + v] * inv - mx); }
  var tok = arg;
  if (!greedy) {
    var u = uniform01(p.seed, p.counter, b);
    if (p.perRow != 0u) { u = uniform01(rowRng[2u * b], p.counter, rowRng[2u * b + 1u]); }
    let goal = u * sum;
    var acc = 0.0;
    tok = p.V - 1u;
    for (var v = 0u; v < p.V; v++) {
      acc += exp(logits[o + v] * inv - mx);
      if (acc > goal) { tok = v; break; }
    }
  }
  tokens[b * p.T + at] = i32(tok);
  logp[b * p.T + at] = logits[o + tok] * inv - mx - log(sum);
  pos[b] = i32(at + 1u);
  if (tok == p.eos || i32(at + 1u) >= limit[b]) { done[b] = 1; }
}

// ---- decode_sample: one workgroup (DWG invocations) per sequence; rows are independent, so only workgroup barriers.
// Each phase spreads its outputs over the invocations; the short reductions (a layer norm's C values, a head's
// scores, the draw over V) run on one invocation, in sample_next's order for the draw. Sized for small models
// (decodeSampleFused: C <= 128, NH * T <= 2048, V <= 2048): about 10 KB of workgroup memory.
const DWG: u32 = 64u;
var<workgroup> xs: array<f32, 128>; // the residual stream of the position
var<workgroup> xn: array<f32, 128>; // a layer norm's output, then the attention's
var<workgroup> qv: array<f32, 128>; // the position's q
var<workgroup> wide: array<f32, 2048>; // scores [NH][t+1], the MLP's hidden 4C, or the logits V
var<workgroup> stat: array<f32, 32>; // a layer norm's mean and rstd; each head's 1 / sum
var<workgroup> pos_u: i32; // pos[b] and done[b], read by invocation 0, shared by workgroupUniformLoad
var<workgroup> done_u: i32;

// xn = layernorm(xs) with weight and bias at w, bw (eps 1e-5, biased variance, as layernorm.wgsl)
fn d_layernorm(lid: u32, w: u32, bw: u32) {
  if (lid == 0u) {
    var sum = 0.0;
    for (var c = 0u; c < p.C; c++) { sum += xs[c]; }
    let mean = sum / f32(p.C);
    var v = 0.0;
    for (var c = 0u; c < p.C; c++) { let d = xs[c] - mean; v += d * d; }
    stat[0] = mean;
    stat[1] = 1.0 / sqrt(v / f32(p.C) + 1e-5);
  }
  workgroupBarrier();
  for (var c = lid; c < p.C; c += DWG) { xn[c] = (xs[c] - stat[0]) * stat[1] * wts[w + c] + wts[bw + c]; }
  workgroupBarrier();
}

// One row of a Linear over xn (IC = C): sum_i xn[i] * W[o, i] + bias[o]
fn d_linear_xn(w: u32, bias: u32, o: u32) -> f32 {
  var acc = 0.0;
  let row = w + o * p.C;
  for (var i = 0u; i < p.C; i++) { acc += xn[i] * wts[row + i]; }
  return acc + wts[bias + o];
}

// The position t of row b through every block (its q, k, v into the cache rows t), the stream left in xs.
fn d_blocks(lid: u32, b: u32, t: u32, mw: u32) {
  let C = p.C;
  let C3 = 3u * C;
  let hs = C / p.NH;
  let scale = 1.0 / sqrt(f32(hs));
  let n = t + 1u; // cache rows attended
  for (var l = 0u; l < p.L; l++) {
    let lw = mw + l * p.layerStride;
    let cache = l * p.kvStride + b * p.T * C3; // row 0 of this sequence in layer l
    d_layernorm(lid, lw + p.ln1w, lw + p.ln1b);
    for (var o = lid; o < C3; o += DWG) {
      let y = d_linear_xn(lw + p.qkvw, lw + p.qkvb, o);
      kv[cache + t * C3 + o] = y;
      if (o < C) { qv[o] = y; }
    }
    storageBarrier(); // the cache row t (k, v) written above is read by every invocation below
    workgroupBarrier();
    for (var j = lid; j < p.NH * n; j += DWG) {
      let h = j / n;
      let t2 = j % n;
      var dot = 0.0;
      let k = cache + t2 * C3 + C + h * hs;
      for (var d = 0u; d < hs; d++) { dot += qv[h * hs + d] * kv[k + d]; }
      wide[j] = dot * scale;
    }
    workgroupBarrier();
    for (var h = lid; h < p.NH; h += DWG) {
      var mx = -3.4e38;
      for (var t2 = 0u; t2 < n; t2++) { mx = max(mx, wide[h * n + t2]); }
      var sum = 0.0;
      for (var t2 = 0u; t2 < n; t2++) { let e = exp(wide[h * n + t2] - mx); wide[h * n + t2] = e; sum += e; }
      stat[2u + h] = 1.0 / sum;
    }
    workgroupBarrier();
    for (var c = lid; c < C; c += DWG) {
      let h = c / hs;
      var acc = 0.0;
      for (var t2 = 0u; t2 < n; t2++) { acc += wide[h * n + t2] * kv[cache + t2 * C3 + 2u * C + c]; }
      xn[c] = acc * stat[2u + h];
    }
    workgroupBarrier();
    for (var o = lid; o < C; o += DWG) { xs[o] += d_linear_xn(lw + p.attprojw, lw + p.attprojb, o); } // x + c_proj(attn)
    workgroupBarrier();
    d_layernorm(lid, lw + p.ln2w, lw + p.ln2b);
    for (var o = lid; o < 4u * C; o += DWG) { wide[o] = d_gelu(d_linear_xn(lw + p.fcw, lw + p.fcb, o)); }
    workgroupBarrier();
    for (var o = lid; o < C; o += DWG) { // x + mlp.c_proj(gelu(c_fc(ln_2(x))))
      var acc = 0.0;
      let row = lw + p.fcprojw + o * 4u * C;
      for (var i = 0u; i < 4u * C; i++) { acc += wide[i] * wts[row + i]; }
      xs[o] += acc + wts[lw + p.fcprojb + o];
    }
    workgroupBarrier();
  }
}

// GELU as shaders/gelu.wgsl's gelu_forward (the same expression, so fused and unfused agree).
fn d_gelu(x: f32) -> f32 {
  return 0.5 * x * (1.0 + tanh(clamp(0.7978845608028654 * (x + 0.044715 * x * x * x), -10.0, 10.0)));
}

@compute @workgroup_size(64)
fn decode_sample(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lidv: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let b = wid.x + wid.y * nwg.x;
  let lid = lidv.x;
  if (lid == 0u && b < p.B) { pos_u = pos[b]; done_u = done[b]; }
  let at = workgroupUniformLoad(&pos_u);
  let dn = workgroupUniformLoad(&done_u);
  if (b >= p.B || dn != 0 || at < 1 || at > i32(p.T)) { return; }
  let last = u32(at) - 1u;
  var m = 0u; // the row's member
  for (var k = 1u; k < p.K; k++) { if (b >= p.rowStart[k / 4u][k % 4u]) { m = k; } }
  let mw = m * p.paramStride;
  let C = p.C;
  var t = select(last, 0u, p.prefill != 0u);
  loop {
    let tok = u32(tokens[b * p.T + t]);
    for (var c = lid; c < C; c += DWG) { xs[c] = wts[mw + p.wte + tok * C + c] + wts[mw + p.wpe + t * C + c]; }
    workgroupBarrier();
    d_blocks(lid, b, t, mw);
    if (t >= last) { break; }
    t++;
  }
  // ln_f and the tied head: logits[v] = ln_f(x) . wte[v]
  d_layernorm(lid, mw + p.lnfw, mw + p.lnfb);
  for (var v = lid; v < p.V; v += DWG) {
    var acc = 0.0;
    let row = mw + p.wte + v * C;
    for (var i = 0u; i < C; i++) { acc += xn[i] * wts[row + i]; }
    wide[v] = acc;
  }
  workgroupBarrier();
  if (lid != 0u) { return; }
  // sample_next's draw over wide[0..V)
  let greedy = p.temperature == 0.0;
  let inv = select(1.0 / p.temperature, 1.0, greedy);
  var mx = -3.4e38;
  var arg = 0u;
  for (var v = 0u; v < p.V; v++) {
    let x = wide[v] * inv;
    if (x > mx) { mx = x; arg = v; }
  }
  var sum = 0.0;
  for (var v = 0u; v < p.V; v++) { sum += exp(wide[v] * inv - mx); }
  var tok = arg;
  if (!greedy) {
    var u = uniform01(p.seed, p.counter, b);
    if (p.perRow != 0u) { u = uniform01(rowRng[2u * b], p.counter, rowRng[2u * b + 1u]); }
    let goal = u * sum;
    var acc = 0.0;
    tok = p.V - 1u;
    for (var v = 0u; v < p.V; v++) {
      acc += exp(wide[v] * inv - mx);
      if (acc > goal) { tok = v; break; }
    }
  }
  let a = u32(at);
  tokens[b * p.T + a] = i32(tok);
  logp[b * p.T + a] = wide[tok] * inv - mx - log(sum);
  pos[b] = at + 1;
  if (tok == p.eos || at + 1 >= limit[b]) { done[b] = 1; }
}
