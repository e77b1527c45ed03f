// The run config: one typed object, every field with its default, valid range
// and a one-line description in one place (rl.md section 10). The UI, the URL,
// the CLI's --set and checkpoints all go through `validateConfig`.
import { hasKey, InputError, quote } from './errors';

export interface RunConfig {
  env: 'relay' | 'addition' | 'philosophers';
  algorithm: 'gspo' | 'grpo';
  groupSize: number;
  promptsPerStep: number;
  minibatches: number;
  lr: number;
  epsLow: number;
  epsHigh: number;
  beta: number;
  temperature: number;
  advantage: 'group' | 'none' | 'batch';
  gradClip: number;
  weightDecay: number;
  lambdaTok: number;
  lambdaTurn: number;
  lambdaRep: number;
  lambdaMode: 'manual' | 'budget';
  budget: number;
  dualEta: number;
  lambdaMax: number;
  evalEvery: number;
  evalEpisodes: number;
  steps: number;
  seed: number;
  nLayer: number;
  nHead: number;
  nEmbd: number;
  // relay
  digits: number;
  pKnown: number;
  pKnownTrain: number;
  maxMessage: number;
  channelNoise: number;
  scouts: number;
  // addition (AgentPO)
  topology: 'alone' | 'hint' | 'critic';
  // philosophers
  philosophers: number;
  rounds: number;
  philMessage: number;
  mealReward: number;
  deadlockPenalty: number;
  starvePenalty: number;
  actionCost: number;
  curriculum: 'off' | 'on';
  curriculumThreshold: number;
  curriculumPatience: number;
}

type Field =
  | { kind: 'int' | 'number'; min: number; max: number; help: string }
  | { kind: 'enum'; values: readonly string[]; help: string };

export const FIELDS: Record<keyof RunConfig, Field> = {
  env: { kind: 'enum', values: ['relay', 'addition', 'philosophers'], help: 'the environment' },
  algorithm: { kind: 'enum', values: ['gspo', 'grpo'], help: 'GSPO (sequence ratio) or GRPO (token ratio)' },
  groupSize: { kind: 'int', min: 1, max: 64, help: 'G: episodes per prompt, normalized together' },
  promptsPerStep: { kind: 'int', min: 1, max: 256, help: 'P: prompts per step' },
  minibatches: { kind: 'int', min: 1, max: 16, help: 'optimizer steps per rollout batch (later ones are off-policy)' },
  lr: { kind: 'number', min: 0, max: 0.1, help: 'AdamW learning rate' },
  epsLow: { kind: 'number', min: 0, max: 0.99, help: 'clip range below 1' },
  epsHigh: { kind: 'number', min: 0, max: 10, help: 'clip range above 1' },
  beta: { kind: 'number', min: 0, max: 10, help: 'KL weight to the reference policy (0 = no reference pass)' },
  temperature: { kind: 'number', min: 0.05, max: 5, help: 'sampling temperature (also used for log-probs)' },
  advantage: { kind: 'enum', values: ['group', 'none', 'batch'], help: 'advantage normalization' },
  gradClip: { kind: 'number', min: 0, max: 1000, help: 'global gradient-norm clip (0 = off)' },
  weightDecay: { kind: 'number', min: 0, max: 1, help: 'AdamW decoupled weight decay on 2-D weights' },
  lambdaTok: { kind: 'number', min: 0, max: 10, help: 'penalty per message token' },
  lambdaTurn: { kind: 'number', min: 0, max: 10, help: 'penalty per message turn taken' },
  lambdaRep: { kind: 'number', min: 0, max: 10, help: 'penalty per repeated bigram in messages' },
  lambdaMode: { kind: 'enum', values: ['manual', 'budget'], help: 'lambda_tok set by hand, or by the dual update toward the budget' },
  budget: { kind: 'number', min: 0, max: 64, help: 'B: token budget per episode (budget mode)' },
  dualEta: { kind: 'number', min: 0, max: 1, help: 'eta: dual step size, lambda per token of excess' },
  lambdaMax: { kind: 'number', min: 0, max: 10, help: 'upper clamp of lambda_tok in budget mode' },
  evalEvery: { kind: 'int', min: 1, max: 10000, help: 'steps between greedy evaluations' },
  evalEpisodes: { kind: 'int', min: 1, max: 4096, help: 'held-out tasks per evaluation' },
  steps: { kind: 'int', min: 0, max: 100000, help: 'training steps' },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1, help: 'run seed (sampling, tasks)' },
  nLayer: { kind: 'int', min: 1, max: 8, help: 'transformer layers' },
  nHead: { kind: 'int', min: 1, max: 16, help: 'attention heads' },
  nEmbd: { kind: 'int', min: 8, max: 256, help: 'embedding width (divisible by nHead)' },
  digits: { kind: 'int', min: 1, max: 6, help: 'relay: k, digits in the secret (at least the number of Scouts)' },
  pKnown: { kind: 'number', min: 0, max: 1, help: 'relay: eval rate of tasks where the Solver already knows' },
  pKnownTrain: { kind: 'number', min: 0, max: 1, help: 'relay: training rate of such tasks' },
  maxMessage: { kind: 'int', min: 1, max: 12, help: 'relay: M, longest Scout message' },
  channelNoise: { kind: 'number', min: 0, max: 0.9, help: 'relay: eps, chance that each message token is erased before the Solver reads it' },
  scouts: { kind: 'int', min: 1, max: 6, help: 'relay: Scouts, each holding a disjoint part of the secret' },
  topology: { kind: 'enum', values: ['alone', 'hint', 'critic'], help: 'addition: the Actor alone, with a hint writer, or with a critic' },
  philosophers: { kind: 'int', min: 3, max: 7, help: 'philosophers: N at the table (the first stage when the curriculum is on)' },
  rounds: { kind: 'int', min: 1, max: 12, help: 'philosophers: R, rounds per episode' },
  philMessage: { kind: 'int', min: 0, max: 2, help: 'philosophers: longest message after the action token' },
  mealReward: { kind: 'number', min: 0, max: 100, help: 'philosophers: reward per meal eaten' },
  deadlockPenalty: { kind: 'number', min: 0, max: 100, help: 'philosophers: penalty when the table deadlocks' },
  starvePenalty: { kind: 'number', min: 0, max: 100, help: 'philosophers: penalty per philosopher who never ate' },
  actionCost: { kind: 'number', min: 0, max: 100, help: 'philosophers: cost per action other than THINK' },
  curriculum: { kind: 'enum', values: ['off', 'on'], help: 'philosophers: N = 3 -> 5 -> 7 as the eval task measure passes the threshold' },
  curriculumThreshold: { kind: 'number', min: 0, max: 1, help: 'curriculum: eval accuracy that counts as passing' },
  curriculumPatience: { kind: 'int', min: 1, max: 100, help: 'curriculum: consecutive passing evals before N advances' },
};

export const DEFAULTS: RunConfig = {
  env: 'relay', algorithm: 'gspo', groupSize: 8, promptsPerStep: 32, minibatches: 4, lr: 3e-4, epsLow: 3e-4, epsHigh: 4e-4,
  beta: 0, temperature: 1, advantage: 'group', gradClip: 1, weightDecay: 0, lambdaTok: 0.1, lambdaTurn: 0, lambdaRep: 0,
  lambdaMode: 'manual', budget: 4, dualEta: 0.005, lambdaMax: 1, evalEvery: 10, evalEpisodes: 256, steps: 100, seed: 0,
  nLayer: 2, nHead: 4, nEmbd: 64, digits: 3, pKnown: 0.3, pKnownTrain: 0.5, maxMessage: 8, channelNoise: 0, scouts: 1,
  topology: 'hint', philosophers: 3, rounds: 8, philMessage: 1, mealReward: 1, deadlockPenalty: 1, starvePenalty: 2, actionCost: 0.4,
  curriculum: 'off', curriculumThreshold: 0.6, curriculumPatience: 2,
};

/** Checks one field; returns the parsed value or throws an InputError naming the field and its range. */
export function parseField<K extends keyof RunConfig>(key: K, raw: unknown): RunConfig[K] {
  if (!isConfigKey(key)) throw new InputError(`unknown config key ${quote(key)}`);
  const f = FIELDS[key];
  if (f.kind === 'enum') {
    if (typeof raw !== 'string' || !f.values.includes(raw)) throw new InputError(`${key} must be one of ${f.values.join(', ')}; got ${quote(raw)}`);
    return raw as RunConfig[K];
  }
  const v = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
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
    if (!isConfigKey(k)) throw new InputError(`unknown config key ${quote(k)} (known: ${Object.keys(FIELDS).join(', ')})`);
    (out as unknown as Record<string, unknown>)[k] = parseField(k, v);
  }
  if (out.nEmbd % out.nHead !== 0) throw new InputError(`nEmbd (${out.nEmbd}) must be divisible by nHead (${out.nHead})`);
  return out;
}

/** Fields a person may change between steps without a reset (ui.md / the worker's setHyperparams). */
export const LIVE_FIELDS: ReadonlyArray<keyof RunConfig> = [
  'lambdaTok', 'lambdaTurn', 'lambdaRep', 'lambdaMode', 'budget', 'dualEta', 'lambdaMax', 'groupSize', 'promptsPerStep',
  'lr', 'epsLow', 'epsHigh', 'beta', 'temperature', 'minibatches', 'advantage', 'gradClip',
];

/** Throws an InputError naming the first key that is unknown or cannot change during a run. */
export function checkLiveChange(keys: string[]): void {
  for (const k of keys) {
    if (!isConfigKey(k)) throw new InputError(`unknown config key ${quote(k)}`);
    if (!LIVE_FIELDS.includes(k)) {
      throw new InputError(`${k} cannot change during a run (it needs reset() or init()); live fields: ${LIVE_FIELDS.join(', ')}`);
    }
  }
}
