// A file error is said once: no "cannot write ... cannot be written: no space left", no "gspo: gspo:".
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsMessage, writeFailed } from '../../src/cli/fsErrors';
import { gspo, tempDir } from '../cli/run';

const err = (code: string, path?: string) => Object.assign(new Error(`${code}: x`), { code, ...(path ? { path } : {}) }) as NodeJS.ErrnoException;

describe('file errors said once', () => {
  it('the words carry no verb; the caller says what failed', () => {
    expect(fsMessage(err('ENOSPC', '/a/b'))).toBe('"/a/b": no space left on the device (ENOSPC)');
    expect(writeFailed(err('ENOSPC', '/a/b'))).toBe('cannot write "/a/b": no space left on the device (ENOSPC)');
    expect(writeFailed(err('ENOSPC'))).toBe('cannot write: no space left on the device (ENOSPC)'); // an append to a full disk has no path
    expect(writeFailed(err('EDQUOT', '/q'))).toBe('cannot write "/q": the disk quota is used up (EDQUOT)');
    for (const code of ['EROFS', 'EACCES', 'EPERM', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ENOSPC', 'EDQUOT', 'ENAMETOOLONG', 'ELOOP']) {
      expect(writeFailed(err(code, '/p')).match(/cannot/g), code).toHaveLength(1);
    }
  });
  it.skipIf(!existsSync('/dev/full'))('a run whose file is on a full device: one line, ENOSPC said once, one "gspo: "', () => {
    const out = tempDir();
    mkdirSync(join(out, 'grpo'));
    symlinkSync('/dev/full', join(out, 'grpo', 'metrics.jsonl'));
    const r = gspo(['compare', '--preset', 'relay-noisy-dr', '--losses', 'gspo,grpo', '--backend', 'cpu', '--set', 'steps=1', '--set', 'promptsPerStep=2',
      '--set', 'groupSize=2', '--set', 'minibatches=1', '--set', 'evalEpisodes=8', '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    const line = r.stderr.trim().split('\n').filter((l) => l.startsWith('gspo: '));
    expect(line, r.stderr).toHaveLength(1);
    expect(line[0].match(/no space left/g)).toHaveLength(1);
    expect(line[0].match(/cannot/g)).toHaveLength(1);
    expect(line[0]).not.toMatch(/gspo: gspo:|cannot be written/);
  }, 60_000);
});
