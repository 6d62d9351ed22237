/* SPDX-License-Identifier: MIT */
/*
 * zn-bench, zcnic path: MSG_RING latency between two threads on the native
 * zn_uring API, in-process (no device: MSG_RING needs none). The same
 * measurement as kern_msgring.c: each thread owns a ring it created,
 * IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN; ping-pong, one
 * message in flight, send time (CLOCK_MONOTONIC ns) in user_data, the
 * sender's own CQE skipped (IOSQE_CQE_SKIP_SUCCESS); a message of 0 ends a
 * run. Post-to-CQE latency is timed from just before the SQE is submitted
 * to the moment the target holds the CQE. CPU time: the whole process.
 */
#include <errno.h>
#include <liburing/io_uring.h>	/* the uAPI layouts (include/compat), no liburing calls */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zcnic.h"
#include "zcnic/uring.h"

#define MR_ENTRIES		8
#define MR_FLAGS		(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)
#define PEER_POLL_NS		50000000ll	/* the peer looks at its quit flag this often */
#define CQE_TIMEOUT_NS		1000000000ll
#define PEER_START_WAIT_US	1000
#define PEER_START_TRIES	2000		/* 2 s for the peer to make its ring */

struct zring {
	struct zn_uring *r;
	struct zn_uring_map m;
};

struct zmr_st {
	struct zring a;
	pthread_t peer;
	bool have_peer;
	atomic_int peer_h;		/* ring B's handle once made; <0: -errno; INT32_MIN: not yet */
	atomic_bool quit;
	int cpu;
	double *samples, *peer_samples;
	size_t cap;
	atomic_size_t npeer;
	atomic_int peer_err;
};

static int zring_init(struct zring *z)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = MR_FLAGS;
	ret = zn_uring_create(MR_ENTRIES, &p, &z->r);
	if (ret)
		return ret;
	zn_uring_get_map(z->r, &z->m);
	/* SQ slot i names SQE i, as liburing sets it up */
	for (unsigned i = 0; i < *z->m.sq_entries; i++)
		z->m.sq_array[i] = i;
	return 0;
}

/* One MSG_RING SQE to target, submitted. */
static int post(struct zring *z, int target, uint64_t data)
{
	unsigned tail = *z->m.sq_tail;
	struct io_uring_sqe *sqe = &z->m.sqes[tail & *z->m.sq_mask];
	int ret;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_MSG_RING;
	sqe->fd = target;
	sqe->off = data;		/* the target CQE's user_data */
	sqe->addr = IORING_MSG_DATA;
	sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
	__atomic_store_n(z->m.sq_tail, tail + 1, __ATOMIC_RELEASE);
	ret = zn_uring_enter(z->r, 1, 0, 0, 0);
	return ret < 0 ? ret : ret == 1 ? 0 : -EIO;
}

/* Waits for one CQE: 0 with its user_data and res, -ETIME, or -errno. */
static int wait_one(struct zring *z, int64_t timeout_ns, uint64_t *data, int *res)
{
	unsigned head = *z->m.cq_head;
	const struct io_uring_cqe *cqe;
	int ret;

	if (head == __atomic_load_n(z->m.cq_tail, __ATOMIC_ACQUIRE)) {
		ret = zn_uring_enter(z->r, 0, 1, IORING_ENTER_GETEVENTS, timeout_ns);
		if (ret < 0)
			return ret;
		if (head == __atomic_load_n(z->m.cq_tail, __ATOMIC_ACQUIRE))
			return -ETIME;
	}
	cqe = &z->m.cqes[head & *z->m.cq_mask];
	*data = cqe->user_data;
	*res = cqe->res;
	__atomic_store_n(z->m.cq_head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

static void *peer_main(void *arg)
{
	struct zmr_st *st = arg;
	int ret, a_h = zn_uring_handle(st->a.r), res;
	struct zring b;
	uint64_t data, now;

	bench_pin(st->cpu);
	ret = zring_init(&b);
	if (ret) {
		atomic_store(&st->peer_h, ret);
		return NULL;
	}
	atomic_store(&st->peer_h, zn_uring_handle(b.r));
	while (!atomic_load(&st->quit)) {
		ret = wait_one(&b, PEER_POLL_NS, &data, &res);
		if (ret == -ETIME)
			continue;
		if (ret)
			break;
		now = bench_now_ns();
		if (res < 0) {
			atomic_store(&st->peer_err, res);	/* our own MSG_RING failed */
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
		ret = post(&b, a_h, data);
		if (ret)
			atomic_store(&st->peer_err, ret);
	}
	zn_uring_destroy(b.r);
	return NULL;
}

/* The next message on ring A: its user_data, or a negative errno. */
static int64_t next_msg(struct zmr_st *st, uint64_t *now)
{
	uint64_t data;
	int ret, res;

	ret = wait_one(&st->a, CQE_TIMEOUT_NS, &data, &res);
	if (ret)
		return ret == -ETIME ? -ETIMEDOUT : ret;
	*now = bench_now_ns();
	if (res < 0)
		return res;
	return (int64_t)(data & INT64_MAX);
}

static int pp_post(void *ctx, uint64_t data)
{
	struct zmr_st *st = ctx;

	return post(&st->a, atomic_load(&st->peer_h), data);
}

static int64_t pp_next(void *ctx, uint64_t *now)
{
	return next_msg(ctx, now);
}

int zcnic_msgring_run(void *state, const struct bench_case *c, struct bench_meas *m)
{
	struct zmr_st *st = state;
	const struct bench_pingpong pp = {
		.post = pp_post, .next = pp_next, .ctx = st, .samples = st->samples,
		.peer_samples = st->peer_samples, .cap = st->cap, .npeer = &st->npeer,
		.peer_err = &st->peer_err,
	};
	int ret = bench_pingpong_run(&pp, c, m);

	if (ret) {
		snprintf(c->note, BENCH_NOTE_LEN, "zcnic MSG_RING between two rings: %s", strerror(-ret));
		return ret == -EINVAL ? -EIO : ret;
	}
	return 0;
}

void zcnic_msgring_teardown(void *state)
{
	struct zmr_st *st = state;

	if (!st)
		return;
	if (st->have_peer) {
		atomic_store(&st->quit, true);
		pthread_join(st->peer, NULL);
	}
	if (st->a.r)
		zn_uring_destroy(st->a.r);
	free(st->samples);
	free(st->peer_samples);
	free(st);
}

int zcnic_msgring_setup(const struct bench_case *c, void **state)
{
	struct zmr_st *st = calloc(1, sizeof(*st));
	int ret = -ENOMEM, h = INT32_MIN;

	if (!st)
		return -ENOMEM;
	atomic_store(&st->peer_h, INT32_MIN);
	st->cpu = c->o->cpu[1];
	st->cap = c->o->msgs;
	st->samples = calloc(2 * st->cap, sizeof(double));
	st->peer_samples = calloc(st->cap, sizeof(double));
	if (!st->samples || !st->peer_samples)
		goto err;
	ret = zring_init(&st->a);
	if (ret) {
		snprintf(c->note, BENCH_NOTE_LEN, "zcnic ring SINGLE_ISSUER|DEFER_TASKRUN: %s",
			 strerror(-ret));
		ret = ret == -EINVAL ? -EIO : ret;
		goto err;
	}
	ret = -pthread_create(&st->peer, NULL, peer_main, st);
	if (ret)
		goto err;
	st->have_peer = true;
	for (unsigned i = 0; i < PEER_START_TRIES; i++) {
		h = atomic_load(&st->peer_h);
		if (h != INT32_MIN)
			break;
		usleep(PEER_START_WAIT_US);
	}
	if (h == INT32_MIN || h < 0) {
		ret = h == INT32_MIN ? -ETIMEDOUT : h;
		snprintf(c->note, BENCH_NOTE_LEN, "zcnic peer ring: %s", strerror(-ret));
		goto err;
	}
	*state = st;
	return 0;
err:
	zcnic_msgring_teardown(st);
	return ret;
}
