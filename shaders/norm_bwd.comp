#version 450
/*
 * LayerNorm and RMSNorm backward from the saved statistics. With
 * dxhat = dout g:
 *   layernorm_bwd: xhat = (x - mean) rstd,
 *     dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
 *     dg += sum over rows of dout xhat,  db += sum over rows of dout;
 *   rmsnorm_bwd (SVK_RMSNORM): xhat = x rstd,
 *     dx = rstd (dxhat - xhat mean(dxhat xhat)),  dg += sum over rows of dout xhat.
 * Reference: lib/ref/layernorm.c, lib/ref/rmsnorm.c. Conformance:
 * tools/conformance/conform_norm.c.
 *
 * x - mean is formed first: with a large common offset both are close and
 * the difference is exact (Sterbenz), as in the reference.
 *
 * Parameter gradients are deterministic without atomics: lane p (one row of
 * invocations) walks rows [p R, (p + 1) R) in order (R = rows_per_part) and
 * sums their contributions into row p of the gain (and bias) partial blocks
 * (each invocation only touches its own columns, so the read-modify-write
 * needs no synchronisation); norm_param_reduce.comp then adds the partial
 * rows in order to dg and db.
 *
 * SiameseNorm reuses this kernel for its P and Q norms (flags): the
 * gradient reaching the norm may be dout + add, or dx may be add + the
 * gradient through the norm. dx may equal dout, x or add: every invocation
 * writes only elements it has finished reading.
 *
 * CPU devices run the CPU forms instead, norm_bwd_cpu.comp (lib/ops picks).
 */
#extension GL_GOOGLE_include_directive : require

#include "common/push_norm_bwd.h"

#include "common/kernel.glsl"
#include "common/norm_bwd_bindings.glsl"

#define NR_LANES pc.n_part /* a lane per partial */
#include "common/norm_row.glsl"

/* xhat at element i of the row (at element e). */
#ifdef SVK_RMSNORM
#define NR_XHAT(i) (x[pc.off_x + e + (i)] * rs)
#else
#define NR_XHAT(i) ((x[pc.off_x + e + (i)] - mu) * rs)
#endif

/* The gradient at the norm's output, element ei of the row block: dout,
 * plus add where add_dout (a residual gradient added in on the way). */
float nb_dout(const uint ei, const bool add_dout)
{
    float dv = dout[pc.off_dout + ei];
    if (add_dout)
        dv += add[pc.off_add + ei];
    return dv;
}

void nr_lane_main(const uint lane, const bool lane_on)
{
    const uint lx = gl_LocalInvocationID.x;
    const uint W = pc.width;
    const bool add_dout = (pc.flags & SVK_NORM_FLAG_ADD_DOUT) != 0u;
    const bool add_dx = (pc.flags & SVK_NORM_FLAG_ADD_DX) != 0u;
#ifdef SVK_RMSNORM
    const uint pg = pc.off_part + lane * W;
#else
    const uint pg = pc.off_part + lane * W, pb = pg + pc.part_b;
#endif

    /* The same trip count in every lane: the reductions hold barriers. */
    for (uint j = 0u; j < pc.rows_per_part; j++) {
        const uint row = lane * pc.rows_per_part + j;
        const bool on = lane_on && row < pc.rows;
        const uint e = row * W;
#ifndef SVK_RMSNORM
        const float mu = on ? mean[pc.off_mean + row] : 0.0;
#endif
        const float rs = on ? rstd[pc.off_rstd + row] : 0.0;

        float sd = 0.0, sdx = 0.0; /* the sums of dxhat (LayerNorm's) and dxhat xhat */
        if (on)
            for (uint i = lx; i < W; i += WG_X) {
                const float dv = nb_dout(e + i, add_dout);
                const float xhat = NR_XHAT(i);
                const float dxhat = dv * g[pc.off_g + i];
#ifndef SVK_RMSNORM
                sd += dxhat;
#endif
                sdx += dxhat * xhat;
                const float cg = dv * xhat;
                part[pg + i] = j == 0u ? cg : part[pg + i] + cg;
#ifndef SVK_RMSNORM
                part[pb + i] = j == 0u ? dv : part[pb + i] + dv;
#endif
            }
        const vec4 sums = nr_row_sum(vec4(sd, sdx, 0.0, 0.0));
        const float mean_d = sums.x / float(W), mean_dx = sums.y / float(W);

        if (on)
            for (uint i = lx; i < W; i += WG_X) {
                const float dv = nb_dout(e + i, add_dout);
                const float xhat = NR_XHAT(i);
                const float dxhat = dv * g[pc.off_g + i];
#ifdef SVK_RMSNORM
                float v = rs * (dxhat - xhat * mean_dx);
#else
                /* precise: no fma may fuse dv * g into the subtraction, so
                 * that at width 1 (xhat 0, mean_d the same rounded product)
                 * the difference is exactly 0, as the reference's is; rs is
                 * 1/sqrt(eps) there and would magnify the product's rounding
                 * error. Seen on NVIDIA, whose compiler contracts. */
                precise float v = rs * (dxhat - mean_d - xhat * mean_dx);
#endif
                if (add_dx)
                    v += add[pc.off_add + e + i];
                dx[pc.off_dx + e + i] = v;
            }
    }
}
