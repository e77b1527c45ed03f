// LayerNorm's backward in one dispatch (shaders/layernorm.wgsl layernorm_backward_fused: dinp and the column sums
// straight into dweight, dbias), taken when the two gradients are views of one buffer (the model's flat gradients):
// in both row layouts, C = 1 .. 257, dinp accumulated and overwritten, over stacked members whose gradient views
// overlap; against the f32 CPU reference src/reference/nn.ts (the twin: the unfused op, dinp zeroed first for the overwrite).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberRows, type Backend, type Members, type Tensor } from '../../src/backend';
import { FUSED_MAX_ROWS, layernormBackward } from '../../src/gpu/kernels/layernorm';
import { forceRowMode, type RowMode } from '../../src/gpu/kernels/rows';
import type { KernelContext } from '../../src/gpu/runtime';
import type { GpuTensor } from '../../src/gpu/tensor';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { noGpu, theGpu } from './device';
import { expectClose } from './parity';
import { Rng } from './random';

/** The gradients laid out as in a model: each member's dweight then dbias, 64-aligned, `stride` apart. */
function layout(C: number, K: number) {
  const bAt = Math.ceil(C / 64) * 64, stride = bAt + Math.ceil(C / 64) * 64;
  return { bAt, stride, size: K * stride };
}

/** The op on backend b; dinp zeroed first and then accumulated on the CPU when `overwrite` (what the kernel's = means). */
async function run(b: Backend, host: Record<string, Float32Array>, N: number, C: number, counts: number[] | null, overwrite: boolean) {
  const K = counts?.length ?? 1, { bAt, stride } = layout(C, K);
  const t: Record<string, Tensor> = {};
  for (const [name, data] of Object.entries(host)) { t[name] = b.alloc(data.length); b.write(t[name], data); }
  const m: Members | undefined = counts ? memberRows(b, counts, stride) : undefined;
  const dw = b.view(t.grads, 0, (K - 1) * stride + C), db = b.view(t.grads, bAt, (K - 1) * stride + C);
  const w = b.view(t.weights, 0, (K - 1) * stride + C);
  if (b.name === 'webgpu') {
    const k = (b as unknown as { rt: KernelContext }).rt;
    const rm = m ? { K, rowStart: m.rowStart as GpuTensor, maxRows: m.maxRows, stride } : undefined;
    const g = (x: Tensor) => x as GpuTensor;
    layernormBackward(k, g(t.dinp), g(dw), g(db), g(t.dout), g(t.inp), g(w), g(t.mean), g(t.rstd), N, C, rm, !overwrite);
  } else {
    if (overwrite) b.zero(t.dinp);
    b.layernormBackward(t.dinp, dw, db, t.dout, t.inp, w, t.mean, t.rstd, N, C, m);
  }
  return { dinp: await b.read(t.dinp), grads: await b.read(t.grads) };
}

describe.skipIf(noGpu).each<RowMode>(['lanes', 'single'])('WebGPU layernorm backward in one dispatch, %s layout', (mode) => {
  beforeAll(() => forceRowMode(mode));
  afterAll(() => forceRowMode(null));

  it('dinp (+= and =), dweight and dbias of one buffer, against the CPU reference; one dispatch', async () => {
    const gpu = theGpu();
    const shapes = [[1, 1], [37, 19], [70, 64], [33, 65], [5, 257], [mode === 'single' ? 900 : FUSED_MAX_ROWS, 64]];
    for (const [N, C] of shapes) {
      for (const overwrite of [false, true]) {
        const r = new Rng(N * 7 + C + +overwrite);
        const { size } = layout(C, 1);
        const inp = r.normal(N * C, 2);
        // mean and rstd of the rows, as the forward saves them
        const mean = new Float32Array(N), rstd = new Float32Array(N);
        for (let n = 0; n < N; n++) {
          let s = 0, q = 0;
          for (let c = 0; c < C; c++) s += inp[n * C + c];
          mean[n] = s / C;
          for (let c = 0; c < C; c++) q += (inp[n * C + c] - mean[n]) ** 2;
          rstd[n] = 1 / Math.sqrt(q / C + 1e-5);
        }
        const host = { inp, mean, rstd, dout: r.normal(N * C), dinp: r.normal(N * C), grads: r.normal(size), weights: r.normal(size) };
        const before = gpu.counters.dispatches;
        const got = await run(gpu, host, N, C, null, overwrite);
        expect(gpu.counters.dispatches - before, `${N}x${C}: dispatches`).toBe(1);
        const want = await run(new CpuBackend('f32'), host, N, C, null, overwrite);
        const tol = { rtol: 1e-4, atol: 1e-5 * Math.sqrt(N) };
        expectClose(`${N}x${C} ${overwrite ? '=' : '+='}: dinp`, got.dinp, want.dinp, tol);
        expectClose(`${N}x${C}: dweight and dbias`, got.grads, want.grads, tol);
      }
    }
    expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  });

  it('stacked members (one empty), the members\' gradient views overlapping', async () => {
    const gpu = theGpu();
    const counts = [23, 0, 41], C = 64, K = counts.length, N = 64;
    const r = new Rng(3);
    const { size } = layout(C, K);
    const host = { inp: r.normal(N * C, 2), mean: r.normal(N), rstd: r.normal(N), dout: r.normal(N * C), dinp: r.normal(N * C),
      grads: r.normal(size), weights: r.normal(size) };
    const got = await run(gpu, host, N, C, counts, false);
    const want = await run(new CpuBackend('f32'), host, N, C, counts, false);
    expectClose('members: dinp', got.dinp, want.dinp, { rtol: 1e-4, atol: 1e-4 });
    expectClose('members: dweight and dbias', got.grads, want.grads, { rtol: 1e-4, atol: 1e-4 });
    expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  });
});
