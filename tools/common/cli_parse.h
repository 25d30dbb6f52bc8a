/*
 * Parsing of the tools' numeric command-line values (svk-train, svk-bench):
 * one rule for every tool, so that "--steps -1" or "--reps 12x" is refused
 * the same way everywhere.
 */
#ifndef SVK_TOOLS_CLI_PARSE_H
#define SVK_TOOLS_CLI_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* A whole decimal number in [0, 2^32): no sign, nothing after it. */
bool svk_cli_parse_u32(const char *s, uint32_t *out);

#endif
