#!/usr/bin/env python3
"""torch_step.py: the svk training step in PyTorch on the CPU, for comparison.

What it measures: the throughput (tokens/s) of one whole training step of the
svk model (docs/MODEL.md: the same configuration keys, the same
placements pre, post and siamese, layernorm or rmsnorm, gelu or swiglu,
learned or rope positions) in PyTorch, float32, on the CPU with a given
number of threads. A step is what svk_model_train_step does: forward,
cross-entropy (targets -1 ignored), backward, clip_grad_norm_ (max_norm 1.0),
AdamW (beta1 0.9, beta2 0.95, eps 1e-8, weight decay 0.1 on 2-D weights only)
and zero_grad. The batch is random tokens and targets from a fixed seed, the
same batch every step, as svk-bench does; the learning rate is a constant
1e-3 (the schedule does not change the work of a step).

It is the yardstick of issue 6: libsvk's step on lavapipe should reach at
least the tokens/s of PyTorch on the CPU with the same threads for the same
model. Compare like with like:

    build/tools/bench/svk-bench --no-kernels --threads 2       # default, default/pre, w256-l4, w256-l6-t256
    python3 tools/bench/torch_step.py --threads 2               # the same four, by the same names
    build/tools/bench/svk-bench --quick --no-kernels --threads 2   # tiny, tiny/pre
    python3 tools/bench/torch_step.py --config quick --threads 2

The configuration names, their keys and their batch shapes (B, T) are those
of tools/bench/bench_step.c; keep the table CONFIGS below in step with it.
The parameter count printed here must equal svk-bench's ("M params";
"params" in its JSON). svk-bench's tokens/s is the mean over its replayed
steps; this script prints the median (and the mean in --json).

The modules' parameter names are the specification's checkpoint tensor
names, so an svk checkpoint (safetensors) loads with load_state_dict(): from
the same weights and batch this model's losses, gradient norm and weights
after two clipped AdamW steps matched libsvk's CPU reference (every
placement, norm, mlp and pos) to float32 rounding. The weights here are drawn
by torch's generator, so losses differ from svk-bench's by chance only.

Optional: it needs PyTorch (Debian: apt-get install python3-torch, which is
for the system interpreter /usr/bin/python3), and exits with status 2 and a
message when torch cannot be imported. It is never part of the test suite
and nothing in the build runs it.

--profile runs as many steps again under torch.profiler and prints how
their time divides between the matrix products (aten::mm, addmm, bmm,
baddbmm) and every other operator, with the costliest operators: set beside
`SVK_PROFILE=kernel build/tools/train/svk-train ...`, it shows which part of
the step each side spends its time in.

PyTorch's threads: --threads N (default: os.cpu_count()) sets
torch.set_num_threads(N) and, before torch is imported, OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS, so that a BLAS library with its own
thread pool (Debian's torch calls OpenBLAS for matrix products) uses N too,
and OMP_WAIT_POLICY=PASSIVE unless it is set (spinning OpenMP threads slow
OpenBLAS's down). Times depend on what else the machine runs: run both
benchmarks on an otherwise idle machine, with the same --threads.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

# The step configurations of tools/bench/bench_step.c: name -> (keys over the
# default configuration, B, T). "all" is svk-bench's full run, "quick" its
# --quick run.
CONFIGS = {
    "default": ("", 8, 128),
    "default/pre": ("placement=pre", 8, 128),
    "w256-l4": ("width=256 layers=4 heads=4", 8, 128),
    "w256-l6-t256": ("width=256 layers=6 heads=4 ctx=256", 4, 256),
    "tiny": ("vocab=64 ctx=16 width=32 layers=2 heads=2", 2, 16),
    "tiny/pre": ("vocab=64 ctx=16 width=32 layers=2 heads=2 placement=pre", 2, 16),
}
GROUPS = {
    "all": ["default", "default/pre", "w256-l4", "w256-l6-t256"],
    "quick": ["tiny", "tiny/pre"],
}

# svk_model_config_default() (include/svk/config.h); mlp_hidden 0 = 4 * width.
DEFAULT_CONFIG = {
    "vocab": 256, "ctx": 128, "width": 128, "layers": 4, "heads": 4, "mlp_hidden": 0,
    "norm": "layernorm", "placement": "siamese", "mlp": "gelu", "pos": "learned",
    "bias": True, "tie_embeddings": True, "norm_eps": 1e-5, "rope_theta": 10000.0,
}
CHOICES = {
    "norm": ("layernorm", "rmsnorm"),
    "placement": ("pre", "post", "siamese"),
    "mlp": ("gelu", "swiglu"),
    "pos": ("learned", "rope"),
}


class ConfigError(ValueError):
    pass


def config_set(cfg, key, value):
    """One KEY=VALUE, as svk_model_config_set (svk-train's --config)."""
    if key not in DEFAULT_CONFIG:
        raise ConfigError("config %s=%s: unknown key" % (key, value))
    old = DEFAULT_CONFIG[key]
    try:
        if key in CHOICES:
            if value not in CHOICES[key]:
                raise ValueError
            cfg[key] = value
        elif isinstance(old, bool):
            if value in ("true", "1"):
                cfg[key] = True
            elif value in ("false", "0"):
                cfg[key] = False
            else:
                raise ValueError
        elif isinstance(old, int):
            cfg[key] = int(value, 10)
            if cfg[key] < 0:
                raise ValueError
        else:
            cfg[key] = float(value)
    except ValueError:
        raise ConfigError("config %s=%s: bad value" % (key, value)) from None


def config_apply(cfg, keys):
    for kv in keys.split():
        if "=" not in kv:
            raise ConfigError("config: '%s' is not KEY=VALUE" % kv)
        k, v = kv.split("=", 1)
        config_set(cfg, k, v)


def config_validate(c):
    """The rules of the specification's configuration table."""
    def bad(key, why):
        raise ConfigError("config %s=%s: %s" % (key, c[key], why))
    if c["vocab"] < 2:
        bad("vocab", "must be at least 2")
    for k in ("ctx", "width", "layers", "heads"):
        if c[k] < 1:
            bad(k, "must be at least 1")
    if c["width"] % c["heads"]:
        bad("heads", "must divide width")
    if c["pos"] == "rope" and (c["width"] // c["heads"]) % 2:
        bad("heads", "head width must be even with pos=rope")
    if not c["norm_eps"] > 0:
        bad("norm_eps", "must be > 0")
    if not c["rope_theta"] > 0:
        bad("rope_theta", "must be > 0")


def hidden(c):
    return c["mlp_hidden"] or 4 * c["width"]


def expected_params(c):
    """The parameter count from the specification's tensor list, counted
    independently of the modules below (a check on them)."""
    V, C, L, F, T = c["vocab"], c["width"], c["layers"], hidden(c), c["ctx"]
    b = 1 if c["bias"] else 0
    per_norm = (2 if c["norm"] == "layernorm" else 1) * C
    n = V * C + (T * C if c["pos"] == "learned" else 0)
    per_layer = 3 * C * C + b * 3 * C + C * C + b * C
    if c["mlp"] == "gelu":
        per_layer += F * C + b * F + C * F + b * C
    else:
        per_layer += 3 * F * C
    per_layer += 2 * (3 if c["placement"] == "siamese" else 1) * per_norm
    n += L * per_layer
    n += {"pre": 1, "post": 0, "siamese": 3}[c["placement"]] * per_norm
    if not c["tie_embeddings"]:
        n += V * C
    return n


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="The svk training step (docs/MODEL.md) in PyTorch on the CPU: tokens/s, "
                    "to compare with svk-bench's step rows of the same names.")
    names = ", ".join(list(CONFIGS) + list(GROUPS))
    p.add_argument("--config", default="all",
                   help="a configuration name, or several separated by commas: %s (default all: "
                        "svk-bench's full run; quick: its --quick run)" % names)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="PyTorch (and BLAS) threads (default: os.cpu_count(), here %(default)s)")
    p.add_argument("--steps", type=int, default=10, help="timed steps per configuration (default 10)")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2; at least 1)")
    p.add_argument("--batch", type=int, default=0, help="B for every configuration (default: its own)")
    p.add_argument("--seq", type=int, default=0,
                   help="T for every configuration (default: its own; ctx is raised to T as svk-bench does)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a configuration key in every configuration, e.g. --set norm=rmsnorm "
                        "(repeatable; the rows then no longer match svk-bench's unless it is run alike)")
    p.add_argument("--seed", type=int, default=1, help="weights and batch seed (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    p.add_argument("--profile", action="store_true",
                   help="then profile as many steps again (torch.profiler) and print where their time goes: "
                        "the matrix products against everything else, and the costliest operators")
    a = p.parse_args(argv)
    if a.threads < 1 or a.steps < 1 or a.warmup < 1 or a.batch < 0 or a.seq < 0:
        p.error("--threads, --steps and --warmup must be at least 1; --batch and --seq positive")
    sel = []
    for name in a.config.split(","):
        name = name.strip()
        if name in GROUPS:
            sel += GROUPS[name]
        elif name in CONFIGS:
            sel.append(name)
        else:
            p.error("unknown configuration '%s' (known: %s)" % (name, names))
    a.selected = list(dict.fromkeys(sel))
    return a


def import_torch(threads):
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    # OpenMP threads that spin after each parallel region take the cores
    # from OpenBLAS's own threads (Debian's torch: OpenMP for its kernels,
    # openblas-pthread for matrix products); passive waiting was 2-3x faster
    # on two busy cores. An OMP_WAIT_POLICY already set is kept.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch  # noqa: F401
    except ImportError as e:
        msg = "torch_step.py: PyTorch is not available to %s (%s).\n" % (sys.executable, e)
        msg += "  It is optional: install it with 'apt-get install python3-torch' (Debian 12)"
        if os.path.isdir("/usr/lib/python3/dist-packages/torch") and \
                os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            msg += ";\n  Debian's python3-torch is installed for /usr/bin/python3: run\n" \
                   "  /usr/bin/python3 %s" % " ".join(sys.argv)
        sys.stderr.write(msg + "\n")
        sys.exit(2)
    return torch


# ---------------------------------------------------------------------------
# The model, built after torch is imported. Module and parameter names are the
# checkpoint tensor names of the specification, so that state_dict() keys are
# exactly those of an svk checkpoint.

def build_classes(torch):
    nn = torch.nn
    F = torch.nn.functional

    class Norm(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.kind, self.eps, C = c["norm"], c["norm_eps"], c["width"]
            self.weight = nn.Parameter(torch.ones(C))
            self.bias = nn.Parameter(torch.zeros(C)) if self.kind == "layernorm" else None

        def forward(self, u):
            if self.kind == "layernorm":
                return F.layer_norm(u, u.shape[-1:], self.weight, self.bias, self.eps)
            return u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

    class NormGroup(nn.Module):
        """Named norms: siamese's post/pre/input (P, Q, I) or x/y/out."""
        def __init__(self, c, subs):
            super().__init__()
            for s in subs:
                self.add_module(s, Norm(c))

    class Attention(nn.Module):
        def __init__(self, c):
            super().__init__()
            C = c["width"]
            self.H, self.D = c["heads"], C // c["heads"]
            self.qkv = nn.Linear(C, 3 * C, bias=c["bias"])
            self.proj = nn.Linear(C, C, bias=c["bias"])

        def forward(self, h, rope, mask):
            B, T, C = h.shape
            q, k, v = self.qkv(h).split(C, dim=2)
            q, k, v = (t.view(B, T, self.H, self.D).transpose(1, 2) for t in (q, k, v))
            if rope is not None:
                q, k = rope_rotate(q, rope), rope_rotate(k, rope)
            s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.D))
            p = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
            o = (p @ v).transpose(1, 2).reshape(B, T, C)
            return self.proj(o)

    def rope_rotate(t, rope):
        """Pairs (i, i + D/2) rotated by t * theta^(-2i/D)."""
        cos, sin = rope
        half = t.shape[-1] // 2
        a, b = t[..., :half], t[..., half:]
        return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)

    class MLP(nn.Module):
        def __init__(self, c):
            super().__init__()
            C, Fh = c["width"], hidden(c)
            self.kind = c["mlp"]
            if self.kind == "gelu":
                self.fc = nn.Linear(C, Fh, bias=c["bias"])
                self.proj = nn.Linear(Fh, C, bias=c["bias"])
            else:  # swiglu layers have no bias even when bias = true
                self.gate = nn.Linear(C, Fh, bias=False)
                self.up = nn.Linear(C, Fh, bias=False)
                self.proj = nn.Linear(Fh, C, bias=False)

        def forward(self, h):
            if self.kind == "gelu":
                return self.proj(F.gelu(self.fc(h), approximate="tanh"))
            return self.proj(F.silu(self.gate(h)) * self.up(h))

    class Block(nn.Module):
        def __init__(self, c, l):
            super().__init__()
            self.placement = c["placement"]
            if self.placement == "siamese":
                self.attn_norm = NormGroup(c, ("post", "pre", "input"))
                self.mlp_norm = NormGroup(c, ("post", "pre", "input"))
            else:
                self.attn_norm = Norm(c)
                self.mlp_norm = Norm(c)
            self.attn = Attention(c)
            self.mlp = MLP(c)
            self.inv_c = 1.0 / math.sqrt(2.0 * (l + 1))  # 1 / c_l

        def forward(self, x, y, rope, mask):
            subs = ((self.attn_norm, lambda h: self.attn(h, rope, mask)), (self.mlp_norm, self.mlp))
            for norm, f in subs:
                if self.placement == "pre":
                    x = x + f(norm(x))
                elif self.placement == "post":
                    x = norm(x + f(x))
                else:
                    x = norm.post(x)                    # P_s: the post-norm stream, normalised
                    z = f(norm.input(x + norm.pre(y)))  # I_s(x + Q_s(y)), the shared block
                    x = x + z * self.inv_c
                    y = y + z                           # the pre-norm stream, never normalised
            return x, y

    class SvkModel(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c
            V, C, L = c["vocab"], c["width"], c["layers"]
            self.wte = nn.Embedding(V, C)
            self.wpe = nn.Embedding(c["ctx"], C) if c["pos"] == "learned" else None
            self.blocks = nn.ModuleList(Block(c, l) for l in range(L))
            if c["placement"] == "pre":
                self.norm_f = Norm(c)
            elif c["placement"] == "siamese":
                self.norm_f = NormGroup(c, ("x", "y", "out"))
            else:
                self.norm_f = None
            self.lm_head = None if c["tie_embeddings"] else nn.Linear(C, V, bias=False)
            # True above the diagonal: the keys after the query, masked out.
            self.register_buffer("causal_mask", torch.ones(c["ctx"], c["ctx"], dtype=torch.bool).triu(1),
                                 persistent=False)
            if c["pos"] == "rope":
                D = C // c["heads"]
                i = torch.arange(D // 2, dtype=torch.float32)
                inv_freq = torch.tensor(c["rope_theta"], dtype=torch.float32) ** (-2.0 * i / D)
                ang = torch.arange(c["ctx"], dtype=torch.float32)[:, None] * inv_freq[None, :]
                self.register_buffer("rope_cos", ang.cos(), persistent=False)
                self.register_buffer("rope_sin", ang.sin(), persistent=False)
            self.init_weights()

        @torch.no_grad()
        def init_weights(self):
            # Spec, "Initialisation": N(0, 0.02); residual projections
            # N(0, 0.02 / sqrt(2 L)); biases 0; norm gains 1, biases 0.
            # (The generator is torch's: the weights are not libsvk's.)
            proj_std = 0.02 / math.sqrt(2.0 * self.c["layers"])
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    std = proj_std if name.endswith("attn.proj.weight") or name.endswith("mlp.proj.weight") else 0.02
                    p.normal_(0.0, std)
                elif "norm" in name and name.endswith(".weight"):
                    p.fill_(1.0)
                else:
                    p.zero_()

        def forward(self, tokens):
            B, T = tokens.shape
            e = self.wte(tokens)
            if self.wpe is not None:
                e = e + self.wpe.weight[:T]
            rope = (self.rope_cos[:T], self.rope_sin[:T]) if self.c["pos"] == "rope" else None
            mask = self.causal_mask[:T, :T]
            x, y = e, e
            for blk in self.blocks:
                x, y = blk(x, y, rope, mask)
            pl = self.c["placement"]
            if pl == "pre":
                out = self.norm_f(x)
            elif pl == "post":
                out = x
            else:
                out = self.norm_f.out(self.norm_f.x(x) + self.norm_f.y(y))
            w = self.wte.weight if self.lm_head is None else self.lm_head.weight
            return out @ w.t()

    def loss_fn(logits, targets):
        """Mean cross-entropy over targets >= 0; 0 when there are none."""
        V = logits.shape[-1]
        total = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-1, reduction="sum")
        return total / (targets >= 0).sum().clamp(min=1)

    def make_optimizer(model, lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1):
        decay = [p for p in model.parameters() if p.dim() == 2]
        other = [p for p in model.parameters() if p.dim() != 2]
        return torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                                  {"params": other, "weight_decay": 0.0}], lr=lr, betas=betas, eps=eps)

    return SvkModel, loss_fn, make_optimizer


def run_config(torch, classes, name, args):
    SvkModel, loss_fn, make_optimizer = classes
    keys, B, T = CONFIGS[name]
    c = dict(DEFAULT_CONFIG)
    config_apply(c, keys)
    for kv in args.set:
        config_apply(c, kv)
    B = args.batch or B
    T = args.seq or T
    if T > c["ctx"]:
        c["ctx"] = T  # as svk-bench
    config_validate(c)

    torch.manual_seed(args.seed)
    model = SvkModel(c)
    params = sum(p.numel() for p in model.parameters())
    if params != expected_params(c):
        raise RuntimeError("%s: the modules have %d parameters, the specification %d" %
                           (name, params, expected_params(c)))
    opt = make_optimizer(model)
    g = torch.Generator().manual_seed(args.seed)
    tokens = torch.randint(0, c["vocab"], (B, T), generator=g)
    targets = torch.randint(0, c["vocab"], (B, T), generator=g)
    plist = list(model.parameters())

    def step():
        loss = loss_fn(model(tokens), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(plist, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    loss0 = None
    for _ in range(args.warmup):
        loss = step()
        if loss0 is None:
            loss0 = loss.item()  # at initialisation, before any update
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        loss = step()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    n = B * T
    profile = profile_steps(torch, step, args.steps) if args.profile else None
    return {
        "profile": profile,
        "name": name,
        "config": dict(c, mlp_hidden=hidden(c)),
        "B": B,
        "T": T,
        "params": params,
        "steps": args.steps,
        "warmup": args.warmup,
        "tokens_per_s": n / med,
        "tokens_per_s_mean": n * len(times) / sum(times),
        "ms_per_step": med * 1e3,
        "ms_min": min(times) * 1e3,
        "ms_max": max(times) * 1e3,
        "initial_loss": loss0,
        "ln_vocab": math.log(c["vocab"]),
        "final_loss": loss.item(),
    }


# The operators that are matrix products (the Linear layers and attention's
# batched products); everything else is the rest of the step.
MATMUL_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")


def profile_steps(torch, step, steps):
    """Runs `steps` more steps under torch.profiler (CPU) and returns, per
    step, the operators' self CPU time: in all, in the matrix products, and
    the costliest operators. Self times are those of the calling thread, which
    waits for an operator's parallel region, so they add up to about the
    step's wall time (the profiler's own cost included: it is printed too)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        wall = (time.perf_counter() - t0) / steps
    events = prof.key_averages()
    per_step = lambda us: us / steps / 1000.0
    total = per_step(sum(e.self_cpu_time_total for e in events))
    matmul = per_step(sum(e.self_cpu_time_total for e in events if e.key in MATMUL_OPS))
    top = sorted(events, key=lambda e: -e.self_cpu_time_total)[:12]
    return {
        "steps": steps,
        "wall_ms_per_step": wall * 1e3,
        "self_ms_per_step": total,
        "matmul_ms_per_step": matmul,
        "matmul_ops": list(MATMUL_OPS),
        "top": [{"op": e.key, "ms_per_step": per_step(e.self_cpu_time_total), "calls_per_step": e.count / steps}
                for e in top],
    }


def blas_description(torch):
    """torch's BLAS_INFO and, on Linux, the BLAS libraries mapped into this
    process (Debian's torch says "generic": the libblas.so.3 alternative)."""
    cfg_text = torch.__config__.show()
    info = next((f.split("=", 1)[1] for f in cfg_text.replace(",", " ").split() if f.startswith("BLAS_INFO=")), "?")
    libs = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                base = os.path.basename(path)
                if path.startswith("/") and any(base.startswith(n) for n in ("libblas", "libopenblas", "libmkl", "libblis")):
                    real = os.path.realpath(path)
                    name = os.path.join(os.path.basename(os.path.dirname(real)), os.path.basename(real))
                    if name not in libs:
                        libs.append(name)
    except OSError:
        pass
    return info + (" (" + ", ".join(libs) + ")" if libs else "")


def host_cpu():
    """The host CPU as svk-bench names it (its "host CPU" line, machine.cpu
    in its JSON): /proc/cpuinfo's model name, vendor, family and model, or
    "unknown". Both sides' figures depend on it."""
    fields = {"model name": "", "vendor_id": "", "cpu family": "", "model": ""}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, sep, value = line.partition(":")
                key = key.strip()
                if sep and key in fields:
                    fields[key] = value.strip()
    except OSError:
        return "unknown"
    if not fields["model name"] and not fields["vendor_id"]:
        return "unknown"
    return "%s (%s family %s model %s)" % (fields["model name"] or "?", fields["vendor_id"] or "?",
                                          fields["cpu family"] or "?", fields["model"] or "?")


def main(argv):
    args = parse_args(argv)
    torch = import_torch(args.threads)
    torch.set_num_threads(args.threads)
    classes = build_classes(torch)
    blas = blas_description(torch)
    info = {
        "tool": "torch_step",
        "torch": torch.__version__,
        "threads": args.threads,
        "torch_num_threads": torch.get_num_threads(),
        "blas": blas,
        "dtype": "float32",
        "device": "cpu",
        "cpu_count": os.cpu_count(),
        "cpu": host_cpu(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "seed": args.seed,
        "set": args.set,
    }
    rows, failed = [], 0
    out = sys.stderr if args.json else sys.stdout
    print("torch %s on the CPU, %d threads (torch.get_num_threads() %d, OMP_WAIT_POLICY=%s; BLAS %s), float32; "
          "%d warm-up + %d timed steps per configuration" %
          (info["torch"], args.threads, info["torch_num_threads"], info["omp_wait_policy"], blas, args.warmup,
           args.steps), file=out)
    print("host CPU %s" % info["cpu"], file=out)
    for name in args.selected:
        try:
            r = run_config(torch, classes, name, args)
        except (ConfigError, RuntimeError) as e:
            failed += 1
            rows.append({"name": name, "error": str(e)})
            print("step %-12s error: %s" % (name, e), file=out)
            continue
        rows.append(r)
        if abs(r["initial_loss"] - r["ln_vocab"]) > 0.05 * r["ln_vocab"]:
            sys.stderr.write("torch_step.py: %s: the loss at initialisation %.4f is far from ln V = %.4f\n" %
                             (name, r["initial_loss"], r["ln_vocab"]))
        c = r["config"]
        print("step %-12s C=%d L=%d H=%d V=%d %s, B=%d T=%d, %.2f M params (%d)" %
              (name, c["width"], c["layers"], c["heads"], c["vocab"], c["placement"], r["B"], r["T"],
               r["params"] * 1e-6, r["params"]), file=out)
        print("     %10.0f tokens/s  %9.2f ms/step (median of %d, min %.2f, max %.2f)  "
              "loss at init %.4f (ln V %.4f), last %.4f" %
              (r["tokens_per_s"], r["ms_per_step"], r["steps"], r["ms_min"], r["ms_max"],
               r["initial_loss"], r["ln_vocab"], r["final_loss"]), file=out)
        prof = r["profile"]
        if prof:
            print("     profiled: %.2f ms/step wall under the profiler; operators' self time %.2f ms/step, "
                  "of it matrix products (%s) %.2f ms, the rest %.2f ms" %
                  (prof["wall_ms_per_step"], prof["self_ms_per_step"], ", ".join(prof["matmul_ops"]),
                   prof["matmul_ms_per_step"], prof["self_ms_per_step"] - prof["matmul_ms_per_step"]), file=out)
            for t in prof["top"]:
                print("       %8.2f ms  %6.1f calls  %s" % (t["ms_per_step"], t["calls_per_step"], t["op"]), file=out)
        out.flush()
    if args.json:
        info["steps"] = rows
        json.dump(info, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
