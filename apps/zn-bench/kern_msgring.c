/* SPDX-License-Identifier: MIT */
/*
 * zn-bench kernel path: IORING_OP_MSG_RING latency between two threads.
 * Each thread owns one ring, created by itself with IORING_SETUP_SINGLE_ISSUER
 * | IORING_SETUP_DEFER_TASKRUN (so the target's CQE is posted as task work
 * and seen when its owner waits). Ping-pong, one message in flight: the
 * sender puts CLOCK_MONOTONIC ns in user_data, the receiver takes
 * now - user_data as one one-way sample and answers the same way. The
 * sender's own completion is skipped (IOSQE_CQE_SKIP_SUCCESS), so every CQE
 * is a message or an error. user_data 0 ends a run. Latency percentiles are
 * over both directions; CPU time is the whole process's (both threads).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kern.h"
#include "kern_uring.h"

#define MR_ENTRIES		8
#define MR_FLAGS		(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)
#define PEER_POLL_NS		50000000ll	/* the peer looks at its quit flag this often */
#define CQE_TIMEOUT_NS		1000000000ll
#define PEER_START_WAIT_US	1000
#define PEER_START_TRIES	2000		/* 2 s for the peer to make its ring */

struct mr_st {
	struct io_uring ra;
	bool have_ra;
	pthread_t peer;
	bool have_peer;
	atomic_int peer_fd;		/* ring B's fd once made; <0: -errno; INT32_MIN: not yet */
	atomic_bool quit;
	int cpu;
	double *samples, *peer_samples;
	size_t cap;
	atomic_size_t npeer;
	atomic_int peer_err;
};

static int post(struct io_uring *r, int target_fd, uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	int ret;

	io_uring_prep_msg_ring(sqe, target_fd, 0, data, 0);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	ret = io_uring_submit(r);
	return ret < 0 ? ret : ret == 1 ? 0 : -EIO;
}

static void *peer_main(void *arg)
{
	struct mr_st *st = arg;
	struct io_uring_params p = { .flags = MR_FLAGS };
	struct io_uring rb;
	int ret, a_fd = st->ra.ring_fd;

	bench_pin(st->cpu);
	ret = io_uring_queue_init_params(MR_ENTRIES, &rb, &p);
	if (ret) {
		atomic_store(&st->peer_fd, ret);
		return NULL;
	}
	atomic_store(&st->peer_fd, rb.ring_fd);
	while (!atomic_load(&st->quit)) {
		struct __kernel_timespec ts = { 0, PEER_POLL_NS };
		struct io_uring_cqe *cqe;
		uint64_t data, now;
		int res;

		ret = io_uring_wait_cqe_timeout(&rb, &cqe, &ts);
		if (ret == -ETIME || ret == -EINTR)
			continue;
		if (ret)
			break;
		now = bench_now_ns();
		data = cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&rb, cqe);
		if (res < 0) {
			/* our own MSG_RING failed */
			atomic_store(&st->peer_err, res);
			continue;
		}
		if (data) {
			size_t n = atomic_load_explicit(&st->npeer, memory_order_relaxed);

			if (n < st->cap) {
				st->peer_samples[n] = (double)(now - data);
				atomic_store_explicit(&st->npeer, n + 1, memory_order_release);
			}
			data = bench_now_ns();
		}
		ret = post(&rb, a_fd, data);
		if (ret)
			atomic_store(&st->peer_err, ret);
	}
	io_uring_queue_exit(&rb);
	return NULL;
}

/* Waits for the next message on ring A; its user_data, or a negative errno. */
static int64_t next_msg(struct mr_st *st, uint64_t *now)
{
	struct __kernel_timespec ts = { 0, CQE_TIMEOUT_NS };
	struct io_uring_cqe *cqe;
	uint64_t data;
	int ret, res;

	ret = io_uring_wait_cqe_timeout(&st->ra, &cqe, &ts);
	if (ret)
		return ret == -ETIME ? -ETIMEDOUT : ret;
	*now = bench_now_ns();
	data = cqe->user_data;
	res = cqe->res;
	io_uring_cqe_seen(&st->ra, cqe);
	if (res < 0)
		return res;
	return (int64_t)(data & INT64_MAX);
}

static int pp_post(void *ctx, uint64_t data)
{
	struct mr_st *st = ctx;

	return post(&st->ra, atomic_load(&st->peer_fd), data);
}

static int64_t pp_next(void *ctx, uint64_t *now)
{
	return next_msg(ctx, now);
}

int kern_msgring_run(void *state, const struct bench_case *c, struct bench_meas *m)
{
	struct mr_st *st = state;
	const struct bench_pingpong pp = {
		.post = pp_post, .next = pp_next, .ctx = st, .samples = st->samples,
		.peer_samples = st->peer_samples, .cap = st->cap, .npeer = &st->npeer,
		.peer_err = &st->peer_err,
	};
	int ret = bench_pingpong_run(&pp, c, m);

	if (ret) {
		snprintf(c->note, BENCH_NOTE_LEN, "MSG_RING to a SINGLE_ISSUER|DEFER_TASKRUN ring: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

void kern_msgring_teardown(void *state)
{
	struct mr_st *st = state;

	if (!st)
		return;
	if (st->have_peer) {
		atomic_store(&st->quit, true);
		pthread_join(st->peer, NULL);
	}
	if (st->have_ra)
		io_uring_queue_exit(&st->ra);
	free(st->samples);
	free(st->peer_samples);
	free(st);
}

int kern_msgring_setup(const struct bench_case *c, void **state)
{
	struct io_uring_params p = { .flags = MR_FLAGS };
	struct mr_st *st = calloc(1, sizeof(*st));
	int ret = -ENOMEM, fd = INT32_MIN;

	if (!st)
		return -ENOMEM;
	atomic_store(&st->peer_fd, INT32_MIN);
	st->cpu = c->o->cpu[1];
	st->cap = c->o->msgs;
	/* room for both directions in one array, to sort them together */
	st->samples = calloc(2 * st->cap, sizeof(double));
	st->peer_samples = calloc(st->cap, sizeof(double));
	if (!st->samples || !st->peer_samples)
		goto err;
	ret = io_uring_queue_init_params(MR_ENTRIES, &st->ra, &p);
	if (ret) {
		snprintf(c->note, BENCH_NOTE_LEN, "io_uring_setup SINGLE_ISSUER|DEFER_TASKRUN: %s",
			 strerror(-ret));
		goto err;
	}
	st->have_ra = true;
	ret = -pthread_create(&st->peer, NULL, peer_main, st);
	if (ret)
		goto err;
	st->have_peer = true;
	for (unsigned i = 0; i < PEER_START_TRIES; i++) {
		fd = atomic_load(&st->peer_fd);
		if (fd != INT32_MIN)
			break;
		usleep(PEER_START_WAIT_US);
	}
	if (fd == INT32_MIN || fd < 0) {
		ret = fd == INT32_MIN ? -ETIMEDOUT : fd;
		snprintf(c->note, BENCH_NOTE_LEN, "peer ring SINGLE_ISSUER|DEFER_TASKRUN: %s",
			 strerror(-ret));
		goto err;
	}
	*state = st;
	return 0;
err:
	kern_msgring_teardown(st);
	return ret;
}
