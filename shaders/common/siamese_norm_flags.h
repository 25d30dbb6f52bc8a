/* Flags of the SiameseNorm push constants (push_siamese_norm_fwd.h,
 * push_siamese_norm_bwd.h, push_siamese_norm_bwd_fused.h), shared by C and GLSL. */
#ifndef SVK_SIAMESE_NORM_FLAGS_H
#define SVK_SIAMESE_NORM_FLAGS_H

/* The norms are RMSNorms (else LayerNorms). */
#define SVK_SIAMESE_FLAG_RMS 1u
/* Forward: write xn = P(x) (the model output N_out(N_x(x) + N_y(y)) does not). */
#define SVK_SIAMESE_FLAG_XN 2u
/* Fused backward (push_siamese_norm_bwd_fused.h): dxn, the gradient reaching
 * xn from its later use, joins P's output gradient. */
#define SVK_SIAMESE_FLAG_ADD_DXN 4u
/* Fused backward: dy = dy_in + the gradient through Q. */
#define SVK_SIAMESE_FLAG_ADD_DY 8u
/* Fused backward: also write dz = dx / dz_c + dy (lib/ops/siamese_norm.h). */
#define SVK_SIAMESE_FLAG_DZ 16u

#endif
