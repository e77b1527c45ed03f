// The one table from a playground config to TRL's GRPOConfig and verl's PPO
// config. The TRL script, the verl config and the READMEs' mapping tables are
// all rendered from these rows, so they cannot disagree (docs/export.md).
import type { RunConfig } from '../config';
import { LOSSES } from '../contract/losses';
import { rewardWeights } from '../rl/reward';
import { hydraValue, py, type PyValue } from './literal';

export type { PyValue } from './literal';

export interface MappingRow {
  /** The playground field(s) this row maps, e.g. 'algorithm' or 'promptsPerStep, groupSize, minibatches'. */
  field: string;
  /** Their values in this config, as shown in the table. */
  value: string;
  /** GRPOConfig keyword arguments (TRL option names). */
  trl: Record<string, PyValue>;
  /** verl config keys (dotted, as Hydra overrides). */
  verl: Record<string, PyValue>;
  note?: string;
}

/** AdamW moments and epsilon: fixed in the playground (src/rl/trainer.ts), said explicitly on both sides. */
const ADAM = { beta1: 0.9, beta2: 0.999, eps: 1e-8 };

/** Completions per optimizer step: one step's P x G episodes split over the minibatches. */
export function completionsPerUpdate(c: RunConfig): number {
  return Math.ceil((c.promptsPerStep * c.groupSize) / c.minibatches);
}

export function mappingRows(c: RunConfig): MappingRow[] {
  const row = LOSSES[c.algorithm], w = rewardWeights(c, c.lambdaTok); // lambda_tok at the start of the run
  const divisible = (c.promptsPerStep * c.groupSize) % c.minibatches === 0 && c.promptsPerStep % c.minibatches === 0;
  const rows: MappingRow[] = [
    {
      // delta is named even where the variant does not read it, so every config field has its row
      field: 'algorithm, delta', value: `${c.algorithm}, ${row.clip === 'two-sided' ? c.delta : 'not read by this variant'}`,
      trl: { importance_sampling_level: row.trl.importance_sampling_level, loss_type: row.trl.loss_type, ...(row.trl.delta ? { delta: c.delta } : {}) },
      verl: {
        'actor_rollout_ref.actor.policy_loss.loss_mode': row.verl.loss_mode, 'actor_rollout_ref.actor.loss_agg_mode': row.verl.loss_agg_mode,
        'actor_rollout_ref.actor.clip_ratio_c': row.clip === 'two-sided' ? c.delta : 1e9,
      },
      note: algorithmNote(c),
    },
    { field: 'groupSize', value: String(c.groupSize), trl: { num_generations: c.groupSize }, verl: { 'actor_rollout_ref.rollout.n': c.groupSize } },
    {
      field: 'promptsPerStep, minibatches', value: `${c.promptsPerStep}, ${c.minibatches}`,
      trl: { per_device_train_batch_size: completionsPerUpdate(c), steps_per_generation: c.minibatches, gradient_accumulation_steps: 1, num_iterations: 1 },
      verl: { 'data.train_batch_size': c.promptsPerStep, 'actor_rollout_ref.actor.ppo_mini_batch_size': Math.max(1, Math.floor(c.promptsPerStep / c.minibatches)), 'actor_rollout_ref.actor.ppo_epochs': 1 },
      note: `one generation of P x G = ${c.promptsPerStep * c.groupSize} completions, ${c.minibatches} optimizer steps on it (the value is for one process; under accelerate launch with k processes train_grpo.py uses ${completionsPerUpdate(c)}/k per device, the same global batch)` +
        (divisible ? '' : '; P x G or P is not a multiple of the minibatches here, so the split is rounded'),
    },
    {
      field: 'steps', value: String(c.steps),
      trl: { max_steps: c.steps * c.minibatches }, verl: { 'trainer.total_training_steps': c.steps },
      note: 'TRL counts optimizer steps (minibatches per playground step), verl counts rollout steps',
    },
    { field: 'lr', value: String(c.lr), trl: { learning_rate: c.lr, lr_scheduler_type: 'constant' }, verl: { 'actor_rollout_ref.actor.optim.lr': c.lr, 'actor_rollout_ref.actor.optim.lr_scheduler_type': 'constant' } },
    { field: 'epsLow', value: String(c.epsLow), trl: { epsilon: c.epsLow }, verl: { 'actor_rollout_ref.actor.clip_ratio_low': c.epsLow } },
    {
      field: 'epsHigh', value: String(c.epsHigh), trl: { epsilon_high: row.clip === 'cispo' ? 1 + c.epsHigh : c.epsHigh }, verl: { 'actor_rollout_ref.actor.clip_ratio_high': c.epsHigh },
      note: row.clip === 'cispo' ? 'TRL\'s CISPO reads epsilon_high as the cap on the weight itself, hence 1 + eps_high' : undefined,
    },
    {
      field: 'beta', value: String(c.beta), trl: { beta: c.beta },
      verl: { 'actor_rollout_ref.actor.use_kl_loss': c.beta > 0, 'actor_rollout_ref.actor.kl_loss_coef': c.beta, 'actor_rollout_ref.actor.kl_loss_type': 'low_var_kl', 'algorithm.use_kl_in_reward': false },
      note: 'the k3 estimator in the loss, as here (verl\'s low_var_kl is k3 clamped to [-10, 10])',
    },
    { field: 'temperature', value: String(c.temperature), trl: { temperature: c.temperature }, verl: { 'actor_rollout_ref.rollout.temperature': c.temperature } },
    {
      field: 'advantage', value: c.advantage,
      trl: { scale_rewards: c.advantage },
      verl: { 'algorithm.adv_estimator': 'grpo', 'algorithm.norm_adv_by_std_in_grpo': c.advantage !== 'none' },
      note: [
        c.advantage === 'batch' ? 'verl has no batch-std scaling: norm_adv_by_std_in_grpo=true divides by the group std instead' : '',
        c.advantage !== row.advantage ? `${row.label.replace(/ \(.*/, '')} is defined with advantage ${row.advantage}; this run uses ${c.advantage}, and so does the recipe` : '',
      ].filter(Boolean).join('; ') || undefined,
    },
    {
      field: 'dynamicSampling, refillRounds', value: `${c.dynamicSampling}, ${c.refillRounds}`, trl: {}, verl: {},
      note: c.dynamicSampling === 'on'
        ? `not expressible: neither GRPOConfig nor verl's PPO trainer config drops groups whose rewards are all equal (they train on them with A = 0); verl's DAPO recipe (recipe/dapo, not this config) has it as algorithm.filter_groups.enable=true with max_num_gen_batches=${c.refillRounds + 1}`
        : 'off: every group stays in the loss, as in both targets',
    },
    { field: 'gradClip', value: String(c.gradClip), trl: { max_grad_norm: c.gradClip }, verl: { 'actor_rollout_ref.actor.grad_clip': c.gradClip }, note: c.gradClip === 0 ? '0 = no clipping in the playground and in TRL' : undefined },
    {
      field: 'weightDecay (AdamW 0.9, 0.999, 1e-8)', value: String(c.weightDecay),
      trl: { weight_decay: c.weightDecay, adam_beta1: ADAM.beta1, adam_beta2: ADAM.beta2, adam_epsilon: ADAM.eps },
      verl: { 'actor_rollout_ref.actor.optim.weight_decay': c.weightDecay, 'actor_rollout_ref.actor.optim.betas': [ADAM.beta1, ADAM.beta2] },
    },
    {
      field: 'lambdaTok, lambdaTurn, lambdaRep', value: `${w.lambdaTok}, ${w.lambdaTurn}, ${w.lambdaRep}`,
      trl: { reward_weights: [1, neg(w.lambdaTok), neg(w.lambdaTurn), neg(w.lambdaRep)] },
      verl: { 'custom_reward_function.path': '$PWD/reward_fn.py', 'custom_reward_function.name': 'compute_score' },
      note: 'TRL: one reward function per term (task, tokens, turns, repetition), logged separately; verl: reward_fn.py sums them with these weights',
    },
    {
      field: 'overlongCache, overlongPenalty', value: `${c.overlongCache}, ${c.overlongPenalty}`, trl: {}, verl: {},
      note: c.overlongCache > 0
        ? `not in the recipe: the playground's soft overlong punishment is per turn (L_cache ${c.overlongCache} before each turn's limit, penalty ${c.overlongPenalty}); TRL's trl.rewards.get_soft_overlong_punishment(max_completion_len, soft_punish_cache) is the same ramp on a whole completion (add it to reward_funcs with weight ${c.overlongPenalty}), verl's DAPO recipe has reward_model.overlong_buffer (enable, len, penalty_factor)`
        : 'off: no length shaping, as in both targets',
    },
    {
      field: 'lambdaMode, budget, dualEta, lambdaMax', value: `${c.lambdaMode}, ${c.budget}, ${c.dualEta}, ${c.lambdaMax}`,
      trl: {}, verl: {},
      note: c.lambdaMode === 'budget'
        ? 'TRL: the LambdaTokBudget callback moves lambda_tok (the tokens reward weight) after each generation; verl: no hook, lambda_tok stays at its start value'
        : 'manual: lambda_tok stays fixed',
    },
    {
      field: 'lambdaStart, lambdaHold', value: `${c.lambdaStart}, ${c.lambdaHold}`, trl: {}, verl: {},
      note: c.lambdaMode === 'manual' && c.lambdaHold > 0
        ? `not in the recipe: the playground trains the first ${c.lambdaHold} steps at lambda_tok ${c.lambdaStart}, then at ${c.lambdaTok}; neither target has a schedule for a reward weight (TRL: a callback like LambdaTokBudget could set it; verl: two runs, the second resuming the first)`
        : 'off: lambda_tok from the first step',
    },
    { field: 'seed', value: String(c.seed), trl: { seed: c.seed }, verl: { 'data.seed': c.seed } },
    {
      field: 'evalEvery, evalEpisodes', value: `${c.evalEvery}, ${c.evalEpisodes}`,
      trl: { eval_strategy: 'steps', eval_steps: c.evalEvery * c.minibatches }, verl: { 'trainer.test_freq': c.evalEvery },
      note: `the eval split has ${c.evalEpisodes} tasks; verl evaluates greedily (val_kwargs), TRL samples`,
    },
    {
      field: 'nLayer, nHead, nEmbd', value: `${c.nLayer}, ${c.nHead}, ${c.nEmbd}`, trl: {}, verl: {},
      note: 'not mapped: you supply the model (README)',
    },
  ];
  return rows;
}

/** What the algorithm row says: the variant's aggregation, and what TRL or verl cannot express of it (from the loss table). */
function algorithmNote(c: RunConfig): string {
  const row = LOSSES[c.algorithm];
  const parts = [`${row.label}: ${row.formula}.`];
  if (row.aggregation === 'seq-mean-token-sum-norm') {
    parts.push('The playground\'s constant L_max is the turn\'s token limit (EOS included); TRL divides by max_completion_length and verl by the padded response length, other constants: the loss differs by a constant factor (the learning rate absorbs it).');
  }
  parts.push(row.trl.gap ? `TRL cannot express this exactly: ${row.trl.gap}.` : 'TRL expresses it exactly.');
  parts.push(row.verl.gap ? `verl cannot express this exactly: ${row.verl.gap}.` : 'verl expresses it exactly.');
  parts.push(row.clip === 'two-sided'
    ? 'verl\'s clip_ratio_c is the two-sided cap delta.'
    : 'clip_ratio_c=1e9 turns off verl\'s dual clip of negative advantages, which this variant does not have.');
  return parts.join(' ');
}

// -0 would print as "-0" in Python; a zero weight is just 0
function neg(x: number): number { return x === 0 ? 0 : -x; }

/** Every GRPOConfig keyword the rows set, in row order. */
export function trlOptions(c: RunConfig): Record<string, PyValue> {
  return Object.assign({}, ...mappingRows(c).map((r) => r.trl));
}

/** Every verl key the rows set, in row order. */
export function verlOptions(c: RunConfig): Record<string, PyValue> {
  return Object.assign({}, ...mappingRows(c).map((r) => r.verl));
}

/** `key=value` as a cell of the mapping table (Python literals on the TRL side, Hydra values on the verl side). */
export function cell(opts: Record<string, PyValue>, side: 'trl' | 'verl'): string {
  const parts = Object.entries(opts).map(([k, v]) => `\`${k}=${side === 'trl' ? py(v) : hydraValue(v)}\``);
  return parts.length ? parts.join('<br>') : '-';
}

/** The mapping table in Markdown, one row per MappingRow. */
export function mappingTable(c: RunConfig): string {
  const lines = ['| playground field | value | TRL (GRPOConfig) | verl | note |', '|---|---|---|---|---|'];
  for (const r of mappingRows(c)) lines.push(`| ${r.field} | ${r.value} | ${cell(r.trl, 'trl')} | ${cell(r.verl, 'verl')} | ${r.note ?? ''} |`);
  return lines.join('\n');
}
