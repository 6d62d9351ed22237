/* SPDX-License-Identifier: MIT */
/* Command-line errors said the same way by every app. */
#ifndef ZN_APPS_CLI_H
#define ZN_APPS_CLI_H

#include <stddef.h>
#include <stdint.h>

#define ZN_CLI_EXIT_USAGE	2	/* every app's exit status for a usage error */

/*
 * The one-line reason getopt_long returned c ('?' or ':'): the parser must
 * run with opterr = 0 and an optstring starting with ':', so that a missing
 * argument is told apart from an unknown option and getopt prints nothing
 * of its own.
 */
void zn_cli_bad_option(int c, char **argv, char *buf, size_t len);

/* "PROG: MSG[: ARG] (see PROG --help)" on stderr, then exit 2. */
void zn_cli_die(const char *prog, const char *msg, const char *arg) __attribute__((noreturn));

/* S as a number by the apps' one rule (num.h), or zn_cli_die naming OPT. */
uint64_t zn_cli_u64(const char *prog, const char *s, const char *opt);
/* --queues S: 1 to ZN_PORT_MAX_QUEUES - 1 (queue 0 is the control queue), or
 * zn_cli_die. */
uint16_t zn_cli_queues(const char *prog, const char *s);

#endif
