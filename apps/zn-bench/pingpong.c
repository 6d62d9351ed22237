/* SPDX-License-Identifier: MIT */
/*
 * The MSG_RING ping-pong both paths run (kern_msgring.c, zcnic_msgring.c):
 * only how a message is posted and awaited differs, so the measuring loop,
 * the end-of-run handshake and the percentiles live here once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"

static uint64_t process_cpu(uint64_t *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000;
}

int bench_pingpong_run(const struct bench_pingpong *pp, const struct bench_case *c,
		       struct bench_meas *m)
{
	uint64_t t0, t_end, t_post, u0, s0, u1, s1, now = 0;
	size_t n = 0, np;
	int64_t got;
	int ret = 0;

	double *post = malloc(pp->cap * sizeof(*post));
	size_t nposts = 0;

	if (!post)
		return -ENOMEM;
	atomic_store(pp->npeer, 0);
	u0 = process_cpu(&s0);
	t0 = bench_now_ns();
	t_end = t0 + (uint64_t)c->o->duration_ms * 1000000ull;
	for (unsigned i = 0; i < c->o->msgs && !bench_stop && !ret; i++) {
		if (bench_now_ns() >= t_end)
			break;
		t_post = bench_now_ns();
		ret = pp->post(pp->ctx, t_post);
		if (ret)
			break;
		/* what the sending thread pays per message, apart from the wait for the answer */
		if (nposts < pp->cap)
			post[nposts++] = (double)(bench_now_ns() - t_post);
		got = pp->next(pp->ctx, &now);
		if (got < 0)
			ret = (int)got;
		else if (got && n < pp->cap)
			pp->samples[n++] = (double)(now - (uint64_t)got);
	}
	/* end of the run: the peer answers 0 once it has stored its last sample */
	if (!ret) {
		ret = pp->post(pp->ctx, 0);
		while (!ret && (got = pp->next(pp->ctx, &now)) != 0)
			if (got < 0)
				ret = (int)got;
	}
	m->ns = bench_now_ns() - t0;
	u1 = process_cpu(&s1);
	m->cpu_user_ns = u1 - u0;
	m->cpu_sys_ns = s1 - s0;
	if (!ret)
		ret = atomic_load(pp->peer_err);
	if (!ret && nposts)
		m->post_ns = bench_median(post, (unsigned)nposts);
	free(post);
	if (ret)
		return ret;
	np = atomic_load_explicit(pp->npeer, memory_order_acquire);
	memcpy(pp->samples + n, pp->peer_samples, np * sizeof(double));
	n += np;
	m->ops = n;
	bench_sort(pp->samples, n);
	m->lat_ns[0] = bench_percentile(pp->samples, n, 50);
	m->lat_ns[1] = bench_percentile(pp->samples, n, 99);
	m->lat_ns[2] = bench_percentile(pp->samples, n, 99.9);
	return 0;
}
