// The task editor's first example (TASK_EXAMPLES[0], examples/tasks/priority.js) is there to show that
// lambda_tok trades accuracy for tokens: a sweep over the values the page's Sweep panel offers a task
// (defaultSweep), 40 steps (of the task's 60: the largest lambda_tok has dropped to one digit by then),
// on the CPU engine from its shipped warm start, must end with at least two different mean token
// counts, fewer tokens (never more) as lambda_tok grows, and the cheapest member paying in accuracy.
// A one-role task (reverse.js) sends no message, so every member ends at the same count and the first
// assertion fails there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSweep } from '../../src/rl/sweep';
import type { RunConfig } from '../../src/config';
import { TASK_EXAMPLES } from '../../src/store/taskSlice';
import { gspo, tempDir } from './run';

const FIRST = TASK_EXAMPLES[0].name;
const VALUES = defaultSweep({} as RunConfig).values;

describe(`the first example task (${FIRST}): lambda_tok trades accuracy for tokens`, () => {
  it(`a sweep over lambda_tok ${VALUES.join(', ')} ends at two or more token counts, fewer as lambda_tok grows`, () => {
    const out = join(tempDir(), 'sweep');
    // evals only at the start and the end (the chart plots the final one)
    const r = gspo(['sweep', '--task', join('examples/tasks', `${FIRST}.js`), '--lambdas', VALUES.join(','), '--backend', 'cpu', '--set', 'steps=40', '--set', 'evalEvery=40', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    const runs = [...s.runs].sort((a: { value: number }, b: { value: number }) => a.value - b.value) as { value: number; final: { tokens: number; accuracy: number; step: number } }[];
    expect(runs.map((x) => x.value)).toEqual([...VALUES].sort((a, b) => a - b));
    const tokens = runs.map((x) => Math.round(x.final.tokens * 10) / 10);
    const seen = `tokens ${tokens.join(', ')} at lambda_tok ${runs.map((x) => x.value).join(', ')}`;
    expect(new Set(tokens).size, seen).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i], seen).toBeLessThanOrEqual(tokens[i - 1]);
    // the tokens saved are paid for: the cheapest member is less accurate than the unpenalized one
    expect(runs[runs.length - 1].final.accuracy).toBeLessThan(runs[0].final.accuracy);
  }, 300_000);
});
