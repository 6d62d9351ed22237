/*
 * IOSQE_IO_LINK / IOSQE_IO_HARDLINK / IOSQE_CQE_SKIP_SUCCESS, mirroring
 * liburing test/link.c and test/skip-cqe.c (execution failures come from
 * NOPs with IORING_NOP_INJECT_RESULT where the kernel tests use a write to
 * a bad fd), plus chains that fail at submission (the kernel's
 * io_submit_fail_init rules) and a chain member that completes later
 * through an asynchronous op registered in the op table.
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
#include "core/uring/uring_op.h"
#include "zcnic/uring.h"

#define LINK_SIZE 6

static int setup(void **state)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));

	if (!ring || io_uring_queue_init(16, ring, 0))
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

static void expect_cqe(struct io_uring *ring, uint64_t ud, int res)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, ud);
	assert_int_equal(c.res, res);
}

static void expect_empty(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	assert_int_equal(io_uring_peek_cqe(ring, &cqe), -EAGAIN);
}

/* prep n NOPs; member fail_idx (if >= 0) fails with -EFAULT when run */
static void prep_chain(struct io_uring *ring, int n, int fail_idx, unsigned link_flag,
		       bool link_last, int skip_idx, bool skip_all_but_last)
{
	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (i == fail_idx)
			urt_prep_nop_res(sqe, -EFAULT);
		else
			io_uring_prep_nop(sqe);
		if (i != n - 1 || link_last)
			sqe->flags |= (__u8)link_flag;
		if (i == skip_idx || (skip_all_but_last && i != n - 1))
			sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
		sqe->user_data = (__u64)i;
	}
}

/* test/link.c: a failed member cancels the rest */
static void test_link_fail_cancels_rest(void **state)
{
	struct io_uring *ring = *state;

	prep_chain(ring, 4, 1, IOSQE_IO_LINK, false, -1, false);
	assert_int_equal(io_uring_submit(ring), 4);
	expect_cqe(ring, 0, 0);
	expect_cqe(ring, 1, -EFAULT);
	expect_cqe(ring, 2, -ECANCELED);
	expect_cqe(ring, 3, -ECANCELED);
	expect_empty(ring);
	/* the next, unlinked SQE is not part of that chain */
	prep_chain(ring, 1, -1, 0, false, -1, false);
	assert_int_equal(io_uring_submit(ring), 1);
	expect_cqe(ring, 0, 0);
}

/* two chains in one submit: a failure in the first does not touch the second */
static void test_two_chains(void **state)
{
	struct io_uring *ring = *state;

	prep_chain(ring, 2, 0, IOSQE_IO_LINK, false, -1, false);
	prep_chain(ring, 2, -1, IOSQE_IO_LINK, false, -1, false);
	assert_int_equal(io_uring_submit(ring), 4);
	expect_cqe(ring, 0, -EFAULT);
	expect_cqe(ring, 1, -ECANCELED);
	expect_cqe(ring, 0, 0);
	expect_cqe(ring, 1, 0);
	expect_empty(ring);
}

/* a chain left open at the end of a submit runs as it is */
static void test_link_open_at_end(void **state)
{
	struct io_uring *ring = *state;

	prep_chain(ring, 3, -1, IOSQE_IO_LINK, true, -1, false);
	assert_int_equal(io_uring_submit(ring), 3);
	expect_cqe(ring, 0, 0);
	expect_cqe(ring, 1, 0);
	expect_cqe(ring, 2, 0);
	expect_empty(ring);
}

/* a member that fails validation fails its whole chain, even a hard one */
static void test_link_fail_at_submit(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe;

	for (int hard = 0; hard < 2; hard++) {
		prep_chain(ring, 4, -1, hard ? IOSQE_IO_HARDLINK : IOSQE_IO_LINK, false, -1, false);
		sqe = &ring->sq.sqes[(ring->sq.sqe_tail - 3) & ring->sq.ring_mask];
		sqe->opcode = IORING_OP_LAST;	/* member 1 is invalid */
		/* without SUBMIT_ALL the submission still goes on: the failure is mid-chain */
		assert_int_equal(io_uring_submit(ring), 4);
		expect_cqe(ring, 0, -ECANCELED);
		expect_cqe(ring, 1, -EINVAL);
		expect_cqe(ring, 2, -ECANCELED);
		expect_cqe(ring, 3, -ECANCELED);
		expect_empty(ring);
	}
}

/* skip-cqe.c test_link_success */
static void test_skip_link_success(void **state)
{
	struct io_uring *ring = *state;

	for (int i = 0; i < 4; i++) {
		bool skip_last = i & 1;
		int sz = (i & 2) ? LINK_SIZE : 1;

		for (int j = 0; j < sz; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			io_uring_prep_nop(sqe);
			if (j != sz - 1 || skip_last)
				sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
			sqe->user_data = (__u64)j;
		}
		assert_int_equal(io_uring_submit(ring), sz);
		if (!skip_last)
			expect_cqe(ring, (uint64_t)sz - 1, 0);
		expect_empty(ring);
	}
}

/* skip-cqe.c test_link_fail: only the failed member posts */
static void test_skip_link_fail(void **state)
{
	struct io_uring *ring = *state;
	int fail_at[] = { LINK_SIZE / 2, LINK_SIZE - 1 };

	for (unsigned k = 0; k < 2; k++) {
		prep_chain(ring, LINK_SIZE, fail_at[k], IOSQE_IO_LINK, false, -1, true);
		assert_int_equal(io_uring_submit(ring), LINK_SIZE);
		expect_cqe(ring, (uint64_t)fail_at[k], -EFAULT);
		expect_empty(ring);
	}
}

/* a failing member without SKIP: cancelled members post even if they had SKIP */
static void test_fail_without_skip_posts_cancels(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe;

	prep_chain(ring, 3, 0, IOSQE_IO_LINK, false, -1, false);
	sqe = &ring->sq.sqes[(ring->sq.sqe_tail - 2) & ring->sq.ring_mask];
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	assert_int_equal(io_uring_submit(ring), 3);
	expect_cqe(ring, 0, -EFAULT);
	expect_cqe(ring, 1, -ECANCELED);
	expect_cqe(ring, 2, -ECANCELED);
	expect_empty(ring);
}

/* skip-cqe.c test_hardlink: failures do not break a hard chain */
static void test_skip_hardlink(void **state)
{
	struct io_uring *ring = *state;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 2; k++) {
				int nr = 7, fail_idx = i * 3, skip_idx = j * 3;

				prep_chain(ring, nr, fail_idx, IOSQE_IO_HARDLINK, k, skip_idx, false);
				assert_int_equal(io_uring_submit(ring), nr);
				for (int n = 0; n < nr; n++) {
					if (n == skip_idx && fail_idx != skip_idx)
						continue;
					expect_cqe(ring, (uint64_t)n, n == fail_idx ? -EFAULT : 0);
				}
				expect_empty(ring);
			}
}

/*
 * An asynchronous op (as SEND_ZC/RECV will be): its chain waits for it.
 * Installed in the op table under a placeholder opcode for this test.
 */
static struct zn_uring_req *pending;

static int async_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	req->pdu64[0] = sqe->len;
	return 0;
}

static int async_issue(struct zn_uring_req *req)
{
	pending = req;
	return ZN_URING_ISSUE_ASYNC;
}

static int complete_pending(struct zn_uring *r, void *arg)
{
	(void)r;
	(void)arg;
	if (!pending)
		return 0;
	struct zn_uring_req *req = pending;

	pending = NULL;
	zn_uring_req_complete(req, (int32_t)req->pdu64[0], 0);
	return 1;
}

static void test_async_member(void **state)
{
	static const struct zn_uring_op async_op = {
		.name = "test-async", .prep = async_prep, .issue = async_issue,
	};
	const struct zn_uring_op *saved = zn_uring_op_get(IORING_OP_SEND);
	struct io_uring *ring = *state;
	struct zn_uring *r = zn_uring_from_handle(ring->ring_fd);
	struct io_uring_sqe *sqe;
	int hook;

	assert_int_equal(zn_uring_op_override(IORING_OP_SEND, &async_op), 0);
	for (int round = 0; round < 2; round++) {
		int res = round ? -EPIPE : 77;

		sqe = io_uring_get_sqe(ring);
		io_uring_prep_send(sqe, 0, NULL, (size_t)res, 0);
		sqe->flags = IOSQE_IO_LINK;
		sqe->user_data = 1;
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 2;
		assert_int_equal(io_uring_submit(ring), 2);
		/* nothing completed yet: the NOP waits behind the send */
		expect_empty(ring);
		assert_non_null(pending);
		hook = zn_uring_hook_add(r, complete_pending, NULL, 0);
		assert_true(hook >= 0);
		expect_cqe(ring, 1, res);
		expect_cqe(ring, 2, round ? -ECANCELED : 0);
		assert_int_equal(zn_uring_hook_del(r, hook), 0);
	}
	assert_int_equal(zn_uring_op_override(IORING_OP_SEND, saved), 0);
}

/* ring exit with a request in flight: the op's cancel runs, nothing leaks */
static unsigned cancels;

static void async_cancel(struct zn_uring_req *req)
{
	assert_ptr_equal(req, pending);
	pending = NULL;
	cancels++;
}

static void test_exit_with_inflight(void **state)
{
	static const struct zn_uring_op async_op = {
		.name = "test-async", .prep = async_prep, .issue = async_issue,
		.cancel = async_cancel,
	};
	const struct zn_uring_op *saved = zn_uring_op_get(IORING_OP_SEND);
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(zn_uring_op_override(IORING_OP_SEND, &async_op), 0);
	assert_int_equal(io_uring_queue_init(4, &ring, 0), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_send(sqe, 0, NULL, 1, 0);
	sqe->flags = IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	assert_int_equal(io_uring_submit(&ring), 2);
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	assert_non_null(pending);
	cancels = 0;
	io_uring_queue_exit(&ring);
	assert_int_equal(cancels, 1);
	assert_null(pending);
	assert_int_equal(zn_uring_op_override(IORING_OP_SEND, saved), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_link_fail_cancels_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_chains, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_open_at_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_fail_at_submit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_link_success, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_link_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail_without_skip_posts_cancels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_hardlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async_member, setup, teardown),
		cmocka_unit_test(test_exit_with_inflight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
