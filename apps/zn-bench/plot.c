/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: requests/s against size for both paths, drawn by gnuplot into
 * DIR/zn-bench-send.svg (the data and the script stay beside it). Without
 * gnuplot one line says so and the plot is skipped: it is not an error.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define PLOT_MAX_SERIES	24
#define PLOT_PATH_LEN	4096

extern char **environ;

static bool in_path(const char *prog)
{
	const char *p = getenv("PATH");
	char buf[PLOT_PATH_LEN];

	while (p && *p) {
		size_t n = strcspn(p, ":");

		if (n && snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

struct series { const char *path, *transport, *mode; };

static unsigned collect(const struct bench_results *r, struct series *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i];
		unsigned j;

		if (strcmp(w->group, "send") || strcmp(w->metric, "rps") || w->status != BENCH_OK)
			continue;
		for (j = 0; j < n; j++)
			if (!strcmp(s[j].path, w->path) && !strcmp(s[j].transport, w->transport) &&
			    !strcmp(s[j].mode, w->mode))
				break;
		if (j == n && n < PLOT_MAX_SERIES)
			s[n++] = (struct series){ w->path, w->transport, w->mode };
	}
	return n;
}

static int run_gnuplot(const char *script)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };
	int status, ret;
	pid_t pid;

	ret = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (ret)
		return -ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

int bench_plot(const char *dir, const struct bench_results *r)
{
	char dat[PLOT_PATH_LEN], gp[PLOT_PATH_LEN], svg[PLOT_PATH_LEN];
	struct series s[PLOT_MAX_SERIES];
	unsigned n = collect(r, s);
	FILE *f;
	int ret;

	if (!n)
		return 0;
	if (!in_path("gnuplot")) {
		printf("plot: skipped, gnuplot is not installed (Debian: apt-get install gnuplot-nox)\n");
		return 0;
	}
	snprintf(dat, sizeof(dat), "%s/zn-bench-send.dat", dir);
	snprintf(gp, sizeof(gp), "%s/zn-bench-send.gp", dir);
	snprintf(svg, sizeof(svg), "%s/zn-bench-send.svg", dir);

	f = fopen(dat, "w");
	if (!f)
		return -errno;
	for (unsigned j = 0; j < n; j++) {
		fprintf(f, "# %s %s %s\n", s[j].path, s[j].transport, s[j].mode);
		for (unsigned i = 0; i < r->nrows; i++) {
			const struct bench_row *w = &r->rows[i];

			if (!strcmp(w->group, "send") && !strcmp(w->metric, "rps") &&
			    w->status == BENCH_OK && !strcmp(w->path, s[j].path) &&
			    !strcmp(w->transport, s[j].transport) && !strcmp(w->mode, s[j].mode))
				fprintf(f, "%u %.6g %.6g %.6g\n", w->size, w->median, w->min, w->max);
		}
		fprintf(f, "\n\n");	/* gnuplot: next index */
	}
	if (fclose(f))
		return -errno;

	f = fopen(gp, "w");
	if (!f)
		return -errno;
	fprintf(f, "set terminal svg size 900,560 dynamic background rgb 'white'\n"
		   "set output '%s'\n"
		   "set title 'UDP send: requests/s by size (median, bars: min-max)'\n"
		   "set xlabel 'request size, bytes'\nset ylabel 'requests/s'\n"
		   "set logscale x\nset xtics (600, 1000, 1500, 4000, 8000)\n"
		   "set grid\nset key outside right\nset yrange [0:*]\n"
		   "plot ", svg);
	for (unsigned j = 0; j < n; j++)
		fprintf(f, "%s'%s' index %u using 1:2:3:4 with yerrorlines title '%s %s %s'",
			j ? ", \\\n     " : "", dat, j, s[j].path, s[j].transport, s[j].mode);
	fprintf(f, "\n");
	if (fclose(f))
		return -errno;

	ret = run_gnuplot(gp);
	if (ret) {
		fprintf(stderr, "zn-bench: plot: gnuplot %s failed (%s); data in %s\n", gp,
			strerror(-ret), dat);
		return ret;
	}
	printf("plot: %s\n", svg);
	return 0;
}
