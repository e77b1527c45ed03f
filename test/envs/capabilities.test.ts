// Env capabilities (src/envs/types.ts): which env declares what, and that the Trainer follows a
// declaration on any env (a relay with a made-up curriculum over its digit count).
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { EVAL_PROBLEMS } from '../../src/envs/addition';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import type { CurriculumSpec, Environment } from '../../src/envs/types';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Trainer } from '../../src/rl/trainer';

const envOf = (preset: string) => createEnv(presetConfig(findPreset(preset), {}));

describe('declared capabilities', () => {
  it('philosophers: the curriculum N = 3 -> 5 -> 7 only when it is on; meals per philosopher as the task measure', () => {
    const cur = envOf('philosophers-curriculum').curriculum!;
    expect(cur).toMatchObject({ stages: [3, 5, 7], stage: 3, threshold: 0.6, patience: 2 });
    expect(cur.configAt(5)).toEqual({ philosophers: 5 });
    expect(cur.label(7)).toBe('N = 7');
    expect(envOf('philosophers-fixed').curriculum).toBeUndefined();
    expect(envOf('philosophers-fixed').taskMeasure).toEqual({ key: 'mealsPerPhilosopher', label: 'meals per philosopher' });
  });

  it('addition: a comparison of the frozen Actor and the Collaborator, except alone', () => {
    for (const p of ['agentpo-hint', 'agentpo-critic']) expect(envOf(p).comparison).toEqual({ frozen: 'actor', helper: 'collaborator', episodes: EVAL_PROBLEMS.length });
    expect(createEnv(presetConfig(findPreset('agentpo-hint'), { topology: 'alone' })).comparison).toBeUndefined();
  });

  it('relay declares none of them', () => {
    const env = envOf('relay-silence');
    expect([env.curriculum, env.taskMeasure, env.comparison]).toEqual([undefined, undefined, undefined]);
  });
});

describe('the Trainer reads the declaration, not the env id', () => {
  it('advances a relay with a declared curriculum (digits 2 -> 3) after one passing eval', async () => {
    const c = validateConfig({ digits: 2, evalEpisodes: 4, nLayer: 1, nHead: 2, nEmbd: 16 });
    const curriculum: CurriculumSpec = { stages: [2, 3], stage: 2, threshold: 0, patience: 1, configAt: (k) => ({ digits: k }), label: (k) => `k = ${k}` };
    const env: Environment = { ...createEnv(c), curriculum };
    const tr = new Trainer(new CpuBackend(), env, c);
    await tr.evaluate(); // accuracy >= 0 always passes
    expect(tr.curriculum).toEqual([{ step: 0, stage: 3, label: 'k = 3' }]);
    expect(tr.config.digits).toBe(3);
    expect(tr.env.curriculum).toBeUndefined(); // the rebuilt relay declares none: the run stays at k = 3
    tr.destroy();
  });
});
