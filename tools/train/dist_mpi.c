/*
 * dist.h over MPI (Open MPI from Debian). The gradients are summed with
 * MPI_Allreduce in float32 from the host copies the library hands over:
 * bucket by bucket while the device runs the rest of the backward
 * (svk_model_set_grad_reduce_buckets, the default), or whole after the
 * backward pass (svk-train --reduce whole, the reference;
 * docs/DISTRIBUTED.md). MPI's default
 * error handler stays: a failed call ends the job, and mpirun ends every
 * rank when one dies, so no rank waits for a peer that is gone.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "cli_exit.h"
#include "dist.h"
#include "interrupt.h"

/* Whether a launcher started this process as a rank of a job: Open MPI's
 * mpirun, or one speaking PMIx or PMI (srun, hydra). A process started
 * alone stays one, and never initialises MPI, whose singleton start would
 * cost every plain run a daemon. */
static bool launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

static bool initialised(void)
{
    int on = 0, off = 0;
    MPI_Initialized(&on);
    MPI_Finalized(&off);
    return on && !off;
}

static void mpi_message(int rank, const char *call, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof(text), "error %d", rc);
    fprintf(stderr, "svk-train: rank %d: %s failed: %s\n", rank, call, text);
}

bool svk_train_dist_init(int *argc, char ***argv, svk_train_dist *d)
{
    *d = (svk_train_dist){.rank = 0, .size = 1};
    if (!launched())
        return true;
    int rc = MPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(MPI_COMM_WORLD, &d->size);
    MPI_Comm local;
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &local);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_rank(local, &d->local_rank);
        MPI_Comm_free(&local);
    }
    if (rc != MPI_SUCCESS) {
        mpi_message(d->rank, "starting MPI", rc);
        return false;
    }
    return true;
}

/* MPI counts are int: the gradient goes in pieces of at most 2^30. */
#define PIECE (1u << 30)

/* The loss, the count (exact in a double up to 2^53) and the interrupts
 * in one call: every rank then knows whether any was interrupted, and all
 * stop after the same step. */
static int reduce_small(svk_train_dist *d, svk_grad_sums *s)
{
    double small[3] = {s->loss_sum, (double)s->targets, svk_train_interrupted() ? 1.0 : 0.0};
    const int rc = MPI_Allreduce(MPI_IN_PLACE, small, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        mpi_message(d->rank, "MPI_Allreduce of the loss and the counted targets", rc);
        return rc;
    }
    s->loss_sum = small[0];
    s->targets = (uint64_t)small[1];
    d->stop = d->stop || small[2] > 0;
    return 0;
}

static int reduce_floats(svk_train_dist *d, float *x, uint64_t count)
{
    int rc = MPI_SUCCESS;
    for (uint64_t at = 0; rc == MPI_SUCCESS && at < count; at += PIECE) {
        const uint64_t n = count - at < PIECE ? count - at : PIECE;
        rc = MPI_Allreduce(MPI_IN_PLACE, x + at, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rc != MPI_SUCCESS)
        mpi_message(d->rank, "MPI_Allreduce of the gradients", rc);
    return rc;
}

int svk_train_dist_reduce(void *user, svk_grad_sums *s)
{
    svk_train_dist *d = user;
    const double t0 = MPI_Wtime();
    int rc = reduce_small(d, s);
    if (rc == 0)
        rc = reduce_floats(d, s->grads, s->count);
    d->reduce_s += MPI_Wtime() - t0;
    d->reduces += rc == 0;
    return rc;
}

/* Blocking, not MPI_Iallreduce: without a progress thread Open MPI moves a
 * non-blocking collective only inside MPI calls, and this thread spends
 * the time between buckets waiting for the device, so the bucket would
 * travel at the finish call, after the backward. Blocking here, it travels
 * while the device runs the rest of the backward. */
/* Whether every rank cut the same bucket here: the layout follows from
 * the configuration and --accum, which the ranks share, but ranks whose
 * buckets differed would sum unrelated gradients (or wait forever for a
 * call of another size), so a step whose bucket count is new (the first)
 * has its buckets compared: one
 * MPI_MAX of each number and of its negation gives the largest and the
 * smallest. */
static int same_bucket(svk_train_dist *d, const svk_grad_bucket *b)
{
    const int64_t mine[3] = {(int64_t)b->buckets, (int64_t)b->offset, (int64_t)b->count};
    int64_t all[6] = {mine[0], mine[1], mine[2], -mine[0], -mine[1], -mine[2]};
    int rc = MPI_Allreduce(MPI_IN_PLACE, all, 6, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        mpi_message(d->rank, "MPI_Allreduce comparing the ranks' gradient buckets", rc);
        return rc;
    }
    if (all[0] != -all[3] || all[1] != -all[4] || all[2] != -all[5]) {
        fprintf(stderr, "svk-train: rank %d: the ranks cut their gradients into different buckets (bucket %u: "
                        "this rank's %" PRIu64 " gradients from %" PRIu64 " of %u buckets; the ranks' counts span "
                        "%" PRId64 "..%" PRId64 "); every rank needs the same model, --accum and --bucket-kb\n",
                d->rank, b->index, b->count, b->offset, b->buckets, -all[5], all[2]);
        /* Every rank has seen the same numbers: all end, together. */
        d->differ = true;
        return 1;
    }
    return 0;
}

int svk_train_dist_bucket(void *user, const svk_grad_bucket *b)
{
    svk_train_dist *d = user;
    const double t0 = MPI_Wtime();
    int rc = b->buckets != d->buckets || d->checking ? same_bucket(d, b) : 0;
    /* The step's later buckets are compared too. */
    d->checking = b->index + 1 < b->buckets && (b->buckets != d->buckets || d->checking);
    d->buckets = b->buckets;
    if (rc == 0)
        rc = reduce_floats(d, b->grads, b->count);
    d->reduce_s += MPI_Wtime() - t0;
    return rc;
}

int svk_train_dist_finish(void *user, svk_grad_sums *s)
{
    svk_train_dist *d = user;
    const double t0 = MPI_Wtime();
    const int rc = reduce_small(d, s);
    d->reduce_s += MPI_Wtime() - t0;
    d->reduces += rc == 0;
    return rc;
}

bool svk_train_dist_agree(svk_train_dist *d, uint64_t h, uint64_t step)
{
    if (d->size == 1)
        return true;
    uint64_t *all = calloc((size_t)d->size, sizeof(*all));
    if (!all) {
        fprintf(stderr, "svk-train: rank %d: out of memory comparing the ranks' parameters\n", d->rank);
        return false;
    }
    int rc = MPI_Allgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    bool same = rc == MPI_SUCCESS;
    for (int r = 1; same && r < d->size; r++)
        same = all[r] == all[0];
    if (rc != MPI_SUCCESS) {
        mpi_message(d->rank, "MPI_Allgather of the parameter hashes", rc);
    } else if (!same) {
        /* One write, so that the ranks' lines do not interleave. */
        char line[1024];
        int at = snprintf(line, sizeof(line), "svk-train: rank %d: the ranks' parameters differ after step %" PRIu64
                          " (--check-every), so their updates have diverged; stopping. Hashes:", d->rank, step);
        for (int r = 0; r < d->size && at > 0 && (size_t)at < sizeof(line); r++)
            at += snprintf(line + at, sizeof(line) - (size_t)at, " rank %d %016" PRIx64 "%s", r, all[r],
                           all[r] == h ? "" : " (differs)");
        fprintf(stderr, "%s%s\n", line, at > 0 && (size_t)at >= sizeof(line) ? "..." : "");
        d->differ = true;
    }
    free(all);
    return same;
}

int svk_train_dist_end(svk_train_dist *d, int rc)
{
    if (!initialised())
        return rc;
    fflush(stdout);
    fflush(stderr);
    /* MPI_Abort only where a rank may be waiting for this one: when
     * several ranks abort at once, Debian's Open MPI 4.1.4 mpirun can
     * crash (in pmix_server_log_fn) instead of reporting. */
    const bool together = d->differ || rc == SVK_EXIT_OK || rc == SVK_EXIT_USAGE || rc == SVK_EXIT_DIVERGED ||
                          rc == SVK_EXIT_INTERRUPTED;
    if (!together && d->size > 1)
        MPI_Abort(MPI_COMM_WORLD, rc);
    MPI_Finalize();
    return rc;
}
