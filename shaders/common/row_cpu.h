/* What the host shares with the CPU forms of the row kernels
 * (common/row_cpu.glsl); included by C (lib/ops) and GLSL. */
#ifndef SVK_ROW_CPU_H
#define SVK_ROW_CPU_H

/* Rows an invocation of the norms' CPU forms takes at a time (RC_ROWS in
 * row_cpu.glsl): the forward forms own groups of this many rows, the
 * backward forms walk their lanes this many rows at a time. */
#define SVK_ROW_CPU_ROWS 4u

#endif
