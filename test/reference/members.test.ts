// The CPU member ops (a population's K runs stacked) against each member's lone run
// of today's op on its own slices, bit for bit: K = 3 members owning 5, 0 and 7 rows,
// IC 13, OC 11, C 13, with parameters packed [K, ...] and at a flat-vector stride (the
// members' parameter vectors side by side in one buffer, each parameter a view reaching
// every member's copy; nothing outside the outputs' copies may change).
// And K = 1 is today's op, bit for bit.
import { describe, expect, it } from 'vitest';
import { memberRows } from '../../src/backend';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { alone, hostInputs, memberCases, optimizerCase, stacked, type MemberCase } from './memberCases';

const cpu = new CpuBackend('f32');
const PARAM_STRIDE = 256; // > every parameter copy here (143 at most), a multiple of the view alignment

async function expectMembersAlone(c: MemberCase, stride?: number): Promise<void> {
  const host = hostInputs(c, 7, stride);
  const got = await stacked(cpu, c, host, stride);
  const want = await alone(cpu, c, host, stride);
  for (const name of c.outputs) {
    expect(got[name], `${c.name}: ${name}`).toEqual(want[name]);
    // the op did something: an output that kept its initial values everywhere would pass vacuously
    if (!c.unchanged?.includes(name)) expect(got[name], `${c.name}: ${name} changed`).not.toEqual(Float64Array.from(host[name]));
  }
}

describe('CPU member ops equal each member\'s lone run (K = 3, rows 5, 0, 7)', () => {
  for (const c of memberCases()) {
    it(`${c.name}, parameters packed`, () => expectMembersAlone(c));
    it(`${c.name}, parameters at a flat-vector stride`, () => expectMembersAlone(c, PARAM_STRIDE));
  }

  it('a member whose gradient is not finite skips its update alone (the divergence guard per member)', async () => {
    const c = optimizerCase(3, 150, [1, Infinity, 0.05]);
    const host = hostInputs(c, 11);
    const got = await stacked(cpu, c, host);
    expect(Array.from(got.scale.subarray(0, 3), (s) => s < 0)).toEqual([false, true, false]);
    expect(got.params.subarray(150, 300)).toEqual(Float64Array.from(host.params.subarray(150, 300)));
    expect(got.params.subarray(0, 150)).not.toEqual(Float64Array.from(host.params.subarray(0, 150)));
    expect(got).toEqual(await alone(cpu, c, host));
  });
});

describe('K = 1 members are today\'s ops, bit for bit', () => {
  for (const c0 of memberCases([9], [3])) {
    it(c0.name, async () => {
      const host = hostInputs(c0, 5);
      const got = await stacked(cpu, c0, host);
      // today's op on the very same tensors: N = all rows, no members
      const t = Object.fromEntries(Object.entries(host).map(([name, data]) => {
        const x = cpu.alloc(data.length, data instanceof Int32Array ? 'i32' : 'f32');
        cpu.write(x, data);
        return [name, x];
      }));
      c0.run(cpu, t, c0.counts[0], undefined, 0, host);
      for (const name of c0.outputs) expect(got[name], name).toEqual(Float64Array.from(await cpu.read(t[name])));
    });
  }

  it('memberRows: offsets, the largest member, and a rowStart that does not match N is refused', () => {
    const m = memberRows(cpu, [5, 0, 7]);
    expect(Array.from(m.rowStartHost)).toEqual([0, 5, 5, 12]);
    expect(m.maxRows).toBe(7);
    const t = cpu.alloc(12 * 3);
    expect(() => cpu.matmulForward(t, t, cpu.alloc(3 * 3 * 3), null, 11, 3, 3, m)).toThrow(/N = 11/);
  });
});
