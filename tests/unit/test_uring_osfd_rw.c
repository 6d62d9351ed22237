/* SPDX-License-Identifier: MIT */
/*
 * READ, WRITE, READV, WRITEV, READ_FIXED, WRITE_FIXED and READ_MULTISHOT on
 * OS file descriptors (core/uring/osfd_rw.c), with Linux's results: pipes
 * that wait for data and return short reads, offsets ignored on a pipe,
 * a temporary regular file read and written at offsets and at the file
 * position (off -1), RWF flags, ioprio, bad fds, provided buffers, and
 * multishot reads to end of file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "tests/unit/osfd_fixture.h"

static void test_pipe_read_waits(void **state)
{
	struct fx *f = *state;
	char buf[16] = { 0 };

	/* the offset means nothing on a pipe (a stream file), as in Linux */
	io_uring_prep_read(urt_sqe(&f->ring, 1), f->p[0], buf, sizeof(buf), 100);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	none_yet(&f->ring);
	assert_int_equal(write(f->p[1], "hello", 5), 5);
	/* a short read: what the pipe had */
	urt_expect(&f->ring, 1, 5);
	assert_memory_equal(buf, "hello", 5);

	/* WRITE into the pipe, READ it back */
	io_uring_prep_write(urt_sqe(&f->ring, 2), f->p[1], "abc", 3, 0);
	run(&f->ring, 2, 3);
	io_uring_prep_read(urt_sqe(&f->ring, 3), f->p[0], buf, sizeof(buf), -1);
	run(&f->ring, 3, 3);
	assert_memory_equal(buf, "abc", 3);

	/* end of file: the writer gone, a read says 0 */
	close(f->p[1]);
	f->p[1] = open("/dev/null", O_WRONLY);
	io_uring_prep_read(urt_sqe(&f->ring, 4), f->p[0], buf, sizeof(buf), 0);
	run(&f->ring, 4, 0);
}

static void test_pipe_write_full(void **state)
{
	struct fx *f = *state;
	int size = fcntl(f->p[1], F_GETPIPE_SZ);
	char *big = calloc(1, (size_t)size);
	struct io_uring_sqe *sqe;

	assert_non_null(big);
	/* fill it; the next write waits for room */
	io_uring_prep_write(urt_sqe(&f->ring, 1), f->p[1], big, (unsigned)size, 0);
	run(&f->ring, 1, size);
	io_uring_prep_write(urt_sqe(&f->ring, 2), f->p[1], "x", 1, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	none_yet(&f->ring);
	/* RWF_NOWAIT does not wait: -EAGAIN */
	sqe = urt_sqe(&f->ring, 3);
	io_uring_prep_write(sqe, f->p[1], "y", 1, 0);
	sqe->rw_flags = RWF_NOWAIT;
	run(&f->ring, 3, -EAGAIN);
	/* room comes: the waiting write goes */
	assert_int_equal(read(f->p[0], big, 4096), 4096);
	urt_expect(&f->ring, 2, 1);
	free(big);
}

static void test_file_offsets(void **state)
{
	struct fx *f = *state;
	char buf[32] = { 0 };
	struct iovec iov[2] = { { buf, 3 }, { buf + 8, 4 } };

	io_uring_prep_write(urt_sqe(&f->ring, 1), f->file, "0123456789", 10, 0);
	run(&f->ring, 1, 10);
	io_uring_prep_read(urt_sqe(&f->ring, 2), f->file, buf, 4, 3);
	run(&f->ring, 2, 4);
	assert_memory_equal(buf, "3456", 4);
	/* at end of file a read is short */
	io_uring_prep_read(urt_sqe(&f->ring, 3), f->file, buf, sizeof(buf), 8);
	run(&f->ring, 3, 2);
	/* off -1: the file position, which moves (it is 0: pwrite did not move it) */
	assert_int_equal(lseek(f->file, 0, SEEK_CUR), 0);
	io_uring_prep_read(urt_sqe(&f->ring, 4), f->file, buf, 6, -1);
	run(&f->ring, 4, 6);
	assert_memory_equal(buf, "012345", 6);
	assert_int_equal(lseek(f->file, 0, SEEK_CUR), 6);
	io_uring_prep_write(urt_sqe(&f->ring, 5), f->file, "ab", 2, -1);
	run(&f->ring, 5, 2);
	assert_int_equal(lseek(f->file, 0, SEEK_CUR), 8);
	/* vectored: 3 + 4 bytes from offset 1 */
	memset(buf, 0, sizeof(buf));
	io_uring_prep_readv(urt_sqe(&f->ring, 6), f->file, iov, 2, 1);
	run(&f->ring, 6, 7);
	assert_memory_equal(buf, "123", 3);
	assert_memory_equal(buf + 8, "45ab", 4);
	io_uring_prep_writev(urt_sqe(&f->ring, 7), f->file, iov, 2, 20);
	run(&f->ring, 7, 7);
	/* a negative offset other than -1: -EINVAL (rw_verify_area) */
	io_uring_prep_read(urt_sqe(&f->ring, 8), f->file, buf, 4, (uint64_t)-5);
	run(&f->ring, 8, -EINVAL);
}

static void test_fixed(void **state)
{
	struct fx *f = *state;
	static char mem[2][64];
	struct iovec iov[2] = { { mem[0], 64 }, { mem[1], 64 } };
	int fds[1] = { f->file };
	struct io_uring_sqe *sqe;

	assert_int_equal(io_uring_register_buffers(&f->ring, iov, 2), 0);
	memcpy(mem[1], "fixed!", 6);
	io_uring_prep_write_fixed(urt_sqe(&f->ring, 1), f->file, mem[1], 6, 0, 1);
	run(&f->ring, 1, 6);
	io_uring_prep_read_fixed(urt_sqe(&f->ring, 2), f->file, mem[0] + 8, 6, 0, 0);
	run(&f->ring, 2, 6);
	assert_memory_equal(mem[0] + 8, "fixed!", 6);
	/* outside the registered buffer, or a buffer index past the table: -EFAULT */
	io_uring_prep_read_fixed(urt_sqe(&f->ring, 3), f->file, mem[0] + 60, 6, 0, 0);
	run(&f->ring, 3, -EFAULT);
	io_uring_prep_read_fixed(urt_sqe(&f->ring, 4), f->file, mem[0], 6, 0, 5);
	run(&f->ring, 4, -EFAULT);
	/* a registered file that is an OS fd (IOSQE_FIXED_FILE) */
	assert_int_equal(io_uring_register_files(&f->ring, fds, 1), 0);
	memset(mem[0], 0, 8);
	sqe = urt_sqe(&f->ring, 5);
	io_uring_prep_read(sqe, 0, mem[0], 6, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	run(&f->ring, 5, 6);
	assert_memory_equal(mem[0], "fixed!", 6);
	sqe = urt_sqe(&f->ring, 6);
	io_uring_prep_read(sqe, 1, mem[0], 6, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	run(&f->ring, 6, -EBADF);
}

static void test_errors(void **state)
{
	struct fx *f = *state;
	struct io_uring_sqe *sqe;
	char buf[8];
	int closed = dup(f->p[0]);

	close(closed);
	io_uring_prep_read(urt_sqe(&f->ring, 1), closed, buf, 8, 0);
	run(&f->ring, 1, -EBADF);
	/* the pipe's read end cannot be written */
	io_uring_prep_write(urt_sqe(&f->ring, 2), f->p[0], "x", 1, 0);
	run(&f->ring, 2, -EBADF);
	/* RWF_NOWAIT on an empty pipe: -EAGAIN at once */
	sqe = urt_sqe(&f->ring, 3);
	io_uring_prep_read(sqe, f->p[0], buf, 8, 0);
	sqe->rw_flags = RWF_NOWAIT;
	run(&f->ring, 3, -EAGAIN);
	/* RWF_HIPRI needs IORING_SETUP_IOPOLL; unknown flags -EOPNOTSUPP */
	sqe = urt_sqe(&f->ring, 4);
	io_uring_prep_read(sqe, f->file, buf, 8, 0);
	sqe->rw_flags = RWF_HIPRI;
	run(&f->ring, 4, -EINVAL);
	sqe = urt_sqe(&f->ring, 5);
	io_uring_prep_read(sqe, f->file, buf, 8, 0);
	sqe->rw_flags = 1u << 30;
	run(&f->ring, 5, -EOPNOTSUPP);
	/* ioprio: an invalid class -EINVAL; an op without ioprio -EINVAL too */
	sqe = urt_sqe(&f->ring, 6);
	io_uring_prep_read(sqe, f->file, buf, 8, 0);
	sqe->ioprio = 0xffff;
	run(&f->ring, 6, -EINVAL);
	sqe = urt_sqe(&f->ring, 7);
	io_uring_prep_fsync(sqe, f->file, 0);
	sqe->ioprio = 1;
	run(&f->ring, 7, -EINVAL);
	/* READV: too many vectors -EINVAL, an unreadable vector -EFAULT */
	io_uring_prep_readv(urt_sqe(&f->ring, 8), f->file, (struct iovec *)buf, 1025, 0);
	run(&f->ring, 8, -EINVAL);
	io_uring_prep_readv(urt_sqe(&f->ring, 9), f->file, (struct iovec *)16, 1, 0);
	run(&f->ring, 9, -EFAULT);
	/* WRITE cannot select buffers: -EOPNOTSUPP */
	sqe = urt_sqe(&f->ring, 10);
	io_uring_prep_write(sqe, f->file, NULL, 8, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	run(&f->ring, 10, -EOPNOTSUPP);
}

static void test_buffer_select(void **state)
{
	struct fx *f = *state;
	static char bufs[2][16];
	struct io_uring_sqe *sqe;
	uint32_t flags;

	io_uring_prep_provide_buffers(urt_sqe(&f->ring, 1), bufs, 16, 2, 7, 0);
	run(&f->ring, 1, 0);
	assert_int_equal(write(f->p[1], "one", 3), 3);
	sqe = urt_sqe(&f->ring, 2);
	io_uring_prep_read(sqe, f->p[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 7;
	flags = run(&f->ring, 2, 3);
	assert_int_equal(flags, IORING_CQE_F_BUFFER | (0u << IORING_CQE_BUFFER_SHIFT));
	assert_memory_equal(bufs[0], "one", 3);
	/* a read that waits gives its buffer back meanwhile; len caps it */
	sqe = urt_sqe(&f->ring, 3);
	io_uring_prep_read(sqe, f->p[0], NULL, 2, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 7;
	assert_int_equal(io_uring_submit(&f->ring), 1);
	none_yet(&f->ring);
	assert_int_equal(write(f->p[1], "two", 3), 3);
	flags = urt_expect(&f->ring, 3, 2);
	assert_int_equal(flags, IORING_CQE_F_BUFFER | (1u << IORING_CQE_BUFFER_SHIFT));
	assert_memory_equal(bufs[1], "tw", 2);
	/* the group is empty: -ENOBUFS at once */
	sqe = urt_sqe(&f->ring, 4);
	io_uring_prep_read(sqe, f->p[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 7;
	run(&f->ring, 4, -ENOBUFS);
}

static void test_read_multishot(void **state)
{
	struct fx *f = *state;
	static char bufs[4][8];
	struct io_uring_sqe *sqe;
	uint32_t flags;

	io_uring_prep_provide_buffers(urt_sqe(&f->ring, 1), bufs, 8, 4, 3, 0);
	run(&f->ring, 1, 0);
	/* without buffer selection -EINVAL; on a regular file -EBADFD */
	io_uring_prep_rw(IORING_OP_READ_MULTISHOT, urt_sqe(&f->ring, 2), f->p[0], NULL, 0, 0);
	run(&f->ring, 2, -EINVAL);
	io_uring_prep_read_multishot(urt_sqe(&f->ring, 3), f->file, 0, 0, 3);
	run(&f->ring, 3, -EBADFD);

	io_uring_prep_read_multishot(urt_sqe(&f->ring, 4), f->p[0], 0, 0, 3);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	none_yet(&f->ring);
	assert_int_equal(write(f->p[1], "abc", 3), 3);
	flags = urt_expect(&f->ring, 4, 3);
	assert_int_equal(flags, IORING_CQE_F_MORE | IORING_CQE_F_BUFFER);
	/* more than a buffer holds: one CQE per buffer */
	assert_int_equal(write(f->p[1], "0123456789", 10), 10);
	flags = urt_expect(&f->ring, 4, 8);
	assert_int_equal(flags, IORING_CQE_F_MORE | IORING_CQE_F_BUFFER | (1u << 16));
	flags = urt_expect(&f->ring, 4, 2);
	assert_int_equal(flags, IORING_CQE_F_MORE | IORING_CQE_F_BUFFER | (2u << 16));
	assert_memory_equal(bufs[2], "89", 2);
	/* end of file ends it: 0, no F_MORE */
	close(f->p[1]);
	f->p[1] = open("/dev/null", O_WRONLY);
	assert_int_equal(urt_expect(&f->ring, 4, 0), 0);

	/* the group running dry ends another: -ENOBUFS */
	sqe = urt_sqe(&f->ring, 5);
	io_uring_prep_read_multishot(sqe, f->file, 0, 0, 9);
	sqe->fd = f->p[0];
	run(&f->ring, 5, -ENOBUFS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pipe_read_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_write_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_offsets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_select, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_multishot, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
