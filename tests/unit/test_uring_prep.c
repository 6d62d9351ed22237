/*
 * liburing's prep helpers that name opcodes zcnic does not implement: they
 * must fill the SQE exactly as liburing does (programs build and behave
 * the same), and the ring must answer -EOPNOTSUPP for them.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"

static struct io_uring_sqe sqe;

static void fresh(void)
{
	memset(&sqe, 0xa5, sizeof(sqe));
	sqe.flags = 0;
	sqe.ioprio = 0;
	sqe.rw_flags = 0;
	sqe.buf_index = 0;
}

static void expect(uint8_t op, int fd, uint64_t addr, uint32_t len, uint64_t off)
{
	assert_int_equal(sqe.opcode, op);
	assert_int_equal(sqe.fd, fd);
	assert_int_equal(sqe.addr, addr);
	assert_int_equal(sqe.len, len);
	assert_int_equal(sqe.off, off);
}

static void test_fields(void **state)
{
	struct __kernel_timespec ts = { 1, 2 };
	struct iovec iov[2];
	char buf[8];
	socklen_t alen = 16;
	struct sockaddr sa;
	int fds[3];

	(void)state;
	fresh();
	io_uring_prep_read(&sqe, 3, buf, 8, 100);
	expect(IORING_OP_READ, 3, (uintptr_t)buf, 8, 100);
	fresh();
	io_uring_prep_writev(&sqe, 4, iov, 2, 7);
	expect(IORING_OP_WRITEV, 4, (uintptr_t)iov, 2, 7);
	fresh();
	io_uring_prep_read_fixed(&sqe, 5, buf, 8, 0, 3);
	expect(IORING_OP_READ_FIXED, 5, (uintptr_t)buf, 8, 0);
	assert_int_equal(sqe.buf_index, 3);
	fresh();
	io_uring_prep_timeout(&sqe, &ts, 4, IORING_TIMEOUT_ABS);
	expect(IORING_OP_TIMEOUT, -1, (uintptr_t)&ts, 1, 4);
	assert_int_equal(sqe.timeout_flags, IORING_TIMEOUT_ABS);
	fresh();
	io_uring_prep_timeout_remove(&sqe, 0x1234, 0);
	expect(IORING_OP_TIMEOUT_REMOVE, -1, 0x1234, 0, 0);
	fresh();
	io_uring_prep_link_timeout(&sqe, &ts, 0);
	expect(IORING_OP_LINK_TIMEOUT, -1, (uintptr_t)&ts, 1, 0);
	fresh();
	io_uring_prep_poll_add(&sqe, 6, POLLIN | POLLOUT);
	expect(IORING_OP_POLL_ADD, 6, 0, 0, 0);
	assert_int_equal(sqe.poll32_events, POLLIN | POLLOUT);
	fresh();
	io_uring_prep_cancel64(&sqe, 0xfeed, IORING_ASYNC_CANCEL_ALL);
	expect(IORING_OP_ASYNC_CANCEL, -1, 0xfeed, 0, 0);
	assert_int_equal(sqe.cancel_flags, IORING_ASYNC_CANCEL_ALL);
	fresh();
	io_uring_prep_accept(&sqe, 7, &sa, &alen, 0x800);
	expect(IORING_OP_ACCEPT, 7, (uintptr_t)&sa, 0, (uintptr_t)&alen);
	assert_int_equal(sqe.accept_flags, 0x800);
	fresh();
	io_uring_prep_multishot_accept(&sqe, 7, &sa, &alen, 0);
	expect(IORING_OP_ACCEPT, 7, (uintptr_t)&sa, 0, (uintptr_t)&alen);
	assert_int_equal(sqe.ioprio, IORING_ACCEPT_MULTISHOT);
	fresh();
	io_uring_prep_bind(&sqe, 8, &sa, 16);
	expect(IORING_OP_BIND, 8, (uintptr_t)&sa, 0, 16);
	fresh();
	io_uring_prep_listen(&sqe, 8, 5);
	expect(IORING_OP_LISTEN, 8, 0, 5, 0);
	fresh();
	io_uring_prep_shutdown(&sqe, 8, 1);
	expect(IORING_OP_SHUTDOWN, 8, 0, 1, 0);
	fresh();
	io_uring_prep_connect(&sqe, 8, &sa, 16);
	expect(IORING_OP_CONNECT, 8, (uintptr_t)&sa, 0, 16);
	fresh();
	io_uring_prep_socket(&sqe, 2, 1, 6, 0);
	expect(IORING_OP_SOCKET, 2, 0, 6, 1);
	fresh();
	io_uring_prep_close(&sqe, 9);
	expect(IORING_OP_CLOSE, 9, 0, 0, 0);
	fresh();
	io_uring_prep_files_update(&sqe, fds, 3, 2);
	expect(IORING_OP_FILES_UPDATE, -1, (uintptr_t)fds, 3, 2);
	fresh();
	io_uring_prep_provide_buffers(&sqe, buf, 4, 2, 7, 1);
	expect(IORING_OP_PROVIDE_BUFFERS, 2, (uintptr_t)buf, 4, 1);
	assert_int_equal(sqe.buf_group, 7);
}

/* Unimplemented opcodes: -EOPNOTSUPP, as a kernel built without them. */
static void test_eopnotsupp(void **state)
{
	struct io_uring ring;
	struct io_uring_cqe cqe;
	struct io_uring_sqe *s;

	(void)state;
	/* SUBMIT_ALL: an SQE failing at submission does not stop the batch */
	assert_int_equal(io_uring_queue_init(8, &ring, IORING_SETUP_SUBMIT_ALL), 0);
	s = io_uring_get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_STATX, s, 0, NULL, 0, 0);
	s->user_data = 1;
	s = io_uring_get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_MKDIRAT, s, 0, NULL, 0, 0);
	s->user_data = 2;
	assert_int_equal(io_uring_submit(&ring), 2);
	for (int i = 1; i <= 2; i++) {
		assert_int_equal(urt_get_cqe(&ring, &cqe, URT_WAIT_MS), 0);
		assert_int_equal(cqe.user_data, (uint64_t)i);
		assert_int_equal(cqe.res, -EOPNOTSUPP);
	}
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_eopnotsupp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
