// A file-system error in words, naming the path: what the CLI says (exit 2) when a place it must
// write is read-only, not permitted, full, or a file where a folder must go.
import { clip, quote } from '../contract/errors';

// why, without a verb: the callers say what could not be done ("cannot write ..."), so nothing is said twice
const WORDS: Record<string, string> = {
  EROFS: 'a read-only file system',
  EACCES: 'not writable (permission denied)',
  EPERM: 'not writable (operation not permitted)',
  EEXIST: 'a file where a folder must go',
  ENOTDIR: 'a file where a folder must go',
  EISDIR: 'a folder where a file must go',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENAMETOOLONG: 'too long a path',
  ELOOP: 'too many links in a loop',
};

/** Node's errno errors on a path the person named (they carry `code` and usually `path`). */
export function isFsError(e: unknown): boolean {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && Object.prototype.hasOwnProperty.call(WORDS, (e as NodeJS.ErrnoException).code!);
}

/** `"path": why (CODE)`, said once (a write that failed without a path, as an append to a full disk: `why (CODE)`). */
export function fsMessage(e: NodeJS.ErrnoException, path = e.path ?? ''): string {
  const code = e.code ?? '';
  const words = Object.prototype.hasOwnProperty.call(WORDS, code) ? WORDS[code] : clip(String(e.message), 120);
  return `${path === '' ? '' : `${quote(String(path), 200)}: `}${words} (${code})`;
}

/** A write that failed, in one line: `cannot write "path": why (CODE)` (or `cannot write: why (CODE)` with no path). */
export function writeFailed(e: NodeJS.ErrnoException, path = e.path ?? ''): string {
  return `cannot write${path === '' ? ':' : ''} ${fsMessage(e, path)}`;
}
