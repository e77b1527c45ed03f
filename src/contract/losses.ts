// The loss table: the one place a policy-loss variant is described (docs/losses.md
// has the math). Each row says which ratio the variant uses, how it clips, how
// per-token terms are summed into the loss, the advantage scaling it is defined
// with, the formula the step anatomy shows, its explanation and label, and its
// names in TRL and verl. The config's `algorithm` values, the WGSL mode codes
// (through src/gpu/kernels/rl.ts), the CPU reference (src/reference/rl.ts), the
// anatomy, the page's labels, the export mapping and the numpy oracle
// (scripts/gspo_ref.py, checked against this file by test/rl/losses.test.ts)
// all read it. Like src/config.ts it sits beside the layers (it imports nothing),
// so every layer, the backends included, may read it.

/** Whose ratio enters the clip rule: per token rho_t, or the sequence's geometric mean s_i. */
export type ImportanceLevel = 'token' | 'sequence' | 'sequence-token';
/** ppo: -min(r A, clip(r, 1-epsLow, 1+epsHigh) A); two-sided: the unclipped r capped at delta first; cispo: -sg(clip(r)) A log pi. */
export type ClipRule = 'ppo' | 'two-sided' | 'cispo';
/** How per-token terms become one number (verl's loss_agg_mode names). */
export type Aggregation = 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum-norm';
/** The advantage scaling the variant is defined with (the run's own comes from the config's `advantage`). */
export type AdvantageScaling = 'group' | 'batch' | 'none';

export interface LossRow {
  /** The page's label. */
  label: string;
  /** One or two sentences for the page, shown beside the algorithm control. */
  explain: string;
  level: ImportanceLevel;
  clip: ClipRule;
  aggregation: Aggregation;
  /** As published; the run uses the config's `advantage`, and the export says where they differ. */
  advantage: AdvantageScaling;
  /** The clip range [epsLow, epsHigh] it is published with: a twin run whose level changes takes it (twinSettings). */
  eps: readonly [number, number];
  /** The formula text the step anatomy shows (plain text; i indexes sequences, t tokens). */
  formula: string;
  trl: {
    loss_type: 'grpo' | 'dapo' | 'dr_grpo' | 'cispo';
    importance_sampling_level: 'token' | 'sequence';
    /** TRL's delta: set from the config for rows whose clip is two-sided. */
    delta: boolean;
    /** What TRL cannot express exactly, or '' when it can. */
    gap: string;
  };
  verl: {
    loss_mode: 'vanilla' | 'gspo' | 'cispo';
    loss_agg_mode: Aggregation;
    /** What verl cannot express exactly, or '' when it can. */
    gap: string;
  };
}

const TABLE = {
  gspo: {
    label: 'GSPO (sequence ratio)',
    explain: 'GSPO weighs a whole message by one ratio s = (π_new/π_old)^(1/|y|), the geometric mean over its tokens, and clips it. That ratio moves very little per update, so its clip range is tiny (1 − 3e-4 to 1 + 4e-4).',
    level: 'sequence', clip: 'ppo', aggregation: 'seq-mean-token-mean', advantage: 'group', eps: [3e-4, 4e-4],
    formula: 'L = (1/S) Σ_i −min(s_i A_i, clip(s_i, 1−ε_low, 1+ε_high) A_i)',
    trl: { loss_type: 'grpo', importance_sampling_level: 'sequence', delta: false, gap: '' },
    verl: { loss_mode: 'gspo', loss_agg_mode: 'seq-mean-token-mean', gap: '' },
  },
  grpo: {
    label: 'GRPO (token ratio, seq-mean-token-mean)',
    explain: 'GRPO clips a ratio per token, π_new/π_old of that token, in the usual range 0.8 to 1.2; each message\'s loss is its token mean and messages count equally, so a token of a short message weighs more than one of a long message.',
    level: 'token', clip: 'ppo', aggregation: 'seq-mean-token-mean', advantage: 'group', eps: [0.2, 0.2],
    formula: 'L = (1/S) Σ_i (1/|y_i|) Σ_t −min(ρ_t A_i, clip(ρ_t, 1−ε_low, 1+ε_high) A_i)',
    trl: { loss_type: 'grpo', importance_sampling_level: 'token', delta: false, gap: '' },
    verl: { loss_mode: 'vanilla', loss_agg_mode: 'seq-mean-token-mean', gap: '' },
  },
  'gspo-token': {
    label: 'GSPO-token (sequence ratio, per-token gradient)',
    explain: 'GSPO-token gives every token the sequence ratio s_i as its value but lets each token carry its own gradient (sg(s_i) · π/sg(π)); with one advantage per sequence its loss and gradient are GSPO\'s, and it differs only where advantages vary along a sequence.',
    level: 'sequence-token', clip: 'ppo', aggregation: 'seq-mean-token-mean', advantage: 'group', eps: [3e-4, 4e-4],
    formula: 'L = (1/S) Σ_i (1/|y_i|) Σ_t −min(s_it A_i, clip(s_it, 1−ε_low, 1+ε_high) A_i), s_it = sg(s_i)·π_t/sg(π_t)',
    trl: { loss_type: 'grpo', importance_sampling_level: 'sequence', delta: false, gap: 'TRL\'s own GSPO-token (importance_sampling_level "sequence_token") is in its experimental GSPO-token trainer; with one advantage per sequence it equals "sequence", which this recipe uses' },
    verl: { loss_mode: 'gspo', loss_agg_mode: 'seq-mean-token-mean', gap: '' },
  },
  dapo: {
    label: 'DAPO (token ratio, token-mean)',
    explain: 'DAPO\'s loss: the GRPO token ratio and clip, summed over every token of the minibatch and divided by their count, so each token weighs the same whatever the length of its message; pair it with a wider eps_high (clip-higher, 0.28).',
    level: 'token', clip: 'ppo', aggregation: 'token-mean', advantage: 'group', eps: [0.2, 0.28],
    formula: 'L = (1/Σ_i |y_i|) Σ_i Σ_t −min(ρ_t A_i, clip(ρ_t, 1−ε_low, 1+ε_high) A_i)',
    trl: { loss_type: 'dapo', importance_sampling_level: 'token', delta: false, gap: '' },
    verl: { loss_mode: 'vanilla', loss_agg_mode: 'token-mean', gap: '' },
  },
  'dr-grpo': {
    label: 'Dr. GRPO (token ratio, constant normaliser)',
    explain: 'Dr. GRPO divides the token sum by a constant, S times L_max, the turn\'s token limit, instead of by lengths, so no message is favoured for being short or long; it is defined without the std (advantage none).',
    level: 'token', clip: 'ppo', aggregation: 'seq-mean-token-sum-norm', advantage: 'none', eps: [0.2, 0.2],
    formula: 'L = (1/(S·L_max)) Σ_i Σ_t −min(ρ_t A_i, clip(ρ_t, 1−ε_low, 1+ε_high) A_i)',
    trl: { loss_type: 'dr_grpo', importance_sampling_level: 'token', delta: false, gap: '' },
    verl: { loss_mode: 'vanilla', loss_agg_mode: 'seq-mean-token-sum-norm', gap: 'verl divides by the padded response length of its batch; set data.max_response_length to L_max for the same constant' },
  },
  cispo: {
    label: 'CISPO (clipped weight, token-mean)',
    explain: 'CISPO never drops a token: it clips the ratio into a weight w_t = clip(ρ_t, 1−ε_low, 1+ε_high), stops its gradient, and follows −w_t·A·∇log π; clipped tokens keep a (capped) gradient instead of none.',
    level: 'token', clip: 'cispo', aggregation: 'token-mean', advantage: 'group', eps: [0.2, 0.28],
    formula: 'L = (1/Σ_i |y_i|) Σ_i Σ_t −sg(clip(ρ_t, 1−ε_low, 1+ε_high)) A_i log π(y_t)   (value shown: −w_t A_i)',
    trl: { loss_type: 'cispo', importance_sampling_level: 'token', delta: false, gap: 'TRL caps the weight only from above (epsilon_high is the cap itself, set to 1 + eps_high); it has no lower bound, so tokens with ρ below 1 − eps_low differ' },
    verl: { loss_mode: 'cispo', loss_agg_mode: 'token-mean', gap: '' },
  },
  'two-sided': {
    label: 'Two-sided clip (delta, token-mean)',
    explain: 'The two-sided clip caps the unclipped ratio at delta as well: a token whose ratio ran above delta with a negative advantage stops pushing (its loss is −delta·A), which bounds how far one bad token can move the update.',
    level: 'token', clip: 'two-sided', aggregation: 'token-mean', advantage: 'group', eps: [0.2, 0.28],
    formula: 'L = (1/Σ_i |y_i|) Σ_i Σ_t −min(min(ρ_t, δ) A_i, clip(ρ_t, 1−ε_low, 1+ε_high) A_i)',
    trl: { loss_type: 'dapo', importance_sampling_level: 'token', delta: true, gap: '' },
    verl: { loss_mode: 'vanilla', loss_agg_mode: 'token-mean', gap: 'verl\'s dual clip (clip_ratio_c = delta) caps only negative advantages; it equals this rule when delta > 1 + eps_high' },
  },
} as const satisfies Record<string, LossRow>;

export type LossId = keyof typeof TABLE;
export const LOSS_IDS = Object.keys(TABLE) as LossId[];
export const LOSSES: Readonly<Record<LossId, LossRow>> = TABLE;

/** The numbers the kernels and the CPU twin switch on (shaders/rl.loss.wgsl declares the same constants; a test compares). */
export const LEVEL_CODE: Record<ImportanceLevel, number> = { token: 0, sequence: 1, 'sequence-token': 1 };
export const CLIP_CODE: Record<ClipRule, number> = { ppo: 0, 'two-sided': 1, cispo: 2 };
export const AGG_CODE: Record<Aggregation, number> = { 'token-mean': 0, 'seq-mean-token-mean': 1, 'seq-mean-token-sum-norm': 2 };

/** The row of a config's algorithm; throws on an unknown id (the config has checked it already). */
export function lossRow(id: string): LossRow {
  if (!Object.prototype.hasOwnProperty.call(TABLE, id)) throw new Error(`unknown loss variant ${JSON.stringify(id)}`);
  return TABLE[id as LossId];
}

/**
 * The settings a twin run of `from` with variant `to` changes (the runs table's "twin", the CLI's `--compare`):
 * the algorithm, and the clip range when the importance level changes between sequence and token, whose
 * ranges differ by about 1000x (a GSPO range on a token ratio clips nearly every token); within a level the
 * run's own range is kept, so the twin differs in the loss alone.
 */
export function twinSettings(from: { algorithm: string; epsLow: number; epsHigh: number }, to: LossId): { algorithm: LossId; epsLow: number; epsHigh: number } {
  const a = lossRow(from.algorithm), b = LOSSES[to];
  const sameScale = (a.level === 'token') === (b.level === 'token');
  return { algorithm: to, epsLow: sameScale ? from.epsLow : b.eps[0], epsHigh: sameScale ? from.epsHigh : b.eps[1] };
}

/** Ratio statistics and clip counts are per sequence for sequence-level rows, per token for token-level ones. */
export const tokenStats = (id: LossId): boolean => LOSSES[id].level === 'token';
