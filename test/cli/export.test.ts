// `export` through the real CLI: files land in --out; bad input exits 2 with one line.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, tempDir } from './run';

describe('gspo export', () => {
  it('writes the TRL recipe with a --set override applied', () => {
    const out = join(tempDir(), 'trl');
    const r = gspo(['export', '--preset', 'relay-silence', '--set', 'groupSize=4', '--to', 'trl', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.files).toEqual(['train_grpo.py', 'rewards.py', 'toy_tasks.py', 'deepspeed_zero3.yaml', 'README.md']);
    for (const f of r.json.files) expect(existsSync(join(out, f))).toBe(true);
    expect(readFileSync(join(out, 'train_grpo.py'), 'utf8')).toContain('num_generations=4,');
  }, 60_000);

  it.each([
    [['export', '--preset', 'relay-silence', '--to', 'openrlhf', '--out', '/tmp/x'], /--to must be one of trl, verl; got "openrlhf"/],
    [['export', '--preset', 'relay-silence', '--out', '/tmp/x'], /--to is required/],
    [['export', '--preset', 'relay-silence', '--to', 'trl'], /--out is required/],
    [['export', '--preset', 'nope', '--to', 'trl', '--out', '/tmp/x'], /nope/],
    [['export', '--preset', 'relay-silence', '--set', 'groupSize=0', '--to', 'verl', '--out', '/tmp/x'], /groupSize must be in \[1, 64\]/],
  ])('bad input %j exits 2 with one line', (args, pattern) => {
    const r = gspo(args as string[]);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^gspo: /);
    expect(lines[0]).toMatch(pattern);
  }, 60_000);
});
