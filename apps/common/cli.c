/* SPDX-License-Identifier: MIT */
/* Command-line errors said the same way by every app. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

void zn_cli_bad_option(int c, char **argv, char *buf, size_t len)
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		snprintf(buf, len, "option '%s' needs an argument", opt);
	else
		snprintf(buf, len, "unknown option '%s'", opt);
}
