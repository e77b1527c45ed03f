// The engine check's per-kernel cases (src/rl/selfCheck.ts kernelChecks): the CPU reference passes them
// all, and an engine whose one op is slightly wrong is named by that op's case alone.
import { describe, expect, it } from 'vitest';
import type { Backend, DecodeSampleArgs, PolicyLossArgs, Tensor } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { kernelChecks, verifyEngine } from '../../src/rl/selfCheck';

/** The CPU reference with one op's first output element nudged by 1% of 1 + its size, after the op. */
function nudged(op: keyof CpuBackend & keyof Backend, outputArg: number): Backend {
  const b = new CpuBackend();
  const original = (b[op] as (...a: unknown[]) => void).bind(b);
  (b as unknown as Record<string, unknown>)[op] = (...args: unknown[]) => {
    original(...args);
    const t = args[outputArg] as Tensor & { data: Float32Array };
    t.data[0] += 0.01 * (1 + Math.abs(t.data[0]));
  };
  return b;
}

describe('engine check, kernel by kernel', () => {
  it('the CPU reference passes every case', async () => {
    expect(await kernelChecks(new CpuBackend())).toEqual([]);
  });

  it.each([
    ['matmulForward', 0, 'matmulForward', 'matmul'],
    ['matmulBackward', 1, 'matmulBackward', 'matmul'],
    ['layernormBackward', 1, 'layernormForward/Backward', 'layernorm'],
    ['attentionForward', 0, 'attentionForward/Backward', 'attention'],
    ['embeddingBackward', 0, 'embeddingForward/Backward', 'embedding'],
    ['geluBackward', 0, 'geluForward/Backward', 'gelu'],
    ['residualForward', 0, 'residualForward', 'residual'],
    ['adamw', 0, 'sumSquares/clipScale/adamw', 'adamw'],
    ['logprobBackward', 0, 'logprobForward/Backward', 'logsoftmax'],
  ] as const)('a wrong %s is named, and only it', async (op, arg, kernel, shader) => {
    const failures = await kernelChecks(nudged(op, arg));
    expect(failures.map((f) => [f.kernel, f.shader])).toEqual([[kernel, shader]]);
    expect(failures[0].error).toBeGreaterThan(1e-3);
  });

  it('the fused decode step is checked where a backend fuses it, and a wrong one is named alone', async () => {
    const fusing = (nudge: boolean) => {
      const b = new CpuBackend(), compose = b.decodeSample.bind(b);
      b.decodeSampleFused = () => true;
      b.decodeSample = (a: DecodeSampleArgs) => { compose(a); if (nudge) (a.logp as Tensor & { data: Float32Array }).data[0] += 0.02; };
      return b;
    };
    expect(await kernelChecks(fusing(false))).toEqual([]);
    const failures = await kernelChecks(fusing(true));
    expect(failures.map((f) => [f.kernel, f.shader])).toEqual([['decodeSample', 'sample']]);
  });

  it('a wrong policyLoss is named, and only it', async () => {
    const b = new CpuBackend(), compose = b.policyLoss.bind(b);
    b.policyLoss = (a: PolicyLossArgs) => { compose(a); (a.dlogp as Tensor & { data: Float32Array }).data[3] += 0.02; };
    const failures = await kernelChecks(b);
    expect(failures.map((f) => [f.kernel, f.shader])).toEqual([['policyLoss', 'rl']]);
  });

  it('the verdict names the failing kernel and does not run the step', async () => {
    const v = await verifyEngine(nudged('matmulForward', 0));
    expect(v.ok).toBe(false);
    expect(v.step).toBeNull();
    expect(v.message).toMatch(/^the cpu self-check found wrong results from matmulForward \(matmul\.wgsl, error \d\.\de-\d+\)$/);
    const good = await verifyEngine(new CpuBackend());
    expect(good).toMatchObject({ ok: true, message: 'ok', failures: [] });
    expect(good.step?.maxGradError).toBe(0);
  });
});
