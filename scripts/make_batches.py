#!/usr/bin/env python3
"""Writes batch files for `gspo grad` (docs/cli.md) that cover docs/rl.md sections 3-4.

  python3 scripts/make_batches.py --checkpoint ckpt.safetensors --out-dir batches/

One file per case, batch_<case>.json, and summary.json (per case: clipped, capped and total terms by
this oracle). Every batch has:
  - group 0: 4 episodes with different rewards; episode 0 has two sequences
    (one of them a silent turn: context + EOS, a single mask 1)
  - group 1: 3 episodes with equal rewards (zero std: A = 0)
  - group 2: 3 episodes incl. negative rewards; one episode with two sequences
  - group 3: a single episode (G = 1: A = 0)
  - group 4: 2 episodes, rewards 0 and 1
  - a sequence exactly block_size long, another silent turn
old_logprobs = current log-probs (numpy float64 model at the batch temperature)
+ gaussian noise, so some ratios fall outside the clip range; ref_logprobs (beta > 0)
likewise. Every float is float32-representable, so f32 readers see the same numbers.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gspo_ref import VARIANTS, Batch, load_checkpoint, rl_loss, token_logprobs  # noqa: E402

NARROW = (3e-4, 4e-4)
WIDE = (0.2, 0.28)

# name: (algorithm, (eps_low, eps_high), advantage, beta, temperature, old noise sigma, shuffle)
CASES = {
    "gspo_group_narrow": ("gspo", NARROW, "group", 0.0, 1.0, 0.002, False),
    "gspo_group_narrow_kl": ("gspo", NARROW, "group", 0.05, 1.0, 0.002, False),
    "gspo_none_narrow": ("gspo", NARROW, "none", 0.0, 1.0, 0.002, False),
    "gspo_batch_wide": ("gspo", WIDE, "batch", 0.0, 1.0, 0.2, False),
    "gspo_group_wide_kl_shuffled": ("gspo", WIDE, "group", 0.05, 1.0, 0.2, True),
    "gspo_group_narrow_temp": ("gspo", NARROW, "group", 0.0, 0.7, 0.002, False),
    "grpo_group_wide": ("grpo", WIDE, "group", 0.0, 1.0, 0.2, False),
    "grpo_batch_wide_kl": ("grpo", WIDE, "batch", 0.05, 1.0, 0.2, False),
    "grpo_none_narrow": ("grpo", NARROW, "none", 0.0, 1.0, 0.002, False),
    "grpo_group_narrow_kl_temp": ("grpo", NARROW, "group", 0.05, 1.3, 0.002, True),
}
# every loss variant (gspo_ref.VARIANTS, the loss table's shape): one batch moved far (clipping on both sides),
# one barely moved with KL, so a new variant is checked without a line here
for _v in VARIANTS:
    CASES[f"{_v}_wide"] = (_v, WIDE, "batch", 0.0, 1.0, 0.25, False)
    CASES[f"{_v}_narrow_kl"] = (_v, NARROW, "none", 0.05, 1.0, 0.002, True)
    # the clip range wide and the ratios near 1: no term clipped (or capped), every gradient on the unclipped branch
    CASES[f"{_v}_unclipped"] = (_v, WIDE, "group", 0.0, 1.0, 0.01, False)
# the two-sided clip's cap in every batch (read by two-sided only): low enough that some ratios pass it
TWO_SIDED_DELTA = 1.3

# (group, rewards of its episodes, episodes with two sequences (index within group))
GROUPS = [
    (0, [1.0, 0.0, 0.5, 1.0], {0}),
    (1, [1.0, 1.0, 1.0], set()),
    (2, [0.2, -0.3, 0.9], {1}),
    (3, [0.7], set()),
    (4, [0.0, 1.0], set()),
]


def f32(x):
    return float(np.float32(x))


def make_structure(rng, cfg, eos):
    """Token sequences and masks (no log-probs yet). Returns list of dicts."""
    V, T = cfg["vocab_size"], cfg["block_size"]
    seqs = []
    episode = 0
    for g, rewards, doubles in GROUPS:
        for j, r in enumerate(rewards):
            n_seq = 2 if j in doubles else 1
            for k in range(n_seq):
                ctx = int(rng.integers(1, max(2, min(7, T - 1)) + 1))
                ctx = min(ctx, T - 1)
                silent = (g == 0 and j == 0 and k == 1) or (g == 2 and j == 0)
                gen_len = 1 if silent else int(rng.integers(1, max(1, min(9, T - ctx)) + 1))
                gen_len = min(gen_len, T - ctx)
                seqs.append({"ctx": ctx, "gen": gen_len, "episode": episode, "group": g, "reward": f32(r)})
            episode += 1
    # one sequence exactly block_size long
    full = seqs[2]
    full["ctx"] = max(1, T // 3)
    full["gen"] = T - full["ctx"]
    out = []
    for s in seqs:
        n = s["ctx"] + s["gen"]
        toks = rng.integers(0, V, size=n)
        toks[-1] = eos  # a turn ends with EOS
        if s["gen"] > 1:  # message tokens other than EOS
            body = rng.integers(0, V, size=s["gen"] - 1)
            body[body == eos] = (eos + 1) % V
            toks[s["ctx"]:n - 1] = body
        mask = [0] * s["ctx"] + [1] * s["gen"]
        out.append({"tokens": [int(t) for t in toks], "mask": mask,
                    "episode": s["episode"], "group": s["group"], "reward": s["reward"]})
    return out


def build(cfg, P, name, spec, seed, eos):
    algorithm, (el, eh), adv, beta, temp, sigma, shuffle = spec
    rng = np.random.default_rng(seed)
    seqs = make_structure(rng, cfg, eos)
    S = len(seqs)
    T = max(len(s["tokens"]) for s in seqs)
    toks = np.zeros((S, T), dtype=np.int64)
    for i, s in enumerate(seqs):
        toks[i, :len(s["tokens"])] = s["tokens"]
    lp = token_logprobs(cfg, P, toks, temp)
    for i, s in enumerate(seqs):
        n = len(s["tokens"])
        m = np.array(s["mask"], dtype=float)
        old = np.where(m > 0, lp[i, :n] + rng.normal(0, sigma, n), 0.0)
        s["old_logprobs"] = [f32(v) for v in old]
        if beta > 0:
            ref = np.where(m > 0, lp[i, :n] + rng.normal(0, 0.05, n), 0.0)
            s["ref_logprobs"] = [f32(v) for v in ref]
    if shuffle:
        order = rng.permutation(S)
        seqs = [seqs[i] for i in order]
    obj = {"algorithm": algorithm, "eps_low": f32(el), "eps_high": f32(eh), "beta": f32(beta),
           "advantage": adv, "temperature": f32(temp), "sequences": seqs}
    obj["delta"] = TWO_SIDED_DELTA
    if algorithm == "dr-grpo":
        # Dr. GRPO's L_max: the turn's token limit, here the longest generated span (not the block size)
        obj["t_max"] = int(max(sum(s["mask"]) for s in seqs)) or 1
    return obj


def edge_all_masked(cfg, P, seed, eos):
    """Optional edge case: a trainable sequence with no masked token (max(1, sum m) path)."""
    obj = build(cfg, P, "edge", ("gspo", WIDE, "group", 0.0, 1.0, 0.2, False), seed, eos)
    obj["sequences"][3]["mask"] = [0] * len(obj["sequences"][3]["mask"])
    obj["sequences"][3]["old_logprobs"] = [0.0] * len(obj["sequences"][3]["mask"])
    return obj


def dump(path, obj):
    """One sequence per line: small diffs, still one JSON document."""
    head = {k: v for k, v in obj.items() if k != "sequences"}
    lines = [json.dumps(head)[:-1] + ', "sequences": [']
    lines.append(",\n".join("  " + json.dumps(s, separators=(",", ":")) for s in obj["sequences"]))
    lines.append("]}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eos", type=int, default=0, help="token id used as EOS (default 0)")
    ap.add_argument("--no-edge", action="store_true", help="skip the optional all-masked-sequence case")
    a = ap.parse_args()
    cfg, P = load_checkpoint(a.checkpoint)
    if cfg["block_size"] < 4:
        sys.exit("block_size must be at least 4 for these batches")
    os.makedirs(a.out_dir, exist_ok=True)
    summary = {}
    cases = dict((n, None) for n in CASES)
    if not a.no_edge:
        cases["edge_all_masked"] = None
    for i, name in enumerate(cases):
        if name == "edge_all_masked":
            obj = edge_all_masked(cfg, P, a.seed * 1000 + i, a.eos)
        else:
            obj = build(cfg, P, name, CASES[name], a.seed * 1000 + i, a.eos)
        path = os.path.join(a.out_dir, f"batch_{name}.json")
        dump(path, obj)
        b = Batch(json.load(open(path)), cfg)
        r = rl_loss(b, token_logprobs(cfg, P, b.tokens, b.temperature))
        nz = int(np.sum(b.adv_seq != 0))
        summary[name] = {"algorithm": b.algorithm, "sequences": b.S, "T": b.T, "clip_count": r["clip_count"],
                         "clip_den": r["clip_den"], "capped_count": r["capped_count"], "nonzero_adv": nz}
        print(f"{path}: {b.S} sequences, T {b.T}, loss {r['loss']:.6g}, clip {r['clip_count']}/{r['clip_den']}, "
              f"{nz} sequences with A != 0", file=sys.stderr)
    # what each case exercises, by this oracle (the tests check the regimes: clipped, unclipped, the cap active)
    with open(os.path.join(a.out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
