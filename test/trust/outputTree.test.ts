// One output check for a job's whole tree (src/cli/outputTree.ts): before anything trains, every member folder
// and every file a member writes. A member folder holding a folder named config.json was an internal error with
// a stack for sweep, --sequential and compare (EISDIR in the member) and a failed run for study; now every job
// refuses it with one line naming the path, exit 2, and writes nothing.
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, tempDir } from '../cli/run';

const TINY = ['--backend', 'cpu', '--set', 'steps=1', '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--set', 'minibatches=1', '--set', 'evalEpisodes=8'];
const listing = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

/** A job folder whose member `member` holds a folder named `file`; the command refused with one line naming it. */
function refusedFor(member: string, file: string, args: (out: string) => string[]): void {
  const out = tempDir();
  mkdirSync(join(out, member, file), { recursive: true });
  const before = listing(out);
  const r = gspo(args(out));
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toBe(`gspo: --out "${out}": "${join(out, member, file)}" is a folder, so the run's file cannot be written there`);
  expect(r.stdout).toBe('');
  expect(listing(out)).toEqual(before); // nothing trained, nothing written
}

describe('a member folder holding a folder where a run writes a file', () => {
  it('sweep (a population)', () => refusedFor('lambda_tok=0.5', 'config.json', (out) => ['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.5', ...TINY, '--out', out]), 60_000);
  it('sweep --sequential', () => refusedFor('lambda_tok=0', 'config.json', (out) => ['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.5', '--sequential', ...TINY, '--out', out]), 60_000);
  it('sweep --vs-static: the static twin\'s folder too, before the dual runs train', () => refusedFor('static-B=1', 'last.safetensors', (out) => ['sweep', '--preset', 'relay-noisy-dr', '--budgets', '1', '--vs-static', ...TINY, '--out', out]), 60_000);
  it('compare', () => refusedFor('grpo', 'config.json', (out) => ['compare', '--preset', 'relay-noisy-dr', '--losses', 'gspo,grpo', ...TINY, '--out', out]), 60_000);
  it('study', () => refusedFor('static-lambda=0-seed=1', 'evals.jsonl', (out) => ['study', 'dual-static', '--budgets', '1', '--lambdas', '0', '--seeds', '1', '--backend', 'cpu', '--out', out]), 60_000);
  it('robustness', () => refusedFor('clean-digits=3', 'metrics.jsonl', (out) => ['robustness', '--grid', 'clean', '--out', out]), 60_000);

  it('a member file that is a link to nowhere: refused naming it', () => {
    const out = tempDir();
    mkdirSync(join(out, 'gspo'));
    symlinkSync(join(out, 'missing', 'x'), join(out, 'gspo', 'evals.jsonl'));
    const r = gspo(['compare', '--preset', 'relay-noisy-dr', '--losses', 'gspo,grpo', ...TINY, '--out', out]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(`gspo: --out "${out}": "${join(out, 'gspo', 'evals.jsonl')}" is a link to nowhere where a run's file must go`);
  }, 60_000);
});
