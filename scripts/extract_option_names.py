#!/usr/bin/env python3
"""Writes src/export/optionNames.json: the option names TRL's GRPOConfig and verl's PPO trainer
config really have, read from git checkouts of the two repositories (no install, no network).

usage: python3 scripts/extract_option_names.py TRL_GIT_DIR VERL_GIT_DIR > src/export/optionNames.json

The TrainingArguments names GRPOConfig inherits from transformers are a short hand-read list
(TRAINING_ARGUMENTS below): the transformers repository is too large to mirror here.
"""
import ast
import json
import re
import subprocess
import sys

import yaml

# Read from transformers src/transformers/training_args.py (commit 00349ae87eddc872ffa21a8a54f264375a0056a8),
# only the names the export sets.
TRAINING_ARGUMENTS = [
    "output_dir", "per_device_train_batch_size", "max_steps", "learning_rate", "lr_scheduler_type",
    "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon", "gradient_accumulation_steps", "max_grad_norm",
    "bf16", "logging_steps", "report_to", "seed", "eval_strategy", "eval_steps", "per_device_eval_batch_size",
]


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True).stdout


def dataclass_fields(source, cls):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    raise SystemExit(f"class {cls} not found")


def enum_values(source, cls):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return [s.value.value for s in node.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)]
    raise SystemExit(f"class {cls} not found")


def flatten(d, prefix=""):
    out = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        out.append(key)
        if isinstance(v, dict):
            out.extend(flatten(v, key + "."))
    return out


def main(trl, verl):
    trl_commit = git(trl, "rev-parse", "HEAD").strip()
    verl_commit = git(verl, "rev-parse", "HEAD").strip()
    grpo = dataclass_fields(git(trl, "show", "HEAD:trl/trainer/grpo_config.py"), "GRPOConfig")
    base = dataclass_fields(git(trl, "show", "HEAD:trl/trainer/base_config.py"), "_BaseConfig")
    cfg = yaml.safe_load(git(verl, "show", "HEAD:verl/trainer/config/_generated_ppo_trainer.yaml"))
    core = git(verl, "show", "HEAD:verl/trainer/ppo/core_algos.py")
    loss_modes = sorted(set(re.findall(r'@register_policy_loss\("([a-z_0-9]+)"\)', core)))
    adv = enum_values(core, "AdvantageEstimator")
    json.dump({
        "trl": {
            "repo": "huggingface/trl", "commit": trl_commit,
            "version": git(trl, "show", "HEAD:VERSION").strip(),
            "files": ["trl/trainer/grpo_config.py", "trl/trainer/base_config.py"],
            "grpoConfig": sorted(set(grpo + base)),
            "trainingArguments": {"repo": "huggingface/transformers", "commit": "00349ae87eddc872ffa21a8a54f264375a0056a8", "file": "src/transformers/training_args.py", "names": TRAINING_ARGUMENTS},
        },
        "verl": {
            "repo": "volcengine/verl", "commit": verl_commit,
            "version": git(verl, "show", "HEAD:verl/version/version").strip(),
            "files": ["verl/trainer/config/_generated_ppo_trainer.yaml", "verl/trainer/ppo/core_algos.py"],
            "keys": sorted(k for k in flatten(cfg) if "._target_" not in k and not k.startswith("_")),
            "lossModes": loss_modes,
            "advEstimators": sorted(adv),
        },
    }, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
