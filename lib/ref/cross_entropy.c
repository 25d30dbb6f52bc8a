/* Reference fused softmax + cross-entropy loss + its gradient (docs/MODEL.md, "Building blocks"). */
#include "real.h"

static int counted(int32_t target, size_t V)
{
    return target >= 0 && (uint64_t)target < (uint64_t)V;
}

size_t SVK_REF(cross_entropy_count)(size_t rows, size_t V, const int32_t *targets, size_t *invalid)
{
    size_t count = 0, bad = 0;
    for (size_t r = 0; r < rows; r++) {
        if (counted(targets[r], V))
            count++;
        else if (targets[r] != -1)
            bad++;
    }
    if (invalid)
        *invalid = bad;
    return count;
}

/* The mean over rows is summed in double even in the float build: it runs
 * over every position of the batch (thousands), where a float sum would add
 * an error of its own that no GPU reduction order shares; the per-row sums
 * run over one vocabulary and stay in svk_real. */
double SVK_REF(cross_entropy_rows)(size_t rows, size_t V, const svk_real *logits, const int32_t *targets,
                                   size_t count, svk_real *dlogits, svk_real *losses)
{
    double total = 0;
    for (size_t r = 0; r < rows; r++) {
        const svk_real *l = logits + r * V;
        svk_real *dl = dlogits ? dlogits + r * V : NULL;
        int32_t tgt = targets[r];
        if (!counted(tgt, V)) {
            if (losses)
                losses[r] = 0;
            if (dl)
                for (size_t i = 0; i < V; i++)
                    dl[i] = 0;
            continue;
        }
        /* log-sum-exp shifted by the row maximum: every exponent is <= 0, so
         * nothing overflows even for logits ~1e4, and the largest term is
         * exactly 1 so the sum is >= 1 and its log finite. The loss is
         * (max - l[t]) + log(sum): the difference of two nearby large logits
         * is taken first, exactly, instead of subtracting l[t] from a large
         * log-sum-exp. */
        svk_real mx = l[0];
        for (size_t i = 1; i < V; i++)
            if (l[i] > mx)
                mx = l[i];
        svk_real sum = 0;
        for (size_t i = 0; i < V; i++)
            sum += ref_exp(l[i] - mx);
        svk_real loss = (mx - l[tgt]) + ref_log(sum);
        total += (double)loss;
        if (losses)
            losses[r] = loss;
        if (dl) {
            /* l[i] is read before dl[i] is written (and l[tgt] was used
             * above), so dlogits may equal logits. */
            for (size_t i = 0; i < V; i++) {
                svk_real p = ref_exp(l[i] - mx) / sum;
                dl[i] = (p - ((size_t)tgt == i ? 1 : 0)) / (svk_real)count;
            }
        }
    }
    return total;
}

svk_real SVK_REF(cross_entropy)(size_t rows, size_t V, const svk_real *logits, const int32_t *targets,
                                svk_real *dlogits, svk_real *losses, size_t *invalid)
{
    const size_t count = SVK_REF(cross_entropy_count)(rows, V, targets, invalid);
    const double total = SVK_REF(cross_entropy_rows)(rows, V, logits, targets, count, dlogits, losses);
    return count ? (svk_real)(total / (double)count) : 0;
}
