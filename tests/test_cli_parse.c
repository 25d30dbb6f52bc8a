/*
 * The tools' command-line value parsers (tools/common/cli_parse.c): every
 * accepted form and every refused one, at the boundaries of each range,
 * and the message of a refusal naming the option, the value and the range.
 * A refusal must leave the output untouched.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_parse.h"
#include "test_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef struct int_case {
    const char *text;
    uint64_t min, max;
    bool ok;
    uint64_t want;
} int_case;

static const int_case u32_cases[] = {
    {"0", 0, UINT32_MAX, true, 0},
    {"1", 0, UINT32_MAX, true, 1},
    {"007", 0, UINT32_MAX, true, 7},
    {"4294967295", 0, UINT32_MAX, true, UINT32_MAX},
    {"4294967296", 0, UINT32_MAX, false, 0},
    {"99999999999999999999999", 0, UINT32_MAX, false, 0},
    {"-1", 0, UINT32_MAX, false, 0},
    {"-0", 0, UINT32_MAX, false, 0},
    {"+1", 0, UINT32_MAX, false, 0},
    {"", 0, UINT32_MAX, false, 0},
    {" 1", 0, UINT32_MAX, false, 0},
    {"1 ", 0, UINT32_MAX, false, 0},
    {"1\n", 0, UINT32_MAX, false, 0},
    {"0x10", 0, UINT32_MAX, false, 0},
    {"1e3", 0, UINT32_MAX, false, 0},
    {"1.0", 0, UINT32_MAX, false, 0},
    {"12x", 0, UINT32_MAX, false, 0},
    {"many", 0, UINT32_MAX, false, 0},
    /* A range: both ends taken, one past each refused. */
    {"0", 1, 1048576, false, 0},
    {"1", 1, 1048576, true, 1},
    {"1048576", 1, 1048576, true, 1048576},
    {"1048577", 1, 1048576, false, 0},
    {"9", 1, 9, true, 9},
    {"10", 1, 9, false, 0},
};

static const int_case u64_cases[] = {
    {"0", 0, UINT64_MAX, true, 0},
    {"4294967296", 0, UINT64_MAX, true, 4294967296ull},
    {"18446744073709551615", 0, UINT64_MAX, true, UINT64_MAX},
    {"18446744073709551616", 0, UINT64_MAX, false, 0},
    {"99999999999999999999", 0, UINT64_MAX, false, 0},
    {"-1", 0, UINT64_MAX, false, 0},
    {"", 0, UINT64_MAX, false, 0},
    {" 1", 0, UINT64_MAX, false, 0},
    {"1 ", 0, UINT64_MAX, false, 0},
    {"0x10", 0, UINT64_MAX, false, 0},
    {"1e3", 0, UINT64_MAX, false, 0},
    {"100", 0, 99, false, 0},
};

typedef struct float_case {
    const char *text;
    double min, max;
    bool ok;
    double want; /* compared after rounding to the parser's type */
} float_case;

static const float_case float_cases[] = {
    {"0", 0, INFINITY, true, 0},
    {"1", 0, INFINITY, true, 1},
    {"3e-3", 0, INFINITY, true, 3e-3},
    {"1E-3", 0, INFINITY, true, 1e-3},
    {"1e3", 0, INFINITY, true, 1000},
    {"1e+3", 0, INFINITY, true, 1000},
    {"1e30", 0, INFINITY, true, 1e30},
    {"0.5", 0, INFINITY, true, 0.5},
    {".5", 0, INFINITY, true, 0.5},
    {"5.", 0, INFINITY, true, 5},
    {"-0.5", -1, 1, true, -0.5},
    {"1e-400", 0, INFINITY, true, 0}, /* underflow: rounds to 0 */
    {"-1", 0, INFINITY, false, 0},
    {"", 0, INFINITY, false, 0},
    {" 1", 0, INFINITY, false, 0},
    {"1 ", 0, INFINITY, false, 0},
    {"+1", 0, INFINITY, false, 0},
    {"nan", 0, INFINITY, false, 0},
    {"NaN", 0, INFINITY, false, 0},
    {"-nan", -INFINITY, INFINITY, false, 0},
    {"inf", 0, INFINITY, false, 0},
    {"-inf", -INFINITY, INFINITY, false, 0},
    {"infinity", 0, INFINITY, false, 0},
    {"0x10", 0, INFINITY, false, 0},
    {"0x1p3", 0, INFINITY, false, 0},
    {"1e400", 0, INFINITY, false, 0},
    {"1e", 0, INFINITY, false, 0},
    {"1e+", 0, INFINITY, false, 0},
    {".", 0, INFINITY, false, 0},
    {"-", 0, INFINITY, false, 0},
    {"1.2.3", 0, INFINITY, false, 0},
    {"1,5", 0, INFINITY, false, 0},
    {"abc", 0, INFINITY, false, 0},
    /* A range: both ends taken, just past each refused. */
    {"0", 0, 100, true, 0},
    {"100", 0, 100, true, 100},
    {"100.001", 0, 100, false, 0},
    {"-0.001", 0, 100, false, 0},
};

typedef struct device_case {
    const char *text;
    bool ok, cpu;
    int32_t index;
} device_case;

static const device_case device_cases[] = {
    {"cpu", true, true, -1},
    {"vulkan", true, false, -1},
    {"vulkan:0", true, false, 0},
    {"vulkan:3", true, false, 3},
    {"vulkan:2147483647", true, false, INT32_MAX},
    {"vulkan:2147483648", false, false, 0},
    {"vulkan:4294967295", false, false, 0},
    {"vulkan:-1", false, false, 0},
    {"vulkan:abc", false, false, 0},
    {"vulkan:", false, false, 0},
    {"vulkan: 1", false, false, 0},
    {"vulkan:1 ", false, false, 0},
    {"vulkan:0x1", false, false, 0},
    {"vulkan:1e3", false, false, 0},
    {"vulkan0", false, false, 0},
    {"Vulkan", false, false, 0},
    {"cpu:0", false, false, 0},
    {"gpu", false, false, 0},
    {"", false, false, 0},
};

typedef struct vk_device_case {
    const char *text;
    bool ok;
    int32_t index;     /* when a number */
    const char *name;  /* when a name */
} vk_device_case;

static const vk_device_case vk_device_cases[] = {
    {"0", true, 0, NULL},
    {"2147483647", true, INT32_MAX, NULL},
    {"llvmpipe", true, -1, "llvmpipe"},
    {"NVIDIA GeForce", true, -1, "NVIDIA GeForce"},
    {"3dfx", true, -1, "3dfx"}, /* starts with a digit, but is no number */
    {"2147483648", false, 0, NULL},
    {"4294967295", false, 0, NULL},
    {"99999999999999999999999", false, 0, NULL},
    {"-1", false, 0, NULL},
    {"+1", false, 0, NULL},
    {"", false, 0, NULL},
};

static void expect_message(tu_tally *t, const svk_cli_error *err, const char *want)
{
    tu_check(t, !strcmp(err->text, want), "message \"%s\" (want \"%s\")", err->text, want);
}

int main(int argc, char **argv)
{
    tu_args args;
    tu_parse_args(argc, argv, "test_cli_parse", &args);
    tu_tally t = {0, 0};
    svk_cli_error err;

    for (size_t i = 0; i < N(u32_cases); i++) {
        const int_case *c = &u32_cases[i];
        uint32_t out = 12345;
        err.text[0] = '\0';
        bool ok = svk_cli_u32("--n", c->text, (uint32_t)c->min, (uint32_t)c->max, &out, &err);
        tu_check(&t, ok == c->ok && (ok ? out == c->want && !err.text[0] : out == 12345 && err.text[0]),
                 "u32 '%s' in %llu..%llu: %s%s%s", c->text, (unsigned long long)c->min,
                 (unsigned long long)c->max, ok ? "taken" : "refused", ok ? "" : ": ", err.text);
    }
    for (size_t i = 0; i < N(u64_cases); i++) {
        const int_case *c = &u64_cases[i];
        uint64_t out = 12345;
        err.text[0] = '\0';
        bool ok = svk_cli_u64("--seed", c->text, c->min, c->max, &out, &err);
        tu_check(&t, ok == c->ok && (ok ? out == c->want && !err.text[0] : out == 12345 && err.text[0]),
                 "u64 '%s' in %llu..%llu: %s%s%s", c->text, (unsigned long long)c->min,
                 (unsigned long long)c->max, ok ? "taken" : "refused", ok ? "" : ": ", err.text);
    }
    for (size_t i = 0; i < N(float_cases); i++) {
        const float_case *c = &float_cases[i];
        float f = 42.0f;
        double d = 42.0;
        err.text[0] = '\0';
        bool ok32 = svk_cli_f32("--x", c->text, (float)c->min, (float)c->max, &f, &err);
        tu_check(&t, ok32 == c->ok && (ok32 ? f == (float)c->want : f == 42.0f && err.text[0]),
                 "f32 '%s' in %g..%g: %s%s%s", c->text, c->min, c->max, ok32 ? "taken" : "refused",
                 ok32 ? "" : ": ", err.text);
        err.text[0] = '\0';
        bool ok64 = svk_cli_f64("--x", c->text, c->min, c->max, &d, &err);
        tu_check(&t, ok64 == c->ok && (ok64 ? d == c->want : d == 42.0 && err.text[0]),
                 "f64 '%s' in %g..%g: %s%s%s", c->text, c->min, c->max, ok64 ? "taken" : "refused",
                 ok64 ? "" : ": ", err.text);
    }
    /* Beyond float but within double: only the float parser refuses. */
    float f = 42.0f;
    double d = 42.0;
    tu_check(&t, !svk_cli_f32("--lr", "1e39", 0, INFINITY, &f, &err) && f == 42.0f, "f32 '1e39' refused: %s",
             err.text);
    tu_check(&t, svk_cli_f64("--lr", "1e39", 0, INFINITY, &d, &err) && d == 1e39, "f64 '1e39' taken");
    tu_check(&t, svk_cli_f32("--lr", "3.4e38", 0, INFINITY, &f, &err) && f == 3.4e38f, "f32 '3.4e38' taken");

    for (size_t i = 0; i < N(device_cases); i++) {
        const device_case *c = &device_cases[i];
        svk_cli_device_choice out = {.cpu = false, .index = 77};
        err.text[0] = '\0';
        bool ok = svk_cli_device("--device", c->text, &out, &err);
        tu_check(&t, ok == c->ok && (ok ? out.cpu == c->cpu && out.index == c->index : out.index == 77 && err.text[0]),
                 "device '%s': %s%s%s", c->text, ok ? "taken" : "refused", ok ? "" : ": ", err.text);
    }
    for (size_t i = 0; i < N(vk_device_cases); i++) {
        const vk_device_case *c = &vk_device_cases[i];
        int32_t index = -1;
        const char *name = NULL;
        err.text[0] = '\0';
        bool ok = svk_cli_vulkan_device("--device", c->text, &index, &name, &err);
        bool same = ok ? index == c->index && (c->name ? name && !strcmp(name, c->name) : !name)
                       : index == -1 && !name && err.text[0];
        tu_check(&t, ok == c->ok && same, "vulkan device '%s': %s%s%s", c->text, ok ? "taken" : "refused",
                 ok ? "" : ": ", err.text);
    }

    /* The messages: the option, the value quoted, what is allowed. */
    uint32_t u = 0;
    uint64_t u64 = 0;
    svk_cli_device_choice dc;
    int32_t index;
    const char *name;
    svk_cli_u32("--tokens", "-1", 1, 1048576, &u, &err);
    expect_message(&t, &err, "--tokens '-1': not an integer in 1..1048576");
    svk_cli_u32("--tokens", "", 1, 1048576, &u, &err);
    expect_message(&t, &err, "--tokens '': not an integer in 1..1048576");
    svk_cli_u64("--seed", "18446744073709551616", 0, UINT64_MAX, &u64, &err);
    expect_message(&t, &err, "--seed '18446744073709551616': not an integer in 0..18446744073709551615");
    svk_cli_f32("--lr", "nan", 0, INFINITY, &f, &err);
    expect_message(&t, &err, "--lr 'nan': not a finite number >= 0");
    svk_cli_f32("--temperature", "101", 0, 100, &f, &err);
    expect_message(&t, &err, "--temperature '101': not a number in 0..100");
    svk_cli_f32("--lr", "1e39", 0, INFINITY, &f, &err);
    expect_message(&t, &err, "--lr '1e39': beyond the largest float, 3.40282e+38");
    svk_cli_device("--device", "vulkan:abc", &dc, &err);
    expect_message(&t, &err, "--device 'vulkan:abc': not cpu, vulkan or vulkan:N with N in 0..2147483647");
    svk_cli_vulkan_device("--device", "-1", &index, &name, &err);
    expect_message(&t, &err, "--device '-1': not a device index in 0..2147483647 or a device name");

    svk_cli_u32("--steps", "1\n", 0, UINT32_MAX, &u, &err);
    expect_message(&t, &err, "--steps '1?': not an integer in 0..4294967295");
    /* A long value is shown cut, with "...", so the message keeps its end. */
    char longval[600], want[256];
    memset(longval, '9', sizeof(longval) - 1);
    longval[sizeof(longval) - 1] = '\0';
    snprintf(want, sizeof(want), "--steps '%.127s...': not an integer in 0..4294967295", longval);
    u = 5;
    tu_check(&t, !svk_cli_u32("--steps", longval, 0, UINT32_MAX, &u, &err) && u == 5, "a 599-digit value refused");
    expect_message(&t, &err, want);
    return tu_finish(&t);
}
