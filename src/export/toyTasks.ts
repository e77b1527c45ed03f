// toy_tasks.py: the playground's environment in Python, beside the exported
// script: a seeded dataset generator (train and eval never share a task) and
// the outcome of one completion. Standard library only.
import type { RunConfig } from '../config';
import { PY_MESSAGE_TERMS } from './python/common';
import { ENV_PYTHON } from './python';
import { py } from './literal';

export function toyTasksPy(c: RunConfig): string {
  const env = ENV_PYTHON[c.env];
  return `"""A GSPO Playground environment as a dataset generator and a scorer (generated; see README.md).

python toy_tasks.py train 1000 [words|tokens] > train.jsonl   # rows of {"prompt", "task"}
"""
import json
import random
import sys


def hash_ints(xs):
    """A stable 32-bit FNV-1a hash of integers (Python's hash() of str is salted per process)."""
    h = 2166136261
    for x in xs:
        h = ((h ^ (int(x) & 0xFFFFFFFF)) * 16777619) & 0xFFFFFFFF
    return h
${PY_MESSAGE_TERMS}${env.tasks(c)}${env.outcome(c)}${env.policyPrompt(c)}

def make_dataset(split, count, seed=${py(c.seed)}, prompt_format="words"):
    """count tasks of one split ("train" or "eval"), as rows {"prompt": str, "task": json str}.
    prompt_format "words": the task in English, for any language model; "tokens": the trained agent's context
    in the playground's own tokens, for the exported policy (policy/)."""
    write = {"words": prompt, "tokens": policy_prompt}[prompt_format]
    rng = random.Random(seed * 2 + (split == "eval"))
    rows = []
    while len(rows) < count:
        task = make_task(rng, split)
        if is_eval(task) == (split == "eval"):
            rows.append({"prompt": write(task), "task": json.dumps(task)})
    return rows


if __name__ == "__main__":
    split, count = sys.argv[1], int(sys.argv[2])
    for row in make_dataset(split, count, prompt_format=sys.argv[3] if len(sys.argv) > 3 else "words"):
        print(json.dumps(row))
`;
}
