/*
 * core/uring submission and SQE validation through the liburing API:
 * NOP (liburing test/nop.c), batches, opcodes and flags the kernel refuses
 * (io_init_req rules), the network-op placeholders, SUBMIT_ALL, the SQ
 * index array, CQE32 rings, peek on an empty ring, a full SQ, the probe.
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
#include "zcnic/uring.h"

static int setup(void **state)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));
	struct io_uring_params p = { 0 };

	/* with the SQ index array (liburing's queue_init leaves it out) */
	if (!ring || __io_uring_queue_init_params(8, ring, &p, NULL, 0))
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

static void test_single_nop(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	assert_non_null(sqe);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, 0xfeedbeefcafe0001ull);
	assert_int_equal(io_uring_sq_ready(ring), 1);
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(io_uring_sq_ready(ring), 0);
	assert_int_equal(io_uring_wait_cqe(ring, &cqe), 0);
	assert_int_equal(cqe->res, 0);
	assert_int_equal(cqe->flags, 0);
	assert_int_equal(io_uring_cqe_get_data64(cqe), 0xfeedbeefcafe0001ull);
	io_uring_cqe_seen(ring, cqe);
	assert_int_equal(io_uring_peek_cqe(ring, &cqe), -EAGAIN);
	assert_null(cqe);
}

/* set_data / get_data round-trip a pointer */
static void test_nop_pointer_data(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int marker;

	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data(sqe, &marker);
	assert_int_equal(io_uring_submit_and_wait(ring, 1), 1);
	assert_int_equal(io_uring_peek_cqe(ring, &cqe), 0);
	assert_ptr_equal(io_uring_cqe_get_data(cqe), &marker);
	io_uring_cqe_seen(ring, cqe);
}

/* a batch completes in order; for_each_cqe + cq_advance reap them */
static void test_batch_in_order(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	assert_int_equal(urt_queue_nops(ring, 8, 100, 0), 0);
	assert_null(io_uring_get_sqe(ring));	/* SQ of 8 is full */
	assert_int_equal(io_uring_sq_space_left(ring), 0);
	assert_int_equal(io_uring_submit(ring), 8);
	assert_int_equal(io_uring_cq_ready(ring), 8);
	io_uring_for_each_cqe(ring, head, cqe) {
		assert_int_equal(cqe->user_data, 100 + n);
		assert_int_equal(cqe->res, 0);
		n++;
	}
	assert_int_equal(n, 8);
	io_uring_cq_advance(ring, n);
	assert_int_equal(io_uring_cq_ready(ring), 0);
	assert_int_equal(io_uring_sq_space_left(ring), 8);
}

/*
 * SQEs that complete straight from the SQ (plain NOPs) and SQEs that take
 * the generic way (nop_flags, a link chain) in one submission: the CQEs come
 * in submission order, CQE_SKIP_SUCCESS posts nothing, and once the CQ is
 * full the rest go through the overflow list, still in order.
 */
static void test_direct_and_generic_mixed(void **state)
{
	static const uint64_t want_ud[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 13, 14, 15, 16, 17, 20, 21, 22, 23,
	};
	struct io_uring *ring = *state;	/* 8 SQ entries, 16 CQ entries */
	struct io_uring_sqe *sqe;
	unsigned i;

	assert_int_equal(urt_queue_nops(ring, 8, 0, 0), 0);
	assert_int_equal(io_uring_submit(ring), 8);
	assert_int_equal(io_uring_cq_ready(ring), 8);

	assert_int_equal(urt_queue_nops(ring, 1, 10, 0), 0);
	urt_prep_nop_res(urt_sqe(ring, 11), 7);		/* nop_flags: the generic way */
	sqe = urt_sqe(ring, 12);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_flags(sqe, IOSQE_CQE_SKIP_SUCCESS);
	assert_int_equal(urt_queue_nops(ring, 1, 13, IOSQE_IO_LINK), 0);
	assert_int_equal(urt_queue_nops(ring, 4, 14, 0), 0);
	assert_int_equal(io_uring_submit(ring), 8);
	assert_int_equal(io_uring_cq_ready(ring), 15);

	/* one CQ slot left: one CQE goes straight in, three overflow */
	assert_int_equal(urt_queue_nops(ring, 4, 20, 0), 0);
	assert_int_equal(io_uring_submit(ring), 4);

	for (i = 0; i < sizeof(want_ud) / sizeof(want_ud[0]); i++)
		urt_expect(ring, want_ud[i], want_ud[i] == 11 ? 7 : 0);
	assert_int_equal(io_uring_cq_ready(ring), 0);
}

static void test_nop_inject_and_flags(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_cqe c;
	struct io_uring_sqe *sqe;

	sqe = io_uring_get_sqe(ring);
	urt_prep_nop_res(sqe, 1234);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(ring);
	urt_prep_nop_res(sqe, -EPERM);
	sqe->user_data = 2;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->nop_flags = 1u << 7;	/* unknown nop flag */
	sqe->user_data = 3;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->nop_flags = IORING_NOP_FILE;	/* fd -1 names nothing */
	sqe->user_data = 4;
	/* the -EINVAL SQE counts as submitted and ends the submission */
	assert_int_equal(io_uring_submit(ring), 3);
	assert_int_equal(io_uring_sq_ready(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 1);
	assert_int_equal(c.res, 1234);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 2);
	assert_int_equal(c.res, -EPERM);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 3);
	assert_int_equal(c.res, -EINVAL);
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 4);
	assert_int_equal(c.res, -EBADF);
}

static int submit_one_res(struct io_uring *ring, struct io_uring_sqe *sqe)
{
	struct io_uring_cqe c;

	(void)sqe;
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0x77);
	return c.res;
}

/* What io_init_req refuses, and what zcnic does not implement. */
static void test_invalid_sqes(void **state)
{
	static const unsigned placeholders[] = {
		IORING_OP_STATX, IORING_OP_OPENAT, IORING_OP_URING_CMD,
	};
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe;
	unsigned i;

#define ONE(prep) do { sqe = io_uring_get_sqe(ring); io_uring_prep_nop(sqe); \
		       sqe->user_data = 0x77; prep; } while (0)
	ONE(sqe->opcode = IORING_OP_LAST);
	assert_int_equal(submit_one_res(ring, sqe), -EINVAL);
	ONE(sqe->opcode = 255);
	assert_int_equal(submit_one_res(ring, sqe), -EINVAL);
	ONE(sqe->flags = 1u << 7);
	assert_int_equal(submit_one_res(ring, sqe), -EINVAL);
	ONE(sqe->personality = 1);
	assert_int_equal(submit_one_res(ring, sqe), -EINVAL);
	ONE(sqe->flags = IOSQE_BUFFER_SELECT);
	assert_int_equal(submit_one_res(ring, sqe), -EOPNOTSUPP);
	ONE(sqe->flags = IOSQE_ASYNC);
	assert_int_equal(submit_one_res(ring, sqe), 0);
	ONE(sqe->flags = IOSQE_IO_DRAIN);
	assert_int_equal(submit_one_res(ring, sqe), 0);
	/* FIXED_FILE means nothing to a NOP without IORING_NOP_FILE */
	ONE(sqe->flags = IOSQE_FIXED_FILE);
	assert_int_equal(submit_one_res(ring, sqe), 0);
	for (i = 0; i < sizeof(placeholders) / sizeof(placeholders[0]); i++) {
		ONE(sqe->opcode = (__u8)placeholders[i]; sqe->fd = 3);
		assert_int_equal(submit_one_res(ring, sqe), -EOPNOTSUPP);
	}
	/* a 128-byte opcode in a ring of 64-byte SQEs (not SQE_MIXED): -EINVAL first */
	ONE(sqe->opcode = IORING_OP_URING_CMD128; sqe->fd = 3);
	assert_int_equal(submit_one_res(ring, sqe), -EINVAL);
	/* RECV_ZC is implemented: with no zcrx ifq on the ring its prep says -EINVAL */
	ONE(sqe->opcode = IORING_OP_RECV_ZC; sqe->fd = 3; sqe->ioprio = IORING_RECV_MULTISHOT);
	assert_int_equal(submit_one_res(ring, sqe), -EINVAL);
#undef ONE
}

/* SUBMIT_ALL: a failing SQE does not stop the batch */
static void test_submit_all(void **state)
{
	struct io_uring ring;
	struct io_uring_params p = { .flags = IORING_SETUP_SUBMIT_ALL };
	struct io_uring_cqe c;
	struct io_uring_sqe *sqe;
	int i;

	(void)state;
	assert_int_equal(io_uring_queue_init_params(4, &ring, &p), 0);
	for (i = 0; i < 3; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = (__u64)i;
		if (i == 1)
			sqe->opcode = IORING_OP_LAST;
	}
	assert_int_equal(io_uring_submit(&ring), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(urt_get_cqe(&ring, &c, URT_WAIT_MS), 0);
		assert_int_equal(c.user_data, (__u64)i);
		assert_int_equal(c.res, i == 1 ? -EINVAL : 0);
	}
	io_uring_queue_exit(&ring);
}

/* an SQ array entry naming no SQE is dropped and counted, as the kernel does */
static void test_sq_array_dropped(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_cqe c;
	unsigned slot;

	assert_int_equal(urt_queue_nops(ring, 2, 10, 0), 0);
	slot = *ring->sq.khead & ring->sq.ring_mask;
	ring->sq.array[slot] = 99;	/* out of range */
	assert_int_equal(io_uring_submit(ring), 0);
	assert_int_equal(*ring->sq.kdropped, 1);
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 11);
	ring->sq.array[slot] = slot;
}

/* CQE32: 32-byte CQEs, big_cqe zeroed, iteration steps two slots */
static void test_cqe32(void **state)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_CQE32), 0);
	memset(ring.cq.cqes, 0xa5, 32 * ring.cq.ring_entries);
	assert_int_equal(urt_queue_nops(&ring, 3, 7, 0), 0);
	assert_int_equal(io_uring_submit(&ring), 3);
	io_uring_for_each_cqe(&ring, head, cqe) {
		assert_int_equal(cqe->user_data, 7 + n);
		assert_int_equal(cqe->big_cqe[0], 0);
		assert_int_equal(cqe->big_cqe[1], 0);
		assert_ptr_equal(cqe, (char *)ring.cq.cqes + 32 * n);
		n++;
	}
	assert_int_equal(n, 3);
	io_uring_cq_advance(&ring, n);
	io_uring_queue_exit(&ring);
}

static void test_probe(void **state)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(*state);

	assert_non_null(p);
	assert_int_equal(p->last_op, IORING_OP_LAST - 1);
	assert_true(io_uring_opcode_supported(p, IORING_OP_NOP));
	assert_true(io_uring_opcode_supported(p, IORING_OP_MSG_RING));
	assert_true(io_uring_opcode_supported(p, IORING_OP_SEND_ZC));
	assert_true(io_uring_opcode_supported(p, IORING_OP_READV));
	assert_false(io_uring_opcode_supported(p, IORING_OP_STATX));
	assert_false(io_uring_opcode_supported(p, IORING_OP_LAST));
	io_uring_free_probe(p);
}

/* SQEs are read at submission: reusing one right after submit is safe */
static void test_submit_stable(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe c;

	urt_prep_nop_res(sqe, 5);
	sqe->user_data = 42;
	assert_int_equal(io_uring_submit(ring), 1);
	memset(sqe, 0xff, sizeof(*sqe));
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 42);
	assert_int_equal(c.res, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_nop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nop_pointer_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_and_generic_mixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nop_inject_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_sqes, setup, teardown),
		cmocka_unit_test(test_submit_all),
		cmocka_unit_test_setup_teardown(test_sq_array_dropped, setup, teardown),
		cmocka_unit_test(test_cqe32),
		cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_stable, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
