/*
 * The values of the tools' command-line options (svk-train, svk-generate,
 * svk-bench, svk-conformance): one strict rule for every tool, so that
 * "--tokens -1", "--seed 99999999999999999999" or "--device vulkan:abc" is
 * refused the same way everywhere instead of wrapping, saturating or
 * falling back to a default.
 *
 * Every parser takes the whole string or nothing: no leading or trailing
 * spaces, no sign on integers, no hexadecimal, no "nan" or "inf", and a
 * value outside [min, max] is refused. On refusal it returns false, leaves
 * *out unchanged and writes into err one line that names the option, the
 * value as given and what is allowed, e.g.
 *     --tokens '-1': not an integer in 1..1048576
 * The tool prints it after its own name and exits with SVK_EXIT_USAGE
 * (cli_exit.h).
 */
#ifndef SVK_TOOLS_CLI_PARSE_H
#define SVK_TOOLS_CLI_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Why a value was refused: one line, no newline, no tool name. */
typedef struct svk_cli_error {
    char text[256];
} svk_cli_error;

/* Decimal digits only ([0-9]+, leading zeros allowed), in [min, max]. */
bool svk_cli_u32(const char *opt, const char *text, uint32_t min, uint32_t max, uint32_t *out, svk_cli_error *err);
bool svk_cli_u64(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, svk_cli_error *err);

/* A finite decimal number, [-]digits[.digits][e[+-]digits] (".5" and "5."
 * too), in [min, max]; max = INFINITY means no upper bound (the value must
 * still be finite). The float form is the double rounded to nearest; a
 * value beyond FLT_MAX is refused rather than becoming infinity. */
bool svk_cli_f32(const char *opt, const char *text, float min, float max, float *out, svk_cli_error *err);
bool svk_cli_f64(const char *opt, const char *text, double min, double max, double *out, svk_cli_error *err);

/* The largest Vulkan device index a command line may name: the top of
 * svk_ctx_params.device_index (int32_t, where -1 means "choose"). An index
 * past the machine's devices is svk_ctx_create's to refuse: it names the
 * index and how many devices there are. */
#define SVK_CLI_DEVICE_INDEX_MAX INT32_MAX

/* svk-train's and svk-generate's --device: "cpu", "vulkan" or "vulkan:N". */
typedef struct svk_cli_device_choice {
    bool cpu;      /* "cpu": the CPU reference backend */
    int32_t index; /* "vulkan:N": N; "vulkan" (and "cpu"): -1, libsvk chooses */
} svk_cli_device_choice;
bool svk_cli_device(const char *opt, const char *text, svk_cli_device_choice *out, svk_cli_error *err);

/* svk-bench's and svk-conformance's --device, Vulkan only, into the two
 * fields of svk_ctx_params: an index (digits only, up to
 * SVK_CLI_DEVICE_INDEX_MAX) sets *index and *name = NULL; anything else
 * that does not look like a number sets *name (a case-insensitive
 * substring of the device's name) and *index = -1, so a later --device
 * replaces an earlier one. A signed number ("-1", "+2") or an index out of
 * range is refused: it was meant as an index. */
bool svk_cli_vulkan_device(const char *opt, const char *text, int32_t *index, const char **name,
                           svk_cli_error *err);

#endif
