// The embedding backward's sort folded into a training forward (embeddingForward's backwardV: embedding_forward_sort):
// the CPU reference's gradients with one dispatch fewer, bit for bit the unfolded ones, with and without members; and
// the backward's own sort when the tokens were written after the forward (the folded sort is then stale).
// Kernels: shaders/embedding.wgsl (src/gpu/kernels/embedding.ts); CPU twin: src/reference/nn.ts.
import { describe, expect, it } from 'vitest';
import { memberRows, type Backend } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { gpu as gpuOrNull, noGpu, theGpu } from './device';
import { expectClose, runOn, type HostArray } from './parity';
import { Rng } from './random';

interface Case { T: number; C: number; V: number; counts: number[] | null } // counts: rows per member (stacked), or one run

/** Forward (folding the sort when `fold`), optionally new tokens written, then the backward; outputs and dispatches. */
async function run(b: Backend, c: Case, inputs: Record<string, HostArray>, fold: boolean, newTokens?: Int32Array) {
  const { T, C, V } = c, N = inputs.tokens.length, dispatches = () => (b === gpuOrNull ? theGpu().counters.dispatches : 0);
  let used = 0;
  const got = await runOn(b, inputs, (b, t) => {
    const m = c.counts ? memberRows(b, c.counts) : undefined, d0 = dispatches();
    b.embeddingForward(t.out, t.tokens, t.wte, t.wpe, N, T, C, m, fold ? V : undefined);
    if (newTokens) b.write(t.tokens, newTokens);
    b.embeddingBackward(t.dwte, t.dwpe, t.dout, t.tokens, N, T, C, V, m);
    used = dispatches() - d0;
    if (m) b.free(m.rowStart);
  }, ['out', 'dwte', 'dwpe']);
  return { got, used };
}

function inputsOf(c: Case, seed: number): Record<string, HostArray> {
  const r = new Rng(seed), K = c.counts?.length ?? 1, N = c.counts ? c.counts.reduce((a, x) => a + x, 0) : 3 * c.T;
  const { T, C, V } = c;
  return {
    tokens: r.ints(N, 0, V), wte: r.normal(K * V * C), wpe: r.normal(K * T * C), out: r.normal(N * C),
    dout: r.normal(N * C), dwte: r.normal(K * V * C), dwpe: r.normal(K * T * C),
  };
}

async function check(c: Case, seed: number, rewrite: boolean): Promise<void> {
  const gpu = theGpu(), inputs = inputsOf(c, seed), r = new Rng(seed + 1);
  const newTokens = rewrite ? r.ints(inputs.tokens.length, 0, c.V) : undefined;
  // folded first: a skipped or stale sort must not find this very sort left in the scratch by the unfolded run
  const folded = await run(gpu, c, inputs, true, newTokens);
  const plain = await run(gpu, c, inputs, false, newTokens);
  expect(gpu.takeErrors(), 'WebGPU errors').toEqual([]);
  const want = (await run(new CpuBackend('f32'), c, inputs, false, newTokens)).got;
  for (const name of ['out', 'dwte', 'dwpe']) {
    expectClose(name, folded.got[name], want[name]);
    expect(folded.got[name], `${name}: folded vs unfolded, bit for bit`).toEqual(plain.got[name]);
  }
  expect(plain.used).toBe(3); // forward, sort, backward
  expect(folded.used).toBe(rewrite ? 3 : 2); // a stale folded sort: the backward sorts itself
}

const CASES: Case[] = [
  { T: 5, C: 19, V: 11, counts: null },
  { T: 33, C: 8, V: 130, counts: null },
  { T: 150, C: 4, V: 50, counts: null }, // 450 rows: chunks of 2 rows over the workgroup
];
const MEMBER_CASES: Case[] = [
  { T: 5, C: 19, V: 11, counts: [10, 5, 15] },
  { T: 7, C: 8, V: 70, counts: [7, 21] },
];

describe.skipIf(noGpu)('WebGPU embedding: the backward sort folded into the training forward', () => {
  it('the reference gradients with one dispatch fewer', async () => {
    for (const [i, c] of CASES.entries()) await check(c, 100 + i, false);
  });

  it('stacked members: the same', async () => {
    for (const [i, c] of MEMBER_CASES.entries()) await check(c, 200 + i, false);
  });

  it('tokens written between forward and backward: the backward sorts the new tokens itself', async () => {
    for (const [i, c] of [...CASES, ...MEMBER_CASES].entries()) await check(c, 300 + i, true);
  });
});
