#!/usr/bin/env python3
"""Writes a random-weight nanoGPT checkpoint (docs/model.md) as .safetensors.

numpy only by default (the file is written by hand: struct + json + tobytes);
--torch writes it with safetensors.torch.save_file from a state dict instead
(needs torch and safetensors). Either way lm_head.weight (= wte) is included,
to exercise "ignored on read".

  python3 scripts/make_checkpoint.py --out ckpt.safetensors --seed 1 --std 0.3

Weights are normal(0, std); c_proj weights normal(0, std / sqrt(2 n_layer)).
By default biases and LayerNorm parameters are random too (LN weight 1 + N(0, std/2),
biases N(0, std/2)) so every parameter matters in a parity check; --nanogpt-init
gives nanoGPT's init (biases 0, LN weight 1, bias 0).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gspo_ref import param_names, param_shapes, write_safetensors  # noqa: E402


def make_params(cfg, seed, std, nanogpt_init):
    rng = np.random.default_rng(seed)
    shapes = param_shapes(cfg)
    out = []
    for name in param_names(cfg["n_layer"]):
        shape = shapes[name]
        if name.endswith("c_proj.weight"):
            a = rng.normal(0, std / math.sqrt(2 * cfg["n_layer"]), shape)
        elif "ln_" in name and name.endswith(".weight"):
            a = np.ones(shape) if nanogpt_init else 1.0 + rng.normal(0, std / 2, shape)
        elif name.endswith(".bias"):
            a = np.zeros(shape) if nanogpt_init else rng.normal(0, std / 2, shape)
        else:
            a = rng.normal(0, std, shape)
        out.append((name, a.astype(np.float32)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=64)
    ap.add_argument("--block-size", type=int, default=48)
    ap.add_argument("--vocab-size", type=int, default=32)
    ap.add_argument("--std", type=float, default=0.02, help="weight std (default 0.02; e.g. 0.3 so log-probs are not uniform)")
    ap.add_argument("--nanogpt-init", action="store_true", help="biases 0, LayerNorm weight 1 / bias 0")
    ap.add_argument("--no-lm-head", action="store_true", help="omit lm_head.weight")
    ap.add_argument("--vocab", action="store_true", help="also write metadata vocab = [\"t0\", \"t1\", ...]")
    ap.add_argument("--torch", action="store_true", help="write with safetensors.torch.save_file (needs torch + safetensors)")
    a = ap.parse_args()
    if a.n_embd % a.n_head != 0:
        ap.error(f"--n-embd {a.n_embd} must be a multiple of --n-head {a.n_head}")
    for k in ["n_layer", "n_head", "n_embd", "block_size", "vocab_size"]:
        if getattr(a, k) < 1:
            ap.error(f"--{k.replace('_', '-')} must be >= 1")
    cfg = {"n_layer": a.n_layer, "n_head": a.n_head, "n_embd": a.n_embd,
           "block_size": a.block_size, "vocab_size": a.vocab_size}
    meta = {"config": json.dumps(cfg, separators=(",", ":")), "seed": str(a.seed), "std": repr(a.std),
            "made_by": "scripts/make_checkpoint.py"}
    if a.vocab:
        meta["vocab"] = json.dumps([f"t{i}" for i in range(a.vocab_size)])
    params = make_params(cfg, a.seed, a.std, a.nanogpt_init)
    if not a.no_lm_head:
        params.append(("lm_head.weight", params[0][1].copy()))

    if a.torch:
        try:
            import torch
            from safetensors.torch import save_file
        except ImportError as e:
            sys.exit(f"--torch needs torch and safetensors: {e}")
        # save_file refuses tensors sharing memory, so every tensor is its own copy.
        sd = {name: torch.from_numpy(arr.copy()).contiguous() for name, arr in params}
        tmp = a.out + ".tmp"
        save_file(sd, tmp, metadata=meta)
        os.replace(tmp, a.out)
    else:
        write_safetensors(a.out, params, meta)
    n = sum(p.size for name, p in params if name != "lm_head.weight")
    print(f"wrote {a.out}: {n} parameters, config {meta['config']}", file=sys.stderr)


if __name__ == "__main__":
    main()
