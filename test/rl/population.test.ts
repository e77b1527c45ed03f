// The population's bookkeeping: how many members fit (hand-computed cases), the
// memory estimate's parts, and --at live changes (parsing, checks, who gets them).
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config';
import { paramCount } from '../../src/model/params';
import { changesFor, cpuThreadBytes, memberBytes, membersAtOnce, parseChange } from '../../src/rl/population';

const MiB = 2 ** 20;

describe('membersAtOnce', () => {
  it('runs all K when they fit, as many as fit otherwise, the asked number when it fits', () => {
    expect(membersAtOnce(5, 100 * MiB, 350 * MiB)).toBe(3);
    expect(membersAtOnce(2, 100 * MiB, 1000 * MiB)).toBe(2);
    expect(membersAtOnce(5, 100 * MiB, 350 * MiB, 2)).toBe(2);
    expect(membersAtOnce(2, 100 * MiB, 1000 * MiB, 9)).toBe(2); // never more than K
  });
  it('refuses naming K and the limit', () => {
    expect(() => membersAtOnce(5, 100 * MiB, 350 * MiB, 4)).toThrow(/K=4 members needs about 400 MiB \(100 MiB each\), more than the limit of 350 MiB: at most 3 fit/);
    expect(() => membersAtOnce(5, 400 * MiB, 350 * MiB)).toThrow(/a population member needs about 400 MiB .*limit of 350 MiB/);
    expect(() => membersAtOnce(5, 1, 350 * MiB, 0)).toThrow(/integer >= 1/);
  });
});

describe('cpuThreadBytes: a member in a CLI thread, from its tensors', () => {
  it('a quarter more than the tensors (the arena\'s slack) and 128 MiB for the thread, by hand', () => {
    expect(cpuThreadBytes(100 * MiB)).toBe(125 * MiB + 128 * MiB);
    expect(cpuThreadBytes(0)).toBe(128 * MiB);
  });
});

describe('memberBytes', () => {
  const model = { nLayer: 2, nHead: 4, nEmbd: 64, blockSize: 32, vocabSize: 20 };
  it('a KL reference adds one copy of the parameters; a frozen slot one more', () => {
    const base = memberBytes(DEFAULTS, model);
    expect(memberBytes({ ...DEFAULTS, beta: 0.1 }, model) - base).toBe(paramCount(model) * 4);
    const two = memberBytes(DEFAULTS, model, 2);
    expect(two).toBeGreaterThan(base + paramCount(model) * 4); // and a second slot's rollout activations
  });
  it('grows with the rows a step keeps', () => {
    const a = memberBytes(DEFAULTS, model), b = memberBytes({ ...DEFAULTS, promptsPerStep: DEFAULTS.promptsPerStep * 2 }, model);
    expect(b).toBeGreaterThan(a);
    expect(memberBytes({ ...DEFAULTS, evalEpisodes: 2 * DEFAULTS.evalEpisodes }, model)).toBeGreaterThan(a);
  });
});

describe('parseChange', () => {
  it('reads STEP:key=value[@M] and checks the value like any config value', () => {
    expect(parseChange('40:lambdaTok=0.05', 3, DEFAULTS)).toEqual({ step: 40, member: null, partial: { lambdaTok: 0.05 } });
    expect(parseChange('0:groupSize=4@2', 3, DEFAULTS)).toEqual({ step: 0, member: 2, partial: { groupSize: 4 } });
    expect(() => parseChange('40:lambdaTok=11', 3, DEFAULTS)).toThrow(/lambdaTok must be in \[0, 10\]; got 11/);
    expect(() => parseChange('40:nEmbd=32', 3, DEFAULTS)).toThrow(/nEmbd cannot change during a run/);
    expect(() => parseChange('40:lambdaTok=0.1@3', 3, DEFAULTS)).toThrow(/member 3 does not exist/);
    expect(() => parseChange('lambdaTok=0.1', 3, DEFAULTS)).toThrow(/STEP:key=value/);
  });
  it('a member gets its own changes and those for all, in step order', () => {
    const cs = [parseChange('9:lr=0.001@1', 3, DEFAULTS), parseChange('3:lambdaTok=0.2', 3, DEFAULTS), parseChange('5:lambdaTok=0.3@0', 3, DEFAULTS)];
    expect(changesFor(cs, 1).map((c) => c.step)).toEqual([3, 9]);
    expect(changesFor(cs, 0).map((c) => c.step)).toEqual([3, 5]);
    expect(changesFor(cs, 2).map((c) => c.step)).toEqual([3]);
  });
});
