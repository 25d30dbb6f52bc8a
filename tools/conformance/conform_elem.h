/*
 * Helpers the elementwise-family conformance files share (conform_gelu.c,
 * conform_bias.c, conform_embedding.c, conform_cross_entropy.c,
 * conform_clip.c, conform_adamw.c).
 */
#ifndef SVK_CF_CONFORM_ELEM_H
#define SVK_CF_CONFORM_ELEM_H

#include <stdio.h>
#include <string.h>

#include "conform.h"

/* An int32 [2] output the device wrote (valid, invalid counts), read back
 * through the float-typed cf_out: compared exactly, a count being exact.
 * The row still needs some cf_compare to pass: these only fail it. */
static inline void cf_elem_check_counts(cf_case *c, const cf_out *o, size_t valid, size_t invalid)
{
    if (!o || !o->host)
        return;
    int32_t got[2];
    memcpy(got, o->host, sizeof(got));
    if ((size_t)got[0] != valid || (size_t)got[1] != invalid)
        cf_fail(c, "%s: got %d valid, %d invalid; want %zu, %zu", o->name, got[0], got[1], valid, invalid);
}

#endif
