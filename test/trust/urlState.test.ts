// Finding 8: a long shared link decodes in linear time, and one past the cap is
// refused with a clear message (80,000 distinct names took 21.6 s before).
import { describe, expect, it } from 'vitest';
import { decodeSetup, MAX_QUERY_CHARS } from '../../src/store/urlState';

describe('finding 8: long links', () => {
  it('80,000 distinct names: refused at once, saying why', () => {
    const q = Array.from({ length: 80_000 }, (_, i) => `p${i}=1`).join('&');
    const t0 = performance.now();
    const d = decodeSetup(q);
    expect(performance.now() - t0).toBeLessThan(200);
    expect(d.overrides).toEqual({});
    expect(d.problems).toEqual([`the link's parameters are ${q.length} characters long, more than ${MAX_QUERY_CHARS}; none was read (a shared setup is at most a few hundred)`]);
  });
  it('just under the cap: decoded fast, the problems summarized', () => {
    const names: string[] = [];
    for (let i = 0; names.join('&').length < MAX_QUERY_CHARS - 20; i++) names.push(`q${i}=1`);
    const q = `lr=0.001&${names.join('&')}`;
    expect(q.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    const t0 = performance.now();
    const d = decodeSetup(q);
    expect(performance.now() - t0).toBeLessThan(200);
    expect(d.overrides).toEqual({ lr: 0.001 });
    expect(d.problems).toHaveLength(21);
    expect(d.problems[0]).toBe('unknown parameter "q0" (not a config field)');
    expect(d.problems[20]).toBe(`... and ${names.length - 20} more problems`);
  });
});
