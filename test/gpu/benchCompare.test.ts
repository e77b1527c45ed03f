// bench --compare's WebGPU figures in-process at a tiny shape: the dispatch floor, the
// counters per step, % of the floor and GFLOP/s recomputed from their parts, the table.
import { describe, expect, it } from 'vitest';
import { formatCompare, measureCase, measureFloor, type CompareResult } from '../../src/cli/commands/benchCompare';
import { benchPopulation } from '../../src/cli/commands/benchPopulation';
import { noGpu, theGpu } from './device';

describe.skipIf(noGpu)('bench --compare on WebGPU (tiny)', () => {
  it('floor, GPU work per step and their ratio; the table prints them', async () => {
    const b = theGpu();
    const floor = (await measureFloor(b, true))!;
    expect(floor.dispatchesTimed).toBe(200); // one dispatch per trivial GELU
    expect(floor.dispatchUs).toBeGreaterThanOrEqual(0);
    expect(floor.submitMs).toBeGreaterThan(0);
    const c = await measureCase(b, { name: 'tiny', nLayer: 1, nHead: 2, nEmbd: 16, P: 1, G: 2 }, floor, true);
    const w = c.perStep!;
    expect(w.dispatches).toBeGreaterThan(0);
    expect(w.submissions).toBeGreaterThan(0);
    expect(w.readbacks).toBeGreaterThan(0);
    expect(c.floorMs).toBeCloseTo((w.dispatches + w.clears) * floor.dispatchUs / 1000 + w.submissions * floor.submitMs, 9);
    expect(c.pctOfFloor).toBeCloseTo((100 * c.ms) / c.floorMs!, 9);
    expect(c.gflops).toBeCloseTo(c.flops / c.ms / 1e6, 9);
    // the path label follows the rows the forward ran during generation
    expect(c.generation.fedTokens).toBeGreaterThan(0);
    expect(c.generation.path.startsWith('recompute')).toBe(c.generation.forwardRows > 1.5 * c.generation.fedTokens);
    const r: CompareResult = { backend: 'webgpu', device: 'test', floor, cases: [c], batchRatio: null, limit: null, torch: { available: false, reason: 'not asked', results: [] } };
    const out = formatCompare(r);
    const row = out.split('\n').find((l) => l.startsWith('tiny'))!;
    expect(row).toContain(`${(c.pctOfFloor!).toFixed(0)}%`);
    expect(row.split(/ {2,}/)[11]).toBe(w.dispatches.toFixed(0));
    expect(row.split(/ {2,}/)[12]).toBe(w.clears.toFixed(0)); // zeroing dispatches, apart
    expect(w.clears).toBeGreaterThan(0); // the backward zeroes its scratch
    expect(out).toMatch(/^PyTorch: not compared \(not asked\)$/m);
  }, 600_000);

  it('the population case is one stacked population: dispatches per step at K = 4 equal K = 2\'s, submissions K = 1\'s; one readback per minibatch at every K', async () => {
    const pop = await benchPopulation(theGpu(), true);
    expect(pop.how).toMatch(/one stacked population/);
    expect(pop.rows.map((x) => x.K)).toEqual([1, 2, 4]);
    const one = pop.rows[0].perStep!;
    expect(one.dispatches).toBeGreaterThan(0);
    const two = pop.rows[1].perStep!;
    // a lone run (K = 1) reduces its minibatch stats on the device, a population on the host; both inside policy_loss's
    // one dispatch a minibatch
    expect(one.dispatches).toBe(two.dispatches);
    for (const x of pop.rows) {
      if (x.K > 1) expect(x.perStep!.dispatches, `K = ${x.K} dispatches`).toBe(two.dispatches);
      expect(x.perStep!.submissions, `K = ${x.K} submissions`).toBe(one.submissions);
      expect(x.perStep!.readbacksPerMinibatch, `K = ${x.K} readbacks per minibatch`).toBe(1);
    }
  }, 600_000);
});
