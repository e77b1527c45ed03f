// Every file the CLI takes goes through one reader. A folder,
// /dev/zero or a FIFO with no writer is refused by its kind before it is opened (no hang); the
// size is checked before reading; text is strict UTF-8; evals.jsonl lines are checked one by one
// and the message names the file and the line. Through the CLI: exit 2, one line, nothing on stdout.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { readInputBytes, readInputText, readJsonLines } from '../../src/cli/inputFile';
import { readEvalsFile } from '../../src/cli/evalsFile';
import { gspo, tempDir } from '../cli/run';

let dir = '', fifo = '';
beforeAll(() => {
  dir = tempDir();
  fifo = join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  mkdirSync(join(dir, 'folder'));
});

function expectExit2(args: string[], pattern: RegExp): void {
  const t0 = Date.now();
  const r = gspo(args);
  expect(Date.now() - t0, 'it must not wait on the file').toBeLessThan(60_000);
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.stdout).toBe('');
}

describe('the reader refuses what is not a regular file, before opening it', () => {
  it.each([
    ['folder', () => join(dir, 'folder'), /is a folder, not a file/],
    ['/dev/zero', () => '/dev/zero', /is a character device, not a file/],
    ['a FIFO with no writer', () => fifo, /is a FIFO \(named pipe\), not a file/],
    ['missing', () => join(dir, 'nothing-here'), /does not exist/],
    ['empty path', () => '', /path is empty/],
  ])('%s', (_name, path, pattern) => {
    const t0 = performance.now();
    expect(() => readInputBytes(path(), 'checkpoint', 1 << 20)).toThrow(InputError);
    expect(() => readInputBytes(path(), 'checkpoint', 1 << 20)).toThrow(pattern);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('caps the size before reading, and reads a regular file whole', () => {
    const p = join(dir, 'ten.bin');
    writeFileSync(p, new Uint8Array(10).fill(7));
    expect(() => readInputBytes(p, 'batch file', 9)).toThrow(/is 10 bytes, more than the limit of 9/);
    expect(Array.from(readInputBytes(p, 'batch file', 10))).toEqual([7, 7, 7, 7, 7, 7, 7, 7, 7, 7]);
  });

  it('decodes strict UTF-8: UTF-16 text and stray bytes are refused, not replaced', () => {
    const p = join(dir, 'utf16.json');
    writeFileSync(p, Buffer.from('\ufeff{"a":1}', 'utf16le'));
    expect(() => readInputText(p, 'batch file', 1000)).toThrow(/is not UTF-8 text/);
    writeFileSync(p, Buffer.from([0x7b, 0xff, 0x7d]));
    expect(() => readInputText(p, 'batch file', 1000)).toThrow(/is not UTF-8 text/);
    writeFileSync(p, 'ok é');
    expect(readInputText(p, 'batch file', 1000)).toBe('ok é');
  });

  it('JSON lines: the message names the file and the line', () => {
    const p = join(dir, 'lines.jsonl');
    writeFileSync(p, '1\n\n2\n[oops\n');
    expect(() => readJsonLines(p, 'evals file', 1000, (v) => v)).toThrow(new RegExp(`evals file "${p}" line 4 is not JSON`));
    writeFileSync(p, Buffer.concat([Buffer.from('"a"\n'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]));
    expect(() => readJsonLines(p, 'evals file', 1000, (v) => v)).toThrow(/line 2 is not UTF-8 text/);
  });
});

describe('evals.jsonl lines go through the eval schema', () => {
  const good = { step: 0, accuracy: 0.5, tokens: 3, turns: 2, lambdaTok: 0.1, reward: 0.4 };
  it.each([
    ['not JSON', 'accuracy: 1', /line 2 is not JSON/],
    ['an array', '[1, 2]', /line 2: eval must be an object/],
    ['null', 'null', /line 2: eval must be an object/],
    ['{}', '{}', /line 2: eval\.step is missing/],
    ['a string accuracy', JSON.stringify({ ...good, accuracy: '0.9' }), /line 2: eval\.accuracy is "0\.9", not a number/],
    ['accuracy 5', JSON.stringify({ ...good, accuracy: 5 }), /line 2: eval\.accuracy must be in \[0, 1\], got 5/],
    ['tokens -3', JSON.stringify({ ...good, tokens: -3 }), /line 2: eval\.tokens must be in \[0, Infinity\], got -3/],
  ])('%s', (_name, text, pattern) => {
    const p = join(dir, 'evals.jsonl');
    writeFileSync(p, JSON.stringify(good) + '\n' + text + '\n');
    expect(() => readEvalsFile(p)).toThrow(InputError);
    expect(() => readEvalsFile(p)).toThrow(pattern);
  });

  it('a line train wrote (a NaN extra is null there) reads', () => {
    const p = join(dir, 'evals-ok.jsonl');
    writeFileSync(p, JSON.stringify({ ...good, silenceKnown: null }) + '\n');
    const [e] = readEvalsFile(p);
    expect(e.accuracy).toBe(0.5);
    expect(Number.isNaN((e as unknown as Record<string, number>).silenceKnown)).toBe(true);
  });
});

describe('through the CLI: exit 2 naming the file, never a hang or an internal error', () => {
  const lp = (p: string) => ['logprobs', '--checkpoint', p, '--tokens', '1,2', '--backend', 'cpu'];
  it('a folder as eval --checkpoint', () => {
    expectExit2(['eval', '--preset', 'relay-silence', '--checkpoint', join(dir, 'folder'), '--backend', 'cpu'], /checkpoint ".*folder" is a folder, not a file/);
  }, 90_000);
  it('/dev/zero as logprobs --checkpoint', () => expectExit2(lp('/dev/zero'), /"\/dev\/zero" is a character device/), 90_000);
  it('a FIFO as grad --checkpoint', () => {
    expectExit2(['grad', '--checkpoint', fifo, '--batch', fifo, '--backend', 'cpu'], /checkpoint ".*pipe" is a FIFO/);
  }, 90_000);

  it('robustness --judge: a bad evals line is exit 2 naming file and line, never PASS', () => {
    const judge = tempDir();
    const cell = join(judge, 'noisy-eps=0.3-lambda=0.1');
    mkdirSync(cell);
    const line = (o: object) => JSON.stringify({ turns: 2, lambdaTok: 0.1, reward: 0, tokensUnknown: 2.9, silenceKnown: 1, ...o });
    writeFileSync(join(cell, 'evals.jsonl'), [line({ step: 0, accuracy: 1, tokens: 6 }), line({ step: 80, accuracy: 5, tokens: -3 })].join('\n') + '\n');
    expectExit2(['robustness', '--grid', 'noisy', '--judge', judge], /evals file ".*noisy-eps=0\.3-lambda=0\.1\/evals\.jsonl" line 2: eval\.accuracy must be in \[0, 1\], got 5/);
    // evals.jsonl that is itself a folder
    const other = join(judge, 'noisy-eps=0.1-lambda=0.1', 'evals.jsonl');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(cell, 'evals.jsonl'), line({ step: 0, accuracy: 1, tokens: 6 }) + '\n');
    expectExit2(['robustness', '--grid', 'noisy', '--judge', judge], /evals file ".*noisy-eps=0\.1-lambda=0\.1\/evals\.jsonl" is a folder, not a file/);
  }, 180_000);
});
