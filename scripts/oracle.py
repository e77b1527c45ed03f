#!/usr/bin/env python3
"""Independent float64 oracle for the `gspo logprobs` and `gspo grad` CLI commands.

  oracle.py logprobs       --checkpoint F --tokens 1,2,3 [--temperature 1]
  oracle.py check-logprobs --checkpoint F --tokens 1,2,3 --cli-json OUT.json [--atol 1e-4]
  oracle.py check-grad     --checkpoint F --batch B.json --cli-json OUT.json --cli-grad G.safetensors
                           [--method auto|torch|fd] [--samples 40] [--seed 0] [--rtol 1e-3] [--atol 1e-6]

check-grad compares the CLI's loss (rel 1e-3) and clip_frac with this oracle, checks
that grad_norm matches the norm of the gradient file, and compares every gradient
tensor: with torch (float64 autograd of the same forward and loss) on every entry,
else with central finite differences (float64, numpy) on ~40 entries per tensor
(the 5 largest |CLI grad| plus random ones). FD entries whose +h and -h evaluations
land on different branches of min/clip/clamp are skipped and counted. Per tensor,
pass when max |cli - oracle| <= rtol * max(|cli|, |oracle|) + atol.
Exit 0: all pass; 1: a mismatch; 2: bad inputs.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gspo_ref import (Batch, batch_loss, load_checkpoint, param_names, param_shapes,  # noqa: E402
                      read_safetensors, token_logprobs, torch_rl_loss)


def parse_tokens(s, cfg):
    try:
        toks = [int(t) for t in s.split(",") if t.strip() != ""]
    except ValueError:
        raise InputError(f"--tokens must be comma-separated integers, got {s!r}")
    if len(toks) < 1 or len(toks) > cfg["block_size"]:
        raise InputError(f"--tokens needs 1..{cfg['block_size']} tokens, got {len(toks)}")
    if any(t < 0 or t >= cfg["vocab_size"] for t in toks):
        raise InputError(f"--tokens must be in [0, {cfg['vocab_size']})")
    return toks


def oracle_logprobs(cfg, P, toks, temperature):
    lp = token_logprobs(cfg, P, np.array([toks], dtype=np.int64), temperature)
    return lp[0, 1:].tolist()


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise InputError(f"{what} {path}: {e}")


class InputError(Exception):
    """Bad flags or input files: exit code 2."""


# ---------------------------------------------------------------- torch path

def torch_available():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


def torch_loss_and_grads(cfg, P, b):
    """Float64 autograd of the same forward (docs/model.md) and loss (docs/losses.md, gspo_ref.torch_rl_loss:
    every variant, written in torch from the docs beside the numpy loss, not from it)."""
    import torch
    import torch.nn.functional as F
    from gspo_torch import forward_logits
    dt = torch.float64
    W = {k: torch.tensor(v, dtype=dt, requires_grad=True) for k, v in P.items()}
    tokens = torch.tensor(b.tokens, dtype=torch.long)
    N, T = tokens.shape
    logits = forward_logits(cfg, W, tokens) / b.temperature  # the shared torch model (gspo_torch.py), tied head
    logsm = F.log_softmax(logits, dim=-1)
    gathered = logsm[:, :-1, :].gather(-1, tokens[:, 1:].unsqueeze(-1)).squeeze(-1)
    lp = torch.cat([torch.zeros(N, 1, dtype=dt), gathered], dim=1)

    loss = torch_rl_loss(torch, b, lp)  # every variant, gspo_ref.py beside the numpy loss
    loss.backward()
    grads = {k: (w.grad.numpy().copy() if w.grad is not None else np.zeros(w.shape)) for k, w in W.items()}
    return float(loss.item()), grads


# ---------------------------------------------------------------- FD path

def fd_check_tensor(cfg, P, b, name, cli_g, n_samples, rng):
    """Central differences on a subset of entries. Returns (idx, fd values, cli values, skipped).
    Stop-gradient parts (CISPO's weight) are held at the unperturbed weights' log-probs."""
    lp_sg = token_logprobs(cfg, P, b.tokens, b.temperature)
    w = P[name]
    flat = w.reshape(-1)  # a view: edits reach P[name]
    n = flat.size
    k_top = min(5, n)
    top = np.argsort(-np.abs(cli_g.reshape(-1)))[:k_top]
    rest = np.setdiff1d(np.arange(n), top)
    n_rand = min(len(rest), max(0, n_samples - k_top))
    idx = np.concatenate([top, rng.choice(rest, size=n_rand, replace=False)]) if n_rand else top
    fd, cli, skipped = [], [], 0
    for j in idx:
        orig = flat[j]
        h = 1e-5 * max(1.0, abs(orig))
        flat[j] = orig + h
        rp = batch_loss(cfg, P, b, lp_sg)
        flat[j] = orig - h
        rm = batch_loss(cfg, P, b, lp_sg)
        flat[j] = orig
        if not np.array_equal(rp["branch"], rm["branch"]):
            skipped += 1
            continue
        fd.append((rp["loss"] - rm["loss"]) / (2 * h))
        cli.append(cli_g.reshape(-1)[j])
    return np.array(fd), np.array(cli), skipped, len(idx)


# ---------------------------------------------------------------- commands

def cmd_logprobs(a):
    cfg, P = load_checkpoint(a.checkpoint)
    toks = parse_tokens(a.tokens, cfg)
    print(json.dumps({"logprobs": oracle_logprobs(cfg, P, toks, a.temperature)}))
    return 0


def cmd_check_logprobs(a):
    cfg, P = load_checkpoint(a.checkpoint)
    toks = parse_tokens(a.tokens, cfg)
    ref = np.array(oracle_logprobs(cfg, P, toks, a.temperature))
    out = load_json(a.cli_json, "--cli-json")
    got = out.get("logprobs") if isinstance(out, dict) else None
    if not isinstance(got, list):
        print(f"FAIL logprobs: {a.cli_json} has no \"logprobs\" array")
        return 1
    if len(got) != len(ref):
        print(f"FAIL logprobs: CLI gave {len(got)} values, expected {len(ref)} (one per token after the first)")
        return 1
    got = np.array(got, dtype=np.float64)
    diff = np.abs(got - ref)
    worst = int(np.argmax(diff)) if len(diff) else 0
    md = float(diff.max()) if len(diff) else 0.0
    ok = bool(np.all(np.isfinite(got))) and md <= a.atol
    print(f"{'PASS' if ok else 'FAIL'} logprobs: {len(ref)} values, max abs diff {md:.3g} (tol {a.atol:g})"
          + ("" if ok or not len(diff) else f" at position {worst + 1}: cli {got[worst]:.7g} oracle {ref[worst]:.7g}"))
    return 0 if ok else 1


def cmd_check_grad(a):
    cfg, P = load_checkpoint(a.checkpoint)
    try:
        b = Batch(load_json(a.batch, "--batch"), cfg)
    except (KeyError, ValueError, TypeError) as e:
        raise InputError(f"--batch {a.batch}: {e}")
    out = load_json(a.cli_json, "--cli-json")
    try:
        G, _ = read_safetensors(a.cli_grad)
    except (OSError, ValueError) as e:
        print(f"FAIL grad file: {e}")
        return 1
    failures = []

    # 1. the gradient file holds exactly the checkpoint's tensors (lm_head excluded)
    names = param_names(cfg["n_layer"])
    shapes = param_shapes(cfg)
    missing = [n for n in names if n not in G]
    extra = sorted(set(G) - set(names))
    if missing:
        failures.append(f"grad file lacks {len(missing)} tensors, e.g. {missing[0]}")
    if extra:
        failures.append(f"grad file has unexpected tensors {extra}")
    for n in names:
        if n in G and tuple(G[n].shape) != shapes[n]:
            failures.append(f"grad {n} has shape {list(G[n].shape)}, expected {list(shapes[n])}")
    names = [n for n in names if n in G and tuple(G[n].shape) == shapes[n]]
    nonfinite = [n for n in names if not np.all(np.isfinite(G[n]))]
    if nonfinite:
        failures.append(f"non-finite gradient in {nonfinite}")

    # 2. scalars
    ref = batch_loss(cfg, P, b)
    for key in ("loss", "grad_norm", "clip_frac"):
        if not isinstance(out.get(key), (int, float)):
            failures.append(f"CLI JSON lacks a number \"{key}\"")
    if isinstance(out.get("loss"), (int, float)):
        d = abs(out["loss"] - ref["loss"])
        ok = d <= a.rtol * abs(ref["loss"]) + 1e-6
        print(f"{'ok  ' if ok else 'BAD '} loss: cli {out['loss']:.8g} oracle {ref['loss']:.8g} (abs diff {d:.3g})")
        if not ok:
            failures.append("loss mismatch")
    if isinstance(out.get("clip_frac"), (int, float)):
        d = abs(out["clip_frac"] - ref["clip_frac"])
        # one sequence/token sitting on a clip boundary may flip between f32 and f64
        ok = d <= 1.0 / max(1, ref["clip_den"]) + 1e-9
        print(f"{'ok  ' if ok else 'BAD '} clip_frac: cli {out['clip_frac']:.6g} oracle {ref['clip_frac']:.6g} "
              f"({ref['clip_count']}/{ref['clip_den']})")
        if not ok:
            failures.append("clip_frac mismatch")
    if isinstance(out.get("grad_norm"), (int, float)) and names:
        file_norm = math.sqrt(sum(float((G[n] ** 2).sum()) for n in names))
        d = abs(out["grad_norm"] - file_norm)
        ok = d <= a.rtol * file_norm + 1e-7
        print(f"{'ok  ' if ok else 'BAD '} grad_norm: cli {out['grad_norm']:.8g}, norm of the grad file {file_norm:.8g}")
        if not ok:
            failures.append("grad_norm differs from the norm of the gradient file")

    # 3. gradients
    method = a.method
    if method == "auto":
        method = "torch" if torch_available() else "fd"
    rng = np.random.default_rng(a.seed)
    print(f"gradients by {method} ({'every entry' if method == 'torch' else f'{a.samples} entries per tensor'}), "
          f"pass when max|cli-oracle| <= {a.rtol:g} * scale + {a.atol:g}")
    print(f"  {'tensor':<40} {'shape':<12} {'scale':>10} {'max diff':>10} {'rel':>9} {'n':>6} {'skip':>5}")
    if method == "torch":
        tloss, TG = torch_loss_and_grads(cfg, P, b)
        if abs(tloss - ref["loss"]) > 1e-9 * max(1.0, abs(ref["loss"])):
            failures.append(f"internal: torch loss {tloss} != numpy loss {ref['loss']}")
        if isinstance(out.get("grad_norm"), (int, float)):
            tnorm = math.sqrt(sum(float((g ** 2).sum()) for g in TG.values()))
            ok = abs(out["grad_norm"] - tnorm) <= a.rtol * tnorm + 1e-7
            print(f"{'ok  ' if ok else 'BAD '} grad_norm vs torch: cli {out['grad_norm']:.8g} torch {tnorm:.8g}")
            if not ok:
                failures.append("grad_norm mismatch with torch")
    total_skipped = 0
    for n in names:
        if method == "torch":
            o, c, skipped, count = TG[n].reshape(-1), G[n].reshape(-1), 0, G[n].size
        else:
            o, c, skipped, count = fd_check_tensor(cfg, P, b, n, G[n], a.samples, rng)
        total_skipped += skipped
        scale = max(float(np.abs(G[n]).max()) if G[n].size else 0.0, float(np.abs(o).max()) if o.size else 0.0)
        md = float(np.abs(c - o).max()) if o.size else 0.0
        ok = md <= a.rtol * scale + a.atol
        rel = md / scale if scale > 0 else 0.0
        print(f"{'ok  ' if ok else 'BAD '}{n:<40} {str(list(G[n].shape)):<12} {scale:>10.3g} {md:>10.3g} {rel:>9.2g} "
              f"{count:>6} {skipped:>5}")
        if not ok:
            failures.append(f"gradient mismatch in {n}")
    if method == "fd":
        print(f"FD: {total_skipped} entries skipped (a clip branch changed between +h and -h)")

    if failures:
        print(f"FAIL grad: {len(failures)} problem(s): " + "; ".join(failures[:6]))
        return 1
    print("PASS grad")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("logprobs")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--tokens", required=True)
    p.add_argument("--temperature", type=float, default=1.0)
    p = sub.add_parser("check-logprobs")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--tokens", required=True)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--cli-json", required=True)
    p.add_argument("--atol", type=float, default=1e-4)
    p = sub.add_parser("check-grad")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--batch", required=True)
    p.add_argument("--cli-json", required=True)
    p.add_argument("--cli-grad", required=True)
    p.add_argument("--method", choices=["auto", "torch", "fd"], default="auto")
    p.add_argument("--samples", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-6)
    a = ap.parse_args()
    try:
        if a.cmd == "logprobs":
            return cmd_logprobs(a)
        if a.cmd == "check-logprobs":
            return cmd_check_logprobs(a)
        return cmd_check_grad(a)
    except (InputError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    rc = main()
    sys.exit(rc)
