// Parity of the model kernels (shaders/embedding, layernorm, matmul, attention, gelu,
// residual, logsoftmax) with the f32 CPU reference, odd shapes included.
// Kernels: shaders/attention.wgsl (+ shaders/attention.forward.wgsl, shaders/attention.backward.wgsl), shaders/embedding.wgsl, shaders/gelu.wgsl, shaders/layernorm.wgsl, shaders/logsoftmax.wgsl, shaders/residual.wgsl; CPU twins: src/reference/attention.ts, src/reference/nn.ts, src/reference/logsoftmax.ts.
import { describe, it } from 'vitest';
import { noGpu, theGpu } from './device';
import { parity, TOL } from './parity';
import { Rng } from './random';

/** A Linear forward and backward (gradients accumulating onto random values) on WebGPU against the CPU reference. */
async function matmulParity(N: number, IC: number, OC: number, withBias: boolean): Promise<void> {
  const r = new Rng(N * 7 + IC * 3 + OC);
  await parity(theGpu(), {
    inp: r.normal(N * IC), weight: r.normal(OC * IC), bias: r.normal(OC), out: r.normal(N * OC),
    dout: r.normal(N * OC), dinp: r.normal(N * IC), dweight: r.normal(OC * IC), dbias: r.normal(OC),
  }, (b, t) => {
    b.matmulForward(t.out, t.inp, t.weight, withBias ? t.bias : null, N, IC, OC);
    b.matmulBackward(t.dinp, t.dweight, withBias ? t.dbias : null, t.dout, t.inp, t.weight, N, IC, OC);
  }, ['out', 'dinp', 'dweight', 'dbias'],
  // Sums of K unit-normal products: cancellation makes single elements small next
  // to the terms summed, so the absolute floor scales with sqrt(K) * f32 epsilon.
  { rtol: 1e-4, atol: 2e-5 * Math.sqrt(Math.max(N, IC, OC)) });
}

describe.skipIf(noGpu)('WebGPU model kernels vs CPU reference', () => {
  it('embedding forward and backward (accumulating), N not a multiple of the workgroup', async () => {
    for (const [B, T, C, V] of [[3, 5, 19, 11], [2, 1, 64, 7], [1, 33, 8, 130]]) {
      const N = B * T;
      const r = new Rng(N * 31 + C);
      await parity(theGpu(), {
        tokens: r.ints(N, 0, V), wte: r.normal(V * C), wpe: r.normal(T * C), out: r.normal(N * C),
        dout: r.normal(N * C), dwte: r.normal(V * C), dwpe: r.normal(T * C),
      }, (b, t) => {
        b.embeddingForward(t.out, t.tokens, t.wte, t.wpe, N, T, C);
        b.embeddingBackward(t.dwte, t.dwpe, t.dout, t.tokens, N, T, C, V);
      }, ['out', 'dwte', 'dwpe']);
    }
  });

  it('layernorm forward and backward (accumulating)', async () => {
    for (const [N, C] of [[37, 19], [1, 64], [70, 256]]) {
      const r = new Rng(N + C);
      const inp = r.normal(N * C, 2);
      for (let i = 0; i < C; i++) inp[i] += 5; // a row with a large mean
      await parity(theGpu(), {
        inp, weight: r.normal(C), bias: r.normal(C), out: r.normal(N * C), mean: r.normal(N), rstd: r.normal(N),
        dout: r.normal(N * C), dinp: r.normal(N * C), dweight: r.normal(C), dbias: r.normal(C),
      }, (b, t) => {
        b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.weight, t.bias, N, C);
        b.layernormBackward(t.dinp, t.dweight, t.dbias, t.dout, t.inp, t.weight, t.mean, t.rstd, N, C);
      }, ['out', 'mean', 'rstd', 'dinp', 'dweight', 'dbias']);
    }
  });

  it('matmul forward (with and without bias) and backward (accumulating), sizes off the 64x64 tile', async () => {
    for (const [N, IC, OC, withBias] of [[37, 19, 53, 1], [1, 1, 1, 1], [64, 64, 64, 0], [130, 70, 65, 1], [5, 200, 3, 0]]) {
      await matmulParity(N, IC, OC, withBias === 1);
    }
  });

  it('matmul at split-K, narrow and decode shapes (every plan path through the ops)', async () => {
    // [N rows, IC, OC, bias]; the plans (matmulPlan.ts) they reach, with dweight = [OC,IC] over K = N rows.
    // (Bigger tiles need outputs too big for SwiftShader here; matmul.test.ts forces each tile instead.)
    for (const [N, IC, OC, withBias] of [
      [1000, 19, 7, 1], // dweight split-K, 1000 rows not a multiple of the slice; bias sum in 15 uneven row chunks
      [3000, 16, 33, 0], // 3072-ish rows: dweight in ~21 slices; no bias
      [700, 1, 1, 1], // 1x1 weight: dweight a split dot product, OC = IC = 1
      [8, 64, 300, 1], // decode-like: 8 rows, dinp split over K = OC = 300
      [5, 520, 9, 1], // forward split over K = IC = 520, bias added once in the slice sum
      [300, 70, 130, 1], // bias sum over 3 column groups and 4 row chunks
    ]) {
      await matmulParity(N, IC, OC, withBias === 1);
    }
  });

  it('causal attention forward and backward (accumulating), T = 1 and odd T', async () => {
    for (const [B, T, C, NH] of [[2, 5, 12, 3], [1, 1, 8, 2], [2, 17, 16, 4]]) {
      const r = new Rng(B * 100 + T * 10 + C);
      const att = B * NH * T * T;
      await parity(theGpu(), {
        qkv: r.normal(B * T * 3 * C), out: r.normal(B * T * C), att: r.normal(att),
        dout: r.normal(B * T * C), dqkv: r.normal(B * T * 3 * C), dpreatt: r.normal(att),
      }, (b, t) => {
        b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH);
        b.attentionBackward(t.dqkv, t.dpreatt, t.dout, t.qkv, t.att, B, T, C, NH);
      }, ['out', 'att', 'dqkv']);
    }
  });

  it('gelu forward and backward (accumulating), including large |x|', async () => {
    const n = 1000;
    const r = new Rng(5);
    const inp = r.normal(n, 3);
    inp.set([0, 20, -20, 80, -80, 1e-3]);
    await parity(theGpu(), { inp, out: r.normal(n), dout: r.normal(n), dinp: r.normal(n) }, (b, t) => {
      b.geluForward(t.out, t.inp, n);
      b.geluBackward(t.dinp, t.inp, t.dout, n);
    }, ['out', 'dinp']);
  });

  it('residual forward, accumulate', async () => {
    const n = 300;
    const r = new Rng(6);
    await parity(theGpu(), { a: r.normal(n), b: r.normal(n), out: r.normal(n), acc: r.normal(n) }, (b, t) => {
      b.residualForward(t.out, t.a, t.b, n);
      b.accumulate(t.acc, t.a, n);
    }, ['out', 'acc']);
  });

  it('logprob forward and backward: temperature, rows without a target', async () => {
    for (const [N, V, temperature] of [[37, 11, 1], [20, 130, 0.7], [1, 2, 1.5]]) {
      const r = new Rng(N * V);
      const targets = r.ints(N, 0, V);
      targets[0] = -1;
      const logits = r.normal(N * V, 3);
      if (N > 3) logits[3 * V] = 60; // a dominant logit: needs the max subtraction
      await parity(theGpu(), {
        logits, targets, logp: r.normal(N), entropy: r.normal(N), dlogp: r.normal(N), dlogits: r.normal(N * V),
      }, (b, t) => {
        b.logprobForward(t.logp, t.entropy, t.logits, t.targets, N, V, temperature);
        b.logprobBackward(t.dlogits, t.dlogp, t.logits, t.targets, N, V, temperature);
      }, ['logp', 'entropy', 'dlogits'], TOL);
    }
  });

  it('cross-entropy forward and backward (accumulating), ignored targets', async () => {
    for (const [N, V] of [[37, 11], [3, 128]]) {
      const r = new Rng(N + V);
      const targets = r.ints(N, 0, V);
      targets[1] = -1;
      await parity(theGpu(), {
        logits: r.normal(N * V, 2), targets, losses: r.normal(N), dloss: r.uniformIn(N, 0, 1), dlogits: r.normal(N * V),
      }, (b, t) => {
        b.crossEntropyForward(t.losses, t.logits, t.targets, N, V);
        b.crossEntropyBackward(t.dlogits, t.dloss, t.logits, t.targets, N, V);
      }, ['losses', 'dlogits']);
    }
  });
});
