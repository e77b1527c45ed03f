// The one door for every file the CLI reads (checkpoints, batch files, evals.jsonl of a run
// folder): a regular file only, its size checked against a cap before a byte is read, text
// decoded as strict UTF-8, JSON lines parsed one by one. Every refusal is an InputError naming
// the file (and the line): the CLI exits 2 with it.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { clip, InputError, quote } from '../contract/errors';

/** What a path is, in words, when it is not a regular file. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

// the path JSON-quoted: a newline or control character in it cannot break the one-line message
const named = (what: string, path: string) => `${what} ${quote(path, 200)}`;

/**
 * The bytes of a regular file of at most `maxBytes`. Checked with stat before opening (a FIFO with
 * no writer would block the open, /dev/zero would never end); opened non-blocking and checked again
 * on the descriptor, so a path swapped between the two cannot make the read hang either.
 */
export function readInputBytes(path: string, what: string, maxBytes: number): Uint8Array {
  if (typeof path !== 'string' || path === '') throw new InputError(`${what}: the path is empty`);
  let st: Stats;
  try { st = statSync(path); } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(`${named(what, path)} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`}`);
  }
  if (!st.isFile()) throw new InputError(`${named(what, path)} is ${kindOf(st)}, not a file`);
  if (st.size > maxBytes) throw new InputError(`${named(what, path)} is ${st.size} bytes, more than the limit of ${maxBytes}`);
  let fd: number;
  try { fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK); } catch (e) {
    throw new InputError(`${named(what, path)} cannot be opened (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile()) throw new InputError(`${named(what, path)} is ${kindOf(fst)}, not a file`);
    if (fst.size > maxBytes) throw new InputError(`${named(what, path)} is ${fst.size} bytes, more than the limit of ${maxBytes}`);
    // one byte more than the size: a file growing while read is refused rather than read past the cap
    const buf = new Uint8Array(fst.size + 1);
    let n = 0;
    for (;;) {
      let got: number;
      try { got = readSync(fd, buf, n, buf.length - n, null); } catch (e) {
        throw new InputError(`${named(what, path)} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      if (got === 0) break;
      n += got;
      // more bytes than stat said: a file being written, or one (/proc) whose size is not its content
      if (n > fst.size) throw new InputError(`${named(what, path)} holds more than the ${fst.size} bytes its size says (being written, or not an ordinary file)`);
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Strict UTF-8 (a stray byte is an error, not U+FFFD). */
export function decodeUtf8(bytes: Uint8Array, what: string, path: string, where = ''): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(`${named(what, path)}${where} is not UTF-8 text`);
  }
}

export function readInputText(path: string, what: string, maxBytes: number): string {
  return decodeUtf8(readInputBytes(path, what, maxBytes), what, path);
}

export function readInputJson(path: string, what: string, maxBytes: number): unknown {
  const text = readInputText(path, what, maxBytes);
  try { return JSON.parse(text); } catch (e) {
    throw new InputError(`${named(what, path)} is not valid JSON (${clip((e as Error).message, 120)})`);
  }
}

/**
 * A JSON-lines file, each non-blank line decoded (strict UTF-8), parsed and passed to `check`
 * with "line N"; a schema error from `check` (InputError or the run schema's RunFileError) is
 * prefixed with the file and the line.
 */
export function readJsonLines<T>(path: string, what: string, maxBytes: number, check: (value: unknown, where: string) => T): T[] {
  const bytes = readInputBytes(path, what, maxBytes);
  const out: T[] = [];
  for (let start = 0, n = 1; start < bytes.length; n++) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    const line = decodeUtf8(bytes.subarray(start, end), what, path, ` line ${n}`);
    start = end + 1;
    if (line.trim() === '') continue;
    const at = `${named(what, path)} line ${n}`;
    let v: unknown;
    try { v = JSON.parse(line); } catch (e) { throw new InputError(`${at} is not JSON (${clip((e as Error).message, 120)})`); }
    try { out.push(check(v, `line ${n}`)); } catch (e) {
      if (e instanceof InputError || (e instanceof Error && e.name === 'RunFileError')) throw new InputError(`${at}: ${clip(e.message, 300)}`);
      throw e;
    }
  }
  return out;
}
