/*
 * RoPE (lib/ops/rope.c, shaders/rope_*.comp; reference lib/ref/rope.c),
 * forward and backward, in place on qkv [B, T, 3C]: T = 1 (angle 0), head
 * widths 2 to 128, positions up to 1023 where angles reach 1e3 rad, theta
 * from 1 (every pair at angle t) to 5e5, values of 1e4. The v part must come
 * back bit for bit.
 */
#include <stdio.h>
#include <string.h>

#include "conform.h"
#include "ops/rope.h"

/*
 * ||out - ref|| / ||ref|| against the double reference (exact angles). The
 * kernel forms the angle as a two-float and reduces it exactly
 * (shaders/common/rope.glsl), so sin and cos are within about a float
 * rounding of the exact ones at any position; each output a c - b s then
 * adds two more roundings. Measured: <= 3.7e-8 on every case, so 1e-6 keeps
 * a 25x margin. It is tight on purpose: the float32 angle docs/MODEL.md allows
 * (t * inv_freq rounded, as svk_ref_rope_fwd_f32 does) measures 2.9e-6 at
 * T = 1024, D = 64 (up to 4.4e-5 absolute per element), and so does a
 * kernel taking that shortcut (2.9e-6), or trusting the driver's sin and
 * cos of 1e3 rad (2.5e-6; 5.2e-6 with theta = 10), or dropping the
 * product's error term from the reduction (1.1e-5): each of them fails.
 */
static const double TOL_ROPE = 1e-6;

typedef struct rope_case {
    uint32_t B, T, C, H;
    float theta;
    float mag;   /* inputs uniform in [-mag, mag] */
    int quick;
} rope_case;

static const rope_case cases[] = {
    {1, 1, 8, 2, 10000.0f, 1, 1},
    {2, 17, 12, 3, 10000.0f, 1, 1},    /* D = 4 */
    {1, 64, 6, 3, 10000.0f, 1, 1},     /* D = 2 */
    {1, 1024, 128, 2, 10000.0f, 1, 1}, /* D = 64, angles to 1023 rad */
    {3, 129, 72, 3, 10000.0f, 1e4f, 0}, /* D = 24 */
    {1, 1024, 4, 2, 1.0f, 1, 0},       /* theta 1: every angle is t */
    {2, 300, 256, 2, 500000.0f, 1, 0}, /* D = 128 */
    {1, 1000, 32, 1, 10.0f, 1, 0},     /* D = 32, small theta */
};

static void run_dir(cf_state *cf, const rope_case *rc, int bwd)
{
    const uint32_t B = rc->B, T = rc->T, C = rc->C, H = rc->H;
    char shape[96];
    snprintf(shape, sizeof(shape), "B%u T%u C%u H%u D%u theta %g%s", B, T, C, H, C / H, (double)rc->theta,
             rc->mag != 1 ? " x1e4" : "");
    cf_case *c = cf_begin(cf, "rope", bwd ? "bwd" : "fwd", shape);
    if (!c)
        return;
    const size_t n = (size_t)B * T * 3 * C;
    float *init = cf_random(c, n, -rc->mag, rc->mag);
    cf_out *qkv = init ? cf_output(c, bwd ? "dqkv" : "qkv", n, init) : NULL;
    if (!qkv)
        goto end;
    svk_rope_args a = {B, T, C, H, rc->theta, cf_tref(qkv), NULL};
    svk_status st = bwd ? svk_rope_bwd_record(cf_list(c), &a) : svk_rope_fwd_record(cf_list(c), &a);
    if (!cf_ok(c, st) || !cf_run(c))
        goto end;
    double *ref = cf_to_double(c, init, n);
    if (!ref)
        goto end;
    if (bwd)
        svk_ref_rope_bwd_f64(B, T, C, H, rc->theta, ref);
    else
        svk_ref_rope_fwd_f64(B, T, C, H, rc->theta, ref);
    for (size_t r = 0; r < (size_t)B * T; r++)
        if (memcmp(qkv->host + r * 3 * C + 2 * C, init + r * 3 * C + 2 * C, C * sizeof(float))) {
            cf_fail(c, "v part of row %zu was changed", r);
            break;
        }
    cf_compare(c, qkv, ref, TOL_ROPE);
end:
    cf_end(c);
}

void cf_run_rope(cf_state *cf)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!cf->quick || cases[i].quick) {
            run_dir(cf, &cases[i], 0);
            run_dir(cf, &cases[i], 1);
        }
}
