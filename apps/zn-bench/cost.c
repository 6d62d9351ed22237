/* SPDX-License-Identifier: MIT */
/*
 * zn-bench's headline: instructions per operation of each hot path, the
 * table of `make cost` (scripts/cost.sh: callgrind, exact counts, the
 * same on a busy machine as on a quiet one, unlike every time-based figure
 * after it). zn-bench runs the script of the source tree it was built in
 * (build/bin/zn-bench -> scripts/cost.sh, BUILD = build) before the other
 * suites and prints its table first; an installed zn-bench, away from its
 * source tree, says how to get the table instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define COST_OUT_MAX	16384

static char cost_out[COST_OUT_MAX];
static int cost_ret = -ENOENT;

/* The source tree's scripts/cost.sh and build directory, from our own path. */
static int locate(char *script, size_t slen, char *build, size_t blen)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -ENOENT;
	self[n] = '\0';
	slash = strrchr(self, '/');		/* .../BUILD/bin/zn-bench */
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	slash = strrchr(self, '/');		/* .../BUILD/bin */
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	snprintf(build, blen, "%s", self);	/* .../BUILD */
	slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if (snprintf(script, slen, "%s/scripts/cost.sh", self) >= (int)slen)
		return -ENAMETOOLONG;
	return access(script, X_OK) ? -ENOENT : 0;
}

int bench_cost_run(const struct bench_opts *o)
{
	char script[PATH_MAX], build[PATH_MAX], cmd[3 * PATH_MAX];
	size_t len = 0;
	FILE *p;
	int status;

	cost_ret = locate(script, sizeof(script), build, sizeof(build));
	if (cost_ret)
		return cost_ret;
	bench_progress("cost: %s%s (callgrind, about a minute)", script, o->quick ? " --quick" : "");
	if (snprintf(cmd, sizeof(cmd), "BUILD='%s' OUT='%s/bench' '%s'%s 2>&1", build, build,
		     script, o->quick ? " --quick" : "") >= (int)sizeof(cmd))
		return cost_ret = -ENAMETOOLONG;
	p = popen(cmd, "r");
	if (!p) {
		cost_ret = -errno;
		return cost_ret;
	}
	while (len < sizeof(cost_out) - 1) {
		size_t n = fread(cost_out + len, 1, sizeof(cost_out) - 1 - len, p);

		if (!n)
			break;
		len += n;
	}
	cost_out[len] = '\0';
	status = pclose(p);
	bench_progress_end();
	cost_ret = status == 0 ? 0 : -EIO;
	return cost_ret;
}

void bench_cost_print(FILE *f)
{
	fprintf(f, "Cost per operation: instructions (callgrind, exact; the same on a busy "
		   "machine)\n");
	if (cost_ret == -ENOENT) {
		fprintf(f, "  not measured: scripts/cost.sh of the source tree is not next to this "
			   "zn-bench;\n  run `make cost` in the source tree (or zn-bench from its "
			   "build/bin)\n");
		return;
	}
	fputs(cost_out, f);
	if (cost_ret)
		fprintf(f, "cost: scripts/cost.sh failed (its output is above)\n");
}
