// The run config: one typed object, every field with its default, valid range,
// page group, environment, liveness and a one-line description in one table
// (docs/rl.md section 10). The UI, the URL, the CLI's --set and checkpoints all go
// through `validateConfig`.
import { hasKey, InputError, quote } from './contract/errors';
import { LOSS_IDS } from './contract/losses';

/** The environments, by id (src/envs/registry.ts builds them). */
export const ENV_IDS = ['relay', 'addition', 'philosophers', 'custom'] as const;
export type EnvId = (typeof ENV_IDS)[number];

/** Where the page shows a field: env's own fields go under "Environment", reward fields in the reward panel. */
export type FieldGroup = 'setup' | 'algorithm' | 'reward' | 'model' | 'evaluation' | 'env';

interface FieldCommon {
  help: string;
  group: FieldGroup;
  /** May change between steps without a reset (the worker's setHyperparams). */
  live?: boolean;
  /** The environment the field belongs to; absent for general fields. */
  env?: EnvId;
}
type Field =
  | FieldCommon & { kind: 'int' | 'number'; min: number; max: number; default: number }
  | FieldCommon & { kind: 'enum'; values: readonly string[]; default: string };

// One entry per field: kind and range, default, page group, env, live, help. RunConfig,
// DEFAULTS, LIVE_FIELDS and the page's grouping are all derived from this table.
const TABLE = {
  env: { kind: 'enum', values: ENV_IDS, default: 'relay', group: 'setup', help: 'the environment' },
  algorithm: { kind: 'enum', values: LOSS_IDS, default: 'gspo', group: 'algorithm', help: 'the policy-loss variant: a row of the loss table (src/contract/losses.ts, docs/losses.md)' },
  groupSize: { kind: 'int', min: 1, max: 64, default: 8, group: 'algorithm', live: true, help: 'G: episodes per prompt, normalized together' },
  promptsPerStep: { kind: 'int', min: 1, max: 256, default: 32, group: 'algorithm', live: true, help: 'P: prompts per step' },
  minibatches: { kind: 'int', min: 1, max: 16, default: 4, group: 'algorithm', live: true, help: 'optimizer steps per rollout batch (later ones are off-policy)' },
  lr: { kind: 'number', min: 0, max: 0.1, default: 3e-4, group: 'algorithm', live: true, help: 'AdamW learning rate' },
  epsLow: { kind: 'number', min: 0, max: 0.99, default: 3e-4, group: 'algorithm', live: true, help: 'clip range below 1' },
  epsHigh: { kind: 'number', min: 0, max: 10, default: 4e-4, group: 'algorithm', live: true, help: 'clip range above 1' },
  delta: { kind: 'number', min: 1, max: 100, default: 4, group: 'algorithm', live: true, help: 'two-sided clip: cap on the unclipped ratio (read only by the two-sided variant)' },
  beta: { kind: 'number', min: 0, max: 10, default: 0, group: 'algorithm', live: true, help: 'KL weight to the reference policy (0 = no reference pass)' },
  temperature: { kind: 'number', min: 0.05, max: 5, default: 1, group: 'algorithm', live: true, help: 'sampling temperature (also used for log-probs)' },
  advantage: { kind: 'enum', values: ['group', 'none', 'batch'], default: 'group', group: 'algorithm', live: true, help: 'advantage normalization' },
  dynamicSampling: { kind: 'enum', values: ['off', 'on'], default: 'off', group: 'algorithm', live: true, help: 'DAPO\'s dynamic sampling: groups whose rewards are all equal leave the loss and are refilled by sampling more (groups_dropped, groups_refilled count them)' },
  refillRounds: { kind: 'int', min: 0, max: 8, default: 2, group: 'algorithm', live: true, help: 'dynamic sampling: at most this many extra rollout rounds of P prompts refill the dropped groups (0 = drop only)' },
  gradClip: { kind: 'number', min: 0, max: 1000, default: 1, group: 'algorithm', live: true, help: 'global gradient-norm clip (0 = off)' },
  weightDecay: { kind: 'number', min: 0, max: 1, default: 0, group: 'algorithm', help: 'AdamW decoupled weight decay on 2-D weights' },
  lambdaTok: { kind: 'number', min: 0, max: 10, default: 0.1, group: 'reward', live: true, help: 'penalty per message token' },
  lambdaTurn: { kind: 'number', min: 0, max: 10, default: 0, group: 'reward', live: true, help: 'penalty per message turn taken' },
  lambdaRep: { kind: 'number', min: 0, max: 10, default: 0, group: 'reward', live: true, help: 'penalty per repeated bigram in messages' },
  overlongCache: { kind: 'int', min: 0, max: 64, default: 0, group: 'reward', live: true, help: 'DAPO\'s soft overlong punishment: L_cache, the last tokens before a turn\'s limit over which the penalty grows linearly (0 = off)' },
  overlongPenalty: { kind: 'number', min: 0, max: 10, default: 1, group: 'reward', live: true, help: 'soft overlong punishment: the penalty of a turn that reaches its limit (read only when overlongCache > 0)' },
  lambdaMode: { kind: 'enum', values: ['manual', 'budget'], default: 'manual', group: 'reward', live: true, help: 'lambda_tok set by hand, or by the dual update toward the budget' },
  budget: { kind: 'number', min: 0, max: 64, default: 4, group: 'reward', live: true, help: 'B: token budget per episode (budget mode)' },
  dualEta: { kind: 'number', min: 0, max: 1, default: 0.005, group: 'reward', live: true, help: 'eta: dual step size, lambda per token of excess' },
  lambdaMax: { kind: 'number', min: 0, max: 10, default: 1, group: 'reward', live: true, help: 'upper clamp of lambda_tok in budget mode' },
  lambdaStart: { kind: 'number', min: 0, max: 10, default: 0, group: 'reward', live: true, help: 'manual mode: the token penalty of the first lambdaHold steps (a recipe starts at the strongest penalty with the same optimum, then settles at lambda_tok)' },
  lambdaHold: { kind: 'int', min: 0, max: 100000, default: 0, group: 'reward', live: true, help: 'manual mode: steps trained at lambdaStart before lambda_tok applies (0 = off)' },
  evalEvery: { kind: 'int', min: 1, max: 10000, default: 10, group: 'evaluation', help: 'steps between greedy evaluations' },
  evalEpisodes: { kind: 'int', min: 1, max: 4096, default: 256, group: 'evaluation', help: 'held-out tasks per evaluation' },
  steps: { kind: 'int', min: 0, max: 100000, default: 100, group: 'evaluation', live: true, help: 'training steps (may be raised or lowered during a run: Continue trains on to the new count)' },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, default: 0, group: 'evaluation', help: 'run seed (sampling, tasks)' },
  nLayer: { kind: 'int', min: 1, max: 8, default: 2, group: 'model', help: 'transformer layers' },
  nHead: { kind: 'int', min: 1, max: 16, default: 4, group: 'model', help: 'attention heads' },
  nEmbd: { kind: 'int', min: 8, max: 256, default: 64, group: 'model', help: 'embedding width (divisible by nHead)' },
  digits: { kind: 'int', min: 1, max: 6, default: 3, group: 'env', env: 'relay', help: 'relay: k, digits in the secret (at least the number of Scouts)' },
  pKnown: { kind: 'number', min: 0, max: 1, default: 0.3, group: 'env', env: 'relay', help: 'relay: eval rate of tasks where the Solver already knows' },
  pKnownTrain: { kind: 'number', min: 0, max: 1, default: 0.5, group: 'env', env: 'relay', help: 'relay: training rate of such tasks' },
  maxMessage: { kind: 'int', min: 1, max: 12, default: 8, group: 'env', env: 'relay', help: 'relay: M, longest Scout message' },
  channelNoise: { kind: 'number', min: 0, max: 0.9, default: 0, group: 'env', env: 'relay', help: 'relay: eps, chance that each message token is erased before the Solver reads it' },
  scouts: { kind: 'int', min: 1, max: 6, default: 1, group: 'env', env: 'relay', help: 'relay: Scouts, each holding a disjoint part of the secret' },
  topology: { kind: 'enum', values: ['alone', 'hint', 'critic'], default: 'hint', group: 'env', env: 'addition', help: 'addition: the Actor alone, with a hint writer, or with a critic' },
  philosophers: { kind: 'int', min: 3, max: 7, default: 3, group: 'env', env: 'philosophers', help: 'philosophers: N at the table (the first stage when the curriculum is on)' },
  rounds: { kind: 'int', min: 1, max: 12, default: 8, group: 'env', env: 'philosophers', help: 'philosophers: R, rounds per episode' },
  philMessage: { kind: 'int', min: 0, max: 2, default: 1, group: 'env', env: 'philosophers', help: 'philosophers: longest message after the action token' },
  mealReward: { kind: 'number', min: 0, max: 100, default: 1, group: 'env', env: 'philosophers', help: 'philosophers: reward per meal eaten' },
  deadlockPenalty: { kind: 'number', min: 0, max: 100, default: 1, group: 'env', env: 'philosophers', help: 'philosophers: penalty when the table deadlocks' },
  starvePenalty: { kind: 'number', min: 0, max: 100, default: 2, group: 'env', env: 'philosophers', help: 'philosophers: penalty per philosopher who never ate' },
  actionCost: { kind: 'number', min: 0, max: 100, default: 0.4, group: 'env', env: 'philosophers', help: 'philosophers: cost per action other than THINK' },
  curriculum: { kind: 'enum', values: ['off', 'on'], default: 'off', group: 'env', env: 'philosophers', help: 'philosophers: N = 3 -> 5 -> 7 as the eval task measure passes the threshold' },
  curriculumThreshold: { kind: 'number', min: 0, max: 1, default: 0.6, group: 'env', env: 'philosophers', help: 'curriculum: eval accuracy that counts as passing' },
  curriculumPatience: { kind: 'int', min: 1, max: 100, default: 2, group: 'env', env: 'philosophers', help: 'curriculum: consecutive passing evals before N advances' },
} as const satisfies Record<string, Field>;

type ValueOf<F> = F extends { kind: 'enum'; values: readonly (infer V)[] } ? V : number;
export type RunConfig = { -readonly [K in keyof typeof TABLE]: ValueOf<(typeof TABLE)[K]> };

/**
 * `taskCode`: env 'custom' only, the person's task module (docs/your-task.md). It is not a table field (a text,
 * not a number or a choice: the page's field list, the URL's settings and sweeps never show it, and `keyof
 * RunConfig` stays the table's) but it rides on the config object so that the code travels with the run:
 * validateConfig keeps it, and JSON copies of a config (checkpoints, run files, member threads) carry it.
 */
export type TaskConfig = RunConfig & { taskCode?: string };
/** The task module a config carries (undefined: none). */
export const taskCodeOf = (c: RunConfig): string | undefined => (c as TaskConfig).taskCode;

/** The longest task module a config carries, in characters (a task is a page of code, not a data set). */
export const TASK_CODE_MAX = 100_000;

export const FIELDS: Readonly<Record<keyof RunConfig, Field>> = TABLE;

const KEYS = Object.keys(TABLE) as (keyof RunConfig)[];

export const DEFAULTS: RunConfig = Object.fromEntries(KEYS.map((k) => [k, TABLE[k].default])) as RunConfig;

/** The fields of one page group, in table order (an env's own: group 'env' and that env). */
export function fieldsInGroup(group: FieldGroup, env?: EnvId): (keyof RunConfig)[] {
  return KEYS.filter((k) => FIELDS[k].group === group && (env === undefined || FIELDS[k].env === env));
}

/**
 * A number written in decimal (optional sign, digits, point, exponent), or null. Number() also
 * reads "0x2", "0b1", "0o7", "Infinity" and "" (as 0); a person typing a setting means none of those.
 */
export function parseDecimal(raw: string): number | null {
  const t = raw.trim();
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : null;
}

/** Checks one field; returns the parsed value or throws an InputError naming the field and its range. */
export function parseField<K extends keyof RunConfig>(key: K, raw: unknown): RunConfig[K] {
  if (!isConfigKey(key)) throw new InputError(`unknown config key ${quote(key)}`);
  const f = FIELDS[key];
  if (f.kind === 'enum') {
    if (typeof raw !== 'string' || !f.values.includes(raw)) throw new InputError(`${key} must be one of ${f.values.join(', ')}; got ${quote(raw)}`);
    return raw as RunConfig[K];
  }
  const v = typeof raw === 'string' ? parseDecimal(raw) ?? raw : raw;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new InputError(`${key} must be a number in [${f.min}, ${f.max}]; got ${quote(raw)}`);
  if (f.kind === 'int' && !Number.isInteger(v)) throw new InputError(`${key} must be an integer in [${f.min}, ${f.max}]; got ${v}`);
  if (v < f.min || v > f.max) throw new InputError(`${key} must be in [${f.min}, ${f.max}]; got ${v}`);
  return v as RunConfig[K];
}

/** Whether a name (from a URL, a flag, a file) is a config field: own keys only, never "constructor" or "__proto__". */
export function isConfigKey(k: string): k is keyof RunConfig {
  return typeof k === 'string' && hasKey(FIELDS, k);
}

/** A whole config from a partial one over the defaults; unknown keys are errors, never ignored. */
export function validateConfig(partial: Record<string, unknown>, base: RunConfig = DEFAULTS): RunConfig {
  const out: RunConfig = { ...base };
  for (const [k, v] of Object.entries(partial)) {
    if (k === 'taskCode') { (out as TaskConfig).taskCode = parseTaskCode(v); continue; }
    if (!isConfigKey(k)) throw new InputError(`unknown config key ${quote(k)} (known: ${Object.keys(FIELDS).join(', ')})`);
    (out as unknown as Record<string, unknown>)[k] = parseField(k, v);
  }
  if (out.nEmbd % out.nHead !== 0) throw new InputError(`nEmbd (${out.nEmbd}) must be divisible by nHead (${out.nHead})`);
  if (out.scouts > out.digits) throw new InputError(`scouts (${out.scouts}) must be at most digits (${out.digits}): each Scout holds a part of the secret`);
  return out;
}

/** A config's task code: a string of at most TASK_CODE_MAX characters (undefined: none). */
function parseTaskCode(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new InputError(`taskCode must be the task module's text; got ${quote(v)}`);
  if (v.length > TASK_CODE_MAX) throw new InputError(`taskCode is ${v.length} characters, more than the ${TASK_CODE_MAX} a task may have`);
  return v;
}

/** Fields a person may change between steps without a reset (docs/page.md / the worker's setHyperparams). */
export const LIVE_FIELDS: ReadonlyArray<keyof RunConfig> = KEYS.filter((k) => FIELDS[k].live);

/** Throws an InputError naming the first key that is unknown or cannot change during a run. */
export function checkLiveChange(keys: string[]): void {
  for (const k of keys) {
    if (!isConfigKey(k)) throw new InputError(`unknown config key ${quote(k)}`);
    if (!LIVE_FIELDS.includes(k)) {
      throw new InputError(`${k} cannot change during a run (it needs reset() or init()); live fields: ${LIVE_FIELDS.join(', ')}`);
    }
  }
}
