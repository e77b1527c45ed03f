// Run files: export a run (JSON: setup, metrics, evals; CSV: metrics; the
// checkpoint as .safetensors) and import it back. Imports are parsed strictly,
// with size limits: a bad file is rejected whole with one message naming what
// is wrong, and nothing changes.
import { validateConfig, type RunConfig } from '../config';
import { TRL_METRIC_ALIASES } from '../export/trlMetrics';
import { PRESETS } from '../envs/presets';
import { createEnv } from '../envs/registry';
import { readCheckpoint } from '../model/checkpoint';
import { betterEval } from '../rl/pareto';
import type { EvalRecord, Flag } from '../rl/trainer';
import { METRIC_NAMES } from '../worker/protocol';
import { MetricsSeries } from './metricsSeries';
import type { RunMeta } from './runTypes';

export const RUN_FILE_FORMAT = 'gspo-playground-run';
export const RUN_FILE_VERSION = 1;
export const MAX_RUN_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;
const MAX_ROWS = 1_000_000;
const MAX_EVALS = 100_000;

export class RunFileError extends Error {
  override name = 'RunFileError';
}

/** What an import yields (the page gives it a new id). */
export interface ImportedRun {
  meta: Omit<RunMeta, 'id' | 'colorIndex'>;
  metrics: MetricsSeries;
}

// JSON has no Infinity or NaN: non-finite numbers travel as these strings
const encodeNumber = (x: number): number | string => (Number.isFinite(x) ? x : String(x));
function decodeNumber(x: unknown, where: string): number {
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (x === 'Infinity') return Infinity;
  if (x === '-Infinity') return -Infinity;
  if (x === 'NaN') return NaN;
  throw new RunFileError(`${where} is ${JSON.stringify(x)}, not a number`);
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
      ...(meta.comparison ? { comparison: meta.comparison } : {}),
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
  if (metrics) for (let r = 0; r < metrics.rows; r++) lines.push(names.map((n) => String(metrics.value(r, n))).join(','));
  return lines.join('\n') + '\n';
}

/** A file name made of the run's name (letters, digits, - and _ only). */
export function fileStem(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'run';
}

// ---- import ----

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function expectString(x: unknown, where: string, max = 500): string {
  if (typeof x !== 'string') throw new RunFileError(`${where} must be a string`);
  if (x.length > max) throw new RunFileError(`${where} is longer than ${max} characters`);
  return x;
}

function parseEval(x: unknown, i: number): EvalRecord {
  const where = `evals[${i}]`;
  if (!isObject(x)) throw new RunFileError(`${where} must be an object`);
  const out: Record<string, number> = {};
  for (const k of ['step', 'accuracy', 'tokens', 'turns', 'lambdaTok']) if (!(k in x)) throw new RunFileError(`${where}.${k} is missing`);
  for (const [k, v] of Object.entries(x)) out[k] = decodeNumber(v, `${where}.${k}`);
  if (!Number.isInteger(out.step) || out.step < 0) throw new RunFileError(`${where}.step must be a whole number >= 0`);
  return out as EvalRecord;
}

function parseFlags(x: unknown): Flag[] {
  if (x === undefined) return [];
  if (!Array.isArray(x)) throw new RunFileError('run.flags must be an array');
  return x.map((f, i) => {
    if (!isObject(f)) throw new RunFileError(`run.flags[${i}] must be an object`);
    if (f.kind !== 'nonfinite-update' && f.kind !== 'diverged' && f.kind !== 'degenerate') throw new RunFileError(`run.flags[${i}].kind ${JSON.stringify(f.kind)} is not a known flag`);
    return { kind: f.kind, step: decodeNumber(f.step, `run.flags[${i}].step`), message: expectString(f.message, `run.flags[${i}].message`, 2000) };
  });
}

function parseMetrics(x: unknown): MetricsSeries {
  if (!isObject(x)) throw new RunFileError('metrics must be an object with columns and rows');
  const cols = x.columns, rows = x.rows;
  if (!Array.isArray(cols)) throw new RunFileError('metrics.columns must be an array of metric names');
  cols.forEach((c, i) => {
    if (typeof c !== 'string' || !(METRIC_NAMES as readonly string[]).includes(c)) throw new RunFileError(`metrics.columns[${i}] ${JSON.stringify(c)} is not a metric name (known: ${METRIC_NAMES.join(', ')})`);
  });
  if (new Set(cols).size !== cols.length) throw new RunFileError('metrics.columns names a metric twice');
  if (!cols.includes('step')) throw new RunFileError('metrics.columns must include "step"');
  if (!Array.isArray(rows)) throw new RunFileError('metrics.rows must be an array');
  if (rows.length > MAX_ROWS) throw new RunFileError(`metrics has ${rows.length} rows; at most ${MAX_ROWS} are read`);
  const C = METRIC_NAMES.length;
  const data = new Float64Array(rows.length * C).fill(NaN);
  const at = (cols as string[]).map((c) => (METRIC_NAMES as readonly string[]).indexOf(c));
  let prevStep = -Infinity;
  rows.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== cols.length) throw new RunFileError(`metrics.rows[${r}] must be an array of ${cols.length} numbers`);
    row.forEach((v, c) => { data[r * C + at[c]] = decodeNumber(v, `metrics.rows[${r}][${c}] (${cols[c]})`); });
    const step = data[r * C + (METRIC_NAMES as readonly string[]).indexOf('step')];
    if (!Number.isInteger(step) || step < 0) throw new RunFileError(`metrics.rows[${r}]: step must be a whole number >= 0`);
    if (step <= prevStep) throw new RunFileError(`metrics.rows[${r}]: steps must increase (${step} after ${prevStep})`);
    prevStep = step;
  });
  return MetricsSeries.from(data);
}

/** A run file's text (what runToJson wrote), checked field by field. */
export function parseRunFile(text: string, fileName = 'the run file'): ImportedRun {
  const fail = (why: string): never => { throw new RunFileError(`${fileName} was not imported: ${why}`); };
  try {
    if (text.length > MAX_RUN_FILE_BYTES) fail(`it is larger than ${MAX_RUN_FILE_BYTES / 1024 / 1024} MB`);
    let doc: unknown;
    try { doc = JSON.parse(text); } catch (e) { return fail(`it is not valid JSON (${(e as Error).message})`); }
    if (!isObject(doc)) return fail('it is not a JSON object');
    if (doc.format !== RUN_FILE_FORMAT) return fail(`"format" is ${JSON.stringify(doc.format)}, expected "${RUN_FILE_FORMAT}" (is this a run exported from the playground?)`);
    if (doc.version !== RUN_FILE_VERSION) return fail(`"version" is ${JSON.stringify(doc.version)}; this page reads version ${RUN_FILE_VERSION}`);
    const run = doc.run;
    if (!isObject(run)) return fail('"run" must be an object');
    const name = expectString(run.name, 'run.name', 200);
    const preset = expectString(run.preset, 'run.preset', 200);
    if (!PRESETS.some((p) => p.name === preset)) throw new RunFileError(`run.preset "${preset}" is not one of ${PRESETS.map((p) => p.name).join(', ')}`);
    if (!isObject(run.config)) throw new RunFileError('run.config must be an object');
    let config: RunConfig;
    try { config = validateConfig(run.config); } catch (e) { throw new RunFileError(`run.config: ${(e as Error).message}`); }
    const steps = decodeNumber(run.steps, 'run.steps');
    if (!Array.isArray(doc.evals)) throw new RunFileError('"evals" must be an array');
    if (doc.evals.length > MAX_EVALS) throw new RunFileError(`"evals" has ${doc.evals.length} entries; at most ${MAX_EVALS} are read`);
    const evals = doc.evals.map(parseEval);
    const metrics = parseMetrics(doc.metrics);
    const createdAt = run.createdAt === undefined ? Date.now() : decodeNumber(run.createdAt, 'run.createdAt');
    const warmStart = run.warmStart === null || run.warmStart === undefined ? null : expectString(run.warmStart, 'run.warmStart', 1000);
    const backend = run.backend === 'cpu' || run.backend === 'webgpu' ? run.backend : null;
    let bestEval: EvalRecord | null = null;
    for (const e of evals) if (betterEval(e, bestEval)) bestEval = e;
    return {
      meta: {
        name, preset, config, createdAt, updatedAt: Date.now(), status: 'imported', steps, evals, bestEval, flags: parseFlags(run.flags),
        warmStart, backend, checkpoints: {}, source: 'imported',
        ...(Array.isArray(run.baselines) ? { baselines: run.baselines as RunMeta['baselines'] } : {}),
        ...(Array.isArray(run.curriculum) ? { curriculum: run.curriculum as RunMeta['curriculum'] } : {}),
        ...(isObject(run.comparison) ? { comparison: run.comparison as unknown as RunMeta['comparison'] } : {}),
      },
      metrics,
    };
  } catch (e) {
    if (e instanceof RunFileError && !e.message.startsWith(fileName)) throw new RunFileError(`${fileName} was not imported: ${e.message}`);
    throw e;
  }
}

/** Checks a .safetensors file against a run's config; returns which checkpoint it is ('last' unless its metadata says 'best'). */
export function checkRunCheckpoint(bytes: Uint8Array, config: RunConfig, fileName = 'the checkpoint'): 'last' | 'best' {
  const fail = (why: string): never => { throw new RunFileError(`${fileName} was not imported: ${why}`); };
  if (bytes.byteLength > MAX_CHECKPOINT_BYTES) fail(`it is larger than ${MAX_CHECKPOINT_BYTES / 1024 / 1024} MB`);
  let ck: ReturnType<typeof readCheckpoint>;
  try { ck = readCheckpoint(bytes); } catch (e) { return fail((e as Error).message); }
  const m = ck.config;
  if (m.nLayer !== config.nLayer || m.nHead !== config.nHead || m.nEmbd !== config.nEmbd) {
    fail(`its tensors are n_layer ${m.nLayer}, n_head ${m.nHead}, n_embd ${m.nEmbd} but the run is ${config.nLayer}, ${config.nHead}, ${config.nEmbd}`);
  }
  const env = createEnv(config);
  if (m.vocabSize !== env.vocab.length || m.blockSize !== env.blockSize) fail(`its vocab_size ${m.vocabSize} / block_size ${m.blockSize} do not fit the run's ${config.env} environment (${env.vocab.length} / ${env.blockSize})`);
  const which = ck.extras.which;
  if (which !== undefined && which !== 'last' && which !== 'best') fail(`__metadata__.which is ${JSON.stringify(which)}, expected "last" or "best"`);
  return which === 'best' ? 'best' : 'last';
}
