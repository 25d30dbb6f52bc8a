/* Fill, copy and add over n floats. Fill and copy are transfer commands
 * (vkCmdFillBuffer, vkCmdCopyBuffer: every driver's fastest path); add,
 * and the _kernel forms of fill and copy, run shaders/copy.comp (the
 * benchmark's copy-kernel limit and the shader's conformance rows). */
#ifndef SVK_OPS_COPY_H
#define SVK_OPS_COPY_H

#include "ops.h"

/* dst[0..n) = value. */
svk_status svk_fill_record(svk_cmdlist *cl, svk_tref dst, uint64_t n, float value, const char *label);
/* dst[0..n) = src[0..n); the ranges must not overlap. */
svk_status svk_copy_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label);
svk_status svk_fill_kernel_record(svk_cmdlist *cl, svk_tref dst, uint64_t n, float value, const char *label);
svk_status svk_copy_kernel_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label);
/* dst[0..n) += src[0..n); the ranges must not overlap. */
svk_status svk_add_record(svk_cmdlist *cl, svk_tref dst, svk_tref src, uint64_t n, const char *label);

#endif
