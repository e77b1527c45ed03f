// The threaded CPU engine (src/simd/threads.ts, shaders/simd/threads.ts): the matmul family, attention
// (by sequence) and the GELU backward (by fixed blocks) split over worker threads on a shared memory equals the one-thread engine bit for bit at 1, 2 and 3
// threads (and the reference within the twin tolerance); training steps give the same weights on
// 1 and 2 threads; bad options are named; destroyed pools stop their workers (vitest exits).
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend, Tensor } from '../../src/backend';
import { membersOf } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { GPT } from '../../src/model/gpt';
import { AdamW } from '../../src/model/optimizer';
import type { GPTConfig } from '../../src/model/params';
import { PolicyObjective } from '../../src/rl/objective';
import { randomPolicyBatch } from '../../src/rl/randomBatch';
import { expectClose, randn } from './twin';
import { cpuEngine, wasmThreads } from '../../src/cli/io';
import { gspo, ROOT } from '../cli/run';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { KERNELS_THREADS_FMA_WASM_BASE64 } from '../../src/simd/kernelsThreadsFma.wasm';

const one = new WasmBackend({ variant: 'simd' });
// threadMinWork 0: even the small shapes are split; threadCallerIdle: every chunk runs in a worker (else the caller, done
// with a small op before a worker wakes, would run them all and the comparison would test nothing)
const pools = [1, 2, 3].map((threads) => new WasmBackend({ threads, threadMinWork: 0, threadCallerIdle: threads > 1 }));
const ref = new CpuBackend();
afterAll(() => { for (const b of pools) b.destroy(); });

// [N, IC, OC]: rows and features not multiples of the 16-row chunk (nor of 2 or 4: every kernel tail), one chunk, many
const SHAPES: [number, number, number][] = [[1, 3, 5], [17, 13, 9], [37, 33, 35], [50, 64, 47], [16, 8, 16], [67, 40, 130]];

type Host = Record<string, Float32Array>;
/** Runs op on backend b over copies of inputs; the named outputs, as read back. */
async function run(b: Backend, inputs: Host, op: (b: Backend, t: Record<string, Tensor>) => void, outs: string[]): Promise<Host> {
  const t: Record<string, Tensor> = {};
  for (const [k, v] of Object.entries(inputs)) { t[k] = b.alloc(v.length); b.write(t[k], v); }
  op(b, t);
  const got: Host = {};
  for (const k of outs) got[k] = (await b.read(t[k])) as Float32Array;
  for (const x of Object.values(t)) b.free(x);
  return got;
}

/** Bit-for-bit equality, with the first differing index in the message. */
function expectBits(label: string, got: Float32Array, want: Float32Array): void {
  expect(got.length).toBe(want.length);
  const g = new Uint32Array(got.buffer, got.byteOffset, got.length), w = new Uint32Array(want.buffer, want.byteOffset, want.length);
  let bad = -1;
  for (let i = 0; i < g.length && bad < 0; i++) if (g[i] !== w[i]) bad = i;
  expect(bad, `${label}: first differing element ${bad} (${got[bad]} vs ${want[bad]})`).toBe(-1);
}

/** dout with masked (all-zero) rows, which the backward skips: the listed rows are not 0..N-1. */
function dout(N: number, OC: number, seed: number): Float32Array {
  const d = randn(N * OC, seed);
  for (let n = 1; n < N; n += 4) d.fill(0, n * OC, (n + 1) * OC);
  return d;
}

/** dout's masked rows as dout's, and its first and last rows masked too (the skipped rows at both ends). */
function doutEnds(N: number, OC: number, seed: number): Float32Array {
  const d = dout(N, OC, seed);
  d.fill(0, 0, OC);
  d.fill(0, (N - 1) * OC, N * OC);
  return d;
}

/**
 * An op's overwrite mode against its accumulating mode on a zeroed output (`out`), on the one-thread engine and
 * every pool: the same bits (so -0 sums too come out as a zeroed output's 0 + -0 = +0).
 */
async function expectOverwrite(inputs: Host, out: string, op: (b: Backend, t: Record<string, Tensor>, overwrite: boolean) => void, outs: string[]): Promise<void> {
  const zeroed = { ...inputs, [out]: new Float32Array(inputs[out].length) };
  for (const b of [one, ...pools]) {
    const want = await run(b, zeroed, (x, t) => op(x, t, false), outs);
    const got = await run(b, inputs, (x, t) => op(x, t, true), outs);
    for (const k of outs) expectBits(`${k}, overwritten, on ${b === one ? 'the one-thread engine' : `${b.threads} threads`}`, got[k], want[k]);
  }
}

/** splits: the op is split over the workers (a forward of at most one chunk of rows runs on the calling thread). */
async function expectSame(inputs: Host, op: (b: Backend, t: Record<string, Tensor>) => void, outs: string[], K: number, splits = true): Promise<void> {
  const want = await run(one, inputs, op, outs);
  const oracle = await run(ref, inputs, op, outs);
  for (const k of outs) expectClose(`${k} vs reference`, Float64Array.from(want[k]), Float64Array.from(oracle[k]), { rtol: 1e-5, atol: 2e-7 * K + 1e-6 });
  for (const b of pools) {
    const before = b.workerChunks;
    const got = await run(b, inputs, op, outs);
    if (b.threads > 1) expect(b.workerChunks > before, 'chunks run by workers').toBe(splits);
    for (const k of outs) expectBits(`${k} on ${b.threads} threads`, got[k], want[k]);
  }
}

describe('threaded matmul family equals one thread bit for bit (1, 2, 3 threads)', () => {
  for (const [N, IC, OC] of SHAPES) {
    it(`${N}x${IC}x${OC}: forward (bias, residual, gelu), backward (dinp, dweight, dbias)`, async () => {
      const fwd = { out: randn(N * OC, 1), pre: randn(N * OC, 2), inp: randn(N * IC, 3), w: randn(OC * IC, 4, 0.5), bias: randn(OC, 5), res: randn(N * OC, 6) };
      await expectSame(fwd, (b, t) => b.matmulForward(t.out, t.inp, t.w, t.bias, N, IC, OC), ['out'], IC, N > 16);
      await expectSame(fwd, (b, t) => b.matmulResidualForward(t.out, t.inp, t.w, null, t.res, N, IC, OC), ['out'], IC, N > 16);
      await expectSame(fwd, (b, t) => b.matmulGeluForward(t.pre, t.out, t.inp, t.w, t.bias, N, IC, OC), ['pre', 'out'], IC, N > 16);
      const bwd = { dinp: randn(N * IC, 7), dw: randn(OC * IC, 8), db: randn(OC, 9), dout: dout(N, OC, 10), inp: randn(N * IC, 11), w: randn(OC * IC, 12) };
      await expectSame(bwd, (b, t) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC), ['dinp', 'dw', 'db'], Math.max(N, OC));
      // overwriting dinp: its old values are gone, the skipped rows (the first and last among them) are zeros
      const over = { ...bwd, dout: doutEnds(N, OC, 13) };
      await expectSame(over, (b, t) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC, undefined, true), ['dinp', 'dw', 'db'], Math.max(N, OC), N > 2);
      await expectOverwrite(over, 'dinp', (b, t, o) => b.matmulBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC, undefined, o), ['dinp', 'dw', 'db']);
    });
  }
  it('members (a weight per member, an empty member): forward and backward', async () => {
    const [N, IC, OC] = [41, 24, 37];
    const withMembers = (f: (b: Backend, t: Record<string, Tensor>, m: ReturnType<typeof membersOf>) => void) => (b: Backend, t: Record<string, Tensor>) => {
      const host = Int32Array.from([0, 19, 19, N]), rs = b.alloc(4, 'i32');
      b.write(rs, host);
      f(b, t, membersOf(rs, host, OC * IC));
      b.free(rs);
    };
    const inputs = { out: randn(N * OC, 1), inp: randn(N * IC, 2), w: randn(3 * OC * IC, 3, 0.5), bias: randn(3 * OC * IC, 4),
      dinp: randn(N * IC, 5), dw: randn(3 * OC * IC, 6), dout: dout(N, OC, 7) };
    await expectSame(inputs, withMembers((b, t, m) => b.matmulForward(t.out, t.inp, t.w, null, N, IC, OC, m)), ['out'], IC);
    await expectSame(inputs, withMembers((b, t, m) => b.matmulBackward(t.dinp, t.dw, null, t.dout, t.inp, t.w, N, IC, OC, m)), ['dinp', 'dw'], N);
  });
});

describe('threaded attention and GELU backward equal one thread bit for bit (1, 2, 3 threads)', () => {
  // [B, T, C, NH]: head sizes 4, 5 and 3 (the kernels' vector part and tails), one sequence (not split) and several;
  // 37 short sequences: chunks of several sequences (4 at 2 threads, 3 at 3), the last one short
  const SHAPES_ATT: [number, number, number, number][] = [[1, 6, 8, 2], [3, 7, 10, 2], [5, 9, 12, 4], [4, 13, 16, 4], [37, 5, 8, 2]];
  for (const [B, T, C, NH] of SHAPES_ATT) {
    it(`B${B} T${T} C${C} NH${NH}: forward, backward (dqkv accumulated), decode`, async () => {
      const inputs = { out: randn(B * T * C, 1), att: randn(B * NH * T * T, 2), qkv: randn(B * T * 3 * C, 3), dqkv: randn(B * T * 3 * C, 4),
        dpre: randn(B * NH * T * T, 5), dout: randn(B * T * C, 6) };
      await expectSame(inputs, (b, t) => b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH), ['out', 'att'], T, B > 1);
      // the backward reads att as the forward wrote it
      await expectSame(inputs, (b, t) => { b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH); b.attentionBackward(t.dqkv, t.dpre, t.dout, t.qkv, t.att, B, T, C, NH); },
        ['dqkv', 'dpre'], T * C, B > 1);
      // dqkv overwritten: every element gets its one sum, none of dqkv's old values
      const both = (o: boolean) => (b: Backend, t: Record<string, Tensor>) => { b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH); b.attentionBackward(t.dqkv, t.dpre, t.dout, t.qkv, t.att, B, T, C, NH, o); };
      await expectSame(inputs, both(true), ['dqkv', 'dpre'], T * C, B > 1);
      await expectOverwrite(inputs, 'dqkv', (b, t, o) => both(o)(b, t), ['dqkv', 'dpre']);
      // decode: sequence b's new row goes to position pos[b] (every position 1..T over the sequences)
      const pos = Int32Array.from({ length: B }, (_, b) => 1 + ((b * 5) % T));
      const withPos = (f: (b: Backend, t: Record<string, Tensor>, p: Tensor) => void) => (b: Backend, t: Record<string, Tensor>) => {
        const p = b.alloc(B, 'i32');
        b.write(p, pos);
        f(b, t, p);
        b.free(p);
      };
      const dec = { out: randn(B * C, 7), cache: randn(B * T * 3 * C, 8), fresh: randn(B * 3 * C, 9) };
      await expectSame(dec, withPos((b, t, p) => b.attentionDecode(t.out, t.cache, t.fresh, p, B, T, C, NH)), ['out', 'cache'], T, B > 1);
    });
  }
  for (const n of [4096, 4097, 3 * 4096 + 5, 10_003]) {
    it(`GELU backward over ${n} elements (chunks of 4096 and a tail)`, async () => {
      await expectSame({ dinp: randn(n, 1), inp: randn(n, 2), dout: randn(n, 3) }, (b, t) => b.geluBackward(t.dinp, t.inp, t.dout, n), ['dinp'], 1, n > 4096);
    });
  }
  // the engine's matmulGeluBackward writes its outputs (dinpScratch, then dpre through the GELU backward's overwrite)
  for (const [N, IC, OC] of [[37, 33, 35], [67, 130, 40]] as const) {
    it(`matmul + GELU backward ${N}x${IC}x${OC}: dpre and the scratch overwritten, whatever they held`, async () => {
      const inputs = { dpre: randn(N * IC, 1), scratch: randn(N * IC, 2), dw: randn(OC * IC, 3), db: randn(OC, 4), dout: doutEnds(N, OC, 5), inp: randn(N * IC, 6),
        pre: randn(N * IC, 7), w: randn(OC * IC, 8) };
      const op = (b: Backend, t: Record<string, Tensor>) => b.matmulGeluBackward(t.dpre, t.scratch, t.dw, t.db, t.dout, t.inp, t.pre, t.w, N, IC, OC);
      await expectSame(inputs, op, ['dpre', 'scratch', 'dw', 'db'], Math.max(N, OC));
      // against the composition on zeroed outputs (matmulBackward accumulating, then the GELU backward accumulating)
      const zeroed = { ...inputs, dpre: new Float32Array(N * IC), scratch: new Float32Array(N * IC) };
      const composed = await run(one, zeroed, (b, t) => { b.matmulBackward(t.scratch, t.dw, t.db, t.dout, t.inp, t.w, N, IC, OC); b.geluBackward(t.dpre, t.pre, t.scratch, N * IC); }, ['dpre', 'dw', 'db']);
      const got = await run(one, inputs, op, ['dpre', 'dw', 'db']);
      for (const k of ['dpre', 'dw', 'db']) expectBits(k, got[k], composed[k]);
    });
  }
});

describe('copies on threads', () => {
  for (const repeat of [1, 3]) {
    it(`copyRows of 150 rows by chunks of 64 (repeat ${repeat}) equals one thread`, async () => {
      const [rows, width, dstStride, srcStride] = [150, 13, 21, 15];
      await expectSame({ dst: randn(rows * dstStride, 1), src: randn(Math.ceil(rows / repeat) * srcStride, 2) },
        (b, t) => b.copyRows(t.dst, t.src, rows, width, dstStride, srcStride, repeat), ['dst'], 1);
    });
  }
});

describe('hand-offs', () => {
  it('workers that sleep between ops (no spin) and wake late never run a chunk with another op\'s arguments: 1,500 ops back to back', async () => {
    // threadSpin 0: a worker sleeps as soon as it is idle, so it often wakes after the caller has claimed every chunk
    // and moved on; a chunk run with a later op's arguments would write a row of the wrong output
    const b = new WasmBackend({ threads: 3, threadMinWork: 0, threadSpin: 0 });
    try {
      const [N, K, M] = [40, 8, 12], w = b.alloc(M * K), x = [b.alloc(N * K), b.alloc(N * K)], out = [b.alloc(N * M), b.alloc(N * M)];
      b.write(w, randn(M * K, 1));
      b.write(x[0], randn(N * K, 2));
      b.write(x[1], randn(N * K, 3));
      const want = await Promise.all([0, 1].map(async (i) => {
        const o = one.alloc(N * M), xi = one.alloc(N * K), wi = one.alloc(M * K);
        one.write(xi, randn(N * K, 2 + i));
        one.write(wi, randn(M * K, 1));
        one.matmulForward(o, xi, wi, null, N, K, M);
        return (await one.read(o)) as Float32Array;
      }));
      for (let r = 0; r < 750; r++) {
        for (const i of [0, 1]) b.zero(out[i]);
        b.matmulForward(out[0], x[0], w, null, N, K, M);
        b.matmulForward(out[1], x[1], w, null, N, K, M);
        if (r % 50 === 0 || r === 749) for (const i of [0, 1]) expectBits(`output ${i}, round ${r}`, (await b.read(out[i])) as Float32Array, want[i]);
      }
      expect(b.workerChunks).toBeGreaterThan(0);
    } finally { b.destroy(); }
  });
});

describe('ranges', () => {
  // An op's chunks are cut into one range per thread, each thread taking its own first, then what is left of the
  // others (threadControl.ts). The backward accumulates into dinp and dw, so a chunk run twice or never changes them.
  // caller idle: its range is taken by the workers, and the workers surely run chunks (a busy caller may run them all)
  const pools2 = [{ threads: 2, callerIdle: true }, { threads: 3, callerIdle: false }, { threads: 3, callerIdle: true }, { threads: 5, callerIdle: true }];
  for (const { threads, callerIdle } of pools2) {
    it(`${threads} threads${callerIdle ? ', the caller idle' : ''}: every chunk once, for 2 to 9 chunks (ranges of 0, 1 or more)`, async () => {
      const b = new WasmBackend({ threads, threadMinWork: 0, threadCallerIdle: callerIdle });
      try {
        for (const [N, IC, OC] of [[1, 8, 5], [17, 8, 5], [20, 8, 33], [33, 8, 20], [49, 8, 40], [70, 8, 40]]) {
          const inputs = { dinp: randn(N * IC, 1), dw: randn(OC * IC, 2), dout: dout(N, OC, 3), inp: randn(N * IC, 4), w: randn(OC * IC, 5) };
          const op = (x: Backend, t: Record<string, Tensor>) => x.matmulBackward(t.dinp, t.dw, null, t.dout, t.inp, t.w, N, IC, OC);
          const want = await run(one, inputs, op, ['dinp', 'dw']), got = await run(b, inputs, op, ['dinp', 'dw']);
          for (const k of ['dinp', 'dw']) expectBits(`${N}x${IC}x${OC} ${k}`, got[k] as Float32Array, want[k] as Float32Array);
        }
        if (callerIdle) expect(b.workerChunks).toBeGreaterThan(0);
      } finally { b.destroy(); }
    });
  }
});

describe('training on threads', () => {
  const CONFIG: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 32, blockSize: 11, vocabSize: 13 };
  async function train(b: Backend): Promise<{ init: Float32Array; params: Float32Array }> {
    const model = new GPT(b, CONFIG, undefined, 4), obj = new PolicyObjective(b);
    const init = (await b.read(model.params)) as Float32Array;
    const opt = new AdamW(b, model, { lr: 3e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, gradClip: 0.5 });
    for (let k = 0; k < 3; k++) {
      const mb = randomPolicyBatch({ vocabSize: CONFIG.vocabSize, S: 12, T: CONFIG.blockSize - 1, groupSize: 3, maskFrom: 3, oldLogpNoise: 0.3, seed: 100 + k });
      model.zeroGrad();
      obj.record(model, mb, { algorithm: 'gspo', epsLow: 3e-4, epsHigh: 4e-4, beta: 0, advantage: 'group', temperature: 1 });
      opt.measure();
      opt.apply();
      b.submit();
    }
    const params = (await b.read(model.params)) as Float32Array;
    obj.destroy(); opt.destroy(); model.destroy();
    return { init, params };
  }
  it('3 GSPO steps: the same weights bit for bit on 1 and 2 threads (and on the one-thread engine)', async () => {
    const two = new WasmBackend({ threads: 2, threadMinWork: 0, threadCallerIdle: true }), single = new WasmBackend({ threads: 1 });
    try {
      const want = await train(single), got = await train(two);
      expectBits('initial weights', got.init, want.init);
      expect(want.params.some((x, i) => Math.abs(x - want.init[i]) > 1e-3)).toBe(true); // the steps moved the weights
      expectBits('weights after 3 steps', got.params, want.params);
      expect(two.workerChunks).toBeGreaterThan(100);
    } finally { two.destroy(); single.destroy(); }
    // threads that sleep at once between ops (no polling first) hand out the same chunks: the same weights
    const sleepy = new WasmBackend({ threads: 2, threadMinWork: 0, threadSpin: 0 }), one = new WasmBackend({ threads: 1 });
    try {
      expectBits('weights after 3 steps, threadSpin 0', (await train(sleepy)).params, (await train(one)).params);
    } finally { sleepy.destroy(); one.destroy(); }
  });
  it('WasmBackend.start (the page\'s asynchronous start-up, here on Node\'s threads): the same weights, chunks on the workers', async () => {
    const two = await WasmBackend.start({ threads: 2, threadMinWork: 0, threadCallerIdle: true }), single = await WasmBackend.start({ threads: 1 });
    try {
      expect([two.threads, single.threads]).toEqual([2, 1]);
      const want = await train(single), got = await train(two);
      expectBits('weights after 3 steps', got.params, want.params);
      expect(two.workerChunks).toBeGreaterThan(100);
    } finally { await two.destroyAndWait(); single.destroy(); }
  });
});

describe('the relaxed-simd build on threads', () => {
  // Node 20 validates relaxed-simd only with a flag: a child Node started with it (V8 flags are the process's, its threads' too)
  it('matmuls forward and backward on 2 threads equal the one-thread fused engine bit for bit', () => {
    const code = `const { WasmBackend } = await import(${JSON.stringify(join(ROOT, 'src/simd/wasmBackend.ts'))});
      const one = new WasmBackend({ variant: 'fma' }), two = new WasmBackend({ threads: 2, variant: 'fma', threadMinWork: 0, threadCallerIdle: true });
      const N = 67, K = 40, M = 130; let s = 7; const r = (n) => Array.from({ length: n }, () => ((s = (s * 16807) % 2147483647) / 2147483647) - 0.5);
      const inp = r(N * K), w = r(M * K), dout = r(N * M), outs = [];
      for (const b of [one, two]) {
        const t = (d) => { const x = b.alloc(d.length); b.write(x, d); return x; };
        const ti = t(inp), tw = t(w), to = b.alloc(N * M), td = t(dout), di = b.alloc(N * K), dw = b.alloc(M * K);
        b.matmulForward(to, ti, tw, null, N, K, M);
        b.matmulBackward(di, dw, null, td, ti, tw, N, K, M);
        outs.push([...(await b.read(to)), ...(await b.read(di)), ...(await b.read(dw))]);
      }
      const bits = (a) => Buffer.from(new Float32Array(a).buffer).toString('hex');
      console.log(JSON.stringify({ variants: [one.variant, two.variant], same: bits(outs[0]) === bits(outs[1]), chunks: two.workerChunks }));
      two.destroy();`;
    const r = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { variants: string[]; same: boolean; chunks: number };
    expect(got.variants).toEqual(['fma', 'fma']);
    expect(got.chunks).toBeGreaterThan(0);
    expect(got.same).toBe(true);
  }, 70_000);
});

describe('options and shutdown', () => {
  it('a bad thread count names the option', () => {
    for (const bad of [0, -1, 1.5, 65, Number.NaN]) expect(() => new WasmBackend({ threads: bad })).toThrow(/threads must be an integer from 1 to 64/);
    // the threaded relaxed-simd build needs an engine that validates it (Node 20: a flag; the page's Chromium: yes, tested in test/e2e/cpuThreads.test.ts)
    if (!WebAssembly.validate(Buffer.from(KERNELS_THREADS_FMA_WASM_BASE64, 'base64'))) expect(() => new WasmBackend({ threads: 2, variant: 'fma' })).toThrow(/does not validate the threaded relaxed-simd build/);
    expect(() => new WasmBackend({ threads: 2, threadMinWork: -1 })).toThrow(/threadMinWork must be a number >= 0, got -1/);
    for (const bad of [-1, 0.5, Number.NaN]) expect(() => new WasmBackend({ threads: 2, threadSpin: bad })).toThrow(/threadSpin must be an integer >= 0, got/);
    return Promise.all([
      expect(WasmBackend.start({ threads: 65 })).rejects.toThrow(/threads must be an integer from 1 to 64/),
      expect(WasmBackend.start({ threads: 2, threadMinWork: -1 })).rejects.toThrow(/threadMinWork must be a number >= 0, got -1/),
    ]);
  });
  it('a destroyed backend refuses a split op; its workers exit', async () => {
    const b = new WasmBackend({ threads: 3, threadMinWork: 0, threadCallerIdle: true });
    const t = b.alloc(64 * 64);
    b.matmulForward(t, t, t, null, 32, 64, 64); // runs on the workers
    expect(b.workerChunks).toBe(2);
    b.destroy();
    b.destroy(); // twice is harmless
    await b.destroyAndWait(); // resolves: every worker exited
    expect(() => b.matmulForward(t, t, t, null, 32, 64, 64)).toThrow(/thread pool was shut down/);
  });
  it('a process that never destroys its threaded backend still exits', () => {
    const code = `const { WasmBackend } = await import(${JSON.stringify(join(ROOT, 'src/simd/wasmBackend.ts'))});
      const b = new WasmBackend({ threads: 2, threadMinWork: 0 }); const t = b.alloc(4096);
      b.matmulForward(t, t, t, null, 32, 64, 64); console.log('ran');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.error, 'the child did not exit within 60 s').toBeUndefined();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('ran');
  }, 70_000);
});

describe('GSPO_THREADS (the CLI\'s --backend cpu)', () => {
  it('sets the thread count (unset: every core, at most 8); a bad value names the variable', () => {
    expect(wasmThreads({}, 2)).toBe(2);
    expect(wasmThreads({}, 1)).toBe(1);
    expect(wasmThreads({ GSPO_THREADS: '' }, 16)).toBe(8);
    expect(wasmThreads({ GSPO_THREADS: '3' }, 2)).toBe(3);
    for (const bad of ['0', '-2', '1.5', 'two', '65']) expect(() => wasmThreads({ GSPO_THREADS: bad })).toThrow(`GSPO_THREADS (or --threads) must be an integer from 1 to 64, got "${bad}"`);
    const b = cpuEngine('wasm', { GSPO_THREADS: '2' }) as WasmBackend;
    expect(b.threads).toBe(2);
    b.destroy();
    expect((cpuEngine('wasm', { GSPO_THREADS: '1' }) as WasmBackend).threads).toBe(1);
  });
  it('a CLI run on 2 threads prints what 1 thread prints; GSPO_THREADS=0 exits with the message', () => {
    const args = ['logprobs', '--checkpoint', join(ROOT, 'public/checkpoints/relay-warm.safetensors'), '--tokens', '1,5,7,2,3,9', '--backend', 'cpu'];
    const one = gspo(args, { GSPO_THREADS: '1' }), two = gspo(args, { GSPO_THREADS: '2' }), bad = gspo(args, { GSPO_THREADS: '0' });
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toBe(one.stdout);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('GSPO_THREADS (or --threads) must be an integer from 1 to 64, got "0"');
  }, 120_000);
});
