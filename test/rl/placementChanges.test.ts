// A stacked population (WebGPU, members that stack) refuses, when it is placed and so before any member trains, a
// live change it could not apply at its step: the CLI's `sweep --backend webgpu --at 1:advantage=batch` exits 2
// with one line instead of every member failing at step 1. Where members train one per lane the change is theirs.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { createRelay } from '../../src/envs/relay';
import { placeMembers } from '../../src/rl/placement';
import type { MemberChange } from '../../src/rl/population';
import { memberConfigs } from '../model/populationStepCase';

const configs = memberConfigs([{ seed: 1, lambdaTok: 0.05 }, { seed: 2, lambdaTok: 0.3 }]);
const env = createRelay({});
const at = (partial: MemberChange['partial'], member: number | null = null, step = 1): MemberChange[] => [{ step, member, partial }];
const place = (backend: 'webgpu' | 'cpu', changes: MemberChange[]) => placeMembers(configs, env, { backend, lanesAtOnce: 2, memoryBytes: 2 ** 34, changes });

function refusal(fn: () => unknown): Error {
  try { fn(); } catch (e) { return e as Error; }
  throw new Error('not refused');
}

describe('a stacked population\'s live changes, checked when it is placed', () => {
  it('refuses advantage=batch and dynamicSampling=on for every member on WebGPU, in one line naming the change', () => {
    for (const [partial, pattern] of [
      [{ advantage: 'batch' }, /^--at 1:advantage=batch: a stacked population cannot apply this live change: advantage for every member: refused, advantage=batch/],
      [{ dynamicSampling: 'on' }, /^--at 1:dynamicSampling=on: a stacked population cannot apply this live change: dynamicSampling for every member: refused, dynamic sampling/],
    ] as const) {
      const e = refusal(() => place('webgpu', at(partial as MemberChange['partial'])));
      expect(e).toBeInstanceOf(InputError);
      expect(e.message).toMatch(pattern);
      expect(e.message).not.toContain('\n');
    }
  });

  it('refuses a change that makes them unstackable only at a later step too', () => {
    const changes = [...at({ lambdaTok: 0.2 }), ...at({ advantage: 'batch' }, null, 5)];
    expect(refusal(() => place('webgpu', changes)).message).toMatch(/^--at 5:advantage=batch/);
  });

  it('places what stacks: a reward field for one member, a shared field for every member', () => {
    const p = place('webgpu', [...at({ lambdaTok: 0.2 }, 1), ...at({ temperature: 0.5 })]);
    expect(p.lanes).toEqual([[0, 1]]);
    expect(p.refusal).toBeNull();
  });

  it('leaves the change to each member where they do not stack (the CPU engine: one lane per member)', () => {
    expect(place('cpu', at({ advantage: 'batch' })).lanes).toEqual([[0], [1]]);
  });
});
