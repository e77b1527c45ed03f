// The 128-bit limit of this core, measured for `bench`'s per-kernel table: the calibration kernel
// (shaders/simd/peak.ts: independent f32x4 chains of the kernels' multiply-add, nothing else) timed at its
// best, and each kernel's GFLOP/s as a fraction of it. The limit is the build's that runs: with fused
// multiply-adds (the relaxed-simd build) one instruction does both, so its limit is higher than a multiply
// then an add, which is measured beside it. A kernel on `threads` threads is held against that many times
// the limit. docs/cpu-engine.md, "Figures".
import { instantiateKernels, type KernelVariant, type Kernels } from '../../simd/kernels';
import { defaultVariant } from '../../simd/wasmMemory';

export interface Limit {
  /** GFLOP/s of the calibration at its best run: the limit of one core for the build that runs. */
  gflops: number;
  /** The build measured ('fma': fused multiply-adds), and its multiply-then-add chains' GFLOP/s (equal to gflops in the plain build). */
  variant: KernelVariant; mulAddGflops: number;
  /** FLOP of one run (iterations x PEAK_FLOP_PER_ITER), runs timed, and the chains' own count of FLOP per iteration. */
  flopPerRun: number; runs: number; flopPerIter: number;
}

/** The multiply and the add of x <- x * m + c are what the calibration counts: FLOP of `iters` iterations. */
export function calibrationFlop(iters: number, flopPerIter: number): number {
  return iters * flopPerIter;
}

/**
 * Times the calibration: warm-up until V8 has its optimized code (the first calls run as baseline code, several
 * times slower), then `runs` runs of `iters` iterations; the best run's FLOP/s (a shared machine only ever slows it).
 */
export function measureLimit(variant: KernelVariant = defaultVariant(), iters = 2_000_000, runs = 8): Limit {
  const k: Kernels = instantiateKernels(variant);
  const flopPerIter = k.PEAK_FLOP_PER_ITER.value as number;
  const best = (chains: (iters: number, x0: number, mul: number, add: number) => number): number => {
    for (let w = 0; w < 3; w++) chains(iters / 4, 1, 0.875, 0.125);
    let b = 0;
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      chains(iters, 1, 0.875, 0.125);
      b = Math.max(b, calibrationFlop(iters, flopPerIter) / (performance.now() - t0) / 1e6);
    }
    return b;
  };
  const mulAddGflops = best(k.peakMaddChains);
  const gflops = variant === 'fma' ? best(k.peakFmaChains) : mulAddGflops;
  return { gflops, variant, mulAddGflops, flopPerRun: calibrationFlop(iters, flopPerIter), runs, flopPerIter };
}

/** Of two measurements of one build's limit, the better of each figure (a shared machine only ever slows it). */
export function betterLimit(a: Limit, b: Limit): Limit {
  if (a.variant !== b.variant) throw new Error(`two limits of different builds (${a.variant}, ${b.variant})`);
  return { ...(b.gflops > a.gflops ? b : a), mulAddGflops: Math.max(a.mulAddGflops, b.mulAddGflops) };
}

/** The limit's words for a table's heading: the build's, and the multiply-then-add figure beside a fused one. */
export function limitWords(l: Limit): string {
  return l.variant === 'fma'
    ? `${l.gflops.toFixed(1)} GFLOP/s a core (128-bit SIMD with fused multiply-adds, the build that runs; ${l.mulAddGflops.toFixed(1)} with a multiply then an add), measured now`
    : `${l.gflops.toFixed(1)} GFLOP/s a core (128-bit SIMD, a multiply then an add: the plain build runs), measured now`;
}

/** The limit as bench measures it: shorter and fewer runs with --quick. */
export const benchLimit = (quick: boolean, variant?: KernelVariant): Limit => measureLimit(variant, quick ? 500_000 : 2_000_000, quick ? 4 : 8);

/** A kernel's GFLOP/s as a fraction of the limit of `threads` cores. */
export function ofLimit(gflops: number, limitGflops: number, threads = 1): number {
  return gflops / (limitGflops * threads);
}

/** The table's cell: the percentage, whole. */
export function formatOfLimit(gflops: number | undefined, limitGflops: number, threads = 1): string {
  return gflops === undefined ? '-' : `${(100 * ofLimit(gflops, limitGflops, threads)).toFixed(0)}%`;
}
