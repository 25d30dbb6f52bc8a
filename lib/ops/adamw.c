#include <math.h>

#include "adamw.h"

#include "common/push_adamw.h"
#include "elem_util.h"

/* 1 - beta^t in double from the float beta, rounded once: the reference's
 * bias correction (lib/ref/adamw.c), so both round the same way. */
static float bias_correction(float beta, uint64_t t)
{
    return (float)(1 - pow((double)beta, (double)t));
}

void svk_adamw_step_values(uint64_t t, float lr, float beta1, float beta2, float out[3])
{
    out[0] = lr;
    out[1] = bias_correction(beta1, t);
    out[2] = bias_correction(beta2, t);
}

void svk_adamw_step_values_prev(uint64_t t, bool prev_unknown, float lr, float beta1, float beta2, float out[5])
{
    svk_adamw_step_values(t, lr, beta1, beta2, out);
    const uint64_t t_skip = prev_unknown && t > 1 ? t - 1 : t;
    out[3] = bias_correction(beta1, t_skip);
    out[4] = bias_correction(beta2, t_skip);
}

static bool overlap(svk_tref a, svk_tref b, uint64_t n)
{
    return a.buf == b.buf && a.off < b.off + n && b.off < a.off + n;
}

svk_status svk_adamw_record(svk_cmdlist *cl, const svk_adamw_args *a)
{
    SVK_CHECK_ARG(NULL, cl && a && a->p.buf);
    svk_ctx *ctx = a->p.buf->ctx;
    char op[128];
    svk_elem_opname(op, "adamw", a->label);
    if (!(a->beta1 >= 0 && a->beta1 < 1) || !(a->beta2 >= 0 && a->beta2 < 1))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: beta1=%g beta2=%g, each must be in [0, 1)", op,
                         (double)a->beta1, (double)a->beta2);
    if (!(a->eps >= 0) || !isfinite(a->eps) || !(a->weight_decay >= 0) || !isfinite(a->weight_decay))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: eps=%g weight_decay=%g, each must be finite and >= 0",
                         op, (double)a->eps, (double)a->weight_decay);
    if (!a->step.buf && (a->t == 0 || !isfinite(a->lr)))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: t=%llu (counts from 1) lr=%g (finite)", op,
                         (unsigned long long)a->t, (double)a->lr);
    const svk_op_operand operands[] = {{"p", a->p, a->n}, {"g", a->g, a->n}, {"m", a->m, a->n}, {"v", a->v, a->n}};
    svk_range r[8];
    svk_status st = svk_op_bind_all(ctx, op, operands, 4, r);
    if (st != SVK_OK)
        return st;
    /* p, m, v are read and written by the same invocation, but two of them
     * sharing elements would update one element twice. */
    if (overlap(a->p, a->m, a->n) || overlap(a->p, a->v, a->n) || overlap(a->m, a->v, a->n))
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: p (element %llu), m (%llu) and v (%llu) overlap", op,
                         (unsigned long long)a->p.off, (unsigned long long)a->m.off, (unsigned long long)a->v.off);
    uint32_t flags = a->decay ? SVK_ADAMW_FLAG_DECAY : 0u;
    /* Absent optional operands: g stands in; the shader never reads them. */
    r[4] = r[5] = r[6] = r[7] = r[1];
    if (a->scale.buf) {
        if ((st = svk_op_bind(ctx, op, "scale", a->scale, 1, &r[4])) != SVK_OK)
            return st;
        flags |= SVK_ADAMW_FLAG_SCALE;
    }
    if (a->prev_guard.buf && !a->step.buf)
        return svk_error(&ctx->log, SVK_ERROR_INVALID_ARG, "%s: prev_guard needs a step buffer", op);
    if (a->step.buf) {
        if ((st = svk_op_bind(ctx, op, "step", a->step, a->prev_guard.buf ? 5 : 3, &r[5])) != SVK_OK)
            return st;
        flags |= SVK_ADAMW_FLAG_STEP_BUFFER;
    }
    if (a->prev_guard.buf) {
        if ((st = svk_op_bind(ctx, op, "prev_guard", a->prev_guard, 2, &r[7])) != SVK_OK)
            return st;
        flags |= SVK_ADAMW_FLAG_PREV_GUARD;
    }
    if (a->guard.buf) {
        if ((st = svk_op_bind(ctx, op, "guard", a->guard, 2, &r[6])) != SVK_OK)
            return st;
        flags |= SVK_ADAMW_FLAG_GUARD;
    }
    float sv[3] = {0, 1, 1};
    if (!a->step.buf)
        svk_adamw_step_values(a->t, a->lr, a->beta1, a->beta2, sv);
    svk_push_adamw push = {
        .n = (uint32_t)a->n,
        .off_p = svk_elem_off(a->p),
        .off_g = svk_elem_off(a->g),
        .off_m = svk_elem_off(a->m),
        .off_v = svk_elem_off(a->v),
        .off_scale = a->scale.buf ? svk_elem_off(a->scale) : 0u,
        .off_step = a->step.buf ? svk_elem_off(a->step) : 0u,
        .off_guard = a->guard.buf ? svk_elem_off(a->guard) : 0u,
        .off_prev = a->prev_guard.buf ? svk_elem_off(a->prev_guard) : 0u,
        .flags = flags,
        .lr = sv[0],
        .beta1 = a->beta1,
        .beta2 = a->beta2,
        .eps = a->eps,
        .weight_decay = a->weight_decay,
        .bc1 = sv[1],
        .bc2 = sv[2],
    };
    const uint64_t offs[4] = {push.off_p, push.off_g, push.off_m, push.off_v};
    /* With VEC4, each invocation updates four vec4s (shaders/adamw.comp). */
    uint32_t spec[SVK_MAX_SPEC];
    const uint64_t units = svk_elem_vec4_spec(ctx, SVK_KERNEL_ADAMW, a->n, offs, 4, spec) ? svk_div_up(a->n / 4, 4) : a->n;
    return svk_elem_dispatch_spec(cl, ctx, op, SVK_KERNEL_ADAMW, spec, svk_div_up(units, spec[0]), 1, r, 8, &push,
                                  sizeof(push), a->label);
}
