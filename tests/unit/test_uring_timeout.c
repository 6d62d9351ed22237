/*
 * IORING_OP_TIMEOUT, TIMEOUT_REMOVE (and update) and LINK_TIMEOUT through
 * the liburing API, each result and error code as Linux io_uring/timeout.c
 * gives it: expiry (-ETIME), completion by count (0), ETIME_SUCCESS,
 * absolute timeouts, multishot, prep errors, removal and update, and link
 * timeouts that fire first or are beaten by the request they guard.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "tests/unit/uring_test_ops.h"
#include "zcnic/uring.h"

#define MS 1000000ll


static struct __kernel_timespec ts_ms(long ms)
{
	return (struct __kernel_timespec){ .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * MS };
}

static void expect_none(struct io_uring *ring, int ms)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(ring, &c, ms), -ETIME);
}

/* a relative timeout expires with -ETIME, not before its time */
static void test_expire(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(30);
	uint64_t t0 = urt_now_ns();

	io_uring_prep_timeout(urt_sqe(ring, 1), &ts, 0, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 1, -ETIME, 0);
	assert_true(urt_now_ns() - t0 >= 30 * MS);
}

/* off = N: 0 once N other CQEs were posted; the timeout's own CQE comes after them */
static void test_count(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(5000);

	io_uring_prep_timeout(urt_sqe(ring, 1), &ts, 2, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	io_uring_prep_nop(urt_sqe(ring, 2));
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 2, 0, 0);
	expect_none(ring, 20);		/* one of two so far */
	io_uring_prep_nop(urt_sqe(ring, 3));
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 3, 0, 0);
	urt_expect_cqe(ring, 1, 0, 0);
	/* a timeout's CQE does not count for another timeout */
	ts = ts_ms(20);
	io_uring_prep_timeout(urt_sqe(ring, 4), &ts, 0, 0);
	io_uring_prep_timeout(urt_sqe(ring, 5), &(struct __kernel_timespec){ 5, 0 }, 1, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 4, -ETIME, 0);
	expect_none(ring, 30);
	io_uring_prep_nop(urt_sqe(ring, 6));
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 6, 0, 0);
	urt_expect_cqe(ring, 5, 0, 0);
}

/* -ETIME fails the link; with ETIME_SUCCESS the chain goes on */
static void test_etime_success(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(10);
	struct io_uring_sqe *sqe;

	sqe = urt_sqe(ring, 1);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_nop(urt_sqe(ring, 2));
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 1, -ETIME, 0);
	urt_expect_cqe(ring, 2, -ECANCELED, 0);

	sqe = urt_sqe(ring, 3);
	io_uring_prep_timeout(sqe, &ts, 0, IORING_TIMEOUT_ETIME_SUCCESS);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_nop(urt_sqe(ring, 4));
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 3, -ETIME, 0);
	urt_expect_cqe(ring, 4, 0, 0);
}

/* ABS with the default (monotonic) clock and with REALTIME */
static void test_abs(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts;
	struct timespec now;
	uint64_t t0 = urt_now_ns();

	clock_gettime(CLOCK_MONOTONIC, &now);
	ts.tv_sec = now.tv_sec;
	ts.tv_nsec = now.tv_nsec + 20 * MS;
	io_uring_prep_timeout(urt_sqe(ring, 1), &ts, 0, IORING_TIMEOUT_ABS);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 1, -ETIME, 0);
	assert_true(urt_now_ns() - t0 >= 20 * MS);
	/* a time already past: at once */
	clock_gettime(CLOCK_REALTIME, &now);
	ts.tv_sec = now.tv_sec - 1;
	ts.tv_nsec = 0;
	io_uring_prep_timeout(urt_sqe(ring, 2), &ts, 0, IORING_TIMEOUT_ABS | IORING_TIMEOUT_REALTIME);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 2, -ETIME, 0);
}

/* MULTISHOT: off CQEs, all -ETIME, F_MORE on all but the last */
static void test_multishot(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(5);

	io_uring_prep_timeout(urt_sqe(ring, 1), &ts, 3, IORING_TIMEOUT_MULTISHOT);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 1, -ETIME, IORING_CQE_F_MORE);
	urt_expect_cqe(ring, 1, -ETIME, IORING_CQE_F_MORE);
	urt_expect_cqe(ring, 1, -ETIME, 0);
	expect_none(ring, 20);
	/* off 0: until removed */
	io_uring_prep_timeout(urt_sqe(ring, 2), &ts, 0, IORING_TIMEOUT_MULTISHOT);
	assert_int_equal(io_uring_submit(ring), 1);
	for (int i = 0; i < 4; i++)
		urt_expect_cqe(ring, 2, -ETIME, IORING_CQE_F_MORE);
	io_uring_prep_timeout_remove(urt_sqe(ring, 3), 2, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	/* a shot may have fired in between */
	for (;;) {
		struct io_uring_cqe c;

		assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
		if (c.user_data == 2 && c.res == -ETIME)
			continue;
		assert_int_equal(c.user_data, 2);
		assert_int_equal(c.res, -ECANCELED);
		break;
	}
	urt_expect_cqe(ring, 3, 0, 0);
}

/* what prep refuses, in the kernel's order */
static void test_prep_errors(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(10), neg = { -1, 0 };
	struct io_uring_sqe *sqe;

#define ONE(stmt, err) do { sqe = urt_sqe(ring, 9); io_uring_prep_timeout(sqe, &ts, 0, 0); stmt; \
		assert_int_equal(io_uring_submit(ring), 1); urt_expect_cqe(ring, 9, err, 0); } while (0)
	ONE(sqe->len = 2, -EINVAL);
	ONE(sqe->buf_index = 1, -EINVAL);
	ONE(sqe->file_index = 1, -EINVAL);
	ONE(sqe->timeout_flags = 1u << 7, -EINVAL);
	ONE(sqe->timeout_flags = IORING_TIMEOUT_UPDATE, -EINVAL);
	ONE(sqe->timeout_flags = IORING_TIMEOUT_BOOTTIME | IORING_TIMEOUT_REALTIME, -EINVAL);
	ONE(sqe->timeout_flags = IORING_TIMEOUT_MULTISHOT | IORING_TIMEOUT_ABS, -EINVAL);
	ONE(sqe->addr = 0, -EFAULT);
	ONE(sqe->addr = (uintptr_t)&neg, -EINVAL);
	ONE(sqe->flags = IOSQE_BUFFER_SELECT, -EOPNOTSUPP);
#undef ONE
}

/* TIMEOUT_REMOVE: found, not found, bad SQEs */
static void test_remove(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(5000);
	struct io_uring_sqe *sqe;

	io_uring_prep_timeout(urt_sqe(ring, 1), &ts, 0, 0);
	io_uring_prep_timeout_remove(urt_sqe(ring, 2), 1, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 1, -ECANCELED, 0);
	urt_expect_cqe(ring, 2, 0, 0);
	io_uring_prep_timeout_remove(urt_sqe(ring, 3), 1, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 3, -ENOENT, 0);
	/* flags other than the update ones, len, buf_index, FIXED_FILE: -EINVAL */
	sqe = urt_sqe(ring, 4);
	io_uring_prep_timeout_remove(sqe, 1, IORING_TIMEOUT_ABS);
	sqe = urt_sqe(ring, 5);
	io_uring_prep_timeout_remove(sqe, 1, 0);
	sqe->len = 1;
	sqe = urt_sqe(ring, 6);
	io_uring_prep_timeout_remove(sqe, 1, 0);
	sqe->flags = IOSQE_FIXED_FILE;
	/* each failure ends its submit (no SUBMIT_ALL) */
	for (uint64_t ud = 4; ud <= 6; ud++) {
		assert_int_equal(io_uring_submit(ring), 1);
		urt_expect_cqe(ring, ud, -EINVAL, 0);
	}
}

/* update: a new time from now; the count is dropped; missing timespec -EFAULT */
static void test_update(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(5000), soon = ts_ms(20);
	struct io_uring_sqe *sqe;
	uint64_t t0 = urt_now_ns();

	io_uring_prep_timeout(urt_sqe(ring, 1), &ts, 4, 0);
	io_uring_prep_timeout_update(urt_sqe(ring, 2), &soon, 1, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 2, 0, 0);
	urt_expect_cqe(ring, 1, -ETIME, 0);
	assert_true(urt_now_ns() - t0 < 2000 * MS);
	io_uring_prep_timeout_update(urt_sqe(ring, 3), &soon, 1, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 3, -ENOENT, 0);
	sqe = urt_sqe(ring, 4);
	io_uring_prep_timeout_update(sqe, NULL, 1, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 4, -EFAULT, 0);
	sqe = urt_sqe(ring, 5);
	io_uring_prep_timeout_update(sqe, &soon, 1, IORING_TIMEOUT_REALTIME);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 5, -EINVAL, 0);
}

/* LINK_TIMEOUT fires first: the request is cancelled, the timeout says -ETIME */
static void test_link_timeout_fires(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(20);
	struct io_uring_sqe *sqe;

	sqe = urt_sqe(ring, 1);
	top_prep_hold(sqe, TOP_HOLD, 0, 5, 1);
	sqe->flags = IOSQE_IO_LINK;
	sqe = urt_sqe(ring, 2);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_nop(urt_sqe(ring, 3));
	assert_int_equal(io_uring_submit(ring), 3);
	expect_none(ring, 5);
	urt_expect_cqe(ring, 1, -ECANCELED, 0);
	urt_expect_cqe(ring, 3, -ECANCELED, 0);
	urt_expect_cqe(ring, 2, -ETIME, 0);
	assert_int_equal(top_cancels, 1);
	assert_int_equal(top_nheld, 0);
	/* a request the op cannot stop: the timeout says -EALREADY, the request runs on */
	sqe = urt_sqe(ring, 4);
	top_prep_hold(sqe, TOP_STUCK, 0, 9, 4);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_link_timeout(urt_sqe(ring, 5), &ts, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 5, -EALREADY, 0);
	assert_int_equal(top_release_all(), 1);
	urt_expect_cqe(ring, 4, 9, 0);
}

/* the request completes first: the timeout -ECANCELED, the chain goes on */
static void test_link_timeout_beaten(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(5000);
	struct io_uring_sqe *sqe;

	/* a request that completes inline (never armed) */
	sqe = urt_sqe(ring, 1);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_IO_LINK;
	sqe = urt_sqe(ring, 2);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_nop(urt_sqe(ring, 3));
	assert_int_equal(io_uring_submit(ring), 3);
	urt_expect_cqe(ring, 1, 0, 0);
	urt_expect_cqe(ring, 2, -ECANCELED, 0);
	urt_expect_cqe(ring, 3, 0, 0);
	/* an asynchronous one, armed, that completes before its time */
	sqe = urt_sqe(ring, 4);
	top_prep_hold(sqe, TOP_HOLD, 0, 7, 4);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_link_timeout(urt_sqe(ring, 5), &ts, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	expect_none(ring, 5);
	assert_int_equal(top_release_all(), 1);
	urt_expect_cqe(ring, 4, 7, 0);
	urt_expect_cqe(ring, 5, -ECANCELED, 0);
	/* a failing request: the timeout -ECANCELED, the rest too */
	sqe = urt_sqe(ring, 6);
	urt_prep_nop_res(sqe, -EIO);
	sqe->user_data = 6;
	sqe->flags = IOSQE_IO_LINK;
	sqe = urt_sqe(ring, 7);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_nop(urt_sqe(ring, 8));
	assert_int_equal(io_uring_submit(ring), 3);
	urt_expect_cqe(ring, 6, -EIO, 0);
	urt_expect_cqe(ring, 7, -ECANCELED, 0);
	urt_expect_cqe(ring, 8, -ECANCELED, 0);
}

/* LINK_TIMEOUT prep: not after a link member, after another one, off != 0 */
static void test_link_timeout_prep(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(10);
	struct io_uring_sqe *sqe;

	io_uring_prep_link_timeout(urt_sqe(ring, 1), &ts, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 1, -EINVAL, 0);
	sqe = urt_sqe(ring, 2);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_IO_LINK;
	sqe = urt_sqe(ring, 3);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->off = 1;
	assert_int_equal(io_uring_submit(ring), 2);
	/* a member that fails at submission fails its whole chain */
	urt_expect_cqe(ring, 2, -ECANCELED, 0);
	urt_expect_cqe(ring, 3, -EINVAL, 0);
	sqe = urt_sqe(ring, 4);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_IO_LINK;
	sqe = urt_sqe(ring, 5);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_link_timeout(urt_sqe(ring, 6), &ts, 0);
	assert_int_equal(io_uring_submit(ring), 3);
	urt_expect_cqe(ring, 4, -ECANCELED, 0);
	urt_expect_cqe(ring, 5, -ECANCELED, 0);
	urt_expect_cqe(ring, 6, -EINVAL, 0);
}

/* IORING_LINK_TIMEOUT_UPDATE moves an armed link timeout */
static void test_link_timeout_update(void **state)
{
	struct io_uring *ring = *state;
	struct __kernel_timespec ts = ts_ms(5000), soon = ts_ms(10);
	struct io_uring_sqe *sqe;

	sqe = urt_sqe(ring, 1);
	top_prep_hold(sqe, TOP_HOLD, 0, 1, 1);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_link_timeout(urt_sqe(ring, 2), &ts, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	io_uring_prep_timeout_update(urt_sqe(ring, 3), &soon, 2, IORING_LINK_TIMEOUT_UPDATE);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 3, 0, 0);
	urt_expect_cqe(ring, 1, -ECANCELED, 0);
	urt_expect_cqe(ring, 2, -ETIME, 0);
	/* a TIMEOUT is not a link timeout, and the other way round */
	io_uring_prep_timeout(urt_sqe(ring, 4), &ts, 0, 0);
	io_uring_prep_timeout_update(urt_sqe(ring, 5), &soon, 4, IORING_LINK_TIMEOUT_UPDATE);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 5, -ENOENT, 0);
	io_uring_prep_timeout_remove(urt_sqe(ring, 6), 4, 0);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 4, -ECANCELED, 0);
	urt_expect_cqe(ring, 6, 0, 0);
}

/* a wait sleeps no longer than the earliest timer; ring exit with timers armed */
static void test_wait_and_exit(void **state)
{
	struct io_uring ring;
	struct __kernel_timespec ts = ts_ms(15), longer = ts_ms(60000);
	struct io_uring_cqe *cqe;
	uint64_t t0;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, 0), 0);
	io_uring_prep_timeout(io_uring_get_sqe(&ring), &ts, 0, 0);
	io_uring_prep_timeout(io_uring_get_sqe(&ring), &longer, 0, 0);
	assert_int_equal(io_uring_submit(&ring), 2);
	t0 = urt_now_ns();
	assert_int_equal(io_uring_wait_cqe(&ring, &cqe), 0);
	assert_int_equal(cqe->res, -ETIME);
	assert_true(urt_now_ns() - t0 < 5000 * MS);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);	/* one still armed: no leak, no CQE */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_expire, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_count, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_etime_success, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_abs, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_multishot, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_prep_errors, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_remove, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_update, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_link_timeout_fires, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_link_timeout_beaten, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_link_timeout_prep, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_link_timeout_update, top_ring_setup, top_ring_teardown),
		cmocka_unit_test(test_wait_and_exit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
