// The Trainer's curriculum wiring (philosophers N = 3 -> 5 -> 7): with a threshold every eval
// passes, each eval advances one stage, the env and its eval set change, and the last stage stays.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { createEnv } from '../../src/envs/registry';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Trainer } from '../../src/rl/trainer';
import type { PhilState } from '../../src/envs/philosophers';

describe('Trainer curriculum', () => {
  it('advances N after `patience` passing evals, marks the step, and keeps the last stage', async () => {
    const c = validateConfig({ env: 'philosophers', philosophers: 3, rounds: 2, curriculum: 'on', curriculumThreshold: 0, curriculumPatience: 2,
      evalEpisodes: 4, nLayer: 1, nHead: 2, nEmbd: 16 });
    const tr = new Trainer(new CpuBackend(), createEnv(c), c);
    const N = () => (tr.lastEval!.rollout.states[0] as PhilState).holder.length;
    await tr.evaluate();
    expect(N()).toBe(3);
    expect(tr.curriculum).toEqual([]); // one passing eval < patience 2
    await tr.evaluate();
    expect(tr.curriculum).toEqual([{ step: 0, stage: 5, label: 'N = 5' }]);
    expect(tr.config.philosophers).toBe(5);
    expect(tr.bestEval).toBeNull(); // evals at another N do not compare
    await tr.evaluate();
    expect(N()).toBe(5); // the eval after the change runs on the new table
    await tr.evaluate();
    expect(tr.curriculum.map((x) => x.stage)).toEqual([5, 7]);
    for (let i = 0; i < 3; i++) await tr.evaluate();
    expect(N()).toBe(7);
    expect(tr.curriculum.map((x) => x.stage)).toEqual([5, 7]); // 7 is the last stage
    tr.destroy();
  });

  it('does not advance while evals stay below the threshold', async () => {
    const c = validateConfig({ env: 'philosophers', philosophers: 3, rounds: 2, curriculum: 'on', curriculumThreshold: 1, curriculumPatience: 1,
      evalEpisodes: 4, nLayer: 1, nHead: 2, nEmbd: 16 });
    const tr = new Trainer(new CpuBackend(), createEnv(c), c);
    // in 2 rounds nobody can eat (a meal takes TAKE, TAKE, EAT), so accuracy stays 0 < 1
    for (let i = 0; i < 3; i++) expect((await tr.evaluate()).accuracy).toBe(0);
    expect(tr.curriculum).toEqual([]);
    expect(tr.config.philosophers).toBe(3);
    tr.destroy();
  });
});
