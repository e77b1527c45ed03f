// The schema of everything the page reads back (run files, stored runs, resume
// states, sweep records), field by field: every value kept is checked here
// (type, range, size), so nothing half-checked reaches the store, the charts or
// the exporter. Each checker throws a RunFileError naming the field.
import { DEFAULTS, FIELDS, isConfigKey, parseField, validateConfig, type RunConfig } from '../config';
import { quote } from '../contract/errors';
import type { BaselineResult } from '../envs/types';
import type { Comparison, ComparisonRow } from '../rl/compare';
import { findPreset, presetConfig, PRESETS } from '../envs/presets';
import type { CurriculumMark, RunMeta } from './runTypes';
import type { SweepRecord, SweepRunRecord, SweepRunStatus, SweepStatus } from './sweepRecord';
import { array, count, fail, field, finite, numberRecord, object, step, string } from '../rl/recordSchema';

// the primitives and the run record's evals and flags live beside config.ts (the worker reads resume states with them)
export * from '../rl/recordSchema';


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
 * A run's preset is a shipped one, or a task of your own: "task-..." with its code (config taskCode), which the
 * page registers before it opens the run.
 */
export function checkRunPreset(preset: string, taskCode: unknown, where: string): void {
  if (PRESETS.some((p) => p.name === preset)) return;
  if (preset.startsWith('task-') && typeof taskCode === 'string') return;
  fail(`${where} ${quote(preset)} is not one of ${PRESETS.map((p) => p.name).join(', ')} (nor a task of your own with its code)`);
}

/**
 * A stored sweep record, checked like a run file: known keys only, the preset one of the presets,
 * the base a valid override of it, each run's value in the axis's range. A message longer than
 * 2,000 characters is clipped (the page writes run errors into it), never a reason to drop the sweep.
 */
export function sweepRecord(x: unknown): SweepRecord {
  const s = object(x, 'the sweep', ['id', 'preset', 'axis', 'base', 'steps', 'runs', 'status', 'message', 'createdAt', 'recipe', 'recipeKept', 'untilPaused']);
  const recipe = field(s, 'recipe'), untilPaused = field(s, 'untilPaused'), kept = field(s, 'recipeKept');
  if (recipe !== undefined && typeof recipe !== 'boolean') fail(`sweep.recipe ${quote(recipe)} is not true or false`);
  if (untilPaused !== undefined && typeof untilPaused !== 'boolean') fail(`sweep.untilPaused ${quote(untilPaused)} is not true or false`);
  const recipeKept = kept === undefined ? [] : array(kept, 'sweep.recipeKept', 16).map((f, i) => {
    if (typeof f !== 'string' || !(f in FIELDS)) fail(`sweep.recipeKept[${i}] ${quote(f)} is not a config field`);
    return f as keyof RunConfig;
  });
  const preset = string(field(s, 'preset'), 'sweep.preset', 200);
  const axis = field(s, 'axis');
  if (axis !== 'lambdaTok' && axis !== 'budget') fail(`sweep.axis ${quote(axis)} is not lambdaTok or budget`);
  const base = object(field(s, 'base'), 'sweep.base', [...Object.keys(FIELDS), 'taskCode']); // a task of your own carries its code
  checkRunPreset(preset, base.taskCode, 'sweep.preset');
  // a task's preset is registered once the page has read its stored runs: its base is checked as a task's config here
  try { if (typeof base.taskCode === 'string') validateConfig({ ...base, env: 'custom' }, DEFAULTS); else presetConfig(findPreset(preset), base); } catch (e) { fail(`sweep.base: ${(e as Error).message}`); }
  const runs = array(field(s, 'runs'), 'sweep.runs', 64).map((r, i) => sweepRun(r, `sweep.runs[${i}]`, axis as 'lambdaTok' | 'budget'));
  if (runs.length === 0) fail('sweep.runs is empty');
  const status = field(s, 'status');
  if (!SWEEP_STATUS.includes(status as SweepStatus)) fail(`sweep.status ${quote(status)} is not one of ${SWEEP_STATUS.join(', ')}`);
  const message = orNull(field(s, 'message'), (m) => { const t = string(m, 'sweep.message', Infinity); return t.length > 2000 ? `${t.slice(0, 1990)}...` : t; }); // at most 2,000: reads back as itself
  return {
    id: string(field(s, 'id'), 'sweep.id', 200), preset, axis: axis as 'lambdaTok' | 'budget', base: base as Partial<RunConfig>,
    steps: step(field(s, 'steps'), 'sweep.steps'), runs, status: status as SweepStatus, message,
    createdAt: finite(field(s, 'createdAt'), 'sweep.createdAt', 0, MAX_TIME), ...(recipe === true ? { recipe } : {}), ...(recipeKept.length > 0 ? { recipeKept } : {}),
    ...(untilPaused === true ? { untilPaused } : {}),
  };
}
