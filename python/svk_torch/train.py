"""Training as libsvk trains (docs/MODEL.md, "Output and loss" and
"Optimiser"): the loss over counted targets, AdamW with weight decay on the
2-D weights only, clipping by the global gradient norm, and no update at all
for a step that is not finite."""

import math

import torch


def lm_loss(logits, targets):
    """Mean cross-entropy of logits [B, T, V] over the positions whose
    target is >= 0; -1 marks a position without loss. A batch without one
    counted target has loss 0 (and zero gradients)."""
    V = logits.shape[-1]
    if targets.numel() and (targets.min() < -1 or targets.max() >= V):
        raise ValueError("a target lies outside [-1, %d)" % V)
    counted = targets >= 0
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    total = -(picked * counted).sum()
    return total / max(int(counted.sum()), 1)


def make_optimizer(model, lr=3e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1):
    """torch.optim.AdamW with libsvk's defaults and groups: weight decay on
    every 2-D weight (Linear weights, wte, wpe, lm_head), none on norms and
    biases."""
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.dim() == 2], "weight_decay": weight_decay},
              {"params": [p for p in params if p.dim() != 2], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=betas, eps=eps)


def train_step(model, optimizer, tokens, targets, lr=None, max_norm=1.0):
    """One training step on a batch (int64 tokens and targets [B, T]): the
    loss, its gradients, then ``update``. Returns ``(loss, n, applied)`` as
    ``update`` does."""
    optimizer.zero_grad(set_to_none=False)
    loss = lm_loss(model(tokens), targets)
    loss.backward()
    n, applied = update(model, optimizer, float(loss), lr, max_norm)
    return float(loss), n, applied


def update(model, optimizer, loss, lr=None, max_norm=1.0):
    """The update from the gradients in each parameter's ``.grad``, as
    libsvk applies it after a step's backward pass whose loss was ``loss``.

    The gradients are scaled by min(1, max_norm / (n + 1e-6)), n their
    global L2 norm (max_norm 0: no clipping), before AdamW's update at
    learning rate lr (None: the optimizer's). Returns ``(n, applied)``: a
    step whose loss or n^2 is not finite changes neither the weights nor
    the optimizer's state (the gradients are zeroed), and reports applied
    False.
    """
    grads = [p.grad for p in model.parameters()]
    # In the gradients' precision: a float32 model overflows where libsvk's does.
    sq = float(sum((g * g).sum() for g in grads))
    n = math.sqrt(sq)
    if not (math.isfinite(loss) and math.isfinite(sq)):
        optimizer.zero_grad(set_to_none=False)
        return n, False
    if max_norm > 0:
        scale = min(1.0, max_norm / (n + 1e-6))
        for g in grads:
            g.mul_(scale)
    if lr is not None:
        for group in optimizer.param_groups:
            group["lr"] = lr
    optimizer.step()
    return n, True
