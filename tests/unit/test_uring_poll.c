/* SPDX-License-Identifier: MIT */
/*
 * IORING_OP_POLL_ADD and POLL_REMOVE through the liburing API, with the
 * results of Linux io_uring/poll.c: prep errors, one-shot and multishot
 * polls, removal, update of events and user_data, ASYNC_CANCEL, on an
 * eventfd (a kernel fd), on another ring's handle, and on zcnic UDP and
 * TCP sockets between two netdevs over an in-process zn-nicsim pair.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/support/netdev_pair.h"
#include "tests/unit/uring_test.h"

#define PORT	5600

struct fx {
	struct io_uring ring, other;
	int efd;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || io_uring_queue_init(32, &f->ring, 0) || io_uring_queue_init(4, &f->other, 0))
		return -1;
	f->efd = eventfd(0, EFD_NONBLOCK);
	if (f->efd < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	io_uring_queue_exit(&f->ring);
	io_uring_queue_exit(&f->other);
	close(f->efd);
	free(f);
	return 0;
}

static int submit(struct io_uring *ring)
{
	return io_uring_submit(ring);
}

/* No CQE within ms (the ring's passes ran meanwhile). */
static void expect_none(struct io_uring *ring, int ms)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(ring, &c, ms), -ETIME);
}

static void efd_add(int efd, uint64_t v)
{
	assert_int_equal(write(efd, &v, sizeof(v)), sizeof(v));
}

static void efd_clear(int efd)
{
	uint64_t v;

	assert_int_equal(read(efd, &v, sizeof(v)), sizeof(v));
}

static void test_prep_errors(void **state)
{
	struct fx *f = *state;
	struct io_uring_sqe *sqe;

	sqe = urt_sqe(&f->ring, 1);
	io_uring_prep_poll_add(sqe, f->efd, POLLIN);
	sqe->addr = 8;
	sqe = urt_sqe(&f->ring, 2);
	io_uring_prep_poll_add(sqe, f->efd, POLLIN);
	sqe->len = 1u << 3;			/* not a POLL_ADD flag */
	sqe = urt_sqe(&f->ring, 3);
	io_uring_prep_poll_multishot(sqe, f->efd, POLLIN);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	sqe = urt_sqe(&f->ring, 4);
	io_uring_prep_poll_remove(sqe, 77);
	sqe->len = IORING_POLL_ADD_MULTI;	/* meaningless without an update */
	/* a new user_data without its flag; events without theirs */
	io_uring_prep_poll_update(urt_sqe(&f->ring, 5), 77, 78, 0, IORING_POLL_UPDATE_EVENTS);
	io_uring_prep_poll_update(urt_sqe(&f->ring, 6), 77, 0, POLLIN,
				  IORING_POLL_UPDATE_USER_DATA);
	io_uring_prep_poll_remove(urt_sqe(&f->ring, 7), 77);
	/* a number that is no open fd */
	io_uring_prep_poll_add(urt_sqe(&f->ring, 8), 1 << 20, POLLIN);
	/* a failed prep ends the submission (no SUBMIT_ALL): one at a time */
	for (uint64_t ud = 1; ud <= 6; ud++) {
		assert_int_equal(io_uring_submit(&f->ring), 1);
		urt_expect(&f->ring, ud, -EINVAL);
	}
	/* these two fail at issue */
	assert_int_equal(io_uring_submit(&f->ring), 2);
	urt_expect(&f->ring, 7, -ENOENT);
	urt_expect(&f->ring, 8, -EBADF);
}

/* one-shot on an eventfd: ready at once (POLLOUT), or later (POLLIN) */
static void test_oneshot_eventfd(void **state)
{
	struct fx *f = *state;

	io_uring_prep_poll_add(urt_sqe(&f->ring, 1), f->efd, POLLIN | POLLOUT);
	assert_int_equal(submit(&f->ring), 1);
	urt_expect_cqe(&f->ring, 1, POLLOUT, 0);
	io_uring_prep_poll_add(urt_sqe(&f->ring, 2), f->efd, POLLIN);
	assert_int_equal(submit(&f->ring), 1);
	expect_none(&f->ring, 20);
	efd_add(f->efd, 1);
	urt_expect_cqe(&f->ring, 2, POLLIN, 0);
	expect_none(&f->ring, 10);	/* one-shot: one CQE */
	efd_clear(f->efd);
}

/* multishot: a CQE with F_MORE per edge; POLL_REMOVE ends it */
static void test_multishot(void **state)
{
	struct fx *f = *state;

	io_uring_prep_poll_multishot(urt_sqe(&f->ring, 1), f->efd, POLLIN);
	assert_int_equal(submit(&f->ring), 1);
	expect_none(&f->ring, 10);
	for (int i = 0; i < 3; i++) {
		efd_add(f->efd, 1);
		urt_expect_cqe(&f->ring, 1, POLLIN, IORING_CQE_F_MORE);
		expect_none(&f->ring, 5);	/* still readable: no new edge */
		efd_clear(f->efd);
		expect_none(&f->ring, 5);	/* the ring saw it not ready */
	}
	io_uring_prep_poll_remove(urt_sqe(&f->ring, 2), 1);
	assert_int_equal(submit(&f->ring), 1);
	urt_expect_cqe(&f->ring, 1, -ECANCELED, 0);
	urt_expect(&f->ring, 2, 0);
	io_uring_prep_poll_remove(urt_sqe(&f->ring, 3), 1);
	assert_int_equal(submit(&f->ring), 1);
	urt_expect(&f->ring, 3, -ENOENT);
}

/* update: new events and user_data, the poll stays armed; then it fires */
static void test_update_and_cancel(void **state)
{
	struct fx *f = *state;

	io_uring_prep_poll_add(urt_sqe(&f->ring, 1), f->efd, POLLIN);
	assert_int_equal(submit(&f->ring), 1);
	expect_none(&f->ring, 5);
	io_uring_prep_poll_update(urt_sqe(&f->ring, 2), 1, 9, POLLOUT,
				  IORING_POLL_UPDATE_EVENTS | IORING_POLL_UPDATE_USER_DATA);
	assert_int_equal(submit(&f->ring), 1);
	urt_expect(&f->ring, 2, 0);
	urt_expect_cqe(&f->ring, 9, POLLOUT, 0);
	/* ASYNC_CANCEL finds a poll too */
	io_uring_prep_poll_add(urt_sqe(&f->ring, 3), f->efd, POLLIN);
	io_uring_prep_cancel64(urt_sqe(&f->ring, 4), 3, 0);
	assert_int_equal(submit(&f->ring), 2);
	urt_expect(&f->ring, 3, -ECANCELED);
	urt_expect(&f->ring, 4, 0);
}

/* another ring's handle: POLLIN once it has a CQE (io_uring_poll) */
static void test_ring_handle(void **state)
{
	struct fx *f = *state;

	io_uring_prep_poll_add(urt_sqe(&f->ring, 1), f->other.ring_fd, POLLIN);
	assert_int_equal(submit(&f->ring), 1);
	expect_none(&f->ring, 10);
	io_uring_prep_nop(urt_sqe(&f->other, 50));
	assert_int_equal(submit(&f->other), 1);
	urt_expect_cqe(&f->ring, 1, POLLIN, 0);
	urt_expect(&f->other, 50, 0);
	io_uring_prep_poll_add(urt_sqe(&f->ring, 2), f->other.ring_fd, POLLOUT | POLLWRNORM);
	assert_int_equal(submit(&f->ring), 1);
	urt_expect(&f->ring, 2, POLLOUT | POLLWRNORM);
	/* a multishot poll of its own ring: one CQE per edge, not one per CQE */
	io_uring_prep_poll_multishot(urt_sqe(&f->ring, 3), f->ring.ring_fd, POLLIN);
	assert_int_equal(submit(&f->ring), 1);
	expect_none(&f->ring, 5);
	io_uring_prep_nop(urt_sqe(&f->ring, 4));
	assert_int_equal(submit(&f->ring), 1);
	urt_expect(&f->ring, 4, 0);
	urt_expect_cqe(&f->ring, 3, POLLIN, IORING_CQE_F_MORE);
	expect_none(&f->ring, 10);
	io_uring_prep_poll_remove(urt_sqe(&f->ring, 5), 3);
	assert_int_equal(submit(&f->ring), 1);
	urt_expect_cqe(&f->ring, 3, -ECANCELED, 0);
	urt_expect(&f->ring, 5, 0);
}

/* ---- zcnic sockets ---- */

static struct ndp n;

static int pair_open(void **state)
{
	(void)state;
	return ndp_open(&n, "") || ndp_resolve(&n, 3000) ? -1 : 0;
}

static int pair_close(void **state)
{
	(void)state;
	ndp_close(&n);
	return 0;
}

static int32_t op_res(struct io_uring *ring, uint64_t ud)
{
	struct io_uring_cqe c;

	submit(ring);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, ud);
	return c.res;
}

static struct sockaddr_in sin_of(uint32_t ip, uint16_t port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port),
				     .sin_addr.s_addr = ip };
}

static int sock_of(struct io_uring *ring, int type)
{
	io_uring_prep_socket(urt_sqe(ring, 100), AF_INET, type, 0, 0);
	return op_res(ring, 100);
}

static void test_udp(void **state)
{
	struct fx *f = *state;
	struct sockaddr_in a = sin_of(n.ip_a, PORT);
	char buf[16];
	int afd = sock_of(&f->ring, SOCK_DGRAM), bfd = sock_of(&f->ring, SOCK_DGRAM);

	assert_true(afd > 0 && bfd > 0);
	io_uring_prep_bind(urt_sqe(&f->ring, 101), afd, (struct sockaddr *)&a, sizeof(a));
	assert_int_equal(op_res(&f->ring, 101), 0);
	io_uring_prep_connect(urt_sqe(&f->ring, 102), bfd, (struct sockaddr *)&a, sizeof(a));
	assert_int_equal(op_res(&f->ring, 102), 0);
	/* writable at once; readable once a datagram is there */
	io_uring_prep_poll_add(urt_sqe(&f->ring, 1), bfd, POLLOUT);
	assert_int_equal(op_res(&f->ring, 1), POLLOUT);
	io_uring_prep_poll_multishot(urt_sqe(&f->ring, 2), afd, POLLIN | POLLRDNORM);
	submit(&f->ring);
	expect_none(&f->ring, 10);
	io_uring_prep_send(urt_sqe(&f->ring, 103), bfd, "ping", 4, 0);
	assert_int_equal(op_res(&f->ring, 103), 4);
	urt_expect_cqe(&f->ring, 2, POLLIN | POLLRDNORM, IORING_CQE_F_MORE);
	/* a second datagram while the first is unread: more data, a new CQE */
	io_uring_prep_send(urt_sqe(&f->ring, 104), bfd, "pong", 4, 0);
	assert_int_equal(op_res(&f->ring, 104), 4);
	urt_expect_cqe(&f->ring, 2, POLLIN | POLLRDNORM, IORING_CQE_F_MORE);
	for (int i = 0; i < 2; i++) {
		io_uring_prep_recv(urt_sqe(&f->ring, 105), afd, buf, sizeof(buf), 0);
		assert_int_equal(op_res(&f->ring, 105), 4);
	}
	io_uring_prep_poll_remove(urt_sqe(&f->ring, 3), 2);
	submit(&f->ring);
	urt_expect_cqe(&f->ring, 2, -ECANCELED, 0);
	urt_expect(&f->ring, 3, 0);
}

static void test_tcp(void **state)
{
	struct fx *f = *state;
	struct sockaddr_in a = sin_of(n.ip_a, PORT + 1);
	int lfd = sock_of(&f->ring, SOCK_STREAM), bfd = sock_of(&f->ring, SOCK_STREAM), afd;
	char buf[8];

	io_uring_prep_bind(urt_sqe(&f->ring, 101), lfd, (struct sockaddr *)&a, sizeof(a));
	assert_int_equal(op_res(&f->ring, 101), 0);
	io_uring_prep_listen(urt_sqe(&f->ring, 102), lfd, 4);
	assert_int_equal(op_res(&f->ring, 102), 0);
	/* a listener is readable when a connection waits to be accepted */
	io_uring_prep_poll_add(urt_sqe(&f->ring, 1), lfd, POLLIN);
	submit(&f->ring);
	expect_none(&f->ring, 10);
	io_uring_prep_connect(urt_sqe(&f->ring, 103), bfd, (struct sockaddr *)&a, sizeof(a));
	submit(&f->ring);
	{
		struct io_uring_cqe c1, c2;

		assert_int_equal(urt_get_cqe(&f->ring, &c1, URT_WAIT_MS), 0);
		assert_int_equal(urt_get_cqe(&f->ring, &c2, URT_WAIT_MS), 0);
		if (c1.user_data != 1) {
			struct io_uring_cqe t = c1;

			c1 = c2;
			c2 = t;
		}
		assert_int_equal(c1.user_data, 1);
		assert_int_equal(c1.res, POLLIN);
		assert_int_equal(c2.user_data, 103);
		assert_int_equal(c2.res, 0);
	}
	io_uring_prep_accept(urt_sqe(&f->ring, 104), lfd, NULL, NULL, 0);
	afd = op_res(&f->ring, 104);
	assert_true(afd > 0);
	/* connected: writable, not readable */
	io_uring_prep_poll_add(urt_sqe(&f->ring, 2), afd, POLLIN | POLLOUT);
	assert_int_equal(op_res(&f->ring, 2), POLLOUT);
	io_uring_prep_poll_add(urt_sqe(&f->ring, 3), afd, POLLIN);
	submit(&f->ring);
	expect_none(&f->ring, 10);
	io_uring_prep_send(urt_sqe(&f->ring, 105), bfd, "abc", 3, 0);
	submit(&f->ring);
	{
		struct io_uring_cqe c1, c2;

		assert_int_equal(urt_get_cqe(&f->ring, &c1, URT_WAIT_MS), 0);
		assert_int_equal(urt_get_cqe(&f->ring, &c2, URT_WAIT_MS), 0);
		assert_int_equal(c1.user_data + c2.user_data, 3 + 105);
		assert_int_equal(c1.user_data == 3 ? c1.res : c2.res, POLLIN);
	}
	io_uring_prep_recv(urt_sqe(&f->ring, 106), afd, buf, sizeof(buf), 0);
	assert_int_equal(op_res(&f->ring, 106), 3);
	/* the peer's FIN: POLLIN | POLLRDHUP */
	io_uring_prep_poll_add(urt_sqe(&f->ring, 4), afd, POLLIN | POLLRDHUP);
	submit(&f->ring);
	expect_none(&f->ring, 10);
	io_uring_prep_shutdown(urt_sqe(&f->ring, 107), bfd, SHUT_WR);
	submit(&f->ring);
	{
		struct io_uring_cqe c1, c2;

		assert_int_equal(urt_get_cqe(&f->ring, &c1, URT_WAIT_MS), 0);
		assert_int_equal(urt_get_cqe(&f->ring, &c2, URT_WAIT_MS), 0);
		assert_int_equal(c1.user_data + c2.user_data, 4 + 107);
		assert_int_equal(c1.user_data == 4 ? c1.res : c2.res, POLLIN | POLLRDHUP);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prep_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oneshot_eventfd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multishot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_and_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_handle, setup, teardown),
	};
	const struct CMUnitTest sock_tests[] = {
		cmocka_unit_test_setup_teardown(test_udp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) |
	       cmocka_run_group_tests(sock_tests, pair_open, pair_close);
}
