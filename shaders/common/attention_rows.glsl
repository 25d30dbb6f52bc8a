/*
 * Workgroup-wide reductions for the row kernels of the attention family
 * (one row per 1-D workgroup). Shared memory and barrier() only, no subgroup
 * operations, so the result does not depend on the subgroup size; the
 * combining order is fixed by the workgroup size alone, so identical inputs
 * give identical bits. Works for any workgroup size: the part above the
 * largest power of two is folded in first, then the usual halving tree.
 *
 * The including shader declares the 1-D workgroup (local_size_x_id = 0).
 * Every invocation of the workgroup must call these (they contain barriers).
 *
 * main() runs the shader's
 *   void att_row_main(const uint row, const uint tid, const uint n)
 * in the workgroup of row `row` of [B, H, T, T] (one per row, spread over x
 * and y by svk_op_grid), tid the invocation, n = t + 1 the keys 0..t that
 * query t = row % T sees; a surplus group of the grid returns whole.
 */
const uint ATT_WG = gl_WorkGroupSize.x;
shared float att_red[ATT_WG];

#define ATT_REDUCE(name, OP)                                                  \
    float name(float v)                                                       \
    {                                                                         \
        const uint tid = gl_LocalInvocationID.x;                              \
        att_red[tid] = v;                                                     \
        barrier();                                                            \
        const uint p = 1u << uint(findMSB(ATT_WG));                           \
        if (tid + p < ATT_WG)                                                 \
            att_red[tid] = OP(att_red[tid], att_red[tid + p]);                \
        barrier();                                                            \
        for (uint s = p >> 1; s > 0u; s >>= 1) {                              \
            if (tid < s)                                                      \
                att_red[tid] = OP(att_red[tid], att_red[tid + s]);            \
            barrier();                                                        \
        }                                                                     \
        const float r = att_red[0];                                           \
        /* The next reduction overwrites att_red, which may still be read. */ \
        barrier();                                                            \
        return r;                                                             \
    }

#define ATT_ADD(a, b) ((a) + (b))
ATT_REDUCE(att_reduce_sum, ATT_ADD)
ATT_REDUCE(att_reduce_max, max)

void att_row_main(const uint row, const uint tid, const uint n);

void main()
{
    const uint row = svk_group_index();
    if (row >= pc.rows)
        return; /* the whole workgroup: no barrier is skipped by part of it */
    att_row_main(row, gl_LocalInvocationID.x, row % pc.T + 1u);
}
