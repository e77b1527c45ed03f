// A LayerNorm and the Linear reading it in one dispatch (shaders/layernorm_matmul.wgsl): ln, mean, rstd, out and the
// GELU epilogue against the f32 CPU reference src/reference/cpuBackend.ts (the twin: layernormForward then matmulForward or
// matmulGeluForward), at a CPU adapter's plan and a GPU's (forced), with and without bias, rows off every tile,
// stacked members (one empty) with parameters in their flat vectors; separate tensors take the two ops.
import { afterEach, describe, expect, it } from 'vitest';
import { memberRows, type Backend, type Tensor } from '../../src/backend';
import { forceMatmulTarget } from '../../src/gpu/kernels/matmul';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { noGpu, theGpu } from './device';
import { expectClose } from './parity';
import { Rng } from './random';

const a64 = (n: number) => Math.ceil(n / 64) * 64;

/** One member's parameters as in a model's flat vector: lnw, lnb, W [OC, C], bias, 64-aligned. */
function layout(C: number, OC: number) {
  const lnb = a64(C), w = lnb + a64(C), b = w + a64(OC * C);
  return { lnb, w, b, stride: b + a64(OC) };
}

interface Case { N: number; C: number; OC: number; gelu: boolean; bias: boolean; counts?: number[]; apart?: boolean }

async function run(be: Backend, c: Case, host: { inp: Float32Array; flat: Float32Array }) {
  const K = c.counts?.length ?? 1, L = layout(c.C, c.OC);
  const flat = be.alloc(host.flat.length), inp = be.alloc(host.inp.length);
  be.write(flat, host.flat);
  be.write(inp, host.inp);
  const span = (at: number, size: number): Tensor => {
    if (!c.apart) return be.view(flat, at, (K - 1) * L.stride + size);
    const t = be.alloc(size); // a tensor of its own (one member)
    be.write(t, host.flat.subarray(at, at + size));
    return t;
  };
  const m = c.counts ? memberRows(be, c.counts, L.stride) : undefined;
  const outs = { ln: be.alloc(c.N * c.C), mean: be.alloc(c.N), rstd: be.alloc(c.N), out: be.alloc(c.N * c.OC), act: be.alloc(c.N * c.OC) };
  const d0 = 'counters' in be ? (be as unknown as { counters: { dispatches: number } }).counters.dispatches : 0;
  be.layernormMatmulForward(outs.ln, outs.mean, outs.rstd, outs.out, c.gelu ? outs.act : null, inp, span(0, c.C), span(L.lnb, c.C),
    span(L.w, c.OC * c.C), c.bias ? span(L.b, c.OC) : null, c.N, c.C, c.OC, m);
  const dispatches = 'counters' in be ? (be as unknown as { counters: { dispatches: number } }).counters.dispatches - d0 : 0;
  const got: Record<string, ArrayLike<number>> = {};
  for (const [name, t] of Object.entries(outs)) got[name] = await be.read(t);
  return { got, dispatches };
}

afterEach(() => forceMatmulTarget(null));

describe.skipIf(noGpu)('WebGPU layernorm_matmul (a LayerNorm in the prologue of its Linear)', () => {
  const cases: Case[] = [
    { N: 37, C: 64, OC: 192, gelu: false, bias: true },
    { N: 70, C: 19, OC: 45, gelu: true, bias: true },
    { N: 5, C: 64, OC: 256, gelu: true, bias: true },
    { N: 33, C: 130, OC: 11, gelu: false, bias: false }, // the tied head: no bias
    { N: 64, C: 64, OC: 64, gelu: true, bias: true, counts: [23, 0, 41] },
    { N: 20, C: 32, OC: 40, gelu: true, bias: true, apart: true }, // not one buffer: the two ops
  ];
  for (const groups of [1, 256]) {
    it(`ln, mean, rstd, out and gelu(out) against the reference, planned for ${groups} workgroup(s)`, async () => {
      forceMatmulTarget(groups);
      const gpu = theGpu();
      for (const c of cases) {
        const r = new Rng(c.N * 3 + c.C + groups);
        const K = c.counts?.length ?? 1;
        const host = { inp: r.normal(c.N * c.C, 2), flat: r.normal(K * layout(c.C, c.OC).stride) };
        const { got, dispatches } = await run(gpu, c, host);
        const want = (await run(new CpuBackend('f32'), c, host)).got;
        const label = `${c.N}x${c.C}->${c.OC}${c.gelu ? ' gelu' : ''}${c.bias ? '' : ' no bias'}${c.counts ? ' members' : ''}${c.apart ? ' apart' : ''}`;
        expect(dispatches, `${label}: dispatches`).toBe(c.apart ? 2 : 1);
        const tol = { rtol: 1e-4, atol: 2e-5 * Math.sqrt(c.C) * 3 };
        for (const k of ['ln', 'mean', 'rstd', 'out', ...(c.gelu ? ['act'] : [])]) expectClose(`${label}: ${k}`, got[k], want[k], tol);
      }
      expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
    });
  }
});
