// The anatomy of a step, for teaching: one group of the last step's rollout
// with its rewards, the group mean and std, the advantages (rl.md section 3,
// computed by the CPU reference on the step's rewards) and, per trainable
// sequence, the importance ratio and the clipped surrogate (section 4).
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
import { clippedTerm, groupNormalize, meanStd, seqRatio, STD_EPS } from '../reference/rl';
import type { RewardParts, RewardWeights } from '../rl/reward';
import { sequencesByEpisode, type Sequence } from '../rl/rollout';
import { rowLength, sequencesToBatch, type Trainer } from '../rl/trainer';
import { InputError } from '../errors';
import type { AnatomyEpisode, AnatomySequence, StepAnatomy } from './protocol';


/**
 * Advantages of a whole rollout by the CPU reference (rl.md section 3), and whether each group of G
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
    const logits = trainer.model.forward(batch.tokens, S, T);
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

  let row = 0;
  const episodes: AnatomyEpisode[] = eps.map((e) => {
    const A = adv[e];
    const sequences: AnatomySequence[] = byEpisode[e].map((s) => {
      const i = row++;
      // the tokens this row puts in the loss: its own, and a continued sequence's earlier turns too
      const rhos: number[] = [], ids: number[] = [];
      for (let t = 0; t < T; t++) if (batch.mask[i * T + t] > 0) { rhos.push(tokRatio[i * T + t]); ids.push(batch.targets[i * T + t]); }
      const base = { role: s.role, turn: s.turn, tokens: ids.map((id) => env.vocab[id] ?? `#${id}`), length: ids.length, logRatio: logS[i], tokenRatios: rhos };
      if (c.algorithm === 'gspo') {
        const term = clippedTerm(ratio[i], A, c.epsLow, c.epsHigh);
        return { ...base, ratio: ratio[i], clipped: term.clipped, clippedTokens: term.clipped ? 1 : 0, loss: term.loss };
      }
      const terms = rhos.map((r) => clippedTerm(r, A, c.epsLow, c.epsHigh));
      const n = Math.max(1, terms.length);
      const nClip = terms.filter((x) => x.clipped).length;
      return { ...base, ratio: rhos.reduce((a, r) => a + r, 0) / n, clipped: nClip > 0, clippedTokens: nClip, loss: terms.reduce((a, x) => a + x.loss, 0) / n };
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
    epsLow: c.epsLow, epsHigh: c.epsHigh, weights: { ...weights }, mean, std, batchStd: meanStd(Array.from(rewards)).std, stdEps: STD_EPS,
    zeroStd: groupRewards.every((r) => r === groupRewards[0]), signal, episodes,
    ratioNote: 'Ratios are measured now, with the weights after this step\'s updates, against the log-probs recorded when the episodes were sampled: every ratio was 1 when the step began.',
  };
}
