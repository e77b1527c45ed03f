// The matmul launch plan (src/gpu/kernels/matmulPlan.ts): pure, no GPU. Its
// invariants over many shapes, and enough workgroups at the model's shapes.
import { describe, expect, it } from 'vitest';
import { BK, groupsOf, MAX_SCRATCH, planBackward, planMatmul, planMembers } from '../../src/gpu/kernels/matmulPlan';

const SIDES = [1, 2, 3, 15, 16, 17, 31, 33, 64, 65, 100, 192, 256, 768, 1000, 3072, 12288];

describe('planMatmul', () => {
  it('tiles the output, covers K exactly with non-empty slices, bounds scratch', () => {
    for (const M of SIDES) for (const N of SIDES) for (const K of [1, 15, 16, 17, 64, 100, 256, 300, 1000, 3072, 12288]) {
      const p = planMatmul(M, N, K);
      const at = `${M}x${N}x${K}`;
      expect([16, 32, 64], at).toContain(p.tm);
      expect([16, 32, 64], at).toContain(p.tn);
      expect(p.grid, at).toEqual([Math.ceil(N / p.tn), Math.ceil(M / p.tm), p.splits]);
      expect(p.kSlice % BK, at).toBe(0);
      expect(p.splits * p.kSlice, at).toBeGreaterThanOrEqual(K); // the slices cover K ...
      expect((p.splits - 1) * p.kSlice, at).toBeLessThan(K); // ... and the last one is not empty
      // A tile no wider than the output needs (rounded to 16, 32, 64).
      expect(p.tm, at).toBeLessThanOrEqual(Math.max(16, 2 ** Math.ceil(Math.log2(M))));
      expect(p.tn, at).toBeLessThanOrEqual(Math.max(16, 2 ** Math.ceil(Math.log2(N))));
      if (p.splits > 1) {
        expect(p.splits * M * N * 4, `${at}: scratch bytes`).toBeLessThanOrEqual(16 * 2 ** 20);
        expect(p.kSlice, `${at}: slice long enough to be worth its partial tile`).toBeGreaterThanOrEqual(128);
        expect(2 * p.splits * M * N, `${at}: partials' traffic`).toBeLessThanOrEqual((M + N) * K);
      }
    }
  });

  it('K = 0 and empty outputs give one slice', () => {
    expect(planMatmul(5, 7, 0).splits).toBe(1);
    expect(groupsOf(planMatmul(0, 7, 100))).toBe(0);
  });

  // The page's models: C = 64 .. 256, rows N = B*T from a few thousand up (training).
  // Linear(IC -> OC) over N rows: forward [N,OC] over K = IC, dinp [N,IC] over OC, dweight [OC,IC] over N.
  const linears = (C: number, V: number) => [[C, 3 * C], [C, C], [C, 4 * C], [4 * C, C], [C, V]];
  it('gives >= 256 workgroups for every product of the 8x8x256 model at 2048 and 12288 rows, and at 3072x64x256', () => {
    const shapes: number[][] = [[3072, 64, 256]];
    for (const N of [2048, 12288]) for (const [IC, OC] of linears(256, 64)) shapes.push([N, IC, OC]);
    for (const [N, IC, OC] of shapes) {
      for (const [name, [M, Nout, K]] of [['forward', [N, OC, IC]], ['dinp', [N, IC, OC]], ['dweight', [OC, IC, N]]] as const) {
        expect(groupsOf(planMatmul(M, Nout, K)), `${name} of ${N}x${IC}x${OC}`).toBeGreaterThanOrEqual(256);
      }
    }
  });

  it('keeps the 64x64 tile on a large square product (no split)', () => {
    expect(planMatmul(2048, 2048, 2048)).toMatchObject({ tm: 64, tn: 64, splits: 1 });
  });
});

describe('planMembers', () => {
  it('one member\'s plan at any K: split-K (and its sum dispatch) iff one member alone splits; members\' partials bounded', () => {
    for (const M of SIDES) for (const N of [3, 64, 256, 1024]) for (const K of [17, 300, 3072, 12288]) {
      const alone = planMatmul(M, N, K);
      expect(planMembers(M, N, K, 1), `${M}x${N}x${K}`).toEqual(alone);
      for (const members of [2, 16, 64]) {
        const p = planMembers(M, N, K, members), at = `${M}x${N}x${K}, ${members} members`;
        expect([p.tm, p.tn], at).toEqual([alone.tm, alone.tn]);
        expect(p.splits > 1, at).toBe(alone.splits > 1);
        expect(p.splits * p.kSlice, at).toBeGreaterThanOrEqual(K);
        expect((p.splits - 1) * p.kSlice, at).toBeLessThan(K);
        if (p.splits > 2) expect(members * p.splits * M * N, `${at}: scratch`).toBeLessThanOrEqual(MAX_SCRATCH);
      }
    }
  });

  it('takes fewer slices for many members at the model\'s widest weight gradient (c_fc: 1024 x 256 over 12288 rows)', () => {
    const alone = planMatmul(1024, 256, 12288), p = planMembers(1024, 256, 12288, 16);
    expect(alone.splits).toBeGreaterThan(2);
    expect(p.splits).toBe(2);
  });
});

describe('planBackward', () => {
  it('one tile for both products; each covers its K; dweight is planMembers\' plan; dinp splits only when its tiles are too few', () => {
    for (const rows of [1, 37, 512, 3072, 12288]) for (const [IC, OC] of [[64, 192], [256, 64], [64, 256], [64, 64], [1024, 256]]) {
      for (const members of [1, 4]) {
        const { dinp, dweight } = planBackward(rows, IC, OC, members);
        const at = `${rows} rows, ${IC} -> ${OC}, ${members} members`;
        expect(dweight, at).toEqual(planMembers(OC, IC, rows, members));
        expect([dinp.tm, dinp.tn], at).toEqual([dweight.tm, dweight.tn]);
        expect(dinp.grid[0], at).toBe(dweight.grid[0]); // the same column tiles (IC)
        expect(dinp.splits * dinp.kSlice, at).toBeGreaterThanOrEqual(OC);
        expect((dinp.splits - 1) * dinp.kSlice, at).toBeLessThan(OC);
        if (dinp.splits > 1) expect(Math.ceil(rows / dinp.tm) * dinp.grid[0], at).toBeLessThan(256);
      }
    }
  });

  it('on a CPU adapter (target 1): no split, the largest tile that fits', () => {
    const { dinp, dweight } = planBackward(512, 64, 256, 1, 1);
    expect([dweight.tm, dweight.tn, dweight.splits, dinp.splits]).toEqual([64, 64, 1, 1]);
  });

  it('plans are kept by every argument (shape, members, target): asked again in another order, each is its own', () => {
    const gpu = planMatmul(64, 64, 4096), cpu = planMatmul(64, 64, 4096, 1);
    expect(gpu.splits).toBeGreaterThan(1); // 1 tile alone: split K toward 256 workgroups
    expect([cpu.splits, groupsOf(cpu)]).toEqual([1, 1]);
    expect(planMatmul(64, 64, 4096)).toBe(gpu); // the same object: kept, not rebuilt
    expect(Object.isFrozen(gpu) && Object.isFrozen(gpu.grid)).toBe(true); // shared, so nobody may change it
    const one = planBackward(2048, 64, 64, 1), many = planBackward(2048, 64, 64, 16);
    expect(planBackward(2048, 64, 64, 16)).toBe(many);
    expect(planBackward(2048, 64, 64, 1)).toBe(one);
    expect(planMembers(64, 64, 1 << 20, 1).splits).toBeGreaterThan(planMembers(64, 64, 1 << 20, 64).splits); // members share the scratch
  });
});
