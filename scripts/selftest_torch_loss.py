#!/usr/bin/env python3
"""The torch loss (gspo_ref.torch_rl_loss) where torch is missing: its value on every batch of a folder,
computed through a numpy stand-in for the few torch calls it makes, must equal the numpy loss (rl_loss)
within 1e-12. Checks the torch path's formulas for every variant here; its gradients (autograd) run only
where torch is installed (oracle.py check-grad --method torch).

  selftest_torch_loss.py --checkpoint CK --batch-dir DIR     exit 0: every batch agrees; 1: one does not
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gspo_ref import Batch, load_checkpoint, rl_loss, token_logprobs, torch_rl_loss
class T(np.ndarray):
    """An ndarray with the tensor methods torch_rl_loss calls (values only: no gradient)."""
    def detach(self): return np.asarray(self).view(T)
    def unsqueeze(self, d): return np.expand_dims(self, d).view(T)
    def clamp(self, min=None, max=None): return np.clip(self, min, max).view(T)
    def to(self, dt): return self.astype(float).view(T)
    def sum(self, *a, **k): r = np.ndarray.sum(self, *a, **k); return r.view(T) if isinstance(r, np.ndarray) else r
class FakeTorch:
    float64 = float
    @staticmethod
    def tensor(x, dtype=None): return np.array(x, dtype=float).view(T)
    @staticmethod
    def full(shape, v, dtype=None): return np.full(shape, v).view(T)
    @staticmethod
    def exp(x): return np.exp(x).view(T)
    @staticmethod
    def minimum(a, b): return np.minimum(a, b).view(T)
    @staticmethod
    def clamp(x, min=None, max=None): return np.clip(x, min, max).view(T)
ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--checkpoint", required=True)
ap.add_argument("--batch-dir", required=True)
a = ap.parse_args()
cfg, P = load_checkpoint(a.checkpoint)
bad = 0
files = sorted(glob.glob(os.path.join(a.batch_dir, 'batch_*.json')))
if not files:
    sys.exit(f"no batch_*.json in {a.batch_dir}")
for f in files:
    b = Batch(json.load(open(f)), cfg)
    lp = token_logprobs(cfg, P, b.tokens, b.temperature)
    lpt = lp.view(T)
    got = float(torch_rl_loss(FakeTorch, b, lpt)); ref = rl_loss(b, lp)['loss']
    ok = abs(got - ref) <= 1e-12 * max(1, abs(ref))
    bad += not ok
    print('ok ' if ok else 'BAD', os.path.basename(f), got, ref)
sys.exit(bad)
