/*
 * Waiting: io_uring_wait_cqe_timeout -> -ETIME (liburing test/wait-timeout
 * style), wait_cqes with a count and a timeout, submit_and_wait,
 * submit_and_wait_timeout; the poll hooks the owner runs inside submit
 * and wait (how NIC queues get polled); SINGLE_ISSUER from another thread.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "core/uring/uring_op.h"
#include "zcnic/uring.h"

static int setup(void **state)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));

	if (!ring || io_uring_queue_init(8, ring, 0))
		return -1;
	*state = ring;
	return 0;
}

static int teardown(void **state)
{
	io_uring_queue_exit(*state);
	free(*state);
	return 0;
}

static void test_wait_timeout_etime(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 50000000 };
	struct io_uring_cqe *cqe = (void *)1;
	uint64_t t0 = urt_now_ns(), dt;

	assert_int_equal(io_uring_wait_cqe_timeout(ring, &cqe, &ts), -ETIME);
	dt = urt_now_ns() - t0;
	assert_null(cqe);
	assert_true(dt >= 50000000ull);
	assert_true(dt < 2000000000ull);
	/* zero timeout: a poll */
	ts.tv_nsec = 0;
	assert_int_equal(io_uring_wait_cqe_timeout(ring, &cqe, &ts), -ETIME);
	/* bad timespec */
	ts.tv_nsec = 1000000000;
	assert_int_equal(io_uring_wait_cqe_timeout(ring, &cqe, &ts), -EINVAL);
}

/* fewer than wait_nr by the deadline: 0 with the first CQE (the kernel's rule) */
static void test_wait_cqes_partial(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 20000000 };
	struct io_uring_cqe *cqe;
	uint64_t t0;

	assert_int_equal(urt_queue_nops(ring, 1, 5, 0), 0);
	assert_int_equal(io_uring_submit(ring), 1);
	t0 = urt_now_ns();
	assert_int_equal(io_uring_wait_cqes(ring, &cqe, 3, &ts, NULL), 0);
	assert_true(urt_now_ns() - t0 >= 20000000ull);	/* it did wait for 3 */
	assert_non_null(cqe);
	assert_int_equal(cqe->user_data, 5);
	io_uring_cqe_seen(ring, cqe);
	/* enough ready: no waiting */
	assert_int_equal(urt_queue_nops(ring, 3, 6, 0), 0);
	assert_int_equal(io_uring_submit(ring), 3);
	ts.tv_sec = 10;
	t0 = urt_now_ns();
	assert_int_equal(io_uring_wait_cqes(ring, &cqe, 3, &ts, NULL), 0);
	assert_true(urt_now_ns() - t0 < 1000000000ull);
	assert_int_equal(io_uring_cq_ready(ring), 3);
	io_uring_cq_advance(ring, 3);
}

static void test_submit_and_wait(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 10000000 };
	struct io_uring_cqe *cqe;

	assert_int_equal(urt_queue_nops(ring, 4, 0, 0), 0);
	assert_int_equal(io_uring_submit_and_wait(ring, 4), 4);
	assert_int_equal(io_uring_cq_ready(ring), 4);
	io_uring_cq_advance(ring, 4);
	/* with a timeout: the count submitted, and the first CQE */
	assert_int_equal(urt_queue_nops(ring, 2, 20, 0), 0);
	assert_int_equal(io_uring_submit_and_wait_timeout(ring, &cqe, 2, &ts, NULL), 2);
	assert_int_equal(cqe->user_data, 20);
	io_uring_cq_advance(ring, 2);
	/* nothing to submit, nothing coming: -ETIME */
	assert_int_equal(io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, NULL), -ETIME);
	/* submit_and_get_events / get_events never block */
	assert_int_equal(urt_queue_nops(ring, 1, 30, 0), 0);
	assert_int_equal(io_uring_submit_and_get_events(ring), 1);
	assert_int_equal(io_uring_get_events(ring), 0);
	assert_int_equal(io_uring_cq_ready(ring), 1);
	io_uring_cq_advance(ring, 1);
}

/* a hook standing in for a NIC queue: completes one "packet" every k polls */
struct fake_queue {
	unsigned polls, every, posted, limit;
};

static int fake_queue_poll(struct zn_uring *r, void *arg)
{
	struct fake_queue *q = arg;

	if (++q->polls % q->every || q->posted == q->limit)
		return 0;
	zn_uring_post_cqe(r, 0x1000 + q->posted, (int)q->posted, IORING_CQE_F_MORE, NULL, 0);
	q->posted++;
	return 1;
}

static void test_poll_hook(void **state)
{
	struct io_uring *ring = *state;
	struct zn_uring *r = zn_uring_from_handle(ring->ring_fd);
	struct fake_queue q = { .every = 3, .limit = 5 };
	struct io_uring_cqe c;
	struct zn_uring_stats st;
	int id;

	id = zn_uring_hook_add(r, fake_queue_poll, &q, ZN_URING_HOOK_BUSY);
	assert_true(id >= 0);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
		assert_int_equal(c.user_data, 0x1000 + i);
		assert_int_equal(c.flags, IORING_CQE_F_MORE);
	}
	/* a busy hook keeps the owner polling; it never sleeps */
	assert_int_equal(urt_get_cqe(ring, &c, 20), -ETIME);
	zn_uring_get_stats(r, &st);
	assert_int_equal(st.sleeps, 0);
	assert_true(st.hook_polls >= 15);
	/* plain submits poll too */
	q.limit = 6;
	assert_int_equal(io_uring_submit(ring), 0);
	assert_int_equal(io_uring_submit(ring), 0);
	assert_int_equal(io_uring_submit(ring), 0);
	assert_int_equal(io_uring_cq_ready(ring), 1);
	io_uring_cq_advance(ring, 1);
	assert_int_equal(zn_uring_hook_del(r, id), 0);
	assert_int_equal(zn_uring_hook_del(r, id), -ENOENT);
	q.limit = 7;
	for (int i = 0; i < 10; i++)
		io_uring_submit(ring);
	assert_int_equal(io_uring_cq_ready(ring), 0);	/* removed: not polled */
	assert_int_equal(zn_uring_hook_add(r, NULL, NULL, 0), -EINVAL);
	assert_int_equal(zn_uring_hook_add(r, fake_queue_poll, &q, 1u << 5), -EINVAL);
}

static int self_removing(struct zn_uring *r, void *arg)
{
	int *id = arg;

	zn_uring_hook_del(r, *id);
	zn_uring_post_cqe(r, 0xdead, 0, 0, NULL, 0);
	return 1;
}

static int counting(struct zn_uring *r, void *arg)
{
	(void)r;
	(*(unsigned *)arg)++;
	return 0;
}

static void test_hooks_order_and_limits(void **state)
{
	struct io_uring *ring = *state;
	struct zn_uring *r = zn_uring_from_handle(ring->ring_fd);
	unsigned counts[ZN_URING_MAX_HOOKS] = { 0 };
	struct io_uring_cqe c;
	int ids[ZN_URING_MAX_HOOKS], self_id, i;

	self_id = zn_uring_hook_add(r, self_removing, &self_id, 0);
	assert_true(self_id >= 0);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0xdead);
	assert_int_equal(io_uring_submit(ring), 0);
	assert_int_equal(io_uring_cq_ready(ring), 0);	/* ran once, then gone */
	for (i = 0; i < ZN_URING_MAX_HOOKS; i++) {
		ids[i] = zn_uring_hook_add(r, counting, &counts[i], 0);
		assert_true(ids[i] >= 0);
	}
	assert_int_equal(zn_uring_hook_add(r, counting, &counts[0], 0), -ENOSPC);
	assert_int_equal(io_uring_submit(ring), 0);
	for (i = 0; i < ZN_URING_MAX_HOOKS; i++) {
		assert_int_equal(counts[i], 1);
		assert_int_equal(zn_uring_hook_del(r, ids[i]), 0);
	}
}

/* SINGLE_ISSUER: only the creating thread may submit or wait */
static void *foreign_submit(void *arg)
{
	struct io_uring *ring = arg;
	static int rc;

	rc = io_uring_submit(ring);
	return &rc;
}

static void test_single_issuer(void **state)
{
	struct io_uring ring;
	pthread_t t;
	void *ret;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_SINGLE_ISSUER), 0);
	assert_int_equal(pthread_create(&t, NULL, foreign_submit, &ring), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_int_equal(*(int *)ret, -EEXIST);
	assert_int_equal(io_uring_submit(&ring), 0);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait_timeout_etime, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_cqes_partial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_and_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_poll_hook, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hooks_order_and_limits, setup, teardown),
		cmocka_unit_test(test_single_issuer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
