/* Push constants of shaders/siamese_norm_bwd_fused_cpu.comp (see
 * push_defs.h): SiameseNorm's whole backward pass in one dispatch. Norms,
 * gains, biases and statistics are laid out as in push_siamese_norm_bwd.h;
 * offsets are in elements from the start of each bound buffer. */
#ifndef SVK_PUSH_SIAMESE_NORM_BWD_FUSED_H
#define SVK_PUSH_SIAMESE_NORM_BWD_FUSED_H

#include "push_defs.h"
#include "siamese_norm_flags.h"

/* Lanes as in svk_push_norm_bwd. Lane p's partials are row p of six
 * [n_part, C] blocks in the scratch buffer: P's gain block at off_part,
 * each norm's bias block part_b elements after its gain block, and norm k's
 * gain block k * part_norm elements after P's (the layout of the staged
 * form, which norm_param_reduce.comp reads). */
SVK_PUSH_BEGIN(svk_push_siamese_norm_bwd_fused)
    SVK_PUSH_U32(rows)
    SVK_PUSH_U32(C)
    SVK_PUSH_U32(rows_per_part)
    SVK_PUSH_U32(n_part)
    SVK_PUSH_U32(off_dh)    /* [rows, C] */
    SVK_PUSH_U32(off_dxn)   /* [rows, C], with SVK_SIAMESE_FLAG_ADD_DXN */
    SVK_PUSH_U32(off_dy_in) /* [rows, C], with SVK_SIAMESE_FLAG_ADD_DY */
    SVK_PUSH_U32(off_x)     /* [rows, C] */
    SVK_PUSH_U32(off_y)     /* [rows, C] */
    SVK_PUSH_U32(off_g)     /* [3, C] */
    SVK_PUSH_U32(off_b)     /* [3, C] (layernorm only) */
    SVK_PUSH_U32(off_mean)  /* [3, rows] (layernorm only) */
    SVK_PUSH_U32(off_rstd)  /* [3, rows] */
    SVK_PUSH_U32(off_dx)    /* [rows, C] */
    SVK_PUSH_U32(off_dy)    /* [rows, C] */
    SVK_PUSH_U32(off_part)  /* P's gain block, in the scratch buffer */
    SVK_PUSH_U32(part_b)    /* elements from a gain block to its bias block */
    SVK_PUSH_U32(part_norm) /* elements from one norm's gain block to the next's */
    SVK_PUSH_U32(flags)     /* SVK_SIAMESE_FLAG_* */
    SVK_PUSH_U32(off_dz)    /* [rows, C], with SVK_SIAMESE_FLAG_DZ */
    SVK_PUSH_F32(dz_c)      /* dz = dx / dz_c + dy */
SVK_PUSH_END(svk_push_siamese_norm_bwd_fused)

#endif
