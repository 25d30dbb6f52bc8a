/*
 * Row geometry and row reductions of the row-wise norm kernels
 * (layernorm, rmsnorm, siamese_norm; forward and backward).
 *
 * A workgroup is WG_X x WG_Y invocations (spec constants 0 and 1): each of
 * its WG_Y rows of invocations (a "lane") handles one row of the tensor at a
 * time, invocation lx owning the elements lx, lx + WG_X, ... of that row. An
 * invocation only ever reads back the elements it owns, so kernels may use
 * their outputs as per-element scratch and work in place; everything a lane
 * shares goes through nr_row_sum().
 *
 * Reductions go through shared memory in a fixed tree, never through
 * subgroup operations or atomics: the result is the same at every subgroup
 * size and bit-identical from run to run.
 *
 * Include after the buffers and push constants; defines WG_X, WG_Y and
 * main(), which runs the kernel's
 *   void nr_lane_main(const uint lane, const bool on)
 * in every invocation of a workgroup that holds one of the NR_LANES lanes
 * (rows, or partials; pc.rows unless the kernel defines it first): lane is
 * the index of the invocation's lane, on whether it exists (lane < NR_LANES).
 * The invocations of a lane past the end still take part in the barriers.
 */
const uint WG_X = gl_WorkGroupSize.x;
const uint WG_Y = gl_WorkGroupSize.y;

shared vec4 nr_red[WG_X * WG_Y];

/* The sum of v over the WG_X invocations of this lane, returned to all of
 * them. Up to four sums at once. It holds barriers: every invocation of the
 * workgroup must call it the same number of times, active or not (inactive
 * ones pass zeros). Each invocation first sums its own strided elements in
 * order; the tree then adds neighbours at distance span/2, span/4, ..., 1,
 * which for any WG_X (not only powers of two) adds every value once. */
vec4 nr_row_sum(vec4 v)
{
    const uint lx = gl_LocalInvocationID.x;
    const uint base = gl_LocalInvocationID.y * WG_X;
    nr_red[base + lx] = v;
    barrier();
    uint span = 1u;
    while (span < WG_X)
        span <<= 1u;
    for (uint s = span >> 1u; s > 0u; s >>= 1u) {
        if (lx < s && lx + s < WG_X)
            nr_red[base + lx] += nr_red[base + lx + s];
        barrier();
    }
    const vec4 r = nr_red[base];
    /* The next call overwrites the array that slower invocations may still
     * be reading r from. */
    barrier();
    return r;
}

#ifndef NR_LANES
#define NR_LANES pc.rows
#endif

void nr_lane_main(const uint lane, const bool on);

void main()
{
    const uint first = svk_group_index() * WG_Y;
    if (first >= NR_LANES)
        return; /* a surplus group of the grid: uniform, before any barrier */
    const uint lane = first + gl_LocalInvocationID.y;
    nr_lane_main(lane, lane < NR_LANES);
}
