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

float svk_wg_sum(float v)
{
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    svk_red_f[lid] = v;
    barrier();
    for (uint s = svk_red_span() >> 1; s > 0u; s >>= 1) {
        if (lid < s && lid + s < wg)
            svk_red_f[lid] += svk_red_f[lid + s];
        barrier();
    }
    const float r = svk_red_f[0];
    barrier(); /* the next reduction may overwrite svk_red_f[0] */
    return r;
}

float svk_wg_max(float v)
{
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    svk_red_f[lid] = v;
    barrier();
    for (uint s = svk_red_span() >> 1; s > 0u; s >>= 1) {
        if (lid < s && lid + s < wg)
            svk_red_f[lid] = max(svk_red_f[lid], svk_red_f[lid + s]);
        barrier();
    }
    const float r = svk_red_f[0];
    barrier();
    return r;
}

uint svk_wg_sum_u(uint v)
{
    const uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    svk_red_u[lid] = v;
    barrier();
    for (uint s = svk_red_span() >> 1; s > 0u; s >>= 1) {
        if (lid < s && lid + s < wg)
            svk_red_u[lid] += svk_red_u[lid + s];
        barrier();
    }
    const uint r = svk_red_u[0];
    barrier();
    return r;
}

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
