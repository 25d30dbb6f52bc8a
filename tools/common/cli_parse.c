#include "cli_parse.h"

#include <errno.h>
#include <stdlib.h>

bool svk_cli_parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    /* strtoull accepts a minus sign and negates: refuse it outright. */
    if (!*s || *end || errno || v > UINT32_MAX || s[0] == '-')
        return false;
    *out = (uint32_t)v;
    return true;
}
