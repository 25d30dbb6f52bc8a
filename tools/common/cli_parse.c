#include "cli_parse.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool refuse(svk_cli_error *err, const char *opt, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool refuse(svk_cli_error *err, const char *opt, const char *text, const char *fmt, ...)
{
    /* The value is quoted so that "", " 1" and "1 " show what was given;
     * control characters become '?' so that the message stays one line. */
    char shown[128];
    size_t k = 0;
    for (; text[k] && k + 1 < sizeof(shown); k++)
        shown[k] = (unsigned char)text[k] < 0x20 || text[k] == 0x7f ? '?' : text[k];
    shown[k] = '\0';
    int n = snprintf(err->text, sizeof(err->text), "%s '%s%s': ", opt, shown, text[k] ? "..." : "");
    if (n >= 0 && (size_t)n < sizeof(err->text)) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text + n, sizeof(err->text) - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* [0-9]+ to a uint64_t. Written out rather than strtoull, which skips
 * leading spaces, takes a sign (and negates: "-1" becomes 2^64 - 1) and,
 * with base 0, hexadecimal and octal. */
static bool digits_u64(const char *s, uint64_t *out)
{
    if (!*s)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool svk_cli_u64(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, svk_cli_error *err)
{
    uint64_t v;
    if (!digits_u64(text, &v) || v < min || v > max)
        return refuse(err, opt, text, "not an integer in %llu..%llu", (unsigned long long)min,
                      (unsigned long long)max);
    *out = v;
    return true;
}

bool svk_cli_u32(const char *opt, const char *text, uint32_t min, uint32_t max, uint32_t *out, svk_cli_error *err)
{
    uint64_t v;
    if (!svk_cli_u64(opt, text, min, max, &v, err))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* The decimal grammar of svk_cli_f64: strtod alone also takes leading
 * spaces, "+", hexadecimal floats, "inf", "infinity" and "nan(...)". */
static bool decimal_form(const char *s)
{
    if (*s == '-')
        s++;
    size_t int_digits = strspn(s, "0123456789");
    s += int_digits;
    size_t frac_digits = 0;
    if (*s == '.') {
        s++;
        frac_digits = strspn(s, "0123456789");
        s += frac_digits;
    }
    if (int_digits + frac_digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        size_t exp_digits = strspn(s, "0123456789");
        if (exp_digits == 0)
            return false;
        s += exp_digits;
    }
    return *s == '\0';
}

static bool refuse_number(svk_cli_error *err, const char *opt, const char *text, double min, double max)
{
    if (isinf(max))
        return refuse(err, opt, text, "not a finite number >= %g", min);
    return refuse(err, opt, text, "not a number in %g..%g", min, max);
}

bool svk_cli_f64(const char *opt, const char *text, double min, double max, double *out, svk_cli_error *err)
{
    if (!decimal_form(text))
        return refuse_number(err, opt, text, min, max);
    /* Overflow gives infinity, refused here; underflow ("1e-400") gives 0
     * or a subnormal, taken as the rounding it is. */
    double v = strtod(text, NULL);
    if (!isfinite(v) || v < min || v > max)
        return refuse_number(err, opt, text, min, max);
    *out = v;
    return true;
}

bool svk_cli_f32(const char *opt, const char *text, float min, float max, float *out, svk_cli_error *err)
{
    double v;
    /* The range in double first, so that "1e39" is refused rather than
     * rounded to infinity, whatever max is. */
    if (!svk_cli_f64(opt, text, min, max, &v, err))
        return false;
    if (fabs(v) > FLT_MAX)
        return refuse(err, opt, text, "beyond the largest float, %g", (double)FLT_MAX);
    *out = (float)v;
    return true;
}

bool svk_cli_device(const char *opt, const char *text, svk_cli_device_choice *out, svk_cli_error *err)
{
    uint64_t idx = 0;
    if (!strcmp(text, "cpu")) {
        *out = (svk_cli_device_choice){.cpu = true, .index = -1};
    } else if (!strcmp(text, "vulkan")) {
        *out = (svk_cli_device_choice){.cpu = false, .index = -1};
    } else if (!strncmp(text, "vulkan:", 7) && digits_u64(text + 7, &idx) && idx <= SVK_CLI_DEVICE_INDEX_MAX) {
        *out = (svk_cli_device_choice){.cpu = false, .index = (int32_t)idx};
    } else {
        return refuse(err, opt, text, "not cpu, vulkan or vulkan:N with N in 0..%d", SVK_CLI_DEVICE_INDEX_MAX);
    }
    return true;
}

bool svk_cli_vulkan_device(const char *opt, const char *text, int32_t *index, const char **name,
                           svk_cli_error *err)
{
    const char *magnitude = text[0] == '-' || text[0] == '+' ? text + 1 : text;
    const bool numeric = *magnitude && strspn(magnitude, "0123456789") == strlen(magnitude);
    if (*text && !numeric) {
        *index = -1;
        *name = text;
        return true;
    }
    uint64_t idx;
    if (!numeric || magnitude != text || !digits_u64(text, &idx) || idx > SVK_CLI_DEVICE_INDEX_MAX)
        return refuse(err, opt, text, "not a device index in 0..%d or a device name", SVK_CLI_DEVICE_INDEX_MAX);
    *index = (int32_t)idx;
    *name = NULL;
    return true;
}
