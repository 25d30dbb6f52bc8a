"""The safetensors file format, read and written with the standard library.

A file is an 8-byte little-endian header length, a JSON header naming each
tensor's dtype, shape and byte range in the data that follows, and the data.
libsvk's reader is strict (lib/io/safetensors.c): the tensors lie back to
back with no gap, and nothing follows the last one, so the writer here lays
them out that way.
"""

import json
import os
import struct
import sys

import torch

_DTYPES = {"F32": torch.float32, "F64": torch.float64, "I32": torch.int32}
_NAMES = {v: k for k, v in _DTYPES.items()}


def _native_is_little():
    if sys.byteorder != "little":
        raise RuntimeError("svk_torch reads and writes safetensors on little-endian hosts only")


def read(path):
    """Returns ``(tensors, metadata)``: a dict of name to CPU tensor, in the
    file's dtype, and the ``__metadata__`` dict of strings."""
    _native_is_little()
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError("%s: too short for a safetensors file" % path)
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError("%s: header length %d does not fit in the file" % (path, n))
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = memoryview(blob)[8 + n:]
    metadata = header.pop("__metadata__", {}) or {}
    tensors = {}
    for name, entry in header.items():
        dtype = _DTYPES.get(entry["dtype"])
        if dtype is None:
            raise ValueError("%s: tensor %s has dtype %s, not one of %s"
                             % (path, name, entry["dtype"], ", ".join(_DTYPES)))
        begin, end = entry["data_offsets"]
        shape = list(entry["shape"])
        if not 0 <= begin <= end <= len(data):
            raise ValueError("%s: tensor %s lies outside the data" % (path, name))
        # bytearray: a writable copy, so the tensor owns its memory.
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=dtype) if end > begin else torch.empty(0, dtype=dtype)
        tensors[name] = t.reshape(shape)
    return tensors, metadata


def write(path, tensors, metadata=None):
    """Writes ``tensors`` (name to tensor, F32, F64 or I32) and ``metadata``
    (str to str). The file appears whole or not at all: it is written beside
    ``path`` and renamed over it."""
    _native_is_little()
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    chunks, offset = [], 0
    for name, t in tensors.items():
        t = t.detach().to("cpu").contiguous()
        if t.dtype not in _NAMES:
            raise ValueError("tensor %s: dtype %s cannot be written" % (name, t.dtype))
        raw = t.numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": _NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for c in chunks:
                f.write(c)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
