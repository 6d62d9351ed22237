/* SPDX-License-Identifier: MIT */
/*
 * Requests on OS file descriptors with the rest of the engine: ASYNC_CANCEL
 * (by user_data, by fd, ALL), LINK_TIMEOUT and links, CLOSE of an OS fd and
 * of a registered-file slot, FSYNC, NOP with IORING_NOP_FILE, SPLICE, and
 * the interrupt wait mode waking on a pipe and on a POLL_ADD'ed eventfd
 * (core/uring/osfd_*.c, poll.c). Results as Linux gives them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"
#include "tests/unit/osfd_fixture.h"
#include "zcnic/uring.h"

static void test_cancel(void **state)
{
	struct fx *f = *state;
	struct io_uring_sqe *sqe;
	char buf[3][8];

	for (int i = 0; i < 3; i++)
		io_uring_prep_read(urt_sqe(&f->ring, 10 + i), f->p[0], buf[i], 8, 0);
	assert_int_equal(io_uring_submit(&f->ring), 3);
	none_yet(&f->ring);
	/* by user_data: the read -ECANCELED, then the cancel's 0 */
	io_uring_prep_cancel64(urt_sqe(&f->ring, 1), 10, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	urt_expect(&f->ring, 10, -ECANCELED);
	urt_expect(&f->ring, 1, 0);
	/* by fd, all of them: the count */
	io_uring_prep_cancel_fd(urt_sqe(&f->ring, 2), f->p[0], IORING_ASYNC_CANCEL_ALL);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	for (int i = 0, seen = 0; i < 2; i++) {	/* in either order */
		struct io_uring_cqe c;

		assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
		assert_true(c.user_data == 11 || c.user_data == 12);
		assert_int_equal(c.res, -ECANCELED);
		assert_false(seen & (1 << (c.user_data - 11)));
		seen |= 1 << (c.user_data - 11);
	}
	urt_expect(&f->ring, 2, 2);
	/* nothing left: -ENOENT; an fd that is not open: -EBADF */
	io_uring_prep_cancel_fd(urt_sqe(&f->ring, 3), f->p[0], 0);
	run(&f->ring, 3, -ENOENT);
	sqe = urt_sqe(&f->ring, 4);
	io_uring_prep_cancel_fd(sqe, 1000, 0);
	run(&f->ring, 4, -EBADF);
	/* the pipe still works */
	io_uring_prep_read(urt_sqe(&f->ring, 5), f->p[0], buf[0], 8, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	assert_int_equal(write(f->p[1], "z", 1), 1);
	urt_expect(&f->ring, 5, 1);
}

static void test_links(void **state)
{
	struct fx *f = *state;
	struct __kernel_timespec ts = { .tv_nsec = 20 * 1000 * 1000 };
	struct io_uring_sqe *sqe;
	char buf[8];

	/* a read that waits, guarded by a LINK_TIMEOUT: cancelled, -ETIME */
	sqe = urt_sqe(&f->ring, 1);
	io_uring_prep_read(sqe, f->p[0], buf, 8, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_link_timeout(urt_sqe(&f->ring, 2), &ts, 0);
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 1, -ECANCELED);
	urt_expect(&f->ring, 2, -ETIME);
	/* the read completes first: the LINK_TIMEOUT -ECANCELED, the chain goes on */
	assert_int_equal(write(f->p[1], "abc", 3), 3);
	sqe = urt_sqe(&f->ring, 3);
	io_uring_prep_read(sqe, f->p[0], buf, 8, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = urt_sqe(&f->ring, 4);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_write(urt_sqe(&f->ring, 5), f->file, buf, 3, 0);
	assert_int_equal(io_uring_submit(&f->ring), 3);
	urt_expect(&f->ring, 3, 3);
	urt_expect(&f->ring, 4, -ECANCELED);
	urt_expect(&f->ring, 5, 3);
	/* a failing read fails its chain */
	sqe = urt_sqe(&f->ring, 6);
	io_uring_prep_read(sqe, f->p[1], buf, 8, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_nop(urt_sqe(&f->ring, 7));
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 6, -EBADF);
	urt_expect(&f->ring, 7, -ECANCELED);
}

static void test_close_fsync_nop(void **state)
{
	struct fx *f = *state;
	struct io_uring_sqe *sqe;
	int fd = dup(f->file), fds[2];

	/* CLOSE of an OS fd; again: -EBADF */
	io_uring_prep_close(urt_sqe(&f->ring, 1), fd);
	run(&f->ring, 1, 0);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	io_uring_prep_close(urt_sqe(&f->ring, 2), fd);
	run(&f->ring, 2, -EBADF);
	/* a registered-file slot */
	fds[0] = f->file;
	fds[1] = -1;
	io_uring_prep_close_direct(urt_sqe(&f->ring, 3), 0);
	run(&f->ring, 3, -ENXIO);
	assert_int_equal(io_uring_register_files(&f->ring, fds, 2), 0);
	io_uring_prep_close_direct(urt_sqe(&f->ring, 4), 1);
	run(&f->ring, 4, -EBADF);
	io_uring_prep_close_direct(urt_sqe(&f->ring, 5), 2);
	run(&f->ring, 5, -EINVAL);
	io_uring_prep_close_direct(urt_sqe(&f->ring, 6), 0);
	run(&f->ring, 6, 0);
	assert_true(fcntl(f->file, F_GETFD) >= 0);	/* the slot, not the fd */
	sqe = urt_sqe(&f->ring, 7);
	io_uring_prep_close_direct(sqe, 0);
	sqe->fd = 3;
	run(&f->ring, 7, -EINVAL);

	/* FSYNC: 0 on a file, the kernel's -EINVAL on a pipe, bad flags -EINVAL */
	io_uring_prep_fsync(urt_sqe(&f->ring, 8), f->file, IORING_FSYNC_DATASYNC);
	run(&f->ring, 8, 0);
	io_uring_prep_fsync(urt_sqe(&f->ring, 9), f->p[0], 0);
	run(&f->ring, 9, -EINVAL);
	io_uring_prep_fsync(urt_sqe(&f->ring, 10), f->file, 2);
	run(&f->ring, 10, -EINVAL);

	/* NOP on a file: an open OS fd 0, a closed one -EBADF */
	sqe = urt_sqe(&f->ring, 11);
	io_uring_prep_nop(sqe);
	sqe->nop_flags = IORING_NOP_FILE;
	sqe->fd = f->p[0];
	run(&f->ring, 11, 0);
	sqe = urt_sqe(&f->ring, 12);
	io_uring_prep_nop(sqe);
	sqe->nop_flags = IORING_NOP_FILE;
	sqe->fd = fd;
	run(&f->ring, 12, -EBADF);
}

static void test_splice(void **state)
{
	struct fx *f = *state;
	int q[2];
	char buf[8] = { 0 };

	assert_int_equal(pipe(q), 0);
	/* an empty pipe: the splice waits */
	io_uring_prep_splice(urt_sqe(&f->ring, 1), f->p[0], -1, q[1], -1, 8, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	none_yet(&f->ring);
	assert_int_equal(write(f->p[1], "spl", 3), 3);
	urt_expect(&f->ring, 1, 3);
	assert_int_equal(read(q[0], buf, 8), 3);
	assert_memory_equal(buf, "spl", 3);
	/* an offset on a pipe: -ESPIPE */
	io_uring_prep_splice(urt_sqe(&f->ring, 2), f->p[0], 0, q[1], -1, 8, 0);
	run(&f->ring, 2, -ESPIPE);
	/* file to pipe at an offset */
	assert_int_equal(pwrite(f->file, "0123456", 7, 0), 7);
	io_uring_prep_splice(urt_sqe(&f->ring, 3), f->file, 2, q[1], -1, 4, 0);
	run(&f->ring, 3, 4);
	assert_int_equal(read(q[0], buf, 8), 4);
	assert_memory_equal(buf, "2345", 4);
	close(q[0]);
	close(q[1]);
}

struct later {
	int fd;
	unsigned ms;
};

static void *write_later(void *arg)
{
	struct later *l = arg;
	uint64_t one = 1;

	usleep(l->ms * 1000);
	assert_int_equal(write(l->fd, &one, sizeof(one)), sizeof(one));
	return NULL;
}

/* An interrupt-mode wait sleeps, and the fd becoming ready wakes it. */
static void wait_woken(struct io_uring *ring, int fd, uint64_t ud, int res)
{
	struct zn_uring *zr = zn_uring_from_handle(ring->ring_fd);
	struct zn_uring_stats st0, st1;
	struct later l = { fd, 100 };
	pthread_t t;
	uint64_t t0;

	zn_uring_get_stats(zr, &st0);
	assert_int_equal(pthread_create(&t, NULL, write_later, &l), 0);
	t0 = urt_now_ns();
	urt_expect(ring, ud, res);
	/* woken by the write, not by the 5 s bound */
	assert_true(urt_now_ns() - t0 < 2000ull * 1000 * 1000);
	pthread_join(t, NULL);
	zn_uring_get_stats(zr, &st1);
	assert_true(st1.irq_sleeps > st0.irq_sleeps);
}

static void test_irq_wait(void **state)
{
	struct fx *f = *state;
	struct zn_uring *zr = zn_uring_from_handle(f->ring.ring_fd);
	int efd = eventfd(0, EFD_NONBLOCK);
	uint64_t v;

	assert_true(efd >= 0);
	assert_int_equal(zn_uring_set_wait(zr, ZN_URING_WAIT_IRQ, 10), 0);
	/* a READ of an eventfd that waits */
	io_uring_prep_read(urt_sqe(&f->ring, 1), efd, &v, 8, 0);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	wait_woken(&f->ring, efd, 1, 8);
	assert_int_equal(v, 1);
	/* a POLL_ADD of it */
	io_uring_prep_poll_add(urt_sqe(&f->ring, 2), efd, POLLIN);
	assert_int_equal(io_uring_submit(&f->ring), 1);
	wait_woken(&f->ring, efd, 2, POLLIN);
	close(efd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_fsync_nop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_splice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_wait, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
