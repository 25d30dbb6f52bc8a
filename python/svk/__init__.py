"""libsvk from Python: a thin ctypes binding over the installed shared library, numpy arrays in and out.

    import svk
    print([d["name"] for d in svk.list_devices()])
    with svk.Context() as ctx:
        model = svk.Model.create(ctx, {"layers": 2, "width": 32, "pos": "rope"}, seed=1)
        data = svk.Addition(seed=1, answer="reversed", operands="padded")
        tokens, targets = data.batch(16, 32)
        loss = model.train_step(tokens, targets, lr=5e-3)

libsvk is found through $SVK_LIBRARY (a path to libsvk.so.0), else, once
meson has installed the package, in its prefix, else through
ctypes.util.find_library("svk") and the dynamic loader's path. Every
failed call raises svk.Error, whose status, name and message are libsvk's.
"""
from ._lib import Error, LibraryNotFound, status_string
from .context import Context, list_devices
from .data import Addition, TextData, TokenData
from .model import Model, lr_schedule


def version():
    """The loaded library's version, "major.minor.patch"."""
    from ._lib import lib
    return lib().svk_version().decode()


__all__ = ["Addition", "Context", "Error", "LibraryNotFound", "Model", "TextData", "TokenData", "list_devices",
           "lr_schedule", "status_string", "version"]
