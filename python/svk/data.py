"""Training data (svk/data.h): a text file's bytes, the addition task, token shards.

These are libsvk's own generators, the ones svk-train draws its batches
from, so a Python loop given the same seed and settings trains on the very
batches svk-train does. Each batch(B, T) returns tokens and targets, int32
arrays [B, T]; position() and seek() save and restore where a stream
stands.
"""
import ctypes as C

import numpy as np

from ._handle import Owned
from ._lib import ERROR_INVALID_ARG, Error, check, cstr, lib

_ORDERS = {"random": 0, "sequential": 1}
_ANSWERS = {"plain": 0, "reversed": 1}
_OPERANDS = {"plain": 0, "padded": 1}
_FORMATS = {"llmc": 0, "u16": 1, "u32": 2}


def _pick(table, value, what):
    if value not in table:
        raise Error(ERROR_INVALID_ARG, "%s %r: one of %s" % (what, value, ", ".join(table)))
    return table[value]


class _Stream(Owned):
    # The calls of one kind of data (svk_<kind>_batch, _position, _seek, _destroy), one handle.
    _kind = None

    def _fn(self, name):
        return getattr(lib(), "svk_%s_%s" % (self._kind, name))

    @property
    def handle(self):
        if self._h is None:
            raise ValueError("the data is closed")
        return self._h

    def batch(self, B, T):
        """The next batch: tokens and targets, int32 [B, T]."""
        tok = np.empty((B, T), dtype=np.int32)
        tgt = np.empty((B, T), dtype=np.int32)
        p = C.POINTER(C.c_int32)
        check(self._fn("batch")(self.handle, B, T, tok.ctypes.data_as(p), tgt.ctypes.data_as(p)))
        return tok, tgt

    def position(self):
        """Where the stream stands, one number for seek()."""
        v = C.c_uint64()
        check(self._fn("position")(self.handle, C.byref(v)))
        return v.value

    def seek(self, position):
        check(self._fn("seek")(self.handle, position))

    def close(self):
        if getattr(self, "_h", None) is not None:
            self._fn("destroy")(C.byref(self._h))
            self._h = None

    def _open(self, opener, *args):
        self._h = None
        h = C.c_void_p()
        check(opener(*args, C.byref(h)))
        self._h = h


class TextData(_Stream):
    """The bytes of a file as windows (svk-train --data): order "random" draws each row's window with a
    generator seeded with seed, "sequential" takes them in order; begin and end (0: the file's end) bound
    the bytes used. svk-train trains on bytes [0, split) where its --holdout keeps a tail (--holdout 0:
    the whole file)."""
    _kind = "text_data"

    def __init__(self, path, seed=1, order="random", begin=0, end=0):
        L = lib()
        p = L.svk_text_data_params_default()
        p.order, p.seed, p.begin, p.end = _pick(_ORDERS, order, "order"), seed, begin, end
        self._open(L.svk_text_data_open, cstr(path), C.byref(p))

    @property
    def size(self):
        """The file's length in bytes."""
        v = C.c_uint64()
        check(lib().svk_text_data_size(self.handle, C.byref(v)))
        return v.value


class Addition(_Stream):
    """The built-in addition task (svk-train's default data): problems "a+b=c\\n" packed into rows, the loss
    on the answers. The defaults are libsvk's (plain answers and operands); svk-train's are
    answer="reversed", operands="padded", heldout=500 (its --eval)."""
    _kind = "addition"

    def __init__(self, digits=2, heldout=500, seed=1, answer="plain", operands="plain"):
        L = lib()
        p = L.svk_addition_params_default()
        p.digits, p.heldout, p.seed = digits, heldout, seed
        p.answer = _pick(_ANSWERS, answer, "answer")
        p.operands = _pick(_OPERANDS, operands, "operands")
        n = C.c_uint32()
        check(L.svk_addition_max_len(C.byref(p), C.byref(n)))
        self.max_len = n.value  # a batch's T must exceed it
        self._heldout = heldout
        self._open(L.svk_addition_create, C.byref(p))

    def heldout(self, i):
        """Held-out problem i: its prompt "a+b=" and the answer "c\\n" a model should continue it with."""
        prompt, answer = C.create_string_buffer(32), C.create_string_buffer(32)
        check(lib().svk_addition_heldout(self.handle, i, prompt, len(prompt), answer, len(answer)))
        return prompt.value.decode(), answer.value.decode()


class TokenData(_Stream):
    """Pre-tokenized shards (svk-train --train-data): every file pattern matches, in name order, of format
    "llmc" (llm.c's .bin), "u16" or "u32"; tokens >= vocab are refused as batches read them."""
    _kind = "token_data"

    def __init__(self, pattern, vocab=50257, format="llmc", seed=1, order="random"):
        L = lib()
        p = L.svk_token_data_params_default()
        p.format, p.vocab, p.seed = _pick(_FORMATS, format, "format"), vocab, seed
        p.order = _pick(_ORDERS, order, "order")
        self._open(L.svk_token_data_open, cstr(pattern), C.byref(p))

    @property
    def tokens(self):
        """The tokens of all shards together."""
        v = C.c_uint64()
        check(lib().svk_token_data_tokens(self.handle, C.byref(v)))
        return v.value
