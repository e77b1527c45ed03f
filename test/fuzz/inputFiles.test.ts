// Fuzz: the CLI's one reader (src/cli/inputFile.ts) on paths that are not regular files, and the
// evals.jsonl lines robustness --judge and compare read back (src/cli/evalsFile.ts). Every input
// ends as an InputError (bounded message) or an accepted value that passes the invariants, within
// a second: no hang on a FIFO or a device, no read past the cap, no eval out of its ranges.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { readInputBytes, readInputText, readJsonLines } from '../../src/cli/inputFile';
import { evalLine, readEvalsFile } from '../../src/cli/evalsFile';
import { EDGE_JSON, EDGE_VALUES, editObject, int, paths, pick, seeded, Tally } from './harness';
import { tempDir } from '../cli/run';

const CASES = 10_000, CAP = 4096;

describe('fuzz: the reader on every kind of path', () => {
  it('refuses what is not a regular file or is over the cap; reads the rest byte for byte', () => {
    const dir = tempDir();
    const at = (n: string) => join(dir, n);
    mkdirSync(at('folder'));
    execFileSync('mkfifo', [at('fifo')]);
    writeFileSync(at('empty'), '');
    writeFileSync(at('new\nline'), '{}');
    writeFileSync(at('big'), new Uint8Array(CAP + 1));
    writeFileSync(at('exact'), new Uint8Array(CAP).fill(65));
    for (const [link, to] of [['to-fifo', 'fifo'], ['to-folder', 'folder'], ['to-nothing', 'nothing'], ['to-zero', '/dev/zero'], ['to-exact', 'exact']]) symlinkSync(to.startsWith('/') ? to : at(to), at(link));
    execFileSync('sh', ['-c', `ln -s ${at('loop-a')} ${at('loop-b')} && ln -s ${at('loop-b')} ${at('loop-a')}`]);
    const rand = seeded(33_001);
    const files: string[] = [];
    for (let i = 0; i < 64; i++) { // random regular files, some invalid UTF-8, some over the cap
      const n = pick(rand, [0, 1, 7, 100, CAP, CAP + 1, CAP * 3]);
      const bytes = new Uint8Array(n);
      for (let j = 0; j < n; j++) bytes[j] = rand() < 0.9 ? 32 + int(rand, 90) : int(rand, 256);
      writeFileSync(at(`f${i}`), bytes);
      files.push(at(`f${i}`));
    }
    const PATHS = [
      'folder', 'fifo', 'empty', 'big', 'exact', 'to-fifo', 'to-folder', 'to-nothing', 'to-zero', 'to-exact', 'loop-a', 'nothing', 'folder/', 'exact/x',
    ].map(at).concat(['/dev/zero', '/dev/null', '/dev/urandom', '/dev/stdin', '/proc/self/mem', '/proc/self/status', '/', '', 'a\u0000b', at('new\nline'), at('no\nsuch'), 'x'.repeat(5000), '\ud800', ...files]);
    // a refusal is one line whatever the path holds (a newline in a name cannot split the message)
    const tally = new Tally('reader paths', (e) => e instanceof InputError && !e.message.includes('\n'));
    for (let k = 0; k < CASES; k++) {
      const p = pick(rand, PATHS), how = int(rand, 3);
      tally.run(how === 0 ? 'bytes' : how === 1 ? 'text' : 'lines', () => JSON.stringify(p.slice(0, 80)), () => {
        if (how === 0) return readInputBytes(p, 'checkpoint', CAP);
        if (how === 1) return readInputText(p, 'batch file', CAP);
        return readJsonLines(p, 'evals file', CAP, (v) => v);
      }, (v) => {
        // accepted: a regular file within the cap, read whole (its bytes, or its text)
        const disk = readFileSync(p);
        if (disk.length > CAP) return `read ${disk.length} bytes past the cap`;
        if (how === 0 && Buffer.compare(Buffer.from(v as Uint8Array), disk) !== 0) return 'bytes differ from the file';
        if (how === 1 && Buffer.compare(Buffer.from(v as string, 'utf8'), disk) !== 0) return 'text is not the file\'s strict UTF-8';
        return null;
      });
    }
    tally.report(CASES);
  }, 120_000);
});

describe('fuzz: evals.jsonl lines', () => {
  const good = { step: 80, accuracy: 0.94, tokens: 2, turns: 2, lambdaTok: 0.1, reward: 0.3, silenceKnown: 1, tokensUnknown: 2.9 };
  const invariant = (e: Record<string, number>): string | null => {
    if (!Number.isSafeInteger(e.step) || e.step < 0) return `step ${e.step}`;
    if (!(e.accuracy >= 0 && e.accuracy <= 1)) return `accuracy ${e.accuracy}`;
    if (!(e.tokens >= 0 && Number.isFinite(e.tokens))) return `tokens ${e.tokens}`;
    if (!(e.turns >= 0 && Number.isFinite(e.turns))) return `turns ${e.turns}`;
    if (!(e.lambdaTok >= 0 && e.lambdaTok <= 10)) return `lambdaTok ${e.lambdaTok}`;
    if ('reward' in e && !Number.isFinite(e.reward)) return `reward ${e.reward}`;
    for (const v of Object.values(e)) if (typeof v !== 'number') return `a ${typeof v} value`;
    return null;
  };
  it('each line: refused naming the line, or an eval within its ranges', () => {
    const all = paths(good), rand = seeded(33_002);
    const tally = new Tally('evals lines', (e) => e instanceof InputError || (e instanceof Error && e.name === 'RunFileError'));
    for (let k = 0; k < CASES; k++) {
      const r = rand();
      const value = r < 0.7 ? editObject(good, all, rand) : r < 0.85 ? pick(rand, EDGE_VALUES) : { ...good, [pick(rand, ['accuracy', 'tokens', 'step', 'lambdaTok', 'turns'])]: pick(rand, [5, -3, 1e308, -0, 0.5, '0.9', null, 2 ** 53, 1.5]) };
      tally.run('line', () => `case ${k}`, () => evalLine(value, 'eval'), (e) => invariant(e as unknown as Record<string, number>));
    }
    tally.report(CASES);
  });

  it('whole files of damaged lines: the error names the file and a line', () => {
    const dir = tempDir(), rand = seeded(33_003);
    const tally = new Tally('evals files', (e) => e instanceof InputError && / line \d+/.test(e.message) || (e instanceof InputError && /is (a folder|not UTF-8)/.test(e.message)));
    for (let k = 0; k < 1000; k++) {
      const lines = Array.from({ length: 1 + int(rand, 4) }, () => JSON.stringify({ ...good, step: int(rand, 100) }));
      const i = int(rand, lines.length);
      const damage = int(rand, 5);
      if (damage === 0) lines[i] = lines[i].slice(0, int(rand, lines[i].length));
      else if (damage === 1) lines[i] = pick(rand, EDGE_JSON); // JSON text as is: stringifying the 5,000-deep ones overflows the stack
      else if (damage === 2) lines[i] = lines[i].replace('0.94', pick(rand, ['"0.94"', '5', '-1', 'null', '1e999']));
      const p = join(dir, `e${k}.jsonl`);
      writeFileSync(p, damage === 3 ? Buffer.concat([Buffer.from(lines.join('\n')), Buffer.from([0xff, 0xfe])]) : damage === 4 ? Buffer.from(lines.join('\n'), 'utf16le') : lines.join('\n') + '\n');
      tally.run(`damage ${damage}`, () => p, () => readEvalsFile(p), (evals) => evals.map((e) => invariant(e as unknown as Record<string, number>)).find((x) => x) ?? null);
    }
    tally.report(1000);
  }, 60_000);
});
