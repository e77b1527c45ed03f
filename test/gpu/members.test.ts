// The WGSL member ops (a population's K runs stacked, one set of dispatches) against
// the CPU member ops (test/reference/members.test.ts holds those to each member's lone
// run), to float tolerance:
// - K = 3 members owning 5, 0 and 7 rows, IC 13, OC 11, parameters packed and at a
//   flat-vector stride (one buffer per parameter group, its views overlapping as a
//   stacked model's do), in the layouts this adapter gets and in the ones a GPU gets
//   (forced: lanes per row, matmul plans for 256 workgroups);
// - a few hundred rows per member, where a GPU's plans split the weight gradient's K,
//   chunk the bias and LayerNorm column sums, and leave a member's tiles idle;
// - K = 16: the same number of dispatches as K = 1 and as today's op (and K = 1 today's bits),
//   also where a GPU's plan splits the weight gradient's K.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forceMatmulTarget } from '../../src/gpu/kernels/matmul';
import { planMatmul, TARGET_GROUPS } from '../../src/gpu/kernels/matmulPlan';
import { forceRowMode } from '../../src/gpu/kernels/rows';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { alone, hostInputs, IC, memberCases, OC, stacked, type MemberCase } from '../reference/memberCases';
import { noGpu, theGpu } from './device';
import { expectClose, type Tolerance } from './parity';

const PARAM_STRIDE = 256;
// Sums of up to a few hundred unit-normal products (the weight gradient over a member's rows):
// an absolute floor that grows with sqrt(terms) * f32 epsilon, as nn.test.ts's matmul.
const tolFor = (terms: number): Tolerance => ({ rtol: 1e-4, atol: 2e-5 * Math.sqrt(Math.max(13, terms)) });

async function expectGpuMatchesCpu(c: MemberCase, stride?: number, seed = 3): Promise<void> {
  const host = hostInputs(c, seed, stride);
  const got = await stacked(theGpu(), c, host, stride);
  expect(theGpu().takeErrors(), 'WebGPU errors').toEqual([]);
  const want = await stacked(new CpuBackend('f32'), c, host, stride);
  const tol = tolFor(Math.max(...c.counts));
  for (const name of c.outputs) expectClose(`${c.name}: ${name}`, got[name], want[name], tol);
}

/** The dispatches recorded by one stacked run of the case. */
async function dispatchesOf(c: MemberCase, run: () => Promise<unknown>): Promise<number> {
  const before = theGpu().counters.dispatches;
  await run();
  expect(theGpu().takeErrors(), `${c.name}: WebGPU errors`).toEqual([]);
  return theGpu().counters.dispatches - before;
}

function suite(layout: 'adapter' | 'gpu'): void {
  describe.skipIf(noGpu)(`WebGPU member ops vs the CPU member ops, ${layout === 'gpu' ? 'GPU layouts (forced)' : 'this adapter\'s layouts'}`, () => {
    if (layout === 'gpu') {
      beforeAll(() => { forceRowMode('lanes'); forceMatmulTarget(TARGET_GROUPS); });
      afterAll(() => { forceRowMode(null); forceMatmulTarget(null); });
    }

    for (const c of memberCases()) {
      it(`${c.name}: K = 3, rows 5, 0, 7, parameters packed`, () => expectGpuMatchesCpu(c));
      it(`${c.name}: parameters at a flat-vector stride`, () => expectGpuMatchesCpu(c, PARAM_STRIDE));
    }

    it('hundreds of rows per member (split-K weight gradient, chunked column sums, idle tiles of the smaller member)', async () => {
      const big = memberCases([260, 0, 389]).filter((c) => /matmulBackward with bias|matmulResidualForward|layernorm/.test(c.name));
      expect(big.length).toBe(3);
      for (const c of big) await expectGpuMatchesCpu(c, undefined, 9);
    });

    it('K = 16 members at a split-K weight gradient (hundreds of rows each): the dispatches of K = 1', async () => {
      const pick = (cs: MemberCase[]) => cs.find((c) => c.name.startsWith('matmulBackward with bias'))!;
      const c1 = pick(memberCases([389])), c16 = pick(memberCases(Array.from({ length: 16 }, (_, k) => 300 + 7 * k)));
      const one = await dispatchesOf(c1, () => stacked(theGpu(), c1, hostInputs(c1, 4)));
      let got16: Record<string, Float64Array> = {};
      const host16 = hostInputs(c16, 5);
      const sixteen = await dispatchesOf(c16, async () => { got16 = await stacked(theGpu(), c16, host16); });
      expect(sixteen).toBe(one);
      // in the GPU layouts the weight gradient [OC, IC] over 389 rows is split (its sum a dispatch of its own)
      if (layout === 'gpu') expect(planMatmul(OC, IC, 389, TARGET_GROUPS).splits).toBeGreaterThan(1);
      const want16 = await stacked(new CpuBackend('f32'), c16, host16);
      for (const name of c16.outputs) expectClose(`${name} (K = 16)`, got16[name], want16[name], tolFor(405));
    });

    it('K = 16 members: as many dispatches as K = 1 and as today\'s op, and the numbers of the CPU member ops', async () => {
      const counts16 = Array.from({ length: 16 }, (_, k) => [3, 0, 2, 5][k % 4]);
      const cases16 = memberCases(counts16, counts16.map((n) => n % 3));
      const cases1 = memberCases([3], [2]);
      for (let i = 0; i < cases16.length; i++) {
        const [c16, c1] = [cases16[i], cases1[i]];
        const host16 = hostInputs(c16, 21), host1 = hostInputs(c1, 21);
        let today1: Record<string, Float64Array> = {}, one1: Record<string, Float64Array> = {};
        const today = await dispatchesOf(c1, async () => { today1 = await alone(theGpu(), c1, host1); });
        const one = await dispatchesOf(c1, async () => { one1 = await stacked(theGpu(), c1, host1); });
        // one member is today's op on the device too: the same plans and sums, so the same bits
        for (const name of c1.outputs) expect(one1[name], `${c1.name}: ${name} (K = 1 vs today's op)`).toEqual(today1[name]);
        let got16: Record<string, Float64Array> = {};
        const sixteen = await dispatchesOf(c16, async () => { got16 = await stacked(theGpu(), c16, host16); });
        expect([one, sixteen], `${c16.name}: dispatches at K = 1 and K = 16 (today's op: ${today})`).toEqual([today, today]);
        expect(today, c16.name).toBeGreaterThan(0);
        const want16 = await stacked(new CpuBackend('f32'), c16, host16);
        for (const name of c16.outputs) expectClose(`${c16.name}: ${name} (K = 16)`, got16[name], want16[name], tolFor(13));
      }
    });
  });
}

suite('adapter');
suite('gpu');
