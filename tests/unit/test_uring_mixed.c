/*
 * Mixed-size rings through the liburing API, with Linux's results:
 * IORING_SETUP_SQE_MIXED (128-byte SQEs in two 64-byte slots: NOP128,
 * URING_CMD128, where they may stand, io_uring_get_sqe128's pad NOP) and
 * IORING_SETUP_CQE_MIXED (IORING_NOP_CQE32 posts a 32-byte CQE flagged
 * IORING_CQE_F_32 in two 16-byte slots, a pad CQE with IORING_CQE_F_SKIP
 * at the wrap, overflow in slots, peek and batch peek stepping over pads).
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

static void test_setup_rules(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;

	(void)state;
	/* one size or mixed sizes, not both (io_uring_sanitise_params) */
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SQE128 | IORING_SETUP_SQE_MIXED),
			 -EINVAL);
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED),
			 -EINVAL);
	/* a big entry needs two slots (rings_size): -EOVERFLOW with one */
	assert_int_equal(io_uring_queue_init(1, &ring, IORING_SETUP_SQE_MIXED), -EOVERFLOW);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQE_MIXED | IORING_SETUP_CQSIZE;
	p.cq_entries = 1;
	assert_int_equal(io_uring_queue_init_params(1, &ring, &p), -EOVERFLOW);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE_MIXED | IORING_SETUP_CQE_MIXED;
	assert_int_equal(io_uring_queue_init_params(2, &ring, &p), 0);
	assert_int_equal(p.sq_entries, 2);
	assert_int_equal(p.cq_entries, 4);
	/* 64-byte SQEs and 16-byte CQEs: the shifts stay 0 */
	assert_int_equal(io_uring_sqe_shift(&ring), 0);
	assert_int_equal(io_uring_cqe_shift(&ring), 0);
	io_uring_queue_exit(&ring);
}

/* A 128-byte opcode in a 64-byte SQE of a plain ring: -EINVAL, one slot. */
static void test_nop128_plain_ring(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, 0), 0);
	assert_null(io_uring_get_sqe128(&ring));
	sqe = urt_sqe(&ring, 1);
	io_uring_prep_nop128(sqe);
	sqe = urt_sqe(&ring, 2);
	io_uring_prep_nop(sqe);
	/* the failed SQE ends the submission (no SUBMIT_ALL) */
	assert_int_equal(io_uring_submit(&ring), 1);
	urt_expect_cqe(&ring, 1, -EINVAL, 0);
	assert_int_equal(io_uring_submit(&ring), 1);
	urt_expect_cqe(&ring, 2, 0, 0);
	io_uring_queue_exit(&ring);
}

/* On an SQE128 ring every SQE is big: NOP128 is a NOP. */
static void test_nop128_sqe128_ring(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_SQE128), 0);
	sqe = io_uring_get_sqe128(&ring);
	assert_non_null(sqe);
	assert_ptr_equal(sqe, &ring.sq.sqes[0]);
	io_uring_prep_nop128(sqe);
	sqe->user_data = 5;
	assert_int_equal(io_uring_submit(&ring), 1);
	urt_expect_cqe(&ring, 5, 0, 0);
	io_uring_queue_exit(&ring);
}

static void test_sqe_mixed_nop128(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SQE_MIXED), 0);
	sqe = urt_sqe(&ring, 1);
	io_uring_prep_nop(sqe);
	sqe = io_uring_get_sqe128(&ring);
	assert_ptr_equal(sqe, &ring.sq.sqes[1]);
	io_uring_prep_nop128(sqe);
	sqe->user_data = 2;
	memset(&sqe[1], 0xff, sizeof(sqe[1]));	/* the second half is the op's, never an SQE */
	sqe = urt_sqe(&ring, 3);
	assert_ptr_equal(sqe, &ring.sq.sqes[3]);
	io_uring_prep_nop(sqe);
	assert_int_equal(io_uring_sq_ready(&ring), 4);
	assert_int_equal(io_uring_sq_space_left(&ring), 4);
	/* submitted counts slots: the kernel's left-- twice for a big SQE */
	assert_int_equal(io_uring_submit(&ring), 4);
	urt_expect_cqe(&ring, 1, 0, 0);
	urt_expect_cqe(&ring, 2, 0, 0);
	urt_expect_cqe(&ring, 3, 0, 0);
	assert_int_equal(io_uring_sq_space_left(&ring), 8);
	io_uring_queue_exit(&ring);
}

/* At the last slot io_uring_get_sqe128 puts a NOP with CQE_SKIP_SUCCESS first. */
static void test_sqe_mixed_wrap_pad(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SQE_MIXED), 0);
	assert_int_equal(urt_queue_nops(&ring, 7, 10, 0), 0);
	assert_int_equal(io_uring_submit(&ring), 7);
	for (unsigned i = 0; i < 7; i++)
		urt_expect_cqe(&ring, 10 + i, 0, 0);
	sqe = io_uring_get_sqe128(&ring);
	assert_ptr_equal(sqe, &ring.sq.sqes[0]);
	io_uring_prep_nop128(sqe);
	sqe->user_data = 20;
	assert_int_equal(io_uring_sq_ready(&ring), 3);
	assert_int_equal(io_uring_submit(&ring), 3);
	urt_expect_cqe(&ring, 20, 0, 0);
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	/* a full SQ: no big SQE, nor a pad for one */
	assert_int_equal(urt_queue_nops(&ring, 7, 30, 0), 0);
	assert_null(io_uring_get_sqe128(&ring));
	assert_int_equal(io_uring_sq_ready(&ring), 7);
	assert_int_equal(io_uring_submit(&ring), 7);
	for (unsigned i = 0; i < 7; i++)
		urt_expect_cqe(&ring, 30 + i, 0, 0);
	io_uring_queue_exit(&ring);
}

/* A big SQE in the last slot would wrap: -EINVAL, one slot consumed (io_init_req). */
static void test_sqe_mixed_bad_wrap(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_SQE_MIXED), 0);
	assert_int_equal(urt_queue_nops(&ring, 3, 1, 0), 0);
	assert_int_equal(io_uring_submit(&ring), 3);
	for (unsigned i = 0; i < 3; i++)
		urt_expect_cqe(&ring, 1 + i, 0, 0);
	sqe = urt_sqe(&ring, 9);
	assert_ptr_equal(sqe, &ring.sq.sqes[3]);
	io_uring_prep_nop128(sqe);
	assert_int_equal(io_uring_submit(&ring), 1);
	urt_expect_cqe(&ring, 9, -EINVAL, 0);
	/* the ring goes on from slot 0 */
	sqe = urt_sqe(&ring, 10);
	assert_ptr_equal(sqe, &ring.sq.sqes[0]);
	io_uring_prep_nop(sqe);
	assert_int_equal(io_uring_submit(&ring), 1);
	urt_expect_cqe(&ring, 10, 0, 0);
	io_uring_queue_exit(&ring);
}

/* Both halves must be in the submission (the kernel's *left < 2): -EINVAL. */
static void test_sqe_mixed_half_submitted(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_SQE_MIXED), 0);
	sqe = io_uring_get_sqe128(&ring);
	io_uring_prep_nop128(sqe);
	sqe->user_data = 7;
	memset(&sqe[1], 0, sizeof(sqe[1]));	/* read as a NOP once the first failed */
	ring.sq.sqe_head = ring.sq.sqe_tail;
	io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
	assert_int_equal(io_uring_enter((unsigned)ring.ring_fd, 1, 0, 0, NULL), 1);
	urt_expect_cqe(&ring, 7, -EINVAL, 0);
	assert_int_equal(io_uring_enter((unsigned)ring.ring_fd, 1, 0, 0, NULL), 1);
	urt_expect_cqe(&ring, 0, 0, 0);
	io_uring_queue_exit(&ring);
}

/* URING_CMD128 takes its two slots, then fails as an op zcnic lacks. */
static void test_sqe_mixed_uring_cmd128(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SQE_MIXED), 0);
	sqe = io_uring_get_sqe128(&ring);
	io_uring_prep_uring_cmd128(sqe, 0, -1);
	sqe->user_data = 3;
	sqe = urt_sqe(&ring, 4);
	io_uring_prep_nop(sqe);
	assert_int_equal(io_uring_sq_ready(&ring), 3);
	assert_int_equal(io_uring_submit(&ring), 2);
	urt_expect_cqe(&ring, 3, -EOPNOTSUPP, 0);
	assert_int_equal(io_uring_submit(&ring), 1);
	urt_expect_cqe(&ring, 4, 0, 0);
	io_uring_queue_exit(&ring);
}

static void prep_nop_cqe32(struct io_uring *ring, uint64_t ud, uint64_t e1, uint64_t e2)
{
	struct io_uring_sqe *sqe = urt_sqe(ring, ud);

	io_uring_prep_nop(sqe);
	sqe->nop_flags = IORING_NOP_CQE32;
	sqe->off = e1;
	sqe->addr = e2;
}

/* NOP_CQE32 needs 32-byte CQEs: -EINVAL on a plain ring, no F_32 on CQE32 ones. */
static void test_nop_cqe32_rings(void **state)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, 0), 0);
	prep_nop_cqe32(&ring, 1, 11, 12);
	assert_int_equal(io_uring_submit(&ring), 1);
	urt_expect_cqe(&ring, 1, -EINVAL, 0);
	io_uring_queue_exit(&ring);

	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_CQE32), 0);
	prep_nop_cqe32(&ring, 2, 21, 22);
	assert_int_equal(io_uring_submit(&ring), 1);
	assert_int_equal(io_uring_wait_cqe(&ring, &cqe), 0);
	assert_int_equal(cqe->user_data, 2);
	assert_int_equal(cqe->flags, 0);
	assert_int_equal(cqe->big_cqe[0], 21);
	assert_int_equal(cqe->big_cqe[1], 22);
	assert_int_equal(io_uring_cq_ready(&ring), 1);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
}

static struct io_uring *mixed_cq_ring(unsigned sq, unsigned cq)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));
	struct io_uring_params p;

	assert_non_null(ring);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQE_MIXED | IORING_SETUP_CQSIZE;
	p.cq_entries = cq;
	assert_int_equal(io_uring_queue_init_params(sq, ring, &p), 0);
	return ring;
}

static void free_ring(struct io_uring *ring)
{
	io_uring_queue_exit(ring);
	free(ring);
}

static void test_cqe_mixed_big(void **state)
{
	struct io_uring *ring = mixed_cq_ring(4, 8);
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	(void)state;
	prep_nop_cqe32(ring, 1, 101, 102);
	io_uring_prep_nop(urt_sqe(ring, 2));
	prep_nop_cqe32(ring, 3, 301, 302);
	assert_int_equal(io_uring_submit(ring), 3);
	/* slots, not CQEs: 2 + 1 + 2 */
	assert_int_equal(io_uring_cq_ready(ring), 5);
	io_uring_for_each_cqe(ring, head, cqe) {
		static const uint64_t ud[] = { 1, 2, 3 };
		static const unsigned slot[] = { 0, 2, 3 };

		assert_true(n < 3);
		assert_int_equal(cqe->user_data, ud[n]);
		assert_int_equal(cqe->res, 0);
		assert_ptr_equal(cqe, &ring->cq.cqes[slot[n]]);
		assert_int_equal(cqe->flags, n == 1 ? 0 : IORING_CQE_F_32);
		assert_int_equal(io_uring_cqe_nr(cqe), n == 1 ? 1 : 2);
		if (n != 1) {
			assert_int_equal(cqe->big_cqe[0], ud[n] * 100 + 1);
			assert_int_equal(cqe->big_cqe[1], ud[n] * 100 + 2);
		}
		n++;
	}
	assert_int_equal(n, 3);
	io_uring_cq_advance(ring, 5);
	assert_int_equal(io_uring_cq_ready(ring), 0);
	free_ring(ring);
}

/* A big CQE that would start in the last slot: a pad there, the CQE at slot 0. */
static void test_cqe_mixed_wrap_pad(void **state)
{
	struct io_uring *ring = mixed_cq_ring(2, 4);
	struct io_uring_cqe *cqe, *batch[4];

	(void)state;
	assert_int_equal(urt_queue_nops(ring, 2, 1, 0), 0);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 1, 0, 0);
	urt_expect_cqe(ring, 2, 0, 0);
	io_uring_prep_nop(urt_sqe(ring, 3));
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect_cqe(ring, 3, 0, 0);
	/* head = tail = 3: the last slot */
	prep_nop_cqe32(ring, 4, 41, 42);
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(io_uring_cq_ready(ring), 3);
	assert_int_equal(ring->cq.cqes[3].flags, IORING_CQE_F_SKIP);
	assert_int_equal(ring->cq.cqes[3].user_data, 0);
	assert_int_equal(ring->cq.cqes[3].res, 0);
	/* batch peek consumes the pad at the head and returns the CQE */
	assert_int_equal(io_uring_peek_batch_cqe(ring, batch, 4), 1);
	assert_ptr_equal(batch[0], &ring->cq.cqes[0]);
	assert_int_equal(io_uring_cq_ready(ring), 2);
	/* peek steps over pads too */
	assert_int_equal(io_uring_peek_cqe(ring, &cqe), 0);
	assert_ptr_equal(cqe, &ring->cq.cqes[0]);
	assert_int_equal(cqe->user_data, 4);
	assert_int_equal(cqe->flags, IORING_CQE_F_32);
	assert_int_equal(cqe->big_cqe[0], 41);
	assert_int_equal(cqe->big_cqe[1], 42);
	io_uring_cqe_seen(ring, cqe);
	assert_int_equal(io_uring_cq_ready(ring), 0);
	assert_int_equal(*ring->cq.khead, 6);
	free_ring(ring);
}

/* The CQ counts slots: big CQEs that do not fit overflow, in order. */
static void test_cqe_mixed_overflow(void **state)
{
	struct io_uring *ring = mixed_cq_ring(4, 4);
	struct io_uring_cqe *cqe;

	(void)state;
	prep_nop_cqe32(ring, 1, 11, 12);
	io_uring_prep_nop(urt_sqe(ring, 2));
	prep_nop_cqe32(ring, 3, 31, 32);
	io_uring_prep_nop(urt_sqe(ring, 4));
	assert_int_equal(io_uring_submit(ring), 4);
	/* 2 + 1 slots posted; the next big one needs 2 of the 1 left */
	assert_int_equal(*ring->cq.ktail, 3);
	assert_true(io_uring_cq_has_overflow(ring));
	urt_expect_cqe(ring, 1, 0, IORING_CQE_F_32);
	urt_expect_cqe(ring, 2, 0, 0);
	/* head 3: the flush pads slot 3 and puts the big CQE at 0 */
	assert_int_equal(io_uring_wait_cqe(ring, &cqe), 0);
	assert_int_equal(cqe->user_data, 3);
	assert_int_equal(cqe->flags, IORING_CQE_F_32);
	assert_int_equal(cqe->big_cqe[0], 31);
	assert_ptr_equal(cqe, &ring->cq.cqes[0]);
	io_uring_cqe_seen(ring, cqe);
	urt_expect_cqe(ring, 4, 0, 0);
	assert_false(io_uring_cq_has_overflow(ring));
	assert_int_equal(*ring->cq.koverflow, 0);
	free_ring(ring);
}

/* SQ_REWIND: SQEs are read from index 0 each time; the head stays 0. */
static void test_sq_rewind(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	(void)state;
	/* it needs NO_SQARRAY (which liburing's queue_init adds) and no SQPOLL */
	{
		struct io_uring_params p = { .flags = IORING_SETUP_SQ_REWIND };

		assert_int_equal(__io_uring_queue_init_params(4, &ring, &p, NULL, 0), -EINVAL);
	}
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_SQ_REWIND |
					     IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQPOLL), -EINVAL);
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_SQ_REWIND |
					     IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQE_MIXED), 0);
	for (unsigned round = 0; round < 3; round++) {
		sqe = urt_sqe(&ring, 10 * round + 1);
		assert_ptr_equal(sqe, &ring.sq.sqes[0]);
		io_uring_prep_nop(sqe);
		sqe = io_uring_get_sqe128(&ring);
		assert_ptr_equal(sqe, &ring.sq.sqes[1]);
		io_uring_prep_nop128(sqe);
		sqe->user_data = 10 * round + 2;
		assert_int_equal(io_uring_sq_ready(&ring), 3);
		assert_int_equal(io_uring_submit(&ring), 3);
		assert_int_equal(*ring.sq.khead, 0);
		assert_int_equal(io_uring_sq_ready(&ring), 0);
		urt_expect_cqe(&ring, 10 * round + 1, 0, 0);
		urt_expect_cqe(&ring, 10 * round + 2, 0, 0);
	}
	/* the enter's count says how many: index 0 alone */
	sqe = urt_sqe(&ring, 40);
	io_uring_prep_nop(sqe);
	ring.sq.sqe_tail = 0;
	assert_int_equal(io_uring_enter((unsigned)ring.ring_fd, 1, 0, 0, NULL), 1);
	urt_expect_cqe(&ring, 40, 0, 0);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup_rules),
		cmocka_unit_test(test_nop128_plain_ring),
		cmocka_unit_test(test_nop128_sqe128_ring),
		cmocka_unit_test(test_sqe_mixed_nop128),
		cmocka_unit_test(test_sqe_mixed_wrap_pad),
		cmocka_unit_test(test_sqe_mixed_bad_wrap),
		cmocka_unit_test(test_sqe_mixed_half_submitted),
		cmocka_unit_test(test_sqe_mixed_uring_cmd128),
		cmocka_unit_test(test_nop_cqe32_rings),
		cmocka_unit_test(test_cqe_mixed_big),
		cmocka_unit_test(test_cqe_mixed_wrap_pad),
		cmocka_unit_test(test_cqe_mixed_overflow),
		cmocka_unit_test(test_sq_rewind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
