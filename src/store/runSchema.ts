// The run file's schema, field by field: every value an import keeps is
// checked here (type, range, size), so nothing half-checked reaches the store
// or the charts. Each checker throws a RunFileError naming the field.
import { isConfigKey, parseField, type RunConfig } from '../config';
import { clip, hasKey, quote } from '../errors';
import type { BaselineResult } from '../envs/types';
import type { Comparison, ComparisonRow } from '../rl/compare';
import type { Flag } from '../rl/trainer';
import type { CurriculumMark, RunMeta } from './runTypes';

export class RunFileError extends Error {
  override name = 'RunFileError';
}

export const fail = (why: string): never => { throw new RunFileError(why); };

export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** An object with only the named keys (own keys; "__proto__" or "constructor" are unknown like any other). */
export function object(x: unknown, where: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isObject(x)) fail(`${where} must be an object`);
  for (const k of Object.keys(x as object)) if (!allowed.includes(k)) fail(`${where} has an unknown key ${quote(k)} (known: ${allowed.join(', ')})`);
  return x as Record<string, unknown>;
}

/** x[k] when it is x's own property. */
export const field = (x: Record<string, unknown>, k: string): unknown => (hasKey(x, k) ? x[k] : undefined);

export function array(x: unknown, where: string, max: number): unknown[] {
  if (!Array.isArray(x)) fail(`${where} must be an array`);
  if ((x as unknown[]).length > max) fail(`${where} has ${(x as unknown[]).length} entries; at most ${max} are read`);
  return x as unknown[];
}

export function string(x: unknown, where: string, max = 500): string {
  if (typeof x !== 'string') fail(`${where} must be a string`);
  if ((x as string).length > max) fail(`${where} is longer than ${max} characters`);
  return x as string;
}

// JSON has no Infinity or NaN: non-finite numbers travel as these strings
export const encodeNumber = (x: number): number | string => (Number.isFinite(x) ? x : String(x));
export function decodeNumber(x: unknown, where: string): number {
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (x === 'Infinity') return Infinity;
  if (x === '-Infinity') return -Infinity;
  if (x === 'NaN') return NaN;
  return fail(`${where} is ${quote(x)}, not a number`);
}

/** A finite number in [min, max]. */
export function finite(x: unknown, where: string, min = -Infinity, max = Infinity): number {
  if (typeof x !== 'number' || !Number.isFinite(x)) fail(`${where} must be a finite number, got ${quote(x)}`);
  if ((x as number) < min || (x as number) > max) fail(`${where} must be in [${min}, ${max}], got ${x}`);
  return x as number;
}

/** A whole number in [0, max] (steps, counts). */
export function count(x: unknown, where: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0 || x > max) fail(`${where} must be a whole number in [0, ${max}], got ${quote(x)}`);
  return x as number;
}

/** A flat record of numbers (eval extras, baseline extras): bounded keys, finite values. */
export function numberRecord(x: unknown, where: string): Record<string, number> {
  if (!isObject(x)) fail(`${where} must be an object of numbers`);
  const entries = Object.entries(x as object);
  if (entries.length > 64) fail(`${where} has ${entries.length} entries; at most 64 are read`);
  return Object.fromEntries(entries.map(([k, v]) => [clipKey(k, where), finite(v, `${where}.${clip(k, 40)}`)]));
}

function clipKey(k: string, where: string): string {
  if (k.length > 64) fail(`${where} has a key longer than 64 characters`);
  return k;
}

export const FLAG_KINDS: ReadonlyArray<Flag['kind']> = ['nonfinite-update', 'diverged', 'degenerate', 'collapse'];

export function flags(x: unknown): Flag[] {
  if (x === undefined) return [];
  return array(x, 'run.flags', 100_000).map((raw, i) => {
    const w = `run.flags[${i}]`;
    const f = object(raw, w, ['kind', 'step', 'message']);
    const kind = field(f, 'kind');
    if (!FLAG_KINDS.includes(kind as Flag['kind'])) fail(`${w}.kind ${quote(kind)} is not a known flag`);
    return { kind: kind as Flag['kind'], step: count(field(f, 'step'), `${w}.step`), message: string(field(f, 'message'), `${w}.message`, 2000) };
  });
}

export function baselines(x: unknown): BaselineResult[] {
  return array(x, 'run.baselines', 64).map((raw, i) => {
    const w = `run.baselines[${i}]`;
    const b = object(raw, w, ['name', 'accuracy', 'tokens', 'extras']);
    return {
      name: string(field(b, 'name'), `${w}.name`, 200), accuracy: finite(field(b, 'accuracy'), `${w}.accuracy`, 0, 1),
      tokens: finite(field(b, 'tokens'), `${w}.tokens`, 0), extras: numberRecord(field(b, 'extras') ?? {}, `${w}.extras`),
    };
  });
}

export function curriculum(x: unknown): CurriculumMark[] {
  return array(x, 'run.curriculum', 10_000).map((raw, i) => {
    const w = `run.curriculum[${i}]`;
    const c = object(raw, w, ['step', 'stage', 'label']);
    return { step: count(field(c, 'step'), `${w}.step`), stage: count(field(c, 'stage'), `${w}.stage`), label: string(field(c, 'label'), `${w}.label`, 200) };
  });
}

export function comparison(x: unknown): Comparison | null {
  if (x === null) return null;
  const c = object(x, 'run.comparison', ['step', 'rows']);
  const rows = array(field(c, 'rows'), 'run.comparison.rows', 16).map((raw, i): ComparisonRow => {
    const w = `run.comparison.rows[${i}]`;
    const r = object(raw, w, ['name', 'n', 'accuracy', 'lo', 'hi', 'tokens', 'extras']);
    const accuracy = finite(field(r, 'accuracy'), `${w}.accuracy`, 0, 1);
    const lo = finite(field(r, 'lo'), `${w}.lo`, 0, accuracy), hi = finite(field(r, 'hi'), `${w}.hi`, accuracy, 1);
    return {
      name: string(field(r, 'name'), `${w}.name`, 200), n: count(field(r, 'n'), `${w}.n`), accuracy, lo, hi,
      tokens: finite(field(r, 'tokens'), `${w}.tokens`, 0), extras: numberRecord(field(r, 'extras') ?? {}, `${w}.extras`),
    };
  });
  if (rows.length === 0) fail('run.comparison.rows is empty (a comparison has at least one arm)');
  return { step: count(field(c, 'step'), 'run.comparison.step'), rows };
}

/** Live changes: each names a config field that may change live, with a value that field accepts. */
export function changes(x: unknown): NonNullable<RunMeta['changes']> {
  return array(x, 'run.changes', 100_000).map((raw, i) => {
    const w = `run.changes[${i}]`;
    const c = object(raw, w, ['step', 'field', 'value']);
    const name = field(c, 'field');
    if (typeof name !== 'string' || !isConfigKey(name)) fail(`${w}.field ${quote(name)} is not a config field`);
    const value = field(c, 'value');
    if (typeof value !== 'string' && typeof value !== 'number') fail(`${w}.value must be a string or a number`);
    try { parseField(name as keyof RunConfig, value); } catch (e) { fail(`${w}: ${(e as Error).message}`); }
    return { step: count(field(c, 'step'), `${w}.step`), field: name as keyof RunConfig, value: value as string | number };
  });
}
