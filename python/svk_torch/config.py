"""The model configuration: docs/MODEL.md's table, as a checkpoint stores it.

A checkpoint keeps the configuration as a JSON object under the metadata key
``svk.config``. Missing keys take the table's defaults; unknown keys and
values outside the allowed sets are refused, as libsvk refuses them, so that
a file is never read as a model it is not.
"""

import json
import math

DEFAULTS = {
    "vocab": 256,
    "ctx": 128,
    "width": 128,
    "layers": 4,
    "heads": 4,
    "mlp_hidden": 0,
    "norm": "layernorm",
    "placement": "siamese",
    "mlp": "gelu",
    "pos": "learned",
    "bias": True,
    "tie_embeddings": True,
    "norm_eps": 1e-5,
    "rope_theta": 10000.0,
}

CHOICES = {
    "norm": ("layernorm", "rmsnorm"),
    "placement": ("pre", "post", "siamese"),
    "mlp": ("gelu", "swiglu"),
    "pos": ("learned", "rope"),
}


def _check(c):
    for key in ("vocab", "ctx", "width", "layers", "heads", "mlp_hidden"):
        v = c[key]
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError("config %s=%r is not an integer" % (key, v))
    for key in ("bias", "tie_embeddings"):
        if not isinstance(c[key], bool):
            raise ValueError("config %s=%r is not true or false" % (key, c[key]))
    for key, allowed in CHOICES.items():
        if c[key] not in allowed:
            raise ValueError("config %s=%r is not one of %s" % (key, c[key], ", ".join(allowed)))
    if c["vocab"] < 2 or c["ctx"] < 1 or c["width"] < 1 or not 1 <= c["layers"] <= 65536:
        raise ValueError("config vocab=%d ctx=%d width=%d layers=%d out of range"
                         % (c["vocab"], c["ctx"], c["width"], c["layers"]))
    if c["heads"] < 1 or c["width"] % c["heads"]:
        raise ValueError("config heads=%d does not divide width=%d" % (c["heads"], c["width"]))
    if c["pos"] == "rope" and (c["width"] // c["heads"]) % 2:
        raise ValueError("config pos=rope needs an even head width, not %d" % (c["width"] // c["heads"]))
    if c["mlp_hidden"] < 0:
        raise ValueError("config mlp_hidden=%d is negative" % c["mlp_hidden"])
    for key in ("norm_eps", "rope_theta"):
        v = c[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ValueError("config %s=%r must be finite and > 0" % (key, v))


def make_config(**overrides):
    """A complete, checked configuration: the defaults with ``overrides``.

    ``mlp_hidden`` 0 becomes 4 * width, the hidden width the model uses (and
    the value libsvk stores).
    """
    unknown = set(overrides) - set(DEFAULTS)
    if unknown:
        raise ValueError("unknown config keys: %s" % ", ".join(sorted(unknown)))
    c = dict(DEFAULTS)
    c.update(overrides)
    _check(c)
    c["norm_eps"], c["rope_theta"] = float(c["norm_eps"]), float(c["rope_theta"])
    if c["mlp_hidden"] == 0:
        c["mlp_hidden"] = 4 * c["width"]
    return c


def config_from_json(text):
    """The configuration of a checkpoint's ``svk.config`` metadata."""
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise ValueError("svk.config is not JSON: %s" % e) from None
    if not isinstance(obj, dict):
        raise ValueError("svk.config is not a JSON object")
    return make_config(**obj)


def config_to_json(c):
    """``svk.config``'s text for configuration ``c``, every key written."""
    return json.dumps({k: c[k] for k in DEFAULTS}, separators=(",", ":"))
