// `robustness --judge DIR`: the cells of a run folder judged without training, against
// hand-worked verdicts (the noisy relay's optimum at eps 0.3, lambda_tok 0.1: 2 copies,
// accuracy 0.3 + 0.7 (1 - 0.9 x 0.09) = 0.943).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, tempDir } from './run';

const line = (o: Record<string, number>) => JSON.stringify({ turns: 2, lambdaTok: 0.1, reward: 0, ...o });

describe('robustness --judge', () => {
  it('passes and fails cells by the lesson\'s rules and lists an unfinished cell as such', () => {
    const dir = tempDir();
    const cell = (label: string, evals: Record<string, number>[]) => {
      mkdirSync(join(dir, label), { recursive: true });
      writeFileSync(join(dir, label, 'evals.jsonl'), evals.map(line).join('\n') + '\n');
    };
    const warm = { step: 0, accuracy: 1, tokens: 6.29, silenceKnown: 0, tokensUnknown: 6 };
    cell('noisy-eps=0.3-lambda=0.1', [warm, { step: 80, accuracy: 0.94, tokens: 2, silenceKnown: 1, tokensUnknown: 2.9 }]); // pass
    cell('noisy-eps=0.3-lambda=0.3', [warm, { step: 80, accuracy: 0.5, tokens: 0.3, silenceKnown: 1, tokensUnknown: 0.4 }]); // optimum 1 copy, 0.811: accuracy fails
    cell('noisy-eps=0.1-lambda=0.1', [warm, { step: 40, accuracy: 0.94, tokens: 1, silenceKnown: 1, tokensUnknown: 1 }]); // stopped at step 40 of 80
    const doc = join(dir, 'robustness.md');
    const r = gspo(['robustness', '--grid', 'noisy', '--shipped', '--judge', dir, '--doc', doc]);
    expect(r.code, r.stderr).toBe(0);
    const verdict = (label: string) => r.json.cells.find((c: { label: string }) => c.label === label);
    expect(verdict('noisy-eps=0.3-lambda=0.1')).toEqual({ label: 'noisy-eps=0.3-lambda=0.1', pass: true, why: '' });
    expect(verdict('noisy-eps=0.3-lambda=0.3').why).toBe('accuracy 0.500, needs 0.811 +- 0.03 (the optimum)');
    expect(verdict('noisy-eps=0.1-lambda=0.1').why).toBe('not finished: its last eval is at step 40 of 80');
    expect(verdict('noisy-eps=0.5-lambda=0.01').why).toMatch(/^not finished: no eval yet/);
    expect(r.json.pass).toBe(1);
    // judged with the recipe (no --shipped), the lambda 0.3 cell wants 160 steps: 80 at the start penalty, 80 at 0.3
    const withRecipe = gspo(['robustness', '--grid', 'noisy', '--judge', dir]);
    expect(withRecipe.code, withRecipe.stderr).toBe(0);
    expect(withRecipe.json.cells.find((c: { label: string }) => c.label === 'noisy-eps=0.3-lambda=0.3').why).toBe('not finished: its last eval is at step 80 of 160');
    expect(withRecipe.json.cells.find((c: { label: string }) => c.label === 'noisy-eps=0.3-lambda=0.1').pass).toBe(true); // the calibrated point: no recipe
    const md = readFileSync(doc, 'utf8');
    expect(md).toContain('12 cells, 1 pass, 11 fail.');
    expect(md).toContain('- **noisy-eps=0.3-lambda=0.3**: accuracy 0.500, needs 0.811 +- 0.03 (the optimum)');
  });
});
