"""Shared numpy pieces for the Python oracle scripts (numpy only, float64).

- safetensors reading/writing by hand (struct + json + numpy), F32 little-endian
- the nanoGPT forward pass (docs/model.md), batched over padded sequences
- the RL objective of docs/losses.md over a `grad` batch file, every loss variant, in numpy (rl_loss)
  and again in torch (torch_rl_loss, for autograd where torch is installed; torch is passed in, so this
  file needs numpy only)

Independent of the TypeScript code: written from docs/losses.md. VARIANTS below
is this file's own copy of the loss table's shape (src/contract/losses.ts);
test/rl/losses.test.ts checks that the two agree.
"""
import json
import math
import struct

import numpy as np

GELU_C = math.sqrt(2.0 / math.pi)
LN_EPS = 1e-5
STD_EPS = 1e-4
LOG_S_CLAMP = 20.0

# variant: (importance level, clip rule, aggregation)
VARIANTS = {
    "gspo": ("sequence", "ppo", "seq-mean-token-mean"),
    "gspo-token": ("sequence-token", "ppo", "seq-mean-token-mean"),
    "grpo": ("token", "ppo", "seq-mean-token-mean"),
    "dapo": ("token", "ppo", "token-mean"),
    "dr-grpo": ("token", "ppo", "seq-mean-token-sum-norm"),
    "cispo": ("token", "cispo", "token-mean"),
    "two-sided": ("token", "two-sided", "token-mean"),
}


# ---------------------------------------------------------------- safetensors

def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, ndarray); written as F32 LE in the given order.
    Header padded with spaces so the data starts at a multiple of 8 bytes."""
    header = {}
    if metadata:
        for k, v in metadata.items():
            if not isinstance(v, str):
                raise ValueError(f"metadata value for {k!r} must be a string")
        header["__metadata__"] = dict(metadata)
    blobs = []
    offset = 0
    for name, arr in tensors:
        a = np.ascontiguousarray(np.asarray(arr, dtype="<f4"))
        b = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    hj = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hj += b" " * ((8 - len(hj) % 8) % 8)
    tmp = str(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hj)))
        f.write(hj)
        for b in blobs:
            f.write(b)
    import os
    os.replace(tmp, path)


def read_safetensors(path):
    """Returns (dict name -> float64 ndarray, metadata dict). F32 and F64 accepted."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8 or n > (1 << 24):
        raise ValueError(f"{path}: bad header length {n}")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    base = 8 + n
    out = {}
    for name, e in header.items():
        dt = {"F32": "<f4", "F64": "<f8"}.get(e["dtype"])
        if dt is None:
            raise ValueError(f"{path}: tensor {name}: unsupported dtype {e['dtype']}")
        b, t = e["data_offsets"]
        if base + t > len(data):
            raise ValueError(f"{path}: tensor {name}: data outside the file")
        arr = np.frombuffer(data[base + b:base + t], dtype=dt).astype(np.float64)
        out[name] = arr.reshape(e["shape"])
    return out, meta


# ---------------------------------------------------------------- model

def param_names(n_layer):
    names = ["transformer.wte.weight", "transformer.wpe.weight"]
    for i in range(n_layer):
        p = f"transformer.h.{i}."
        for s in ["ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
                  "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                  "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"]:
            names.append(p + s)
    names += ["transformer.ln_f.weight", "transformer.ln_f.bias"]
    return names


def param_shapes(cfg):
    C, V, T, L = cfg["n_embd"], cfg["vocab_size"], cfg["block_size"], cfg["n_layer"]
    shapes = {"transformer.wte.weight": (V, C), "transformer.wpe.weight": (T, C),
              "transformer.ln_f.weight": (C,), "transformer.ln_f.bias": (C,)}
    for i in range(L):
        p = f"transformer.h.{i}."
        shapes.update({
            p + "ln_1.weight": (C,), p + "ln_1.bias": (C,),
            p + "attn.c_attn.weight": (3 * C, C), p + "attn.c_attn.bias": (3 * C,),
            p + "attn.c_proj.weight": (C, C), p + "attn.c_proj.bias": (C,),
            p + "ln_2.weight": (C,), p + "ln_2.bias": (C,),
            p + "mlp.c_fc.weight": (4 * C, C), p + "mlp.c_fc.bias": (4 * C,),
            p + "mlp.c_proj.weight": (C, 4 * C), p + "mlp.c_proj.bias": (C,),
        })
    return shapes


def load_checkpoint(path):
    """Returns (cfg, params) with params float64, lm_head.weight dropped. Checks names and shapes."""
    tensors, meta = read_safetensors(path)
    if "config" not in meta:
        raise ValueError(f"{path}: __metadata__ has no config")
    cfg = json.loads(meta["config"])
    for k in ["n_layer", "n_head", "n_embd", "block_size", "vocab_size"]:
        cfg[k] = int(cfg[k])
    tensors.pop("lm_head.weight", None)
    shapes = param_shapes(cfg)
    for name, shape in shapes.items():
        if name not in tensors:
            raise ValueError(f"{path}: missing tensor {name}")
        if tuple(tensors[name].shape) != shape:
            raise ValueError(f"{path}: tensor {name} has shape {tensors[name].shape}, expected {shape}")
    extra = set(tensors) - set(shapes)
    if extra:
        raise ValueError(f"{path}: unexpected tensors {sorted(extra)}")
    return cfg, tensors


def layernorm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)  # biased
    return (x - mu) / np.sqrt(var + LN_EPS) * w + b


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x ** 3)))


def forward_logits(cfg, P, tokens):
    """tokens: int array [N, T] (T <= block_size). Returns logits [N, T, V] in float64."""
    N, T = tokens.shape
    C, nh = cfg["n_embd"], cfg["n_head"]
    hs = C // nh
    x = P["transformer.wte.weight"][tokens] + P["transformer.wpe.weight"][:T][None]
    causal = np.triu(np.ones((T, T), dtype=bool), k=1)
    for i in range(cfg["n_layer"]):
        p = f"transformer.h.{i}."
        h = layernorm(x, P[p + "ln_1.weight"], P[p + "ln_1.bias"])
        qkv = h @ P[p + "attn.c_attn.weight"].T + P[p + "attn.c_attn.bias"]  # (N, T, 3C)
        q, k, v = qkv[..., :C], qkv[..., C:2 * C], qkv[..., 2 * C:]
        q = q.reshape(N, T, nh, hs).transpose(0, 2, 1, 3)  # (N, nh, T, hs)
        k = k.reshape(N, T, nh, hs).transpose(0, 2, 1, 3)
        v = v.reshape(N, T, nh, hs).transpose(0, 2, 1, 3)
        att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hs)  # (N, nh, T, T)
        att = np.where(causal, -np.inf, att)
        att = att - att.max(-1, keepdims=True)
        att = np.exp(att)
        att = att / att.sum(-1, keepdims=True)
        y = (att @ v).transpose(0, 2, 1, 3).reshape(N, T, C)
        x = x + y @ P[p + "attn.c_proj.weight"].T + P[p + "attn.c_proj.bias"]
        h = layernorm(x, P[p + "ln_2.weight"], P[p + "ln_2.bias"])
        m = gelu(h @ P[p + "mlp.c_fc.weight"].T + P[p + "mlp.c_fc.bias"])
        x = x + m @ P[p + "mlp.c_proj.weight"].T + P[p + "mlp.c_proj.bias"]
    x = layernorm(x, P["transformer.ln_f.weight"], P["transformer.ln_f.bias"])
    return x @ P["transformer.wte.weight"].T


def token_logprobs(cfg, P, tokens, temperature=1.0):
    """tokens: int array [N, T]. Returns lp [N, T] with lp[:, t] = log p(tokens[t] | tokens[<t]) for t >= 1, lp[:, 0] = 0."""
    logits = forward_logits(cfg, P, tokens) / temperature
    z = logits - logits.max(-1, keepdims=True)
    logsm = z - np.log(np.exp(z).sum(-1, keepdims=True))
    N, T = tokens.shape
    lp = np.zeros((N, T))
    if T > 1:
        lp[:, 1:] = np.take_along_axis(logsm[:, :-1, :], tokens[:, 1:, None], axis=-1)[..., 0]
    return lp


# ---------------------------------------------------------------- batch file and RL objective

class Batch:
    """A docs/cli.md batch file, padded to [S, T] arrays (padding: token 0, mask 0)."""

    def __init__(self, obj, cfg=None):
        self.algorithm = obj.get("algorithm", "gspo")
        if self.algorithm not in VARIANTS:
            raise ValueError(f"bad algorithm {self.algorithm}")
        self.level, self.clip, self.agg = VARIANTS[self.algorithm]
        default_eps = (0.2, 0.2) if self.level == "token" else (3e-4, 4e-4)
        self.delta = float(obj.get("delta", 4.0))
        # L_max of the constant normaliser: the turns' token limit (t_max) when given, else the block size
        self.max_len = int(obj["t_max"]) if "t_max" in obj else (cfg["block_size"] if cfg is not None else None)
        self.eps_low = float(obj.get("eps_low", default_eps[0]))
        self.eps_high = float(obj.get("eps_high", default_eps[1]))
        self.beta = float(obj.get("beta", 0.0))
        self.advantage = obj.get("advantage", "group")
        if self.advantage not in ("group", "none", "batch"):
            raise ValueError(f"bad advantage mode {self.advantage}")
        self.temperature = float(obj.get("temperature", 1.0))
        seqs = obj["sequences"]
        S = len(seqs)
        T = max(len(s["tokens"]) for s in seqs)
        if cfg is not None and T > cfg["block_size"]:
            raise ValueError(f"sequence of length {T} exceeds block_size {cfg['block_size']}")
        self.S, self.T = S, T
        self.tokens = np.zeros((S, T), dtype=np.int64)
        self.mask = np.zeros((S, T))
        self.old = np.zeros((S, T))
        self.ref = np.zeros((S, T))
        self.lengths = []
        self.episode, self.group, self.reward = [], [], []
        for i, s in enumerate(seqs):
            n = len(s["tokens"])
            self.lengths.append(n)
            self.tokens[i, :n] = s["tokens"]
            self.mask[i, :n] = s["mask"]
            self.old[i, :n] = s["old_logprobs"]
            if self.beta > 0:
                self.ref[i, :n] = s["ref_logprobs"]
            if n > 0 and s["mask"][0]:
                raise ValueError(f"sequence {i}: mask[0] must be 0 (the first token has no log-prob)")
            self.episode.append(s["episode"])
            self.group.append(s["group"])
            self.reward.append(float(s["reward"]))
        self.adv_seq = self.advantages()

    def advantages(self):
        """docs/losses.md: stats over EPISODES (each counts once). Returns A per sequence."""
        ep_reward, ep_group = {}, {}
        for e, g, r in zip(self.episode, self.group, self.reward):
            if e in ep_reward and (ep_reward[e] != r or ep_group[e] != g):
                raise ValueError(f"episode {e}: sequences disagree on reward or group")
            ep_reward[e], ep_group[e] = r, g
        groups = {}
        for e in ep_reward:
            groups.setdefault(ep_group[e], []).append(ep_reward[e])
        all_r = np.array(list(ep_reward.values()))
        batch_std = all_r.std(ddof=1) if len(all_r) > 1 else 0.0
        ep_adv = {}
        for e, r in ep_reward.items():
            rs = np.array(groups[ep_group[e]])
            if len(rs) < 2 or np.all(rs == rs[0]):
                ep_adv[e] = 0.0
                continue
            mean = rs.mean()
            if self.advantage == "group":
                ep_adv[e] = (r - mean) / (rs.std(ddof=1) + STD_EPS)
            elif self.advantage == "none":
                ep_adv[e] = r - mean
            else:
                ep_adv[e] = (r - mean) / (batch_std + STD_EPS)
        return np.array([ep_adv[e] for e in self.episode])


def _terms(clip, r, A, lo, hi, delta, r_sg):
    """Per-term value (as a function of r, with r_sg the stop-gradient copy), clipped flags and branch flags.
    ppo / two-sided: -min(u, c), u = r A (two-sided: min(r, delta) A), c = clip(r, lo, hi) A.
    cispo: -sg(clip(r)) A r / sg(r), whose value is -clip(r) A and whose gradient in log pi is -clip(r) A."""
    if clip == "cispo":
        w = np.clip(r_sg, lo, hi)
        val = -w * A * r / r_sg
        clipped = (r_sg < lo) | (r_sg > hi)
        return val, clipped, [r_sg < lo, r_sg > hi]
    u = (np.minimum(r, delta) if clip == "two-sided" else r) * A
    c = np.clip(r, lo, hi) * A
    val = -np.minimum(u, c)
    # clipped: the minimum is flat in r (the cap or the clip holds it), with A != 0
    use_u = u <= c
    capped = (r > delta) if clip == "two-sided" else np.zeros_like(r, dtype=bool)
    flat = np.where(use_u, capped, (r < lo) | (r > hi))
    clipped = flat & (A != 0)
    return val, clipped, [use_u, r < lo, r > hi, capped]


def rl_loss(batch, lp, lp_sg=None):
    """docs/losses.md. lp [S, T] current log-probs; lp_sg the log-probs the stop-gradient parts (CISPO's weight)
    are taken at (default lp: the value is the same, only finite differences need them held). Returns dict with
    loss, branch indicators (for kink detection), clip_frac, policy, kl."""
    b = batch
    if lp_sg is None:
        lp_sg = lp
    m = b.mask
    mb = m > 0
    n_tok = m.sum(1)
    denom = np.maximum(1.0, n_tok)
    A = b.adv_seq
    lo, hi = 1.0 - b.eps_low, 1.0 + b.eps_high
    # c_i: the weight of each token of sequence i
    if b.agg == "seq-mean-token-mean":
        c = 1.0 / (b.S * denom)
    elif b.agg == "token-mean":
        c = np.full(b.S, 1.0 / max(1.0, m.sum()))
    else:
        c = np.full(b.S, 1.0 / (b.S * b.max_len))
    if b.level != "token":
        log_s_raw = (m * (lp - b.old)).sum(1) / denom
        log_s = np.clip(log_s_raw, -LOG_S_CLAMP, LOG_S_CLAMP)
        s = np.exp(log_s)
        val, clipped, br = _terms(b.clip, s, A, lo, hi, b.delta, s)
        # every token of sequence i carries the value L(s_i); a sequence with no token counts once
        policy = (c * denom * val).sum()
        branch = np.concatenate(br + [log_s_raw < -LOG_S_CLAMP, log_s_raw > LOG_S_CLAMP])
        clip_count, clip_den = clipped.sum(), b.S
    else:
        rho = np.exp(lp - b.old)
        rho_sg = np.exp(lp_sg - b.old)
        val, clipped, br = _terms(b.clip, rho, A[:, None], lo, hi, b.delta, rho_sg)
        policy = (c[:, None] * m * val).sum()
        branch = np.concatenate([x[mb] for x in br])
        clip_count, clip_den = (clipped & mb).sum(), m.sum()
    # terms the two-sided cap holds (ratio above delta, A < 0, the capped branch the smaller)
    capped_count = 0
    if b.clip == "two-sided":
        r_cap = s[:, None] if b.level != "token" else rho
        capped_count = int(((r_cap > b.delta) & (A[:, None] < 0) & (r_cap > hi) & mb).sum())
    kl = 0.0
    if b.beta > 0:
        d = b.ref - lp
        k3 = np.exp(d) - d - 1.0
        kl = (c[:, None] * m * k3).sum()
    loss = policy + b.beta * kl
    return {"loss": float(loss), "policy": float(policy), "kl": float(kl), "branch": branch,
            "clip_count": int(clip_count), "clip_den": int(clip_den), "capped_count": capped_count,
            "clip_frac": float(clip_count / clip_den) if clip_den > 0 else 0.0}


def batch_loss(cfg, P, batch, lp_sg=None):
    return rl_loss(batch, token_logprobs(cfg, P, batch.tokens, batch.temperature), lp_sg)


def torch_rl_loss(torch, b, lp):
    """docs/losses.md in torch (float64 autograd), every variant by b.level, b.clip, b.agg: written from the
    docs, not from rl_loss above. lp [S, T] current log-probs (a tensor with grad). CISPO's weight is a
    stop-gradient (detach); GSPO-token's per-token ratio is sg(s_i) * pi_t / sg(pi_t)."""
    dt = lp.dtype
    m = torch.tensor(b.mask, dtype=dt)
    old = torch.tensor(b.old, dtype=dt)
    A = torch.tensor(b.adv_seq, dtype=dt)
    S = m.shape[0]
    n_tok = m.sum(1)
    denom = n_tok.clamp(min=1.0)
    lo, hi = 1.0 - b.eps_low, 1.0 + b.eps_high
    # c_i, the weight of each of sequence i's tokens (docs/losses.md, Aggregations)
    if b.agg == "seq-mean-token-mean":
        c = 1.0 / (S * denom)
    elif b.agg == "token-mean":
        c = torch.full((S,), 1.0 / max(1.0, float(m.sum())), dtype=dt)
    else:  # seq-mean-token-sum-norm: the constant S * L_max
        c = torch.full((S,), 1.0 / (S * b.max_len), dtype=dt)

    def term(r, adv):
        if b.clip == "cispo":
            w = r.detach().clamp(lo, hi)  # sg(clip(r)): value -w A, gradient -w A d log pi
            return -w * adv * r / r.detach()
        u = (torch.clamp(r, max=b.delta) if b.clip == "two-sided" else r) * adv
        return -torch.minimum(u, r.clamp(lo, hi) * adv)

    if b.level == "token":
        policy = (c.unsqueeze(1) * m * term(torch.exp(lp - old), A.unsqueeze(1))).sum()
    else:
        s = torch.exp(((m * (lp - old)).sum(1) / denom).clamp(-LOG_S_CLAMP, LOG_S_CLAMP))
        if b.level == "sequence":
            # one value per sequence, counted max(1, |y_i|) times
            policy = (c * denom * term(s, A)).sum()
        else:
            s_it = s.detach().unsqueeze(1) * torch.exp(lp - lp.detach())
            # a sequence with no trained token still counts once, with s = 1 and no gradient
            empty = (n_tok == 0).to(dt)
            policy = (c.unsqueeze(1) * m * term(s_it, A.unsqueeze(1))).sum() + (c * empty * term(s.detach(), A)).sum()
    if b.beta > 0:
        d = torch.tensor(b.ref, dtype=dt) - lp
        policy = policy + b.beta * (c.unsqueeze(1) * m * (torch.exp(d) - d - 1.0)).sum()
    return policy
