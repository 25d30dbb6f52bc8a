/*
 * Host allocation. Every malloc/calloc/realloc of libsvk goes through these
 * (tests/lint_alloc.sh refuses a bare call in lib/), for one reason: the
 * fault-injection test (tests/test_fault.c) makes the k-th allocation fail
 * and checks that each failure is reported, leaks nothing and leaves the
 * model usable or refused. Memory from them is released with free().
 *
 * cJSON allocates on its own (its hooks are process-wide, and setting them
 * would change the allocator of an application that uses cJSON too); its
 * failures reach libsvk as NULL results, which the callers check.
 */
#ifndef SVK_CORE_ALLOC_H
#define SVK_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *svk_malloc(size_t size);
void *svk_calloc(size_t n, size_t size);
void *svk_realloc(void *p, size_t size);
char *svk_strdup(const char *s);

/* Tests only. The k-th allocation from now (1-based) returns NULL; k = 0
 * disarms, UINT64_MAX only counts. Counting is process-wide and
 * thread-safe. */
void svk_alloc_fault_arm(uint64_t k);
/* While paused, allocations are neither counted nor failed (a test's own
 * checks between the steps it walks). */
void svk_alloc_fault_pause(int paused);
/* Allocations counted since the last arm. */
uint64_t svk_alloc_fault_count(void);
/* Whether the armed failure has happened. */
int svk_alloc_fault_fired(void);

#endif
