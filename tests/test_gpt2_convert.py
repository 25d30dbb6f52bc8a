#!/usr/bin/env python3
"""svk-convert against GPT-2 as published (tools/convert, svk/convert.h).

usage: test_gpt2_convert.py SVK_CONVERT SVK_TRAIN TORCH_PEER [--seed N] [--vulkan]

- A random GPT-2 file in Hugging Face's layout (GPT2LMHeadModel's names
  under "transformer.", Conv1D weights [in, out], fused c_attn, the
  attention-mask buffers, a tied lm_head) goes through svk-convert
  --from-gpt2; libsvk's logits of it (tests/torch_peer.c, on the CPU
  reference and, with --vulkan, on the device) agree within 1e-5 with a
  plain GPT-2 forward written below from the published architecture, in
  float64, that reads the GPT-2 file itself.
- The same weights as F16 and as BF16 under bare names become exactly
  their float32 values, transposed where libsvk's layout wants it.
- A pre-norm checkpoint svk-train made goes out (--to-gpt2) in the
  published layout, whose logits through the GPT-2 forward are libsvk's,
  and back (--from-gpt2): every tensor and the configuration as they were,
  to the bit.
- Siamese and post checkpoints are refused, saying why; so are bad inputs,
  each named, and an existing output is kept unless --force.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError as e:  # reported by main(), as a failure
    torch, torch_missing = None, e

from pytally import check, summary, take_seed

TOL = 1e-5
# The random GPT-2: awkward sizes (a prime vocabulary), 4 heads of 16.
L, C, H, V, CTX = 2, 64, 4, 97, 32
B, T = 2, CTX


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p


# --- safetensors, as Hugging Face writes it -------------------------------

DTYPES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "I32": "int32"}


def st_write(path, tensors, metadata=None):
    """tensors: name -> (dtype name, torch tensor of that dtype)."""
    header = {"__metadata__": metadata} if metadata else {}
    chunks, offset = [], 0
    for name, t in tensors.items():
        raw = t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
                                  torch.int32: "I32"}[t.dtype],
                        "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def st_read(path):
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = blob[8 + n:]
    out = {}
    for name, e in header.items():
        b0, b1 = e["data_offsets"]
        t = torch.frombuffer(bytearray(data[b0:b1]), dtype=getattr(torch, DTYPES[e["dtype"]]))
        out[name] = (e["dtype"], t.reshape(e["shape"]))
    return out, meta


# --- GPT-2, from the published architecture -------------------------------

def gpt2_logits(sd, tokens, heads):
    """GPT-2's forward (Radford et al. 2019; the released code): pre-norm
    blocks, Conv1D layers x @ W + b with W [in, out], fused q|k|v, causal
    softmax attention, tanh GELU, LayerNorm with eps 1e-5, the output layer
    tied to wte. sd: bare names to float64 tensors."""
    Bn, Tn = tokens.shape
    Cn = sd["wte.weight"].shape[1]
    D = Cn // heads
    layers = 1 + max(int(k.split(".")[1]) for k in sd if k.startswith("h."))

    def ln(x, p):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + 1e-5) * sd[p + ".weight"] + sd[p + ".bias"]

    def conv1d(x, p):
        return x @ sd[p + ".weight"] + sd[p + ".bias"]

    mask = torch.ones(Tn, Tn, dtype=torch.bool).tril()
    x = sd["wte.weight"][tokens] + sd["wpe.weight"][:Tn]
    for l in range(layers):
        p = "h.%d." % l
        q, k, v = conv1d(ln(x, p + "ln_1"), p + "attn.c_attn").split(Cn, dim=2)
        q, k, v = (t.view(Bn, Tn, heads, D).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D)
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(Bn, Tn, Cn)
        x = x + conv1d(y, p + "attn.c_proj")
        m = conv1d(ln(x, p + "ln_2"), p + "mlp.c_fc")
        m = 0.5 * m * (1 + torch.tanh(math.sqrt(2 / math.pi) * (m + 0.044715 * m ** 3)))
        x = x + conv1d(m, p + "mlp.c_proj")
    return ln(x, "ln_f") @ sd["wte.weight"].T


def rel(a, b):
    a, b = a.double(), b.double()
    d, n = float((a - b).norm()), float(b.norm())
    return d / n if n else d


def random_gpt2(gen):
    """A GPT-2 state dict, bare names, float32, of the sizes above. Larger
    than GPT-2's initialisation so that every part moves the logits."""
    def r(*shape, scale=0.1, mean=0.0):
        return (mean + scale * torch.randn(*shape, generator=gen)).float()
    sd = {"wte.weight": r(V, C, scale=0.3), "wpe.weight": r(CTX, C, scale=0.3)}
    for l in range(L):
        p = "h.%d." % l
        sd.update({
            p + "ln_1.weight": r(C, mean=1.0), p + "ln_1.bias": r(C),
            p + "attn.c_attn.weight": r(C, 3 * C, scale=0.2), p + "attn.c_attn.bias": r(3 * C),
            p + "attn.c_proj.weight": r(C, C), p + "attn.c_proj.bias": r(C),
            p + "ln_2.weight": r(C, mean=1.0), p + "ln_2.bias": r(C),
            p + "mlp.c_fc.weight": r(C, 4 * C), p + "mlp.c_fc.bias": r(4 * C),
            p + "mlp.c_proj.weight": r(4 * C, C), p + "mlp.c_proj.bias": r(C),
        })
    sd["ln_f.weight"], sd["ln_f.bias"] = r(C, mean=1.0), r(C)
    return sd


def hf_file(sd, prefix="transformer.", lm_head=True, buffers=True, dtype=torch.float32):
    """The state dict as Hugging Face saves it: GPT2LMHeadModel's names and
    tied lm_head, the attention masks older files carry."""
    out = {prefix + k: v.to(dtype) for k, v in sd.items()}
    if buffers:
        for l in range(L):
            out[prefix + "h.%d.attn.bias" % l] = torch.ones(1, 1, CTX, CTX).tril().to(dtype)
            out[prefix + "h.%d.attn.masked_bias" % l] = torch.tensor(-1e4).to(dtype)
    if lm_head:
        out["lm_head.weight"] = sd["wte.weight"].to(dtype)
    return out


def svk_name(hf):
    """libsvk's name of a GPT-2 parameter, and whether it is a Conv1D weight."""
    table = [("ln_1.", "attn_norm."), ("attn.c_attn.", "attn.qkv."), ("attn.c_proj.", "attn.proj."),
             ("ln_2.", "mlp_norm."), ("mlp.c_fc.", "mlp.fc."), ("mlp.c_proj.", "mlp.proj.")]
    if hf.startswith("h."):
        _, l, rest = hf.split(".", 2)
        for a, b in table:
            if rest.startswith(a):
                return "blocks.%s.%s%s" % (l, b, rest[len(a):]), rest.endswith("weight") and not a.startswith("ln")
    return hf.replace("ln_f.", "norm_f."), False


def write_batch(path, values):
    with open(path, "wb") as f:
        f.write(struct.pack("<%di" % len(values), *values))


def peer_logits(exe, device, ckpt, d, tok, t):
    """libsvk's logits of the B x t tokens in file tok (tests/torch_peer.c)."""
    out = os.path.join(d, "peer_" + device + "_" + os.path.basename(ckpt))
    os.makedirs(out, exist_ok=True)
    p = run([exe["peer"], device, ckpt, tok, tok, str(B), str(t), "0.001", out, "--weights-only"])
    if p.returncode:
        print(p.stdout, end="")
        return None
    return st_read(os.path.join(out, "logits.safetensors"))[0]["logits"][1]


def convert(exe, *args):
    return run([exe["convert"], *args])


def test_import(exe, tmp, gen, rng, vulkan):
    sd = random_gpt2(gen)
    gpt2 = os.path.join(tmp, "gpt2.safetensors")
    st_write(gpt2, hf_file(sd), {"format": "pt"})
    ckpt = os.path.join(tmp, "from_gpt2.safetensors")
    p = convert(exe, "--from-gpt2", gpt2, ckpt, "--heads", str(H))
    if not check(p.returncode == 0, "svk-convert --from-gpt2 a GPT2LMHeadModel file: %s" % p.stdout.strip()):
        return
    tok = [rng.randrange(V) for _ in range(B * T)]
    tok_path = os.path.join(tmp, "tok.bin")
    write_batch(tok_path, tok)
    tokens = torch.tensor(tok).view(B, T)
    want = gpt2_logits({k: v.double() for k, v in sd.items()}, tokens, H)
    for device in ["cpu"] + (["vulkan"] if vulkan else []):
        got = peer_logits(exe, device, ckpt, tmp, tok_path, T)
        if check(got is not None, "libsvk (%s) opens it and gives its logits" % device):
            r = rel(got, want)
            check(r <= TOL, "libsvk's logits (%s) are GPT-2's, written from the published architecture, within "
                  "%.0e: %.2e" % (device, TOL, r))

    # F16 and BF16, bare names (GPT2Model's), no lm_head or buffers; heads
    # left to the default, width / 64.
    for dtype, name in ((torch.float16, "F16"), (torch.bfloat16, "BF16")):
        path = os.path.join(tmp, "gpt2_%s.safetensors" % name)
        st_write(path, hf_file(sd, prefix="", lm_head=False, buffers=False, dtype=dtype))
        out = os.path.join(tmp, "from_%s.safetensors" % name)
        p = convert(exe, "--from-gpt2", path, out)
        if not check(p.returncode == 0, "svk-convert --from-gpt2 a %s file, bare names: %s" % (name, p.stdout.strip())):
            continue
        got, meta = st_read(out)
        config = json.loads(meta["svk.config"])
        bad = []
        for k, v in sd.items():
            sname, conv = svk_name(k)
            exact = v.to(dtype).float()
            exact = exact.T.contiguous() if conv else exact
            if sname not in got or got[sname][0] != "F32" or not torch.equal(got[sname][1], exact):
                bad.append(sname)
        check(not bad and len(got) == len(sd), "%s: every tensor is its exact float32 value, Conv1D weights "
              "transposed (%d tensors%s)" % (name, len(got), ", wrong: " + ", ".join(bad) if bad else ""))
        check(config["heads"] == C // 64 and config["placement"] == "pre" and config["layers"] == L and
              config["vocab"] == V and config["ctx"] == CTX and config["width"] == C,
              "%s: the shape from the tensors, heads width / 64 by default: %s" % (name, meta["svk.config"]))


def train(exe, tmp, name, placement, rng):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    tok = os.path.join(d, "tok.bin")
    ckpt = os.path.join(d, "run.safetensors")
    config = []
    for kv in ("placement=" + placement, "pos=learned", "width=32", "heads=2", "layers=2", "ctx=16", "vocab=61"):
        config += ["--config", kv]
    write_batch(tok, [rng.randrange(61) for _ in range(4 * 16)])
    p = run([exe["train"], "--device", "cpu", *config, "--tokens", tok, "--targets", tok, "--batch", "4",
             "--seq", "16", "--steps", "3", "--lr", "0.01", "--save", ckpt, "--no-log"])
    if not check(p.returncode == 0, "svk-train makes a %s checkpoint" % placement):
        print(p.stdout, end="")
        return None
    return ckpt


def test_round_trip(exe, tmp, rng):
    ckpt = train(exe, tmp, "pre", "pre", rng)
    if not ckpt:
        return
    gpt2 = os.path.join(tmp, "pre", "gpt2.safetensors")
    p = convert(exe, "--to-gpt2", ckpt, gpt2)
    if not check(p.returncode == 0, "svk-convert --to-gpt2 a pre-norm checkpoint (with optimiser state): %s"
                 % p.stdout.strip()):
        print(p.stdout, end="")
        return
    orig, orig_meta = st_read(ckpt)
    out, out_meta = st_read(gpt2)
    config = json.loads(orig_meta["svk.config"])
    Cn, Vn, Ln = config["width"], config["vocab"], config["layers"]
    want = {"wte.weight": [Vn, Cn], "wpe.weight": [config["ctx"], Cn], "ln_f.weight": [Cn], "ln_f.bias": [Cn]}
    for l in range(Ln):
        for n, shape in (("ln_1", [Cn]), ("ln_2", [Cn]), ("attn.c_attn", [Cn, 3 * Cn]), ("attn.c_proj", [Cn, Cn]),
                         ("mlp.c_fc", [Cn, 4 * Cn]), ("mlp.c_proj", [4 * Cn, Cn])):
            want["h.%d.%s.weight" % (l, n)] = shape
            want["h.%d.%s.bias" % (l, n)] = [shape[-1]]
    got = {k: list(v[1].shape) for k, v in out.items()}
    check(got == want and all(v[0] == "F32" for v in out.values()) and out_meta == {"format": "pt"},
          "the GPT-2 file has the published layout: bare names, Conv1D weights [in, out], F32, no lm_head, "
          "metadata {format: pt} (%d tensors)" % len(out))

    # Its logits through the GPT-2 forward are libsvk's of the checkpoint.
    tok = os.path.join(tmp, "pre", "tok16.bin")
    toks = [rng.randrange(Vn) for _ in range(B * config["ctx"])]
    write_batch(tok, toks)
    lg = peer_logits(exe, "cpu", ckpt, os.path.join(tmp, "pre"), tok, config["ctx"])
    if check(lg is not None, "libsvk's logits of the pre-norm checkpoint"):
        ref = gpt2_logits({k: v[1].double() for k, v in out.items()}, torch.tensor(toks).view(B, -1),
                          config["heads"])
        r = rel(lg, ref)
        check(r <= TOL, "the exported file through GPT-2's forward gives libsvk's logits within %.0e: %.2e" % (TOL, r))

    back = os.path.join(tmp, "pre", "back.safetensors")
    p = convert(exe, "--from-gpt2", gpt2, back, "--heads", str(config["heads"]))
    if not check(p.returncode == 0, "... and back with --from-gpt2: %s" % p.stdout.strip()):
        print(p.stdout, end="")
        return
    again, again_meta = st_read(back)
    weights = {k: v for k, v in orig.items() if not k.startswith("optimizer.")}
    same = sorted(again) == sorted(weights) and all(
        again[k][0] == "F32" and again[k][1].shape == v[1].shape and
        again[k][1].view(torch.int32).equal(v[1].view(torch.int32)) for k, v in weights.items())
    check(same, "out and back: every weight bit-identical (%d tensors; the optimiser state is left out)" % len(again))
    check(json.loads(again_meta["svk.config"]) == config,
          "out and back: the same configuration: %s" % again_meta["svk.config"])


def test_refusals(exe, tmp, rng):
    for placement in ("siamese", "post"):
        ckpt = train(exe, tmp, placement, placement, rng)
        if not ckpt:
            continue
        out = os.path.join(tmp, placement, "gpt2.safetensors")
        p = convert(exe, "--to-gpt2", ckpt, out)
        check(p.returncode == 1 and "placement=%s" % placement in p.stdout and "svk_torch" in p.stdout and
              not os.path.exists(out), "a %s checkpoint is refused, saying why: %s" % (placement, p.stdout.strip()))


def test_bad_input(exe, tmp, gen):
    sd = random_gpt2(gen)
    d = os.path.join(tmp, "bad")
    os.makedirs(d)
    out = os.path.join(d, "out.safetensors")

    def refused(what, tensors, needle, *args, raw=None):
        path = os.path.join(d, what.replace(" ", "_") + ".safetensors")
        if raw is not None:
            open(path, "wb").write(raw)
        elif tensors is not None:
            st_write(path, tensors)
        p = convert(exe, "--from-gpt2", path, out, *args)
        check(p.returncode == 1 and needle in p.stdout and not os.path.exists(out),
              "%s: refused, exit %d: %s" % (what, p.returncode, p.stdout.strip()))

    refused("missing file", None, "cannot open")
    good = os.path.join(d, "good.safetensors")
    st_write(good, hf_file(sd))
    blob = open(good, "rb").read()
    refused("truncated file", None, "truncated", raw=blob[:len(blob) - 100])
    refused("not safetensors", None, "not valid JSON", raw=b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}")
    t = hf_file(sd)
    t["transformer.h.1.attn.c_attn.bias"] = t["transformer.h.1.attn.c_attn.bias"][:-1].clone()
    refused("c_attn.bias one short", t, "'transformer.h.1.attn.c_attn.bias' has shape [191]", "--heads", "4")
    t = hf_file(sd)
    t["transformer.h.0.mlp.c_proj.weight"] = t["transformer.h.0.mlp.c_proj.weight"].T.contiguous()
    refused("c_proj stored [out, in]", t, "'transformer.h.0.mlp.c_proj.weight' has shape [64, 256]", "--heads", "4")
    t = hf_file(sd)
    t["lm_head.weight"] = t["lm_head.weight"] * 2
    refused("untied lm_head", t, "'lm_head.weight' differs from wte.weight", "--heads", "4")
    t = hf_file(sd)
    t["transformer.ln_f.bias"] = torch.zeros(C, dtype=torch.int32)
    refused("I32 weight", t, "'transformer.ln_f.bias' is I32", "--heads", "4")
    t = hf_file(sd)
    t["transformer.h.0.attn.c_attn.lora_A"] = torch.zeros(4, C)
    refused("a foreign tensor", t, "'transformer.h.0.attn.c_attn.lora_A' is not one of a 2-layer GPT-2's",
            "--heads", "4")
    t = hf_file(sd)
    del t["transformer.h.1.ln_2.bias"]
    refused("a missing tensor", t, "'transformer.h.1.ln_2.bias' is missing", "--heads", "4")
    refused("heads not dividing the width", hf_file(sd), "heads 5 does not divide the width 64", "--heads", "5")

    with open(out, "wb") as f:
        f.write(b"the user's file")
    p = convert(exe, "--from-gpt2", good, out, "--heads", "4")
    check(p.returncode == 1 and "exists" in p.stdout and open(out, "rb").read() == b"the user's file",
          "an existing output is kept: %s" % p.stdout.strip())
    p = convert(exe, "--from-gpt2", good, out, "--heads", "4", "--force")
    check(p.returncode == 0 and open(out, "rb").read() != b"the user's file", "... and replaced with --force")
    p = convert(exe, good, out)
    check(p.returncode == 2 and "--from-gpt2 or --to-gpt2" in p.stdout,
          "no direction: exit 2, %s" % (p.stdout.splitlines() or [""])[0])


def main():
    args = sys.argv[1:]
    seed = take_seed(args)
    vulkan = "--vulkan" in args
    args = [a for a in args if a != "--vulkan"]
    if len(args) != 3:
        print(__doc__)
        return 2
    if torch is None:
        print("FAIL PyTorch is not importable by %s (%s): install Debian's python3-torch and python3-numpy "
              "(scripts/setup.sh), or configure with -Dtorch=disabled to leave this test out"
              % (sys.executable, torch_missing))
        return 1
    exe = {"convert": args[0], "train": args[1], "peer": args[2]}
    print("seed: %d (repeat with --seed %d); PyTorch %s" % (seed, seed, torch.__version__))
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    with tempfile.TemporaryDirectory(prefix="svk-gpt2-") as tmp:
        test_import(exe, tmp, gen, rng, vulkan)
        test_round_trip(exe, tmp, rng)
        test_refusals(exe, tmp, rng)
        test_bad_input(exe, tmp, gen)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
