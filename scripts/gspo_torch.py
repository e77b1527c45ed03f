"""The nanoGPT forward of docs/model.md in PyTorch, over gspo_ref's parameter names.

The one torch model of the scripts: oracle.py uses it (float64 autograd for check-grad),
torch_rl_step.py times the RL step with it. torch_rl_step.py --selfcheck compares it with
gspo_ref.forward_logits (numpy, float64) and its KV-cache path with the full forward.
Imports torch: callers import this module only once torch is known to be there.
"""
import math

import torch
import torch.nn.functional as F

LN_EPS = 1e-5


def blas_library():
    """The BLAS shared objects this process loaded (Linux: /proc/self/maps). Debian's torch calls whatever
    libblas.so.3 points to, and its default (Netlib's reference BLAS) is tens of times slower than OpenBLAS."""
    own = ""
    try:
        import re
        import torch
        m = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
        # a PyPI wheel links MKL into torch itself: the shared objects below (numpy's OpenBLAS) are not what its matmuls run
        if m and m.group(1) == "mkl":
            own = "torch's own MKL (BLAS_INFO=mkl, linked in; the matmuls run there)"
    except Exception:
        pass
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({line.split()[-1] for line in f if "blas" in line.rsplit("/", 1)[-1].lower()})
    except OSError:
        return own or "unknown (no /proc/self/maps)"
    if own:
        return own + (f"; also loaded: {', '.join(libs)}" if libs else "")
    return ", ".join(libs) if libs else "none loaded (torch's own or MKL's kernels)"


def forward_logits(cfg, W, tokens, cache=None, last_only=False):
    """W: dict name -> tensor (gspo_ref.param_names, lm_head tied to wte). tokens: long [N, T].
    Returns logits [N, T, V].

    cache: None for a plain causal forward over positions 0..T-1. Otherwise a list (one entry per
    layer, empty at first) that this call extends: the tokens are the positions that follow the
    ones already cached, and each query attends to the cached keys and to the new ones up to itself.
    last_only: the last position's logits alone, [N, 1, V]; the last layer runs past its q, k, v (every
    position's, for the cache) on that position alone, as the project's prefill does (GPT.prefill).
    """
    N, T = tokens.shape
    C, nh = cfg["n_embd"], cfg["n_head"]
    hs = C // nh
    past = cache[0][0].shape[2] if cache else 0
    wte = W["transformer.wte.weight"]
    x = wte[tokens] + W["transformer.wpe.weight"][past:past + T].unsqueeze(0)
    # key j (absolute) is masked for query i (absolute past + i) when j > past + i
    causal = torch.triu(torch.ones(T, past + T, dtype=torch.bool, device=tokens.device), diagonal=past + 1)
    for i in range(cfg["n_layer"]):
        p = f"transformer.h.{i}."
        h = F.layer_norm(x, (C,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps=LN_EPS)
        q, k, v = F.linear(h, W[p + "attn.c_attn.weight"], W[p + "attn.c_attn.bias"]).split(C, dim=2)
        q = q.view(N, T, nh, hs).transpose(1, 2)
        k = k.view(N, T, nh, hs).transpose(1, 2)
        v = v.view(N, T, nh, hs).transpose(1, 2)
        if cache is not None:
            if len(cache) > i:
                k = torch.cat([cache[i][0], k], dim=2)
                v = torch.cat([cache[i][1], v], dim=2)
                cache[i] = (k, v)
            else:
                cache.append((k, v))
        if last_only and i == cfg["n_layer"] - 1:
            q, x, causal, T = q[:, :, -1:], x[:, -1:], causal[-1:], 1
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = F.softmax(att.masked_fill(causal, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(N, T, C)
        x = x + F.linear(y, W[p + "attn.c_proj.weight"], W[p + "attn.c_proj.bias"])
        h = F.layer_norm(x, (C,), W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps=LN_EPS)
        h = F.gelu(F.linear(h, W[p + "mlp.c_fc.weight"], W[p + "mlp.c_fc.bias"]), approximate="tanh")
        x = x + F.linear(h, W[p + "mlp.c_proj.weight"], W[p + "mlp.c_proj.bias"])
    x = F.layer_norm(x, (C,), W["transformer.ln_f.weight"], W["transformer.ln_f.bias"], eps=LN_EPS)
    return x @ wte.t()  # tied head, no bias
