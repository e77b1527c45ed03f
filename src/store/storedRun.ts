// Runs read back from storage go through the run file's schema and migration:
// a run stored by an earlier version (before a config field existed) gets that
// field's default, said in a notice, and is written back up to date; a run that
// does not read is left in storage, not shown, and the notice says why.
import { DEFAULTS, FIELDS, taskCodeOf, validateConfig, type RunConfig } from '../config';
import { hasKey, quote } from '../contract/errors';
import * as schema from './runSchema';
import { checkRunPreset, count, fail, field, finite, isObject, object, RunFileError, string } from './runSchema';
import type { RunMeta, RunStatus } from './runTypes';

/**
 * A config as stored or exported by any version: each field it lacks takes the default, which
 * is what that version ran with (fields are only ever added with a default that keeps the old
 * behaviour: channelNoise 0, no noise; scouts 1, one Scout). `filled` names them.
 */
export function migrateConfig(raw: unknown, where: string): { config: RunConfig; filled: (keyof RunConfig)[] } {
  if (!isObject(raw)) return fail(`${where} must be an object`);
  const filled = (Object.keys(FIELDS) as (keyof RunConfig)[]).filter((k) => !hasKey(raw, k));
  try {
    return { config: validateConfig(raw, DEFAULTS), filled };
  } catch (e) {
    return fail(`${where}: ${(e as Error).message}`);
  }
}


const STATUSES: readonly RunStatus[] = ['ready', 'running', 'paused', 'stopped', 'finished', 'diverged', 'error', 'interrupted', 'imported'];
const KEYS = ['id', 'name', 'preset', 'config', 'createdAt', 'updatedAt', 'status', 'steps', 'evals', 'bestEval', 'flags', 'warmStart', 'backend', 'member',
  'checkpoints', 'colorIndex', 'source', 'baselines', 'curriculum', 'comparison', 'changes'];
const MAX_TIME = 8.64e15;

/** One stored run, checked whole; `filled` lists the config fields it lacked (given their defaults). */
export function readStoredRun(x: unknown): { meta: RunMeta; filled: (keyof RunConfig)[] } {
  const r = object(x, 'the stored run', KEYS);
  const id = string(field(r, 'id'), 'id', 200);
  if (id === '') fail('id is empty');
  const preset = string(field(r, 'preset'), 'preset', 200);
  const { config, filled } = migrateConfig(field(r, 'config'), 'config');
  checkRunPreset(preset, taskCodeOf(config), 'preset');
  const status = field(r, 'status');
  if (!STATUSES.includes(status as RunStatus)) fail(`status ${quote(status)} is not one of ${STATUSES.join(', ')}`);
  const backend = field(r, 'backend') ?? null;
  if (backend !== null && backend !== 'cpu' && backend !== 'webgpu') fail(`backend ${quote(backend)} is not cpu, webgpu or null`);
  const source = field(r, 'source');
  if (source !== 'trained' && source !== 'imported') fail(`source ${quote(source)} is not trained or imported`);
  const ck = object(field(r, 'checkpoints') ?? {}, 'checkpoints', ['last', 'best']);
  const checkpoints: RunMeta['checkpoints'] = {};
  for (const k of ['last', 'best'] as const) if (field(ck, k) !== undefined) checkpoints[k] = schema.step(field(ck, k), `checkpoints.${k}`);
  const ws = field(r, 'warmStart') ?? null;
  const optional = <T>(k: string, parse: (x: unknown) => T): T | undefined => (field(r, k) === undefined ? undefined : parse(field(r, k)));
  const baselines = optional('baselines', schema.baselines);
  const curriculum = optional('curriculum', schema.curriculum);
  const comparison = optional('comparison', schema.comparison);
  const changes = optional('changes', schema.changes);
  const member = optional('member', schema.member);
  const meta: RunMeta = {
    id, name: string(field(r, 'name'), 'name', 200), preset, config,
    createdAt: finite(field(r, 'createdAt'), 'createdAt', 0, MAX_TIME), updatedAt: finite(field(r, 'updatedAt'), 'updatedAt', 0, MAX_TIME),
    status: status as RunStatus, steps: schema.step(field(r, 'steps'), 'steps'),
    evals: schema.evals(field(r, 'evals') ?? [], 'evals'),
    bestEval: field(r, 'bestEval') == null ? null : schema.evalRecord(field(r, 'bestEval'), 'bestEval'),
    flags: schema.flags(field(r, 'flags'), 'flags'),
    warmStart: ws === null ? null : string(ws, 'warmStart', 1000), backend: backend as RunMeta['backend'], checkpoints,
    colorIndex: count(field(r, 'colorIndex') ?? 0, 'colorIndex', 1_000_000), source: source as RunMeta['source'],
    ...(baselines ? { baselines } : {}), ...(curriculum ? { curriculum } : {}),
    ...(comparison !== undefined ? { comparison } : {}), ...(changes ? { changes } : {}),
    ...(member ? { member } : {}),
  };
  return { meta, filled };
}

export interface StoredRuns {
  runs: RunMeta[];
  /** Runs brought up to date (to write back). */
  migrated: RunMeta[];
  /** What the page tells the person (null: every run read as stored). */
  notice: string | null;
}

const nameOf = (x: unknown): string => (isObject(x) && typeof x.name === 'string' ? quote(x.name, 60) : 'a run');

/** Every stored run through readStoredRun: the ones that read, the ones migrated, and one notice for both kinds. */
export function readStoredRuns(list: readonly unknown[]): StoredRuns {
  const runs: RunMeta[] = [], migrated: RunMeta[] = [], filled = new Set<string>(), refused: string[] = [];
  for (const x of list) {
    try {
      const r = readStoredRun(x);
      runs.push(r.meta);
      if (r.filled.length) { migrated.push(r.meta); for (const k of r.filled) filled.add(k); }
    } catch (e) {
      if (!(e instanceof RunFileError)) throw e;
      refused.push(`${nameOf(x)}: ${e.message}`);
    }
  }
  const lines: string[] = [];
  if (migrated.length) {
    const fields = [...filled].map((k) => `${k} ${DEFAULTS[k as keyof RunConfig]}`).join(', ');
    lines.push(`${migrated.length} stored run${migrated.length > 1 ? 's were' : ' was'} written by an earlier version; the settings it lacked take their defaults (${fields}).`);
  }
  if (refused.length) {
    lines.push(`${refused.length} stored run${refused.length > 1 ? 's' : ''} could not be read and ${refused.length > 1 ? 'are' : 'is'} not shown (${refused.slice(0, 3).join('; ')}${refused.length > 3 ? '; ...' : ''}); ${refused.length > 1 ? 'they stay' : 'it stays'} in this browser's storage unchanged.`);
  }
  return { runs, migrated, notice: lines.length ? lines.join(' ') : null };
}
