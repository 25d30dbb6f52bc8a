"""The svk model (docs/MODEL.md) as a PyTorch module.

Every submodule is named so that ``state_dict()`` keys are the checkpoint's
tensor names: ``wte.weight``, ``blocks.0.attn.qkv.weight``,
``blocks.0.attn_norm.post.weight`` and so on. The arithmetic follows the
model definition line by line rather than calling PyTorch's fused layers,
so that each line can be checked against the page.
"""

import math

import torch
from torch import nn


class LayerNorm(nn.Module):
    """(u - mean(u)) / sqrt(var(u) + eps) * g + b over the last axis, with
    the biased variance."""

    def __init__(self, width, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width))

    def forward(self, u):
        mean = u.mean(-1, keepdim=True)
        var = ((u - mean) ** 2).mean(-1, keepdim=True)
        return (u - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


class RMSNorm(nn.Module):
    """u / sqrt(mean(u^2) + eps) * g over the last axis."""

    def __init__(self, width, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, u):
        return u / torch.sqrt((u * u).mean(-1, keepdim=True) + self.eps) * self.weight


def make_norm(c):
    return (LayerNorm if c["norm"] == "layernorm" else RMSNorm)(c["width"], c["norm_eps"])


class SiameseNorms(nn.Module):
    """A SiameseNorm sublayer's three norms: ``post`` (P, the normalised
    stream's), ``pre`` (Q, applied to the unnormalised stream) and
    ``input`` (I, the sublayer's input)."""

    def __init__(self, c):
        super().__init__()
        self.post = make_norm(c)
        self.pre = make_norm(c)
        self.input = make_norm(c)


class FinalNorms(nn.Module):
    """SiameseNorm's output: N_out(N_x(x) + N_y(y))."""

    def __init__(self, c):
        super().__init__()
        self.x = make_norm(c)
        self.y = make_norm(c)
        self.out = make_norm(c)

    def forward(self, x, y):
        return self.out(self.x(x) + self.y(y))


def gelu(u):
    """GELU, the tanh form."""
    return 0.5 * u * (1 + torch.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))


def silu(u):
    return u / (1 + torch.exp(-u))


def rope(u, heads, theta):
    """Rotates each head of u [B, T, C] at position t: the pair
    (row[i], row[i + D/2]) by the angle t * theta^(-2i/D).

    The inverse frequencies are computed in float64 and rounded once to
    u's dtype, and the angles in u's dtype, as libsvk's reference does:
    for a float32 model, the float32 angles the definition allows.
    """
    B, T, C = u.shape
    D = C // heads
    half = D // 2
    i = torch.arange(half, dtype=torch.float64, device=u.device)
    inv_freq = (theta ** (-2.0 * i / D)).to(u.dtype)
    angle = torch.arange(T, dtype=u.dtype, device=u.device).unsqueeze(1) * inv_freq  # [T, D/2]
    cos, sin = torch.cos(angle), torch.sin(angle)
    u = u.view(B, T, heads, D)
    a, b = u[..., :half], u[..., half:]
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)  # broadcast over heads
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).view(B, T, C)


class Attention(nn.Module):
    """Causal multi-head self-attention: one qkv Linear, RoPE when asked,
    scores scaled by 1 / sqrt(D), and the output Linear ``proj``."""

    def __init__(self, c):
        super().__init__()
        C = c["width"]
        self.heads = c["heads"]
        self.rope_theta = c["rope_theta"] if c["pos"] == "rope" else None
        self.qkv = nn.Linear(C, 3 * C, bias=c["bias"])
        self.proj = nn.Linear(C, C, bias=c["bias"])

    def forward(self, h):
        B, T, C = h.shape
        H, D = self.heads, C // self.heads
        q, k, v = self.qkv(h).split(C, dim=-1)
        if self.rope_theta is not None:
            q, k = rope(q, H, self.rope_theta), rope(k, H, self.rope_theta)
        q, k, v = (z.view(B, T, H, D).transpose(1, 2) for z in (q, k, v))  # [B, H, T, D]
        scores = q @ k.transpose(-1, -2) / math.sqrt(D)
        future = torch.ones(T, T, dtype=torch.bool, device=h.device).triu(1)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        o = (weights @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(o)


class GeluMLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc = nn.Linear(c["width"], c["mlp_hidden"], bias=c["bias"])
        self.proj = nn.Linear(c["mlp_hidden"], c["width"], bias=c["bias"])

    def forward(self, h):
        return self.proj(gelu(self.fc(h)))


class SwigluMLP(nn.Module):
    """silu(gate(h)) * up(h), then proj; never with biases."""

    def __init__(self, c):
        super().__init__()
        self.gate = nn.Linear(c["width"], c["mlp_hidden"], bias=False)
        self.up = nn.Linear(c["width"], c["mlp_hidden"], bias=False)
        self.proj = nn.Linear(c["mlp_hidden"], c["width"], bias=False)

    def forward(self, h):
        return self.proj(silu(self.gate(h)) * self.up(h))


class Block(nn.Module):
    """One block: attention, then the MLP, each a sublayer with its norms
    where the placement puts them."""

    def __init__(self, c, index):
        super().__init__()
        self.placement = c["placement"]
        norms = SiameseNorms if self.placement == "siamese" else make_norm
        self.attn_norm = norms(c)
        self.attn = Attention(c)
        self.mlp_norm = norms(c)
        self.mlp = (GeluMLP if c["mlp"] == "gelu" else SwigluMLP)(c)
        # The normalised stream takes each sublayer's output scaled by
        # 1 / c_l, c_l = sqrt(2 (l + 1)).
        self.scale = math.sqrt(2 * (index + 1))

    def forward(self, x, y=None):
        for norm, f in ((self.attn_norm, self.attn), (self.mlp_norm, self.mlp)):
            if self.placement == "pre":
                x = x + f(norm(x))
            elif self.placement == "post":
                x = norm(x + f(x))
            else:
                x = norm.post(x)
                z = f(norm.input(x + norm.pre(y)))
                x = x + z / self.scale
                y = y + z
        return x, y


class SvkModel(nn.Module):
    """The causal language model of docs/MODEL.md for configuration ``config``
    (a dict, see ``svk_torch.make_config``). ``forward(tokens)`` maps int64
    tokens [B, T] to logits [B, T, vocab].

    Freshly built, the weights are PyTorch's defaults, not libsvk's
    initialisation: load a checkpoint (``svk_torch.load``) or initialise
    them yourself.
    """

    def __init__(self, config):
        super().__init__()
        c = self.config = dict(config)
        self.wte = nn.Embedding(c["vocab"], c["width"])
        if c["pos"] == "learned":
            self.wpe = nn.Embedding(c["ctx"], c["width"])
        self.blocks = nn.ModuleList(Block(c, l) for l in range(c["layers"]))
        if c["placement"] == "pre":
            self.norm_f = make_norm(c)
        elif c["placement"] == "siamese":
            self.norm_f = FinalNorms(c)
        if not c["tie_embeddings"]:
            self.lm_head = nn.Linear(c["width"], c["vocab"], bias=False)

    def forward(self, tokens):
        c = self.config
        B, T = tokens.shape
        if T > c["ctx"]:
            raise ValueError("%d tokens exceed ctx %d" % (T, c["ctx"]))
        if tokens.numel() and (tokens.min() < 0 or tokens.max() >= c["vocab"]):
            raise ValueError("a token lies outside [0, %d)" % c["vocab"])
        e = self.wte(tokens)
        if c["pos"] == "learned":
            e = e + self.wpe.weight[:T]
        x, y = e, (e if c["placement"] == "siamese" else None)
        for block in self.blocks:
            x, y = block(x, y)
        if c["placement"] == "pre":
            x = self.norm_f(x)
        elif c["placement"] == "siamese":
            x = self.norm_f(x, y)
        w_out = self.wte.weight if c["tie_embeddings"] else self.lm_head.weight
        return x @ w_out.t()
