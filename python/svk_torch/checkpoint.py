"""libsvk checkpoints (docs/MODEL.md, "What a checkpoint holds") to and
from PyTorch: the weights under their model names, the configuration in
``svk.config``, and optionally AdamW's moments (``optimizer.m.<name>``,
``optimizer.v.<name>``) with the update count ``svk.step``."""

import torch

from . import safetensors
from .config import config_from_json, config_to_json
from .model import SvkModel

_M, _V = "optimizer.m.", "optimizer.v."


def _read(path):
    tensors, meta = safetensors.read(path)
    if "svk.config" not in meta:
        raise ValueError("%s: no svk.config in its metadata (not an svk checkpoint?)" % path)
    return tensors, meta


def load(path):
    """The model saved at ``path``, as an ``SvkModel`` in float32 on the CPU,
    built from the configuration the file holds. Every weight must be there
    in its shape, and nothing else but optimizer state."""
    tensors, meta = _read(path)
    model = SvkModel(config_from_json(meta["svk.config"]))
    weights = {k: v for k, v in tensors.items() if not k.startswith((_M, _V))}
    expected = model.state_dict()
    missing = sorted(set(expected) - set(weights))
    extra = sorted(set(weights) - set(expected))
    if missing or extra:
        raise ValueError("%s: tensors do not match its configuration (missing: %s; unexpected: %s)"
                         % (path, ", ".join(missing) or "none", ", ".join(extra) or "none"))
    for name, t in weights.items():
        if t.dtype != torch.float32 or t.shape != expected[name].shape:
            raise ValueError("%s: tensor %s is %s %s, the configuration needs float32 %s"
                             % (path, name, t.dtype, list(t.shape), list(expected[name].shape)))
    model.load_state_dict(weights)
    return model


def load_optimizer(optimizer, model, path):
    """Fills ``optimizer`` (from ``svk_torch.make_optimizer(model)``) with the
    AdamW moments and update count saved at ``path``, so that training goes
    on where libsvk left it. A file saved without them (an export, weights
    only) is refused."""
    tensors, meta = _read(path)
    if "svk.step" not in meta:
        raise ValueError("%s holds no optimizer state (weights only, an export): it cannot resume a run" % path)
    step = int(meta["svk.step"])
    for name, p in model.named_parameters():
        if _M + name not in tensors or _V + name not in tensors:
            raise ValueError("%s: optimizer state of %s is missing" % (path, name))
        # float64 count: a float32 one would round past 2^24 updates.
        optimizer.state[p] = {
            "step": torch.tensor(float(step), dtype=torch.float64),
            "exp_avg": tensors[_M + name].to(device=p.device, dtype=p.dtype).reshape(p.shape).clone(),
            "exp_avg_sq": tensors[_V + name].to(device=p.device, dtype=p.dtype).reshape(p.shape).clone(),
        }


def save(model, path, optimizer=None, metadata=None):
    """Saves ``model`` (an ``SvkModel``) at ``path`` as a checkpoint libsvk
    opens, generates from and trains on, in float32. With ``optimizer`` (the
    model's AdamW), its moments and update count go too, and libsvk resumes
    the run from them (``svk_model_load`` with the optimizer, ``svk-train
    --resume``). ``metadata``: more str to str entries, whose keys must not
    begin with ``svk.`` or be ``format``. Non-finite weights are refused, as
    libsvk refuses them."""
    meta = {"svk.config": config_to_json(model.config), "format": "pt"}
    for k in metadata or {}:
        if k == "format" or k.startswith("svk."):
            raise ValueError("metadata key %r is libsvk's own" % k)
        meta[k] = metadata[k]
    tensors = {name: p.detach().float() for name, p in model.named_parameters()}
    if optimizer is not None:
        steps = set()
        for name, p in model.named_parameters():
            state = optimizer.state.get(p, {})
            steps.add(int(state["step"]) if "step" in state else 0)
            tensors[_M + name] = state["exp_avg"].detach().float() if state else torch.zeros_like(tensors[name])
            tensors[_V + name] = state["exp_avg_sq"].detach().float() if state else torch.zeros_like(tensors[name])
        if len(steps) != 1:
            raise ValueError("the optimizer's parameters are at different steps %s: libsvk keeps one count"
                             % sorted(steps))
        meta["svk.step"] = str(steps.pop())
    for name, t in tensors.items():
        bad = ~torch.isfinite(t)
        if bad.any():
            i = int(bad.flatten().nonzero()[0])
            raise ValueError("tensor %s holds %g at element %d: not saved" % (name, t.flatten()[i], i))
    safetensors.write(path, tensors, meta)
