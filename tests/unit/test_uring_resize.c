/*
 * IORING_REGISTER_RESIZE_RINGS through liburing's io_uring_resize_rings,
 * with the results of Linux io_uring/register.c io_register_resize_rings:
 * DEFER_TASKRUN rings only, CQSIZE and CLAMP the only flags, sizes as at
 * set-up, pending SQEs and CQEs carried over, -EOVERFLOW when they do not
 * fit (the ring unchanged), set-up flags kept, the program's pointers
 * refreshed.
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

#define DEFER (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)

static int setup(void **state)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));

	if (!ring || io_uring_queue_init(8, ring, DEFER))
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

static int resize(struct io_uring *ring, unsigned sq, unsigned cq, unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.sq_entries = sq;
	p.cq_entries = cq;
	p.flags = flags;
	return io_uring_resize_rings(ring, &p);
}

static void test_needs_defer_taskrun(void **state)
{
	struct io_uring ring;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, 0), 0);
	assert_int_equal(resize(&ring, 16, 0, 0), -EINVAL);
	io_uring_queue_exit(&ring);
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SINGLE_ISSUER), 0);
	assert_int_equal(resize(&ring, 16, 0, 0), -EINVAL);
	io_uring_queue_exit(&ring);
}

static void test_bad_args(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_params p;

	assert_int_equal(resize(ring, 16, 0, IORING_SETUP_CQE32), -EINVAL);
	assert_int_equal(resize(ring, 16, 0, IORING_SETUP_DEFER_TASKRUN), -EINVAL);
	assert_int_equal(resize(ring, 0, 0, 0), -EINVAL);
	assert_int_equal(resize(ring, 32769, 0, 0), -EINVAL);
	/* CQSIZE: 0, or below the SQ, is -EINVAL */
	assert_int_equal(resize(ring, 16, 0, IORING_SETUP_CQSIZE), -EINVAL);
	assert_int_equal(resize(ring, 16, 8, IORING_SETUP_CQSIZE), -EINVAL);
	assert_int_equal(io_uring_register((unsigned)ring->ring_fd, IORING_REGISTER_RESIZE_RINGS,
					   NULL, 1), -EINVAL);
	memset(&p, 0, sizeof(p));
	p.sq_entries = 16;
	assert_int_equal(io_uring_register((unsigned)ring->ring_fd, IORING_REGISTER_RESIZE_RINGS,
					   &p, 2), -EINVAL);
	assert_int_equal(io_uring_register((unsigned)ring->ring_fd, IORING_REGISTER_RESIZE_RINGS,
					   (void *)8, 1), -EFAULT);
	/* nothing changed */
	assert_int_equal(ring->sq.ring_entries, 8);
	assert_int_equal(ring->cq.ring_entries, 16);
	assert_int_equal(*ring->sq.kring_entries, 8);
}

static void test_grow_and_shrink(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.sq_entries = 30;
	assert_int_equal(io_uring_resize_rings(ring, &p), 0);
	/* rounded as at set-up, the ring's flags kept, p->flags cleared by liburing */
	assert_int_equal(p.sq_entries, 32);
	assert_int_equal(p.cq_entries, 64);
	assert_int_equal(p.flags, 0);
	assert_int_equal(ring->sq.ring_entries, 32);
	assert_int_equal(ring->sq.ring_mask, 31);
	assert_int_equal(ring->cq.ring_entries, 64);
	assert_int_equal(*ring->cq.kring_entries, 64);
	assert_int_equal(io_uring_sq_space_left(ring), 32);
	assert_int_equal(urt_queue_nops(ring, 32, 100, 0), 0);
	assert_int_equal(io_uring_submit(ring), 32);
	for (unsigned i = 0; i < 32; i++)
		urt_expect_cqe(ring, 100 + i, 0, 0);
	/* CQSIZE; CLAMP clamps a CQ above 65536 */
	assert_int_equal(resize(ring, 4, 4, IORING_SETUP_CQSIZE), 0);
	assert_int_equal(ring->sq.ring_entries, 4);
	assert_int_equal(ring->cq.ring_entries, 4);
	assert_int_equal(resize(ring, 2, 100000, IORING_SETUP_CQSIZE), -EINVAL);
	assert_int_equal(resize(ring, 2, 100000, IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP), 0);
	assert_int_equal(ring->cq.ring_entries, 65536);
	assert_int_equal(urt_queue_nops(ring, 2, 7, 0), 0);
	assert_null(io_uring_get_sqe(ring));
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 7, 0, 0);
	urt_expect_cqe(ring, 8, 0, 0);
}

/* CQEs not reaped and SQEs published but not consumed move with their heads. */
static void test_pending_entries_copied(void **state)
{
	struct io_uring *ring = *state;
	unsigned cq_head;

	/* move the heads off 0 first */
	assert_int_equal(urt_queue_nops(ring, 5, 1, 0), 0);
	assert_int_equal(io_uring_submit(ring), 5);
	for (unsigned i = 0; i < 5; i++)
		urt_expect_cqe(ring, 1 + i, 0, 0);
	assert_int_equal(urt_queue_nops(ring, 6, 10, 0), 0);
	assert_int_equal(io_uring_submit(ring), 6);
	/* two SQEs published, not entered */
	assert_int_equal(urt_queue_nops(ring, 2, 20, 0), 0);
	ring->sq.sqe_head = ring->sq.sqe_tail;
	io_uring_smp_store_release(ring->sq.ktail, ring->sq.sqe_tail);
	cq_head = *ring->cq.khead;
	assert_int_equal(resize(ring, 4, 8, IORING_SETUP_CQSIZE), 0);
	assert_int_equal(*ring->cq.khead, cq_head);
	assert_int_equal(*ring->cq.ktail, cq_head + 6);
	assert_int_equal(*ring->sq.khead, 11);
	assert_int_equal(*ring->sq.ktail, 13);
	for (unsigned i = 0; i < 6; i++)
		urt_expect_cqe(ring, 10 + i, 0, 0);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect_cqe(ring, 20, 0, 0);
	urt_expect_cqe(ring, 21, 0, 0);
}

/* What is there must fit: -EOVERFLOW, and the ring is as it was. */
static void test_overflow_refused(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_params p;

	assert_int_equal(urt_queue_nops(ring, 8, 1, 0), 0);
	assert_int_equal(io_uring_submit(ring), 8);
	assert_int_equal(urt_queue_nops(ring, 4, 9, 0), 0);
	assert_int_equal(io_uring_submit(ring), 4);
	assert_int_equal(io_uring_cq_ready(ring), 12);
	memset(&p, 0, sizeof(p));
	p.sq_entries = 4;
	p.cq_entries = 8;
	p.flags = IORING_SETUP_CQSIZE;
	assert_int_equal(io_uring_resize_rings(ring, &p), -EOVERFLOW);
	/* the sizes were written back before the copy failed (as Linux) */
	assert_int_equal(p.cq_entries, 8);
	assert_int_equal(ring->cq.ring_entries, 16);
	for (unsigned i = 0; i < 12; i++)
		urt_expect_cqe(ring, 1 + i, 0, 0);
	/* too many published SQEs: the same */
	assert_int_equal(urt_queue_nops(ring, 8, 30, 0), 0);
	ring->sq.sqe_head = ring->sq.sqe_tail;
	io_uring_smp_store_release(ring->sq.ktail, ring->sq.sqe_tail);
	assert_int_equal(resize(ring, 4, 0, 0), -EOVERFLOW);
	assert_int_equal(io_uring_submit(ring), 8);
	for (unsigned i = 0; i < 8; i++)
		urt_expect_cqe(ring, 30 + i, 0, 0);
}

/* SQE128 / CQE32 / mixed / NO_SQARRAY stay what they were. */
static void test_flags_kept(void **state)
{
	struct io_uring ring;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.flags = DEFER | IORING_SETUP_CQE_MIXED | IORING_SETUP_SQE_MIXED | IORING_SETUP_NO_SQARRAY;
	assert_int_equal(io_uring_queue_init_params(4, &ring, &p), 0);
	assert_null(ring.sq.array);
	sqe = urt_sqe(&ring, 1);
	io_uring_prep_nop(sqe);
	sqe->nop_flags = IORING_NOP_CQE32;
	sqe->off = 5;
	assert_int_equal(io_uring_submit(&ring), 1);
	memset(&p, 0, sizeof(p));
	p.sq_entries = 16;
	assert_int_equal(io_uring_resize_rings(&ring, &p), 0);
	assert_null(ring.sq.array);
	assert_int_equal(io_uring_cq_ready(&ring), 2);
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), 0);
	assert_int_equal(cqe->user_data, 1);
	assert_int_equal(cqe->flags, IORING_CQE_F_32);
	assert_int_equal(cqe->big_cqe[0], 5);
	io_uring_cqe_seen(&ring, cqe);
	sqe = io_uring_get_sqe128(&ring);
	assert_non_null(sqe);
	io_uring_prep_nop128(sqe);
	sqe->user_data = 2;
	assert_int_equal(io_uring_submit(&ring), 2);
	urt_expect_cqe(&ring, 2, 0, 0);
	io_uring_queue_exit(&ring);
}

/* liburing's internal mapping helpers over a ring handle. */
static void test_mmap_helpers(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_params p;
	struct io_uring_sq sq;
	struct io_uring_cq cq;

	memset(&p, 0, sizeof(p));
	p.sq_entries = 16;
	assert_int_equal(io_uring_resize_rings(ring, &p), 0);
	memset(&sq, 0, sizeof(sq));
	memset(&cq, 0, sizeof(cq));
	assert_int_equal(io_uring_mmap(ring->ring_fd, &p, &sq, &cq), 0);
	assert_ptr_equal(sq.khead, ring->sq.khead);
	assert_ptr_equal(cq.cqes, ring->cq.cqes);
	assert_ptr_equal(sq.sqes, ring->sq.sqes);
	assert_int_equal(sq.sqes_sz, 16 * 64);
	assert_int_equal(cq.ring_entries, 32);
	io_uring_unmap_rings(&sq, &cq);
	/* params of other sizes describe another ring: -EINVAL; no ring -EBADF */
	p.sq_entries = 8;
	assert_int_equal(io_uring_mmap(ring->ring_fd, &p, &sq, &cq), -EINVAL);
	assert_int_equal(io_uring_mmap(-1, &p, &sq, &cq), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needs_defer_taskrun),
		cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grow_and_shrink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_entries_copied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow_refused, setup, teardown),
		cmocka_unit_test(test_flags_kept),
		cmocka_unit_test_setup_teardown(test_mmap_helpers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
