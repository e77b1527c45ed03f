// bench's 128-bit limit (src/cli/commands/benchLimit.ts, shaders/simd/peak.ts): the calibration kernel does the FLOP
// it is counted for (its result recomputed in f32 by hand: every chain and lane, every iteration, a multiply then an
// add), and the "% of limit" column's arithmetic. No time is asserted.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { betterLimit, calibrationFlop, formatOfLimit, ofLimit, type Limit } from '../../src/cli/commands/benchLimit';
import { printTable, type Row } from '../../src/cli/commands/bench';
import { instantiateKernels } from '../../src/simd/kernels';

const f = Math.fround;
/** The kernel's result by hand: `chains` chains of 4 lanes from x0 + j + l / 4, iters of x <- x * m + c, summed in its order. */
function byHand(iters: number, x0: number, m: number, c: number, chains = 12): number {
  const a = Array.from({ length: chains }, (_, j) => [0, 0.25, 0.5, 0.75].map((l) => f(f(x0 + j) + l)));
  for (let i = 0; i < iters; i++) for (const lanes of a) for (let l = 0; l < 4; l++) lanes[l] = f(f(lanes[l] * f(m)) + f(c));
  const add = (x: number[], y: number[]) => x.map((v, l) => f(v + y[l]));
  const z = [0, 0, 0, 0], g = (j: number) => a[j] ?? z;
  const s = add(add(add(g(0), g(1)), add(g(2), g(3))), add(add(g(4), g(5)), add(g(6), g(7))));
  const t = add(s, add(add(g(8), g(9)), add(g(10), g(11))));
  return f(f(t[0] + t[1]) + f(t[2] + t[3]));
}

describe('the calibration kernel', () => {
  const k = instantiateKernels('simd');
  it('runs 12 chains x 4 lanes of a multiply then an add per iteration: 96 FLOP, as counted', () => {
    expect(k.PEAK_FLOP_PER_ITER.value).toBe(96);
    expect(calibrationFlop(2_000_000, 96)).toBe(192_000_000);
    for (const iters of [0, 1, 2, 7, 40]) {
      // m and c chosen so every step rounds: a missing or extra step, chain or lane shows in the sum
      expect(k.peakMaddChains(iters, 1.3, 0.9375, 0.3), `iters ${iters}`).toBe(byHand(iters, 1.3, 0.9375, 0.3));
    }
  });
  it('peakFmaChains is the same chains with the kernels\' madd: in the plain build a multiply then an add, as counted', () => {
    for (const iters of [0, 1, 7, 40]) expect(k.peakFmaChains(iters, 1.3, 0.9375, 0.3), `iters ${iters}`).toBe(byHand(iters, 1.3, 0.9375, 0.3));
  });
  it('the hand computation tells a chain or an iteration short (the oracle is live)', () => {
    expect(byHand(7, 1.3, 0.9375, 0.3, 11)).not.toBe(k.peakMaddChains(7, 1.3, 0.9375, 0.3));
    expect(byHand(6, 1.3, 0.9375, 0.3)).not.toBe(k.peakMaddChains(7, 1.3, 0.9375, 0.3));
  });
  it('stays finite and near 1 per lane however long it runs (no overflow or subnormals to slow it)', () => {
    expect(k.peakMaddChains(100_000, 1, 0.875, 0.125)).toBeCloseTo(48, 3);
  });
});

describe('the limit measured twice (before and after bench --compare\'s cases)', () => {
  const l = (gflops: number, mulAddGflops: number, variant: Limit['variant'] = 'fma'): Limit => ({ gflops, variant, mulAddGflops, flopPerRun: 1, runs: 8, flopPerIter: 96 });
  it('keeps the better of each figure: a busy machine only ever slows a measurement', () => {
    expect(betterLimit(l(45.1, 25.8), l(55.7, 47.7))).toEqual(l(55.7, 47.7));
    expect(betterLimit(l(55.7, 25.8), l(45.1, 47.7))).toEqual(l(55.7, 47.7));
    expect(betterLimit(l(50, 50, 'simd'), l(49, 49, 'simd'))).toEqual(l(50, 50, 'simd'));
  });
  it('refuses two builds\' limits (fused multiply-adds against a multiply then an add)', () => {
    expect(() => betterLimit(l(55, 47), l(47, 47, 'simd'))).toThrow(/different builds \(fma, simd\)/);
  });
});

describe('the % of limit column', () => {
  afterEach(() => vi.restoreAllMocks());
  it('divides a kernel\'s GFLOP/s by the limit of its threads', () => {
    expect(ofLimit(23.15, 46.3)).toBeCloseTo(0.5, 12);
    expect(ofLimit(23.15, 46.3, 2)).toBeCloseTo(0.25, 12);
    expect(formatOfLimit(34.7, 46.3)).toBe('75%');
    expect(formatOfLimit(undefined, 46.3)).toBe('-');
  });
  it('the table shows it for the CPU engines\' GFLOP/s rows, not for GB/s rows nor WebGPU', () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => { out.push(String(s)); return true; });
    const limit: Limit = { gflops: 40, variant: 'simd', mulAddGflops: 40, flopPerRun: 1, runs: 1, flopPerIter: 96 };
    const rows: Row[] = [
      { kernel: 'matmul_forward', size: '256x64x64', ms: { reference: 1, cpu: 0.1, webgpu: 0.05 }, gflops: { reference: 4, cpu: 30, webgpu: 60 } },
      { kernel: 'adamw', size: '100', ms: { reference: 1, cpu: 0.1, webgpu: 0.05 }, gbs: { reference: 1, cpu: 10, webgpu: 20 } },
    ];
    printTable(rows, ['reference', 'cpu', 'webgpu'], limit);
    const [head, , mm, adam] = out.join('').trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(head).toEqual(['kernel', 'size', 'reference ms', 'cpu ms', 'webgpu ms', 'reference GFLOP/s|GB/s', 'cpu GFLOP/s|GB/s', 'webgpu GFLOP/s|GB/s',
      'reference % of limit', 'cpu % of limit', 'reference/cpu', 'reference/webgpu']);
    expect(mm.slice(8, 10)).toEqual(['10%', '75%']);
    expect(adam.slice(8, 10)).toEqual(['-', '-']);
  });
});
