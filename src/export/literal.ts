// The one way a value enters exported code: Python literals (numbers finite
// only, strings escaped to printable ASCII) and shell words (single-quoted, so
// nothing in a value can end the quoting or expand). Exported files are run by
// people on their own machines, so no value may become code there.
import { InputError } from '../contract/errors';

export type PyValue = number | string | boolean | null | number[];

function number(x: number): string {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new InputError(`the export can only write finite numbers, got ${String(x).slice(0, 40)}`);
  return String(x); // JavaScript's shortest round-trip form is also a Python and YAML float/int
}

/**
 * The text with each lone UTF-16 surrogate (a half pair, possible in a name made on the page or
 * imported) replaced by U+FFFD: Python cannot write "\ud800" as UTF-8, and no UTF-8 file holds one.
 */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** A Python string literal in printable ASCII: quotes, backslashes, newlines and non-ASCII are escaped. */
export function pyString(s: string): string {
  if (typeof s !== 'string') throw new InputError(`the export expected a string, got ${typeof s}`);
  let out = '"';
  for (const ch of wellFormed(s)) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c < 0x100) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c < 0x10000) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\U' + c.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** Any exported value as a Python literal (the scalars and number lists are valid YAML too). */
export function py(v: PyValue): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return number(v);
  if (Array.isArray(v)) return `[${v.map(number).join(', ')}]`;
  return pyString(v);
}

/** A value as a Hydra command-line override (unquoted; shellWord quotes it for the shell). */
export function hydraValue(v: PyValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(number).join(',')}]`;
  if (typeof v === 'number') return number(v);
  if (typeof v !== 'string') throw new InputError(`the export expected a string, got ${typeof v}`);
  return v;
}

/**
 * One shell word with the same text: plain when every character is inert, else in single
 * quotes with each ' written as '\'' (inside single quotes nothing expands). `expand` lists the
 * exact values the script means to expand ("$DATA/..."); those go in double quotes, and they
 * contain no quote, backslash or backtick.
 */
export function shellWord(v: string, expand: ReadonlySet<string> = new Set()): string {
  if (expand.has(v)) {
    if (!/^\$[A-Z]+[A-Za-z0-9_./-]*$/.test(v)) throw new Error(`not a plain variable expansion: ${v}`);
    return `"${v}"`;
  }
  if (v !== '' && /^[A-Za-z0-9_.,:/=+-]+$/.test(v)) return v;
  return `'${v.replace(/'/g, `'\\''`)}'`;
}
