"""libsvk's model in PyTorch.

    import svk_torch
    model = svk_torch.load("run.safetensors")      # an nn.Module
    logits = model(tokens)                         # int64 [B, T] -> [B, T, vocab]
    svk_torch.save(model, "out.safetensors")       # libsvk opens and trains on it

The network is docs/MODEL.md's, for every configuration it allows; training
as libsvk trains (its loss, AdamW groups, clipping) is in ``train_step``.
Pure Python on PyTorch: nothing compiled, nothing fetched.
"""

from .checkpoint import load, load_optimizer, save
from .config import make_config
from .model import SvkModel
from .train import lm_loss, make_optimizer, train_step, update

__all__ = ["load", "load_optimizer", "save", "make_config", "SvkModel", "lm_loss", "make_optimizer",
           "train_step", "update"]
