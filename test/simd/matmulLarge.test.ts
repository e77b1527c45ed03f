// The matmul paths taken only for weights beyond L2 (shaders/simd/forwardBlocked.ts for the forward at K <= 512;
// matmulDinp strip by strip): against the reference, with every tail (rows odd, M % 4, K % 4, IC % 16), and on 2
// threads (16-row chunks) bit for bit the one-thread engine. test/simd/matmul.test.ts's shapes stay below 512 KiB.
import { afterAll, describe, expect, it } from 'vitest';
import { WasmBackend } from '../../src/simd/wasmBackend';
import type { Backend, Tensor } from '../../src/backend';
import { randn, twin, type Tolerance } from './twin';

const tolFor = (K: number): Tolerance => ({ rtol: 1e-5, atol: 2e-7 * K + 1e-6 });
// [N, IC, OC]: weights of 720 KiB (K = 300), 534 KiB (K = 261, M % 4 = 1), and beyond K = 512 (the pair-by-pair path)
const SHAPES: [number, number, number][] = [[37, 300, 600], [21, 261, 513], [19, 600, 300]];
const two = new WasmBackend({ threads: 2, threadMinWork: 0, threadCallerIdle: true }), one = new WasmBackend();
afterAll(() => two.destroy());

async function bits(b: Backend, inputs: Record<string, Float32Array>, op: (t: Record<string, Tensor>) => void, out: string): Promise<Uint32Array> {
  const t: Record<string, Tensor> = {};
  for (const [k, v] of Object.entries(inputs)) { t[k] = b.alloc(v.length); b.write(t[k], v); }
  op(t);
  const got = (await b.read(t[out])) as Float32Array;
  for (const x of Object.values(t)) b.free(x);
  return new Uint32Array(got.buffer, got.byteOffset, got.length);
}

describe('matmuls with weights beyond L2', () => {
  for (const [N, IC, OC] of SHAPES) {
    it(`${N}x${IC}x${OC}: forward (bias, residual, gelu) and backward against the reference, and on 2 threads`, async () => {
      const f = { out: randn(N * OC, 1), pre: randn(N * OC, 2), inp: randn(N * IC, 3), w: randn(OC * IC, 4, 0.1), bias: randn(OC, 5), res: randn(N * OC, 6) };
      await twin(f, (b, t) => b.matmulForward(t.out, t.inp, t.w, t.bias, N, IC, OC), ['out'], tolFor(IC));
      await twin(f, (b, t) => b.matmulResidualForward(t.out, t.inp, t.w, null, t.res, N, IC, OC), ['out'], tolFor(IC));
      await twin(f, (b, t) => b.matmulGeluForward(t.pre, t.out, t.inp, t.w, t.bias, N, IC, OC), ['pre', 'out'], tolFor(IC));
      const dout = randn(N * OC, 10);
      dout.fill(0, 2 * OC, 3 * OC); // a masked row: the listed rows are not 0..N-1
      const g = { dinp: randn(N * IC, 7), dw: randn(OC * IC, 8), db: randn(OC, 9), dout, inp: randn(N * IC, 11), w: randn(OC * IC, 12, 0.1) };
      await twin(g, (b, t) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC), ['dinp', 'dw', 'db'], tolFor(Math.max(N, OC)));
      // dinp overwritten: the strips write each listed row once, the masked and the last rows are zeroed
      const last = g.dout.slice();
      last.fill(0, (N - 1) * OC);
      const h = { ...g, dout: last };
      const overwrite = (b: Backend, t: Record<string, Tensor>) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC, undefined, true);
      await twin(h, overwrite, ['dinp', 'dw', 'db'], tolFor(Math.max(N, OC)));
      const zeroed = await bits(one, { ...h, dinp: new Float32Array(N * IC) }, (t) => one.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC), 'dinp');
      for (const b of [one, two]) expect(Array.from(await bits(b, h, (t) => overwrite(b, t), 'dinp'))).toEqual(Array.from(zeroed));
      for (const [label, inputs, op, out] of [
        ['gelu forward', f, (b: Backend, t: Record<string, Tensor>) => b.matmulGeluForward(t.pre, t.out, t.inp, t.w, t.bias, N, IC, OC), 'out'],
        ['dinp', g, (b: Backend, t: Record<string, Tensor>) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC), 'dinp'],
        ['dweight', g, (b: Backend, t: Record<string, Tensor>) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC), 'dw'],
      ] as const) {
        const want = await bits(one, inputs, (t) => op(one, t), out), got = await bits(two, inputs, (t) => op(two, t), out);
        let bad = 0;
        for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) bad++;
        expect(bad, `${label} on 2 threads: elements that differ from one thread's`).toBe(0);
      }
    });
  }
});
