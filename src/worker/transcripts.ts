// Transcripts for the viewer: the last step's and the last eval's episodes,
// each with the generated turns (every sampled token with its text and its
// log-prob at sampling time) and its reward.
import type { Environment } from '../envs/types';
import { messageParts, reward, rewardWeights, type RewardParts } from '../rl/reward';
import { sequencesByEpisode, type Rollout, type Sequence } from '../rl/rollout';
import type { Trainer } from '../rl/trainer';
import { rolloutAdvantages } from './anatomy';
import type { EpisodeTranscript, TranscriptTurn, Transcripts } from './protocol';

export function transcriptTurns(seqs: Sequence[], env: Pick<Environment, 'vocab' | 'eos'>): TranscriptTurn[] {
  return seqs.map((s) => ({
    role: s.role, turn: s.turn, agent: s.agent, message: s.message,
    ids: s.generated.slice(), tokens: s.generated.map((id) => env.vocab[id] ?? `#${id}`), logp: s.logp.slice(),
    silent: s.message && s.generated[0] === env.eos,
  }));
}

/** What transcripts are read from: a Trainer, or one member of a population (the same fields). */
export type TranscriptSource = Pick<Trainer, 'lastRollout' | 'lastEval' | 'config' | 'stepCount' | 'evals'>;

/** `count` episodes of the last step (with their group and advantage) and of the last eval; `env` renders them. */
export function lastTranscripts(t: TranscriptSource, env: Environment, count: number): Transcripts {
  const out: Transcripts = { train: null, eval: null };
  if (t.lastRollout) {
    const { rollout: ro, rewards } = t.lastRollout;
    const { adv } = rolloutAdvantages(rewards.map((r) => r.reward), t.config.groupSize, t.config.advantage);
    const eps = episodes(env, ro, count, (e) => rewards[e]).map((ep) => ({ ...ep, group: Math.floor(ep.episode / t.config.groupSize), advantage: adv[ep.episode] }));
    out.train = { step: t.stepCount - 1, episodes: eps, total: ro.states.length };
  }
  const lastEval = t.evals[t.evals.length - 1];
  if (t.lastEval && lastEval) {
    const ro = t.lastEval.rollout;
    const bySeq = sequencesByEpisode(ro);
    const w = rewardWeights(t.config, lastEval.lambdaTok);
    out.eval = { step: lastEval.step, episodes: episodes(env, ro, count, (e) => reward(ro.scores[e].rTask, messageParts(bySeq[e], env.eos, w.overlongCache), w)), total: ro.states.length };
  }
  return out;
}

/** `count` episodes spread over the rollout (different prompts), rendered by the env. */
function episodes(env: Environment, ro: Rollout<unknown>, count: number, rewardOf: (e: number) => RewardParts): EpisodeTranscript[] {
  const E = ro.states.length, n = Math.min(count, E);
  return Array.from({ length: n }, (_, i) => {
    const e = Math.floor((i * E) / n);
    const seqs = ro.sequences.filter((s) => s.episode === e);
    return { episode: e, lines: env.render(ro.states[e]), turns: transcriptTurns(seqs, env), score: ro.scores[e], reward: rewardOf(e) };
  });
}
