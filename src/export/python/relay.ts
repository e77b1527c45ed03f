// relay as one Scout turn: the policy writes the Scout's message; the Solver is
// a rule that reads digits from what survives the channel (docs/envs.md section 1).
import type { EnvPython } from './types';
import { py } from '../literal';

export const relayPython: EnvPython = {
  tasks: (c) => `
K = ${py(c.digits)}  # digits in the secret
P_KNOWN_TRAIN = ${py(c.pKnownTrain)}  # how often the Solver already knows, in training
P_KNOWN_EVAL = ${py(c.pKnown)}


def make_task(rng, split):
    p_known = P_KNOWN_TRAIN if split == "train" else P_KNOWN_EVAL
    return {"secret": [rng.randrange(10) for _ in range(K)], "j": rng.randrange(K), "known": rng.random() < p_known}


def is_eval(task):
    # about 20% of (secret, j) pairs are held out for evaluation
    return hash_ints(task["secret"] + [task["j"]]) % 5 == 0


def prompt(task):
    secret = " ".join(str(d) for d in task["secret"])
    knows = "already knows the secret" if task["known"] else "does not know the secret"
    return (
        f"You are the Scout. The secret is {secret}. The Solver will be asked for digit {task['j'] + 1} "
        f"and {knows}. Write your message to the Solver (digits separated by spaces), or nothing at all.\\nMessage:"
    )
`,
  outcome: (c) => `
MAX_MESSAGE = ${py(c.maxMessage)}  # M: words the Solver reads at most
CHANNEL_NOISE = ${py(c.channelNoise)}  # eps: each word is erased with this probability


def outcome(task, completion):
    words = completion.split()[:MAX_MESSAGE]
    # the channel: a seeded erasure per word, so a group's identical messages fare alike
    rng = random.Random(hash_ints(task["secret"] + [task["j"], len(words)] + [sum(map(ord, w)) for w in words]))
    heard = [w for w in words if rng.random() >= CHANNEL_NOISE]
    digits = [int(w) for w in heard if w.isdigit() and len(w) == 1]
    if task["known"]:
        answer = task["secret"][task["j"]]
    elif len(digits) >= len(task["secret"]):
        answer = digits[task["j"]]  # the whole secret: the Solver picks digit j
    elif len(digits) == 1:
        answer = digits[0]  # the one digit asked for
    else:
        answer = -1
    r_task = 1.0 if answer == task["secret"][task["j"]] else 0.0
    tokens, turns, repetition = message_terms([words])
    return {"r_env": r_task, "r_task": r_task, "tokens": tokens, "turns": turns, "repetition": repetition}
`,
  policyPrompt: () => `

def policy_prompt(task):
    """The Scout's context in the playground's tokens: BOS SCOUT s_1..s_k Q j KNOWN|UNKNOWN SEP."""
    flag = "KNOWN" if task["known"] else "UNKNOWN"
    return " ".join(["BOS", "SCOUT", *(str(d) for d in task["secret"]), "Q", str(task["j"] + 1), flag, "SEP"])
`,
  policyMaxNew: (c) => c.maxMessage + 1,
  maxCompletion: (c) => 4 * (c.maxMessage + 1),
  describe: (c) =>
    `The policy is the Scout: it reads a ${c.digits}-digit secret, the digit the Solver will be asked for, and whether the Solver already knows the secret, and writes a message (at most ${c.maxMessage} words). ` +
    `The Solver is a rule: when it knows, it is right; otherwise it reads the digits that survive the channel (each word erased with probability ${c.channelNoise}) and answers digit j of the whole secret, or the one digit sent. ` +
    (c.scouts > 1 ? `The playground's ${c.scouts} Scouts become one Scout that sees the whole secret. ` : ''),
};
