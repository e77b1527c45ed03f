// AgentPO from the CLI, CPU backend: `eval --compare` against independent paths through
// plain `eval` (the Actor alone = topology alone; the untrained arm = the preset's warm starts),
// and the philosophers' summary fields. Uses the shipped checkpoints in public/checkpoints.
import { describe, expect, it } from 'vitest';
import { wilson95 } from '../../src/rl/interval';
import { gspo } from './run';

const EPISODES = '120';

describe('eval --compare (agentpo-hint)', () => {
  it('each arm matches a plain eval of the same players, with a Wilson interval around it', () => {
    const cmp = gspo(['eval', '--preset', 'agentpo-hint', '--compare', '--episodes', EPISODES, '--backend', 'cpu']);
    expect(cmp.code, cmp.stderr).toBe(0);
    const rows = cmp.json.comparison as { name: string; n: number; accuracy: number; lo: number; hi: number; tokens: number }[];
    expect(rows.map((r) => r.name.split(' ')[0])).toEqual(['actor', 'untrained', 'collaborator']);
    const alone = gspo(['eval', '--preset', 'agentpo-hint', '--set', 'topology=alone', '--episodes', EPISODES, '--backend', 'cpu']);
    const untrained = gspo(['eval', '--preset', 'agentpo-hint', '--episodes', EPISODES, '--backend', 'cpu']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(untrained.code, untrained.stderr).toBe(0);
    expect(rows[0].accuracy).toBeCloseTo(alone.json.accuracy, 12);
    expect(rows[0].tokens).toBe(0); // the Actor alone exchanges no message
    expect(rows[1].accuracy).toBeCloseTo(untrained.json.accuracy, 12);
    expect(rows[1].tokens).toBeCloseTo(untrained.json.tokens, 12);
    // without a checkpoint the "trained" arm is the untrained collaborator itself
    expect(rows[2].accuracy).toBeCloseTo(rows[1].accuracy, 12);
    for (const r of rows) {
      expect(r.n).toBe(Number(EPISODES));
      const w = wilson95(Math.round(r.accuracy * r.n), r.n);
      expect(r.lo).toBeCloseTo(w.lo, 12);
      expect(r.hi).toBeCloseTo(w.hi, 12);
    }
  });

  it('--compare on a preset without a collaborator is refused with one line', () => {
    const r = gspo(['eval', '--preset', 'relay-silence', '--compare', '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--compare is for the AgentPO presets/);
  });
});
