/* The one generator of libsvk's host side: splitmix64. Exact integer
 * arithmetic, so a seed reproduces the same stream on every machine. */
#ifndef SVK_CORE_RNG_H
#define SVK_CORE_RNG_H

#include <stdint.h>

static inline uint64_t svk_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so log() of it is finite. */
static inline double svk_uniform_open(uint64_t *state)
{
    return ((double)(svk_splitmix64(state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

#endif
