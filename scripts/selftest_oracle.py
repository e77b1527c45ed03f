#!/usr/bin/env python3
"""Self-test of oracle.py's plumbing without the CLI: a tiny checkpoint, a batch, a
"CLI" gradient made by full central differences, then check-grad must PASS; with one
tensor's gradient corrupted it must FAIL. (Circular for the FD method by design: it
tests the file handling, the branch skipping and the comparison, not the math.)"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gspo_ref import Batch, batch_loss, load_checkpoint, param_names, write_safetensors  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True)


def main():
    d = tempfile.mkdtemp(prefix="oracle_selftest_")
    ck = os.path.join(d, "ck.safetensors")
    r = run(os.path.join(HERE, "make_checkpoint.py"), "--out", ck, "--seed", "3", "--n-layer", "1", "--n-head", "2",
            "--n-embd", "8", "--block-size", "10", "--vocab-size", "7", "--std", "0.4")
    assert r.returncode == 0, r.stderr
    r = run(os.path.join(HERE, "make_batches.py"), "--checkpoint", ck, "--out-dir", d, "--seed", "2")
    assert r.returncode == 0, r.stderr
    cfg, P = load_checkpoint(ck)
    ok = True
    for case in ["gspo_batch_wide", "grpo_group_narrow_kl_temp"]:
        bpath = os.path.join(d, f"batch_{case}.json")
        b = Batch(json.load(open(bpath)), cfg)
        base = batch_loss(cfg, P, b)
        grads = []
        for n in param_names(cfg["n_layer"]):
            flat = P[n].reshape(-1)
            g = np.zeros(flat.size)
            for j in range(flat.size):
                o = flat[j]
                flat[j] = o + 1e-6
                lp = batch_loss(cfg, P, b)["loss"]
                flat[j] = o - 1e-6
                lm = batch_loss(cfg, P, b)["loss"]
                flat[j] = o
                g[j] = (lp - lm) / 2e-6
            grads.append((n, g.reshape(P[n].shape)))
        norm = float(np.sqrt(sum((g ** 2).sum() for _, g in grads)))
        gpath = os.path.join(d, f"grad_{case}.safetensors")
        jpath = os.path.join(d, f"out_{case}.json")
        write_safetensors(gpath, grads, {})
        json.dump({"loss": base["loss"], "grad_norm": norm, "clip_frac": base["clip_frac"]}, open(jpath, "w"))
        args = [os.path.join(HERE, "oracle.py"), "check-grad", "--checkpoint", ck, "--batch", bpath,
                "--cli-json", jpath, "--cli-grad", gpath, "--method", "fd"]
        r = run(*args)
        good = r.returncode == 0
        print(f"{'ok ' if good else 'BAD'} {case}: check-grad on a correct gradient -> rc {r.returncode}")
        if not good:
            print(r.stdout, r.stderr)
        ok &= good
        grads[5] = (grads[5][0], grads[5][1] * 1.01 + 1e-3)
        write_safetensors(gpath, grads, {})
        r = run(*args)
        good = r.returncode == 1 and grads[5][0] in r.stdout.split("FAIL grad")[-1]
        print(f"{'ok ' if good else 'BAD'} {case}: check-grad on a corrupted {grads[5][0]} -> rc {r.returncode}")
        ok &= good
    r = run(os.path.join(HERE, "oracle.py"), "logprobs", "--checkpoint", ck, "--tokens", "1,2,3")
    lp = json.loads(r.stdout)["logprobs"]
    good = len(lp) == 2 and all(v < 0 for v in lp)
    print(f"{'ok ' if good else 'BAD'} logprobs: {lp}")
    ok &= good
    print("PASS selftest" if ok else "FAIL selftest")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
