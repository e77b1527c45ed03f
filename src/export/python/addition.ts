// addition (AgentPO) as the Collaborator's turn: the policy writes the hint or
// the critique; the frozen Actor is the rule it was taught (docs/envs.md section 2).
import type { EnvPython } from './types';
import { py } from '../literal';

export const additionPython: EnvPython = {
  tasks: (c) => `
TOPOLOGY = ${py(c.topology)}  # alone | hint | critic


def make_task(rng, split):
    return {"a": rng.randrange(10, 100), "b": rng.randrange(10, 100)}


def is_eval(task):
    return hash_ints([task["a"], task["b"]]) % 5 == 0


def draft(task):
    """The frozen Actor alone: it drops the units carry (greedy, as trained)."""
    return actor_answer(task, 0)


def prompt(task):
    a, b = task["a"], task["b"]
    if TOPOLOGY == "critic":
        return (
            f"The Actor computed {a} + {b} = {draft(task)}. Reply OK if it is right, or FIX CARRY / FIX NOCARRY "
            "to make it answer again with (or without) the units carry.\\nCritique:"
        )
    return f"The Actor will compute {a} + {b}. Give it a hint: CARRY if the units column carries, NOCARRY if not, or nothing.\\nHint:"
`,
  outcome: () => `
def actor_answer(task, carry):
    """The Actor follows a carry word c: 10 (ta + tb + c) + (ua + ub) mod 10."""
    a, b = task["a"], task["b"]
    return 10 * (a // 10 + b // 10 + carry) + (a % 10 + b % 10) % 10


def carry_word(words):
    for w in words:
        if w.upper() == "CARRY":
            return 1
        if w.upper() == "NOCARRY":
            return 0
    return None


def outcome(task, completion):
    words = completion.split()[:4]
    turns_extra = 0
    c = carry_word(words)
    if TOPOLOGY == "critic":
        if not words or words[0].upper() == "OK":
            answer = actor_answer(task, 0)  # the draft stands
        else:
            answer = actor_answer(task, c if c is not None else 0)
            turns_extra = 1  # the Actor's second answer is a turn
    else:
        answer = actor_answer(task, c if c is not None else 0)  # no hint word: it answers as alone
    r_task = 1.0 if answer == task["a"] + task["b"] else 0.0
    tokens, turns, repetition = message_terms([words])
    return {"r_env": r_task, "r_task": r_task, "tokens": tokens, "turns": turns + turns_extra, "repetition": repetition}
`,
  policyPrompt: () => `

def policy_prompt(task):
    """The Collaborator's context in the playground's tokens: BOS COLLAB a1 a2 + b1 b2 SEP (hint), or
    BOS CRITIC a1 a2 + b1 b2 DRAFT d.. SEP (critic; the draft is the Actor's answer alone)."""
    a, b = task["a"], task["b"]
    problem = [str(a // 10), str(a % 10), "+", str(b // 10), str(b % 10)]
    if TOPOLOGY == "critic":
        return " ".join(["BOS", "CRITIC", *problem, "DRAFT", *str(draft(task)), "SEP"])
    return " ".join(["BOS", "COLLAB", *problem, "SEP"])
`,
  policyMaxNew: () => 5, // a hint or critique of at most 4 tokens, then EOS (src/envs/addition.ts MESSAGE_MAX_NEW)
  maxCompletion: () => 16,
  describe: (c) =>
    `The policy is the Collaborator (${c.topology}): it writes a hint or a critique of at most 4 words for a frozen Actor adding two 2-digit numbers. ` +
    'The Actor is the rule it was taught: alone it drops the units carry; it follows a CARRY / NOCARRY word; after a critique other than OK or silence it answers again (one more turn).',
};
