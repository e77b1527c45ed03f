// dweight's gather buffer per thread (shaders/simd/matmul.ts dweightFeatures, setThreadSlot): each worker copies a
// pair of dout columns into its own buffer in the shared memory before it sums; were two threads to share one, a
// worker would sum the other's columns. Two workers (3 threads, the caller idle) race on a backward whose time is
// mostly gathering (IC small, many feature chunks), 40 times over; every run equals the one-thread engine bit
// for bit (and that the reference within the twin tolerance).
import { afterAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import type { Backend } from '../../src/backend';
import { expectClose, randn } from './twin';

const one = new WasmBackend({ variant: 'simd' });
const three = new WasmBackend({ threads: 3, variant: 'simd', threadMinWork: 0, threadCallerIdle: true });
afterAll(() => three.destroy());

async function dweight(b: Backend, N: number, IC: number, OC: number): Promise<Float32Array> {
  const dinp = b.alloc(N * IC), dw = b.alloc(OC * IC), dout = b.alloc(N * OC), inp = b.alloc(N * IC), w = b.alloc(OC * IC);
  b.write(dout, randn(N * OC, 1));
  b.write(inp, randn(N * IC, 2));
  b.write(w, randn(OC * IC, 3));
  b.write(dw, randn(OC * IC, 4));
  b.matmulBackward(dinp, dw, null, dout, inp, w, N, IC, OC);
  const got = (await b.read(dw)) as Float32Array;
  for (const t of [dinp, dw, dout, inp, w]) b.free(t);
  return got;
}

describe('dweight on worker threads, each with its own gather buffer', () => {
  it('two workers racing on 32 feature chunks give the one-thread dweight bit for bit, 40 times', async () => {
    const N = 1024, IC = 4, OC = 512;
    const want = await dweight(one, N, IC, OC);
    expectClose('one thread vs reference', Float64Array.from(want), Float64Array.from(await dweight(new CpuBackend(), N, IC, OC)), { rtol: 1e-5, atol: 2e-7 * N + 1e-6 });
    const wantBits = new Uint32Array(want.buffer);
    for (let r = 0; r < 40; r++) {
      const before = three.workerChunks;
      const got = new Uint32Array((await dweight(three, N, IC, OC)).buffer);
      expect(three.workerChunks - before).toBeGreaterThan(32); // dinp's and dweight's chunks, all on the workers
      let bad = 0;
      for (let i = 0; i < got.length; i++) if (got[i] !== wantBits[i]) bad++;
      expect(bad, `run ${r}: elements of dweight that differ from one thread's`).toBe(0);
    }
  });
});
