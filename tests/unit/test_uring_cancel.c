/*
 * IORING_OP_ASYNC_CANCEL and IORING_REGISTER_SYNC_CANCEL, with the results
 * of Linux io_uring/cancel.c: by user_data (0, -ENOENT), ALL and ANY (the
 * count), by fd (plain and fixed), by opcode, the prep errors, a request its
 * op cannot stop (-EALREADY), timeouts, links of a cancelled request.
 * In-flight requests come from a test op (uring_test_ops.h) that holds them
 * as a socket op holds a RECV waiting for data.
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

struct fx {
	struct io_uring ring;
	struct io_uring other;	/* its handle stands in for a socket's */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || io_uring_queue_init(32, &f->ring, 0) || io_uring_queue_init(4, &f->other, 0))
		return -1;
	top_install();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	io_uring_queue_exit(&f->ring);
	io_uring_queue_exit(&f->other);
	free(f);
	top_uninstall();
	return 0;
}

static void hold(struct io_uring *ring, unsigned op, int fd, uint64_t ud)
{
	top_prep_hold(urt_sqe(ring, ud), op, fd, 1, ud);
}

/* by user_data: the request -ECANCELED, the cancel 0; again: -ENOENT */
static void test_by_user_data(void **state)
{
	struct fx *f = *state;

	hold(&f->ring, TOP_HOLD, 0, 1);
	hold(&f->ring, TOP_HOLD, 0, 2);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 10), 1, 0);
	assert_int_equal(io_uring_submit(&f->ring), 3);
	urt_expect(&f->ring, 1, -ECANCELED);
	urt_expect(&f->ring, 10, 0);
	assert_int_equal(top_nheld, 1);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 11), 1, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 11, -ENOENT);
	/* two with the same user_data: one per cancel without ALL */
	hold(&f->ring, TOP_HOLD, 0, 2);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 12), 2, 0);
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 2, -ECANCELED);
	urt_expect(&f->ring, 12, 0);
	assert_int_equal(top_nheld, 1);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 13), 2, IORING_ASYNC_CANCEL_ALL);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 2, -ECANCELED);
	urt_expect(&f->ring, 13, 1);
	assert_int_equal(top_cancels, 3);
}

/* ALL with user_data, ANY: the number cancelled; nothing matched: 0 */
static void test_all_any(void **state)
{
	struct fx *f = *state;

	for (uint64_t i = 0; i < 3; i++)
		hold(&f->ring, TOP_HOLD, 0, 5);
	hold(&f->ring, TOP_HOLD, 0, 6);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 20), 5, IORING_ASYNC_CANCEL_ALL);
	assert_int_equal(io_uring_submit(&f->ring), 5);
	for (int i = 0; i < 3; i++)
		urt_expect(&f->ring, 5, -ECANCELED);
	urt_expect(&f->ring, 20, 3);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 21), 5, IORING_ASYNC_CANCEL_ALL);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 21, 0);
	hold(&f->ring, TOP_HOLD, 0, 7);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 22), 0, IORING_ASYNC_CANCEL_ANY);
	assert_int_equal(io_uring_submit(&f->ring), 2);
	{
		struct io_uring_cqe c;
		unsigned seen = 0;

		for (int i = 0; i < 2; i++) {
			assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
			assert_int_equal(c.res, -ECANCELED);
			seen |= 1u << c.user_data;
		}
		assert_int_equal(seen, (1u << 6) | (1u << 7));
	}
	urt_expect(&f->ring, 22, 2);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 23), 0, IORING_ASYNC_CANCEL_ANY);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 23, 0);
}

/* FD (a handle, or a fixed slot), OP, and USERDATA with them */
static void test_fd_and_op(void **state)
{
	struct fx *f = *state;
	int h = f->other.ring_fd;
	struct io_uring_sqe *sqe;

	hold(&f->ring, TOP_HOLD, h, 1);
	hold(&f->ring, TOP_HOLD, 0, 2);
	io_uring_prep_cancel_fd(urt_sqe(&f->ring, 30), h, 0);
	assert_int_equal(io_uring_submit(&f->ring), 3);
	urt_expect(&f->ring, 1, -ECANCELED);
	urt_expect(&f->ring, 30, 0);
	/* fixed: slot 0 holds h */
	assert_int_equal(io_uring_register_files(&f->ring, &h, 1), 0);
	hold(&f->ring, TOP_HOLD, h, 3);
	io_uring_prep_cancel_fd(urt_sqe(&f->ring, 31), 0, IORING_ASYNC_CANCEL_FD_FIXED);
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 3, -ECANCELED);
	urt_expect(&f->ring, 31, 0);
	/* a slot or an fd that names nothing: -EBADF */
	io_uring_prep_cancel_fd(urt_sqe(&f->ring, 32), 5, IORING_ASYNC_CANCEL_FD_FIXED);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 32, -EBADF);
	io_uring_prep_cancel_fd(urt_sqe(&f->ring, 33), -1, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 33, -EBADF);
	/* OP (opcode in len): only requests of that op */
	hold(&f->ring, TOP_STUCK, 0, 4);
	sqe = urt_sqe(&f->ring, 34);
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_OP | IORING_ASYNC_CANCEL_ALL);
	sqe->len = TOP_HOLD;
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 2, -ECANCELED);
	urt_expect(&f->ring, 34, 1);
	/* OP | USERDATA: both must match */
	hold(&f->ring, TOP_HOLD, 0, 5);
	sqe = urt_sqe(&f->ring, 35);
	io_uring_prep_cancel64(sqe, 6, IORING_ASYNC_CANCEL_OP | IORING_ASYNC_CANCEL_USERDATA);
	sqe->len = TOP_HOLD;
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 35, -ENOENT);
	sqe = urt_sqe(&f->ring, 36);
	io_uring_prep_cancel64(sqe, 5, IORING_ASYNC_CANCEL_OP | IORING_ASYNC_CANCEL_USERDATA);
	sqe->len = TOP_HOLD;
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 5, -ECANCELED);
	urt_expect(&f->ring, 36, 0);
	/* the STUCK one: its op cannot stop it */
	io_uring_prep_cancel64(urt_sqe(&f->ring, 37), 4, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 37, -EALREADY);
	assert_int_equal(top_release_all(), 1);
	urt_expect(&f->ring, 4, 1);
}

/* prep errors: unknown flag, FD|ANY, OP|ANY, off, file_index, BUFFER_SELECT */
static void test_prep_errors(void **state)
{
	struct fx *f = *state;
	struct io_uring_sqe *sqe;

#define ONE(stmt, err) do { sqe = urt_sqe(&f->ring, 40); io_uring_prep_cancel64(sqe, 1, 0); stmt; \
		assert_int_equal(io_uring_submit(&f->ring), 1); urt_expect(&f->ring, 40, err); } while (0)
	ONE(sqe->cancel_flags = 1u << 6, -EINVAL);
	ONE(sqe->cancel_flags = IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ANY, -EINVAL);
	ONE(sqe->cancel_flags = IORING_ASYNC_CANCEL_OP | IORING_ASYNC_CANCEL_ANY, -EINVAL);
	ONE(sqe->off = 1, -EINVAL);
	ONE(sqe->file_index = 1, -EINVAL);
	ONE(sqe->flags = IOSQE_BUFFER_SELECT, -EOPNOTSUPP);
#undef ONE
}

/* a timeout is cancelled like any request; a cancelled request fails its links */
static void test_timeout_and_links(void **state)
{
	struct fx *f = *state;
	struct __kernel_timespec ts = { 60, 0 };
	struct io_uring_sqe *sqe;

	io_uring_prep_timeout(urt_sqe(&f->ring, 1), &ts, 0, 0);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 2), 1, 0);
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 1, -ECANCELED);
	urt_expect(&f->ring, 2, 0);
	sqe = urt_sqe(&f->ring, 3);
	top_prep_hold(sqe, TOP_HOLD, 0, 1, 3);
	sqe->flags = IOSQE_IO_LINK;
	io_uring_prep_nop(urt_sqe(&f->ring, 4));
	io_uring_prep_cancel64(urt_sqe(&f->ring, 5), 3, 0);
	assert_int_equal(io_uring_submit(&f->ring), 3);
	urt_expect(&f->ring, 3, -ECANCELED);
	urt_expect(&f->ring, 4, -ECANCELED);
	urt_expect(&f->ring, 5, 0);
	/* a hard link goes on */
	sqe = urt_sqe(&f->ring, 6);
	top_prep_hold(sqe, TOP_HOLD, 0, 1, 6);
	sqe->flags = IOSQE_IO_HARDLINK;
	io_uring_prep_nop(urt_sqe(&f->ring, 7));
	io_uring_prep_cancel64(urt_sqe(&f->ring, 8), 6, 0);
	assert_int_equal(io_uring_submit(&f->ring), 3);
	urt_expect(&f->ring, 6, -ECANCELED);
	urt_expect(&f->ring, 7, 0);
	urt_expect(&f->ring, 8, 0);
}

/* IORING_REGISTER_SYNC_CANCEL: same matching, from the register call */
static void test_sync_cancel(void **state)
{
	struct fx *f = *state;
	struct io_uring_sync_cancel_reg reg;

	hold(&f->ring, TOP_HOLD, 0, 1);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	memset(&reg, 0, sizeof(reg));
	reg.addr = 1;
	reg.timeout.tv_sec = reg.timeout.tv_nsec = -1;
	assert_int_equal(io_uring_register_sync_cancel(&f->ring, &reg), 0);
	urt_expect(&f->ring, 1, -ECANCELED);
	assert_int_equal(io_uring_register_sync_cancel(&f->ring, &reg), -ENOENT);
	reg.pad[0] = 1;
	assert_int_equal(io_uring_register_sync_cancel(&f->ring, &reg), -EINVAL);
	reg.pad[0] = 0;
	reg.flags = 1u << 7;
	assert_int_equal(io_uring_register_sync_cancel(&f->ring, &reg), -EINVAL);
	/* not stoppable: waits for the end, here bounded by the timeout */
	hold(&f->ring, TOP_STUCK, 0, 2);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	memset(&reg, 0, sizeof(reg));
	reg.addr = 2;
	reg.timeout.tv_nsec = 20000000;
	assert_int_equal(io_uring_register_sync_cancel(&f->ring, &reg), -ETIME);
	assert_int_equal(top_release_all(), 1);
	urt_expect(&f->ring, 2, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_by_user_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_any, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_and_op, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prep_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_and_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_cancel, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
