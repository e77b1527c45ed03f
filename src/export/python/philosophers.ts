// philosophers as one planner turn: the policy writes every philosopher's action
// for every round (plus optional messages); the table's rules score the plan
// (docs/envs.md section 3). Curriculum stages are not exported: N is fixed.
import type { EnvPython } from './types';
import { py } from '../literal';

export const philosophersPython: EnvPython = {
  tasks: (c) => `
N = ${py(c.philosophers)}  # philosophers at the table
ROUNDS = ${py(c.rounds)}


def make_task(rng, split):
    return {"n": N, "rounds": ROUNDS, "hunger": [rng.randrange(6) for _ in range(N)], "seed": rng.randrange(2 ** 31)}


def is_eval(task):
    return hash_ints([min(h // 2, 2) for h in task["hunger"]]) % 5 == 0


def prompt(task):
    hunger = ", ".join(f"P{i}: {h} rounds" for i, h in enumerate(task["hunger"]))
    return (
        f"{task['n']} philosophers sit at a round table with {task['n']} forks; fork i lies between P(i) and P(i+1). "
        f"Time since each last ate: {hunger}. For each of {task['rounds']} rounds write one line with every "
        "philosopher's action (THINK, TAKE_L, TAKE_R, EAT or DROP, in seat order), optionally followed by | and a message.\\nPlan:"
    )
`,
  outcome: (c) => `
MEAL_REWARD = ${py(c.mealReward)}
DEADLOCK_PENALTY = ${py(c.deadlockPenalty)}
STARVE_PENALTY = ${py(c.starvePenalty)}
ACTION_COST = ${py(c.actionCost)}
MAX_MESSAGE = ${py(c.philMessage)}
ACTIONS = ("THINK", "TAKE_L", "TAKE_R", "EAT", "DROP")


def outcome(task, completion):
    n, lines = task["n"], completion.strip().splitlines()
    holder = [None] * n  # fork f lies between P_f (its right fork) and P_{f+1} (its left fork)
    meals, actions, deadlock, messages = [0] * n, 0, False, []
    for r in range(task["rounds"]):
        line = lines[r] if r < len(lines) else ""
        plan, _, message = line.partition("|")
        words = plan.split()
        messages.append(message.split()[:MAX_MESSAGE])
        acts = [(words[i].upper() if i < len(words) and words[i].upper() in ACTIONS else "THINK") for i in range(n)]
        actions += sum(a != "THINK" for a in acts)
        start = list(holder)  # every action reads the state at the start of the round
        wants = {}
        for i, a in enumerate(acts):
            left, right = (i - 1) % n, i
            if a == "TAKE_L" and start[left] is None:
                wants.setdefault(left, []).append(i)
            elif a == "TAKE_R" and start[right] is None:
                wants.setdefault(right, []).append(i)
            elif a == "EAT" and start[left] == i and start[right] == i:
                meals[i] += 1
                holder[left] = holder[right] = None
            elif a == "DROP":
                for f in (left, right):
                    if start[f] == i:
                        holder[f] = None
        for f, who in wants.items():  # both neighbours take a free fork: a seeded coin decides
            holder[f] = who[0] if len(who) == 1 else who[random.Random(hash_ints([task["seed"], r, f])).randrange(2)]
        if all(sum(h == i for h in holder) == 1 for i in range(n)):
            deadlock = True
    starved = sum(m == 0 for m in meals)
    r_env = MEAL_REWARD * sum(meals) - DEADLOCK_PENALTY * deadlock - STARVE_PENALTY * starved - ACTION_COST * actions
    tokens, turns, repetition = message_terms(messages)
    return {"r_env": r_env, "r_task": (n - starved) / n, "tokens": tokens, "turns": turns, "repetition": repetition}
`,
  policyPrompt: (c) => `

def policy_prompt(task):
    """P_0's first-round context in the playground's tokens: BOS HEAD LfRf H<bucket> NONE x 2M. The playground's
    philosophers act one round at a time, each in its own context; with the exported policy this recipe trains
    P_0's first action (and message) only, the other seats and later rounds THINK: a check that the policy runs
    in TRL, not the table's game."""
    bucket = 0 if task["hunger"][0] <= 1 else 1 if task["hunger"][0] <= 3 else 2
    return " ".join(["BOS", "HEAD", "LfRf", f"H{bucket}"] + ["NONE"] * ${py(2 * c.philMessage)})
`,
  policyMaxNew: (c) => c.philMessage + 2, // action, a message of at most M tokens, EOS
  maxCompletion: (c) => 4 * c.rounds * (c.philosophers + c.philMessage + 2),
  describe: (c) =>
    `The policy is one planner for the whole table: it writes, for each of ${c.rounds} rounds, the action of each of the ${c.philosophers} philosophers and optionally a message (at most ${c.philMessage} words, counted as message tokens). ` +
    'The table\'s rules (forks, simultaneous moves, a seeded coin for contested forks, deadlock) score the plan with the same four reward terms; the task measure is the share of philosophers who ate. ' +
    (c.curriculum === 'on' ? 'The curriculum (N = 3 -> 5 -> 7) is not exported: N stays at its first stage; regenerate the dataset with a larger N to move on. ' : '') +
    'Decentralized play (each philosopher its own turn, reading its neighbours\' messages) needs a multi-turn rollout, which plain GRPOTrainer does not have.',
};
