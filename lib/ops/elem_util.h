/*
 * Internal helpers of the elementwise-family ops (gelu, swiglu, bias,
 * colsum, embedding, index_check, cross_entropy, clip, adamw): naming an op
 * in messages, and recording a 1-D dispatch whose workgroups are spread by
 * svk_op_grid(). Not a public header.
 */
#ifndef SVK_OPS_ELEM_UTIL_H
#define SVK_OPS_ELEM_UTIL_H

#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "vk/vk_buffer.h"
#include "vk/vk_context.h"

/* "kernel" or "kernel 'label'", the prefix of every message of an op. */
static inline const char *svk_elem_opname(char buf[128], const char *kernel, const char *label)
{
    if (label)
        snprintf(buf, 128, "%s '%s'", kernel, label);
    else
        snprintf(buf, 128, "%s", kernel);
    return buf;
}

/* The workgroup width (specialisation constant 0) the registry builds
 * kernel k with; the ops size their grids with it. */
static inline uint32_t svk_elem_wg(svk_kernel_id k)
{
    return svk_kernel_info_get(k)->spec_defaults[0];
}

/* Records kernel k over `groups` workgroups spread over x and y, times
 * groups_z in z, specialised with spec (the kernel's n_spec values; NULL:
 * the registry's defaults). */
static inline svk_status svk_elem_dispatch_spec(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id k,
                                                const uint32_t *spec, uint64_t groups, uint32_t groups_z,
                                                const svk_range *bindings, uint32_t n_bindings, const void *push,
                                                uint32_t push_size, const char *label)
{
    svk_dispatch d = {
        .kernel = k,
        .spec = spec,
        .n_bindings = n_bindings,
        .push = push,
        .push_size = push_size,
        .label = label ? label : svk_kernel_info_get(k)->name,
    };
    memcpy(d.bindings, bindings, n_bindings * sizeof(*bindings));
    svk_status st = svk_op_grid(ctx, op, groups, d.groups);
    if (st != SVK_OK)
        return st;
    d.groups[2] = groups_z;
    return svk_cmdlist_dispatch(cl, &d);
}

/* svk_elem_dispatch_spec with the registry's specialisation. */
static inline svk_status svk_elem_dispatch(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id k,
                                           uint64_t groups, uint32_t groups_z, const svk_range *bindings,
                                           uint32_t n_bindings, const void *push, uint32_t push_size,
                                           const char *label)
{
    return svk_elem_dispatch_spec(cl, ctx, op, k, NULL, groups, groups_z, bindings, n_bindings, push, push_size,
                                  label);
}

/* A 1-D elementwise kernel over n elements, one per invocation. */
static inline svk_status svk_elem_dispatch_1d(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id k,
                                              uint64_t n, const svk_range *bindings, uint32_t n_bindings,
                                              const void *push, uint32_t push_size, const char *label)
{
    return svk_elem_dispatch(cl, ctx, op, k, svk_div_up(n, svk_elem_wg(k)), 1, bindings, n_bindings, push,
                             push_size, label);
}

/* The specialisation of an elementwise kernel k whose constant 3 is VEC4
 * (the registry's defaults, then VEC4): four elements per invocation, as
 * vec4s, where n and the operands' n_offs element offsets are multiples of
 * 4 (every vec4 then lies inside one operand: svk_op_vec4) and the tuning
 * leaves vec4 on; one otherwise. Returns VEC4. On a CPU device a storage-buffer
 * access costs per lane, not per byte, so this moves about 2.5 times the
 * bytes per second there (measured with the copy shader on lavapipe); GPUs
 * prefer 16-byte accesses too. */
static inline bool svk_elem_vec4_spec(const svk_ctx *ctx, svk_kernel_id k, uint64_t n, const uint64_t *offs, uint32_t n_offs,
                                      uint32_t spec[SVK_MAX_SPEC])
{
    memcpy(spec, svk_kernel_info_get(k)->spec_defaults, SVK_MAX_SPEC * sizeof(*spec));
    spec[3] = svk_op_vec4_allowed(ctx) && svk_op_vec4(n, offs, n_offs);
    return spec[3] != 0;
}

/* svk_elem_dispatch_spec over n elements with svk_elem_vec4_spec's choice. */
static inline svk_status svk_elem_dispatch_1d_vec4(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id k,
                                                   uint64_t n, const uint64_t *offs, uint32_t n_offs,
                                                   const svk_range *bindings, uint32_t n_bindings, const void *push,
                                                   uint32_t push_size, const char *label)
{
    uint32_t spec[SVK_MAX_SPEC];
    const uint64_t per = svk_elem_vec4_spec(ctx, k, n, offs, n_offs, spec) ? 4 : 1;
    return svk_elem_dispatch_spec(cl, ctx, op, k, spec, svk_div_up(svk_div_up(n, per), spec[0]), 1, bindings,
                                  n_bindings, push, push_size, label);
}

/* svk_elem_dispatch_1d_vec4 over n elements of kernel k whose operands
 * (bound into r, in the kernel's binding order) each hold n elements: their
 * element offsets decide the vec4 choice. */
static inline svk_status svk_elem_dispatch_operands(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id k,
                                                    uint64_t n, const svk_op_operand *operands, uint32_t count,
                                                    const svk_range *r, const void *push, uint32_t push_size,
                                                    const char *label)
{
    uint64_t offs[SVK_MAX_BINDINGS];
    for (uint32_t i = 0; i < count; i++)
        offs[i] = operands[i].t.off;
    return svk_elem_dispatch_1d_vec4(cl, ctx, op, k, n, offs, count, r, count, push, push_size, label);
}

/* Binds the operands (svk_op_bind_all) and records kernel k over them
 * (svk_elem_dispatch_operands): the whole of an elementwise op whose
 * operands all hold n elements and that checks nothing more. */
static inline svk_status svk_elem_record(svk_cmdlist *cl, svk_ctx *ctx, const char *op, svk_kernel_id k, uint64_t n,
                                         const svk_op_operand *operands, uint32_t count, const void *push,
                                         uint32_t push_size, const char *label)
{
    svk_range r[SVK_MAX_BINDINGS];
    svk_status st = svk_op_bind_all(ctx, op, operands, count, r);
    if (st != SVK_OK)
        return st;
    return svk_elem_dispatch_operands(cl, ctx, op, k, n, operands, count, r, push, push_size, label);
}

/* The 32-bit element offset of an operand svk_op_bind() accepted. */
static inline uint32_t svk_elem_off(svk_tref t)
{
    return (uint32_t)t.off;
}

#endif
