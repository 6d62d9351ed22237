/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: how busy the machine is apart from zn-bench, from /proc.
 *
 * A figure measured while other processes run is not comparable with one
 * measured on a quiet machine, pinning or not: they take the measured
 * core's cycles, its caches, and on a VM the host takes some too (steal).
 * So zn-bench looks before the run and after it, for LOAD_WINDOW_MS each
 * time with nothing of its own running: CPU time of the whole machine from
 * /proc/stat (user, nice, system, irq, softirq) less zn-bench's own
 * (/proc/self/stat, children included), and the steal column. The same
 * steal count over the whole run is kept too (its own work is not steal).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define LOAD_WINDOW_MS	500
/* Above these, figures are not comparable with a quiet machine's. */
#define BUSY_OTHER_CPUS	0.10	/* others' CPU, in CPUs (10 % of one) */
#define BUSY_STEAL	0.02	/* the host took 2 % of the CPU time */

/* The machine's and our own CPU time, in clock ticks. */
static int sample(struct bench_load_sample *s)
{
	unsigned long long v[8] = { 0 }, ut, st, cut, cst;
	char line[1024], *p;
	FILE *f;
	int n;

	s->wall_ns = bench_now_ns();
	f = fopen("/proc/stat", "r");
	if (!f)
		return -errno;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* cpu user nice system idle iowait irq softirq steal ... */
	if (!p || sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			 &v[3], &v[4], &v[5], &v[6], &v[7]) < 8)
		return -EIO;
	s->busy = v[0] + v[1] + v[2] + v[5] + v[6];
	s->steal = v[7];
	s->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	f = fopen("/proc/self/stat", "r");
	if (!f)
		return -errno;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* after "(comm)": state is field 3; utime, stime, cutime, cstime are 14-17 */
	p = p ? strrchr(line, ')') : NULL;
	n = p ? sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
		       &ut, &st, &cut, &cst) : 0;
	if (n != 4)
		return -EIO;
	s->own = ut + st + cut + cst;
	return 0;
}

static void between(const struct bench_load_sample *a, const struct bench_load_sample *b,
		    struct bench_load_span *out)
{
	double tick_ns = 1e9 / (double)sysconf(_SC_CLK_TCK);
	double wall = (double)(b->wall_ns - a->wall_ns);
	uint64_t busy = b->busy - a->busy, own = b->own - a->own;
	uint64_t total = b->total - a->total;

	out->other_cpus = wall > 0 && busy > own ? (double)(busy - own) * tick_ns / wall : 0;
	out->steal = total ? (double)(b->steal - a->steal) / (double)total : 0;
}

/* One quiet window: how busy are the others while we only sleep? */
static int window(struct bench_load_span *out)
{
	struct bench_load_sample a, b;
	struct timespec ts = { 0, LOAD_WINDOW_MS * 1000000L };
	int ret = sample(&a);

	if (ret)
		return ret;
	nanosleep(&ts, NULL);
	ret = sample(&b);
	if (!ret)
		between(&a, &b, out);
	return ret;
}

int bench_load_before(struct bench_load *l)
{
	memset(l, 0, sizeof(*l));
	l->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	l->ok = !window(&l->before) && !sample(&l->start);
	return l->ok ? 0 : -EIO;
}

int bench_load_after(struct bench_load *l)
{
	struct bench_load_sample end;

	if (!l->ok || sample(&end) || window(&l->after)) {
		l->ok = false;
		return -EIO;
	}
	between(&l->start, &end, &l->during);	/* its steal only: our own work is busy */
	return 0;
}

bool bench_load_busy(const struct bench_load *l)
{
	return l->ok && (l->before.other_cpus > BUSY_OTHER_CPUS ||
			 l->after.other_cpus > BUSY_OTHER_CPUS || l->before.steal > BUSY_STEAL ||
			 l->after.steal > BUSY_STEAL || l->during.steal > BUSY_STEAL);
}

void bench_load_print(FILE *f, const struct bench_load *l)
{
	if (!l->ok) {
		fprintf(f, "\nmachine load: unknown (/proc/stat or /proc/self/stat unreadable)\n");
		return;
	}
	fprintf(f, "\nmachine load (%ld CPUs; other processes, %d ms windows before and after the run):\n"
		   "  before: %.2f CPUs busy, steal %.1f%%; after: %.2f CPUs busy, steal %.1f%%; "
		   "steal during the run %.1f%%\n",
		l->ncpu, LOAD_WINDOW_MS, l->before.other_cpus, 100 * l->before.steal,
		l->after.other_cpus, 100 * l->after.steal, 100 * l->during.steal);
	if (bench_load_busy(l))
		fprintf(f, "WARNING: the machine was busy with other work (above %.0f%% of a CPU or "
			   "%.0f%% steal):\n  these figures are not comparable with a quiet "
			   "machine's; rerun when it is idle\n",
			100 * BUSY_OTHER_CPUS, 100 * BUSY_STEAL);
}
