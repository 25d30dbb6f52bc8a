"""The public structs of libsvk's headers as ctypes Structures.

Each mirrors its C declaration field for field, reserved words included, so
that the *_default() functions can fill it and libsvk read it back; the
suite compares every size and offset with the C compiler's
(tests/test_py_svk.py, tests/py_layout.c). Enums are C ints, bool is C's
_Bool. A change to a header's struct changes this file in the same commit.
"""
import ctypes as C

u8, u32, i32, u64 = C.c_uint8, C.c_uint32, C.c_int32, C.c_uint64
f32, f64, enum, cbool = C.c_float, C.c_double, C.c_int, C.c_bool


class DeviceInfo(C.Structure):
    """svk_device_info (svk/context.h)."""
    _fields_ = [
        ("index", u32), ("name", C.c_char * 256), ("type", enum),
        ("vendor_id", u32), ("device_id", u32),
        ("driver_name", C.c_char * 256), ("driver_info", C.c_char * 256),
        ("driver_version", u32), ("api_version", u32), ("device_uuid", u8 * 16),
        ("subgroup_size", u32), ("min_subgroup_size", u32), ("max_subgroup_size", u32),
        ("subgroup_size_control", cbool), ("max_shared_memory", u32),
        ("max_workgroup_size", u32 * 3), ("max_workgroup_invocations", u32),
        ("max_workgroup_count", u32 * 3), ("max_push_constants", u32),
        ("max_storage_buffer_range", u64), ("max_storage_buffers", u32),
        ("max_allocation_size", u64), ("device_local_bytes", u64),
        ("min_storage_offset_alignment", u32),
        ("float16", cbool), ("int8", cbool), ("int64", cbool), ("timestamps", cbool),
        ("timestamp_period_ns", f32), ("push_descriptor", cbool),
        ("coopmat_m", u32), ("coopmat_n", u32), ("coopmat_k", u32), ("coopmat_khr", cbool),
        ("supported", cbool), ("unsupported_reason", C.c_char * 128),
    ]


LOG_FN = C.CFUNCTYPE(None, C.c_void_p, enum, C.c_char_p)


class CtxParams(C.Structure):
    """svk_ctx_params (svk/context.h)."""
    _fields_ = [
        ("device_index", i32), ("device_name", C.c_char_p), ("flags", u32),
        ("log_fn", LOG_FN), ("log_user", C.c_void_p), ("log_level", enum),
        ("cache_dir", C.c_char_p), ("reserved", u64 * 8),
    ]


class ValidationCounts(C.Structure):
    """svk_validation_counts (svk/context.h)."""
    _fields_ = [("errors", u64), ("warnings", u64), ("infos", u64), ("last_message", C.c_char * 1024)]


class ModelConfig(C.Structure):
    """svk_model_config (svk/config.h)."""
    _fields_ = [
        ("vocab", u32), ("ctx", u32), ("width", u32), ("layers", u32), ("heads", u32),
        ("mlp_hidden", u32), ("norm", enum), ("placement", enum), ("mlp", enum), ("pos", enum),
        ("bias", cbool), ("tie_embeddings", cbool), ("norm_eps", f32), ("rope_theta", f32),
        ("reserved", u64 * 4),
    ]


class Optimizer(C.Structure):
    """svk_optimizer (svk/model.h)."""
    _fields_ = [("beta1", f32), ("beta2", f32), ("eps", f32), ("weight_decay", f32), ("max_norm", f32)]


class ModelParams(C.Structure):
    """svk_model_params (svk/model.h)."""
    _fields_ = [
        ("config", ModelConfig), ("seed", u64), ("backend", enum), ("ctx", C.c_void_p),
        ("optimizer", Optimizer), ("max_submit_ms", f64), ("recompute", cbool), ("precision", enum),
        ("loss_scale", f32), ("loss_scale_interval", u32), ("reserved", u64 * 2),
    ]


class StepInfo(C.Structure):
    """svk_step_info (svk/model.h)."""
    _fields_ = [
        ("loss", f32), ("grad_norm", f32), ("clip_scale", f32), ("valid_targets", u32),
        ("skipped", cbool), ("step", u64), ("loss_scale", f32),
    ]


class GenerateParams(C.Structure):
    """svk_generate_params (svk/model.h)."""
    _fields_ = [
        ("temperature", f32), ("top_k", u32), ("top_p", f32), ("seed", u64), ("stop_token", i32),
        ("stop", C.POINTER(C.c_char_p)), ("n_stop", u32), ("no_cache", cbool), ("reserved", u64 * 4),
    ]


class LrParams(C.Structure):
    """svk_lr_params (svk/model.h)."""
    _fields_ = [
        ("shape", enum), ("total", u64), ("warmup", u64), ("peak", f32), ("decay_frac", f32),
        ("reserved", u64 * 2),
    ]


class TextDataParams(C.Structure):
    """svk_text_data_params (svk/data.h)."""
    _fields_ = [("order", enum), ("seed", u64), ("begin", u64), ("end", u64), ("reserved", u64 * 2)]


class AdditionParams(C.Structure):
    """svk_addition_params (svk/data.h)."""
    _fields_ = [
        ("digits", u32), ("heldout", u32), ("seed", u64), ("answer", enum), ("operands", enum),
        ("reserved", u64 * 3),
    ]


class TokenDataParams(C.Structure):
    """svk_token_data_params (svk/data.h)."""
    _fields_ = [("format", enum), ("vocab", u32), ("order", enum), ("seed", u64), ("reserved", u64 * 4)]


# Every struct above under its C name: what tests/py_layout.c prints.
ALL = {
    "svk_device_info": DeviceInfo, "svk_ctx_params": CtxParams, "svk_validation_counts": ValidationCounts,
    "svk_model_config": ModelConfig, "svk_optimizer": Optimizer, "svk_model_params": ModelParams,
    "svk_step_info": StepInfo, "svk_generate_params": GenerateParams, "svk_lr_params": LrParams,
    "svk_text_data_params": TextDataParams, "svk_addition_params": AdditionParams,
    "svk_token_data_params": TokenDataParams,
}


def to_dict(s):
    """A struct's fields as plain Python values (text decoded, arrays as tuples), reserved words left out."""
    out = {}
    for name, _ in s._fields_:
        if name == "reserved":
            continue
        v = getattr(s, name)
        if isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        elif isinstance(v, C.Array):
            v = tuple(v)
        out[name] = v
    return out
