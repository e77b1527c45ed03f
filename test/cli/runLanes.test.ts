// runLanes.ts placeRuns: the CLI's lanes from placement.ts, against counts worked out here from one member's
// estimate (memberBytes) and the limit: how many fit at once, --members refused past that, --members 1 (what
// --sequential asks) one run at a time, a plan longer than MAX_MEMBERS in waves, and on WebGPU (a device
// stand-in: only its limits are read) stacked lanes of --members each, or one lane per run when a live
// change keeps the members apart.
import { describe, expect, it } from 'vitest';
import { setup } from '../../src/cli/commands/runSetup';
import { placeRuns, type LaneDevice, type LaneRun } from '../../src/cli/runLanes';
import type { WebGpuBackend } from '../../src/gpu/webgpuBackend';
import { MAX_MEMBERS } from '../../src/rl/placement';
import { cpuThreadBytes, memberBytes, parseChange } from '../../src/rl/population';
import { modelConfigFor } from '../../src/rl/pretrain';
import { slotNames } from '../../src/rl/slots';

const MiB = 2 ** 20;
const TINY = { promptsPerStep: 2, groupSize: 4, minibatches: 2, evalEpisodes: 8 };
const run = (seed: number): LaneRun => {
  const overrides = { ...TINY, seed };
  return { s: setup('relay-noisy-dr', overrides), preset: 'relay-noisy-dr', overrides, out: 'unused', label: `seed ${seed}`, changes: [] };
};
const runs = (n: number) => Array.from({ length: n }, (_, i) => run(i + 1));
const cpu: LaneDevice = { engine: 'cpu' };
// a device binding and holding far more than these tiny runs need
const gpu: LaneDevice = { gpu: { limits: { maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 30 } } as unknown as WebGpuBackend };
// what a member takes in a thread of its own: the tensors, the arena's slack and the thread's own
const one = (r: LaneRun) => cpuThreadBytes(memberBytes(r.s.config, modelConfigFor(r.s.env, r.s.config), slotNames(r.s.env).length));

describe('placeRuns: the CLI\'s lanes', () => {
  it('on the CPU: one lane per run, as many at once as the memory limit holds; --members past that refused', () => {
    const three = runs(3), each = one(three[0]);
    const limit = Math.ceil((2.5 * each) / MiB); // MiB for two members and not three
    expect(Math.floor((limit * MiB) / each)).toBe(2);
    const p = placeRuns(three, cpu, { memoryFlag: limit });
    expect(p.waves).toHaveLength(1);
    expect(p.waves[0].placement.lanes).toEqual([[0], [1], [2]]);
    expect([p.mode, p.membersAtOnce]).toEqual(['population', 2]);
    expect(() => placeRuns(three, cpu, { memoryFlag: limit, members: 3 })).toThrow(/K=3 members needs about .* more than the limit of \d+ MiB: at most 2 fit at once/);
    const seq = placeRuns(three, cpu, { members: 1 });
    expect([seq.mode, seq.membersAtOnce, seq.waves[0].placement.atOnce]).toEqual(['sequential', 1, 1]);
  });

  it('more runs than one population holds train in waves of MAX_MEMBERS, every run once, in order', () => {
    const n = MAX_MEMBERS + 6;
    const p = placeRuns(runs(n), cpu, { members: 2 });
    expect(p.waves.map((w) => w.runs.length)).toEqual([MAX_MEMBERS, 6]);
    expect(p.waves.flatMap((w) => w.placement.lanes.map((l) => w.runs[l[0]]))).toEqual(Array.from({ length: n }, (_, i) => i));
    expect([p.mode, p.membersAtOnce]).toEqual(['population', 2]);
  });

  it('on WebGPU: members that stack share one lane, or lanes of --members one after another; --members 1 is one run at a time', () => {
    const five = runs(5);
    const all = placeRuns(five, gpu);
    expect(all.waves[0].placement.lanes).toEqual([[0, 1, 2, 3, 4]]);
    expect([all.mode, all.membersAtOnce]).toEqual(['stacked-population', 5]);
    const twos = placeRuns(five, gpu, { members: 2 });
    expect(twos.waves[0].placement.lanes).toEqual([[0, 1], [2, 3], [4]]);
    expect([twos.waves[0].placement.atOnce, twos.mode, twos.membersAtOnce]).toEqual([1, 'stacked-population', 2]);
    const seq = placeRuns(five, gpu, { members: 1 });
    expect(seq.waves[0].placement.lanes).toEqual([[0], [1], [2], [3], [4]]);
    expect([seq.waves[0].placement.atOnce, seq.mode]).toEqual([1, 'sequential']);
  });

  it('on WebGPU a live change of a shared field to one member keeps the members apart, saying why', () => {
    const three = runs(3);
    three[1].changes = [parseChange('1:temperature=1.2@1', 3, three[1].s.config)];
    const p = placeRuns(three, gpu);
    expect(p.waves[0].placement.lanes).toEqual([[0], [1], [2]]);
    expect(p.mode).toBe('sequential');
    expect(p.waves[0].placement.refusal).toMatch(/a live change of temperature to member 1 alone/);
    // the same change to every member stacks
    const same = runs(3), all = parseChange('1:temperature=1.2', 3, same[0].s.config);
    for (const r of same) r.changes = [all];
    expect(placeRuns(same, gpu).waves[0].placement.lanes).toEqual([[0, 1, 2]]);
  });
});
