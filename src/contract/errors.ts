/** Bad input from a person (a flag, a file, a URL parameter): shown as one line, never a stack trace. */
export class InputError extends Error {
  override name = 'InputError';
}

/** The most characters of a person's input that a message quotes (input can be megabytes). */
export const QUOTE_MAX = 80;

/**
 * A short, bounded description of an input value for a message. Never recurses
 * (JSON.stringify of deeply nested input throws RangeError) and never echoes
 * more than QUOTE_MAX characters.
 */
export function quote(v: unknown, max = QUOTE_MAX): string {
  if (typeof v === 'string') {
    const s = JSON.stringify(v.length > max ? v.slice(0, max) : v);
    return v.length > max ? `${s.slice(0, -1)}..." (${v.length} characters)` : s;
  }
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  return typeof v;
}

/** Whether `key` is an own property of `table`: `k in table` also finds "constructor", "toString", "__proto__"... */
export function hasKey(table: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(table, key);
}

/** Control characters (C0, DEL, C1, line and paragraph separators) as \u escapes: text from a file or a task printed raw could clear a terminal or forge a line. */
export function escapeControls(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A string cut to `max` characters for a message (unquoted; see `quote`). */
export function clip(s: string, max = QUOTE_MAX): string {
  return s.length > max ? `${s.slice(0, max)}... (${s.length} characters)` : s;
}

/** A run that cannot go on (e.g. every update skipped as non-finite): the CLI exits 1 with this one line. */
export class RunFault extends Error {
  override name = 'RunFault';
}
