/* dist.h without MPI: svk-train is always one process, rank 0 of 1. */
#include <stdio.h>

#include "dist.h"

bool svk_train_dist_init(int *argc, char ***argv, svk_train_dist *d)
{
    (void)argc;
    (void)argv;
    *d = (svk_train_dist){.rank = 0, .size = 1};
    return true;
}

int svk_train_dist_reduce(void *user, svk_grad_sums *sums)
{
    /* One process holds the totals already (never installed: a run of
     * one rank trains without a reducer). */
    (void)user;
    (void)sums;
    return 0;
}

int svk_train_dist_bucket(void *user, const svk_grad_bucket *bucket)
{
    (void)user;
    (void)bucket;
    return 0;
}

int svk_train_dist_finish(void *user, svk_grad_sums *sums)
{
    (void)user;
    (void)sums;
    return 0;
}

bool svk_train_dist_agree(svk_train_dist *d, uint64_t h, uint64_t step)
{
    (void)d;
    (void)h;
    (void)step;
    return true;
}

int svk_train_dist_end(svk_train_dist *d, int rc)
{
    (void)d;
    return rc;
}
