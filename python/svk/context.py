"""Devices and contexts (svk/context.h)."""
import ctypes as C
import weakref

from . import _structs as S
from ._handle import Owned
from ._lib import check, cstr, lib

_DEVICE_TYPES = {0: "other", 1: "integrated_gpu", 2: "discrete_gpu", 3: "virtual_gpu", 4: "cpu"}
_CTX_VALIDATION, _CTX_NO_PIPELINE_CACHE = 1 << 0, 1 << 1


def _device(info):
    d = S.to_dict(info)
    d["type"] = _DEVICE_TYPES.get(d["type"], "other")
    d["device_uuid"] = bytes(d["device_uuid"])
    return d


def list_devices():
    """The Vulkan devices as svk_list_devices reports them: a list of dicts with svk_device_info's fields
    ("name", "type" as "cpu", "discrete_gpu", ..., "supported", "unsupported_reason", the limits).
    Raises Error (SVK_ERROR_NO_VULKAN) where no Vulkan loader can be opened."""
    L = lib()
    n = C.c_uint32(0)
    check(L.svk_list_devices(None, C.byref(n)))
    infos = (S.DeviceInfo * max(n.value, 1))()
    check(L.svk_list_devices(infos, C.byref(n)))
    return [_device(infos[i]) for i in range(n.value)]


class Context(Owned):
    """A libsvk context: one Vulkan device and everything made on it.

    device: an index into list_devices(), a case-insensitive substring of a
    device's name, or None for libsvk's choice ($SVK_DEVICE, else the best
    device). validation=True turns the Khronos validation layer on, as
    $SVK_VALIDATION=1 does. Models made on a context hold it open; close()
    (or leaving a with block) closes them first. One thread at a time, as
    libsvk's contexts.
    """

    def __init__(self, device=None, validation=False, pipeline_cache=True, cache_dir=None):
        L = lib()
        p = L.svk_ctx_params_default()
        self._name = None
        if isinstance(device, int):
            p.device_index = device
        elif device is not None:
            self._name = cstr(device)  # kept alive: libsvk reads it during creation
            p.device_name = self._name
        if validation:
            p.flags |= _CTX_VALIDATION
        if not pipeline_cache:
            p.flags |= _CTX_NO_PIPELINE_CACHE
        self._cache_dir = cstr(cache_dir)
        p.cache_dir = self._cache_dir
        h = C.c_void_p()
        self._h = None
        check(L.svk_ctx_create(C.byref(p), C.byref(h)))
        self._h = h
        self._models = weakref.WeakSet()

    @property
    def handle(self):
        if self._h is None:
            raise ValueError("the context is closed")
        return self._h

    @property
    def device(self):
        """The context's device, as a dict of list_devices()."""
        return _device(lib().svk_ctx_device_info(self.handle).contents)

    @property
    def validation_enabled(self):
        return bool(lib().svk_ctx_validation_enabled(self.handle))

    @property
    def device_lost(self):
        return bool(lib().svk_ctx_device_lost(self.handle))

    def validation_counts(self):
        """The validation layer's messages since creation: errors, warnings, infos, last_message."""
        v = S.ValidationCounts()
        check(lib().svk_ctx_validation_counts(self.handle, C.byref(v)), self.handle)
        return S.to_dict(v)

    def close(self):
        """Closes the models made on the context, then the context; a second call does nothing."""
        if self._h is None:
            return
        for m in list(self._models):
            m.close()
        lib().svk_ctx_destroy(C.byref(self._h))
        self._h = None
