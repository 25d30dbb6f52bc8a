/*
 * The split forms of the CPU row kernels (the <name>_split kernels of the
 * forwards and backwards of SiameseNorm, LayerNorm and RMSNorm, built with
 * SVK_SPLIT and SVK_TEXEL: shaders/meson.build); without SVK_SPLIT, the
 * macros below give the usual CPU form (row_cpu.glsl: a group of RC_ROWS
 * rows, or a lane of partials, per invocation). Include after row_cpu.glsl,
 * and common/variants.glsl first (the subgroup arithmetic SVK_SPLIT needs).
 *
 * Split, the RS_LANES invocations of a subgroup share what one invocation
 * owns otherwise: lane l takes the vec4s l, l + RS_LANES, ... of each row,
 * and a sum over a row is the subgroup's sum of the lanes' sums (subgroupAdd,
 * so the order of a row's sums depends on the subgroup size, still fixed
 * for a device). The host sets RS_LANES to the device's one subgroup size,
 * makes every workgroup whole subgroups and takes rows of
 * SVK_NORM_SPLIT_MIN_WIDTH or SVK_NORM_SPLIT_WIDE_MIN_WIDTH and wider only
 * (lib/ops/norm_rows.h says which kernel takes which).
 *
 * Why: with a row per invocation, a SIMD batch walks 8 rows side by side,
 * RC_ROWS each, and every pass reads them again: at C = 1024 the forward's
 * x, y and h are about 400 KiB a batch, beyond a core's L1. Split, a batch
 * walks RC_ROWS rows, and a fetch of 8 lanes is 128 contiguous bytes
 * instead of 8 rows' 16. Narrower rows lose by it (each row group's
 * reductions and statistics weigh more), hence the minimum widths; the
 * figures are in docs/PERFORMANCE.md ("SiameseNorm fused").
 */
#ifdef SVK_SPLIT
layout(constant_id = 5) const uint RS_LANES = 8u;
#define RS_LANE gl_SubgroupInvocationID
/* The subgroup's row group (forward) or lane of partials (backward). */
#define RS_GROUP (svk_group_index() * gl_NumSubgroups + gl_SubgroupID)
/* A row's sum from the lanes' plain sums ... */
#define RS_ALL(v) subgroupAdd(v)
/* ... and from their compensated sums (s - c each, rc_add). */
#define RS_TOTAL(s, c) (subgroupAdd(s) - subgroupAdd(c))
/* The lane that writes a row's statistics. */
#define RS_FIRST_LANE (RS_LANE == 0u)
#else
const uint RS_LANES = 1u;
#define RS_LANE 0u
#define RS_GROUP rc_unit()
#define RS_ALL(v) (v)
#define RS_TOTAL(s, c) (s)
#define RS_FIRST_LANE true
#endif
/* The loop over this invocation's elements i of a row of width w (all of
 * it unsplit). */
#define RS_ROW_LOOP(i, w) for (uint i = RS_LANE * RC_STEP; i < (w); i += RC_STEP * RS_LANES)
