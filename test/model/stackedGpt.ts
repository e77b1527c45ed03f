// A test helper: K members of one GPT shape stacked (their flat parameter vectors side
// by side, paramStride = numParams), run through src/model/gpt.ts's forward and backward
// op for op with the member ops on one batch (member k's sequences after member k-1's).
// The model code itself is untouched; this is what a population's step would record.
import { memberRows, type Backend, type Members, type Tensor } from '../../src/backend';
import { GPT } from '../../src/model/gpt';
import { paramSpecs, type GPTConfig } from '../../src/model/params';

export interface ModelRun {
  logits: Float64Array; // [rows, V], member-major
  grads: Float64Array; // [K, numParams]
}

/**
 * Forward over tokens [sum(B) * T] (member-major), then backward from dlogits [sum(B) * T, V],
 * with member k's weights weights[k] and B[k] sequences.
 */
export async function stackedForwardBackward(b: Backend, config: GPTConfig, weights: Float32Array[], B: number[], T: number,
  tokens: Int32Array, dlogitsHost: Float32Array): Promise<ModelRun> {
  const { specs, total } = paramSpecs(config);
  const K = weights.length, { nLayer: L, nHead: NH, nEmbd: C, vocabSize: V } = config;
  const BT = B.reduce((s, x) => s + x, 0) * T, Bsum = BT / T;
  const params = b.alloc(K * total), grads = b.alloc(K * total);
  weights.forEach((w, k) => b.write(params, w, k * total));
  const m: Members = memberRows(b, B.map((x) => x * T), total);
  // each parameter as a view from member 0's copy that reaches member K-1's
  const at = (flat: Tensor, name: string) => {
    const s = specs.find((x) => x.name === name)!;
    return b.view(flat, s.offset, (K - 1) * total + s.size);
  };
  const P = (name: string) => at(params, name), G = (name: string) => at(grads, name);
  const h = (l: number, name: string) => `transformer.h.${l}.${name}`;
  const alloc = (n: number) => b.alloc(n);

  const tok = b.alloc(BT, 'i32');
  b.write(tok, tokens);
  const encoded = alloc(BT * C);
  b.embeddingForward(encoded, tok, P('transformer.wte.weight'), P('transformer.wpe.weight'), BT, T, C, m);
  const layers = Array.from({ length: L }, () => ({
    ln1: alloc(BT * C), ln1Mean: alloc(BT), ln1Rstd: alloc(BT), qkv: alloc(BT * 3 * C), att: alloc(Bsum * NH * T * T),
    atty: alloc(BT * C), residual2: alloc(BT * C), ln2: alloc(BT * C), ln2Mean: alloc(BT), ln2Rstd: alloc(BT),
    fch: alloc(BT * 4 * C), fchGelu: alloc(BT * 4 * C), residual3: alloc(BT * C),
  }));
  let residual = encoded;
  layers.forEach((la, l) => {
    b.layernormForward(la.ln1, la.ln1Mean, la.ln1Rstd, residual, P(h(l, 'ln_1.weight')), P(h(l, 'ln_1.bias')), BT, C, m);
    b.matmulForward(la.qkv, la.ln1, P(h(l, 'attn.c_attn.weight')), P(h(l, 'attn.c_attn.bias')), BT, C, 3 * C, m);
    b.attentionForward(la.atty, la.att, la.qkv, Bsum, T, C, NH); // per sequence: no member needed
    b.matmulResidualForward(la.residual2, la.atty, P(h(l, 'attn.c_proj.weight')), P(h(l, 'attn.c_proj.bias')), residual, BT, C, C, m);
    b.layernormForward(la.ln2, la.ln2Mean, la.ln2Rstd, la.residual2, P(h(l, 'ln_2.weight')), P(h(l, 'ln_2.bias')), BT, C, m);
    b.matmulGeluForward(la.fch, la.fchGelu, la.ln2, P(h(l, 'mlp.c_fc.weight')), P(h(l, 'mlp.c_fc.bias')), BT, C, 4 * C, m);
    b.matmulResidualForward(la.residual3, la.fchGelu, P(h(l, 'mlp.c_proj.weight')), P(h(l, 'mlp.c_proj.bias')), la.residual2,
      BT, 4 * C, C, m);
    residual = la.residual3;
  });
  const lnf = alloc(BT * C), lnfMean = alloc(BT), lnfRstd = alloc(BT), logits = alloc(BT * V);
  b.layernormForward(lnf, lnfMean, lnfRstd, residual, P('transformer.ln_f.weight'), P('transformer.ln_f.bias'), BT, C, m);
  b.matmulForward(logits, lnf, P('transformer.wte.weight'), null, BT, C, V, m);

  // backward, as GPT.backward
  const dlogits = alloc(BT * V), dlnf = alloc(BT * C), dresidual = alloc(BT * C);
  const dbt3c = alloc(BT * 3 * C), dbt4c = alloc(BT * 4 * C), dbt4c2 = alloc(BT * 4 * C), dbtc = alloc(BT * C);
  const dpreatt = alloc(Bsum * NH * T * T);
  b.write(dlogits, dlogitsHost);
  b.matmulBackward(dlnf, G('transformer.wte.weight'), null, dlogits, lnf, P('transformer.wte.weight'), BT, C, V, m);
  b.layernormBackward(dresidual, G('transformer.ln_f.weight'), G('transformer.ln_f.bias'), dlnf, residual,
    P('transformer.ln_f.weight'), lnfMean, lnfRstd, BT, C, m);
  for (let l = L - 1; l >= 0; l--) {
    const la = layers[l], below = l === 0 ? encoded : layers[l - 1].residual3;
    b.zero(dbt4c);
    b.matmulBackward(dbt4c, G(h(l, 'mlp.c_proj.weight')), G(h(l, 'mlp.c_proj.bias')), dresidual, la.fchGelu, P(h(l, 'mlp.c_proj.weight')),
      BT, 4 * C, C, m);
    b.zero(dbt4c2);
    b.geluBackward(dbt4c2, la.fch, dbt4c, BT * 4 * C);
    b.zero(dbtc);
    b.matmulBackward(dbtc, G(h(l, 'mlp.c_fc.weight')), G(h(l, 'mlp.c_fc.bias')), dbt4c2, la.ln2, P(h(l, 'mlp.c_fc.weight')), BT, C, 4 * C, m);
    b.layernormBackward(dresidual, G(h(l, 'ln_2.weight')), G(h(l, 'ln_2.bias')), dbtc, la.residual2, P(h(l, 'ln_2.weight')),
      la.ln2Mean, la.ln2Rstd, BT, C, m);
    b.zero(dbtc);
    b.matmulBackward(dbtc, G(h(l, 'attn.c_proj.weight')), G(h(l, 'attn.c_proj.bias')), dresidual, la.atty, P(h(l, 'attn.c_proj.weight')),
      BT, C, C, m);
    b.zero(dbt3c);
    b.attentionBackward(dbt3c, dpreatt, dbtc, la.qkv, la.att, Bsum, T, C, NH);
    b.zero(dbtc);
    b.matmulBackward(dbtc, G(h(l, 'attn.c_attn.weight')), G(h(l, 'attn.c_attn.bias')), dbt3c, la.ln1, P(h(l, 'attn.c_attn.weight')),
      BT, C, 3 * C, m);
    b.layernormBackward(dresidual, G(h(l, 'ln_1.weight')), G(h(l, 'ln_1.bias')), dbtc, below, P(h(l, 'ln_1.weight')),
      la.ln1Mean, la.ln1Rstd, BT, C, m);
  }
  b.embeddingBackward(G('transformer.wte.weight'), G('transformer.wpe.weight'), dresidual, tok, BT, T, C, V, m);
  return { logits: Float64Array.from(await b.read(logits)), grads: Float64Array.from(await b.read(grads)) };
}

/** The oracle: each member a GPT of its own (src/model/gpt.ts), forward and backward alone on its sequences. */
export async function loneForwardBackward(b: Backend, config: GPTConfig, weights: Float32Array[], B: number[], T: number,
  tokens: Int32Array, dlogitsHost: Float32Array): Promise<ModelRun> {
  const { total } = paramSpecs(config), V = config.vocabSize;
  const rows = B.reduce((s, x) => s + x, 0) * T;
  const logits = new Float64Array(rows * V), grads = new Float64Array(weights.length * total);
  let row = 0;
  for (let k = 0; k < weights.length; k++) {
    const n = B[k] * T;
    if (n === 0) continue; // no sequences: no logits, and its gradient stays zero
    const gpt = new GPT(b, config, weights[k]);
    gpt.zeroGrad();
    const out = await b.read(gpt.forward(tokens.subarray(row, row + n), B[k], T));
    logits.set(out, row * V);
    b.write(gpt.dlogits(), dlogitsHost.subarray(row * V, (row + n) * V));
    gpt.backward();
    grads.set(await b.read(gpt.grads), k * total);
    gpt.destroy();
    row += n;
  }
  return { logits, grads };
}
