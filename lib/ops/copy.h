/* Fill, copy and add over n floats (shaders/copy.comp). */
#ifndef SVK_OPS_COPY_H
#define SVK_OPS_COPY_H

#include "ops.h"

/* dst[0..n) = value. */
svk_status svk_fill_record(svk_cmdlist *cl, svk_tref dst, uint64_t n, float value, const char *label);
/* dst[0..n) = src[0..n); the ranges must not overlap. */
svk_status svk_copy_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label);
/* dst[0..n) += src[0..n); the ranges must not overlap. */
svk_status svk_add_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label);

#endif
