/*
 * The CPU forms of the row kernels (shaders/<name>_cpu.comp: the norms, the
 * attention softmax, cross-entropy): one invocation per row (or per block
 * of rows), a plain loop over the row, no shared memory and no barriers. On
 * a CPU device such as lavapipe a workgroup runs on one thread, its
 * invocations in SIMD batches, and every barrier() splits the shader into
 * coroutines that are switched at each one; here the invocations of a batch
 * are neighbouring rows walking their rows in lockstep (measured on
 * lavapipe: 5 to 50 times faster than the workgroup-per-row forms). Sums
 * are taken in one fixed order per row: deterministic, and the same at any
 * subgroup size. lib/ops picks these forms on CPU devices (svk_op_variant).
 *
 * VEC4 (spec constant 3) is 1 when the host found the row width and every
 * row and parameter operand's element offset multiples of 4: the loops then
 * step over 4 elements at a time through vec4 views of the same bindings
 * (one memory access per 4 elements: lavapipe emits each non-uniform
 * access as a loop over the SIMD lanes, and a row kernel is bound by those
 * loops; measured, about half the time). With VEC4 0 the same code steps one element at a time
 * in the .x component; the other components are ignored (rc_sum, RC_ST)
 * and the compiler drops them. Element indices are used throughout; in the
 * VEC4 form they are multiples of 4.
 *
 * Loop budget: lavapipe (Mesa's gallivm, LP_MAX_TGSI_LOOP_ITERATIONS)
 * ends every loop of a shader once the loops of one SIMD batch together
 * have run 65535 iterations, whichever lanes ran them; past that a row
 * would be silently cut short. The host therefore records a CPU form only
 * when its loops over the rows an invocation owns, on every path, stay
 * within SVK_OP_CPU_LOOP_BUDGET (lib/ops/ops.h), and the portable form
 * otherwise.
 *
 * Include after the layout(local_size_x_id ...) declaration.
 */
layout(constant_id = 3) const uint VEC4 = 0u;
const uint RC_STEP = VEC4 != 0u ? 4u : 1u;
/* The norms' push-constant flags as the host set them
 * (svk_norm_cpu_form.flags; they must match pc.flags), which the norms
 * test instead of pc.flags: lavapipe runs both sides of a branch it cannot
 * prove alike across lanes, the loads and stores of an operand the call
 * does not have included (a loop over the SIMD lanes each); a constant
 * leaves only the side taken in the shader. 0 in kernels that take no
 * flags this way. */
layout(constant_id = 4) const uint RC_FLAGS = 0u;

/* The sum of the elements a chunk holds, in a fixed order. */
float rc_sum(vec4 s)
{
    return VEC4 != 0u ? (s.x + s.y) + (s.z + s.w) : s.x;
}

/* s + the sum of chunk v (rc_sum), in Kahan's compensated summation, c
 * carrying what s lost: a row is summed in one sequence, which in plain
 * float would err by up to ~n roundings (1e-4 relative for 8192 squares of
 * similar size, where the portable forms' trees keep ~log2 n); compensated,
 * by ~4 whatever n (the chunk's own two roundings, then the compensated
 * add). The sum is a float, not a vec4 compensated per component: two
 * floats of state per sum instead of eight and seven operations per chunk
 * instead of sixteen, which matters on lavapipe, where a row kernel whose
 * rows are in cache is bound by arithmetic and registers (measured: the
 * SiameseNorm forward 7 to 17% faster). precise: the compiler must not
 * simplify (t - s) - y to 0. Start s and c at 0; the total is s (c is
 * below s's last bit). */
void rc_add(inout float s, inout float c, vec4 v)
{
    precise float y = rc_sum(v) - c;
    precise float t = s + y;
    precise float lost = (t - s) - y;
    c = lost;
    s = t;
}

/* Elements e.. of buffer array a (its vec4 view a4), as a chunk. */
#define RC_LD(a, a4, e) (VEC4 != 0u ? a4[(e) >> 2] : vec4(a[e], 0.0, 0.0, 0.0))
/* Stores chunk v at elements e.. of a (a4). A block, not a do-while: on
 * lavapipe every loop iteration counts against the shader's loop budget
 * (above). */
#define RC_ST(a, a4, e, v)        \
    {                             \
        if (VEC4 != 0u)           \
            a4[(e) >> 2] = (v);   \
        else                      \
            a[e] = (v).x;         \
    }

/* Rows an invocation takes at a time (common/row_cpu.h): each loop over
 * the row width then serves RC_ROWS rows, so the gains and biases are read
 * once per RC_ROWS rows instead of once per row, and in the backward forms
 * each gain and bias partial is read and written once per RC_ROWS rows: on
 * lavapipe, where every access costs a loop over the SIMD lanes, that is
 * about half of the backward's accesses per element and a quarter of the
 * forward's. The loops over a group's rows have a constant count and are
 * unrolled ([[unroll]]; each row's sums stay in registers), so none of
 * them counts against the loop budget: a group runs the loops of one row.
 *
 * Backward, lane of R rows: groups of RC_ROWS, then the last R mod RC_ROWS
 * rows one at a time. A group adds its rows' contributions to a partial in
 * row order, as one row at a time would, so the sums are the same to the
 * bit. A lane runs at most the loop iterations of R rows one at a time, in
 * any mix of lanes in a SIMD batch, so the host's budget of R rows holds.
 *
 * Forward: one group per invocation. Past the last row the group repeats
 * it and stores nothing (in place, such a repeat may read what its row has
 * just stored: harmless), so every invocation runs the loops of one row. */
#include "row_cpu.h"
const uint RC_ROWS = SVK_ROW_CPU_ROWS;

/* The row (or lane) this invocation owns: rows of workgroups of
 * gl_WorkGroupSize.x, spread by svk_op_grid() (common/grid.glsl). */
uint rc_unit()
{
    return svk_group_index() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}
