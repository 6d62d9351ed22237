/* SPDX-License-Identifier: MIT */
/* Command-line errors said the same way by every app. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "zcnic/port.h"
#include "num.h"

void zn_cli_bad_option(int c, char **argv, char *buf, size_t len)
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		snprintf(buf, len, "option '%s' needs an argument", opt);
	else
		snprintf(buf, len, "unknown option '%s'", opt);
}

void zn_cli_die(const char *prog, const char *msg, const char *arg)
{
	fprintf(stderr, "%s: %s%s%s (see %s --help)\n", prog, msg, arg ? ": " : "",
		arg ? arg : "", prog);
	exit(ZN_CLI_EXIT_USAGE);
}

uint64_t zn_cli_u64(const char *prog, const char *s, const char *opt)
{
	uint64_t v;
	int ret = zn_num_parse(s, &v);
	char msg[256];

	if (ret) {
		snprintf(msg, sizeof(msg), "%s %s", opt, s);
		zn_cli_die(prog, msg, zn_num_error(ret));
	}
	return v;
}

uint16_t zn_cli_queues(const char *prog, const char *s)
{
	uint64_t v = zn_cli_u64(prog, s, "--queues");

	if (!v || v >= ZN_PORT_MAX_QUEUES)
		zn_cli_die(prog, "--queues wants 1-63", s);
	return (uint16_t)v;
}
