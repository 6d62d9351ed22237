/* SPDX-License-Identifier: MIT */
/*
 * Socket set-up and data ops through the ring, written with liburing names
 * only (after the netdevs are open): SOCKET, BIND, LISTEN, CONNECT,
 * ACCEPT (single and multishot), SHUTDOWN, CLOSE, SEND, RECV, SENDMSG,
 * RECVMSG, on TCP and UDP, between two zcnic netdevs over an in-process
 * zn-nicsim pair (tests/unit/support/netdev_pair.c). Every result and error
 * code is the one Linux gives for the same call (io_uring/net.c and the
 * socket layer under it), except where core/sock/op_sock.c names a
 * departure. One ring drives both ends; its polls run both netdevs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "tests/unit/support/netdev_pair.h"

#define PORT		5400
#define WAIT_S		30
#define XFER		(300u * 1000u)
#define STASH		64

struct got {
	uint64_t ud;
	int32_t res;
	uint32_t flags;
};

static struct ndp n;
static struct io_uring ring;
static struct got stash[STASH];
static unsigned nstash;

static int setup(void **state)
{
	(void)state;
	if (ndp_open(&n, "") || ndp_resolve(&n, 3000))
		return -1;
	nstash = 0;
	return io_uring_queue_init(64, &ring, 0);
}

static int teardown(void **state)
{
	(void)state;
	io_uring_queue_exit(&ring);
	ndp_close(&n);
	return 0;
}

static struct io_uring_sqe *sqe_ud(uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	assert_non_null(sqe);
	io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

/* Submit what is queued; the CQE of ud (others wait in the stash). */
static struct got wait_ud(uint64_t ud)
{
	struct __kernel_timespec ts = { .tv_sec = WAIT_S };
	struct io_uring_cqe *cqe;
	struct got g;

	io_uring_submit(&ring);
	for (;;) {
		for (unsigned i = 0; i < nstash; i++)
			if (stash[i].ud == ud) {
				g = stash[i];
				stash[i] = stash[--nstash];
				return g;
			}
		assert_int_equal(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), 0);
		assert_true(nstash < STASH);
		stash[nstash++] = (struct got){ cqe->user_data, cqe->res, cqe->flags };
		io_uring_cqe_seen(&ring, cqe);
	}
}

static int32_t res_of(uint64_t ud)
{
	return wait_ud(ud).res;
}

static struct sockaddr_in sin_of(uint32_t ip, uint16_t port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port),
				     .sin_addr.s_addr = ip };
}

static int ring_socket(int type, int proto)
{
	io_uring_prep_socket(sqe_ud(100), AF_INET, type, proto, 0);
	return res_of(100);
}

static int ring_bind(int fd, struct sockaddr_in *sa, socklen_t len)
{
	io_uring_prep_bind(sqe_ud(101), fd, (struct sockaddr *)sa, len);
	return res_of(101);
}

static int ring_close(int fd)
{
	io_uring_prep_close(sqe_ud(102), fd);
	return res_of(102);
}

static int ring_shutdown(int fd, int how)
{
	io_uring_prep_shutdown(sqe_ud(103), fd, how);
	return res_of(103);
}

static int ring_recv(int fd, void *buf, size_t len)
{
	io_uring_prep_recv(sqe_ud(104), fd, buf, len, 0);
	return res_of(104);
}

static int ring_send(int fd, const void *buf, size_t len)
{
	io_uring_prep_send(sqe_ud(105), fd, buf, len, 0);
	return res_of(105);
}

/* A TCP listener on A:port through the ring. */
static int listener(uint16_t port)
{
	struct sockaddr_in sa = sin_of(n.ip_a, port);
	int fd = ring_socket(SOCK_STREAM, 0);

	assert_true(fd > 0);
	assert_int_equal(ring_bind(fd, &sa, sizeof(sa)), 0);
	io_uring_prep_listen(sqe_ud(106), fd, 8);
	assert_int_equal(res_of(106), 0);
	return fd;
}

/* B connects to A:port (no bind: the route picks B); A accepts. */
static void connect_pair(int lfd, uint16_t port, int *afd, int *bfd)
{
	struct sockaddr_in dst = sin_of(n.ip_a, port), peer;
	socklen_t plen = sizeof(peer);

	*bfd = ring_socket(SOCK_STREAM, IPPROTO_TCP);
	assert_true(*bfd > 0);
	io_uring_prep_accept(sqe_ud(107), lfd, (struct sockaddr *)&peer, &plen, 0);
	io_uring_prep_connect(sqe_ud(108), *bfd, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(108), 0);
	*afd = res_of(107);
	assert_true(*afd > 0);
	assert_int_equal(plen, sizeof(peer));
	assert_int_equal(peer.sin_family, AF_INET);
	assert_int_equal(peer.sin_addr.s_addr, n.ip_b);
	assert_true(peer.sin_port != 0);
}

static void test_socket_and_bind_errors(void **state)
{
	struct sockaddr_in sa = sin_of(n.ip_a, PORT);
	struct io_uring_sqe *sqe;
	int fd, ufd;
	char buf[8];

	(void)state;
	io_uring_prep_socket(sqe_ud(1), AF_INET6, SOCK_STREAM, 0, 0);
	assert_int_equal(res_of(1), -EAFNOSUPPORT);
	assert_int_equal(ring_socket(SOCK_RAW, 0), -ESOCKTNOSUPPORT);
	assert_int_equal(ring_socket(SOCK_STREAM, IPPROTO_UDP), -EPROTONOSUPPORT);
	assert_int_equal(ring_socket(SOCK_DGRAM, IPPROTO_TCP), -EPROTONOSUPPORT);
	assert_int_equal(ring_socket(11, 0), -EINVAL);			/* >= SOCK_MAX */
	assert_int_equal(ring_socket(SOCK_STREAM | 0x10000000, 0), -EINVAL);	/* unknown flag */
	sqe = sqe_ud(2);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM, 0, 1);	/* rw_flags must be 0 */
	assert_int_equal(res_of(2), -EINVAL);

	fd = ring_socket(SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(fd > 0);
	/* nothing yet: no netdev, not connected */
	assert_int_equal(ring_recv(fd, buf, sizeof(buf)), -ENOTCONN);
	assert_int_equal(ring_send(fd, "x", 1), -EPIPE);
	assert_int_equal(ring_shutdown(fd, SHUT_WR), -ENOTCONN);
	assert_int_equal(ring_shutdown(fd, 3), -EINVAL);
	io_uring_prep_listen(sqe_ud(3), fd, 1);
	assert_int_equal(res_of(3), -EDESTADDRREQ);
	io_uring_prep_accept(sqe_ud(4), fd, NULL, NULL, 0);
	assert_int_equal(res_of(4), -EINVAL);
	/* inet_bind's checks, in its order */
	assert_int_equal(ring_bind(fd, &sa, 8), -EINVAL);
	sa.sin_family = AF_INET6;
	assert_int_equal(ring_bind(fd, &sa, sizeof(sa)), -EAFNOSUPPORT);
	sa = sin_of(inet_addr("10.77.0.9"), PORT);
	assert_int_equal(ring_bind(fd, &sa, sizeof(sa)), -EADDRNOTAVAIL);
	sa = sin_of(n.ip_a, PORT);
	io_uring_prep_bind(sqe_ud(5), fd, (struct sockaddr *)&sa, 200);	/* > sockaddr_storage */
	assert_int_equal(res_of(5), -EINVAL);
	io_uring_prep_bind(sqe_ud(6), fd, (struct sockaddr *)8, sizeof(sa));	/* unreadable */
	assert_int_equal(res_of(6), -EFAULT);
	assert_int_equal(ring_bind(fd, &sa, sizeof(sa)), 0);
	assert_int_equal(ring_bind(fd, &sa, sizeof(sa)), -EINVAL);	/* bound already */
	/* ACCEPT's own checks: len, flags, ioprio */
	sqe = sqe_ud(7);
	io_uring_prep_accept(sqe, fd, NULL, NULL, 0x1);
	assert_int_equal(res_of(7), -EINVAL);
	sqe = sqe_ud(8);
	io_uring_prep_accept(sqe, fd, NULL, NULL, 0);
	sqe->ioprio = 0x80;
	assert_int_equal(res_of(8), -EINVAL);
	sqe = sqe_ud(9);
	io_uring_prep_accept(sqe, fd, NULL, NULL, 0);
	sqe->file_index = 1;	/* direct descriptors: not offered */
	assert_int_equal(res_of(9), -EINVAL);

	/* UDP: no listen, no accept; shutdown needs a peer */
	ufd = ring_socket(SOCK_DGRAM, 0);
	assert_true(ufd > 0);
	io_uring_prep_listen(sqe_ud(10), ufd, 1);
	assert_int_equal(res_of(10), -EOPNOTSUPP);
	io_uring_prep_accept(sqe_ud(11), ufd, NULL, NULL, 0);
	assert_int_equal(res_of(11), -EOPNOTSUPP);
	io_uring_prep_send(sqe_ud(12), ufd, "x", 1, 0);
	assert_int_equal(res_of(12), -EDESTADDRREQ);

	/* not a socket; closes */
	io_uring_prep_listen(sqe_ud(13), 1 << 20, 1);
	assert_int_equal(res_of(13), -ENOTSOCK);
	assert_int_equal(ring_close(fd), 0);
	assert_int_equal(ring_close(fd), -EBADF);
	sqe = sqe_ud(14);
	io_uring_prep_close(sqe, ufd);
	sqe->len = 1;
	assert_int_equal(res_of(14), -EINVAL);
	assert_int_equal(ring_close(ufd), 0);
}

static void test_tcp_connect_refused(void **state)
{
	struct sockaddr_in dst = sin_of(n.ip_a, PORT + 1);
	int fd = ring_socket(SOCK_STREAM, 0), lfd;

	(void)state;
	assert_true(fd > 0);
	/* a listener on another port of A, with an ACCEPT armed, so that the
	 * ring polls A too (A stands for the peer host here) */
	lfd = listener(PORT + 5);
	io_uring_prep_accept(sqe_ud(24), lfd, NULL, NULL, 0);
	io_uring_prep_connect(sqe_ud(20), fd, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(20), -ECONNREFUSED);
	/* the address checks of tcp_v4_connect */
	io_uring_prep_connect(sqe_ud(21), fd, (struct sockaddr *)&dst, 8);
	assert_int_equal(res_of(21), -EINVAL);
	dst.sin_family = AF_INET6;
	io_uring_prep_connect(sqe_ud(22), fd, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(22), -EAFNOSUPPORT);
	dst = sin_of(inet_addr("192.0.2.1"), PORT);	/* no route, no gateway */
	assert_int_equal(ring_close(fd), 0);
	fd = ring_socket(SOCK_STREAM, 0);
	io_uring_prep_connect(sqe_ud(23), fd, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(23), -ENETUNREACH);
	assert_int_equal(ring_close(fd), 0);
	assert_int_equal(ring_close(lfd), 0);
	assert_int_equal(res_of(24), -ECANCELED);
}

static inline uint8_t pat(uint64_t i)
{
	return (uint8_t)(i * 7 + (i >> 8));
}

static void test_tcp_stream(void **state)
{
	static uint8_t tx[XFER], rx[XFER];
	struct sockaddr_in dst = sin_of(n.ip_a, PORT), peer;
	socklen_t plen = sizeof(peer);
	int lfd, afd, bfd, b2;
	uint32_t sent = 0, got = 0;
	struct got g;
	char small[16];

	(void)state;
	for (uint32_t i = 0; i < XFER; i++)
		tx[i] = pat(i);
	lfd = listener(PORT);
	/* multishot ACCEPT: one CQE per connection, F_MORE while armed */
	io_uring_prep_multishot_accept(sqe_ud(30), lfd, (struct sockaddr *)&peer, &plen, 0);
	bfd = ring_socket(SOCK_STREAM, 0);
	b2 = ring_socket(SOCK_STREAM, 0);
	io_uring_prep_connect(sqe_ud(31), bfd, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(31), 0);
	g = wait_ud(30);
	afd = g.res;
	assert_true(afd > 0);
	assert_true(g.flags & IORING_CQE_F_MORE);
	assert_int_equal(peer.sin_addr.s_addr, n.ip_b);
	io_uring_prep_connect(sqe_ud(32), b2, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(32), 0);
	g = wait_ud(30);
	assert_true(g.res > 0 && g.res != afd);
	assert_true(g.flags & IORING_CQE_F_MORE);
	assert_int_equal(ring_close(g.res), 0);
	/* connected: again is -EISCONN; a listener cannot connect */
	io_uring_prep_connect(sqe_ud(33), bfd, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(33), -EISCONN);
	io_uring_prep_connect(sqe_ud(34), lfd, (struct sockaddr *)&dst, sizeof(dst));
	assert_int_equal(res_of(34), -EISCONN);
	io_uring_prep_listen(sqe_ud(35), bfd, 1);
	assert_int_equal(res_of(35), -EINVAL);

	/* B -> A: SENDMSG of two iovecs, SEND; A: RECVMSG and RECV, short reads */
	while (sent < XFER) {
		uint32_t k = XFER - sent < 3000 ? XFER - sent : 3000;
		struct iovec v[2] = { { tx + sent, k / 3 }, { tx + sent + k / 3, k - k / 3 } };
		struct msghdr m = { .msg_iov = v, .msg_iovlen = 2 };
		int rc;

		io_uring_prep_sendmsg(sqe_ud(36), bfd, &m, 0);
		rc = res_of(36);
		assert_true(rc > 0 && (uint32_t)rc <= k);
		sent += (uint32_t)rc;
	}
	assert_int_equal(ring_recv(afd, rx, 10), 10);	/* short: 10 of what is there */
	got = 10;
	while (got < XFER) {
		struct sockaddr_in from = { 0 };
		struct iovec v[2] = { { rx + got, 1000 }, { rx + got + 1000, XFER - got - 1000 } };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
				    .msg_iov = v, .msg_iovlen = 2, .msg_flags = -1 };
		int rc;

		if (XFER - got <= 1000)
			v[0].iov_len = XFER - got, m.msg_iovlen = 1;
		io_uring_prep_recvmsg(sqe_ud(37), afd, &m, 0);
		rc = res_of(37);
		assert_true(rc > 0);
		assert_int_equal(m.msg_namelen, 0);	/* a stream has no source address */
		assert_int_equal(m.msg_flags, 0);
		got += (uint32_t)rc;
	}
	assert_memory_equal(rx, tx, XFER);

	/* A shuts its write side: B sees EOF (0), A's sends -EPIPE; B still sends */
	assert_int_equal(ring_shutdown(afd, SHUT_WR), 0);
	assert_int_equal(ring_recv(bfd, small, sizeof(small)), 0);
	assert_int_equal(ring_send(afd, "x", 1), -EPIPE);
	assert_int_equal(ring_send(bfd, "hello", 5), 5);
	assert_int_equal(ring_recv(afd, small, sizeof(small)), 5);
	assert_memory_equal(small, "hello", 5);
	/* SHUT_RD: receives end with 0 at once */
	assert_int_equal(ring_shutdown(afd, SHUT_RD), 0);
	assert_int_equal(ring_recv(afd, small, sizeof(small)), 0);
	assert_int_equal(ring_shutdown(bfd, SHUT_WR), 0);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(ring_close(bfd), 0);
	assert_int_equal(ring_close(b2), 0);
	/* the listener closes under its multishot ACCEPT: the last CQE, no F_MORE */
	assert_int_equal(ring_close(lfd), 0);
	g = wait_ud(30);
	assert_int_equal(g.res, -ECANCELED);
	assert_false(g.flags & IORING_CQE_F_MORE);
}

static void test_tcp_reset(void **state)
{
	char buf[64];
	int lfd, afd, bfd;

	(void)state;
	lfd = listener(PORT + 2);
	connect_pair(lfd, PORT + 2, &afd, &bfd);
	/* 100 bytes to A; A reads 1 and closes with 99 unread: RST */
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(ring_send(bfd, buf, 50), 50);
	assert_int_equal(ring_send(bfd, buf, 50), 50);
	assert_int_equal(ring_recv(afd, buf, 1), 1);
	assert_int_equal(ring_close(afd), 0);
	/* B: the reset once, then EOF; sends -EPIPE */
	assert_int_equal(ring_recv(bfd, buf, sizeof(buf)), -ECONNRESET);
	assert_int_equal(ring_recv(bfd, buf, sizeof(buf)), 0);
	assert_int_equal(ring_send(bfd, "x", 1), -EPIPE);
	assert_int_equal(ring_close(bfd), 0);
	assert_int_equal(ring_close(lfd), 0);
}

static void test_udp_msg(void **state)
{
	struct sockaddr_in a = sin_of(n.ip_a, PORT + 3), from;
	char out1[] = "zero-copy ", out2[] = "network", in[64], tiny[4];
	struct iovec ov[2] = { { out1, 10 }, { out2, 7 } };
	struct msghdr om = { .msg_iov = ov, .msg_iovlen = 2 };
	struct iovec iv[2] = { { in, 5 }, { in + 5, sizeof(in) - 5 } };
	struct msghdr im = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = iv,
			     .msg_iovlen = 2 };
	int afd, bfd;

	(void)state;
	afd = ring_socket(SOCK_DGRAM, IPPROTO_UDP);
	bfd = ring_socket(SOCK_DGRAM, 0);
	assert_int_equal(ring_bind(afd, &a, sizeof(a)), 0);
	assert_int_equal(ring_shutdown(afd, SHUT_RDWR), -ENOTCONN);
	/* B: CONNECT binds it (route to A, an ephemeral port) */
	io_uring_prep_connect(sqe_ud(40), bfd, (struct sockaddr *)&a, sizeof(a));
	assert_int_equal(res_of(40), 0);
	io_uring_prep_recvmsg(sqe_ud(41), afd, &im, 0);
	io_uring_prep_sendmsg(sqe_ud(42), bfd, &om, 0);
	assert_int_equal(res_of(42), 17);
	assert_int_equal(res_of(41), 17);
	assert_memory_equal(in, "zero-copy network", 17);
	assert_int_equal(im.msg_namelen, sizeof(from));
	assert_int_equal(from.sin_family, AF_INET);
	assert_int_equal(from.sin_addr.s_addr, n.ip_b);
	assert_true(ntohs(from.sin_port) >= 32768);
	assert_int_equal(im.msg_flags, 0);
	/* a datagram longer than the buffer: cut, MSG_TRUNC in msg_flags */
	iv[0] = (struct iovec){ tiny, sizeof(tiny) };
	im.msg_iovlen = 1;
	im.msg_namelen = 2;	/* the address is cut too; its full length comes back */
	assert_int_equal(ring_send(bfd, "0123456789", 10), 10);
	io_uring_prep_recvmsg(sqe_ud(43), afd, &im, 0);
	assert_int_equal(res_of(43), 4);
	assert_memory_equal(tiny, "0123", 4);
	assert_int_equal(im.msg_flags, MSG_TRUNC);
	assert_int_equal(im.msg_namelen, sizeof(from));
	/* MSG_TRUNC asked: the real length */
	assert_int_equal(ring_send(bfd, "0123456789", 10), 10);
	io_uring_prep_recvmsg(sqe_ud(44), afd, &im, MSG_TRUNC);
	assert_int_equal(res_of(44), 10);
	assert_int_equal(ring_shutdown(bfd, SHUT_WR), 0);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(ring_close(bfd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_socket_and_bind_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_connect_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_udp_msg, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
