// The 128-bit limit of this core, measured for `bench`'s per-kernel table: the calibration kernel
// (shaders/simd/peak.ts: independent f32x4 chains of a multiply then an add, nothing else) timed at its
// best, and each kernel's GFLOP/s as a fraction of it. A kernel on `threads` threads is held against
// that many times the limit. docs/cpu-engine.md, "Figures".
import { instantiateKernels, type Kernels } from '../../simd/kernels';

export interface Limit {
  /** GFLOP/s of the calibration at its best run: the limit of one core. */
  gflops: number;
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
export function measureLimit(k: Kernels = instantiateKernels('simd'), iters = 2_000_000, runs = 8): Limit {
  const flopPerIter = k.PEAK_FLOP_PER_ITER.value as number;
  for (let w = 0; w < 3; w++) k.peakMaddChains(iters / 4, 1, 0.875, 0.125);
  let best = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    k.peakMaddChains(iters, 1, 0.875, 0.125);
    best = Math.max(best, calibrationFlop(iters, flopPerIter) / (performance.now() - t0) / 1e6);
  }
  return { gflops: best, flopPerRun: calibrationFlop(iters, flopPerIter), runs, flopPerIter };
}

/** The limit as bench measures it: shorter and fewer runs with --quick. */
export const benchLimit = (quick: boolean): Limit => measureLimit(undefined, quick ? 500_000 : 2_000_000, quick ? 4 : 8);

/** A kernel's GFLOP/s as a fraction of the limit of `threads` cores. */
export function ofLimit(gflops: number, limitGflops: number, threads = 1): number {
  return gflops / (limitGflops * threads);
}

/** The table's cell: the percentage, whole. */
export function formatOfLimit(gflops: number | undefined, limitGflops: number, threads = 1): string {
  return gflops === undefined ? '-' : `${(100 * ofLimit(gflops, limitGflops, threads)).toFixed(0)}%`;
}
