// `lesson --list` and `lesson NAME|FILE --check` on the CPU engine: every shipped lesson's checks pass at a
// quarter of its steps (the file: 44 s on 2 shared cores, docs/lessons.md), a failed check exits 1 naming expected and got,
// bad input exits 2 with one line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHIPPED_LESSONS } from '../../src/lessons';
import { gspo, tempDir } from './run';

const SCALE = '0.25';
/**
 * lambda-frontier trains its whole 40 steps (about 9 s): its warm start sends every number of copies, so in 10 steps
 * the runs at lambda_tok 0, 0.03 and 0.1 all still hold 1.000 on the eval and only two are on the frontier.
 */
const scaleOf = (name: string) => (name === 'lambda-frontier' ? '1' : SCALE);

describe('lesson --list', () => {
  it('lists the shipped lessons, one a line, the name first', () => {
    const r = gspo(['lesson', '--list']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(['group-normalization', 'lambda-frontier', 'strategic-silence', 'collaborator', 'reward-hack']);
    expect(lines[0]).toMatch(/^group-normalization\s+GRPO's group normalization in one step \(2 steps, about 1 min\)$/);
  });
});

describe('lesson NAME --check (steps x 0.25; lambda-frontier whole)', () => {
  for (const l of SHIPPED_LESSONS) {
    it(`${l.name}: every check passes`, () => {
      const r = gspo(['lesson', l.name, '--check', '--steps-scale', scaleOf(l.name)], { GSPO_THREADS: '2' });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines).toHaveLength(l.steps.length);
      lines.forEach((line, i) => expect(line).toMatch(new RegExp(`^step ${i + 1} pass .*: expected .*, got .*`)));
      expect(r.stderr).toMatch(new RegExp(`lesson ${l.name}: all ${l.steps.length} checks passed \\(.* s${scaleOf(l.name) === '1' ? '' : ', steps x 0.25'}\\)`));
    });
  }
});

const lessonFile = (dir: string, check: unknown, extra: Record<string, unknown> = {}) => {
  const path = join(dir, 'mine.json');
  writeFileSync(path, JSON.stringify({
    lesson: 'gspo-lesson/1', name: 'mine', title: 'Mine', about: 'A test.', ...extra,
    steps: [{ title: 'Flat groups', setting: '?v=1&preset=relay-noisy-quick&lambdaTok=0&recipe=off', controls: ['step'], do: 'Step.', action: { do: 'step' }, check, explain: 'x' }],
  }));
  return path;
};

describe('lesson FILE --check', () => {
  it('a failed check exits 1 with its expected and got', () => {
    const r = gspo(['lesson', lessonFile(tempDir(), { zeroStdGroups: '>=9' }), '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^step 1 FAIL Flat groups: expected groups whose rewards are all equal >= 9 \(of 8\) at the last step, got \d \(step 1\)/);
    expect(r.stderr.trim().split('\n').pop()).toMatch(/^gspo: lesson mine: 1 of 1 checks failed/);
  });
  it('bad input exits 2 with one line naming each problem', () => {
    const unknown = gspo(['lesson', 'no-such-lesson', '--check']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toMatch(/^gspo: unknown lesson "no-such-lesson" \(lessons: group-normalization, lambda-frontier, /);
    const badFile = gspo(['lesson', lessonFile(tempDir(), { flag: 'hack' }, { teacher: 'me' }), '--check']);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr.trim().split('\n')).toHaveLength(1);
    expect(badFile.stderr).toMatch(/: 2 problems: unknown field "teacher" .*; step 1 check \(flag\): unknown flag "hack"/);
    const noCheck = gspo(['lesson', 'collaborator']);
    expect(noCheck.code).toBe(2);
    expect(noCheck.stderr.trim()).toBe('gspo: lesson collaborator: add --check to run it (or --list to list the shipped lessons)');
    const scale = gspo(['lesson', 'collaborator', '--check', '--steps-scale', '2']);
    expect(scale.code).toBe(2);
    expect(scale.stderr.trim()).toBe('gspo: lesson: --steps-scale must be a number in (0, 1], got 2');
  });
});
