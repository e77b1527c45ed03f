// A file-system error in words, naming the path: what the CLI says (exit 2) when a place it must
// write is read-only, not permitted, full, or a file where a folder must go.
import { clip, quote } from '../errors';

const WORDS: Record<string, string> = {
  EROFS: 'is on a read-only file system',
  EACCES: 'is not writable (permission denied)',
  EPERM: 'is not writable (operation not permitted)',
  EEXIST: 'already exists as a file where a folder must go',
  ENOTDIR: 'has a file where a folder must go',
  EISDIR: 'is a folder where a file must go',
  ENOSPC: 'cannot be written: no space left on the device',
  EDQUOT: 'cannot be written: the disk quota is used up',
  ENAMETOOLONG: 'is too long a path',
  ELOOP: 'has too many links in a loop',
};

/** Node's errno errors on a path the person named (they carry `code` and usually `path`). */
export function isFsError(e: unknown): boolean {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && Object.prototype.hasOwnProperty.call(WORDS, (e as NodeJS.ErrnoException).code!);
}

export function fsMessage(e: NodeJS.ErrnoException, path = e.path ?? ''): string {
  const code = e.code ?? '';
  const words = Object.prototype.hasOwnProperty.call(WORDS, code) ? WORDS[code] : `cannot be written (${clip(String(e.message), 120)})`;
  return `${quote(String(path), 200)} ${words} (${code})`;
}
