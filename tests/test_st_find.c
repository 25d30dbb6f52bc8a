/*
 * svk_st_find on a file of many tensors: every name is found, to the right
 * tensor, whatever the order of the header and of the data; absent names are
 * not; and a loader's three lookups per tensor stay fast (a linear search
 * made them quadratic: 50,000 tensors took tens of seconds, a hostile file
 * of a few hundred thousand, hours). The names are shuffled with the seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "test_util.h"

enum { N = 50000 };

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_st_find", &args);
    tu_tally t = {0, 0};
    cf_rng rng;
    cf_rng_seed(&rng, args.seed);

    /* Tensor i is "t.<perm[i]>", one I32 element holding perm[i], at data
     * offset 4 * i; the header lists them in another shuffled order. */
    static uint32_t perm[N], order[N];
    for (uint32_t i = 0; i < N; i++)
        perm[i] = order[i] = i;
    for (uint32_t i = N - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(cf_rng_next(&rng) % (i + 1)), k = (uint32_t)(cf_rng_next(&rng) % (i + 1)), s;
        s = perm[i], perm[i] = perm[j], perm[j] = s;
        s = order[i], order[i] = order[k], order[k] = s;
    }
    size_t cap = (size_t)N * 80 + 64, h = 0;
    char *header = malloc(cap);
    h += (size_t)snprintf(header + h, cap - h, "{");
    for (uint32_t n = 0; n < N; n++) {
        uint32_t i = order[n];
        h += (size_t)snprintf(header + h, cap - h, "%s\"t.%u\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[%u,%u]}",
                              n ? "," : "", perm[i], 4 * i, 4 * i + 4);
    }
    h += (size_t)snprintf(header + h, cap - h, "}");
    size_t size = 8 + h + 4 * (size_t)N;
    uint8_t *blob = malloc(size);
    for (int i = 0; i < 8; i++)
        blob[i] = (uint8_t)((uint64_t)h >> (8 * i));
    memcpy(blob + 8, header, h);
    for (uint32_t i = 0; i < N; i++)
        memcpy(blob + 8 + h + 4 * (size_t)i, &perm[i], 4);
    free(header);

    svk_st_file f;
    svk_status st = svk_st_parse(NULL, "many", blob, size, &f);
    tu_check(&t, st == SVK_OK && f.n_tensors == N, "a file of %d tensors parses: %s", N,
             st == SVK_OK ? "ok" : svk_last_error());
    if (st != SVK_OK)
        return tu_finish(&t);

    /* Three lookups per tensor, as the checkpoint loader makes. */
    int wrong = 0;
    double t0 = tu_now();
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t v = 0; v < N; v++) {
            char name[32];
            snprintf(name, sizeof(name), "t.%u", v);
            const svk_st_tensor *x = svk_st_find(&f, name);
            int32_t held;
            if (!x || strcmp(x->name, name) || x->bytes != 4) {
                wrong++;
                continue;
            }
            memcpy(&held, x->data, 4);
            wrong += held != (int32_t)v;
        }
    double dt = tu_now() - t0;
    tu_check(&t, wrong == 0, "every name found, to its own tensor (%d wrong)", wrong);
    /* 150,000 lookups: a binary search takes milliseconds; the bound is
     * generous for the sanitizer build and still far below a linear search. */
    tu_check(&t, dt < 2.0, "%d lookups in %.3f s", 3 * N, dt);

    static const char *const absent[] = {"t.", "t.-1", "t.50000", "t.0 ", "", "u.0", "t.00"};
    int found = 0;
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
        found += svk_st_find(&f, absent[i]) != NULL;
    tu_check(&t, found == 0, "absent names are not found (%d were)", found);
    int misplaced = 0;
    for (uint32_t i = 0; i < N; i++)
        misplaced += f.tensors[i].data != (const uint8_t *)f.blob + 8 + h + 4 * (size_t)i;
    tu_check(&t, misplaced == 0, "f.tensors stay in data order (%d not)", misplaced);
    svk_st_free(&f);

    /* An empty file of tensors: nothing to find. */
    static const char empty[] = "{}";
    size_t es = 8 + 2;
    uint8_t *eb = malloc(es);
    memset(eb, 0, 8);
    eb[0] = 2;
    memcpy(eb + 8, empty, 2);
    st = svk_st_parse(NULL, "empty", eb, es, &f);
    tu_check(&t, st == SVK_OK && !svk_st_find(&f, "t.0"), "an empty file finds nothing");
    if (st == SVK_OK)
        svk_st_free(&f);
    return tu_finish(&t);
}
