// Python shared by every env's export: message words, the reward terms and the
// two trainers' entry points (TRL reward functions, verl's compute_score).
import type { RewardWeights } from '../../rl/reward';
import { py } from '../literal';

/** Message-term helpers: a message is a list of whitespace-separated words (the playground's tokens). */
export const PY_MESSAGE_TERMS = `
def message_terms(messages):
    """tokens, turns and repeated bigrams over an episode's messages (docs/rl.md section 2)."""
    tokens = turns = repetition = 0
    seen = set()
    for words in messages:
        if words:
            turns += 1
        tokens += len(words)
        for a, b in zip(words, words[1:]):
            if (a, b) in seen:
                repetition += 1
            else:
                seen.add((a, b))
    return tokens, turns, repetition
`;

/** TRL: one reward function per term; TRL weights them with reward_weights and logs each one. */
export const PY_TRL_REWARDS = `
# The tokens term's batch mean, read by the LambdaTokBudget callback (the dual update), and each batch's
# mean task measure r_task, logged by train_grpo.py's trainer (the page plots it; TRL logs r_env).
STATS = {"mean_tokens": 0.0, "r_task_batches": []}


def _outcomes(completions, task):
    out = []
    for c, t in zip(completions, task):
        text = c if isinstance(c, str) else c[-1]["content"]  # plain or conversational completions
        out.append(outcome(json.loads(t), text))
    return out


def reward_task(completions, task, **kwargs):
    """The environment's reward (r_task, or the env's own reward where it has one)."""
    out = _outcomes(completions, task)
    STATS["r_task_batches"].append(sum(o["r_task"] for o in out) / max(1, len(out)))
    return [o["r_env"] for o in out]


def reward_tokens(completions, task, **kwargs):
    """Message tokens (weight -lambda_tok)."""
    values = [float(o["tokens"]) for o in _outcomes(completions, task)]
    STATS["mean_tokens"] = sum(values) / max(1, len(values))
    return values


def reward_turns(completions, task, **kwargs):
    """Message turns taken (weight -lambda_turn)."""
    return [float(o["turns"]) for o in _outcomes(completions, task)]


def reward_repetition(completions, task, **kwargs):
    """Repeated message bigrams (weight -lambda_rep)."""
    return [float(o["repetition"]) for o in _outcomes(completions, task)]


REWARD_FUNCS = [reward_task, reward_tokens, reward_turns, reward_repetition]
`;

/** verl: one scalar per response; the parts go back as extra info so verl logs them too. */
export function pyVerlScore(w: RewardWeights): string {
  return `
import json

LAMBDA_TOK = ${py(w.lambdaTok)}
LAMBDA_TURN = ${py(w.lambdaTurn)}
LAMBDA_REP = ${py(w.lambdaRep)}


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """r = r_env - lambda_tok tokens - lambda_turn turns - lambda_rep repetition (docs/rl.md section 2)."""
    o = outcome(json.loads(ground_truth), solution_str)
    score = o["r_env"] - LAMBDA_TOK * o["tokens"] - LAMBDA_TURN * o["turns"] - LAMBDA_REP * o["repetition"]
    return {"score": score, "r_task": o["r_task"], "tokens": o["tokens"], "turns": o["turns"], "repetition": o["repetition"]}
`;
}
