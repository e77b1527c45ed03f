// The last door of the CLI: a result holding NaN or Infinity is a fault naming where, never
// `null` with exit 0; the commands whose tables mark missing figures with NaN are let through.
import { describe, expect, it } from 'vitest';
import { RunFault } from '../../src/contract/errors';
import { checkResult, firstNonFinite } from '../../src/cli/resultCheck';

describe('the result check', () => {
  it('finds the first non-finite number, depth first, and names its path', () => {
    expect(firstNonFinite({ a: 1, b: [2, { c: 3 }], d: 'x', e: null, f: true })).toBeNull();
    expect(firstNonFinite({ final: { accuracy: 0.5, tokens: NaN } })).toEqual({ path: 'result.final.tokens', value: NaN });
    expect(firstNonFinite({ runs: [{ loss: 1 }, { loss: -Infinity }] })).toEqual({ path: 'result.runs[1].loss', value: -Infinity });
    expect(firstNonFinite(Infinity)).toEqual({ path: 'result', value: Infinity });
    expect(JSON.stringify({ x: NaN })).toBe('{"x":null}'); // why the door exists
  });
  it('refuses a train or eval result with one, and lets through the commands whose results mark a figure that does not exist with NaN', () => {
    expect(() => checkResult('train', { final: { accuracy: NaN } })).toThrow(RunFault);
    expect(() => checkResult('eval', { accuracy: 0.9, tokens: Infinity })).toThrow(/eval: result\.tokens is Infinity/);
    expect(() => checkResult('train', { final: { accuracy: 0.9 } })).not.toThrow();
    expect(() => checkResult('study', { best: NaN })).not.toThrow();
    expect(() => checkResult('bench', { gflops: NaN })).not.toThrow();
    expect(() => checkResult('train', undefined)).not.toThrow();
  });
});
