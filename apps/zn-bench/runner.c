/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: runs every selected suite at every transport and size it
 * supports. Per (suite, transport, size): setup, one warm-up run that is
 * thrown away, --reps measured runs, teardown; the row keeps the median,
 * min and max of the reps. A suite the machine cannot do gives an "n/a"
 * row and one line on stderr; the run goes on.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

volatile int bench_stop;

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bench_thread_cpu(uint64_t *user_ns, uint64_t *sys_ns)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	*user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000;
	*sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

int bench_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int bench_pin_pid(pid_t pid, int cpu)
{
	char dir[64];
	cpu_set_t set;
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (cpu < 0 || pid <= 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* every thread: a device model's polling threads are already running */
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    sched_setaffinity((pid_t)atoi(e->d_name), sizeof(set), &set) && !ret)
			ret = -errno;
	closedir(d);
	return ret;
}

int bench_pick_cpus(int cpu[2])
{
	cpu_set_t set;
	int n = 0;

	if (cpu[0] >= 0)
		return 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	if (n < 2)
		cpu[0] = cpu[1] = -1;	/* one CPU: nothing to keep apart */
	return 0;
}

static bool unsupported(int err)
{
	return err == -EOPNOTSUPP || err == -EINVAL || err == -ENOSYS || err == -EPROTONOSUPPORT ||
	       err == -EAFNOSUPPORT || err == -EPERM;
}

/* The figure of one run for a metric; NAN when the run measured nothing. */
static double figure(const struct bench_meas *m, enum bench_metric metric)
{
	switch (metric) {
	case BENCH_M_RPS:
		return m->ns ? (double)m->ops * 1e9 / (double)m->ns : NAN;
	case BENCH_M_GBPS:
		return m->ns ? (double)m->bytes * 8 / (double)m->ns : NAN;
	case BENCH_M_P50_NS:
	case BENCH_M_P99_NS:
	case BENCH_M_P999_NS:
		return m->lat_ns[metric - BENCH_M_P50_NS];
	default:
		return NAN;
	}
}

static struct bench_row *new_row(struct bench_results *r, const struct bench_suite *s,
				 const struct bench_case *c, enum bench_metric metric)
{
	struct bench_row *w;

	if (r->nrows == BENCH_MAX_ROWS)
		return NULL;
	w = &r->rows[r->nrows++];
	memset(w, 0, sizeof(*w));
	w->group = bench_group_name(s->group);
	w->mode = s->mode;
	w->path = s->path;
	w->transport = bench_transport_name(c->transport);
	w->size = c->size;
	w->metric = bench_metric_name(metric);
	w->copied = w->delivered = w->fallback = w->post_ns = -1;
	w->median = w->min = w->max = NAN;
	return w;
}

/* Rows of one case from its measured runs. */
static void fill_rows(struct bench_results *r, const struct bench_suite *s,
		      const struct bench_case *c, const struct bench_meas *ms, unsigned n,
		      enum bench_status st, const char *note)
{
	bool lat = s->metric >= BENCH_M_P50_NS;
	unsigned first = lat ? BENCH_M_P50_NS : s->metric, last = lat ? BENCH_M_P999_NS : s->metric;

	for (unsigned metric = first; metric <= last; metric++) {
		struct bench_row *w = new_row(r, s, c, metric);
		double v[BENCH_MAX_ROWS], cu[BENCH_MAX_ROWS], cs[BENCH_MAX_ROWS], mb[BENCH_MAX_ROWS];
		double post[BENCH_MAX_ROWS];
		uint64_t notifs = 0, copied = 0, bytes = 0;
		int64_t deliv = 0, fb = 0;
		bool has_deliv = true, has_fb = true;
		unsigned k = 0;

		if (!w)
			return;
		w->status = st;
		snprintf(w->note, sizeof(w->note), "%s", note ? note : "");
		for (unsigned i = 0; i < n && st == BENCH_OK; i++) {
			const struct bench_meas *m = &ms[i];
			double x = figure(m, metric);

			if (isnan(x))
				continue;
			v[k] = x;
			cu[k] = m->ops ? (double)m->cpu_user_ns / (double)m->ops : NAN;
			cs[k] = m->ops ? (double)m->cpu_sys_ns / (double)m->ops : NAN;
			mb[k] = m->ns ? (double)m->bytes * 1e3 / (double)m->ns : NAN;
			post[k] = m->post_ns > 0 ? m->post_ns : NAN;
			k++;
			w->ops += m->ops;
			notifs += m->notifs;
			copied += m->notifs_copied;
			bytes += m->bytes;
			has_deliv &= m->delivered >= 0;
			has_fb &= m->fallback >= 0;
			deliv += m->delivered;
			fb += m->fallback;
		}
		w->reps = k;
		if (st != BENCH_OK)
			continue;
		if (!k) {
			w->status = BENCH_FAILED;
			snprintf(w->note, sizeof(w->note), "no run measured anything");
			continue;
		}
		w->min = w->max = v[0];
		for (unsigned i = 1; i < k; i++) {
			w->min = v[i] < w->min ? v[i] : w->min;
			w->max = v[i] > w->max ? v[i] : w->max;
		}
		w->median = bench_median(v, k);
		w->cpu_user_ns_per_op = bench_median(cu, k);
		w->cpu_sys_ns_per_op = bench_median(cs, k);
		w->mb_s = bench_median(mb, k);
		w->post_ns = isnan(post[0]) ? -1 : bench_median(post, k);
		if (notifs)
			w->copied = (double)copied / (double)notifs;
		if (has_deliv && w->ops)
			w->delivered = (double)deliv / (double)w->ops;
		if (has_fb && bytes)
			w->fallback = (double)fb / (double)bytes;
	}
}

static void say_once(const struct bench_suite *s, const struct bench_case *c,
		     enum bench_status st, const char *note)
{
	static const struct bench_suite *last_s;
	static enum bench_transport last_t;

	if (last_s == s && last_t == c->transport)
		return;
	last_s = s;
	last_t = c->transport;
	bench_progress_end();
	fprintf(stderr, "zn-bench: %s %s %s %s: %s: %s\n", bench_group_name(s->group), s->mode,
		s->path, bench_transport_name(c->transport), st == BENCH_NA ? "n/a" : "failed",
		note[0] ? note : "no reason given");
}

/* Progress: where we are, out of how many cases in all. */
struct progress { unsigned done, total; };

static int run_case(const struct bench_suite *s, struct bench_case *c, struct bench_results *r,
		    struct progress *pg)
{
	struct bench_meas ms[101];
	char note[BENCH_NOTE_LEN] = "";
	enum bench_status st = BENCH_OK;
	unsigned n = 0, reps = c->o->reps + 1;
	void *state = NULL;
	int ret;

	c->note = note;
	pg->done++;
	ret = s->setup(c, &state);
	for (unsigned i = 0; !ret && i < reps && !bench_stop; i++) {
		struct bench_meas *m = &ms[n];

		bench_progress("[%u/%u] %s %s %s %s %uB run %u/%u", pg->done, pg->total,
			       bench_group_name(s->group), s->mode, s->path,
			       bench_transport_name(c->transport), c->size, i + 1, reps);
		memset(m, 0, sizeof(*m));
		m->delivered = m->fallback = -1;
		ret = s->run(state, c, m);
		if (!ret && i > 0)	/* run 0 is the warm-up */
			n++;
	}
	if (!ret || state)
		s->teardown(state);
	if (bench_stop)
		return -EINTR;
	if (ret) {
		st = unsupported(ret) ? BENCH_NA : BENCH_FAILED;
		if (!note[0])
			snprintf(note, sizeof(note), "%s", strerror(-ret));
		say_once(s, c, st, note);
	}
	fill_rows(r, s, c, ms, n, st, note);
	return 0;
}

static bool selected(const struct bench_suite *s, const struct bench_opts *o, unsigned t)
{
	return (o->suites & (1u << s->group)) && (s->transports & o->transports & BENCH_TB(t));
}

int bench_run_all(const struct bench_opts *o, struct bench_results *r)
{
	struct progress pg = { 0, 0 };
	int ret = 0;

	for (unsigned i = 0; i < bench_nsuites; i++)
		for (unsigned t = 0; t < BENCH_T_COUNT; t++)
			if (selected(&bench_suites[i], o, t))
				pg.total += bench_suites[i].sized ? o->nsizes : 1;

	for (unsigned g = 0; g < BENCH_G_COUNT && !ret; g++)
		for (unsigned t = 0; t < BENCH_T_COUNT && !ret; t++)
			for (unsigned i = 0; i < bench_nsuites && !ret; i++) {
				const struct bench_suite *s = &bench_suites[i];
				unsigned nsz = s->sized ? o->nsizes : 1;

				if (s->group != g || !selected(s, o, t))
					continue;
				for (unsigned z = 0; z < nsz && !ret; z++) {
					struct bench_case c = {
						.o = o, .transport = t,
						.size = s->sized ? o->sizes[z] : s->fixed_size,
					};

					ret = run_case(s, &c, r, &pg);
				}
			}
	bench_progress_end();
	return ret;
}
