/*
 * Counting valid and invalid int32 indices on the device
 * (shaders/index_check.comp): tokens for the embedding, targets for the
 * cross-entropy. The counts stay in device memory: the cross-entropy reads
 * its count there, and the host reads them only when it wants to report.
 */
#ifndef SVK_OPS_INDEX_CHECK_H
#define SVK_OPS_INDEX_CHECK_H

#include <stdbool.h>
#include "ops.h"

typedef struct svk_index_check_args {
    uint64_t n;         /* indices, 1 <= n < 2^31 */
    uint64_t V;         /* valid indices are [0, V), 1 <= V <= 2^31 */
    svk_tref idx;       /* [n] int32 */
    svk_tref counts;    /* [2] int32, written (=): the number of valid indices,
                         * then of invalid ones */
    bool has_ignore;    /* when set, `ignore` counts as neither (e.g. target -1) */
    int32_t ignore;
    const char *label;  /* names the dispatch in messages and timings; may be NULL */
} svk_index_check_args;

svk_status svk_index_check_record(svk_cmdlist *cl, const svk_index_check_args *a);

#endif
