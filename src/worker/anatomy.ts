// The anatomy of a step, for teaching: one group of the last step's rollout
// with its rewards, the group mean and std, the advantages (computed by the CPU
// reference on the step's rewards) and, per trainable sequence, the importance
// ratio and the terms of the run's loss variant (its row of src/contract/losses.ts):
// which tokens or sequences are clipped or capped, and what the sequence's
// length does to its weight in the loss (docs/losses.md).
//
// The ratios come from one extra forward of the *current* weights (after the
// step's `minibatches` updates) against the log-probs recorded at sampling
// time: s_i = 1 for every sequence when the step began, and what is shown is
// how far the step's updates moved each one (the ratio the next update of the
// same batch would see). The per-minibatch ratios of the step itself are not
// kept by the Trainer.
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import type { Environment } from '../envs/types';
import { aggregationNorm, groupNormalize, lossTerm, meanStd, seqRatio, STD_EPS } from '../reference/rl';
import { CLIP_CODE, LOSSES, type LossRow } from '../contract/losses';
import type { RewardParts, RewardWeights } from '../rl/reward';
import { sequencesByEpisode, type Sequence } from '../rl/rollout';
import { keptGroups, rowLength, sequencesToBatch } from '../rl/stepBatch';
import { type Trainer } from '../rl/trainer';
import { InputError } from '../contract/errors';
import type { AnatomyEpisode, AnatomySequence, StepAnatomy } from './protocol';


/**
 * Advantages of a whole rollout by the CPU reference (docs/losses.md), and whether each group of G
 * has a learning signal (not every reward equal: a group of equal rewards gets A = 0 throughout).
 */
export function rolloutAdvantages(rewards: readonly number[], G: number, mode: RunConfig['advantage']): { adv: Float64Array; signal: boolean[] } {
  const E = rewards.length, P = Math.floor(E / G);
  const r = Float64Array.from(rewards);
  const groupStart = Int32Array.from({ length: P + 1 }, (_, g) => g * G);
  const adv = new Float64Array(E), stats = new Float64Array(2);
  groupNormalize(adv, stats, r, groupStart, E, P, mode);
  const signal = Array.from({ length: P }, (_, g) => { const xs = Array.from(r.subarray(g * G, g * G + G)); return xs.some((x) => x !== xs[0]); });
  return { adv, signal };
}

/** log pi(current weights) of every generated token of `seqs`, read back (one forward, one readback). */
async function currentLogp(b: Backend, trainer: Trainer, seqs: Sequence[], temperature: number) {
  const T = rowLength(seqs, trainer.model.config.blockSize), V = trainer.model.config.vocabSize;
  const batch = sequencesToBatch(seqs, (e) => e, T);
  const S = batch.S;
  const targets = b.alloc(S * T, 'i32'), logp = b.alloc(S * T), entropy = b.alloc(S * T);
  try {
    b.write(targets, batch.targets);
    const logits = trainer.model.forward(batch.tokens, S, T, undefined, undefined, false);
    b.logprobForward(logp, entropy, logits, targets, S * T, V, temperature);
    b.submit();
    const lp = Float64Array.from(await b.read(logp));
    return { batch, logp: lp, T };
  } finally {
    b.free(targets); b.free(logp); b.free(entropy);
  }
}

/**
 * Group `group` of the trainer's last rollout. `weights` are the reward weights that step used
 * (in budget mode lambda_tok has moved since).
 */
export async function stepAnatomy(trainer: Trainer, env: Environment, group: number, weights: RewardWeights): Promise<StepAnatomy> {
  const last = trainer.lastRollout;
  if (!last) throw new InputError('stepAnatomy: no step yet; take a step first');
  const c = trainer.config, ro = last.rollout, E = ro.states.length, G = c.groupSize;
  if (E % G !== 0) throw new InputError(`stepAnatomy: the last rollout has ${E} episodes, not a multiple of G = ${G}`);
  const P = E / G;
  if (!Number.isInteger(group) || group < 0 || group >= P) throw new InputError(`stepAnatomy: group must be an integer in [0, ${P - 1}]; got ${group}`);

  // advantages of the whole batch (mode 'batch' needs every reward), by the CPU reference
  const rewards = Float64Array.from(last.rewards.map((r: RewardParts) => r.reward));
  const { adv, signal } = rolloutAdvantages(Array.from(rewards), G, c.advantage);

  const first = group * G, eps = Array.from({ length: G }, (_, i) => first + i);
  const byEpisode = sequencesByEpisode(ro).map((seqs) => trainer.lossSequences(seqs)); // the rows the loss saw
  const seqs = eps.flatMap((e) => byEpisode[e]);
  const { batch, logp, T } = await currentLogp(trainer.backend, trainer, seqs, c.temperature);
  const S = batch.S;
  const logS = new Float64Array(S), ratio = new Float64Array(S), tokRatio = new Float64Array(S * T);
  seqRatio(logS, ratio, tokRatio, logp, Float64Array.from(batch.oldLogp), Float64Array.from(batch.mask), S, T);

  // The variant's terms (its row of the loss table), by the CPU reference's lossTerm. The aggregation weights c_i
  // are those this group would get as a minibatch of its own (the step's minibatches mix groups).
  const lossRow = LOSSES[c.algorithm], clipCode = CLIP_CODE[lossRow.clip], seqLevel = lossRow.level !== 'token';
  const maxLen = batch.tMax ?? trainer.model.config.blockSize;
  const norm = aggregationNorm(c.algorithm, batch.mask, S, T, maxLen);
  let row = 0;
  const episodes: AnatomyEpisode[] = eps.map((e) => {
    const A = adv[e];
    const sequences: AnatomySequence[] = byEpisode[e].map((s) => {
      const i = row++;
      // the tokens this row puts in the loss: its own, and a continued sequence's earlier turns too
      const rhos: number[] = [], ids: number[] = [];
      for (let t = 0; t < T; t++) if (batch.mask[i * T + t] > 0) { rhos.push(tokRatio[i * T + t]); ids.push(batch.targets[i * T + t]); }
      const base = { role: s.role, turn: s.turn, tokens: ids.map((id) => env.vocab[id] ?? `#${id}`), length: ids.length, logRatio: logS[i], tokenRatios: rhos };
      const len = Math.max(1, ids.length);
      const weight = lossRow.aggregation === 'seq-mean-token-mean' ? 1 / (S * len) : 1 / norm;
      if (seqLevel) {
        const term = lossTerm(clipCode, ratio[i], A, c.epsLow, c.epsHigh, c.delta);
        return {
          ...base, ratio: ratio[i], clipped: term.clipped, clippedTokens: term.clipped ? 1 : 0, loss: term.value, weight, share: weight * len * term.value,
          termsText: termsText(c, lossRow, [ratio[i]], [term], A, ids.length, weight, S, norm, maxLen),
        };
      }
      const terms = rhos.map((r) => lossTerm(clipCode, r, A, c.epsLow, c.epsHigh, c.delta));
      const sum = terms.reduce((a, x) => a + x.value, 0);
      const nClip = terms.filter((x) => x.clipped).length;
      return {
        ...base, ratio: rhos.reduce((a, r) => a + r, 0) / len, clipped: nClip > 0, clippedTokens: nClip, loss: sum / len, weight, share: weight * sum,
        termsText: termsText(c, lossRow, rhos, terms, A, ids.length, weight, S, norm, maxLen),
      };
    });
    const score = ro.scores[e];
    return {
      episode: e, lines: env.render(ro.states[e]), reward: last.rewards[e], rEnv: score.reward ?? score.rTask, rEnvName: score.reward === undefined ? 'r_task' : 'r_env',
      ...(score.terms ? { terms: { ...score.terms } } : {}), advantage: A, sequences,
    };
  });

  const groupRewards = eps.map((e) => rewards[e]);
  const { mean, std } = meanStd(groupRewards);
  return {
    step: trainer.stepCount - 1, group, groups: P, groupSize: G, algorithm: c.algorithm, advantageMode: c.advantage,
    level: seqLevel ? 'sequence' : 'token', formula: lossRow.formula, lossLabel: lossRow.label, aggregation: lossRow.aggregation, clipRule: lossRow.clip, delta: c.delta,
    aggregationNote: aggregationNote(lossRow, S, norm, maxLen), termFormula: termFormula(c, lossRow),
    epsLow: c.epsLow, epsHigh: c.epsHigh, weights: { ...weights }, mean, std, batchStd: meanStd(Array.from(rewards)).std, stdEps: STD_EPS,
    zeroStd: groupRewards.every((r) => r === groupRewards[0]), signal, episodes,
    // dynamic sampling: the trainer's own choice of groups (the first P with signal, in sampling order)
    ...(c.dynamicSampling === 'on' ? { inLoss: inLossOf(signal, c.promptsPerStep) } : {}),
    ratioNote: 'Ratios are measured now, with the weights after this step\'s updates, against the log-probs recorded when the episodes were sampled: every ratio was 1 when the step began.',
  };
}

/** Which groups dynamic sampling kept: the trainer's keptGroups over the groups without signal. */
function inLossOf(signal: boolean[], P: number): boolean[] {
  const kept = new Set(keptGroups(signal.map((x) => !x), P, P).kept);
  return signal.map((_, g) => kept.has(g));
}

const n5 = (x: number) => Number(x.toPrecision(5)).toString();

/** One sentence per sequence naming the variant's terms with this sequence's numbers. */
export function termsText(c: RunConfig, row: LossRow, ratios: number[], terms: { value: number; clipped: boolean }[], A: number,
  length: number, weight: number, S: number, norm: number, maxLen: number): string {
  const lo = 1 - c.epsLow, hi = 1 + c.epsHigh, who = row.level === 'token' ? 'token' : 'sequence';
  const at = (pred: (r: number, k: number) => boolean) => ratios.map((r, k) => (pred(r, k) ? k + 1 : 0)).filter((k) => k > 0);
  const parts: string[] = [];
  if (row.clip === 'cispo') {
    const low = at((r) => r < lo), high = at((r) => r > hi);
    parts.push(`weights w = clip(ρ) = ${ratios.map((r) => n5(Math.min(hi, Math.max(lo, r)))).join(', ')}`);
    if (high.length) parts.push(`token${high.length > 1 ? 's' : ''} ${high.join(', ')} capped at 1+ε_high = ${n5(hi)} (gradient kept, scaled by the cap)`);
    if (low.length) parts.push(`token${low.length > 1 ? 's' : ''} ${low.join(', ')} raised to 1−ε_low = ${n5(lo)}`);
  } else {
    const clipped = terms.map((t, k) => (t.clipped ? k + 1 : 0)).filter((k) => k > 0);
    const capped = row.clip === 'two-sided' ? at((r, k) => r > c.delta && A < 0 && terms[k].clipped) : [];
    const plain = clipped.filter((k) => !capped.includes(k));
    if (plain.length) parts.push(`${who === 'token' ? `token${plain.length > 1 ? 's' : ''} ${plain.join(', ')}` : 'the sequence'} clipped (ratio past ${A > 0 ? `1+ε_high = ${n5(hi)} with A > 0` : `1−ε_low = ${n5(lo)} with A < 0`}): no gradient`);
    if (capped.length) parts.push(`token${capped.length > 1 ? 's' : ''} ${capped.join(', ')} above δ = ${n5(c.delta)} with A < 0: term capped at −δ·A = ${n5(-c.delta * A)}, no gradient`);
    if (!clipped.length) parts.push(`no ${who} clipped`);
  }
  parts.push(lengthText(row, length, weight, S, norm, maxLen));
  return parts.join('; ') + '.';
}

/** What the sequence's length does to its weight under the variant's aggregation. */
function lengthText(row: LossRow, length: number, weight: number, S: number, norm: number, maxLen: number): string {
  const n = Math.max(1, length);
  if (row.level === 'sequence') return `one term for the sequence, weight 1/S = 1/${S}: its length (${length}) does not change its weight`;
  switch (row.aggregation) {
    case 'seq-mean-token-mean':
      return `each of its ${length} tokens weighs 1/(S·|y_i|) = 1/(${S}·${n}) = ${n5(weight)}: the message counts 1/S whatever its length, so a token of a short message weighs more`;
    case 'token-mean':
      return `each of its ${length} tokens weighs 1/N = 1/${norm} = ${n5(weight)} (N: the tokens of the group): the message counts ${length}/${norm}, in proportion to its length`;
    default:
      return `each of its ${length} tokens weighs 1/(S·L_max) = 1/(${S}·${maxLen}) = ${n5(weight)}: a constant, so the message counts in proportion to its length and no sequence is rescaled by it`;
  }
}

/** The anatomy's closing line: how L is built from the sequences. */
function aggregationNote(row: LossRow, S: number, norm: number, maxLen: number): string {
  const base = `${row.label}: ${row.formula}.`;
  switch (row.aggregation) {
    case 'seq-mean-token-mean': return `${base} Weights here as if this group (S = ${S}) were the minibatch.`;
    case 'token-mean': return `${base} Weights here as if this group (N = ${norm} tokens) were the minibatch.`;
    default: return `${base} L_max = ${maxLen} (the turn's token limit, EOS included); weights here as if this group (S = ${S}) were the minibatch.`;
  }
}

/** The per-token term of a token-level row with the run's clip numbers. */
export function termFormula(c: RunConfig, row: LossRow): string {
  const clip = `clip(ρ_t, ${n5(1 - c.epsLow)}, ${n5(1 + c.epsHigh)})`;
  if (row.clip === 'cispo') return `−sg(${clip})·A_i·log π(y_t)  [value −w_t·A_i]`;
  if (row.clip === 'two-sided') return `−min(min(ρ_t, ${n5(c.delta)})·A_i, ${clip}·A_i)`;
  return `−min(ρ_t·A_i, ${clip}·A_i)`;
}
