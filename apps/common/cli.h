/* SPDX-License-Identifier: MIT */
/* Command-line errors said the same way by every app. */
#ifndef ZN_APPS_CLI_H
#define ZN_APPS_CLI_H

#include <stddef.h>

/*
 * The one-line reason getopt_long returned c ('?' or ':'): the parser must
 * run with opterr = 0 and an optstring starting with ':', so that a missing
 * argument is told apart from an unknown option and getopt prints nothing
 * of its own.
 */
void zn_cli_bad_option(int c, char **argv, char *buf, size_t len);

#endif
