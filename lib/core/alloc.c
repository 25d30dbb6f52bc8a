#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

/* Process-wide, unlike everything else in libsvk: the point is to fail the
 * k-th allocation whichever object makes it. Disarmed (fail_at == 0) the
 * cost is one relaxed atomic load per allocation. */
static _Atomic uint64_t fail_at;
static _Atomic uint64_t count;
static atomic_int fired, paused_;

static int should_fail(void)
{
    uint64_t k = atomic_load_explicit(&fail_at, memory_order_relaxed);
    if (k == 0 || atomic_load(&paused_))
        return 0;
    uint64_t n = atomic_fetch_add(&count, 1) + 1;
    if (n == k) {
        atomic_store(&fired, 1);
        return 1;
    }
    return 0;
}

void *svk_malloc(size_t size)
{
    return should_fail() ? NULL : malloc(size);
}

void *svk_calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : calloc(n, size);
}

void *svk_realloc(void *p, size_t size)
{
    return should_fail() ? NULL : realloc(p, size);
}

char *svk_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = svk_malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

void svk_alloc_fault_arm(uint64_t k)
{
    atomic_store(&fail_at, 0);
    atomic_store(&count, 0);
    atomic_store(&fired, 0);
    atomic_store(&fail_at, k);
}

void svk_alloc_fault_pause(int paused)
{
    atomic_store(&paused_, paused);
}

uint64_t svk_alloc_fault_count(void)
{
    return atomic_load(&count);
}

int svk_alloc_fault_fired(void)
{
    return atomic_load(&fired);
}
