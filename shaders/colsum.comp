#version 450
/*
 * Column sums of a [rows, N] matrix (leading dimension ld), one stage of a
 * deterministic two-stage reduction (lib/ops/colsum.c):
 *   partials: dst[z, c] = sum of src[r, c] over the rows of block z,
 *   accumulate (one block): dst[c] += sum of src[r, c] over all rows.
 * The op runs the first over row blocks into a scratch [blocks, N], then
 * the second over the scratch into the real destination, so a parameter
 * gradient is accumulated (+=) with no float atomics. Each invocation owns
 * one column of one block and adds its rows in ascending order: the result
 * is a fixed function of the inputs, whatever the subgroup size or
 * scheduling, and neighbouring invocations read neighbouring addresses.
 * With VEC4 (N, ld and both offsets multiples of 4) an invocation owns
 * four neighbouring columns and reads them as one vec4: the same sums.
 * Workgroup z is the row block; x/y spread the column groups
 * (svk_op_grid). shaders/colsum_texel.comp is the same with src read
 * through a texel view. Reference: lib/ref/bias.c (bias_bwd).
 * Conformance: tools/conformance/conform_bias.c.
 */
#extension GL_GOOGLE_include_directive : require

#include "common/colsum_body.glsl"
