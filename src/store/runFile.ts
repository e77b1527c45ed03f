// Run files: export a run (JSON: setup, metrics, evals; CSV: metrics; the
// checkpoint as .safetensors) and import it back. Imports are parsed strictly,
// with size limits: a bad file is rejected whole with one message naming what
// is wrong, and nothing changes.
import { taskCodeOf, type RunConfig } from '../config';
import { TRL_METRIC_ALIASES } from '../export/trlMetrics';
import { PRESETS } from '../envs/presets';
import { createEnv } from '../envs/registry';
import { readCheckpoint } from '../model/checkpoint';
import { betterEval } from '../rl/pareto';
import { checkpointFit, presetTrainableSlot } from '../rl/checkpointFit';
import { clip, quote } from '../contract/errors';
import * as schema from './runSchema';
import { array, checkRunPreset, decodeNumber, encodeNumber, fail, field, finite, isObject, object, RunFileError, string } from './runSchema';
import type { EvalRecord } from '../rl/runRecord';
import { METRIC_NAMES } from '../worker/protocol';
import { MetricsSeries } from './metricsSeries';
import type { RunMeta } from './runTypes';
import { migrateConfig } from './storedRun';

export const RUN_FILE_FORMAT = 'gspo-playground-run';
export const RUN_FILE_VERSION = 1;
export const MAX_RUN_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;
const MAX_ROWS = 1_000_000;

export { RunFileError };

/** What an import yields (the page gives it a new id). */
export interface ImportedRun {
  meta: Omit<RunMeta, 'id' | 'colorIndex'>;
  metrics: MetricsSeries;
  /** Config fields the file lacked (written by an earlier version), given their defaults. */
  filled: (keyof RunConfig)[];
}

// ---- export ----

export function runToJson(meta: RunMeta, metrics: MetricsSeries | undefined): string {
  const rows: (number | string)[][] = [];
  if (metrics) for (let r = 0; r < metrics.rows; r++) rows.push(METRIC_NAMES.map((n) => encodeNumber(metrics.value(r, n))));
  const file = {
    format: RUN_FILE_FORMAT,
    version: RUN_FILE_VERSION,
    run: {
      name: meta.name, preset: meta.preset, config: meta.config, createdAt: meta.createdAt, status: meta.status, steps: meta.steps,
      warmStart: meta.warmStart, backend: meta.backend, flags: meta.flags, checkpoints: meta.checkpoints,
      ...(meta.baselines ? { baselines: meta.baselines } : {}), ...(meta.curriculum ? { curriculum: meta.curriculum } : {}),
      ...(meta.comparison ? { comparison: meta.comparison } : {}), ...(meta.changes?.length ? { changes: meta.changes } : {}),
      ...(meta.member ? { member: meta.member } : {}),
    },
    metrics: { columns: [...METRIC_NAMES], rows },
    evals: meta.evals.map((e) => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, encodeNumber(v)]))),
  };
  return JSON.stringify(file);
}

export function metricsCsv(metrics: MetricsSeries | undefined): string {
  // the playground's names, then the same numbers under TRL's names where they overlap
  const names = [...METRIC_NAMES, ...TRL_METRIC_ALIASES.map(([, ours]) => ours)];
  const lines = [[...METRIC_NAMES, ...TRL_METRIC_ALIASES.map(([trl]) => trl)].join(',')];
  // step counts from 1 as on the page (and as TRL's global step): the row of the k-th step says k; the worker's index is k - 1
  if (metrics) for (let r = 0; r < metrics.rows; r++) lines.push(names.map((n) => String(n === 'step' ? metrics.value(r, n) + 1 : metrics.value(r, n))).join(','));
  return lines.join('\n') + '\n';
}

/** A file name made of the run's name (letters, digits, - and _ only). */
export function fileStem(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'run';
}

// ---- import ----

const RUN_KEYS = ['name', 'preset', 'config', 'createdAt', 'status', 'steps', 'warmStart', 'backend', 'flags', 'checkpoints', 'baselines', 'curriculum', 'comparison', 'changes', 'member'];
function parseMetrics(x: unknown): MetricsSeries {
  const m = object(x, 'metrics', ['columns', 'rows']);
  const cols = field(m, 'columns'), rows = field(m, 'rows');
  if (!Array.isArray(cols)) fail('metrics.columns must be an array of metric names');
  (cols as unknown[]).forEach((c, i) => {
    if (typeof c !== 'string' || !(METRIC_NAMES as readonly string[]).includes(c)) fail(`metrics.columns[${i}] ${quote(c)} is not a metric name (known: ${METRIC_NAMES.join(', ')})`);
  });
  const names = cols as string[];
  if (new Set(names).size !== names.length) fail('metrics.columns names a metric twice');
  if (!names.includes('step')) fail('metrics.columns must include "step"');
  const list = array(rows, 'metrics.rows', MAX_ROWS);
  const C = METRIC_NAMES.length;
  const data = new Float64Array(list.length * C).fill(NaN);
  const at = names.map((c) => (METRIC_NAMES as readonly string[]).indexOf(c));
  const stepAt = (METRIC_NAMES as readonly string[]).indexOf('step');
  let prevStep = -Infinity;
  list.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== names.length) fail(`metrics.rows[${r}] must be an array of ${names.length} numbers`);
    (row as unknown[]).forEach((v, c) => { data[r * C + at[c]] = decodeNumber(v, `metrics.rows[${r}][${c}] (${names[c]})`); });
    const step = data[r * C + stepAt];
    if (!Number.isSafeInteger(step) || step < 0) fail(`metrics.rows[${r}]: step must be a whole number >= 0`);
    if (step <= prevStep) fail(`metrics.rows[${r}]: steps must increase (${step} after ${prevStep})`);
    prevStep = step;
  });
  return MetricsSeries.from(data);
}

/**
 * A run file's text (what runToJson wrote), checked whole against the schema (runSchema.ts)
 * before anything is kept: any problem rejects the file with one message naming the field.
 */
export function parseRunFile(text: string, fileName = 'the run file'): ImportedRun {
  const name0 = clip(fileName, 200);
  try {
    if (text.length > MAX_RUN_FILE_BYTES) fail(`it is larger than ${MAX_RUN_FILE_BYTES / 1024 / 1024} MB`);
    let doc: unknown;
    try { doc = JSON.parse(text); } catch (e) { return fail(`it is not valid JSON (${clip((e as Error).message, 200)})`); }
    if (!isObject(doc)) return fail('it is not a JSON object');
    if (field(doc, 'format') !== RUN_FILE_FORMAT) return fail(`"format" is ${quote(field(doc, 'format'))}, expected "${RUN_FILE_FORMAT}" (is this a run exported from the playground?)`);
    if (field(doc, 'version') !== RUN_FILE_VERSION) return fail(`"version" is ${quote(field(doc, 'version'))}; this page reads version ${RUN_FILE_VERSION}`);
    const top = object(doc, 'the file', ['format', 'version', 'run', 'metrics', 'evals']);
    const run = object(field(top, 'run'), '"run"', RUN_KEYS);
    const name = string(field(run, 'name'), 'run.name', 200);
    const preset = string(field(run, 'preset'), 'run.preset', 200);
    const { config, filled } = migrateConfig(field(run, 'config'), 'run.config');
    checkRunPreset(preset, taskCodeOf(config), 'run.preset');
    const steps = schema.step(field(run, 'steps'), 'run.steps');
    const evals = schema.evals(field(top, 'evals'), 'evals');
    const metrics = parseMetrics(field(top, 'metrics'));
    const createdAt = field(run, 'createdAt') === undefined ? Date.now() : finite(field(run, 'createdAt'), 'run.createdAt', 0, 8.64e15);
    const ws = field(run, 'warmStart');
    const warmStart = ws === null || ws === undefined ? null : string(ws, 'run.warmStart', 1000);
    const be = field(run, 'backend');
    if (be !== undefined && be !== null && be !== 'cpu' && be !== 'webgpu') fail(`run.backend ${quote(be)} is not cpu, webgpu or null`);
    const backend = be === 'cpu' || be === 'webgpu' ? be : null;
    const st = field(run, 'status');
    if (st !== undefined) string(st, 'run.status', 40);
    const cks = field(run, 'checkpoints');
    if (cks !== undefined) { // the checkpoints themselves come as .safetensors files; their steps are checked all the same
      const o = object(cks, 'run.checkpoints', ['last', 'best']);
      for (const k of ['last', 'best']) if (field(o, k) !== undefined) schema.step(field(o, k), `run.checkpoints.${k}`);
    }
    const optional = <T>(k: string, parse: (x: unknown) => T): T | undefined => (field(run, k) === undefined ? undefined : parse(field(run, k)));
    const baselines = optional('baselines', schema.baselines);
    const curriculum = optional('curriculum', schema.curriculum);
    const comparison = optional('comparison', schema.comparison);
    const changes = optional('changes', schema.changes);
    const member = optional('member', schema.member);
    const flags = schema.flags(field(run, 'flags'));
    let bestEval: EvalRecord | null = null;
    for (const e of evals) if (betterEval(e, bestEval)) bestEval = e;
    return {
      meta: {
        name, preset, config, createdAt, updatedAt: Date.now(), status: 'imported', steps, evals, bestEval, flags,
        warmStart, backend, checkpoints: {}, source: 'imported',
        ...(baselines ? { baselines } : {}), ...(curriculum ? { curriculum } : {}),
        ...(comparison ? { comparison } : {}), ...(changes ? { changes } : {}),
        ...(member ? { member } : {}),
      },
      metrics,
      filled,
    };
  } catch (e) {
    if (e instanceof RunFileError) throw new RunFileError(`${name0} was not imported: ${e.message}`);
    throw e;
  }
}

/**
 * Checks a .safetensors file against a run (checkpointFit, the one check the worker and the CLI
 * use); returns which checkpoint it is ('last' unless its metadata says 'best') and any notice.
 */
export function checkRunCheckpoint(bytes: Uint8Array, config: RunConfig, fileName = 'the checkpoint', presetName?: string): { which: 'last' | 'best'; notice: string | null } {
  const fail = (why: string): never => { throw new RunFileError(`${fileName} was not imported: ${why}`); };
  if (bytes.byteLength > MAX_CHECKPOINT_BYTES) fail(`it is larger than ${MAX_CHECKPOINT_BYTES / 1024 / 1024} MB`);
  let ck: ReturnType<typeof readCheckpoint>;
  try { ck = readCheckpoint(bytes); } catch (e) { return fail((e as Error).message); }
  const preset = presetName === undefined ? undefined : PRESETS.find((p) => p.name === presetName);
  const fit = checkpointFit(ck, config, createEnv(config), { slot: preset ? presetTrainableSlot(preset) : undefined });
  if (!fit.fits) fail(fit.why);
  const which = ck.extras.which;
  if (which !== undefined && which !== 'last' && which !== 'best') fail(`__metadata__.which is ${quote(which)}, expected "last" or "best"`);
  return { which: which === 'best' ? 'best' : 'last', notice: fit.fits ? fit.notice : null };
}
