// The pieces of job resume (src/cli/resumeState.ts, src/cli/jobResume.ts) without training: NaN survives the saved
// counters, the fields that differ are named, the resume command is the same words a shell reads back (with --out,
// without --fresh), a job folder of other settings is refused and --fresh removes only a run's files.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { differingFields, exactJson, parseExact, removeStaleTemps } from '../../src/cli/resumeState';
import { openJob, resumeCommand, savedPhrase, shellWord } from '../../src/cli/jobResume';
import { InputError } from '../../src/contract/errors';
import { tempDir } from './run';

describe('resume state', () => {
  it('keeps NaN and the infinities through JSON (an eval extra may be NaN; JSON alone makes it null)', () => {
    const x = { evals: [{ step: 0, accuracy: 0.5, extra: NaN, up: Infinity, down: -Infinity }], name: 'NaN' };
    const back = parseExact(exactJson(x)) as typeof x;
    expect(Number.isNaN(back.evals[0].extra)).toBe(true);
    expect(back.evals[0].up).toBe(Infinity);
    expect(back.evals[0].down).toBe(-Infinity);
    expect(back.name).toBe('NaN'); // a string stays a string
    expect(Object.keys(back.evals[0])).toEqual(Object.keys(x.evals[0])); // the order evals.jsonl is written in
  });

  it('names the fields that differ', () => {
    expect(differingFields({ a: 1, b: [1, 2], c: 'x' }, { a: 1, b: [1, 3], d: 2 })).toEqual(['b', 'c', 'd']);
    expect(differingFields({ a: 1 }, { a: 1 })).toEqual([]);
  });

  it('removes the temp folders a killed atomic write left, nothing else', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.resume.safetensors.tmp-AbC123'));
    writeFileSync(join(dir, 'resume.json'), '{}');
    removeStaleTemps(dir);
    expect(existsSync(join(dir, '.resume.safetensors.tmp-AbC123'))).toBe(false);
    expect(existsSync(join(dir, 'resume.json'))).toBe(true);
  });
});

describe('job resume', () => {
  it('the resume command: the same words, shell-quoted, with --out where it was the default, without --fresh', () => {
    expect(resumeCommand('runs/s-1', ['sweep', '--preset', 'relay-silence', '--lambdas', '0,0.1', '--fresh'])).toBe('npm run gspo -- sweep --preset relay-silence --lambdas 0,0.1 --out runs/s-1');
    expect(resumeCommand('x', ['study', 'dual-static', '--out', "it's here"])).toBe(`npm run gspo -- study dual-static --out 'it'\\''s here'`);
    expect(shellWord('a b;rm -rf /')).toBe(`'a b;rm -rf /'`);
  });

  it('refuses a folder of other settings naming the field, continues one of the same, --fresh removes only a run\'s files', () => {
    const out = join(tempDir(), 'job');
    const settings = { preset: 'p', '--set steps': '2' };
    openJob(out, 'sweep', settings, ['m1'], ['sweep.json'], false); // a new job: job.json, not done
    mkdirSync(join(out, 'm1'));
    for (const f of ['config.json', 'evals.jsonl', 'result.json']) writeFileSync(join(out, 'm1', f), '{}');
    writeFileSync(join(out, 'm1', 'mine.txt'), 'kept');
    writeFileSync(join(out, 'sweep.json'), '{"runs":[]}');
    expect(() => openJob(out, 'sweep', { ...settings, '--set steps': '60' }, ['m1'], ['sweep.json'], false)).toThrow(InputError);
    expect(() => openJob(out, 'sweep', { ...settings, '--set steps': '60' }, ['m1'], ['sweep.json'], false)).toThrow(/--set steps \(2 then, 60 now\)/);
    expect(() => openJob(out, 'compare', settings, ['m1'], ['sweep.json'], false)).toThrow(/holds a sweep, not a compare/);
    expect(savedPhrase(out, ['m1'])).toBe('1 of 1 runs finished');
    const same = openJob(out, 'sweep', settings, ['m1'], ['sweep.json'], false);
    expect(same.finished).toBeNull(); // not marked done yet
    same.done();
    expect(openJob(out, 'sweep', settings, ['m1'], ['sweep.json'], false).finished).toEqual({ runs: [] });
    openJob(out, 'sweep', { ...settings, '--set steps': '60' }, ['m1'], ['sweep.json'], true);
    expect(existsSync(join(out, 'sweep.json'))).toBe(false);
    for (const f of ['config.json', 'evals.jsonl', 'result.json']) expect(existsSync(join(out, 'm1', f))).toBe(false);
    expect(readFileSync(join(out, 'm1', 'mine.txt'), 'utf8')).toBe('kept');
    expect(JSON.parse(readFileSync(join(out, 'job.json'), 'utf8')).settings['--set steps']).toBe('60');
  });
});
