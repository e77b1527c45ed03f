import { describe, expect, it } from 'vitest';
import { curriculumUpdate, nextStage, passingStreak } from '../../src/rl/curriculum';

const opts = { stages: [3, 5, 7], threshold: 0.8, patience: 2 };

describe('curriculum', () => {
  it('advances only after `patience` consecutive passing evals at the stage', () => {
    expect(nextStage(3, [], opts)).toBeNull();
    expect(nextStage(3, [0.9], opts)).toBeNull();
    expect(nextStage(3, [0.9, 0.85], opts)).toBe(5);
    expect(nextStage(3, [0.8, 0.8], opts)).toBe(5); // reaching the threshold passes
    expect(nextStage(3, [0.5, 0.9, 0.9], opts)).toBe(5);
    expect(nextStage(5, [0.9, 0.9, 0.9], { ...opts, patience: 3 })).toBe(7);
    expect(nextStage(5, [0.9, 0.9], { ...opts, patience: 3 })).toBeNull();
  });

  it('starts the count again on a miss', () => {
    expect(nextStage(3, [0.9, 0.79, 0.9], opts)).toBeNull();
    expect(passingStreak([0.9, 0.9, 0.1, 0.9], 0.8)).toBe(1);
    expect(passingStreak([0.9, 0.9, 0.9], 0.8)).toBe(3);
    expect(passingStreak([0.9, 0.1], 0.8)).toBe(0);
  });

  it('stays at the last stage and rejects a stage it does not know', () => {
    expect(nextStage(7, [1, 1, 1, 1], opts)).toBeNull();
    expect(() => nextStage(4, [1, 1], opts)).toThrow(/not one of the stages/);
    expect(() => nextStage(3, [1], { ...opts, patience: 0 })).toThrow(/patience/);
  });

  it('steps eval by eval with the same rule', () => {
    let s = { stage: 3, streak: 0 };
    const seen: [number, boolean][] = [];
    for (const m of [0.9, 0.7, 0.9, 0.9, 0.95, 0.2, 0.9, 0.9, 1, 1, 1]) {
      const r = curriculumUpdate(s, m, opts);
      seen.push([r.stage, r.advanced]);
      s = { stage: r.stage, streak: r.streak };
    }
    expect(seen).toEqual([
      [3, false], [3, false], [3, false], [5, true], // the miss at 0.7 reset the count
      [5, false], [5, false], [5, false], [7, true], // the count restarts at a new stage
      [7, false], [7, false], [7, false],
    ]);
  });
});
