// The CLI runs the kernels the page runs in Chromium: the fused build (relaxed SIMD), turned on in V8 before any
// module compiles (src/cli/wasmFeatures.ts); GSPO_KERNELS=simd keeps the plain build, and any other value is
// refused in one line. Read from bench's JSON: the build its limit was measured on. No time is asserted.
import { describe, expect, it } from 'vitest';
import { gspo } from './run';

describe('the CLI\'s kernel build', () => {
  it('is the fused build by default: bench measures the limit of fused multiply-adds, and the multiply-then-add one beside it', () => {
    const r = gspo(['bench', '--quick', '--backend', 'cpu', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.limit.variant).toBe('fma');
    expect(r.json.limit.gflops).toBeGreaterThan(0);
    expect(r.json.limit.mulAddGflops).toBeGreaterThan(0);
  });
  it('GSPO_KERNELS=simd: the plain build, whose limit is the multiply-then-add one', () => {
    const r = gspo(['bench', '--quick', '--backend', 'cpu', '--json'], { GSPO_KERNELS: 'simd' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.limit.variant).toBe('simd');
    expect(r.json.limit.gflops).toBe(r.json.limit.mulAddGflops);
  });
  it('GSPO_KERNELS=avx: exit 2, naming the variable, the value and the two it takes', () => {
    const r = gspo(['bench', '--quick'], { GSPO_KERNELS: 'avx' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('GSPO_KERNELS must be "fma" (the fused build, the default) or "simd" (the plain build), got "avx"');
  });
});
