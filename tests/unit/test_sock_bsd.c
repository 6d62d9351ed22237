/* SPDX-License-Identifier: MIT */
/*
 * include/zcnic/bsd.h: the BSD calls a ported program renames its set-up
 * to, over two netdevs of one thread, with the results Linux's socket
 * calls give (-1 and errno); and a netdev passing from one thread to
 * another once the first let go of it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "core/debug/owner.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/bsd.h"

static struct ndp n;

static int setup(void **state)
{
	(void)state;
	return ndp_open(&n, "") || ndp_resolve(&n, 3000) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	ndp_close(&n);
	return 0;
}

static struct sockaddr_in sin_of(uint32_t ip, uint16_t port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = port,
				     .sin_addr.s_addr = ip };
}

static struct sockaddr_in name_of(int fd, bool peer)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	memset(&sin, 0xff, sizeof(sin));
	assert_int_equal(peer ? zn_getpeername(fd, (struct sockaddr *)&sin, &len)
			      : zn_getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	assert_int_equal(len, sizeof(sin));
	assert_int_equal(sin.sin_family, AF_INET);
	return sin;
}

#define ERRNO_IS(call, e) do { errno = 0; assert_int_equal((call), -1); \
			       assert_int_equal(errno, (e)); } while (0)

/* Both ends of a TCP connection from one thread, blocking calls only. */
static void test_tcp_pair(void **state)
{
	struct sockaddr_in a = sin_of(n.ip_a, 0), got, peer;
	socklen_t plen = sizeof(peer);
	int one = 1, l, c, s;

	(void)state;
	l = zn_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l > 0);
	assert_int_equal(zn_setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), 0);
	assert_int_equal(zn_bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	got = name_of(l, false);
	assert_int_equal(got.sin_addr.s_addr, n.ip_a);
	assert_true(ntohs(got.sin_port) >= 32768 && ntohs(got.sin_port) <= 60999);
	ERRNO_IS(zn_accept(l, NULL, NULL), EINVAL);	/* not listening yet */
	assert_int_equal(zn_listen(l, 16), 0);
	ERRNO_IS(zn_getpeername(l, (struct sockaddr *)&peer, &plen), ENOTCONN);

	c = zn_socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	assert_true(c > 0);
	assert_int_equal(zn_connect(c, (struct sockaddr *)&got, sizeof(got)), 0);
	ERRNO_IS(zn_connect(c, (struct sockaddr *)&got, sizeof(got)), EISCONN);
	s = zn_accept(l, (struct sockaddr *)&peer, &plen);
	assert_true(s > 0);
	assert_int_equal(plen, sizeof(peer));
	assert_int_equal(peer.sin_addr.s_addr, n.ip_b);
	assert_int_equal(peer.sin_port, name_of(c, false).sin_port);
	assert_int_equal(name_of(c, false).sin_addr.s_addr, n.ip_b);
	assert_int_equal(name_of(c, true).sin_port, got.sin_port);
	assert_int_equal(name_of(s, false).sin_port, got.sin_port);
	assert_int_equal(zn_setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)), 0);
	ERRNO_IS(zn_setsockopt(c, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)), ENOPROTOOPT);
	assert_int_equal(zn_socket_close(s), 0);
	assert_int_equal(zn_socket_close(c), 0);
	assert_int_equal(zn_socket_close(l), 0);
}

static void test_udp_and_errors(void **state)
{
	struct sockaddr_in any = sin_of(htonl(INADDR_ANY), 0), name, bad = sin_of(0x01020304, 0);
	socklen_t len = 4;
	int u, v, one = 1;

	(void)state;
	u = zn_socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(u > 0);
	ERRNO_IS(zn_bind(u, (struct sockaddr *)&bad, sizeof(bad)), EADDRNOTAVAIL);
	assert_int_equal(zn_bind(u, (struct sockaddr *)&any, sizeof(any)), 0);
	name = name_of(u, false);
	assert_int_equal(name.sin_addr.s_addr, n.ip_a);	/* the lowest ifindex */
	ERRNO_IS(zn_listen(u, 1), EOPNOTSUPP);
	ERRNO_IS(zn_getpeername(u, (struct sockaddr *)&name, &len), ENOTCONN);
	/* a short buffer: cut, the full length said */
	assert_int_equal(zn_getsockname(u, (struct sockaddr *)&name, &len), 0);
	assert_int_equal(len, sizeof(name));

	v = zn_socket(AF_INET, SOCK_DGRAM, 0);
	name = name_of(u, false);
	assert_int_equal(zn_connect(v, (struct sockaddr *)&name, sizeof(name)), 0);
	assert_int_equal(name_of(v, false).sin_addr.s_addr, n.ip_b);	/* routed */
	assert_int_equal(name_of(v, true).sin_port, name.sin_port);
	ERRNO_IS(zn_socket(AF_INET6, SOCK_DGRAM, 0), EAFNOSUPPORT);
	ERRNO_IS(zn_socket(AF_INET, SOCK_DGRAM, IPPROTO_TCP), EPROTONOSUPPORT);
	ERRNO_IS(zn_bind(12345, (struct sockaddr *)&any, sizeof(any)), EBADF);
	ERRNO_IS(zn_setsockopt(12345, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), EBADF);
	assert_int_equal(zn_socket_close(v), 0);
	assert_int_equal(zn_socket_close(u), 0);
}

/* ---- a netdev passing between threads -------------------------------------- */

static unsigned violations;

static void count_violation(const char *what, const char *file, int line)
{
	(void)what, (void)file, (void)line;
	violations++;
}

/* A UDP exchange A -> B on a ring of the calling thread, then everything
 * closed: the thread lets go of both netdevs. */
static void *exchange(void *arg)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct sockaddr_in b = sin_of(n.ip_b, 0), name;
	char buf[64] = "x";
	int rx, tx, res[2] = { 1, 1 };

	(void)arg;
	if (io_uring_queue_init(8, &ring, 0))
		return (void *)1;
	rx = zn_socket(AF_INET, SOCK_DGRAM, 0);
	tx = zn_socket(AF_INET, SOCK_DGRAM, 0);
	if (zn_bind(rx, (struct sockaddr *)&b, sizeof(b)))
		return (void *)2;
	name = name_of(rx, false);
	if (zn_connect(tx, (struct sockaddr *)&name, sizeof(name)))
		return (void *)3;
	io_uring_prep_recv(io_uring_get_sqe(&ring), rx, buf, sizeof(buf), 0);
	io_uring_prep_send(io_uring_get_sqe(&ring), tx, "hello", 5, 0);
	io_uring_submit(&ring);
	for (int i = 0; i < 2; i++) {
		if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts))
			return (void *)4;
		res[i] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	zn_socket_close(tx);
	zn_socket_close(rx);
	io_uring_queue_exit(&ring);
	return res[0] == 5 && res[1] == 5 && !memcmp(buf, "hello", 5) ? NULL : (void *)5;
}

static void test_netdev_handoff(void **state)
{
	void (*old)(const char *, const char *, int) = zn_owner_violation;
	pthread_t t;
	void *rc;

	(void)state;
	violations = 0;
	zn_owner_violation = count_violation;
	assert_null(exchange(NULL));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_create(&t, NULL, exchange, NULL), 0);
		assert_int_equal(pthread_join(t, &rc), 0);
		assert_null(rc);
	}
	assert_null(exchange(NULL));
	zn_owner_violation = old;
	assert_int_equal(violations, 0);
}

static void *close_it(void *arg)
{
	return (void *)(intptr_t)zn_socket_close(*(int *)arg);
}

/* close(2) works from any thread: zcnic's closes on the owner's next pass,
 * and the port is free after it. */
static void test_close_other_thread(void **state)
{
	struct sockaddr_in a = sin_of(n.ip_a, htons(5480));
	struct __kernel_timespec ts = { .tv_nsec = 20 * 1000 * 1000 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	char buf[8];
	pthread_t t;
	void *rc;
	int u;

	(void)state;
	assert_int_equal(io_uring_queue_init(8, &ring, 0), 0);
	u = zn_socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(zn_bind(u, (struct sockaddr *)&a, sizeof(a)), 0);
	io_uring_prep_recv(io_uring_get_sqe(&ring), u, buf, sizeof(buf), 0);
	assert_int_equal(io_uring_submit(&ring), 1);	/* tied to this thread */
	assert_int_equal(pthread_create(&t, NULL, close_it, &u), 0);
	assert_int_equal(pthread_join(t, &rc), 0);
	assert_int_equal((intptr_t)rc, 0);
	/* the next pass closes it: the RECV ends -ECANCELED */
	assert_int_equal(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), 0);
	assert_int_equal(cqe->res, -ECANCELED);
	io_uring_cqe_seen(&ring, cqe);
	ERRNO_IS(zn_getsockname(u, (struct sockaddr *)&a, &(socklen_t){ sizeof(a) }), EBADF);
	u = zn_socket(AF_INET, SOCK_DGRAM, 0);
	a = sin_of(n.ip_a, htons(5480));
	assert_int_equal(zn_bind(u, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(zn_socket_close(u), 0);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tcp_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_udp_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netdev_handoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_other_thread, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
