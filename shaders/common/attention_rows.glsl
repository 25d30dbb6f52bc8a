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
