#!/usr/bin/env python3
"""python/svk_torch against libsvk, on checkpoints libsvk trained.

usage: test_svk_torch.py SVK_TRAIN TORCH_PEER PYTHON_DIR [--seed N] [--vulkan]

For each configuration: svk-train (CPU reference) trains a tiny model a few
steps on a fixed batch and saves it with its optimiser state. On another
batch, tests/torch_peer.c takes libsvk's logits, then one training step
(its loss, gradients, and the weights and moments after it); svk_torch
loads the same file and does the same in float64. Each must agree with
libsvk's float32 results within 1e-5, relative (|a - b| / |b| over each
tensor); so must PyTorch's AdamW from the file's state with libsvk's
gradients (step_from). After PyTorch's own step the key part of the qkv
biases is left out (key_bias says why). Then svk_torch.save's files go back
to libsvk: with the optimiser state they resume (libsvk's next step is
PyTorch's), weights only they open and train, and a resume from them is
refused.

The configurations: the five forms the model tests run (tests/
test_recompute.c), then every placement x norm x MLP x position, with bias
and tied embeddings alternating, so every value of every key is met.
--vulkan also runs libsvk's side on the Vulkan device for the five.
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

from pytally import check, summary, take_seed

try:
    import torch
except ImportError as e:  # reported by main(), as a failure
    torch, torch_missing = None, e

TOL = 1e-5
# The key biases' gradients (key_bias): their difference beside the whole
# gradient's norm.
KEY_BIAS = "key biases' gradients (|difference| / the gradient norm)"
B, T = 2, 8
SIZE = {"vocab": 32, "ctx": 8, "width": 16, "layers": 2, "heads": 2}
FIVE = [
    ("siamese", {"placement": "siamese"}),
    ("pre", {"placement": "pre"}),
    ("post", {"placement": "post"}),
    ("siamese swiglu rope rmsnorm untied",
     {"placement": "siamese", "mlp": "swiglu", "pos": "rope", "norm": "rmsnorm", "tie_embeddings": False}),
    ("post swiglu rope", {"placement": "post", "mlp": "swiglu", "pos": "rope"}),
]
LR = 1e-2

worst = {}


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        print("$ " + " ".join(cmd))
        print(p.stdout, end="")
    return p


def sweep():
    """Every placement x norm x MLP x position; bias and tying alternate."""
    out, k = [], 0
    for placement in ("pre", "post", "siamese"):
        for norm in ("layernorm", "rmsnorm"):
            for mlp in ("gelu", "swiglu"):
                for pos in ("learned", "rope"):
                    c = {"placement": placement, "norm": norm, "mlp": mlp, "pos": pos,
                         "bias": k % 2 == 0, "tie_embeddings": k % 4 < 2}
                    name = "%s %s %s %s%s%s" % (placement, norm, mlp, pos, "" if c["bias"] else " nobias",
                                                "" if c["tie_embeddings"] else " untied")
                    out.append((name, c))
                    k += 1
    return out


def write_batch(path, values):
    with open(path, "wb") as f:
        f.write(struct.pack("<%di" % len(values), *values))


def key_bias(name):
    """Whether ``name`` is a qkv bias, whose key part [C, 2C) has a gradient
    that is zero, or nearly, in exact arithmetic: adding b to every key adds
    q.b to each of a query's scores alike, which the softmax ignores; RoPE
    rotates b by each key's position, a small difference at small positions.
    So the float32 gradient there is rounding noise (learned positions) or
    a difference of nearly equal terms (RoPE), and AdamW, dividing the
    moments by sqrt(v) + eps, scales its error up into an update of up to
    lr. That part is held to the two gradients being equal beside the whole
    gradient's norm, and the step to libsvk's own gradients (step_from);
    the comparison after PyTorch's own step leaves it out."""
    return name.endswith(".attn.qkv.bias")


def without_key_bias(name, t):
    if not key_bias(name):
        return t
    C = SIZE["width"]
    return torch.cat([t[:C], t[2 * C:]])


def rel(a, b):
    """|a - b| / |b| over a whole tensor (|b| = 0: |a - b|)."""
    a, b = a.double(), b.double()
    d, n = float((a - b).norm()), float(b.norm())
    return d / n if n else d


class Compare:
    """Collects the relative differences of one configuration."""

    def __init__(self, name):
        self.name, self.figures = name, {}

    def add(self, kind, tensor_name, value):
        self.figures.setdefault(kind, []).append((value, tensor_name))

    def report(self):
        for kind, vals in self.figures.items():
            value, where = max(vals)
            worst[kind] = max(worst.get(kind, (0, "")), (value, "%s: %s" % (self.name, where)))
            check(value <= TOL, "%s: %s agree within %.0e (worst %.2e%s)"
                  % (self.name, kind, TOL, value, ", " + where if where else ""))


def compare_with_libsvk(svk_torch, name, cfg, tmp, rng, exe, device):
    """One configuration: train with svk-train (on the CPU; device "vulkan"
    takes the CPU run's checkpoint), then logits and a step on both sides.
    Returns the float64 model and its optimizer after the step, the batch
    and the configuration's folder, or None when libsvk failed."""
    from svk_torch import safetensors
    d = os.path.join(tmp, name.replace(" ", "_") + "_" + device)
    os.makedirs(d)
    n = B * T
    train_tok = [rng.randrange(SIZE["vocab"]) for _ in range(n)]
    train_tgt = [rng.randrange(SIZE["vocab"]) for _ in range(n)]
    tok = [rng.randrange(SIZE["vocab"]) for _ in range(n)]
    tgt = [rng.randrange(-1, SIZE["vocab"]) for _ in range(n)]  # some -1: positions without loss
    for f, v in (("train_tok", train_tok), ("train_tgt", train_tgt), ("tok", tok), ("tgt", tgt)):
        write_batch(os.path.join(d, f + ".bin"), v)
    ckpt = os.path.join(d, "run.safetensors")
    if device == "cpu":
        config = []
        for k, v in {**SIZE, **cfg}.items():
            config += ["--config", "%s=%s" % (k, str(v).lower())]
        p = run([exe["train"], "--device", "cpu", *config, "--tokens", os.path.join(d, "train_tok.bin"),
                 "--targets", os.path.join(d, "train_tgt.bin"), "--batch", str(B), "--seq", str(T),
                 "--steps", "4", "--warmup", "1", "--lr", str(LR), "--save", ckpt, "--no-log"])
        if not check(p.returncode == 0, "%s: svk-train trains and saves" % name):
            return None
    else:
        ckpt = os.path.join(tmp, name.replace(" ", "_") + "_cpu", "run.safetensors")

    p = run([exe["peer"], device, ckpt, os.path.join(d, "tok.bin"), os.path.join(d, "tgt.bin"), str(B), str(T),
             repr(LR), d])
    if not check(p.returncode == 0, "%s (%s): libsvk's logits and step" % (name, device)):
        return None
    svk_loss = float([l for l in p.stdout.splitlines() if l.startswith("loss ")][-1].split()[1])
    logits = safetensors.read(os.path.join(d, "logits.safetensors"))[0]["logits"]
    grads = safetensors.read(os.path.join(d, "grads.safetensors"))[0]
    after, meta = safetensors.read(os.path.join(d, "step.safetensors"))

    model = svk_torch.load(ckpt).double()
    want = svk_torch.make_config(**{**SIZE, **cfg})
    # libsvk keeps eps and theta in float32: 1e-5 comes back as 9.99999974737875e-06.
    def f32(c):
        return {k: struct.unpack("<f", struct.pack("<f", v))[0] if isinstance(v, float) else v for k, v in c.items()}
    check(f32(want) == f32(model.config), "%s: svk_torch reads the stored config" % name)
    opt = svk_torch.make_optimizer(model, lr=LR)
    svk_torch.load_optimizer(opt, model, ckpt)
    tokens = torch.tensor(tok, dtype=torch.long).view(B, T)
    targets = torch.tensor(tgt, dtype=torch.long).view(B, T)
    c = Compare("%s (%s)" % (name, device))
    with torch.no_grad():
        c.add("logits", "", rel(model(tokens), logits))
    loss, norm, applied = svk_torch.train_step(model, opt, tokens, targets, lr=LR)
    c.add("loss", "", abs(loss - svk_loss) / abs(svk_loss))
    scale = min(1.0, 1.0 / (norm + 1e-6))
    for pname, prm in model.named_parameters():
        c.add("gradients", pname, rel(prm.grad / scale, grads["grad." + pname]))
        if key_bias(pname):
            C, g = SIZE["width"], grads["grad." + pname].double()
            c.add(KEY_BIAS, pname, float((prm.grad[C:2 * C] / scale - g[C:2 * C]).norm()) / norm)
        for kind, ours, theirs in (("weights after the step", prm.detach(), after[pname]),
                                   ("moments m, v after the step", opt.state[prm]["exp_avg"],
                                    after["optimizer.m." + pname]),
                                   ("moments m, v after the step", opt.state[prm]["exp_avg_sq"],
                                    after["optimizer.v." + pname])):
            c.add(kind + " (key biases apart)", pname,
                  rel(without_key_bias(pname, ours), without_key_bias(pname, theirs)))
    step_from(svk_torch, ckpt, grads, svk_loss, after, c)
    check(applied and int(meta["svk.step"]) == int(opt.state[next(model.parameters())]["step"]) == 5,
          "%s (%s): both at update 5" % (name, device))
    c.report()
    return model, opt, tokens, targets, d


def step_from(svk_torch, ckpt, grads, svk_loss, after, c):
    """AdamW alone: PyTorch's update from the checkpoint's state with
    libsvk's gradients of the step (before clipping) gives libsvk's weights
    and moments, every element."""
    model = svk_torch.load(ckpt).double()
    opt = svk_torch.make_optimizer(model, lr=LR)
    svk_torch.load_optimizer(opt, model, ckpt)
    for pname, prm in model.named_parameters():
        prm.grad = grads["grad." + pname].double().clone()
    svk_torch.update(model, opt, svk_loss, lr=LR)
    for pname, prm in model.named_parameters():
        kind = "weights, m, v after AdamW on libsvk's gradients"
        c.add(kind, pname, rel(prm.detach(), after[pname]))
        c.add(kind, pname, rel(opt.state[prm]["exp_avg"], after["optimizer.m." + pname]))
        c.add(kind, pname, rel(opt.state[prm]["exp_avg_sq"], after["optimizer.v." + pname]))


def round_trip(svk_torch, name, model, opt, tokens, targets, d, exe):
    """svk_torch.save's files, back in libsvk."""
    from svk_torch import safetensors
    full = os.path.join(d, "torch_full.safetensors")
    svk_torch.save(model, full, optimizer=opt)
    out = os.path.join(d, "resumed")
    os.makedirs(out)
    p = run([exe["peer"], "cpu", full, os.path.join(d, "tok.bin"), os.path.join(d, "tgt.bin"), str(B), str(T),
             repr(LR), out])
    if not check(p.returncode == 0, "%s: libsvk resumes from svk_torch.save(model, optimizer=...)" % name):
        return
    svk_loss = float([l for l in p.stdout.splitlines() if l.startswith("loss ")][-1].split()[1])
    after, meta = safetensors.read(os.path.join(out, "step.safetensors"))
    with torch.no_grad():
        lg = rel(model(tokens), safetensors.read(os.path.join(out, "logits.safetensors"))[0]["logits"])
    loss, _, _ = svk_torch.train_step(model, opt, tokens, targets, lr=LR)
    wr = max(rel(without_key_bias(pn, prm.detach()), without_key_bias(pn, after[pn]))
             for pn, prm in model.named_parameters())
    check(lg <= TOL and abs(loss - svk_loss) <= TOL * abs(svk_loss) and wr <= TOL and meta["svk.step"] == "6",
          "%s: ... and its next step is PyTorch's (logits %.2e, loss %.2e, weights %.2e, update %s)"
          % (name, lg, abs(loss - svk_loss) / abs(svk_loss), wr, meta["svk.step"]))

    weights = os.path.join(d, "torch_weights.safetensors")
    svk_torch.save(model, weights)
    full_size, weights_size = os.path.getsize(full), os.path.getsize(weights)
    out = os.path.join(d, "from_weights")
    os.makedirs(out)
    p = run([exe["peer"], "cpu", weights, os.path.join(d, "tok.bin"), os.path.join(d, "tgt.bin"), str(B), str(T),
             repr(LR), out, "--weights-only"])
    check(p.returncode == 0 and abs(weights_size * 3 - full_size) < 4096,
          "%s: libsvk opens and trains svk_torch.save(model), weights only (%d bytes, with moments %d)"
          % (name, weights_size, full_size))
    p = run([exe["peer"], "cpu", weights, os.path.join(d, "tok.bin"), os.path.join(d, "tgt.bin"), str(B), str(T),
             repr(LR), out])
    check(p.returncode != 0 and "no valid optimiser step" in p.stdout,
          "%s: libsvk refuses to resume from weights only" % name)
    try:
        svk_torch.load_optimizer(opt, model, weights)
        check(False, "%s: svk_torch.load_optimizer refuses weights only" % name)
    except ValueError as e:
        check("no optimizer state" in str(e), "%s: svk_torch.load_optimizer refuses weights only: %s" % (name, e))


def main():
    args = sys.argv[1:]
    seed = take_seed(args)
    vulkan = "--vulkan" in args
    args = [a for a in args if a != "--vulkan"]
    if len(args) != 3:
        print(__doc__)
        return 2
    exe = {"train": args[0], "peer": args[1]}
    sys.path.insert(0, args[2])
    if torch is None:
        print("FAIL PyTorch is not importable by %s (%s): install Debian's python3-torch and python3-numpy "
              "(scripts/setup.sh), or configure with -Dtorch=disabled to leave this test out"
              % (sys.executable, torch_missing))
        return 1
    import svk_torch
    print("seed: %d (repeat with --seed %d); PyTorch %s" % (seed, seed, torch.__version__))
    rng = random.Random(seed)
    torch.manual_seed(seed)
    with tempfile.TemporaryDirectory(prefix="svk-torch-") as tmp:
        for i, (name, cfg) in enumerate(FIVE + sweep()):
            r = compare_with_libsvk(svk_torch, name, cfg, tmp, rng, exe, "cpu")
            if r and i == 0:
                round_trip(svk_torch, name, *r, exe)
        if vulkan:
            for name, cfg in FIVE:
                compare_with_libsvk(svk_torch, name, cfg, tmp, rng, exe, "vulkan")
    for kind, (value, where) in sorted(worst.items()):
        print("worst %s: %.2e (%s)" % (kind, value, where))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
