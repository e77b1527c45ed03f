// Every figure a judge reads is range-checked: one table of each eval metric's range (src/rl/evalRanges.ts), used
// by the CLI's writer (train.ts, before a line goes to evals.jsonl) and every reader (recordSchema.ts evalRecord).
// `robustness --judge` passed "silenceKnown": 7 and "silenceUnknown": -5 with exit 0 and "pass": true.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEnv } from '../../src/envs/registry';
import { PRESETS, presetConfig } from '../../src/envs/presets';
import { EVAL_RANGES, evalRecordProblem } from '../../src/rl/evalRanges';
import { evalRecord } from '../../src/rl/recordSchema';
import { gspo, tempDir } from '../cli/run';

const line = (o: Record<string, unknown>) => JSON.stringify(o) + '\n';
const good = { step: 0, accuracy: 1, tokens: 8, turns: 2, lambdaTok: 0, reward: 1, silenceKnown: 1, silenceUnknown: 0 };

describe('robustness --judge reads every figure through the table', () => {
  it.each([
    ['silenceKnown', 7, /line 2: eval\.silenceKnown must be in \[0, 1\], got 7/],
    ['silenceUnknown', -5, /line 2: eval\.silenceUnknown must be in \[0, 1\], got -5/],
    ['tokensUnknown', -1, /line 2: eval\.tokensUnknown must be in \[0, Infinity\], got -1/],
  ])('%s %d: exit 2 naming the file, the line and the field', (key, value, pattern) => {
    const dir = tempDir(), cell = join(dir, 'clean-digits=3');
    mkdirSync(cell);
    writeFileSync(join(cell, 'evals.jsonl'), line(good) + line({ ...good, step: 160, [key]: value }));
    const r = gspo(['robustness', '--judge', dir, '--grid', 'clean']);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(lines[0]).toContain(join(cell, 'evals.jsonl'));
    expect(r.stdout).toBe('');
  }, 60_000);
});

describe('the table', () => {
  it('holds every figure every preset\'s environment puts in an eval record', () => {
    for (const p of PRESETS) {
      const env = createEnv(presetConfig(p));
      for (const k of Object.keys(env.evalExtras([]))) expect(Object.keys(EVAL_RANGES), `${p.name}: ${k}`).toContain(k);
    }
  });
  it('the writer\'s check and the reader\'s agree: rates in [0, 1], counts >= 0, an extra may be NaN, a core figure may not', () => {
    expect(evalRecordProblem({ ...good })).toBeNull();
    expect(evalRecordProblem({ ...good, silenceKnown: NaN })).toBeNull();
    expect(evalRecordProblem({ ...good, silenceKnown: 7 })).toBe('silenceKnown must be in [0, 1], got 7');
    expect(evalRecordProblem({ ...good, deadlockRate: 1.5 })).toBe('deadlockRate must be in [0, 1], got 1.5');
    expect(evalRecordProblem({ ...good, accuracy: NaN })).toBe('accuracy must be a finite number, got NaN');
    expect(evalRecordProblem({ ...good, tokens: Infinity })).toBe('tokens must be in [0, Infinity], got Infinity');
    expect(evalRecordProblem({ ...good, newFigure: 3 })).toBeNull();
    expect(() => evalRecord({ ...good, silenceUnknown: -5 }, 'e')).toThrow('e.silenceUnknown must be in [0, 1], got -5');
    expect(() => evalRecord({ ...good, mealsPerPhilosopher: -0.5 }, 'e')).toThrow('e.mealsPerPhilosopher must be in [0, Infinity], got -0.5');
  });
});
