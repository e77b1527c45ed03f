// One rule for the jobs of several runs (src/cli/jobRuns.ts): a run that fails (here: a file it writes is on a
// full device, /dev/full) is named, the others finish and are kept in the job's file, and the job exits 1 with
// one line naming the failed runs. It used to be an internal error for sweep and compare (losing the finished
// runs) and exit 0 for study.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runsFailed, RUNS_FAILED_EXIT } from '../../src/cli/jobRuns';
import { gspo, tempDir } from './run';

const TINY = ['--backend', 'cpu', '--set', 'steps=2', '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--set', 'minibatches=1',
  '--set', 'evalEpisodes=8', '--set', 'evalEvery=1'];
const full = existsSync('/dev/full');

/** `file` in the member folder `dir` as a link to /dev/full: every write to it fails with ENOSPC. */
function onFullDevice(dir: string, file: string): void {
  mkdirSync(dir, { recursive: true });
  symlinkSync('/dev/full', join(dir, file));
}

function expectFailedLine(stderr: string, command: string, failed: string[], total: number): string {
  const last = stderr.trim().split('\n').filter((l) => l.startsWith('gspo: '));
  expect(last, stderr).toHaveLength(1);
  expect(last[0]).toMatch(new RegExp(`^gspo: ${command}: ${failed.length} of ${total} runs failed: `));
  for (const f of failed) expect(last[0]).toContain(f);
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
  return last[0];
}

describe('a job in which a run failed', () => {
  it('the rule: one line naming each failed run, with where the finished ones are', () => {
    expect(runsFailed('sweep', 3, [], 'x')).toBeNull();
    const e = runsFailed('sweep', 3, [{ label: 'a', message: 'no space' }, { label: 'b', message: 'skipped updates' }], 'out/sweep.json')!;
    expect(e.message).toBe('sweep: 2 of 3 runs failed: a (no space); b (skipped updates); the 1 that finished are in out/sweep.json');
    expect(RUNS_FAILED_EXIT).toBe(1);
  });

  it.skipIf(!full)('sweep: exit 1 naming the failed run; the other run is in sweep.json, the failed one under failed', () => {
    const out = join(tempDir(), 'sw');
    onFullDevice(join(out, 'lambda_tok=0.5'), 'metrics.jsonl');
    const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.5', ...TINY, '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    expectFailedLine(r.stderr, 'sweep', ['lambda_tok=0.5'], 2);
    expect(r.stdout).toBe('');
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(s.runs.map((x: { label: string }) => x.label)).toEqual(['lambda_tok=0']);
    expect(s.failed.map((x: { label: string }) => x.label)).toEqual(['lambda_tok=0.5']);
    expect(s.failed[0].message).toMatch(/no space left/);
    expect(existsSync(join(out, 'lambda_tok=0', 'last.safetensors'))).toBe(true);
  });

  it.skipIf(!full)('sweep --sequential: the same', () => {
    const out = join(tempDir(), 'seq');
    onFullDevice(join(out, 'lambda_tok=0'), 'evals.jsonl');
    const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.5', '--sequential', ...TINY, '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    expectFailedLine(r.stderr, 'sweep', ['lambda_tok=0'], 2);
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(s.runs.map((x: { label: string }) => x.label)).toEqual(['lambda_tok=0.5']);
  });

  it.skipIf(!full)('compare: exit 1 naming the failed variant; the other one is in compare.json', () => {
    const out = join(tempDir(), 'cmp');
    onFullDevice(join(out, 'grpo'), 'evals.jsonl');
    const r = gspo(['compare', '--preset', 'relay-noisy-dr', '--losses', 'gspo,grpo', ...TINY, '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    expectFailedLine(r.stderr, 'compare', ['grpo'], 2);
    const c = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8'));
    expect(c.runs.map((x: { loss: string }) => x.loss)).toEqual(['gspo']);
    expect(c.failed.map((x: { label: string }) => x.label)).toEqual(['grpo']);
  });

  it.skipIf(!full)('study: every run failed is exit 1 (it was 0), naming both; study.json lists them', () => {
    const out = join(tempDir(), 'st');
    for (const label of ['dual-B=1-seed=1', 'static-lambda=0-seed=1']) onFullDevice(join(out, label), 'config.json');
    const r = gspo(['study', 'dual-static', '--budgets', '1', '--lambdas', '0', '--seeds', '1', '--backend', 'cpu', '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    const line = expectFailedLine(r.stderr, 'study dual-static', ['dual-B=1-seed=1', 'static-lambda=0-seed=1'], 2);
    expect(line).toMatch(/none finished/);
    const s = JSON.parse(readFileSync(join(out, 'study.json'), 'utf8'));
    expect(s.failed.map((x: { label: string }) => x.label)).toEqual(['dual-B=1-seed=1', 'static-lambda=0-seed=1']);
  });
});
