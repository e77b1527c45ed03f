"""Reads an exported recipe folder the way Python does, independently of the TypeScript that wrote it.

python3 inspect_recipe.py DIR -> JSON {
  grpo_config: {kwarg: value} of the GRPOConfig(...) call in train_grpo.py (ast, literal_eval),
  overrides:   {key: raw value} of the verl.trainer.main_ppo command in run_verl.sh,
  readme:      [{field, trl: {key: value}, verl: {key: raw}}] parsed from README.md's mapping table,
}
"""
import ast
import json
import os
import re
import shlex
import sys


def grpo_config(path):
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "GRPOConfig":
            # **precision (bf16 / use_cpu, chosen at run time) is not a literal: only the named keywords
            return {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
    raise SystemExit("no GRPOConfig(...) call")


def overrides(path):
    out = {}
    started = False
    for line in open(path):
        if "verl.trainer.main_ppo" in line:
            started = True
            continue
        if not started or not line.startswith("    "):
            continue
        words = shlex.split(line.rstrip().rstrip("\\"))  # the shell's own word splitting and quote removal
        if len(words) != 1 or "=" not in words[0]:
            raise SystemExit(f"not one key=value word: {line!r}")
        key, value = words[0].split("=", 1)
        if key in out:
            raise SystemExit(f"{key} is set twice")
        out[key] = value
    return out


def readme(path):
    rows = []
    for line in open(path):
        if not line.startswith("| ") or line.startswith("| playground field"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        field, _, trl, verl = cells[:4]
        pairs = lambda cell: [p.strip("`").split("=", 1) for p in cell.split("<br>") if p != "-"]
        rows.append({
            "field": field,
            "trl": {k: ast.literal_eval(v) for k, v in pairs(trl)},
            "verl": {k: v for k, v in pairs(verl)},
        })
    return rows


d = sys.argv[1]
out = {"readme": readme(os.path.join(d, "README.md"))}
if os.path.exists(os.path.join(d, "train_grpo.py")):
    out["grpo_config"] = grpo_config(os.path.join(d, "train_grpo.py"))
if os.path.exists(os.path.join(d, "run_verl.sh")):
    out["overrides"] = overrides(os.path.join(d, "run_verl.sh"))
print(json.dumps(out))
