// A Linear's backward in one dispatch (shaders/linear_backward.wgsl: dinp, dweight and dbias together) under
// forced plans (each tile, unsplit and split-K on either product, with a short last slice), with and without
// a bias, accumulating and overwriting dinp, alone and over stacked members whose dweight and dbias views
// overlap (the joint binding): against float64 loops; the Backend op at each adapter's plans against the CPU
// reference (the twin: dinp, dweight and dbias as three products apart, src/reference/nn.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { memberRows, type Backend, type Members, type Tensor } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { forceMatmulTarget, matmulBackward } from '../../src/gpu/kernels/matmul';
import { planWith, type BackwardPlan } from '../../src/gpu/kernels/matmulPlan';
import type { KernelContext } from '../../src/gpu/runtime';
import type { GpuTensor } from '../../src/gpu/tensor';
import { noGpu, theGpu } from './device';
import { expectClose, parity } from './parity';
import { Rng } from './random';

interface Host { dout: Float32Array; inp: Float32Array; w: Float32Array; dinp: Float32Array; dw: Float32Array; db: Float32Array }

/** Float64 loops over member k's rows [r0, r1) with its weight at wOff, dweight at wOff, dbias at bOff. */
function want(h: Host, IC: number, OC: number, r0: number, r1: number, wOff: number, bOff: number, accumulate: boolean,
  out: { dinp: Float64Array; dw: Float64Array; db: Float64Array }): void {
  for (let i = r0; i < r1; i++) {
    for (let j = 0; j < IC; j++) {
      let s = accumulate ? h.dinp[i * IC + j] : 0;
      for (let o = 0; o < OC; o++) s += h.dout[i * OC + o] * h.w[wOff + o * IC + j];
      out.dinp[i * IC + j] = s;
    }
  }
  for (let o = 0; o < OC; o++) {
    for (let j = 0; j < IC; j++) {
      let s = 0;
      for (let i = r0; i < r1; i++) s += h.dout[i * OC + o] * h.inp[i * IC + j];
      out.dw[wOff + o * IC + j] += s;
    }
    let s = 0;
    for (let i = r0; i < r1; i++) s += h.dout[i * OC + o];
    out.db[bOff + o] += s;
  }
}

const plan = (rows: number, IC: number, OC: number, tm: number, tn: number, s0: number, s1: number): BackwardPlan =>
  ({ dinp: planWith(rows, IC, OC, tm, tn, s0), dweight: planWith(OC, IC, rows, tm, tn, s1) });

afterEach(() => forceMatmulTarget(null));

describe.skipIf(noGpu)('WebGPU linear_backward (dinp, dweight, dbias in one dispatch)', () => {
  it('every forced plan, bias or none, dinp += or =, against float64 loops', async () => {
    const gpu = theGpu(), k = (gpu as unknown as { rt: KernelContext }).rt;
    const [N, IC, OC] = [70, 45, 150]; // dinp: 3 slices of OC (64, 64, 22); dweight: 3 of N (32, 32, 6)
    const r = new Rng(44);
    const cases = [] as { label: string; t: Record<string, GpuTensor>; exp: Record<string, Float64Array> }[];
    for (const [tm, tn, s0, s1] of [[16, 16, 1, 1], [64, 64, 1, 1], [32, 64, 3, 1], [64, 16, 1, 3], [16, 32, 3, 3]]) {
      for (const [withBias, accumulate] of [[true, true], [false, false], [true, false]]) {
        const h: Host = { dout: r.normal(N * OC), inp: r.normal(N * IC), w: r.normal(OC * IC), dinp: r.normal(N * IC), dw: r.normal(OC * IC), db: r.normal(OC) };
        const t: Record<string, GpuTensor> = {};
        for (const [name, data] of Object.entries(h)) { t[name] = gpu.alloc(data.length) as GpuTensor; gpu.write(t[name], data); }
        const p = plan(N, IC, OC, tm, tn, s0, s1);
        matmulBackward(k, t.dinp, t.dw, withBias ? t.db : null, t.dout, t.inp, t.w, N, IC, OC, undefined, accumulate, p);
        const exp = { dinp: new Float64Array(N * IC), dw: Float64Array.from(h.dw), db: Float64Array.from(h.db) };
        want(h, IC, OC, 0, N, 0, 0, accumulate, exp);
        if (!withBias) exp.db = Float64Array.from(h.db);
        cases.push({ label: `${tm}x${tn}, splits ${p.dinp.splits}/${p.dweight.splits}, bias ${withBias}, dinp ${accumulate ? '+=' : '='}`, t, exp });
      }
    }
    for (const { label, t, exp } of cases) {
      const tol = { rtol: 1e-4, atol: 2e-5 * Math.sqrt(Math.max(N, OC)) };
      expectClose(`${label}: dinp`, await gpu.read(t.dinp), exp.dinp, tol);
      expectClose(`${label}: dweight`, await gpu.read(t.dw), exp.dw, tol);
      expectClose(`${label}: dbias`, await gpu.read(t.db), exp.db, tol);
      for (const x of Object.values(t)) gpu.free(x);
    }
    expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  });

  it('stacked members (one empty), dweight and dbias overlapping views of one buffer, split and unsplit', async () => {
    const gpu = theGpu(), k = (gpu as unknown as { rt: KernelContext }).rt;
    const [IC, OC] = [20, 37];
    const counts = [23, 0, 41];
    const N = counts.reduce((a, x) => a + x, 0), K = counts.length;
    const bAt = Math.ceil((OC * IC) / 64) * 64, stride = bAt + 64; // each member: weight, then bias, 64-aligned
    const m = memberRows(gpu, counts, stride);
    const rs = m.rowStartHost;
    for (const [tm, tn, s0, s1] of [[64, 32, 1, 1], [16, 16, 2, 2]]) {
      const r = new Rng(tm + s1);
      const h: Host = { dout: r.normal(N * OC), inp: r.normal(N * IC), w: r.normal(K * stride), dinp: r.normal(N * IC), dw: r.normal(K * stride), db: new Float32Array(0) };
      h.db = h.dw; // one buffer holds both gradients
      const t: Record<string, GpuTensor> = {};
      for (const name of ['dout', 'inp', 'w', 'dinp', 'dw'] as const) { t[name] = gpu.alloc(h[name].length) as GpuTensor; gpu.write(t[name], h[name]); }
      const dwView = gpu.view(t.dw, 0, (K - 1) * stride + OC * IC) as GpuTensor;
      const dbView = gpu.view(t.dw, bAt, (K - 1) * stride + OC) as GpuTensor;
      const members = { K, rowStart: m.rowStart as GpuTensor, maxRows: m.maxRows, wStride: stride, bStride: stride };
      const p = plan(m.maxRows, IC, OC, tm, tn, s0, s1);
      matmulBackward(k, t.dinp, dwView, dbView, t.dout, t.inp, t.w, N, IC, OC, members, true, p);
      const flat = Float64Array.from(h.dw);
      const exp = { dinp: new Float64Array(N * IC), dw: flat, db: flat };
      for (let q = 0; q < K; q++) want(h, IC, OC, rs[q], rs[q + 1], q * stride, q * stride + bAt, true, exp);
      const label = `members ${tm}x${tn}, splits ${p.dinp.splits}/${p.dweight.splits}`;
      const tol = { rtol: 1e-4, atol: 2e-5 * Math.sqrt(Math.max(N, OC)) };
      expectClose(`${label}: dinp`, await gpu.read(t.dinp), exp.dinp, tol);
      expectClose(`${label}: dweight and dbias`, await gpu.read(t.dw), exp.dw, tol);
      for (const x of Object.values(t)) gpu.free(x);
    }
    gpu.free(m.rowStart);
    expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  });

  it('the Backend ops (+= and dinpOverwrite; a layernorm backward overwriting too) at the CPU adapter\'s plan and a GPU\'s against the CPU reference', async () => {
    for (const groups of [1, 256]) {
      forceMatmulTarget(groups);
      const [N, IC, OC] = [300, 64, 192]; // a c_attn backward: at 256 groups dweight splits its 300 rows
      const r = new Rng(groups);
      await parity(theGpu(), {
        inp: r.normal(N * IC), weight: r.normal(OC * IC), dout: r.normal(N * OC), dinp: r.normal(N * IC),
        dweight: r.normal(OC * IC), dbias: r.normal(OC), dinp2: r.normal(N * IC), dln: r.normal(N * IC),
        lng: r.normal(IC), lng2: r.normal(IC), mean: r.normal(N), rstd: r.normal(N),
      }, (b, t) => {
        b.matmulBackward(t.dinp, t.dweight, t.dbias, t.dout, t.inp, t.weight, N, IC, OC);
        // dinpOverwrite: the reference zeroes dinp and accumulates (the twin), the kernel writes dinp =
        b.matmulBackward(t.dinp2, t.dweight, t.dbias, t.dout, t.inp, t.weight, N, IC, OC, undefined, true);
        b.layernormBackward(t.dln, t.lng, t.lng2, t.dinp2, t.inp, t.weight, t.mean, t.rstd, N, IC, undefined, true);
      }, ['dinp', 'dinp2', 'dweight', 'dbias', 'dln', 'lng', 'lng2'], { rtol: 1e-4, atol: 2e-5 * Math.sqrt(N) });
    }
  });

  it('GELU mode (matmulGeluBackward): dpre = gelu\'(pre) * (dout @ W), grads in one buffer, against the reference; alone and members', async () => {
    const gpu = theGpu();
    const [IC, OC] = [256, 64]; // the MLP's c_proj: 4C in, C out
    for (const counts of [null, [40, 0, 27]]) for (const groups of [1, 256]) {
      forceMatmulTarget(groups);
      const K = counts?.length ?? 1, N = counts ? counts.reduce((x, y) => x + y, 0) : 300;
      const bAt = OC * IC, stride = bAt + 64;
      const r = new Rng(N + groups);
      const host = { dout: r.normal(N * OC), inp: r.normal(N * IC), pre: r.normal(N * IC, 2), w: r.normal(K * stride), grads: r.normal(K * stride),
        dpre: r.normal(N * IC), scratch: r.normal(N * IC) };
      const run = async (b: Backend) => {
        const t: Record<string, Tensor> = {};
        for (const [name, data] of Object.entries(host)) { t[name] = b.alloc(data.length); b.write(t[name], data); }
        const m: Members | undefined = counts ? memberRows(b, counts, stride) : undefined;
        const d0 = gpu.counters.dispatches;
        b.matmulGeluBackward(t.dpre, t.scratch, b.view(t.grads, 0, (K - 1) * stride + OC * IC), b.view(t.grads, bAt, (K - 1) * stride + OC),
          t.dout, t.inp, t.pre, b.view(t.w, 0, (K - 1) * stride + OC * IC), N, IC, OC, m);
        const dispatches = gpu.counters.dispatches - d0;
        return { dpre: await b.read(t.dpre), grads: await b.read(t.grads), dispatches };
      };
      const got = await run(gpu), want = await run(new CpuBackend('f32'));
      const label = `GELU mode, ${counts ? 'members' : 'alone'}, ${groups} group(s)`;
      expect(got.dispatches, `${label}: dispatches`).toBeLessThanOrEqual(2); // the product (and a split-K sum), no GELU kernel
      const tol = { rtol: 1e-4, atol: 2e-5 * Math.sqrt(N) };
      expectClose(`${label}: dpre`, got.dpre, want.dpre, tol);
      expectClose(`${label}: dweight and dbias`, got.grads, want.grads, tol);
    }
    expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  });

  it('GELU mode with both products split (forced plan) against float64 loops', async () => {
    const gpu = theGpu(), k = (gpu as unknown as { rt: KernelContext }).rt;
    const [N, IC, OC] = [70, 45, 150];
    const r = new Rng(7);
    const h = { dout: r.normal(N * OC), inp: r.normal(N * IC), w: r.normal(OC * IC), pre: r.normal(N * IC, 2), grads: r.normal(OC * IC + 64 + OC), dpre: r.normal(N * IC) };
    const t: Record<string, GpuTensor> = {};
    for (const [name, data] of Object.entries(h)) { t[name] = gpu.alloc(data.length) as GpuTensor; gpu.write(t[name], data); }
    const bAt = Math.ceil((OC * IC) / 64) * 64;
    const dw = gpu.view(t.grads, 0, OC * IC) as GpuTensor, db = gpu.view(t.grads, bAt, OC) as GpuTensor;
    matmulBackward(k, t.dpre, dw, db, t.dout, t.inp, t.w, N, IC, OC, undefined, false, plan(N, IC, OC, 16, 32, 3, 3), t.pre);
    const host: Host = { dout: h.dout, inp: h.inp, w: h.w, dinp: h.dpre, dw: h.grads, db: h.grads };
    const flat = Float64Array.from(h.grads);
    const exp = { dinp: new Float64Array(N * IC), dw: flat, db: flat };
    want(host, IC, OC, 0, N, 0, bAt, false, exp);
    const c = Math.sqrt(2 / Math.PI), gelu1 = (x: number) => {
      const th = Math.tanh(c * (x + 0.044715 * x ** 3));
      return 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * c * (1 + 3 * 0.044715 * x * x);
    };
    const tol = { rtol: 1e-4, atol: 2e-5 * Math.sqrt(OC) };
    expectClose('GELU mode split: dpre', await gpu.read(t.dpre), exp.dinp.map((v, i) => v * gelu1(h.pre[i])), tol);
    expectClose('GELU mode split: dweight and dbias', await gpu.read(t.grads), exp.dw, tol);
    expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  });
});
