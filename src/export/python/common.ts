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
# mean task measure r_task, logged by train_grpo.py's trainer (the page plots it; TRL logs r_env). Both are
# means over every process's completions, so each process holds the same values.
STATS = {"mean_tokens": 0.0, "r_task_batches": []}
# train_grpo.py --task-log: a file for this process's scored tasks, one JSON line per completion
TRACE = {"file": None}


def global_mean(values):
    """The mean over all processes' completions: under accelerate launch each process scores only its own share.
    Every process calls the reward functions for every batch, so the sum across processes meets on each."""
    total, count = float(sum(values)), len(values)
    try:
        from accelerate import PartialState
    except ImportError:
        return total / max(1, count)
    state = PartialState()
    if state.num_processes > 1:
        import torch
        from accelerate.utils import reduce

        total, count = reduce(torch.tensor([total, count], dtype=torch.float64, device=state.device), reduction="sum").tolist()
    return total / max(1, count)


def _outcomes(completions, task):
    out = []
    for c, t in zip(completions, task):
        text = c if isinstance(c, str) else c[-1]["content"]  # plain or conversational completions
        out.append(outcome(json.loads(t), text))
    return out


def reward_task(completions, task, index=None, split=None, trainer_state=None, **kwargs):
    """The environment's reward (r_task, or the env's own reward where it has one)."""
    out = _outcomes(completions, task)
    STATS["r_task_batches"].append(global_mean([o["r_task"] for o in out]))
    if TRACE["file"] is not None and index is not None:
        step = trainer_state.global_step if trainer_state is not None else None
        for i, s, o in zip(index, split, out):
            TRACE["file"].write(json.dumps({"step": step, "split": s, "index": i, "r_task": o["r_task"], "tokens": o["tokens"]}) + "\\n")
        TRACE["file"].flush()
    return [o["r_env"] for o in out]


def reward_tokens(completions, task, **kwargs):
    """Message tokens (weight -lambda_tok)."""
    values = [float(o["tokens"]) for o in _outcomes(completions, task)]
    STATS["mean_tokens"] = global_mean(values)
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
