/*
 * The sizes and field offsets of the public structs python/svk mirrors
 * with ctypes (python/svk/_structs.py), as the C compiler lays them out:
 * one line per struct ("svk_x size N") and per field ("svk_x.f N").
 * tests/test_py_svk.py compares them with ctypes'. Built against the
 * public headers alone.
 */
#include <stddef.h>
#include <stdio.h>

#include <svk/svk.h>

#define SIZE(T) printf(#T " size %zu\n", sizeof(T))
#define OFF(T, f) printf(#T "." #f " %zu\n", offsetof(T, f))

int main(void)
{
    SIZE(svk_device_info);
    OFF(svk_device_info, index); OFF(svk_device_info, name); OFF(svk_device_info, type);
    OFF(svk_device_info, vendor_id); OFF(svk_device_info, device_id); OFF(svk_device_info, driver_name);
    OFF(svk_device_info, driver_info); OFF(svk_device_info, driver_version); OFF(svk_device_info, api_version);
    OFF(svk_device_info, device_uuid); OFF(svk_device_info, subgroup_size); OFF(svk_device_info, min_subgroup_size);
    OFF(svk_device_info, max_subgroup_size); OFF(svk_device_info, subgroup_size_control);
    OFF(svk_device_info, max_shared_memory); OFF(svk_device_info, max_workgroup_size);
    OFF(svk_device_info, max_workgroup_invocations); OFF(svk_device_info, max_workgroup_count);
    OFF(svk_device_info, max_push_constants); OFF(svk_device_info, max_storage_buffer_range);
    OFF(svk_device_info, max_storage_buffers); OFF(svk_device_info, max_allocation_size);
    OFF(svk_device_info, device_local_bytes); OFF(svk_device_info, min_storage_offset_alignment);
    OFF(svk_device_info, float16); OFF(svk_device_info, int8); OFF(svk_device_info, int64);
    OFF(svk_device_info, timestamps); OFF(svk_device_info, timestamp_period_ns); OFF(svk_device_info, push_descriptor);
    OFF(svk_device_info, coopmat_m); OFF(svk_device_info, coopmat_n); OFF(svk_device_info, coopmat_k);
    OFF(svk_device_info, coopmat_khr); OFF(svk_device_info, supported); OFF(svk_device_info, unsupported_reason);

    SIZE(svk_ctx_params);
    OFF(svk_ctx_params, device_index); OFF(svk_ctx_params, device_name); OFF(svk_ctx_params, flags);
    OFF(svk_ctx_params, log_fn); OFF(svk_ctx_params, log_user); OFF(svk_ctx_params, log_level);
    OFF(svk_ctx_params, cache_dir); OFF(svk_ctx_params, reserved);

    SIZE(svk_validation_counts);
    OFF(svk_validation_counts, errors); OFF(svk_validation_counts, warnings); OFF(svk_validation_counts, infos);
    OFF(svk_validation_counts, last_message);

    SIZE(svk_model_config);
    OFF(svk_model_config, vocab); OFF(svk_model_config, ctx); OFF(svk_model_config, width);
    OFF(svk_model_config, layers); OFF(svk_model_config, heads); OFF(svk_model_config, mlp_hidden);
    OFF(svk_model_config, norm); OFF(svk_model_config, placement); OFF(svk_model_config, mlp);
    OFF(svk_model_config, pos); OFF(svk_model_config, bias); OFF(svk_model_config, tie_embeddings);
    OFF(svk_model_config, norm_eps); OFF(svk_model_config, rope_theta); OFF(svk_model_config, reserved);

    SIZE(svk_optimizer);
    OFF(svk_optimizer, beta1); OFF(svk_optimizer, beta2); OFF(svk_optimizer, eps);
    OFF(svk_optimizer, weight_decay); OFF(svk_optimizer, max_norm);

    SIZE(svk_model_params);
    OFF(svk_model_params, config); OFF(svk_model_params, seed); OFF(svk_model_params, backend);
    OFF(svk_model_params, ctx); OFF(svk_model_params, optimizer); OFF(svk_model_params, max_submit_ms);
    OFF(svk_model_params, recompute); OFF(svk_model_params, precision);
    OFF(svk_model_params, loss_scale); OFF(svk_model_params, loss_scale_interval); OFF(svk_model_params, reserved);

    SIZE(svk_step_info);
    OFF(svk_step_info, loss); OFF(svk_step_info, grad_norm); OFF(svk_step_info, clip_scale);
    OFF(svk_step_info, valid_targets); OFF(svk_step_info, skipped); OFF(svk_step_info, step);
    OFF(svk_step_info, loss_scale);

    SIZE(svk_generate_params);
    OFF(svk_generate_params, temperature); OFF(svk_generate_params, top_k); OFF(svk_generate_params, top_p);
    OFF(svk_generate_params, seed); OFF(svk_generate_params, stop_token); OFF(svk_generate_params, stop);
    OFF(svk_generate_params, n_stop); OFF(svk_generate_params, no_cache); OFF(svk_generate_params, reserved);

    SIZE(svk_lr_params);
    OFF(svk_lr_params, shape); OFF(svk_lr_params, total); OFF(svk_lr_params, warmup); OFF(svk_lr_params, peak);
    OFF(svk_lr_params, decay_frac); OFF(svk_lr_params, reserved);

    SIZE(svk_text_data_params);
    OFF(svk_text_data_params, order); OFF(svk_text_data_params, seed); OFF(svk_text_data_params, begin);
    OFF(svk_text_data_params, end); OFF(svk_text_data_params, reserved);

    SIZE(svk_addition_params);
    OFF(svk_addition_params, digits); OFF(svk_addition_params, heldout); OFF(svk_addition_params, seed);
    OFF(svk_addition_params, answer); OFF(svk_addition_params, operands); OFF(svk_addition_params, reserved);

    SIZE(svk_token_data_params);
    OFF(svk_token_data_params, format); OFF(svk_token_data_params, vocab); OFF(svk_token_data_params, order);
    OFF(svk_token_data_params, seed); OFF(svk_token_data_params, reserved);
    return 0;
}
