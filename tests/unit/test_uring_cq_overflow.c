/*
 * CQ overflow, mirroring liburing test/cq-overflow.c: CQEs that find the
 * CQ full wait in the overflow list (IORING_FEAT_NODROP), come out in the
 * order they were posted, and IORING_SQ_CQ_OVERFLOW says when some wait.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "core/uring/uring_op.h"
#include "zcnic/uring.h"

static int init_small_cq(struct io_uring *ring, unsigned sq, unsigned cq)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = cq;
	return io_uring_queue_init_params(sq, ring, &p);
}

/* cq-overflow.c test_overflow: 4 x 4 NOPs into a 4-entry CQ, reaped in order */
static void test_overflow_in_order(void **state)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned i, j;

	(void)state;
	assert_int_equal(init_small_cq(&ring, 4, 4), 0);
	assert_true(ring.features & IORING_FEAT_NODROP);
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_nop(sqe);
			sqe->user_data = i * 4 + j;
		}
		assert_int_equal(io_uring_submit(&ring), 4);
	}
	assert_int_equal(io_uring_cq_ready(&ring), 4);
	assert_true(io_uring_cq_has_overflow(&ring));
	assert_int_equal(*ring.cq.koverflow, 0);	/* nothing lost */
	for (i = 0; i < 16; i++) {
		assert_int_equal(io_uring_wait_cqe(&ring, &cqe), 0);
		assert_int_equal(cqe->user_data, i);
		assert_int_equal(cqe->res, 0);
		io_uring_cqe_seen(&ring, cqe);
	}
	assert_false(io_uring_cq_has_overflow(&ring));
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	io_uring_queue_exit(&ring);
}

/*
 * New CQEs while the list holds some go behind them, even when the CQ has
 * room again (the kernel's rule), so reaping in pieces keeps the order.
 */
static void test_overflow_partial_reaps(void **state)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	uint64_t expect = 0, next = 0;
	unsigned round;

	(void)state;
	assert_int_equal(init_small_cq(&ring, 8, 8), 0);
	for (round = 0; round < 50; round++) {
		unsigned head, n = 0, reap = 1 + round % 5;

		assert_int_equal(urt_queue_nops(&ring, 8, next, 0), 0);
		next += 8;
		assert_int_equal(io_uring_submit(&ring), 8);
		io_uring_for_each_cqe(&ring, head, cqe) {
			if (n == reap)
				break;
			assert_int_equal(cqe->user_data, expect);
			expect++;
			n++;
		}
		io_uring_cq_advance(&ring, n);
	}
	while (expect < next) {
		assert_int_equal(io_uring_wait_cqe(&ring, &cqe), 0);
		assert_int_equal(cqe->user_data, expect);
		expect++;
		io_uring_cqe_seen(&ring, cqe);
	}
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	assert_false(io_uring_cq_has_overflow(&ring));
	assert_int_equal(*ring.cq.koverflow, 0);
	io_uring_queue_exit(&ring);
}

/* the native poster: ZN_CQE_NO_OVERFLOW refuses instead of queueing */
static void test_no_overflow_post(void **state)
{
	struct io_uring ring;
	struct zn_uring *r;
	struct zn_uring_stats st;
	struct io_uring_cqe c;
	int i;

	(void)state;
	assert_int_equal(init_small_cq(&ring, 2, 2), 0);
	r = zn_uring_from_handle(ring.ring_fd);
	assert_int_equal(zn_uring_post_cqe(r, 1, 10, IORING_CQE_F_MORE, NULL, ZN_CQE_NO_OVERFLOW), 0);
	assert_int_equal(zn_uring_post_cqe(r, 2, 20, 0, NULL, ZN_CQE_NO_OVERFLOW), 0);
	assert_int_equal(zn_uring_post_cqe(r, 3, 30, 0, NULL, ZN_CQE_NO_OVERFLOW), -ENOSPC);
	assert_int_equal(zn_uring_post_cqe(r, 3, 30, 0, NULL, 0), 0);
	assert_int_equal(zn_uring_overflow_pending(r), 1);
	/* a list that is not empty refuses too, even with CQ room */
	assert_int_equal(urt_get_cqe(&ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.flags, IORING_CQE_F_MORE);
	assert_int_equal(zn_uring_post_cqe(r, 4, 40, 0, NULL, ZN_CQE_NO_OVERFLOW), -ENOSPC);
	for (i = 2; i <= 3; i++) {
		assert_int_equal(urt_get_cqe(&ring, &c, URT_WAIT_MS), 0);
		assert_int_equal(c.user_data, (uint64_t)i);
		assert_int_equal(c.res, i * 10);
	}
	zn_uring_get_stats(r, &st);
	assert_int_equal(st.overflowed, 1);
	io_uring_queue_exit(&ring);
}

/* exiting a ring with CQEs still in the overflow list frees them (ASan) */
static void test_exit_with_overflow(void **state)
{
	struct io_uring ring;

	(void)state;
	assert_int_equal(init_small_cq(&ring, 8, 8), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(urt_queue_nops(&ring, 8, 0, 0), 0);
		assert_int_equal(io_uring_submit(&ring), 8);
	}
	assert_true(io_uring_cq_has_overflow(&ring));
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overflow_in_order),
		cmocka_unit_test(test_overflow_partial_reaps),
		cmocka_unit_test(test_no_overflow_post),
		cmocka_unit_test(test_exit_with_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
