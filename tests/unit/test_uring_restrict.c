/*
 * IORING_REGISTER_RESTRICTIONS: registration rules of Linux
 * io_uring/register.c (io_register_restrictions) and enforcement of
 * io_uring.c (io_check_restriction in io_init_req), through <liburing.h>.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"

#define MAX_RES (IORING_RESTRICTION_LAST + IORING_REGISTER_LAST + IORING_OP_LAST)

static int setup(void **state)
{
	return urt_ring_setup(state, IORING_SETUP_R_DISABLED);
}

static int teardown(void **state)
{
	return urt_ring_teardown(state);
}

static struct io_uring_restriction op_res(unsigned kind, unsigned v)
{
	struct io_uring_restriction r = { .opcode = (__u16)kind };

	if (kind == IORING_RESTRICTION_REGISTER_OP)
		r.register_op = (__u8)v;
	else if (kind == IORING_RESTRICTION_SQE_OP)
		r.sqe_op = (__u8)v;
	else
		r.sqe_flags = (__u8)v;
	return r;
}

/* One NOP with these SQE flags; its CQE's res (the submit counts it). */
static int nop_res(struct io_uring *ring, unsigned flags)
{
	struct io_uring_sqe *sqe = urt_sqe(ring, 0x77);
	struct io_uring_cqe c;

	io_uring_prep_nop(sqe);
	sqe->user_data = 0x77;
	sqe->flags = (__u8)flags;
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0x77);
	return c.res;
}

static void test_enabled_ring_refuses(void **state)
{
	struct io_uring ring;
	struct io_uring_restriction r = op_res(IORING_RESTRICTION_SQE_OP, IORING_OP_NOP);

	(void)state;
	assert_int_equal(io_uring_queue_init(4, &ring, 0), 0);
	assert_int_equal(io_uring_register_restrictions(&ring, &r, 1), -EBADFD);
	io_uring_queue_exit(&ring);
	/* a disabled ring once enabled: -EBADFD too */
	assert_int_equal(io_uring_queue_init(4, &ring, IORING_SETUP_R_DISABLED), 0);
	assert_int_equal(io_uring_enable_rings(&ring), 0);
	assert_int_equal(io_uring_register_restrictions(&ring, &r, 1), -EBADFD);
	/* and it is not restricted */
	assert_int_equal(nop_res(&ring, 0), 0);
	io_uring_queue_exit(&ring);
}

static void test_bad_arguments(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_restriction r[MAX_RES + 1];
	void *ro;

	memset(r, 0, sizeof(r));
	assert_int_equal(io_uring_register_restrictions(ring, NULL, 0), -EINVAL);
	assert_int_equal(io_uring_register_restrictions(ring, r, MAX_RES + 1), -EINVAL);
	assert_int_equal(io_uring_register_restrictions(ring, (void *)8, 1), -EFAULT);
	r[0] = op_res(IORING_RESTRICTION_LAST, 0);
	assert_int_equal(io_uring_register_restrictions(ring, r, 1), -EINVAL);
	r[0] = op_res(IORING_RESTRICTION_REGISTER_OP, IORING_REGISTER_LAST);
	assert_int_equal(io_uring_register_restrictions(ring, r, 1), -EINVAL);
	r[0] = op_res(IORING_RESTRICTION_SQE_OP, IORING_OP_LAST);
	assert_int_equal(io_uring_register_restrictions(ring, r, 1), -EINVAL);
	/* a good entry before a bad one: nothing stays registered */
	r[0] = op_res(IORING_RESTRICTION_SQE_OP, IORING_OP_NOP);
	r[1] = op_res(9, 0);
	assert_int_equal(io_uring_register_restrictions(ring, r, 2), -EINVAL);
	/* the array is read whole before it is parsed: a fault past a bad
	 * entry is -EFAULT */
	ro = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	assert_int_equal(munmap((char *)ro + 4096, 4096), 0);
	memcpy((char *)ro + 4096 - sizeof(r[0]), &r[1], sizeof(r[0]));
	assert_int_equal(io_uring_register_restrictions(ring, (void *)((char *)ro + 4096 -
								  sizeof(r[0])), 2), -EFAULT);
	munmap(ro, 4096);
	/* the reserved words are not looked at (Linux neither) */
	memset(r, 0, sizeof(r));
	r[0] = op_res(IORING_RESTRICTION_SQE_OP, IORING_OP_NOP);
	r[0].resv = 1;
	r[0].resv2[0] = 5;
	assert_int_equal(io_uring_register_restrictions(ring, r, MAX_RES), 0);
	assert_int_equal(io_uring_register_restrictions(ring, r, 1), -EBUSY);
}

static void test_register_ops(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_restriction r = op_res(IORING_RESTRICTION_REGISTER_OP,
					       IORING_REGISTER_FILES);
	int fds[2] = { 100, 101 };
	struct iovec iov = { fds, sizeof(fds) };

	assert_int_equal(io_uring_register_restrictions(ring, &r, 1), 0);
	/* nothing is enforced before the ring is enabled */
	assert_int_equal(io_uring_register_buffers(ring, &iov, 1), 0);
	assert_int_equal(io_uring_unregister_buffers(ring), 0);
	assert_int_equal(io_uring_enable_rings(ring), 0);
	assert_int_equal(io_uring_register_buffers(ring, &iov, 1), -EACCES);
	assert_int_equal(io_uring_register_files(ring, fds, 2), 0);
	assert_int_equal(io_uring_unregister_files(ring), -EACCES);
	assert_int_equal(io_uring_register_personality(ring), -EACCES);
	assert_int_equal(io_uring_enable_rings(ring), -EACCES);
	/* an opcode past the table is -EINVAL before the restriction */
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_LAST, NULL, 0),
			 -EINVAL);
	/* no SQE op allowed */
	assert_int_equal(nop_res(ring, 0), -EACCES);
}

static void test_empty_set(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_restriction r;
	int fd = 100;

	assert_int_equal(io_uring_register_restrictions(ring, &r, 0), 0);
	assert_int_equal(io_uring_enable_rings(ring), 0);
	assert_int_equal(io_uring_register_files(ring, &fd, 1), -EACCES);
	assert_int_equal(nop_res(ring, 0), -EACCES);
}

static void test_sqe_ops_and_flags(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_restriction r[4] = {
		op_res(IORING_RESTRICTION_SQE_OP, IORING_OP_NOP),
		op_res(IORING_RESTRICTION_SQE_FLAGS_ALLOWED, IOSQE_IO_LINK),
		op_res(IORING_RESTRICTION_SQE_FLAGS_REQUIRED, IOSQE_ASYNC),
		op_res(IORING_RESTRICTION_SQE_OP, IORING_OP_TIMEOUT),
	};
	struct io_uring_sqe *sqe;

	assert_int_equal(io_uring_register_restrictions(ring, r, 4), 0);
	/* a disabled ring takes no SQE */
	sqe = urt_sqe(ring, 1);
	io_uring_prep_nop(sqe);
	assert_int_equal(io_uring_submit(ring), -EBADFD);
	assert_int_equal(io_uring_enable_rings(ring), 0);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 1, -EACCES);	/* ASYNC is required: plain NOP denied */
	assert_int_equal(nop_res(ring, IOSQE_ASYNC), 0);
	assert_int_equal(nop_res(ring, IOSQE_ASYNC | IOSQE_IO_DRAIN), -EACCES);
	assert_int_equal(nop_res(ring, IOSQE_ASYNC | IOSQE_CQE_SKIP_SUCCESS), -EACCES);
	/* an unknown flag is -EINVAL first, buffer selection -EOPNOTSUPP first */
	assert_int_equal(nop_res(ring, 1u << 7), -EINVAL);
	/* MSG_RING is not allowed */
	sqe = urt_sqe(ring, 2);
	io_uring_prep_msg_ring(sqe, ring->ring_fd, 0, 0, 0);
	sqe->flags = IOSQE_ASYNC;
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 2, -EACCES);
	/* an unknown personality is looked at after the restriction */
	sqe = urt_sqe(ring, 3);
	io_uring_prep_msg_ring(sqe, ring->ring_fd, 0, 0, 0);
	sqe->personality = 7;
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 3, -EACCES);
	sqe = urt_sqe(ring, 4);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_ASYNC;
	sqe->personality = 7;
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 4, -EINVAL);
	/* a denied link member fails its chain and ends the submission */
	sqe = urt_sqe(ring, 5);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_ASYNC | IOSQE_IO_LINK;
	sqe = urt_sqe(ring, 6);
	io_uring_prep_nop(sqe);
	sqe = urt_sqe(ring, 7);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_ASYNC;
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect(ring, 5, -ECANCELED);
	urt_expect(ring, 6, -EACCES);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 7, 0);
}

/* Linux's register-restrictions.c shape without pipes: a run of plain SQEs
 * the SQ-direct path would answer is checked one by one too. */
static void test_direct_path_checked(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_restriction r = op_res(IORING_RESTRICTION_SQE_OP, IORING_OP_MSG_RING);

	assert_int_equal(io_uring_register_restrictions(ring, &r, 1), 0);
	assert_int_equal(io_uring_enable_rings(ring), 0);
	for (unsigned i = 0; i < 4; i++) {
		struct io_uring_sqe *sqe = urt_sqe(ring, 10 + i);

		if (i & 1)
			io_uring_prep_msg_ring(sqe, ring->ring_fd, 0, 0x50 + i, 0);
		else
			io_uring_prep_nop(sqe);
	}
	/* the first NOP is denied and ends the submission */
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 10, -EACCES);
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect(ring, 0x51, 0);
	urt_expect(ring, 11, 0);
	urt_expect(ring, 12, -EACCES);
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 0x53, 0);
	urt_expect(ring, 13, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enabled_ring_refuses),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sqe_ops_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_path_checked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
