// Does a checkpoint fit a run? The one check, used by the worker (warm starts,
// loadCheckpoint), the store (run-file import) and the CLI (eval). Shapes are
// not enough: relay with 4 digits has the same vocabulary and block size as
// with 3, so a 3-digit warm start loads and silently plays the wrong task.
// A checkpoint therefore records, in its __metadata__, the environment settings
// its behaviour depends on (docs/trust.md):
//   env          the environment id
//   env_options  JSON: every option that changes contexts, demonstrations or the task (TASK_OPTIONS)
//   demo         JSON, warm starts only: the demonstration options it was pretrained on
//   dynamics     JSON, warm starts made across a range of a dynamics option (DYNAMICS): {key: [lo, hi]}
// A checkpoint without the record (PyTorch-written, older) still fits when its
// shapes do, with a notice saying so.
import { DEFAULTS, taskCodeOf, type RunConfig } from '../config';
import { taskHash } from '../envs/userTask/preset';
import { clip } from '../contract/errors';
import { presetSlots, type Preset } from '../envs/presets';
import type { DemoOptions } from '../envs/types';
import type { Environment } from '../envs/types';
import { readCheckpoint, type Checkpoint } from '../model/checkpoint';

/**
 * Per environment, the options that change what the policy sees or must do. Left out on
 * purpose: task mixes (pKnown, pKnownTrain: the same tasks, in other proportions), reward
 * weights (mealReward, ...: the same contexts, another reward) and the curriculum.
 */
export const TASK_OPTIONS: { readonly [E in RunConfig['env']]: ReadonlyArray<keyof RunConfig> } = {
  relay: ['digits', 'maxMessage', 'channelNoise', 'scouts'],
  addition: ['topology'],
  philosophers: ['philosophers', 'rounds', 'philMessage'],
  custom: [], // the task is its code: envRecord records its hash (task_hash)
};

/**
 * Task options that change only the dynamics a policy meets, not what it reads or writes (relay's channel
 * noise: the same contexts and messages, more or fewer erasures), and the demo option that trains a warm
 * start across a range of them: such a warm start fits any value in its range.
 */
export const DYNAMICS: { readonly [E in RunConfig['env']]?: Partial<Record<keyof RunConfig, keyof DemoOptions>> } = {
  relay: { channelNoise: 'demoNoise' },
};

/** Options a slot's policy does not depend on: the AgentPO Actor's demonstrations are the same in every topology. */
const SLOT_INDEPENDENT: Partial<Record<RunConfig['env'], Record<string, ReadonlyArray<keyof RunConfig>>>> = {
  addition: { actor: ['topology'] },
};

/** The options that matter for one policy slot of an environment. */
export function taskOptions(env: RunConfig['env'], slot?: string): ReadonlyArray<keyof RunConfig> {
  const skip = slot === undefined ? [] : SLOT_INDEPENDENT[env]?.[slot] ?? [];
  return TASK_OPTIONS[env].filter((k) => !skip.includes(k));
}

/** The slot a run's checkpoint is of: the preset's trainable one ('policy' for one-slot presets). */
export function presetTrainableSlot(p: Preset): string {
  return Object.entries(presetSlots(p)).find(([, s]) => s.trainable)?.[0] ?? 'policy';
}

/** The __metadata__ entries a checkpoint of this run's `slot` carries (a warm start adds its demo options). */
export function envRecord(config: RunConfig, slot?: string, demo?: DemoOptions): Record<string, string> {
  const options = Object.fromEntries(taskOptions(config.env, slot).map((k) => [k, config[k]]));
  const ranges = Object.entries(DYNAMICS[config.env] ?? {}).filter(([, d]) => demo?.[d!] !== undefined).map(([k, d]) => [k, demo![d!]]);
  const code = config.env === 'custom' ? taskCodeOf(config) : undefined;
  return {
    env: config.env, env_options: JSON.stringify(options), ...(demo ? { demo: JSON.stringify(demo) } : {}),
    ...(code !== undefined ? { task_hash: taskHash(code) } : {}),
    ...(ranges.length ? { dynamics: JSON.stringify(Object.fromEntries(ranges)) } : {}),
  };
}

/** A recorded [lo, hi] range, or null when it is not one. */
function rangeOf(x: unknown): [number, number] | null {
  return Array.isArray(x) && x.length === 2 && typeof x[0] === 'number' && typeof x[1] === 'number' && x[0] <= x[1] ? [x[0], x[1]] : null;
}

export type Fit = { fits: true; notice: string | null } | { fits: false; why: string };

/** What a loader expects beyond the run: a warm start's demo options and policy slot. */
export interface FitWant { demo?: DemoOptions; slot?: string }

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const own = (o: Record<string, unknown>, k: string): unknown => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try { return JSON.parse(text); } catch { return null; }
}

/**
 * The recorded options: env_options, else (checkpoints the page exported before the record)
 * the run_config they carry; undefined when there is no record, null when it is unreadable.
 */
function recordedOptions(ck: Checkpoint): Record<string, unknown> | null | undefined {
  const rec = parseJson(ck.extras.env_options);
  if (rec !== undefined) return isObject(rec) ? rec : null;
  const rc = parseJson(ck.extras.run_config);
  return isObject(rc) ? rc : undefined;
}

/** The demo options a warm start records: `demo`, else the older `pretrain` entry that held them beside steps and seed. */
function recordedDemo(ck: Checkpoint): Record<string, unknown> | null | undefined {
  const rec = parseJson(ck.extras.demo ?? ck.extras.pretrain);
  if (rec === undefined) return undefined;
  return isObject(rec) ? rec : null;
}

const show = (v: unknown): string => clip(typeof v === 'string' ? v : JSON.stringify(v) ?? String(v), 40);

/** Whether `ck` fits a run of `config` on `env`; a mismatch says what differs. */
export function checkpointFit(ck: Checkpoint, config: RunConfig, env: Environment, want: FitWant = {}): Fit {
  const c = ck.config;
  if (c.nLayer !== config.nLayer || c.nHead !== config.nHead || c.nEmbd !== config.nEmbd) {
    return { fits: false, why: `it is for another model size (n_layer ${c.nLayer}, n_head ${c.nHead}, n_embd ${c.nEmbd}; the run has ${config.nLayer}, ${config.nHead}, ${config.nEmbd})` };
  }
  if (c.blockSize !== env.blockSize || c.vocabSize !== env.vocab.length) {
    return { fits: false, why: `its block_size ${c.blockSize} / vocab_size ${c.vocabSize} do not fit the run's ${env.id} environment (${env.blockSize} / ${env.vocab.length})` };
  }
  if (ck.vocab && ck.vocab.join('\u0000') !== env.vocab.join('\u0000')) return { fits: false, why: `its vocabulary is not the ${env.id} environment's` };
  const recEnv = ck.extras.env;
  if (recEnv !== undefined && recEnv !== config.env) return { fits: false, why: `it was made for the ${show(recEnv)} environment, the run is ${config.env}` };
  const code = config.env === 'custom' ? taskCodeOf(config) : undefined;
  if (code !== undefined && ck.extras.task_hash !== undefined && ck.extras.task_hash !== taskHash(code)) {
    return { fits: false, why: `it was made for another task (task_hash ${show(ck.extras.task_hash)}; this task's code hashes to ${taskHash(code)})` };
  }
  if (want.slot !== undefined && ck.extras.slot !== undefined && ck.extras.slot !== want.slot) {
    return { fits: false, why: `it is the ${show(ck.extras.slot)} policy, not the ${want.slot}` };
  }

  const options = recordedOptions(ck);
  if (options === null) return { fits: false, why: 'its __metadata__.env_options is not a JSON object' };
  const dynamics = parseJson(ck.extras.dynamics);
  if (dynamics !== undefined && !isObject(dynamics)) return { fits: false, why: 'its __metadata__.dynamics is not a JSON object' };
  if (options !== undefined) {
    // an option missing from a record is one that did not exist yet: it played as the default does;
    // a dynamics option trained across a range fits anywhere in it
    const diff = taskOptions(config.env, want.slot)
      .map((k) => {
        const range = dynamics && own(dynamics, k) !== undefined ? rangeOf(own(dynamics, k)) : null;
        return { k, was: range ? `${range[0]} to ${range[1]}` : own(options, k) ?? DEFAULTS[k], now: config[k], fits: range ? (config[k] as number) >= range[0] && (config[k] as number) <= range[1] : undefined };
      })
      .filter((d) => (d.fits === undefined ? d.was !== d.now : !d.fits));
    if (diff.length) return { fits: false, why: `it was made for ${diff.map((d) => `${d.k} ${show(d.was)}`).join(', ')}; the run has ${diff.map((d) => `${d.k} ${d.now}`).join(', ')}` };
  }
  if (want.demo) {
    const demo = recordedDemo(ck);
    if (demo === null) return { fits: false, why: 'its __metadata__.demo is not a JSON object' };
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b); // ranges are arrays
    const diff = demo ? Object.entries(want.demo).filter(([k, v]) => own(demo, k) !== undefined && !same(own(demo, k), v)) : [];
    if (diff.length) return { fits: false, why: `it was pretrained on other demonstrations (${diff.map(([k, v]) => `${k} ${show(own(demo!, k))}, wanted ${show(v)}`).join('; ')})` };
  }
  const notice = options === undefined
    ? 'it has no record of the environment settings it was made for (an older or PyTorch-written checkpoint); used because its shapes fit'
    : null;
  return { fits: true, notice };
}

/** Reads the bytes, then checkpointFit; the weights when it fits. */
export function fitCheckpointBytes(bytes: Uint8Array, config: RunConfig, env: Environment, want: FitWant = {}):
  { weights: Float32Array; ck: Checkpoint; notice: string | null } | { why: string } {
  let ck: Checkpoint;
  try { ck = readCheckpoint(bytes); } catch (e) { return { why: `it is not a valid checkpoint (${e instanceof Error ? e.message : String(e)})` }; }
  const fit = checkpointFit(ck, config, env, want);
  return fit.fits ? { weights: ck.weights, ck, notice: fit.notice } : { why: fit.why };
}
