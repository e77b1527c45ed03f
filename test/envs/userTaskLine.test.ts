// The CLI's one line for a failed Check: the rule and function go in front of a message that may already
// be at its cap, and the whole stays one line under 300 characters that says how long the text was.
import { describe, expect, it } from 'vitest';
import { problemsLine, type TaskCheck } from '../../src/envs/userTask/check';
import { oneLine } from '../../src/envs/userTask/failure';

const checkOf = (problems: TaskCheck['problems']): TaskCheck => ({ ok: false, problems, spec: null, episodes: [], demos: [] });

describe('a failed check as one line', () => {
  it('a 20 MB message: under 300 characters, its length said at the end', () => {
    const text = 'sample threw Error: ' + 'x'.repeat(20 * 2 ** 20);
    const line = oneLine(text);
    expect(line.length).toBeLessThan(300);
    expect(line.endsWith(`... (${text.length} characters)`)).toBe(true);
  });

  it('the tag in front of a message at its cap: still under 300 characters', () => {
    const message = oneLine('sample threw Error: ' + 'x'.repeat(2000));
    const line = problemsLine(checkOf([{ rule: 'runs', fn: 'sample', message } as TaskCheck['problems'][number]]));
    expect(line.startsWith('[runs: sample] sample threw Error: xxx')).toBe(true);
    expect(line.length).toBeLessThan(300);
    expect(line).toMatch(/\(\d+ characters\)$/);
  });

  it('a short message is left whole', () => {
    expect(problemsLine(checkOf([{ rule: 'score', fn: 'score', message: 'score returned NaN' } as TaskCheck['problems'][number]]))).toBe('[score: score] score returned NaN');
  });
});
