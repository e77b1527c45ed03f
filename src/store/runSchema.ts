// The schema of everything the page reads back (run files, stored runs, resume
// states, sweep records), field by field: every value kept is checked here
// (type, range, size), so nothing half-checked reaches the store, the charts or
// the exporter. Each checker throws a RunFileError naming the field.
import { FIELDS, isConfigKey, parseField, type RunConfig } from '../config';
import { clip, hasKey, quote } from '../errors';
import type { BaselineResult } from '../envs/types';
import type { Comparison, ComparisonRow } from '../rl/compare';
import type { EvalRecord, Flag } from '../rl/runRecord';
import { findPreset, presetConfig, PRESETS } from '../envs/presets';
import type { CurriculumMark, RunMeta } from './runTypes';
import type { SweepRecord, SweepRunRecord, SweepRunStatus, SweepStatus } from './sweepSlice';

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
  finite(out.accuracy, `${where}.accuracy`, 0, 1);
  finite(out.tokens, `${where}.tokens`, 0);
  finite(out.turns, `${where}.turns`, 0);
  finite(out.lambdaTok, `${where}.lambdaTok`, 0, LAMBDA_TOK_MAX);
  if (hasKey(out, 'reward')) finite(out.reward, `${where}.reward`);
  return out as EvalRecord;
}

export function evals(x: unknown, where: string): EvalRecord[] {
  return array(x, where, MAX_EVALS).map((e, i) => evalRecord(e, `${where}[${i}]`));
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
    return { step: step(field(c, 'step'), `${w}.step`), stage: count(field(c, 'stage'), `${w}.stage`), label: string(field(c, 'label'), `${w}.label`, 200) };
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
  return { step: step(field(c, 'step'), 'run.comparison.step'), rows };
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
    return { step: step(field(c, 'step'), `${w}.step`), field: name as keyof RunConfig, value: value as string | number };
  });
}

/** A population member's sweep and value: the axis one of the two a sweep moves, the value finite. */
export function member(x: unknown): NonNullable<RunMeta['member']> {
  const m = object(x, 'run.member', ['sweep', 'axis', 'value']);
  const axis = field(m, 'axis');
  if (axis !== 'lambdaTok' && axis !== 'budget') fail(`run.member.axis ${quote(axis)} is not lambdaTok or budget`);
  return { sweep: string(field(m, 'sweep'), 'run.member.sweep', 200), axis: axis as 'lambdaTok' | 'budget', value: finite(field(m, 'value'), 'run.member.value') };
}

// ---- stored sweep records ----

const SWEEP_STATUS: readonly SweepStatus[] = ['running', 'stopped', 'done', 'interrupted'];
const SWEEP_RUN_STATUS: readonly SweepRunStatus[] = ['pending', 'running', 'done', 'interrupted'];
const MAX_TIME = 8.64e15; // the largest Date in ms
const orNull = <T>(x: unknown, read: (x: unknown) => T): T | null => (x === null ? null : read(x));

function sweepRun(raw: unknown, where: string, axis: 'lambdaTok' | 'budget'): SweepRunRecord {
  const r = object(raw, where, ['label', 'value', 'status', 'runId', 'accuracy', 'tokens', 'startedAt', 'finishedAt']);
  const value = finite(field(r, 'value'), `${where}.value`);
  try { parseField(axis, value); } catch (e) { fail(`${where}.value: ${(e as Error).message}`); }
  const status = field(r, 'status');
  if (!SWEEP_RUN_STATUS.includes(status as SweepRunStatus)) fail(`${where}.status ${quote(status)} is not one of ${SWEEP_RUN_STATUS.join(', ')}`);
  return {
    label: string(field(r, 'label'), `${where}.label`, 80), value, status: status as SweepRunStatus,
    runId: orNull(field(r, 'runId'), (x) => string(x, `${where}.runId`, 200)),
    accuracy: orNull(field(r, 'accuracy'), (x) => finite(x, `${where}.accuracy`, 0, 1)),
    tokens: orNull(field(r, 'tokens'), (x) => finite(x, `${where}.tokens`, 0)),
    startedAt: orNull(field(r, 'startedAt'), (x) => finite(x, `${where}.startedAt`, 0, MAX_TIME)),
    finishedAt: orNull(field(r, 'finishedAt'), (x) => finite(x, `${where}.finishedAt`, 0, MAX_TIME)),
  };
}

/**
 * A stored sweep record, checked like a run file: known keys only, the preset one of the presets,
 * the base a valid override of it, each run's value in the axis's range. A message longer than
 * 2,000 characters is clipped (the page writes run errors into it), never a reason to drop the sweep.
 */
export function sweepRecord(x: unknown): SweepRecord {
  const s = object(x, 'the sweep', ['id', 'preset', 'axis', 'base', 'steps', 'runs', 'status', 'message', 'createdAt']);
  const preset = string(field(s, 'preset'), 'sweep.preset', 200);
  if (!PRESETS.some((p) => p.name === preset)) fail(`sweep.preset ${quote(preset)} is not one of ${PRESETS.map((p) => p.name).join(', ')}`);
  const axis = field(s, 'axis');
  if (axis !== 'lambdaTok' && axis !== 'budget') fail(`sweep.axis ${quote(axis)} is not lambdaTok or budget`);
  const base = object(field(s, 'base'), 'sweep.base', Object.keys(FIELDS));
  try { presetConfig(findPreset(preset), base); } catch (e) { fail(`sweep.base: ${(e as Error).message}`); }
  const runs = array(field(s, 'runs'), 'sweep.runs', 64).map((r, i) => sweepRun(r, `sweep.runs[${i}]`, axis as 'lambdaTok' | 'budget'));
  if (runs.length === 0) fail('sweep.runs is empty');
  const status = field(s, 'status');
  if (!SWEEP_STATUS.includes(status as SweepStatus)) fail(`sweep.status ${quote(status)} is not one of ${SWEEP_STATUS.join(', ')}`);
  const message = orNull(field(s, 'message'), (m) => { const t = string(m, 'sweep.message', Infinity); return t.length > 2000 ? `${t.slice(0, 1990)}...` : t; }); // at most 2,000: reads back as itself
  return {
    id: string(field(s, 'id'), 'sweep.id', 200), preset, axis: axis as 'lambdaTok' | 'budget', base: base as Partial<RunConfig>,
    steps: step(field(s, 'steps'), 'sweep.steps'), runs, status: status as SweepStatus, message,
    createdAt: finite(field(s, 'createdAt'), 'sweep.createdAt', 0, MAX_TIME),
  };
}
