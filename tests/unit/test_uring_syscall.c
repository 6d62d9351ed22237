/* SPDX-License-Identifier: MIT */
/*
 * syscall(2) through <liburing.h> (core/uring/compat/syscall.c): a program
 * that makes the io_uring system calls itself gets zcnic rings, with the
 * system-call convention (-1 and errno, not -errno): a ring set up by
 * io_uring_setup, mapped with io_uring_queue_mmap, NOPs submitted and
 * reaped with io_uring_enter, the probe read with io_uring_register, and
 * Linux's error codes for bad arguments. Other system calls, and io_uring
 * calls on a file descriptor that is not zcnic's, reach the kernel.
 */
#include <errno.h>
#include <liburing.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "zcnic/handle.h"

static void test_setup_enter_register(void **state)
{
	struct io_uring_params p;
	struct io_uring_probe *probe;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	long fd, rc;

	(void)state;
	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 8, &p);
	assert_true(fd > 0);
	assert_true(zn_handle_type((int)fd) >= 0);
	assert_int_equal(p.sq_entries, 8);
	assert_int_equal(p.cq_entries, 16);
	assert_int_equal(io_uring_queue_mmap((int)fd, &p, &ring), 0);

	for (unsigned i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_nop(sqe);
		sqe->user_data = 100 + i;
	}
	/* the tail is published by io_uring_submit's helper; enter ourselves */
	io_uring_smp_store_release(ring.sq.ktail, ring.sq.sqe_tail);
	rc = syscall(__NR_io_uring_enter, fd, 3, 3, IORING_ENTER_GETEVENTS, NULL, 0);
	assert_int_equal(rc, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(io_uring_peek_cqe(&ring, &cqe), 0);
		assert_int_equal(cqe->user_data, 100 + i);
		assert_int_equal(cqe->res, 0);
		io_uring_cqe_seen(&ring, cqe);
	}

	probe = calloc(1, sizeof(*probe) + 256 * sizeof(struct io_uring_probe_op));
	assert_non_null(probe);
	rc = syscall(__NR_io_uring_register, fd, IORING_REGISTER_PROBE, probe, 256);
	assert_int_equal(rc, 0);
	assert_true(probe->last_op >= IORING_OP_NOP);
	assert_true(probe->ops[IORING_OP_NOP].flags & IO_URING_OP_SUPPORTED);
	free(probe);

	/* Linux's codes, as -1 and errno */
	errno = 0;
	assert_int_equal(syscall(__NR_io_uring_enter, fd, 0, 0, 1u << 30, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(syscall(__NR_io_uring_register, fd, IORING_REGISTER_LAST, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	io_uring_queue_exit(&ring);
	/* a closed ring's handle is stale: no zcnic object, so the kernel's EBADF */
	errno = 0;
	assert_int_equal(syscall(__NR_io_uring_enter, fd, 0, 0, 0, NULL, 0), -1);
	assert_int_equal(errno, EBADF);
}

static void test_setup_errors(void **state)
{
	struct io_uring_params p;

	(void)state;
	memset(&p, 0, sizeof(p));
	errno = 0;
	assert_int_equal(syscall(__NR_io_uring_setup, 0, &p), -1);
	assert_int_equal(errno, EINVAL);
	memset(&p, 0, sizeof(p));
	p.resv[0] = 1;	/* reserved fields must be zero */
	errno = 0;
	assert_int_equal(syscall(__NR_io_uring_setup, 8, &p), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(syscall(__NR_io_uring_setup, 8, NULL), -1);
	assert_int_equal(errno, EFAULT);
}

/* Everything that is not an io_uring call on zcnic's objects is the kernel's. */
static void test_others_reach_the_kernel(void **state)
{
	int pfd[2];
	long rc;

	(void)state;
	assert_int_equal(syscall(SYS_getpid), getpid());
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(syscall(SYS_write, pfd[1], "zc", 2), 2);
	/* io_uring_enter on a pipe: the kernel refuses an fd that is no ring
	 * (EOPNOTSUPP), or has io_uring turned off (ENOSYS, EPERM) */
	errno = 0;
	rc = syscall(__NR_io_uring_enter, pfd[0], 0, 0, 0, NULL, 0);
	assert_int_equal(rc, -1);
	assert_true(errno == EOPNOTSUPP || errno == ENOSYS || errno == EPERM);
	close(pfd[0]);
	close(pfd[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup_enter_register),
		cmocka_unit_test(test_setup_errors),
		cmocka_unit_test(test_others_reach_the_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
