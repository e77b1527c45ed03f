// Output places are checked before any work starts. A
// read-only place (EROFS / EACCES / EPERM) and a file where a run's folder must go are refused
// with one line naming the path, exit 2, no stack trace, nothing written.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { prepareOutDir, writeAtomic } from '../../src/cli/io';
import { planSweep } from '../../src/rl/sweep';
import { gspo, tempDir } from '../cli/run';

/** A folder this process cannot make entries in, found by trying (root passes access() on most). */
function readOnlyPlace(): { dir: string; code: string } | null {
  for (const dir of ['/sys', '/sys/kernel', '/proc/sys']) {
    try { rmSync(mkdtempSync(join(dir, '.probe-')), { recursive: true }); } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (['EROFS', 'EACCES', 'EPERM'].includes(code)) return { dir, code };
    }
  }
  return null;
}
const ro = readOnlyPlace();
const WORDS: Record<string, RegExp> = { EROFS: /read-only file system/, EACCES: /permission denied/, EPERM: /operation not permitted/ };

function expectExit2(args: string[], pattern: RegExp) {
  const r = gspo(args);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.stdout).toBe('');
}

describe.skipIf(ro === null)('a read-only place', () => {
  it('prepareOutDir refuses it, naming the place and why', () => {
    const out = join(ro!.dir, 'gspo-out');
    expect(() => prepareOutDir(out)).toThrow(InputError);
    expect(() => prepareOutDir(out)).toThrow(WORDS[ro!.code]);
    expect(() => prepareOutDir(out)).toThrow(new RegExp(`--out "${out}" cannot be written`));
  });
  it('writeAtomic names it too', () => {
    expect(() => writeAtomic(join(ro!.dir, 'gspo-x', 'f.json'), '{}')).toThrow(InputError);
    expect(() => writeAtomic(join(ro!.dir, 'gspo-x', 'f.json'), '{}')).toThrow(/cannot write/);
  });
  it('sweep --out there: exit 2, one line, before any run (it used to fail in mkdir as an internal error)', () => {
    expectExit2(['sweep', '--preset', 'relay-silence', '--lambdas', '0,0.1', '--set', 'steps=1', '--out', join(ro!.dir, 'gspo-out')], WORDS[ro!.code]);
  }, 60_000);
});

describe('a file where a run\'s folder must go', () => {
  it('sweep: refused before any run starts, naming the member folder; nothing written', () => {
    const out = tempDir();
    const first = planSweep({ axis: 'lambdaTok', values: [0, 0.1], seeds: [] })[1].label.replace(/[^A-Za-z0-9_.=-]+/g, '_');
    writeFileSync(join(out, first), 'a file');
    expectExit2(['sweep', '--preset', 'relay-silence', '--lambdas', '0,0.1', '--set', 'steps=1', '--out', out], new RegExp(`"${out}/${first}" is a file where a run's folder must go`));
    expect(readdirSync(out)).toEqual([first]);
  }, 60_000);
  it('prepareOutDir: a folder where a file goes, a file where a folder goes', () => {
    const out = tempDir();
    mkdirSync(join(out, 'sweep.json'));
    writeFileSync(join(out, 'run-a'), '');
    expect(() => prepareOutDir(out, '--out', ['sweep.json'])).toThrow(/is a folder, so the file cannot be written there/);
    expect(() => prepareOutDir(out, '--out', [], ['run-a'])).toThrow(/is a file where a run's folder must go/);
    expect(() => prepareOutDir(join(out, 'run-a', 'deeper'))).toThrow(/cannot be made: ".*run-a" is a file, not a folder/);
    expect(() => prepareOutDir(out, '--out', [], ['run-b'])).not.toThrow();
    expect(readdirSync(out).sort()).toEqual(['run-a', 'sweep.json']); // the write check left nothing
  });
});
