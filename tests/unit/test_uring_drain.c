/* SPDX-License-Identifier: MIT */
/*
 * IOSQE_IO_DRAIN through the liburing API, as io_uring_enter(2) and the
 * kernel's io_drain_req define it: a drained SQE starts only after every
 * earlier one completed, the SQEs after it only after it completed; with
 * nothing in flight it runs at once; a DRAIN member holds its whole chain;
 * an SQE that fails at submission is not held. In-flight requests come from
 * the test HOLD op (uring_test_ops.h).
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


static void expect_none(struct io_uring *ring, int ms)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(ring, &c, ms), -ETIME);
}

static void nop(struct io_uring *ring, uint64_t ud, unsigned flags)
{
	struct io_uring_sqe *sqe = urt_sqe(ring, ud);

	io_uring_prep_nop(sqe);
	sqe->flags |= (uint8_t)flags;
}

static void hold(struct io_uring *ring, uint64_t ud, int res)
{
	top_prep_hold(urt_sqe(ring, ud), TOP_HOLD, 0, res, ud);
}

/* the drained NOP and the NOP after it wait for the request in flight */
static void test_waits_for_earlier(void **state)
{
	struct io_uring *ring = *state;

	hold(ring, 1, 11);
	nop(ring, 2, IOSQE_IO_DRAIN);
	nop(ring, 3, 0);
	assert_int_equal(io_uring_submit(ring), 3);
	expect_none(ring, 10);
	assert_int_equal(top_release_all(), 1);
	urt_expect(ring, 1, 11);
	urt_expect(ring, 2, 0);
	urt_expect(ring, 3, 0);
}

/* nothing in flight: a drained request runs at once, so does the next */
static void test_idle(void **state)
{
	struct io_uring *ring = *state;

	nop(ring, 1, IOSQE_IO_DRAIN);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 1, 0);
	nop(ring, 2, 0);
	nop(ring, 3, IOSQE_IO_DRAIN);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect(ring, 2, 0);
	urt_expect(ring, 3, 0);
}

/*
 * A drained request that goes in flight holds what comes after it; once it
 * completed the later ones run without waiting for each other.
 */
static void test_drained_holds_later(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe;

	hold(ring, 1, 21);
	sqe = urt_sqe(ring, 2);
	top_prep_hold(sqe, TOP_HOLD, 0, 22, 2);
	sqe->flags |= IOSQE_IO_DRAIN;
	nop(ring, 3, 0);
	assert_int_equal(io_uring_submit(ring), 3);
	expect_none(ring, 5);
	assert_int_equal(top_release_all(), 1);	/* 1 */
	urt_expect(ring, 1, 21);
	expect_none(ring, 5);			/* 2 is in flight now, 3 waits */
	assert_int_equal(top_nheld, 1);
	hold(ring, 4, 24);
	nop(ring, 5, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	expect_none(ring, 5);
	assert_int_equal(top_release_all(), 1);	/* 2 */
	urt_expect(ring, 2, 22);
	urt_expect(ring, 3, 0);
	/* 4 went in flight, 5 did not wait for it */
	urt_expect(ring, 5, 0);
	assert_int_equal(top_release_all(), 1);
	urt_expect(ring, 4, 24);
}

/* DRAIN on a chain member holds the whole chain */
static void test_chain(void **state)
{
	struct io_uring *ring = *state;

	hold(ring, 1, 31);
	nop(ring, 2, IOSQE_IO_LINK);
	nop(ring, 3, IOSQE_IO_DRAIN);
	assert_int_equal(io_uring_submit(ring), 3);
	expect_none(ring, 10);
	assert_int_equal(top_release_all(), 1);
	urt_expect(ring, 1, 31);
	urt_expect(ring, 2, 0);
	urt_expect(ring, 3, 0);
}

/* an SQE that fails at submission completes at once, drain or not */
static void test_failed_not_held(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe;

	hold(ring, 1, 41);
	sqe = urt_sqe(ring, 2);
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->personality = 1;		/* no such personality: -EINVAL */
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect(ring, 2, -EINVAL);
	assert_int_equal(top_release_all(), 1);
	urt_expect(ring, 1, 41);
}

/* a ring that exits with drained requests held posts nothing for them */
static void test_exit_with_held(void **state)
{
	struct io_uring *ring = *state;

	hold(ring, 1, 1);
	nop(ring, 2, IOSQE_IO_DRAIN);
	assert_int_equal(io_uring_submit(ring), 2);
	assert_int_equal(top_nheld, 1);
	io_uring_queue_exit(ring);
	assert_int_equal(top_nheld, 0);
	assert_int_equal(top_cancels, 1);
	assert_int_equal(io_uring_queue_init(16, ring, 0), 0);	/* for teardown */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waits_for_earlier, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_idle, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_drained_holds_later, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_chain, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_failed_not_held, top_ring_setup, top_ring_teardown),
		cmocka_unit_test_setup_teardown(test_exit_with_held, top_ring_setup, top_ring_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
