#!/usr/bin/env python3
"""The RL step of GSPO Playground in PyTorch, timed: the reference point of `gspo bench --compare`.

  torch_rl_step.py --probe                 JSON {"torch", "device", "device_name"}; exit 3 when torch is missing
  torch_rl_step.py --selfcheck             the torch model against gspo_ref's numpy forward, the KV-cache
                                           path against the full forward, advantages and GSPO loss against
                                           gspo_ref (float64, tiny shapes); exit 1 on a mismatch
  torch_rl_step.py --plan [shape flags]    the step's shapes as JSON, without torch
  torch_rl_step.py [shape flags]           times --steps steps after --warmup; JSON on stdout

One step, as the Trainer runs it (docs/rl.md), on the same model (gspo_torch.forward_logits over
gspo_ref's parameter names, float32):
  1. generation: for each --gen batch COUNT:CONTEXT:NEW[:DISTINCT], COUNT sequences of CONTEXT random tokens
     continued by NEW sampled tokens (temperature --temperature, no early stop: the project's
     generator also runs every position of the turn's limit), recording each token's log-prob;
     with DISTINCT (dividing COUNT), the contexts are DISTINCT random ones each repeated COUNT / DISTINCT
     times in a row (a group's episodes of one prompt), and the kvcache path's prefill runs each once and
     repeats its cache and logits (as the project's generator does);
  2. rewards: one random reward per episode (P prompts x G episodes; the env's scoring is not
     model work), advantages normalized within each group of G (docs/rl.md section 3);
  3. the update: --train-rows rows (the first sequences generated, row i in episode i mod E), each
     padded to T = block_size - 1 positions, split by episode into --minibatches shuffled
     minibatches; per minibatch a forward, the GSPO loss (sequence ratio, clipped, docs/rl.md section 4),
     a backward, global-norm clipping and AdamW; the loss is read back (one sync, as the project does).
Generation path: --gen-path recompute (a forward over the whole prefix per new token, no cache; the
project's path before its KV cache) or kvcache (the prefix once, then one position per token).
--threads N: torch.set_num_threads(N) and the OpenMP/BLAS pools sized N (0: torch's default).
Output: {"ms_per_step", "steps", "device", "device_name", "torch", "generation_path", "phases_ms", "threads", "blas", ...}.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

STD_EPS = 1e-4  # docs/rl.md section 3 (gspo_ref.STD_EPS)
LOG_S_CLAMP = 20.0


class PlanError(ValueError):
    pass


# ---------------------------------------------------------------- arguments and shapes (no torch)

def parse_gen(text):
    """'64:9:9:8,64:18:2' -> [(64, 9, 9, 8), (64, 18, 2, 64)] (DISTINCT defaults to COUNT: every context its own)."""
    out = []
    for i, part in enumerate(text.split(",")):
        bits = part.strip().split(":")
        if len(bits) not in (3, 4) or not all(b.strip().isdigit() for b in bits):
            raise PlanError(f"--gen entry {i} ({part!r}) must be COUNT:CONTEXT:NEW or COUNT:CONTEXT:NEW:DISTINCT, whole numbers")
        n = [int(b) for b in bits]
        out.append((n[0], n[1], n[2], n[3] if len(n) == 4 else n[0]))
    return out


def build_parser():
    ap = argparse.ArgumentParser(description="Time the GSPO RL step in PyTorch (see the module docstring).")
    ap.add_argument("--probe", action="store_true", help="whether torch imports; JSON, exit 3 when not")
    ap.add_argument("--selfcheck", action="store_true", help="check the torch model and loss against gspo_ref")
    ap.add_argument("--plan", action="store_true", help="print the step's shapes as JSON (no torch needed)")
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=64)
    ap.add_argument("--vocab-size", type=int, default=32)
    ap.add_argument("--block-size", type=int, default=24)
    ap.add_argument("--prompts", type=int, default=32, help="P")
    ap.add_argument("--group", type=int, default=8, help="G")
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--gen", default=None, help="generate calls, COUNT:CONTEXT:NEW[,...] (default P*G:8:8)")
    ap.add_argument("--train-rows", type=int, default=None, help="rows in the loss (default P*G)")
    ap.add_argument("--gen-path", choices=["recompute", "kvcache"], default="recompute")
    ap.add_argument("--steps", type=int, default=5, help="timed steps")
    ap.add_argument("--warmup", type=int, default=1, help="untimed steps first")
    ap.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (torch.set_num_threads and the BLAS's); 0: torch's default")
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--eps-low", type=float, default=3e-4)
    ap.add_argument("--eps-high", type=float, default=4e-4)
    ap.add_argument("--grad-clip", type=float, default=1.0)
    ap.add_argument("--weight-decay", type=float, default=0.0)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    return ap


def plan(a):
    """The step's shapes from the arguments; PlanError names the argument that does not fit."""
    for name in ["n_layer", "n_head", "n_embd", "vocab_size", "block_size", "prompts", "group", "minibatches", "steps"]:
        if getattr(a, name) < 1:
            raise PlanError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(a, name)}")
    for name in ("warmup", "threads"):  # --threads 0: torch's default
        if getattr(a, name) < 0:
            raise PlanError(f"--{name} must be at least 0, got {getattr(a, name)}")
    if a.n_embd % a.n_head:
        raise PlanError(f"--n-embd ({a.n_embd}) must be divisible by --n-head ({a.n_head})")
    if not a.temperature > 0:
        raise PlanError(f"--temperature must be > 0, got {a.temperature}")
    E = a.prompts * a.group
    gen = parse_gen(a.gen) if a.gen is not None else [(E, min(8, a.block_size // 2), min(8, a.block_size - a.block_size // 2), E)]
    for i, (count, ctx, new, distinct) in enumerate(gen):
        if count < 1 or ctx < 1 or new < 1:
            raise PlanError(f"--gen entry {i}: COUNT, CONTEXT and NEW must be at least 1")
        if distinct < 1 or count % distinct:
            raise PlanError(f"--gen entry {i}: DISTINCT ({distinct}) must divide COUNT ({count})")
        if ctx + new > a.block_size:
            raise PlanError(f"--gen entry {i}: CONTEXT + NEW = {ctx + new} exceeds --block-size {a.block_size}")
    n_seq = sum(g[0] for g in gen)
    rows = E if a.train_rows is None else a.train_rows
    if rows < 1 or rows > n_seq:
        raise PlanError(f"--train-rows must be in [1, {n_seq}] (the sequences generated), got {rows}")
    T = a.block_size - 1
    # rows by generation order: batch b's sequence j is sequence sum(counts before b) + j; row i is in episode i mod E
    row_seq = list(range(rows))
    row_episode = [i % E for i in range(rows)]
    # minibatches split whole episodes: a seeded shuffle, then M contiguous slices (as the Trainer does)
    order = shuffled(E, a.seed)
    mbs = []
    for m in range(a.minibatches):
        eps = set(order[(m * E) // a.minibatches:((m + 1) * E) // a.minibatches])
        mbs.append([i for i in range(rows) if row_episode[i] in eps])
    return {
        "episodes": E, "prompts": a.prompts, "group": a.group,
        "gen": [{"count": c, "context": x, "new": n, "distinct": d} for c, x, n, d in gen],
        "gen_positions": sum(g[2] for g in gen), "sequences": n_seq,
        "train_rows": rows, "T": T, "row_seq": row_seq, "row_episode": row_episode,
        "minibatch_rows": [len(r) for r in mbs], "minibatches": mbs,
        "model": {"n_layer": a.n_layer, "n_head": a.n_head, "n_embd": a.n_embd, "vocab_size": a.vocab_size, "block_size": a.block_size},
    }


def shuffled(n, seed):
    """A seeded Fisher-Yates shuffle of range(n) (pure Python, reproducible without torch)."""
    import random
    r = random.Random(seed)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = r.randint(0, i)
        order[i], order[j] = order[j], order[i]
    return order


# ---------------------------------------------------------------- the step (torch)

def group_advantages(torch, rewards, G):
    """docs/rl.md section 3, advantage 'group': (r - mean) / (std + eps) within each group of G consecutive
    episodes (sample std, ddof 1); 0 for a group whose rewards are all equal, or of one episode."""
    r = rewards.view(-1, G)
    if G < 2:
        return torch.zeros_like(rewards)
    mean = r.mean(1, keepdim=True)
    std = r.std(1, unbiased=True, keepdim=True)
    same = (r == r[:, :1]).all(1, keepdim=True)
    return torch.where(same, torch.zeros_like(r), (r - mean) / (std + STD_EPS)).view(-1)


def gspo_loss(torch, lp, old, mask, adv, eps_low, eps_high):
    """docs/rl.md section 4, GSPO: s = exp(clamp(mean over the row's masked tokens of lp - old, +-20)),
    L = -min(s A, clip(s, 1 - eps_low, 1 + eps_high) A), averaged over rows."""
    denom = mask.sum(1).clamp(min=1.0)
    s = torch.exp(((mask * (lp - old)).sum(1) / denom).clamp(-LOG_S_CLAMP, LOG_S_CLAMP))
    return (-torch.minimum(s * adv, s.clamp(1.0 - eps_low, 1.0 + eps_high) * adv)).mean()


def init_params(torch, cfg, device, dtype, seed):
    from gspo_ref import param_shapes
    g = torch.Generator(device="cpu").manual_seed(seed)
    W = {}
    for name, shape in param_shapes(cfg).items():
        if name.endswith(".bias"):
            t = torch.zeros(shape, dtype=dtype)
        elif "ln_" in name:
            t = torch.ones(shape, dtype=dtype)
        else:
            t = torch.randn(shape, generator=g, dtype=dtype) * 0.02
        W[name] = t.to(device).requires_grad_(True)
    return W


def generate(torch, cfg, W, context, new, temperature, path, gen, repeat=1):
    """context: long [B, ctx], each row repeated `repeat` times in a row. Returns (tokens [B, ctx + new], logp [B, new]).
    On the kvcache path the prefill runs the B / repeat distinct rows once, and repeats their cache and logits."""
    from gspo_torch import forward_logits
    toks, lps = context, []
    cache = [] if path == "kvcache" else None
    feed = context
    for k in range(new):
        if cache is None:
            logits = forward_logits(cfg, W, toks)[:, -1, :]
        elif k == 0 and repeat > 1:
            logits = forward_logits(cfg, W, feed[::repeat], cache, True)[:, -1, :].repeat_interleave(repeat, dim=0)
            cache[:] = [(kk.repeat_interleave(repeat, dim=0), vv.repeat_interleave(repeat, dim=0)) for kk, vv in cache]
        else:
            logits = forward_logits(cfg, W, feed, cache, True)[:, -1, :]
        logsm = torch.log_softmax(logits.float() / temperature, dim=-1)
        nxt = torch.multinomial(logsm.exp(), 1, generator=gen)
        lps.append(logsm.gather(1, nxt))
        toks = torch.cat([toks, nxt], dim=1)
        feed = nxt
    return toks, torch.cat(lps, dim=1)


def rl_step(torch, a, p, cfg, W, opt, device, gen):
    """One RL step; returns (phase times in ms, mean loss)."""
    from gspo_torch import forward_logits
    sync = (lambda: torch.cuda.synchronize()) if device.type == "cuda" else (lambda: None)
    t0 = time.perf_counter()
    seqs, logps = [], []
    with torch.no_grad():
        for g in p["gen"]:
            repeat = g["count"] // g["distinct"]
            ctx = torch.randint(0, cfg["vocab_size"], (g["distinct"], g["context"]), device=device, generator=gen)
            ctx = ctx.repeat_interleave(repeat, dim=0)
            toks, lp = generate(torch, cfg, W, ctx, g["new"], a.temperature, a.gen_path, gen, repeat)
            toks, lp = toks.cpu(), lp.cpu()  # read back once per turn, as the project's generator does
            for j in range(g["count"]):
                seqs.append((toks[j], g["context"]))
                logps.append(lp[j])
    sync()
    t1 = time.perf_counter()
    E, T = p["episodes"], p["T"]
    rewards = torch.rand(E, device=device, generator=gen)
    adv_ep = group_advantages(torch, rewards, p["group"])
    # rows in prediction space: position t holds token t and predicts token t + 1 (the loss masks the generated ones)
    R = p["train_rows"]
    # built on the host, then uploaded once (the project builds its rows on the host too)
    tokens = torch.zeros(R, T, dtype=torch.long)
    targets = torch.zeros(R, T, dtype=torch.long)
    mask = torch.zeros(R, T)
    old = torch.zeros(R, T)
    for i in range(R):
        full, ctx = seqs[p["row_seq"][i]]
        n = min(full.shape[0], T + 1)
        tokens[i, :n - 1] = full[:n - 1]
        targets[i, :n - 1] = full[1:n]
        mask[i, ctx - 1:n - 1] = 1.0
        old[i, ctx - 1:n - 1] = logps[p["row_seq"][i]][:n - ctx]
    tokens, targets, mask, old = tokens.to(device), targets.to(device), mask.to(device), old.to(device)
    adv = adv_ep[torch.tensor(p["row_episode"], device=device)]
    sync()
    t2 = time.perf_counter()
    losses = []
    for rows in p["minibatches"]:
        if not rows:
            continue
        idx = torch.tensor(rows, device=device)
        opt.zero_grad(set_to_none=True)
        logits = forward_logits(cfg, W, tokens[idx]) / a.temperature
        lp = torch.log_softmax(logits, dim=-1).gather(-1, targets[idx].unsqueeze(-1)).squeeze(-1)
        loss = gspo_loss(torch, lp, old[idx], mask[idx], adv[idx], a.eps_low, a.eps_high)
        loss.backward()
        if a.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(list(W.values()), a.grad_clip)
        opt.step()
        losses.append(loss.item())  # the readback: one sync per minibatch, as the project reads its stats
    sync()
    t3 = time.perf_counter()
    return {"rollout": (t1 - t0) * 1e3, "reward": (t2 - t1) * 1e3, "update": (t3 - t2) * 1e3}, sum(losses) / max(1, len(losses))


def pick_device(torch, which):
    if which == "cuda" and not torch.cuda.is_available():
        raise PlanError("--device cuda: torch.cuda.is_available() is False")
    if which == "cpu" or (which == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu"), f"cpu ({torch.get_num_threads()} threads)"
    return torch.device("cuda"), torch.cuda.get_device_name(0)


def cmd_time(a, p):
    import torch
    from gspo_torch import blas_library
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    device, name = pick_device(torch, a.device)
    torch.manual_seed(a.seed)
    cfg = p["model"]
    W = init_params(torch, cfg, device, torch.float32, a.seed)
    # AdamW as the project's RL runs it: betas 0.9 / 0.999, eps 1e-8; weight decay on 2-D weights only
    decay = [w for n, w in W.items() if w.dim() == 2]
    rest = [w for n, w in W.items() if w.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay}, {"params": rest, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.999), eps=1e-8)
    gen = torch.Generator(device=device).manual_seed(a.seed)
    for _ in range(a.warmup):
        rl_step(torch, a, p, cfg, W, opt, device, gen)
    if device.type == "cuda":
        torch.cuda.synchronize()
    phases = {"rollout": 0.0, "reward": 0.0, "update": 0.0}
    t0 = time.perf_counter()
    loss = 0.0
    for _ in range(a.steps):
        ph, loss = rl_step(torch, a, p, cfg, W, opt, device, gen)
        for k in phases:
            phases[k] += ph[k] / a.steps
    if device.type == "cuda":
        torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3 / a.steps
    shapes = {k: v for k, v in p.items() if k not in ("minibatches", "row_seq", "row_episode")}
    return {
        "ms_per_step": ms, "steps": a.steps, "warmup": a.warmup, "device": device.type, "device_name": name,
        "torch": torch.__version__, "dtype": "float32",
        "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32) if device.type == "cuda" else False,
        "generation_path": ("recompute: a forward over the whole prefix per new token, no KV cache" if a.gen_path == "recompute"
                            else "kvcache: the prefix once, then one position per new token"),
        "phases_ms": phases, "last_loss": loss, "shapes": shapes, "threads": torch.get_num_threads(), "blas": blas_library(),
    }


# ---------------------------------------------------------------- selfcheck (torch, float64)

def cmd_selfcheck():
    import numpy as np
    import torch
    from gspo_ref import Batch, forward_logits as np_forward, param_shapes, rl_loss, token_logprobs
    from gspo_torch import forward_logits
    cfg = {"n_layer": 2, "n_head": 2, "n_embd": 8, "block_size": 12, "vocab_size": 7}
    rng = np.random.default_rng(0)
    P = {n: rng.normal(0, 0.5, s) for n, s in param_shapes(cfg).items()}
    W = {n: torch.tensor(v, dtype=torch.float64) for n, v in P.items()}
    toks = rng.integers(0, cfg["vocab_size"], (3, 10))
    fails = []

    def check(what, got, ref, tol):
        d = float(np.max(np.abs(np.asarray(got) - np.asarray(ref))))
        print(f"{'PASS' if d <= tol else 'FAIL'} {what}: max abs diff {d:.3g} (tol {tol:g})")
        if not d <= tol:
            fails.append(what)

    full = forward_logits(cfg, W, torch.tensor(toks))
    check("torch forward vs gspo_ref numpy forward", full.numpy(), np_forward(cfg, P, toks), 1e-10)
    cache = []
    parts = [forward_logits(cfg, W, torch.tensor(toks[:, :4]), cache)]
    for t in range(4, 10):
        parts.append(forward_logits(cfg, W, torch.tensor(toks[:, t:t + 1]), cache))
    check("KV-cache forward vs full forward", torch.cat(parts, dim=1).numpy(), full.numpy(), 1e-10)
    # the prefill's last layer on the last position alone: that row's logits, and the cache a full prefill fills
    caches = ([], [])
    last = forward_logits(cfg, W, torch.tensor(toks[:, :4]), caches[0], True)
    forward_logits(cfg, W, torch.tensor(toks[:, :4]), caches[1])
    check("a prefill's last-position logits vs the full forward's", last[:, 0].numpy(), full[:, 3].numpy(), 1e-10)
    kvs = [torch.stack([torch.stack(kv) for kv in c]).numpy() for c in caches]
    check("a last-position prefill's cache vs a full prefill's", kvs[0], kvs[1], 0)
    # a group's one prefill (contexts repeated 3 times in a row): the tokens and log-probs of a prefill of every row
    ctx = torch.tensor(toks[:, :4]).repeat_interleave(3, dim=0)
    draws = [generate(torch, cfg, W, ctx, 5, 1.0, "kvcache", torch.Generator().manual_seed(4), r) for r in (1, 3)]
    check("one prefill per group vs a prefill of every row (tokens)", draws[1][0].numpy(), draws[0][0].numpy(), 0)
    check("one prefill per group vs a prefill of every row (log-probs)", draws[1][1].numpy(), draws[0][1].numpy(), 1e-10)

    # advantages and the GSPO loss against gspo_ref, on a batch of 2 groups x 3 episodes
    G, seqs = 3, []
    rewards = [1.0, 0.0, 0.5, 0.2, 0.2, 0.2]
    for e in range(6):
        n = 8
        mask = [0, 0, 0] + [1] * (n - 3)
        seqs.append({"tokens": rng.integers(0, cfg["vocab_size"], n).tolist(), "mask": mask,
                     "old_logprobs": (rng.normal(-1.5, 0.3, n) * np.array(mask)).tolist(),
                     "episode": e, "group": e // G, "reward": rewards[e]})
    b = Batch({"algorithm": "gspo", "eps_low": 3e-4, "eps_high": 4e-4, "sequences": seqs}, cfg)
    adv = group_advantages(torch, torch.tensor(rewards, dtype=torch.float64), G)
    check("group advantages vs gspo_ref", adv.numpy(), b.adv_seq, 1e-12)
    lp = token_logprobs(cfg, P, b.tokens)
    for shift in (0.0, 0.01, -0.01):  # inside the clip range and beyond it on both sides
        old = b.old - shift * b.mask
        b2 = Batch({"algorithm": "gspo", "eps_low": 3e-4, "eps_high": 4e-4,
                    "sequences": [dict(s, old_logprobs=(np.array(s["old_logprobs"]) - shift * np.array(s["mask"])).tolist()) for s in seqs]}, cfg)
        got = gspo_loss(torch, torch.tensor(lp), torch.tensor(old), torch.tensor(b.mask), adv, 3e-4, 4e-4)
        check(f"GSPO loss vs gspo_ref (old log-probs shifted {shift:+g})", [got.item()], [rl_loss(b2, lp)["loss"]], 1e-12)
    print(json.dumps({"selfcheck": "pass" if not fails else "fail", "failed": fails}))
    return 1 if fails else 0


# ---------------------------------------------------------------- main

def no_torch():
    """True, having said so in one line on stderr, when torch does not import."""
    try:
        import torch  # noqa: F401
        return False
    except Exception as e:  # ImportError, or a broken install
        print(f"torch is not installed for {sys.executable} ({type(e).__name__}: {e})", file=sys.stderr)
        return True


def main(argv=None):
    ap = build_parser()
    a = ap.parse_args(argv)
    # before torch loads: OpenMP and the BLAS size their pools at load, and a pthreads OpenBLAS ignores set_num_threads
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS") if a.threads > 0 else ():
        os.environ[k] = str(a.threads)
    if a.probe:
        if no_torch():
            return 3
        import torch
        from gspo_torch import blas_library
        cuda = torch.cuda.is_available()
        print(json.dumps({"torch": torch.__version__, "device": "cuda" if cuda else "cpu",
                          "device_name": torch.cuda.get_device_name(0) if cuda else "cpu", "blas": blas_library()}))
        return 0
    try:
        p = plan(a)
    except PlanError as e:
        ap.error(str(e))  # exit 2, naming the argument
    if a.plan:
        print(json.dumps(p))
        return 0
    if no_torch():
        return 3
    if a.selfcheck:
        return cmd_selfcheck()
    try:
        out = cmd_time(a, p)
    except PlanError as e:
        ap.error(str(e))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
