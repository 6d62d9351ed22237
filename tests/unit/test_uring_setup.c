/*
 * core/uring ring set-up through io_uring_queue_init_params: entry
 * rounding and clamping (the kernel's io_uring_fill_params rules, mirrored
 * from liburing test/cq-size.c and the setup man page), accepted and
 * refused setup flags, features, and the shape of struct io_uring.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "zcnic/handle.h"
#include "zcnic/uring.h"

static int init_p(unsigned entries, unsigned flags, unsigned cq, struct io_uring *ring,
		  struct io_uring_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flags = flags;
	p->cq_entries = cq;
	/* the ring as asked: io_uring_queue_init_params would add NO_SQARRAY */
	return __io_uring_queue_init_params(entries, ring, p, NULL, 0);
}

static void check_sizes(unsigned entries, unsigned flags, unsigned cq, int want_rc,
			unsigned want_sq, unsigned want_cq)
{
	struct io_uring_params p;
	struct io_uring ring;
	int rc = init_p(entries, flags, cq, &ring, &p);

	assert_int_equal(rc, want_rc);
	if (rc)
		return;
	assert_int_equal(p.sq_entries, want_sq);
	assert_int_equal(p.cq_entries, want_cq);
	assert_int_equal(ring.sq.ring_entries, want_sq);
	assert_int_equal(*ring.sq.kring_entries, want_sq);
	assert_int_equal(ring.sq.ring_mask, want_sq - 1);
	assert_int_equal(ring.cq.ring_entries, want_cq);
	assert_int_equal(*ring.cq.kring_mask, want_cq - 1);
	io_uring_queue_exit(&ring);
}

static void test_sq_rounding(void **state)
{
	(void)state;
	check_sizes(1, 0, 0, 0, 1, 2);
	check_sizes(3, 0, 0, 0, 4, 8);
	check_sizes(100, 0, 0, 0, 128, 256);
	check_sizes(32768, 0, 0, 0, 32768, 65536);
	check_sizes(0, 0, 0, -EINVAL, 0, 0);
	check_sizes(32769, 0, 0, -EINVAL, 0, 0);
	check_sizes(32769, IORING_SETUP_CLAMP, 0, 0, 32768, 65536);
	check_sizes(1u << 30, IORING_SETUP_CLAMP, 0, 0, 32768, 65536);
}

/* liburing test/cq-size.c, plus the kernel's CQSIZE rules */
static void test_cq_size(void **state)
{
	(void)state;
	check_sizes(4, IORING_SETUP_CQSIZE, 64, 0, 4, 64);
	check_sizes(4, IORING_SETUP_CQSIZE, 5, 0, 4, 8);
	check_sizes(4, IORING_SETUP_CQSIZE, 0, -EINVAL, 0, 0);
	check_sizes(8, IORING_SETUP_CQSIZE, 4, -EINVAL, 0, 0);	/* CQ below SQ */
	check_sizes(8, IORING_SETUP_CQSIZE, 8, 0, 8, 8);
	check_sizes(4, IORING_SETUP_CQSIZE, 65537, -EINVAL, 0, 0);
	check_sizes(4, IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP, 65537, 0, 4, 65536);
	check_sizes(4, IORING_SETUP_CQSIZE, 65536, 0, 4, 65536);
	/* cq_entries is ignored without CQSIZE */
	check_sizes(4, 0, 3, 0, 4, 8);
}

static void test_setup_flags(void **state)
{
	/* refused alone, as Linux does (SQ_AFF needs SQPOLL, TASKRUN_FLAG a
	 * task-run mode, HYBRID_IOPOLL IOPOLL, SQ_REWIND NO_SQARRAY,
	 * REGISTERED_FD_ONLY NO_MMAP), and what zcnic does not implement */
	static const unsigned refused[] = {
		IORING_SETUP_SQ_AFF, IORING_SETUP_ATTACH_WQ, IORING_SETUP_TASKRUN_FLAG,
		IORING_SETUP_NO_MMAP, IORING_SETUP_REGISTERED_FD_ONLY,
		IORING_SETUP_HYBRID_IOPOLL, IORING_SETUP_SQ_REWIND, 1u << 21, 1u << 31,
	};
	struct io_uring_params p;
	struct io_uring ring;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(init_p(8, refused[i], 0, &ring, &p), -EINVAL);
	/* DEFER_TASKRUN needs SINGLE_ISSUER */
	assert_int_equal(init_p(8, IORING_SETUP_DEFER_TASKRUN, 0, &ring, &p), -EINVAL);
	assert_int_equal(init_p(8, IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | IORING_SETUP_CQE32 |
				IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
				IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN, 64, &ring, &p), 0);
	assert_int_equal(ring.flags, p.flags);
	io_uring_queue_exit(&ring);
	/* reserved words must be zero */
	memset(&p, 0, sizeof(p));
	p.resv[2] = 1;
	assert_int_equal(io_uring_queue_init_params(8, &ring, &p), -EINVAL);
}

/* liburing's queue_init: no SQ array unless refused; liburing's internal call keeps it */
static void test_default_no_sqarray(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(io_uring_queue_init_params(8, &ring, &p), 0);
	assert_int_equal(p.flags, IORING_SETUP_NO_SQARRAY);
	assert_int_equal(ring.flags, IORING_SETUP_NO_SQARRAY);
	assert_int_equal(p.sq_off.array, 0);
	assert_null(ring.sq.array);
	io_uring_queue_exit(&ring);
	/* refused with it and not asked for: tried again without */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED;
	assert_int_equal(io_uring_queue_init_params(8, &ring, &p), -EINVAL);
	assert_int_equal(p.flags, IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED);
	memset(&p, 0, sizeof(p));
	assert_int_equal(__io_uring_queue_init_params(8, &ring, &p, NULL, 0), 0);
	assert_int_equal(p.flags, 0);
	assert_non_null(ring.sq.array);
	io_uring_queue_exit(&ring);
}

static void test_features_and_layout(void **state)
{
	struct io_uring_params p;
	struct io_uring ring;
	char *base;

	(void)state;
	assert_int_equal(init_p(8, 0, 0, &ring, &p), 0);
	assert_true(p.features & IORING_FEAT_NODROP);
	assert_true(p.features & IORING_FEAT_CQE_SKIP);
	assert_true(p.features & IORING_FEAT_EXT_ARG);
	assert_true(p.features & IORING_FEAT_SUBMIT_STABLE);
	assert_int_equal(ring.features, p.features);
	/* the offsets describe the same memory the ring pointers use */
	base = ring.sq.ring_ptr;
	assert_ptr_equal(base + p.sq_off.head, ring.sq.khead);
	assert_ptr_equal(base + p.sq_off.tail, ring.sq.ktail);
	assert_ptr_equal(base + p.sq_off.flags, ring.sq.kflags);
	assert_ptr_equal(base + p.sq_off.array, ring.sq.array);
	assert_ptr_equal(base + p.cq_off.head, ring.cq.khead);
	assert_ptr_equal(base + p.cq_off.tail, ring.cq.ktail);
	assert_ptr_equal(base + p.cq_off.cqes, ring.cq.cqes);
	assert_ptr_equal(base + p.cq_off.overflow, ring.cq.koverflow);
	assert_int_equal(p.cq_off.cqes % 64, 0);
	assert_int_equal(*ring.cq.koverflow, 0);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(ring.sq.array[i], i);
	assert_int_equal(sizeof(struct io_uring), 216);
	io_uring_queue_exit(&ring);
}

/* ring.ring_fd is a zcnic handle: usable as a MSG_RING target, stale after exit */
static void test_ring_fd_is_handle(void **state)
{
	struct io_uring ring;
	int fd;

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, 0), 0);
	fd = ring.ring_fd;
	assert_true(zn_handle_is_handle(fd));
	assert_int_equal(zn_handle_type(fd), ZN_HANDLE_URING);
	assert_non_null(zn_uring_from_handle(fd));
	io_uring_queue_exit(&ring);
	assert_int_equal(zn_handle_type(fd), -EBADF);
	assert_null(zn_uring_from_handle(fd));
	/* every call on an exited ring says so */
	ring.ring_fd = fd;
	assert_int_equal(io_uring_submit(&ring), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sq_rounding),
		cmocka_unit_test(test_cq_size),
		cmocka_unit_test(test_setup_flags),
		cmocka_unit_test(test_default_no_sqarray),
		cmocka_unit_test(test_features_and_layout),
		cmocka_unit_test(test_ring_fd_is_handle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
