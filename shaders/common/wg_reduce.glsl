/* Workgroup-wide reductions of one value per invocation, through shared
 * memory in a fixed tree: the result does not depend on the subgroup size or
 * on scheduling, so a sum is bit-identical from run to run. For 1-D
 * workgroups (y = z = 1) of any size. Every invocation must call them, in
 * uniform control flow; every invocation gets the result. */
/* Include after the shader's layout(local_size_x_id ...) in; declaration:
 * the arrays are sized by gl_WorkGroupSize, which is 1 before it. */
shared float svk_red_f[gl_WorkGroupSize.x];
shared uint svk_red_u[gl_WorkGroupSize.x];

/* Smallest power of two >= the workgroup size: the tree's first stride is
 * half of it, and lanes whose partner lies past the end keep their value. */
uint svk_red_span()
{
    uint p = 1u;
    while (p < gl_WorkGroupSize.x)
        p <<= 1;
    return p;
}

/* Defines T name(T v): v combined over the workgroup in the shared array
 * red, through the tree; op(x, y) folds y into x (SVK_RED_ADD, SVK_RED_MAX). */
#define SVK_WG_REDUCE(T, name, red, op)                                       \
T name(T v)                                                                   \
{                                                                             \
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;         \
    red[lid] = v;                                                             \
    barrier();                                                                \
    for (uint s = svk_red_span() >> 1; s > 0u; s >>= 1) {                     \
        if (lid < s && lid + s < wg)                                          \
            op(red[lid], red[lid + s]);                                       \
        barrier();                                                            \
    }                                                                         \
    const T r = red[0];                                                       \
    barrier(); /* the next reduction may overwrite red[0] */                  \
    return r;                                                                 \
}

#define SVK_RED_ADD(x, y) x += y
#define SVK_RED_MAX(x, y) x = max(x, y)
SVK_WG_REDUCE(float, svk_wg_sum, svk_red_f, SVK_RED_ADD)
SVK_WG_REDUCE(float, svk_wg_max, svk_red_f, SVK_RED_MAX)
SVK_WG_REDUCE(uint, svk_wg_sum_u, svk_red_u, SVK_RED_ADD)

/* Both sums at once, through one tree: half the barriers of two calls. */
void svk_wg_sum_fu(inout float f, inout uint u)
{
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    svk_red_f[lid] = f;
    svk_red_u[lid] = u;
    barrier();
    for (uint s = svk_red_span() >> 1; s > 0u; s >>= 1) {
        if (lid < s && lid + s < wg) {
            svk_red_f[lid] += svk_red_f[lid + s];
            svk_red_u[lid] += svk_red_u[lid + s];
        }
        barrier();
    }
    f = svk_red_f[0];
    u = svk_red_u[0];
    barrier();
}
