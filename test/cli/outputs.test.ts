// CLI writes are all-or-nothing: every flag and path is checked before the first write; a path
// that cannot be written exits 2 with one line naming it, and nothing is written or left behind.
// writeAtomic's temp file cannot be a planted symlink.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { prepareOutDir, writeAllAtomic, writeAtomic } from '../../src/cli/io';
import { gspo, tempDir } from './run';

/** Every path under dir, relative (an independent listing of what is on disk). */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

function expectRefused(args: string[], pattern: RegExp): void {
  const r = gspo(args);
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'));
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gspo: /);
  expect(lines[0]).not.toMatch(/internal error/);
  expect(lines[0]).toMatch(pattern);
  expect(r.stdout).toBe('');
}

describe('export --out that cannot be written', () => {
  it('an existing file: exit 2 naming it, the file untouched', () => {
    const dir = tempDir(), file = join(dir, 'taken');
    writeFileSync(file, 'mine');
    expectRefused(['export', '--preset', 'relay-silence', '--to', 'trl', '--out', file], /--out ".*taken" is a file, not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('mine');
    expect(listing(dir)).toEqual(['taken']);
  }, 60_000);

  it('a path under a file: exit 2 naming the file, nothing made', () => {
    const dir = tempDir(), file = join(dir, 'taken');
    writeFileSync(file, 'mine');
    expectRefused(['export', '--preset', 'relay-silence', '--to', 'verl', '--out', join(file, 'sub')], /cannot be made: ".*taken" is a file/);
    expect(listing(dir)).toEqual(['taken']);
  }, 60_000);

  it('a folder whose README.md is a folder: exit 2 naming it, none of the four files written, no temp file left', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'README.md'));
    expectRefused(['export', '--preset', 'relay-silence', '--to', 'trl', '--out', dir], /README\.md" is a folder/);
    expect(listing(dir)).toEqual(['README.md']);
  }, 60_000);
});

describe('writeAtomic', () => {
  it('does not follow a symlink planted at the old temp name; the target is replaced, the link\'s target untouched', () => {
    const dir = tempDir(), victim = join(dir, 'victim'), out = join(dir, 'out.txt');
    writeFileSync(victim, 'precious');
    // the names the old writer used (and a few pids around this one), each a link to the victim
    for (const pid of [process.pid, process.pid + 1]) symlinkSync(victim, `${out}.tmp-${pid}`);
    writeAtomic(out, 'new');
    expect(readFileSync(out, 'utf8')).toBe('new');
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(listing(dir).filter((n) => n.includes('.tmp-') && !n.startsWith('out.txt.tmp-'))).toEqual([]);
  });

  it('a failed write leaves no temp file and names the path', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'b.txt'));
    let error: unknown;
    try { writeAllAtomic([{ path: join(dir, 'a.txt'), data: 'a' }, { path: join(dir, 'b.txt'), data: 'b' }]); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/cannot write ".*b\.txt"/);
    expect(listing(dir)).toEqual(['b.txt']); // a.txt was not renamed into place either
  });

  it('a missing parent folder is made, and removed again when the write fails', () => {
    const dir = tempDir();
    writeAtomic(join(dir, 'x', 'y', 'f'), 'ok');
    expect(readFileSync(join(dir, 'x', 'y', 'f'), 'utf8')).toBe('ok');
    mkdirSync(join(dir, 'n', 'm', 'f'), { recursive: true });
    expect(() => writeAllAtomic([{ path: join(dir, 'p', 'q'), data: '1' }, { path: join(dir, 'n', 'm', 'f'), data: '2' }])).toThrow(InputError);
    expect(existsSync(join(dir, 'p'))).toBe(false);
  });
});

describe('prepareOutDir', () => {
  it('accepts a fresh path under a folder and an existing folder; refuses files, paths under files and folders in the way', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'f'), '');
    mkdirSync(join(dir, 'd'));
    mkdirSync(join(dir, 'd', 'sweep.json'));
    expect(() => prepareOutDir(join(dir, 'new', 'deeper'), '--out')).not.toThrow();
    expect(() => prepareOutDir(dir, '--out', ['f2'])).not.toThrow();
    expect(() => prepareOutDir(join(dir, 'f'), '--out')).toThrow(/is a file, not a folder/);
    expect(() => prepareOutDir(join(dir, 'f', 'x', 'y'), '--out')).toThrow(/cannot be made/);
    expect(() => prepareOutDir(join(dir, 'd'), '--out', ['sweep.json'])).toThrow(/sweep\.json" is a folder/);
    expect(() => prepareOutDir('', '--out')).toThrow(/empty/);
    expect(listing(dir)).toEqual(['d', 'd/sweep.json', 'f']); // it writes nothing
  });
});
