// The task editor's first example (TASK_EXAMPLES[0], examples/tasks/priority.js) is there to show that
// lambda_tok trades accuracy for tokens, each lambda_tok with its own best message length. Its digits
// are worth 0.6, 0.3 and 0.1 of the score, and a digit the solver is not sent it guesses (right 1 time
// in 10), so the k-th digit pays while 0.9 x its worth beats lambda_tok: the optimum is the number of
// digits with 0.9 w > lambda_tok (a prefix, the worths fall). The sweep its header names, on the CPU
// engine from its shipped warm start and within the task's own 60 steps, must end every member at that
// optimum (greedy mean tokens within 0.5 of it): 3, 3, 2, 1 and 0 digits. With the warm start's demos
// at 70% the whole code, every member stayed at 3 (tokens 3, 3, 3, 3, 3 at step 60). A one-role task
// (reverse.js) sends no message, so every member ends at 0 tokens and the test fails there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TASK_EXAMPLES } from '../../src/store/taskSlice';
import { gspo, tempDir } from './run';

const FIRST = TASK_EXAMPLES[0].name;
const WORTH = [0.6, 0.3, 0.1];
const LAMBDAS = [0, 0.05, 0.15, 0.4, 0.8];
const optimum = (lambdaTok: number) => WORTH.filter((w) => 0.9 * w > lambdaTok).length;

describe(`the first example task (${FIRST}): each lambda_tok reaches its own best length`, () => {
  it(`a sweep over lambda_tok ${LAMBDAS.join(', ')} ends at ${LAMBDAS.map(optimum).join(', ')} digits within the task's 60 steps`, () => {
    expect(readFileSync(join('examples/tasks', `${FIRST}.js`), 'utf8')).toMatch(/const W = \[0\.6, 0\.3, 0\.1\]/); // the worths above
    const out = join(tempDir(), 'sweep');
    // evals only at the start and the end
    const r = gspo(['sweep', '--task', join('examples/tasks', `${FIRST}.js`), '--lambdas', LAMBDAS.join(','), '--backend', 'cpu', '--set', 'evalEvery=60', '--out', out]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    const runs = [...s.runs].sort((a: { value: number }, b: { value: number }) => a.value - b.value) as { value: number; final: { tokens: number; accuracy: number; step: number } }[];
    expect(runs.map((x) => x.value)).toEqual(LAMBDAS);
    const seen = `tokens ${runs.map((x) => x.final.tokens.toFixed(2)).join(', ')} at lambda_tok ${LAMBDAS.join(', ')}`;
    for (const run of runs) {
      expect(run.final.step).toBe(60);
      expect(Math.abs(run.final.tokens - optimum(run.value)), seen).toBeLessThan(0.5);
    }
    // the tokens saved are paid for: the cheapest member is less accurate than the unpenalized one
    expect(runs[runs.length - 1].final.accuracy).toBeLessThan(runs[0].final.accuracy);
  }, 300_000);
});
