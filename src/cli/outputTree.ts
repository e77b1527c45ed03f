// One output check for a job's whole tree before anything trains (sweep, study, robustness, compare): the
// job folder and its own files (prepareOutDir), then every member folder and every file a member writes
// (MEMBER_FILES): a file where a member's folder goes, a folder where a member's file goes, a link to
// nowhere or a place that cannot be written is refused with one line naming the path (exit 2), nothing written.
import { accessSync, constants, lstatSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { clip, InputError } from '../contract/errors';
import { fsMessage } from './fsErrors';
import { prepareOutDir } from './io';

/** What a run writes in its folder (train.ts trainMembers), checked in every member folder before a job starts. */
export const MEMBER_FILES: readonly string[] = ['config.json', 'metrics.jsonl', 'evals.jsonl', 'last.safetensors', 'best.safetensors'];

const kind = (p: string): 'folder' | 'file' | 'missing' => { try { return statSync(p).isDirectory() ? 'folder' : 'file'; } catch { return 'missing'; } };
const isLink = (p: string): boolean => { try { return lstatSync(p).isSymbolicLink(); } catch { return false; } };
const q = (p: string) => `"${clip(p, 200)}"`;

/**
 * Checks `out` (the job folder, with its own `files`) and, inside it, each of `members` (folder names) with
 * `memberFiles` in each, writing nothing. Throws an InputError naming the first path that cannot be used.
 */
export function prepareJobTree(out: string, files: readonly string[], members: readonly string[], memberFiles: readonly string[] = MEMBER_FILES): void {
  prepareOutDir(out, '--out', files, members);
  const name = `--out ${q(out)}`;
  for (const m of members) {
    const dir = join(out, m), k = kind(dir);
    if (k === 'missing') {
      if (isLink(dir)) throw new InputError(`${name}: ${q(dir)} is a link to nowhere where a run's folder must go`);
      continue; // made when the run starts, in a folder prepareOutDir found writable
    }
    // an existing member folder must take new entries (the atomic writes make temp folders in it)
    try { accessSync(dir, constants.W_OK | constants.X_OK); rmSync(mkdtempSync(join(dir, '.gspo-write-check-')), { recursive: true, force: true }); } catch (e) {
      throw new InputError(`${name}: a run's folder cannot be written: ${fsMessage(e as NodeJS.ErrnoException, dir)}`);
    }
    for (const f of memberFiles) {
      const p = join(dir, f), fk = kind(p);
      if (fk === 'folder') throw new InputError(`${name}: ${q(p)} is a folder, so the run's file cannot be written there`);
      if (fk === 'missing' && isLink(p)) throw new InputError(`${name}: ${q(p)} is a link to nowhere where a run's file must go`);
      if (fk === 'file') {
        try { accessSync(p, constants.W_OK); } catch (e) { throw new InputError(`${name}: a run's file cannot be written: ${fsMessage(e as NodeJS.ErrnoException, p)}`); }
      }
    }
  }
}
