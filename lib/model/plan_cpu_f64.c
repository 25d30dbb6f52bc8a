/* The CPU backend in double, for gradient checks (see plan_cpu_tmpl.c). */
#define SVK_REF_BITS 64
#include "plan_cpu_tmpl.c"
