"""numpy arrays to and from the int32 and float32 buffers libsvk takes.

libsvk sees a pointer and the sizes it is given, never an array's shape,
so shapes and dtypes are checked here, before the call, and refused with
svk.Error(SVK_ERROR_INVALID_ARG) naming the argument.
"""
import ctypes as C

import numpy as np

from ._lib import ERROR_INVALID_ARG, Error

_I32 = np.iinfo(np.int32)


def int32(a, name, ndim):
    """a as a C-contiguous int32 array of ndim dimensions, refusing non-integers and values int32 cannot hold."""
    arr = np.asarray(a)
    if arr.ndim != ndim:
        raise Error(ERROR_INVALID_ARG, "%s: a %d-D array was expected, not shape %s" % (name, ndim, arr.shape))
    if arr.size == 0:
        raise Error(ERROR_INVALID_ARG, "%s: empty array (shape %s)" % (name, arr.shape))
    if arr.dtype != np.int32:
        if not np.issubdtype(arr.dtype, np.integer):
            raise Error(ERROR_INVALID_ARG, "%s: integer tokens were expected, not dtype %s" % (name, arr.dtype))
        lo, hi = int(arr.min()), int(arr.max())
        if lo < _I32.min or hi > _I32.max:
            raise Error(ERROR_INVALID_ARG, "%s: values %d..%d do not fit int32" % (name, lo, hi))
    return np.ascontiguousarray(arr, dtype=np.int32)


def batch(tokens, targets):
    """tokens and targets [B, T] as int32, the same shape; returns them and B, T."""
    tok = int32(tokens, "tokens", 2)
    tgt = int32(targets, "targets", 2)
    if tok.shape != tgt.shape:
        raise Error(ERROR_INVALID_ARG, "targets has shape %s, tokens %s: they must be the same [B, T]"
                    % (tgt.shape, tok.shape))
    if max(tok.shape) >= 1 << 32:
        raise Error(ERROR_INVALID_ARG, "tokens: shape %s exceeds uint32" % (tok.shape,))
    return tok, tgt, tok.shape[0], tok.shape[1]


def ptr_i32(a):
    return a.ctypes.data_as(C.POINTER(C.c_int32))


def ptr_f32(a):
    return a.ctypes.data_as(C.POINTER(C.c_float))
