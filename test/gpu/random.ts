// Seeded inputs for parity tests (the project's mulberry32).
import { mulberry32, normal } from '../../src/model/random';

export class Rng {
  private readonly uniform: () => number;
  private readonly gauss: () => number;

  constructor(seed: number) {
    this.uniform = mulberry32(seed);
    this.gauss = normal(this.uniform);
  }

  normal(n: number, scale = 1): Float32Array {
    return Float32Array.from({ length: n }, () => this.gauss() * scale);
  }

  uniformIn(n: number, lo: number, hi: number): Float32Array {
    return Float32Array.from({ length: n }, () => lo + (hi - lo) * this.uniform());
  }

  /** Integers in [lo, hi). */
  ints(n: number, lo: number, hi: number): Int32Array {
    return Int32Array.from({ length: n }, () => lo + Math.floor((hi - lo) * this.uniform()));
  }

  /** 0/1 mask with probability p of 1. */
  mask(n: number, p: number): Float32Array {
    return Float32Array.from({ length: n }, () => (this.uniform() < p ? 1 : 0));
  }
}
