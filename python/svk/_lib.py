"""Loading libsvk, the prototypes of the functions the binding calls, and
svk.Error.

The library is the one $SVK_LIBRARY names (a path to libsvk.so.0), else,
for a package meson installed, the prefix's (_install.py), else the one
ctypes.util.find_library('svk') or the dynamic loader find (the system's
directories, $LD_LIBRARY_PATH). It is loaded at the first call,
so that importing svk never fails; its major version must be the one the
structs of _structs.py describe.
"""
import ctypes as C
import ctypes.util
import os

from . import _structs as S

# The ABI _structs.py mirrors: libsvk's soname major.
ABI_MAJOR = 0

# Status codes (svk/common.h), for callers that test Error.status.
OK = 0
ERROR_INVALID_ARG = 1
ERROR_IO = 10
ERROR_BAD_CHECKPOINT = 11


class Error(Exception):
    """A libsvk call failed: status is its svk_status value, name the
    status's name ("SVK_ERROR_IO"), message libsvk's own message (what
    failed and where)."""

    def __init__(self, status, message):
        self.status = int(status)
        self.name = status_string(status) if _lib is not None else "svk_status %d" % status
        self.message = message
        super().__init__("%s: %s" % (self.name, message))


class LibraryNotFound(OSError):
    """libsvk could not be loaded: the message says where it was looked for."""


# Named as svk's in tracebacks, where callers catch them.
Error.__module__ = LibraryNotFound.__module__ = "svk"


_P, _S, _U32, _U64, _I32, _F32 = C.c_void_p, C.c_int, C.c_uint32, C.c_uint64, C.c_int32, C.c_float
_PI32, _PU32, _PU64, _PF32 = C.POINTER(_I32), C.POINTER(_U32), C.POINTER(_U64), C.POINTER(_F32)
_STR = C.c_char_p

# name: (restype, argtypes), as the headers declare them.
_PROTOTYPES = {
    # svk/common.h
    "svk_status_string": (_STR, [_S]),
    "svk_last_error": (_STR, []),
    "svk_version": (_STR, []),
    # svk/context.h
    "svk_list_devices": (_S, [C.POINTER(S.DeviceInfo), _PU32]),
    "svk_ctx_params_default": (S.CtxParams, []),
    "svk_ctx_create": (_S, [C.POINTER(S.CtxParams), C.POINTER(_P)]),
    "svk_ctx_destroy": (None, [C.POINTER(_P)]),
    "svk_ctx_device_info": (C.POINTER(S.DeviceInfo), [_P]),
    "svk_ctx_last_error": (_STR, [_P]),
    "svk_ctx_validation_counts": (_S, [_P, C.POINTER(S.ValidationCounts)]),
    "svk_ctx_device_lost": (C.c_bool, [_P]),
    "svk_ctx_validation_enabled": (C.c_bool, [_P]),
    # svk/config.h
    "svk_model_config_set": (_S, [C.POINTER(S.ModelConfig), _STR, _STR]),
    "svk_model_config_to_json": (_S, [C.POINTER(S.ModelConfig), C.c_char_p, C.c_size_t]),
    # svk/model.h
    "svk_lr_params_default": (S.LrParams, []),
    "svk_lr_schedule_ex": (_S, [C.POINTER(S.LrParams), _U64, _PF32]),
    "svk_precision_parse": (_S, [_STR, C.POINTER(C.c_int)]),
    "svk_model_params_default": (S.ModelParams, []),
    "svk_model_create": (_S, [C.POINTER(S.ModelParams), C.POINTER(_P)]),
    "svk_model_open": (_S, [_P, _STR, _U32, C.POINTER(_P)]),
    "svk_model_destroy": (None, [C.POINTER(_P)]),
    "svk_model_get_config": (C.POINTER(S.ModelConfig), [_P]),
    "svk_model_param_count": (_U64, [_P]),
    "svk_model_step": (_U64, [_P]),
    "svk_model_train_step_accum": (_S, [_P, _PI32, _PI32, _U32, _U32, _U32, _F32, _PF32]),
    "svk_model_last_step": (_S, [_P, C.POINTER(S.StepInfo)]),
    "svk_model_eval_loss": (_S, [_P, _PI32, _PI32, _U32, _U32, _PF32]),
    "svk_model_forward_logits": (_S, [_P, _PI32, _U32, _U32, _PF32]),
    "svk_generate_params_default": (S.GenerateParams, []),
    "svk_model_generate_ex": (_S, [_P, _PI32, _U32, _U32, C.POINTER(S.GenerateParams), _PI32, _PU32]),
    "svk_model_save": (_S, [_P, _STR, C.c_bool]),
    "svk_model_load": (_S, [_P, _STR, C.c_bool]),
    # svk/data.h
    "svk_text_data_params_default": (S.TextDataParams, []),
    "svk_text_data_open": (_S, [_STR, C.POINTER(S.TextDataParams), C.POINTER(_P)]),
    "svk_text_data_destroy": (None, [C.POINTER(_P)]),
    "svk_text_data_size": (_S, [_P, _PU64]),
    "svk_text_data_batch": (_S, [_P, _U32, _U32, _PI32, _PI32]),
    "svk_text_data_position": (_S, [_P, _PU64]),
    "svk_text_data_seek": (_S, [_P, _U64]),
    "svk_addition_params_default": (S.AdditionParams, []),
    "svk_addition_max_len": (_S, [C.POINTER(S.AdditionParams), _PU32]),
    "svk_addition_create": (_S, [C.POINTER(S.AdditionParams), C.POINTER(_P)]),
    "svk_addition_destroy": (None, [C.POINTER(_P)]),
    "svk_addition_batch": (_S, [_P, _U32, _U32, _PI32, _PI32]),
    "svk_addition_position": (_S, [_P, _PU64]),
    "svk_addition_seek": (_S, [_P, _U64]),
    "svk_addition_heldout": (_S, [_P, _U32, C.c_char_p, C.c_size_t, C.c_char_p, C.c_size_t]),
    "svk_token_data_params_default": (S.TokenDataParams, []),
    "svk_token_data_open": (_S, [_STR, C.POINTER(S.TokenDataParams), C.POINTER(_P)]),
    "svk_token_data_destroy": (None, [C.POINTER(_P)]),
    "svk_token_data_tokens": (_S, [_P, _PU64]),
    "svk_token_data_batch": (_S, [_P, _U32, _U32, _PI32, _PI32]),
    "svk_token_data_position": (_S, [_P, _PU64]),
    "svk_token_data_seek": (_S, [_P, _U64]),
}

_lib = None


def _candidates():
    env = os.environ.get("SVK_LIBRARY")
    if env:
        return [env], "$SVK_LIBRARY (%s)" % env
    names = []
    try:  # an installed package: the prefix's library, as the tools find it
        from . import _install
        names.append(os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), _install.LIBDIR,
                                                   "libsvk.so.%d" % ABI_MAJOR)))
    except ImportError:  # the source tree's python/svk
        pass
    found = ctypes.util.find_library("svk")
    names += ([found] if found else []) + ["libsvk.so.%d" % ABI_MAJOR]
    return names, ", ".join(names) + " (the dynamic loader's path)"


def lib():
    """The loaded library, its prototypes set; loaded at the first call."""
    global _lib
    if _lib is not None:
        return _lib
    names, where = _candidates()
    errors = []
    for name in names:
        try:
            handle = C.CDLL(name)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise LibraryNotFound("libsvk not found: looked at %s (%s). Set SVK_LIBRARY to the path of libsvk.so.%d, "
                              "e.g. build/lib/libsvk.so.%d or PREFIX/lib/<arch>/libsvk.so.%d after meson install"
                              % (where, "; ".join(errors), ABI_MAJOR, ABI_MAJOR, ABI_MAJOR))
    for fn, (res, args) in _PROTOTYPES.items():
        f = getattr(handle, fn)
        f.restype, f.argtypes = res, args
    version = handle.svk_version().decode()
    if int(version.split(".")[0]) != ABI_MAJOR:
        raise LibraryNotFound("%s is libsvk %s; this binding describes version %d's structs"
                              % (handle._name, version, ABI_MAJOR))
    _lib = handle
    return _lib


def status_string(status):
    """The name of an svk_status value, e.g. "SVK_ERROR_IO"."""
    return lib().svk_status_string(status).decode()


def last_error(ctx=None):
    """libsvk's last message on this thread (or, when that is empty, the context's)."""
    msg = lib().svk_last_error().decode("utf-8", "replace")
    if not msg and ctx:
        msg = lib().svk_ctx_last_error(ctx).decode("utf-8", "replace")
    return msg


def check(status, ctx=None):
    """Raises Error with libsvk's message unless status is SVK_OK."""
    if status != OK:
        raise Error(status, last_error(ctx) or "(libsvk recorded no message)")


def cstr(s):
    """A str or path as the bytes a C string argument takes; None stays NULL."""
    return None if s is None else os.fsencode(s)
