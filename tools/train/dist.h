/*
 * svk-train's data parallelism (docs/DISTRIBUTED.md): under mpirun each
 * process (rank) trains a replica of the model on its contiguous rows of
 * every global batch, and the gradients are summed across ranks before
 * clipping and AdamW through the library's hook (svk/grad_reduce.h), so
 * every replica applies the same update. dist_mpi.c does it with MPI;
 * dist_single.c, built when MPI is not, is the one-process case of the
 * same interface. Started without mpirun, either is one process.
 */
#ifndef SVK_TRAIN_DIST_H
#define SVK_TRAIN_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "svk/grad_reduce.h"

typedef struct svk_train_dist {
    int rank, size;      /* this process and the processes of the run (1: no data parallelism) */
    int local_rank;      /* this process among those of its machine: its device */
    double reduce_s;     /* seconds spent in the all-reduces so far */
    uint64_t reduces;    /* steps reduced so far */
    uint32_t buckets;    /* the latest step's buckets (svk_train_dist_bucket) */
    bool checking;       /* this step's buckets are being compared across the ranks */
    bool stop;           /* some rank was interrupted: every rank ends after the step that said so */
    bool differ;         /* the ranks' parameter hashes (or gradient buckets) differed: every rank knows, and ends */
} svk_train_dist;

/* Joins the run (MPI_Init where mpirun started this process); false, after
 * saying why, when that fails. */
bool svk_train_dist_init(int *argc, char ***argv, svk_train_dist *d);

/* The svk_grad_reduce_fn of a run of several ranks (user: the
 * svk_train_dist): sums the gradients, the loss and the counted targets
 * over the ranks, and whether any rank was interrupted (into d->stop). */
int svk_train_dist_reduce(void *user, svk_grad_sums *sums);

/* svk_model_set_grad_reduce_buckets's calls (user: the svk_train_dist):
 * each bucket summed over the ranks as the library hands it over, while
 * the device goes on with the backward; then the loss, the counted
 * targets and the interrupts, as svk_train_dist_reduce sums them. */
int svk_train_dist_bucket(void *user, const svk_grad_bucket *bucket);
int svk_train_dist_finish(void *user, svk_grad_sums *sums);

/* Whether every rank's parameters have hash h at step (--check-every);
 * on a mismatch each rank says so, naming the ranks and their hashes. */
bool svk_train_dist_agree(svk_train_dist *d, uint64_t h, uint64_t step);

/* Leaves the run with exit status rc. An ending every rank reaches at the
 * same step (success, a refused command line, divergence, interruption,
 * differing parameters: decided from the options or from values every
 * rank shares) finishes MPI; any other failure ends every rank (MPI_Abort), so
 * that none waits for a rank that will not come. Returns rc. */
int svk_train_dist_end(svk_train_dist *d, int rc);

#endif
