/* The CPU backend in float (see plan_cpu_tmpl.c). */
#define SVK_REF_BITS 32
#include "plan_cpu_tmpl.c"
