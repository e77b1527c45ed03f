// How far one build of the kernels ('simd' or 'fma', the relaxed-simd build) is from the f32 reference on the
// ops the fused multiply-add touches (matmul forward and backward, attention, and exp's users: the GELU and the
// log-softmax), and how many outputs the two
// builds give differently. Imported by fma.test.ts; run as a script (in a Node started with
// --experimental-wasm-relaxed-simd where the relaxed build does not validate by default) it prints the JSON.
// Self-contained: no vitest import, so it runs outside the test runner.
import { pathToFileURL } from 'node:url';
import type { Backend, Tensor } from '../../src/backend';
import { mulberry32 } from '../../src/model/random';
import { CpuBackend } from '../../src/reference/cpuBackend';
import type { KernelVariant } from '../../src/simd/kernels';
import { WasmBackend } from '../../src/simd/wasmBackend';

type Inputs = Record<string, Float32Array | Int32Array>;
interface Case { name: string; inputs: () => Inputs; outputs: string[]; sumLength: number; op: (b: Backend, t: Record<string, Tensor>) => void }

const randn = (n: number, seed: number, scale = 1) => { const r = mulberry32(seed); return Float32Array.from({ length: n }, () => (r() - 0.5) * 2 * scale); };

function cases(): Case[] {
  const out: Case[] = [];
  for (const [N, IC, OC] of [[7, 13, 9], [17, 33, 35], [64, 64, 256], [33, 256, 64]]) {
    out.push({ name: `matmulForward ${N}x${IC}x${OC}`, outputs: ['out'], sumLength: IC,
      inputs: () => ({ out: new Float32Array(N * OC), inp: randn(N * IC, 3), w: randn(OC * IC, 4, 0.5), bias: randn(OC, 5) }),
      op: (b, t) => b.matmulForward(t.out, t.inp, t.w, t.bias, N, IC, OC) });
    out.push({ name: `matmulBackward ${N}x${IC}x${OC}`, outputs: ['dinp', 'dw', 'db'], sumLength: Math.max(N, OC),
      inputs: () => ({ dinp: randn(N * IC, 6), dw: randn(OC * IC, 7), db: randn(OC, 8), dout: randn(N * OC, 9), inp: randn(N * IC, 10), w: randn(OC * IC, 11, 0.5) }),
      op: (b, t) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC) });
  }
  const [B, T, C, NH] = [2, 9, 48, 4];
  out.push({ name: `attentionForward B${B} T${T} C${C} H${NH}`, outputs: ['out', 'att'], sumLength: T + C / NH,
    inputs: () => ({ out: new Float32Array(B * T * C), att: new Float32Array(B * NH * T * T), qkv: randn(B * T * 3 * C, 12) }),
    op: (b, t) => b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH) });
  // the GELU over its whole range (exp's clamp included) and the log-softmax: exp's polynomial and reduction are madds
  const n = 1001, V = 37, N = 13;
  out.push({ name: `geluForward and geluBackward n${n}`, outputs: ['y', 'dx'], sumLength: 1,
    inputs: () => ({ y: new Float32Array(n), dx: randn(n, 13), x: randn(n, 14, 12), dy: randn(n, 15) }),
    op: (b, t) => { b.geluForward(t.y, t.x, n); b.geluBackward(t.dx, t.x, t.dy, n); } });
  out.push({ name: `logprobForward N${N} V${V}`, outputs: ['logp', 'ent'], sumLength: V,
    inputs: () => ({ logp: new Float32Array(N), ent: new Float32Array(N), logits: randn(N * V, 16, 6), tg: Int32Array.from({ length: N }, (_, i) => (i * 5) % V) }),
    op: (b, t) => b.logprobForward(t.logp, t.ent, t.logits, t.tg, N, V, 1) });
  return out;
}

async function run(b: Backend, c: Case): Promise<Float64Array[]> {
  const t: Record<string, Tensor> = {};
  for (const [name, data] of Object.entries(c.inputs())) { t[name] = b.alloc(data.length, data instanceof Int32Array ? 'i32' : 'f32'); b.write(t[name], data); }
  c.op(b, t);
  const res = await Promise.all(c.outputs.map(async (o) => Float64Array.from(await b.read(t[o]))));
  for (const x of Object.values(t)) b.free(x);
  return res;
}

export interface Agreement {
  variant: KernelVariant;
  /** Per case: the largest |got - want| - (atol + rtol |want|) (<= 0: within the twin tolerance), at rtol 1e-5, atol 2e-7 * length + 1e-6. */
  worst: Record<string, number>;
  /** Outputs where this build and the plain simd build differ (0 for 'simd' itself). */
  differFromSimd: number;
  outputs: number;
}

export async function agreement(variant: KernelVariant): Promise<Agreement> {
  const engine = new WasmBackend({ variant }), plain = new WasmBackend({ variant: 'simd' }), ref = new CpuBackend('f32');
  const worst: Record<string, number> = {};
  let differ = 0, outputs = 0;
  for (const c of cases()) {
    const [got, base, want] = [await run(engine, c), await run(plain, c), await run(ref, c)];
    const atol = 2e-7 * c.sumLength + 1e-6;
    let w = -Infinity;
    for (let o = 0; o < want.length; o++) {
      for (let i = 0; i < want[o].length; i++) {
        const excess = Math.abs(got[o][i] - want[o][i]) - (atol + 1e-5 * Math.abs(want[o][i]));
        w = Math.max(w, Number.isNaN(excess) ? Infinity : excess);
        if (got[o][i] !== base[o][i]) differ++;
        outputs++;
      }
    }
    worst[c.name] = w;
  }
  return { variant, worst, differFromSimd: differ, outputs };
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const variant = (process.argv[2] ?? 'fma') as KernelVariant;
  process.stdout.write(`${JSON.stringify(await agreement(variant))}\n`);
}
