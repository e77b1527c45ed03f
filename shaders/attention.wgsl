// Causal multi-head self-attention. qkv [B,T,3C] holds q, k, v in that order;
// head h uses channels [h*hs, (h+1)*hs) of each, hs = C / NH; scores scaled by 1/sqrt(hs).
//   attention_forward_scores: att[b,h,t,:] = softmax over t2 <= t of q_t . k_t2 * scale,
//                             zeros above the diagonal                          (=)
//   attention_forward_values: out[b,t,h*hs+d] = sum_t2 att[b,h,t,t2] v[b,t2,h*hs+d] (=)
//   attention_backward_dpreatt: dpreatt = att * (datt - sum(att * datt)) * scale,
//                             datt[t,t2] = dout_t . v_t2                        (= scratch)
//   attention_backward_dqkv:  dq, dk, dv as gathers over the causal rows/columns (+=)

struct Params {
  B: u32,
  T: u32,
  C: u32,
  NH: u32,
}

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> att: array<f32>;
@group(0) @binding(3) var<storage, read_write> qkv: array<f32>;
@group(0) @binding(4) var<storage, read_write> dqkv: array<f32>;
@group(0) @binding(5) var<storage, read_write> dpreatt: array<f32>;
@group(0) @binding(6) var<storage, read_write> dout: array<f32>;

fn flat(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

fn head_size() -> u32 {
  return p.C / p.NH;
}

// One invocation per (b, h, t) row; row index = (b*NH + h)*T + t.
@compute @workgroup_size(WG)
fn attention_forward_scores(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let row = flat(gid, nwg);
  if (row >= p.B * p.NH * p.T) { return; }
  let t = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
  let hs = head_size();
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let q = (b * p.T + t) * C3 + h * hs;
  let arow = row * p.T;
  var mx = -3.4e38;
  for (var t2 = 0u; t2 <= t; t2++) {
    let k = (b * p.T + t2) * C3 + p.C + h * hs;
    var dot = 0.0;
    for (var d = 0u; d < hs; d++) { dot += qkv[q + d] * qkv[k + d]; }
    dot *= scale;
    att[arow + t2] = dot;
    mx = max(mx, dot);
  }
  var sum = 0.0;
  for (var t2 = 0u; t2 <= t; t2++) {
    let e = exp(att[arow + t2] - mx);
    att[arow + t2] = e;
    sum += e;
  }
  let inv = 1.0 / sum;
  for (var t2 = 0u; t2 < p.T; t2++) {
    if (t2 <= t) { att[arow + t2] = att[arow + t2] * inv; } else { att[arow + t2] = 0.0; }
  }
}

// One invocation per output element (b, t, c).
@compute @workgroup_size(WG)
fn attention_forward_values(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  if (i >= p.B * p.T * p.C) { return; }
  let c = i % p.C;
  let t = (i / p.C) % p.T;
  let b = i / (p.C * p.T);
  let h = c / head_size();
  let C3 = 3u * p.C;
  let arow = ((b * p.NH + h) * p.T + t) * p.T;
  var sum = 0.0;
  for (var t2 = 0u; t2 <= t; t2++) {
    sum += att[arow + t2] * qkv[(b * p.T + t2) * C3 + 2u * p.C + c];
  }
  out[i] = sum;
}

// One invocation per (b, h, t) row: datt into the scratch row, then the softmax backward in place.
@compute @workgroup_size(WG)
fn attention_backward_dpreatt(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let row = flat(gid, nwg);
  if (row >= p.B * p.NH * p.T) { return; }
  let t = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
  let hs = head_size();
  let scale = 1.0 / sqrt(f32(hs));
  let C3 = 3u * p.C;
  let o = (b * p.T + t) * p.C + h * hs;
  let arow = row * p.T;
  var dot_att_datt = 0.0;
  for (var t2 = 0u; t2 <= t; t2++) {
    let v = (b * p.T + t2) * C3 + 2u * p.C + h * hs;
    var datt = 0.0;
    for (var d = 0u; d < hs; d++) { datt += dout[o + d] * qkv[v + d]; }
    dpreatt[arow + t2] = datt;
    dot_att_datt += att[arow + t2] * datt;
  }
  for (var t2 = 0u; t2 < p.T; t2++) {
    if (t2 <= t) {
      dpreatt[arow + t2] = att[arow + t2] * (dpreatt[arow + t2] - dot_att_datt) * scale;
    } else {
      dpreatt[arow + t2] = 0.0;
    }
  }
}

// One invocation per element of dqkv [B,T,3C]; dpreatt already carries the score scale.
//   dq[t]  += sum_{t2 <= t} dpreatt[t,t2] k[t2]
//   dk[t2] += sum_{t >= t2} dpreatt[t,t2] q[t]
//   dv[t2] += sum_{t >= t2} att[t,t2] dout[t]
@compute @workgroup_size(WG)
fn attention_backward_dqkv(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flat(gid, nwg);
  let C3 = 3u * p.C;
  if (i >= p.B * p.T * C3) { return; }
  let j = i % C3;
  let t = (i / C3) % p.T;
  let b = i / (C3 * p.T);
  let part = j / p.C;
  let c = j % p.C;
  let h = c / head_size();
  let rows = (b * p.NH + h) * p.T; // first row of this (b, h)
  var sum = 0.0;
  if (part == 0u) {
    for (var t2 = 0u; t2 <= t; t2++) {
      sum += dpreatt[(rows + t) * p.T + t2] * qkv[(b * p.T + t2) * C3 + p.C + c];
    }
  } else if (part == 1u) {
    for (var tq = t; tq < p.T; tq++) {
      sum += dpreatt[(rows + tq) * p.T + t] * qkv[(b * p.T + tq) * C3 + c];
    }
  } else {
    for (var tq = t; tq < p.T; tq++) {
      sum += att[(rows + tq) * p.T + t] * dout[(b * p.T + tq) * p.C + c];
    }
  }
  dqkv[i] = dqkv[i] + sum;
}
