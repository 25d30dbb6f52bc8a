"""The model (svk/model.h): create or open, train, evaluate, generate, save."""
import ctypes as C
import json

import numpy as np

from . import _arrays as A
from . import _structs as S
from ._handle import Owned
from ._lib import ERROR_INVALID_ARG, Error, check, cstr, lib

_BACKEND_VULKAN, _BACKEND_CPU = 0, 1
_LOAD_OPTIMIZER = 1 << 0
_LR_SHAPES = {"cosine": 0, "constant": 1, "wsd": 2}


def config_value(v):
    """A configuration value as svk_model_config_set's text: true/false for bools, else str()."""
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def lr_schedule(step, total, peak, warmup=0, shape="cosine", decay_frac=0.2):
    """The learning rate of update `step` (0-based) of `total`, as svk_lr_schedule_ex computes it (svk-train's
    --schedule, --warmup, --lr, --decay-frac): the same float, so a loop here gives svk-train's rates."""
    L = lib()
    p = L.svk_lr_params_default()
    if shape not in _LR_SHAPES:
        raise Error(ERROR_INVALID_ARG, "lr shape %r: cosine, constant or wsd" % (shape,))
    p.shape, p.total, p.warmup, p.peak, p.decay_frac = _LR_SHAPES[shape], total, warmup, peak, decay_frac
    lr = C.c_float()
    check(L.svk_lr_schedule_ex(C.byref(p), step, C.byref(lr)))
    return lr.value


class Model(Owned):
    """A model with its weights, gradients and AdamW state, on a Context's device or (ctx None) on libsvk's
    CPU reference. Made by Model.create or Model.open; closed by close() or a with block. One thread at a
    time, as its context.
    """

    def __init__(self, handle, ctx):
        # Not for callers: Model.create and Model.open make models.
        self._h = handle
        self._ctx = ctx  # held: a context must outlive its models
        if ctx is not None:
            ctx._models.add(self)

    @classmethod
    def create(cls, ctx=None, config=None, seed=1, clip=1.0, weight_decay=0.1, max_submit_ms=None,
               recompute=False, precision="fp32"):
        """A new model, initialised from seed. config: a dict of docs/MODEL.md's keys (svk-train's --config
        KEY=VALUE, e.g. {"layers": 2, "width": 32, "pos": "rope"}) over svk_model_config_default(); clip,
        weight_decay, recompute and precision ("fp32", "fp16", "bf16") as svk-train's --clip, --wd,
        --recompute and --precision; max_submit_ms None keeps libsvk's default."""
        L = lib()
        p = L.svk_model_params_default()
        for key, value in (config or {}).items():
            check(L.svk_model_config_set(C.byref(p.config), cstr(key), cstr(config_value(value))))
        p.seed = seed
        p.optimizer.max_norm = clip
        p.optimizer.weight_decay = weight_decay
        if max_submit_ms is not None:
            p.max_submit_ms = max_submit_ms
        p.recompute = recompute
        prec = C.c_int()
        check(L.svk_precision_parse(cstr(precision), C.byref(prec)))
        p.precision = prec.value
        if ctx is None:
            p.backend = _BACKEND_CPU
        else:
            p.backend, p.ctx = _BACKEND_VULKAN, ctx.handle
        h = C.c_void_p()
        check(L.svk_model_create(C.byref(p), C.byref(h)), p.ctx)
        return cls(h, ctx)

    @classmethod
    def open(cls, path, ctx=None, optimizer=False):
        """The model a checkpoint holds, with its configuration (svk_model_open); optimizer=True also takes
        its AdamW moments and step, which a --save checkpoint holds and an --export does not."""
        h = C.c_void_p()
        check(lib().svk_model_open(ctx.handle if ctx else None, cstr(path), _LOAD_OPTIMIZER if optimizer else 0,
                                   C.byref(h)), ctx.handle if ctx else None)
        return cls(h, ctx)

    @property
    def handle(self):
        if self._h is None:
            raise ValueError("the model is closed")
        return self._h

    def _check(self, status):
        check(status, self._ctx.handle if self._ctx is not None and self._ctx._h is not None else None)

    @property
    def config(self):
        """The configuration as the JSON object a checkpoint stores (every key of docs/MODEL.md), a dict."""
        buf = C.create_string_buffer(4096)
        self._check(lib().svk_model_config_to_json(lib().svk_model_get_config(self.handle), buf, len(buf)))
        return json.loads(buf.value.decode())

    @property
    def param_count(self):
        return int(lib().svk_model_param_count(self.handle))

    @property
    def step(self):
        """Updates applied so far (a skipped non-finite step does not count)."""
        return int(lib().svk_model_step(self.handle))

    def train_step(self, tokens, targets, lr, accum=1):
        """One training step on tokens and targets, int [B, T] (a target of -1 carries no loss), at learning
        rate lr; accum > 1 takes it as that many micro-batches of B / accum rows. Returns the step's loss (a
        float32's value). A non-finite step changes nothing: last_step()["skipped"] says so."""
        tok, tgt, B, T = A.batch(tokens, targets)
        loss = C.c_float()
        self._check(lib().svk_model_train_step_accum(self.handle, A.ptr_i32(tok), A.ptr_i32(tgt), B, T, accum, lr,
                                                     C.byref(loss)))
        return loss.value

    def last_step(self):
        """The last step's loss, grad_norm (before clipping), clip_scale, valid_targets, skipped and step."""
        info = S.StepInfo()
        self._check(lib().svk_model_last_step(self.handle, C.byref(info)))
        return S.to_dict(info)

    def eval_loss(self, tokens, targets):
        """The batch's mean loss, the model unchanged."""
        tok, tgt, B, T = A.batch(tokens, targets)
        loss = C.c_float()
        self._check(lib().svk_model_eval_loss(self.handle, A.ptr_i32(tok), A.ptr_i32(tgt), B, T, C.byref(loss)))
        return loss.value

    def logits(self, tokens):
        """The logits of tokens [B, T]: a float32 array [B, T, vocab]."""
        tok = A.int32(tokens, "tokens", 2)
        B, T = tok.shape
        out = np.empty((B, T, self.config["vocab"]), dtype=np.float32)
        self._check(lib().svk_model_forward_logits(self.handle, A.ptr_i32(tok), B, T, A.ptr_f32(out)))
        return out

    def generate(self, prompt, max_new, temperature=0.0, top_k=0, top_p=1.0, seed=1, stop_token=-1, stop=(),
                 no_cache=False):
        """Up to max_new tokens continuing prompt (int tokens, 1-D; for a byte-level model, bytes or str
        too), as svk_model_generate_ex: greedy at temperature 0, else sampled with top_k, top_p and seed;
        stop after stop_token or once the output ends with one of the stop strings. Returns the new tokens,
        an int32 array."""
        if isinstance(prompt, str):
            prompt = prompt.encode()
        if isinstance(prompt, (bytes, bytearray)):
            prompt = np.frombuffer(bytes(prompt), dtype=np.uint8)
        tok = A.int32(prompt, "prompt", 1)
        L = lib()
        p = L.svk_generate_params_default()
        p.temperature, p.top_k, p.top_p, p.seed, p.stop_token, p.no_cache = (temperature, top_k, top_p, seed,
                                                                             stop_token, no_cache)
        stops = [s.encode() if isinstance(s, str) else bytes(s) for s in stop]
        arr = (C.c_char_p * max(len(stops), 1))(*stops)
        if stops:
            p.stop, p.n_stop = arr, len(stops)
        out = np.empty(max(max_new, 1), dtype=np.int32)
        n = C.c_uint32()
        self._check(L.svk_model_generate_ex(self.handle, A.ptr_i32(tok), len(tok), max_new, C.byref(p),
                                            A.ptr_i32(out), C.byref(n)))
        return out[:n.value].copy()

    def save(self, path, optimizer=False):
        """Writes a safetensors checkpoint atomically; optimizer=True adds the AdamW moments and the step
        (svk-train --resume's form), without it the weights and configuration alone (--export's)."""
        self._check(lib().svk_model_save(self.handle, cstr(path), optimizer))

    def load(self, path, optimizer=False):
        """Replaces the weights (and with optimizer the AdamW state) from a checkpoint of the same
        configuration; on any error the model is unchanged."""
        self._check(lib().svk_model_load(self.handle, cstr(path), optimizer))

    def close(self):
        """Frees the model; a second call does nothing."""
        if self._h is None:
            return
        lib().svk_model_destroy(C.byref(self._h))
        self._h = None
        self._ctx = None
