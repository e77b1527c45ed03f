// The checkers every file and record a run is read back from goes through (run files,
// stored runs, resume states, sweep records, a worker's resume state): primitives that
// check a value's type, range and size, and the run record's evals and flags. Each throws
// a RunFileError naming the field. Beside config.ts: the worker and the store both use them.
import { FIELDS } from '../config';
import { clip, hasKey, quote } from '../contract/errors';
import type { EvalRecord, Flag } from './runRecord';
import { evalMetricProblem } from './evalRanges';

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
  if (typeof x === 'number') return x; // non-finite ones too: IndexedDB's structured clones keep them

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

/** The most steps any counter reads: far above a run's (steps <= 100,000, continued runs included). */
export const MAX_STEP = 10_000_000;
export const MAX_EVALS = 100_000;
export const MAX_FLAGS = 100_000;

/** A step counter: a whole number in [0, MAX_STEP]. */
export const step = (x: unknown, where: string): number => count(x, where, MAX_STEP);

export const FLAG_KINDS: ReadonlyArray<Flag['kind']> = ['nonfinite-update', 'diverged', 'degenerate', 'collapse'];

/** One flag (a skipped update, a divergence...): a known kind, its step, a message of at most 2,000 characters. */
export function flag(raw: unknown, where: string): Flag {
  const f = object(raw, where, ['kind', 'step', 'message']);
  const kind = field(f, 'kind');
  if (!FLAG_KINDS.includes(kind as Flag['kind'])) fail(`${where}.kind ${quote(kind)} is not a known flag`);
  return { kind: kind as Flag['kind'], step: step(field(f, 'step'), `${where}.step`), message: string(field(f, 'message'), `${where}.message`, 2000) };
}

export function flags(x: unknown, where = 'run.flags'): Flag[] {
  if (x === undefined) return [];
  return array(x, where, MAX_FLAGS).map((raw, i) => flag(raw, `${where}[${i}]`));
}

/** lambda_tok's config range bounds it everywhere (budget mode clamps it to lambdaMax, itself at most this). */
export const LAMBDA_TOK_MAX = FIELDS.lambdaTok.kind === 'enum' ? Infinity : FIELDS.lambdaTok.max;

const EVAL_CORE = ['step', 'accuracy', 'tokens', 'turns', 'lambdaTok'] as const;

/**
 * One eval: step, accuracy in [0, 1], tokens and turns >= 0, lambdaTok in its config range, an
 * optional finite reward, and at most 64 numeric fields in all (extras may be non-finite: in a
 * file as the strings "NaN", "Infinity", "-Infinity").
 */
export function evalRecord(x: unknown, where: string): EvalRecord {
  if (!isObject(x)) fail(`${where} must be an object`);
  const e = x as Record<string, unknown>;
  for (const k of EVAL_CORE) if (!hasKey(e, k)) fail(`${where}.${k} is missing`);
  const entries = Object.entries(e);
  if (entries.length > 64) fail(`${where} has ${entries.length} fields; at most 64 are read`);
  const out: Record<string, number> = Object.fromEntries(entries.map(([k, v]) => {
    if (k.length > 64) fail(`${where} has a field name longer than 64 characters`);
    return [k, decodeNumber(v, `${where}.${clip(k, 40)}`)];
  }));
  step(out.step, `${where}.step`);
  // every figure against its range in the one table (src/rl/evalRanges.ts), the writer's too
  for (const [k, v] of Object.entries(out)) {
    const problem = evalMetricProblem(k, v);
    if (problem) fail(`${where}.${clip(k, 40)} ${problem}`);
  }
  return out as EvalRecord;
}

export function evals(x: unknown, where: string): EvalRecord[] {
  return array(x, where, MAX_EVALS).map((e, i) => evalRecord(e, `${where}[${i}]`));
}
