/*
 * Where an op range is cut into submissions (lib/model/submit_split.c):
 * runs of consecutive ops, none empty, each within the budget unless it is
 * one op over it alone (the longest such op reported), each as long as the
 * budget allows (the next op would pass it), covering every op in order.
 * Fixed cases, then random times from the printed seed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/submit_split.h"
#include "test_util.h"

static tu_tally tally;

static bool cuts_are(const size_t *got, size_t k, const size_t *want, size_t n_want)
{
    if (k + 1 != n_want)
        return false;
    for (size_t i = 0; i <= k; i++)
        if (got[i] != want[i])
            return false;
    return true;
}

/* The properties of a cut of op_ms[0 .. n) at budget, for any input. */
static bool well_cut(const double *op_ms, size_t n, double budget, const size_t *cut, size_t k, size_t longest)
{
    if (cut[0] != 0 || cut[k] != n || (n && k == 0))
        return false;
    size_t want_longest = n;
    for (size_t i = 0; i < n; i++)
        if (op_ms[i] > budget && (want_longest == n || op_ms[i] > op_ms[want_longest]))
            want_longest = i;
    if (longest != want_longest)
        return false;
    for (size_t r = 0; r < k; r++) {
        if (cut[r + 1] <= cut[r])
            return false;
        double sum = 0;
        for (size_t i = cut[r]; i < cut[r + 1]; i++)
            sum += op_ms[i];
        if (sum > budget && cut[r + 1] - cut[r] > 1)
            return false;
        if (r + 1 < k && sum <= budget && sum + op_ms[cut[r + 1]] <= budget)
            return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_submit_split", &args);
    size_t cut[80], longest;

    const double even[4] = {1, 1, 1, 1};
    size_t k = svk_submit_split(even, 4, 2, cut, &longest);
    tu_check(&tally, cuts_are(cut, k, (const size_t[]){0, 2, 4}, 3) && longest == 4,
             "four ops of 1 ms at 2 ms: two runs of two");
    k = svk_submit_split(even, 4, 10, cut, &longest);
    tu_check(&tally, cuts_are(cut, k, (const size_t[]){0, 4}, 2), "four ops of 1 ms at 10 ms: one run");
    const double over[3] = {1, 5, 1};
    k = svk_submit_split(over, 3, 2, cut, &longest);
    tu_check(&tally, cuts_are(cut, k, (const size_t[]){0, 1, 2, 3}, 4) && longest == 1,
             "an op of 5 ms at 2 ms: a run of its own, reported");
    const double exact[4] = {1, 1, 3, 1};
    k = svk_submit_split(exact, 4, 3, cut, &longest);
    tu_check(&tally, cuts_are(cut, k, (const size_t[]){0, 2, 3, 4}, 4) && longest == 4,
             "an op of exactly the budget fits, alone");
    k = svk_submit_split(even, 0, 1, cut, &longest);
    tu_check(&tally, k == 0 && cut[0] == 0 && longest == 0, "no ops: no runs");
    k = svk_submit_split_even(70, 32, cut);
    tu_check(&tally, cuts_are(cut, k, (const size_t[]){0, 32, 64, 70}, 4), "70 ops by 32: 32, 32, 6");
    k = svk_submit_split_even(64, 32, cut);
    tu_check(&tally, cuts_are(cut, k, (const size_t[]){0, 32, 64}, 3), "64 ops by 32: 32, 32");

    uint64_t s = args.seed;
    int bad = 0;
    for (int trial = 0; trial < 2000; trial++) {
        double op_ms[79];
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const size_t n = (size_t)(s >> 33) % 80;
        const double budget = 0.5 + (double)((s >> 20) % 1000) / 100;
        for (size_t i = 0; i < n; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            op_ms[i] = (double)((s >> 33) % 1200) / 100;
        }
        k = svk_submit_split(op_ms, n, budget, cut, &longest);
        if (!well_cut(op_ms, n, budget, cut, k, longest) && bad++ < 3)
            printf("     trial %d: %zu ops at %g ms cut badly\n", trial, n, budget);
    }
    tu_check(&tally, bad == 0, "2000 random ranges cut well (%d not)", bad);
    return tu_finish(&tally);
}
