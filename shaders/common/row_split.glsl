/*
 * The split forms of the CPU row kernels (shaders/*_split.comp: SiameseNorm's
 * forward and fused backward), where the including shader defines SN_SPLIT;
 * without it, the macros below give the usual CPU form (row_cpu.glsl: a
 * group of RC_ROWS rows, or a lane of partials, per invocation). Include
 * after row_cpu.glsl.
 *
 * Split, the SN_LANES invocations of a subgroup share what one invocation
 * owns otherwise: lane l takes the vec4s l, l + SN_LANES, ... of each row,
 * and a sum over a row is the subgroup's sum of the lanes' sums (subgroupAdd,
 * so the order of a row's sums depends on the subgroup size, still fixed
 * for a device). The host sets SN_LANES to the device's one subgroup size,
 * makes every workgroup whole subgroups and takes rows of
 * SVK_NORM_SPLIT_FWD_MIN_WIDTH (forward) or SVK_NORM_SPLIT_BWD_MIN_WIDTH
 * (backward) and wider only (lib/ops/norm_param_reduce.h).
 *
 * Why: with a row per invocation, a SIMD batch walks 8 rows side by side,
 * RC_ROWS each, and every pass reads them again: at C = 1024 the forward's
 * x, y and h are about 400 KiB a batch, beyond a core's L1. Split, a batch
 * walks RC_ROWS rows, and a fetch of 8 lanes is 128 contiguous bytes
 * instead of 8 rows' 16. Measured on lavapipe (svk-bench, subgroup size 8,
 * 3 rounds alternated with SVK_NORM_SPLIT=0, N = 1024 and 4096): both
 * SiameseNorm forwards 1.54-1.59 times as fast at C = 1024 and 1.09-1.18
 * at C = 512, but 0.86-0.95 at C = 256 (each row group's reductions and
 * statistics then weigh more), hence the minimum widths; the backwards
 * 1.0-1.31 at C = 1024 and 0.91-0.97 at 512 (16 sums a row to reduce).
 */
#ifdef SN_SPLIT
layout(constant_id = 5) const uint SN_LANES = 8u;
#define SN_LANE gl_SubgroupInvocationID
/* The subgroup's row group (forward) or lane of partials (backward). */
#define SN_GROUP (svk_group_index() * gl_NumSubgroups + gl_SubgroupID)
/* A row's sum from the lanes' plain sums ... */
#define SN_ALL(v) subgroupAdd(v)
/* ... and from their compensated sums (s - c each, rc_add). */
#define SN_TOTAL(s, c) (subgroupAdd(s) - subgroupAdd(c))
/* The lane that writes a row's statistics. */
#define SN_FIRST_LANE (SN_LANE == 0u)
#else
const uint SN_LANES = 1u;
#define SN_LANE 0u
#define SN_GROUP rc_unit()
#define SN_ALL(v) (v)
#define SN_TOTAL(s, c) (s)
#define SN_FIRST_LANE true
#endif
/* The loop over this invocation's elements of a row (all of it unsplit);
 * C: the row width in scope. */
#define SN_ROW_LOOP(i) for (uint i = SN_LANE * RC_STEP; i < C; i += RC_STEP * SN_LANES)
