// shaders/matmul.wgsl under every plan the wrapper can choose: each tile
// (16/32/64 x 16/32/64), unsplit and split-K (with a short last slice), for
// each operand layout the Linear ops use, against a plain float64 triple loop.
// (nn.test.ts checks the ops at the shapes' own plans against the CPU reference.)
// Kernel: shaders/matmul.wgsl; CPU twin: src/reference/gemm.ts.
import { describe, it } from 'vitest';
import { matmulProduct } from '../../src/gpu/kernels/matmul';
import { planWith } from '../../src/gpu/kernels/matmulPlan';
import type { KernelContext } from '../../src/gpu/runtime';
import type { GpuTensor } from '../../src/gpu/tensor';
import { noGpu, theGpu } from './device';
import { expectClose, parity } from './parity';
import { Rng } from './random';

/** out (+)= opA(a) @ opB(b) (+ bias) in float64: opA(a)[i,k] = transA ? a[k*M+i] : a[i*K+k], opB(b)[k,j] = transB ? b[j*K+k] : b[k*N+j]. */
function product(out0: Float32Array, a: Float32Array, b: Float32Array, bias: Float32Array | null,
  M: number, N: number, K: number, transA: boolean, transB: boolean, accumulate: boolean): Float64Array {
  const out = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += (transA ? a[k * M + i] : a[i * K + k]) * (transB ? b[j * K + k] : b[k * N + j]);
      out[i * N + j] = s + (bias ? bias[j] : 0) + (accumulate ? out0[i * N + j] : 0);
    }
  }
  return out;
}

const TILES = [16, 32, 64].flatMap((tm) => [16, 32, 64].map((tn) => [tm, tn] as const));
// forward (transB, =, bias), dinp (+=), dweight (transA, +=)
const LAYOUTS = [[false, true, false, true], [false, false, true, false], [true, false, true, false]] as const;

describe.skipIf(noGpu)('WebGPU matmul under each tile and split', () => {
  it('every tile, unsplit and 3 K slices (the last short), every operand layout', async () => {
    const gpu = theGpu();
    // The kernel wrapper with a forced plan needs the backend's KernelContext (its runtime).
    const k = (gpu as unknown as { rt: KernelContext }).rt;
    const [M, N, K] = [37, 45, 150]; // off every tile; 3 slices of 64, 64, 22
    const r = new Rng(13);
    const cases = TILES.flatMap(([tm, tn]) => [1, 3].flatMap((splits) => LAYOUTS.map(([transA, transB, accumulate, withBias]) => {
      const host = { a: r.normal(M * K), b: r.normal(K * N), bias: r.normal(N), out: r.normal(M * N) };
      const t: Record<string, GpuTensor> = {};
      for (const [name, data] of Object.entries(host)) {
        t[name] = gpu.alloc(data.length) as GpuTensor;
        gpu.write(t[name], data);
      }
      const plan = planWith(M, N, K, tm, tn, splits);
      // All recorded before the first read: later products reuse the split-K scratch of earlier ones.
      matmulProduct(k, t.out, t.a, t.b, withBias ? t.bias : null, M, N, K, transA, transB, accumulate, plan);
      const want = product(host.out, host.a, host.b, withBias ? host.bias : null, M, N, K, transA, transB, accumulate);
      return { label: `${tm}x${tn} tile, ${plan.splits} slices, transA ${transA} transB ${transB}`, t, want };
    })));
    for (const { label, t, want } of cases) {
      expectClose(label, await gpu.read(t.out), want, { rtol: 1e-4, atol: 2e-5 * Math.sqrt(K) });
      for (const x of Object.values(t)) gpu.free(x);
    }
    expectClose('WebGPU errors', [gpu.takeErrors().length], [0]);
  });
});

/** gelu, tanh approximation, in float64 (an independent twin of the shader's). */
const gelu = (x: number) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

describe.skipIf(noGpu)('WebGPU fused matmul epilogues', () => {
  it('+ residual and GELU, unsplit and split-K, against float64 loops; the ops against the CPU reference', async () => {
    const gpu = theGpu(), k = (gpu as unknown as { rt: KernelContext }).rt;
    const [N, IC, OC] = [29, 150, 21]; // rows, in, out: off every tile, 3 slices of K = IC
    const r = new Rng(21);
    const host = { inp: r.normal(N * IC), w: r.normal(OC * IC), bias: r.normal(OC), res: r.normal(N * OC, 3) };
    const t: Record<string, GpuTensor> = {};
    for (const [name, data] of Object.entries(host)) { t[name] = gpu.alloc(data.length) as GpuTensor; gpu.write(t[name], data); }
    const lin = product(new Float32Array(N * OC), host.inp, host.w, host.bias, N, OC, IC, false, true, false);
    for (const splits of [1, 3]) {
      const plan = planWith(N, OC, IC, 16, 32, splits);
      const out = gpu.alloc(N * OC) as GpuTensor, pre = gpu.alloc(N * OC) as GpuTensor, act = gpu.alloc(N * OC) as GpuTensor;
      matmulProduct(k, out, t.inp, t.w, t.bias, N, OC, IC, false, true, false, plan, { residual: t.res });
      matmulProduct(k, pre, t.inp, t.w, t.bias, N, OC, IC, false, true, false, plan, { geluOut: act });
      const tol = { rtol: 1e-4, atol: 2e-5 * Math.sqrt(IC) };
      expectClose(`residual epilogue, ${splits} slices`, await gpu.read(out), lin.map((x, i) => x + host.res[i]), tol);
      expectClose(`pre-activation, ${splits} slices`, await gpu.read(pre), lin, tol);
      expectClose(`gelu epilogue, ${splits} slices`, await gpu.read(act), lin.map(gelu), tol);
      for (const x of [out, pre, act]) gpu.free(x);
    }
    for (const x of Object.values(t)) gpu.free(x);
    // through the Backend ops, against the CPU reference (which runs them as matmul, then residual or GELU)
    await parity(gpu, {
      inp: host.inp, w: host.w, bias: host.bias, res: host.res, out: r.normal(N * OC), pre: r.normal(N * OC), act: r.normal(N * OC), out2: r.normal(N * OC),
    }, (b, x) => {
      b.matmulResidualForward(x.out, x.inp, x.w, x.bias, x.res, N, IC, OC);
      b.matmulGeluForward(x.pre, x.act, x.inp, x.w, null, N, IC, OC);
      b.matmulResidualForward(x.out2, x.inp, x.w, null, x.res, N, IC, OC);
    }, ['out', 'pre', 'act', 'out2'], { rtol: 1e-4, atol: 2e-5 * Math.sqrt(IC) });
  });
});
