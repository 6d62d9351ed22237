/* SPDX-License-Identifier: MIT */
/*
 * One socket, several rings (docs/uring.md, "Sockets and rings"): Linux
 * lets any ring issue any op on any socket. zcnic lets every ring of the
 * thread that serves the socket do so, with each CQE (and each SEND_ZC
 * notification) on the ring that issued the request, progress made by the
 * passes of whichever of those rings the thread waits on, and the socket
 * staying usable when the ring that first used it exits; a ring of another
 * thread gets -EBUSY for every op on it (send, recv, poll, bind, shutdown,
 * close), since the socket's queues take no locks.
 *
 * UDP between two zcnic netdevs over an in-process zn-nicsim pair
 * (tests/unit/support/netdev_pair.c), through liburing names only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "tests/unit/support/netdev_pair.h"

#define PORT		5600
#define WAIT_S		10

struct got {
	int32_t res;
	uint32_t flags;
};

static struct ndp n;
static struct io_uring r1, r2;

static int setup(void **state)
{
	(void)state;
	if (ndp_open(&n, "") || ndp_resolve(&n, 3000))
		return -1;
	if (io_uring_queue_init(32, &r1, 0))
		return -1;
	return io_uring_queue_init(32, &r2, 0);
}

static int teardown(void **state)
{
	(void)state;
	if (r1.ring_fd >= 0)
		io_uring_queue_exit(&r1);
	io_uring_queue_exit(&r2);
	ndp_close(&n);
	return 0;
}

static struct io_uring_sqe *sqe_ud(struct io_uring *r, uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	assert_non_null(sqe);
	io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

/* Submit on r, then wait on r alone for the CQE of ud (CQEs must come in
 * the order asked for here). */
static struct got wait_ud(struct io_uring *r, uint64_t ud)
{
	struct __kernel_timespec ts = { .tv_sec = WAIT_S };
	struct io_uring_cqe *cqe;
	struct got g;

	io_uring_submit(r);
	assert_int_equal(io_uring_wait_cqe_timeout(r, &cqe, &ts), 0);
	assert_int_equal(cqe->user_data, ud);
	g = (struct got){ cqe->res, cqe->flags };
	io_uring_cqe_seen(r, cqe);
	return g;
}

static void assert_cq_empty(struct io_uring *r)
{
	struct io_uring_cqe *cqe;

	assert_int_equal(io_uring_peek_cqe(r, &cqe), -EAGAIN);
}

/* A bound to A:port, B connected to it; both set up on r1. */
static void udp_pair(uint16_t port, int *afd, int *bfd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = n.ip_a };

	io_uring_prep_socket(sqe_ud(&r1, 1), AF_INET, SOCK_DGRAM, 0, 0);
	*afd = wait_ud(&r1, 1).res;
	io_uring_prep_socket(sqe_ud(&r1, 2), AF_INET, SOCK_DGRAM, 0, 0);
	*bfd = wait_ud(&r1, 2).res;
	assert_true(*afd > 0 && *bfd > 0);
	io_uring_prep_bind(sqe_ud(&r1, 3), *afd, (struct sockaddr *)&a, sizeof(a));
	assert_int_equal(wait_ud(&r1, 3).res, 0);
	io_uring_prep_connect(sqe_ud(&r1, 4), *bfd, (struct sockaddr *)&a, sizeof(a));
	assert_int_equal(wait_ud(&r1, 4).res, 0);
}

/* Requests of two rings of one thread on the same sockets. */
static void test_two_rings_one_thread(void **state)
{
	static char zc[256];
	char in1[64], in2[64];
	struct got g;
	int afd, bfd;

	(void)state;
	udp_pair(PORT, &afd, &bfd);
	/* r1 receives on A; r2 sends on B, which r1 used first */
	io_uring_prep_recv(sqe_ud(&r1, 10), afd, in1, sizeof(in1), 0);
	assert_int_equal(io_uring_submit(&r1), 1);
	io_uring_prep_send(sqe_ud(&r2, 11), bfd, "two rings", 9, 0);
	assert_int_equal(wait_ud(&r2, 11).res, 9);
	assert_int_equal(wait_ud(&r1, 10).res, 9);
	assert_memory_equal(in1, "two rings", 9);
	/* SEND_ZC from r2: its result and its notification on r2, none on r1;
	 * waiting on r2 alone reaps the NIC's completion */
	memset(zc, 'z', sizeof(zc));
	io_uring_prep_recv(sqe_ud(&r1, 12), afd, in1, sizeof(in1), 0);
	assert_int_equal(io_uring_submit(&r1), 1);
	io_uring_prep_send_zc(sqe_ud(&r2, 13), bfd, zc, 40, 0, 0);
	g = wait_ud(&r2, 13);
	assert_int_equal(g.res, 40);
	assert_true(g.flags & IORING_CQE_F_MORE);
	g = wait_ud(&r2, 13);
	assert_int_equal(g.res, 0);
	assert_true(g.flags & IORING_CQE_F_NOTIF);
	assert_int_equal(wait_ud(&r1, 12).res, 40);
	assert_memory_equal(in1, zc, 40);
	assert_cq_empty(&r1);
	/* r2 receives on A (r1's) while r1 sends; r2's own passes serve A */
	io_uring_prep_recv(sqe_ud(&r2, 14), afd, in2, sizeof(in2), 0);
	assert_int_equal(io_uring_submit(&r2), 1);
	io_uring_prep_send(sqe_ud(&r1, 15), bfd, "back", 4, 0);
	assert_int_equal(wait_ud(&r1, 15).res, 4);
	assert_int_equal(wait_ud(&r2, 14).res, 4);
	assert_memory_equal(in2, "back", 4);
	/* POLL_ADD from r2 on A: POLLIN once a datagram waits */
	io_uring_prep_poll_add(sqe_ud(&r2, 16), afd, POLLIN);
	assert_int_equal(io_uring_submit(&r2), 1);
	io_uring_prep_send(sqe_ud(&r1, 17), bfd, "poll", 4, 0);
	assert_int_equal(wait_ud(&r1, 17).res, 4);
	g = wait_ud(&r2, 16);
	assert_true(g.res & POLLIN);
	io_uring_prep_recv(sqe_ud(&r2, 18), afd, in2, sizeof(in2), 0);
	assert_int_equal(wait_ud(&r2, 18).res, 4);
	/* r1 exits, with a receive of r2 armed on A: the sockets live on
	 * with r2, which sends, receives and closes them */
	io_uring_prep_recv(sqe_ud(&r2, 19), afd, in2, sizeof(in2), 0);
	assert_int_equal(io_uring_submit(&r2), 1);
	io_uring_queue_exit(&r1);
	r1.ring_fd = -1;
	io_uring_prep_send_zc(sqe_ud(&r2, 20), bfd, zc, 100, 0, 0);
	g = wait_ud(&r2, 20);
	assert_int_equal(g.res, 100);
	g = wait_ud(&r2, 20);
	assert_true(g.flags & IORING_CQE_F_NOTIF);
	assert_int_equal(wait_ud(&r2, 19).res, 64);	/* the buffer's worth */
	assert_memory_equal(in2, zc, 64);
	io_uring_prep_close(sqe_ud(&r2, 21), afd);
	assert_int_equal(wait_ud(&r2, 21).res, 0);
	io_uring_prep_close(sqe_ud(&r2, 22), bfd);
	assert_int_equal(wait_ud(&r2, 22).res, 0);
}

/* A ring of another thread: -EBUSY for every op on the sockets. */
struct other {
	int afd, bfd;
	int32_t res[6];
};

static void *other_thread(void *arg)
{
	struct other *o = arg;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT + 9),
				  .sin_addr.s_addr = n.ip_a };
	struct io_uring r3;
	char buf[16];

	if (io_uring_queue_init(8, &r3, 0))
		return NULL;
	io_uring_prep_send(sqe_ud(&r3, 0), o->bfd, "x", 1, 0);
	io_uring_prep_recv(sqe_ud(&r3, 1), o->afd, buf, sizeof(buf), 0);
	io_uring_prep_send_zc(sqe_ud(&r3, 2), o->bfd, "x", 1, 0, 0);
	io_uring_prep_poll_add(sqe_ud(&r3, 3), o->afd, POLLIN);
	io_uring_prep_bind(sqe_ud(&r3, 4), o->afd, (struct sockaddr *)&sa, sizeof(sa));
	io_uring_prep_close(sqe_ud(&r3, 5), o->afd);
	io_uring_submit(&r3);
	for (int i = 0; i < 7; i++) {
		struct __kernel_timespec ts = { .tv_sec = WAIT_S };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(&r3, &cqe, &ts))
			break;
		/* SEND_ZC's failure carries F_MORE and a notification after */
		if (cqe->user_data < 6 && !(cqe->flags & IORING_CQE_F_NOTIF))
			o->res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&r3, cqe);
	}
	io_uring_queue_exit(&r3);
	return NULL;
}

static void test_other_thread_busy(void **state)
{
	struct other o = { .res = { 1, 1, 1, 1, 1, 1 } };
	char in[16];
	pthread_t t;

	(void)state;
	udp_pair(PORT + 1, &o.afd, &o.bfd);
	/* the first request on each ties it to this thread's rings */
	io_uring_prep_recv(sqe_ud(&r1, 30), o.afd, in, sizeof(in), 0);
	assert_int_equal(io_uring_submit(&r1), 1);
	io_uring_prep_send(sqe_ud(&r1, 31), o.bfd, "mine", 4, 0);
	assert_int_equal(wait_ud(&r1, 31).res, 4);
	assert_int_equal(wait_ud(&r1, 30).res, 4);
	assert_int_equal(pthread_create(&t, NULL, other_thread, &o), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(o.res[i], -EBUSY);
	/* nothing of it reached the sockets: they work as before */
	io_uring_prep_recv(sqe_ud(&r1, 32), o.afd, in, sizeof(in), 0);
	assert_int_equal(io_uring_submit(&r1), 1);
	io_uring_prep_send(sqe_ud(&r1, 33), o.bfd, "still", 5, 0);
	assert_int_equal(wait_ud(&r1, 33).res, 5);
	assert_int_equal(wait_ud(&r1, 32).res, 5);
	assert_memory_equal(in, "still", 5);
	assert_cq_empty(&r2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_rings_one_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_thread_busy, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
