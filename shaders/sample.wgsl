// Sampling one token per sequence (docs/rl.md section 1), appended on the device so a
// whole turn is generated without a readback. The RNG is counter-based: the
// uniform for (seed, counter, sequence) is the same as src/reference/sample.ts.
//   sample_next: tokens[b,pos] = token; logp[b,pos] = its log-prob; pos += 1; done when EOS or limit  (=)
// The logits hold logitsT rows per sequence: a full forward's [B*T,V], a prefill's [B*Tp,V] or a decode step's [B,V].
// CPU twin: src/reference/sample.ts; test: test/gpu/sample.test.ts.

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
