// The communication-aware reward of docs/rl.md section 2, per episode, with its parts.
import type { Sequence } from './rollout';

export interface RewardWeights { lambdaTok: number; lambdaTurn: number; lambdaRep: number }

/** The weights in force: lambda_tok as the run has it now (the dual update moves it), the others from the config. */
export function rewardWeights(c: { lambdaTurn: number; lambdaRep: number }, lambdaTok: number): RewardWeights {
  return { lambdaTok, lambdaTurn: c.lambdaTurn, lambdaRep: c.lambdaRep };
}

export interface RewardParts {
  reward: number;
  rTask: number;
  tokens: number; // message tokens, EOS excluded, summed over the episode's agents
  turns: number; // message turns actually taken (a silent turn does not count)
  repetition: number; // message tokens whose bigram (previous, token) already occurred in the episode's messages
}

/** Message parts of one episode from its sequences (EOS excluded). */
export function messageParts(seqs: (Pick<Sequence, 'message' | 'generated' | 'maxNew'> & Partial<Pick<Sequence, 'messageFrom' | 'countsAsTurn'>>)[], eos: number): { tokens: number; turns: number; repetition: number } {
  let tokens = 0, turns = 0, repetition = 0;
  const seen = new Set<string>();
  for (const s of seqs) {
    if (s.countsAsTurn) turns++;
    if (!s.message) continue;
    // what the listener receives: the tokens before EOS, at most maxNew - 1 of them (after an action token, if any)
    const end = s.generated.indexOf(eos);
    const msg = s.generated.slice(s.messageFrom ?? 0, Math.min(end < 0 ? s.generated.length : end, s.maxNew - 1));
    if (msg.length > 0 && !s.countsAsTurn) turns++;
    tokens += msg.length;
    for (let i = 1; i < msg.length; i++) {
      const key = `${msg[i - 1]},${msg[i]}`;
      if (seen.has(key)) repetition++;
      else seen.add(key);
    }
  }
  return { tokens, turns, repetition };
}

/** r = r_env - lambda... where r_env is the env's own reward when it has one (philosophers), else r_task. */
export function reward(rTask: number, parts: { tokens: number; turns: number; repetition: number }, w: RewardWeights, rEnv = rTask): RewardParts {
  return { reward: rEnv - w.lambdaTok * parts.tokens - w.lambdaTurn * parts.turns - w.lambdaRep * parts.repetition, rTask, ...parts };
}

/** docs/rl.md section 5: lambda_tok <- clamp(lambda_tok + eta (mean_tokens - B), 0, lambda_max). */
export function dualUpdate(lambdaTok: number, meanTokens: number, budget: number, eta: number, lambdaMax: number): number {
  return Math.min(lambdaMax, Math.max(0, lambdaTok + eta * (meanTokens - budget)));
}
