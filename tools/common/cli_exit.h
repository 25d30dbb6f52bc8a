/*
 * The exit statuses the tools share, so that a script can tell a bad
 * command line from a failed run the same way for every tool. Each tool's
 * --help lists them (SVK_EXIT_HELP, then its own, e.g. svk-train's
 * diverged run and svk-bench's no-device skip).
 */
#ifndef SVK_TOOLS_CLI_EXIT_H
#define SVK_TOOLS_CLI_EXIT_H

enum {
    SVK_EXIT_OK = 0,
    /* The run failed: a device, file, checkpoint or library call. */
    SVK_EXIT_FAILURE = 1,
    /* The command line is wrong (unknown option, missing or malformed
     * value, value out of range, options that exclude each other): judged
     * before any work is done. */
    SVK_EXIT_USAGE = 2,
    /* svk-train --max-bad-steps: the run diverged and was stopped. */
    SVK_EXIT_DIVERGED = 3,
    /* Stopped by SIGINT (Ctrl-C) or SIGTERM, after finishing what it was
     * doing (svk-train: the step, then the saves): 128 + SIGINT, the
     * status a shell gives a process that SIGINT ended, so that scripts
     * see an interruption either way. */
    SVK_EXIT_INTERRUPTED = 130,
};

/* The first line of every tool's exit-status section in --help. */
#define SVK_EXIT_HELP "exit status: 0 ok, 1 the run failed, 2 bad command line"

#endif
