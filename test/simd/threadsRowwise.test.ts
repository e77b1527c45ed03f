// The row-wise and element-wise ops on the CPU engine's threads (shaders/simd/threads.ts rowwiseChunk): the layer
// norm forward and the log-softmax heads by fixed chunks of 16 rows, AdamW by fixed blocks of 4096 elements, equal
// the one-thread engine bit for bit at 1, 2 and 3 threads, and the reference within the twin tolerance.
import { afterAll, describe, expect, it } from 'vitest';
import { membersOf, type AdamWParams, type Backend, type Tensor } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { expectClose, randn } from './twin';

const one = new WasmBackend({ variant: 'simd' });
// threadMinWork 0: even small shapes split; threadCallerIdle: every chunk runs in a worker, so the split is what is tested
const pools = [1, 2, 3].map((threads) => new WasmBackend({ threads, threadMinWork: 0, threadCallerIdle: threads > 1 }));
const ref = new CpuBackend();
afterAll(() => { for (const b of pools) b.destroy(); });

type Host = Record<string, Float32Array | Int32Array>;
async function run(b: Backend, inputs: Host, op: (b: Backend, t: Record<string, Tensor>) => void, outs: string[]): Promise<Record<string, Float32Array>> {
  const t: Record<string, Tensor> = {};
  for (const [k, v] of Object.entries(inputs)) { t[k] = b.alloc(v.length, v instanceof Int32Array ? 'i32' : 'f32'); b.write(t[k], v); }
  op(b, t);
  const got: Record<string, Float32Array> = {};
  for (const k of outs) got[k] = Float32Array.from(await b.read(t[k]));
  for (const x of Object.values(t)) b.free(x);
  return got;
}

function expectBits(label: string, got: Float32Array, want: Float32Array): void {
  const g = new Uint32Array(got.buffer), w = new Uint32Array(want.buffer);
  let bad = -1;
  for (let i = 0; i < g.length && bad < 0; i++) if (g[i] !== w[i]) bad = i;
  expect(bad, `${label}: first differing element ${bad} (${got[bad]} vs ${want[bad]})`).toBe(-1);
}

async function expectSame(inputs: Host, op: (b: Backend, t: Record<string, Tensor>) => void, outs: string[], splits: boolean): Promise<void> {
  const want = await run(one, inputs, op, outs), oracle = await run(ref, inputs, op, outs);
  for (const k of outs) expectClose(`${k} vs reference`, Float64Array.from(want[k]), Float64Array.from(oracle[k]), { rtol: 1e-4, atol: 1e-5 });
  for (const b of pools) {
    const before = b.workerChunks, got = await run(b, inputs, op, outs);
    if (b.threads > 1) expect(b.workerChunks > before, `chunks run by workers on ${b.threads} threads`).toBe(splits);
    for (const k of outs) expectBits(`${k} on ${b.threads} threads`, got[k], want[k]);
  }
}

describe('row-wise ops on threads equal one thread bit for bit (1, 2, 3 threads)', () => {
  // chunks of 64 rows: 67 is one and a short one, 200 three and a short one
  for (const [N, C] of [[5, 8], [17, 13], [67, 64], [200, 13]]) {
    it(`layer norm forward, ${N} rows of ${C}`, async () => {
      const inputs = { out: randn(N * C, 1), mean: randn(N, 2), rstd: randn(N, 3), x: randn(N * C, 4), w: randn(C, 5), b: randn(C, 6) };
      await expectSame(inputs, (b, t) => b.layernormForward(t.out, t.mean, t.rstd, t.x, t.w, t.b, N, C), ['out', 'mean', 'rstd'], N > 64);
    });
  }

  // [N, C]: one chunk of rows (not split), C % 4 = 1 under 16 features, several chunks, and 70 features (4 chunks of
  // 16 and one of 6, its last 2 in the scalar tail)
  for (const [N, C] of [[5, 8], [37, 13], [70, 64], [67, 70]]) {
    it(`layer norm backward, ${N} rows of ${C} (rows without a gradient, the first and last among them): dinp accumulated and overwritten, dw, db`, async () => {
      const dout = randn(N * C, 1);
      for (let n = 0; n < N; n++) if (n % 3 === 1 || n === 0 || n === N - 1) dout.fill(0, n * C, (n + 1) * C);
      const inputs = { dinp: randn(N * C, 2), dw: randn(C, 3), db: randn(C, 4), dout, x: randn(N * C, 5), w: randn(C, 6), mean: randn(N, 7), rstd: randn(N, 8) };
      const R = Array.from({ length: N }, (_, n) => n).filter((n) => !(n % 3 === 1 || n === 0 || n === N - 1)).length;
      for (const overwrite of [false, true]) {
        // split: the rows with a gradient over 16 (a chunk), or the scan's rows over 64
        await expectSame(inputs, (b, t) => b.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.x, t.w, t.mean, t.rstd, N, C, undefined, overwrite), ['dinp', 'dw', 'db'], R > 16 || N > 64);
      }
      // overwriting is accumulating into zeros, bit for bit, on every thread count
      const zeroed = { ...inputs, dinp: new Float32Array(N * C) };
      for (const b of [one, ...pools]) {
        const want = await run(b, zeroed, (x, t) => x.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.x, t.w, t.mean, t.rstd, N, C), ['dinp', 'dw', 'db']);
        const got = await run(b, inputs, (x, t) => x.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.x, t.w, t.mean, t.rstd, N, C, undefined, true), ['dinp', 'dw', 'db']);
        for (const k of ['dinp', 'dw', 'db']) expectBits(`${k} overwritten on ${b.threads} threads`, got[k], want[k]);
      }
    });
  }

  it('layer norm backward over members (a weight each, an empty member): dinp overwritten, each member\'s dw, db', async () => {
    const [N, C] = [83, 20];
    const dout = randn(N * C, 1);
    for (let n = 0; n < N; n += 4) dout.fill(0, n * C, (n + 1) * C);
    const inputs = { dinp: randn(N * C, 2), dw: randn(3 * C, 3), db: randn(3 * C, 4), dout, x: randn(N * C, 5), w: randn(3 * C, 6), mean: randn(N, 7), rstd: randn(N, 8) };
    await expectSame(inputs, (b, t) => {
      const host = Int32Array.from([0, 70, 70, N]), rs = b.alloc(4, 'i32');
      b.write(rs, host);
      b.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.x, t.w, t.mean, t.rstd, N, C, membersOf(rs, host, C), true);
      b.free(rs);
    }, ['dinp', 'dw', 'db'], true);
  });

  for (const [N, V] of [[9, 5], [37, 13], [70, 30]]) {
    it(`log-prob head forward and backward, ${N} rows of ${V} (rows without a target, zero gradients), temperature 0.7`, async () => {
      const targets = Int32Array.from({ length: N }, (_, n) => (n % 7 === 3 ? -1 : (n * 5) % V));
      const dlogp = randn(N, 3);
      for (let n = 0; n < N; n += 5) dlogp[n] = 0;
      const inputs = { logits: randn(N * V, 1), targets, logp: randn(N, 2), entropy: randn(N, 4), dlogp, dlogits: randn(N * V, 5) };
      await expectSame(inputs, (b, t) => {
        b.logprobForward(t.logp, t.entropy, t.logits, t.targets, N, V, 0.7);
        b.logprobBackward(t.dlogits, t.dlogp, t.logits, t.targets, N, V, 0.7);
      }, ['logp', 'entropy', 'dlogits'], N > 16);
    });
  }

  const hp: AdamWParams = { lr: 3e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 3 };
  for (const n of [4000, 4097, 3 * 4096 + 5]) {
    it(`AdamW over ${n} elements (blocks of 4096 and a tail), lone and as 2 members (one guarded)`, async () => {
      const mask = Float32Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0 : 1));
      const inputs = { p: randn(n, 1), g: randn(n, 2), m: randn(n, 3).map(Math.abs), v: randn(n, 4).map(Math.abs), mask, scale: Float32Array.of(0.5) };
      await expectSame(inputs, (b, t) => b.adamw(t.p, t.g, t.m, t.v, t.mask, t.scale, n, hp), ['p', 'm', 'v'], n > 4096);
      const two = { p: randn(2 * n, 5), g: randn(2 * n, 6), m: randn(2 * n, 7).map(Math.abs), v: randn(2 * n, 8).map(Math.abs), mask,
        scale: Float32Array.of(0.7, -1), lr: Float32Array.of(1e-3, 5e-3), moreLr: Float32Array.of(2e-3, 4e-3) };
      await expectSame(two, (b, t) => {
        b.adamw(t.p, t.g, t.m, t.v, t.mask, t.scale, n, hp, { K: 2, paramStride: n, lr: t.lr });
        b.adamw(t.p, t.g, t.m, t.v, t.mask, t.scale, n, { ...hp, step: 4 }, { K: 2, paramStride: n, lr: t.moreLr });
      }, ['p', 'm', 'v'], n > 4096);
    });
  }
});

describe('on the threads\' shared memory', () => {
  it('zero and copy (in the kernels, not the host\'s fill and set): zeros and the source\'s bits, a view\'s range only', async () => {
    for (const b of [one, ...pools]) {
      const src = randn(300, 1), t = b.alloc(300), dst = b.alloc(320), ints = b.alloc(40, 'i32'), intsTo = b.alloc(40, 'i32');
      b.write(t, src);
      b.zero(b.view(t, 64, 100)); // elements [64, 164)
      const got = (await b.read(t)) as Float32Array;
      expect(Array.from(got.subarray(64, 164))).toEqual(new Array(100).fill(0));
      expectBits('outside the view', Float32Array.of(...got.subarray(0, 64), ...got.subarray(164)), Float32Array.of(...src.subarray(0, 64), ...src.subarray(164)));
      b.write(t, src);
      b.write(dst, new Float32Array(320).fill(7));
      b.copy(dst, t);
      const out = (await b.read(dst)) as Float32Array;
      expectBits('copied', out.slice(0, 300), src);
      expect(Array.from(out.subarray(300))).toEqual(new Array(20).fill(7)); // past the source: untouched
      b.write(ints, Int32Array.from({ length: 40 }, (_, i) => i * 1_000_003 - 7));
      b.copy(intsTo, ints);
      expect(Array.from(await b.read(intsTo))).toEqual(Array.from({ length: 40 }, (_, i) => i * 1_000_003 - 7));
      expect(() => b.copy(t, dst)).toThrow('wasm backend: copy of 320 elements into a tensor of 300');
      for (const x of [t, dst, ints, intsTo]) b.free(x);
    }
  });

  it('the layer norm backward stays on the calling thread on 2 threads (its split makes two passes: no gain there), and splits on 4', async () => {
    const [N, C] = [2944, 64];
    const inputs = { dinp: randn(N * C, 1), dw: randn(C, 2), db: randn(C, 3), dout: randn(N * C, 4), x: randn(N * C, 5), w: randn(C, 6),
      mean: randn(N, 7), rstd: randn(N, 8).map((v) => 1 + Math.abs(v)) };
    const op = (b: Backend, t: Record<string, Tensor>) => b.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.x, t.w, t.mean, t.rstd, N, C, undefined, true);
    const want = await run(one, inputs, op, ['dinp', 'dw', 'db']);
    for (const [threads, splits] of [[2, false], [4, true]] as const) {
      const b = await WasmBackend.start({ threads, threadCallerIdle: true }); // the default threadMinWork
      try {
        const before = b.workerChunks;
        const got = await run(b, inputs, op, ['dinp', 'dw', 'db']);
        expect(b.workerChunks > before, `split on ${threads} threads`).toBe(splits);
        for (const k of ['dinp', 'dw', 'db']) expectBits(`${k} on ${threads} threads`, got[k], want[k]);
      } finally { await b.destroyAndWait(); }
    }
  });
});
