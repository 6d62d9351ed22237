/* SPDX-License-Identifier: MIT */
/*
 * Socket set-up and data ops through the ring, written with liburing names
 * only (after the netdevs are open): SOCKET, BIND, LISTEN, CONNECT,
 * ACCEPT (single and multishot), SHUTDOWN, CLOSE, SEND, RECV, SENDMSG,
 * RECVMSG (also with provided buffers, and RECV multishot), on TCP and UDP, between two zcnic netdevs over an in-process
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
#include <unistd.h>
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
	int fd, ufd, pfd[2];
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

	/* not a socket (an open OS fd), nothing open there (fget fails); closes */
	assert_int_equal(pipe(pfd), 0);
	io_uring_prep_listen(sqe_ud(13), pfd[0], 1);
	assert_int_equal(res_of(13), -ENOTSOCK);
	close(pfd[0]);
	close(pfd[1]);
	io_uring_prep_listen(sqe_ud(13), 1 << 20, 1);
	assert_int_equal(res_of(13), -EBADF);
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
		/* whole: a copied stream send takes up to three bounce buffers
		 * (3 x 1472 bytes at MTU 1500), the iovecs split across them */
		assert_int_equal(rc, (int)k);
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

/* Stream sends and MSG_WAITALL receives whole, as io_uring's done_io:
 * a 64 KiB SEND and a SENDMSG of five iovecs complete with their lengths
 * (far beyond one send slot); a RECV with MSG_WAITALL of 10000 bytes
 * completes with 10000 though they come in small sends; EOF and a reset
 * mid-request end it with the bytes received. */
static void test_tcp_waitall(void **state)
{
	static uint8_t tx[65536], rx[65536];
	struct iovec v[5];
	struct msghdr m = { .msg_iov = v, .msg_iovlen = 5 };
	uint32_t got = 0;
	int lfd, afd, bfd, rc;

	(void)state;
	for (uint32_t i = 0; i < sizeof(tx); i++)
		tx[i] = pat(i * 7);
	lfd = listener(PORT + 5);
	connect_pair(lfd, PORT + 5, &afd, &bfd);
	assert_int_equal(ring_send(bfd, tx, sizeof(tx)), (int)sizeof(tx));
	while (got < sizeof(tx)) {
		rc = ring_recv(afd, rx + got, sizeof(rx) - got);
		assert_true(rc > 0);
		got += (uint32_t)rc;
	}
	assert_memory_equal(rx, tx, sizeof(tx));
	/* five iovecs, read in batches: 5 x 6000 bytes */
	for (uint32_t i = 0; i < 5; i++)
		v[i] = (struct iovec){ tx + i * 6000, 6000 };
	io_uring_prep_sendmsg(sqe_ud(60), bfd, &m, 0);
	assert_int_equal(res_of(60), 30000);
	/* WAITALL into the iovecs of a RECVMSG: all 30000 */
	memset(rx, 0, sizeof(rx));
	for (uint32_t i = 0; i < 5; i++)
		v[i] = (struct iovec){ rx + i * 6000, 6000 };
	io_uring_prep_recvmsg(sqe_ud(61), afd, &m, MSG_WAITALL);
	assert_int_equal(res_of(61), 30000);
	assert_memory_equal(rx, tx, 30000);

	/* WAITALL of 10000, armed first, fed 100 sends of 100 bytes */
	memset(rx, 0, sizeof(rx));
	io_uring_prep_recv(sqe_ud(62), afd, rx, 10000, MSG_WAITALL);
	io_uring_submit(&ring);
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(ring_send(bfd, tx + i * 100, 100), 100);
	assert_int_equal(res_of(62), 10000);
	assert_memory_equal(rx, tx, 10000);

	/* EOF mid-WAITALL: the 300 bytes that came */
	io_uring_prep_recv(sqe_ud(63), afd, rx, 10000, MSG_WAITALL);
	io_uring_submit(&ring);
	assert_int_equal(ring_send(bfd, tx, 300), 300);
	assert_int_equal(ring_shutdown(bfd, SHUT_WR), 0);
	assert_int_equal(res_of(63), 300);
	assert_int_equal(ring_recv(afd, rx, 10), 0);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(ring_close(bfd), 0);

	/* a reset mid-WAITALL (a new pair): the 200 bytes, the error taken,
	 * then EOF */
	connect_pair(lfd, PORT + 5, &afd, &bfd);
	io_uring_prep_recv(sqe_ud(64), bfd, rx, 10000, MSG_WAITALL);
	io_uring_submit(&ring);
	assert_int_equal(ring_send(afd, tx, 200), 200);
	/* A reads 1 of 2 bytes and closes with the other unread: RST */
	assert_int_equal(ring_send(bfd, tx, 2), 2);
	assert_int_equal(ring_recv(afd, rx + 9000, 1), 1);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(res_of(64), 200);
	assert_int_equal(ring_recv(bfd, rx, 10), 0);
	assert_int_equal(ring_close(bfd), 0);
	assert_int_equal(ring_close(lfd), 0);
}

/* No CQE arrives within ms (the ring still polls both netdevs). */
static void assert_no_cqe(unsigned ms)
{
	struct __kernel_timespec ts = { .tv_nsec = (long)ms * 1000000L };
	struct io_uring_cqe *cqe;

	io_uring_submit(&ring);
	assert_int_equal(nstash, 0);
	assert_int_equal(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), -ETIME);
}

/* MSG_MORE on TCP (tcp_sendmsg): a runt waits for the send without it;
 * full segments go at once; SEND_ZC's notification comes after the ACK. */
static void test_tcp_msg_more(void **state)
{
	static uint8_t tx[4000], rx[4000];
	int lfd, afd, bfd;
	uint32_t got = 0;
	struct got g;

	(void)state;
	for (uint32_t i = 0; i < sizeof(tx); i++)
		tx[i] = pat(i + 5);
	lfd = listener(PORT + 4);
	connect_pair(lfd, PORT + 4, &afd, &bfd);
	io_uring_prep_send(sqe_ud(50), bfd, tx, 3, MSG_MORE);
	assert_int_equal(res_of(50), 3);
	io_uring_prep_send_zc(sqe_ud(51), bfd, tx + 3, 4, MSG_MORE, 0);
	g = wait_ud(51);
	assert_int_equal(g.res, 4);
	assert_int_equal(g.flags, IORING_CQE_F_MORE);
	io_uring_prep_recv(sqe_ud(52), afd, rx, sizeof(rx), 0);
	assert_no_cqe(50);	/* held: no segment, no ACK, no notification */
	io_uring_prep_send(sqe_ud(53), bfd, tx + 7, 5, 0);
	assert_int_equal(res_of(53), 5);
	/* the three sends travel as one segment */
	assert_int_equal(res_of(52), 12);
	assert_memory_equal(rx, tx, 12);
	g = wait_ud(51);
	assert_int_equal(g.flags, IORING_CQE_F_NOTIF);

	/* 3000 bytes with MSG_MORE (a copied send is short: one bounce
	 * buffer each): the full segments go, the rest waits */
	for (uint32_t sent = 0, i = 0; sent < 3000 && i < 10; i++) {
		int rc;

		io_uring_prep_send(sqe_ud(54), bfd, tx + sent, 3000 - sent, MSG_MORE);
		rc = res_of(54);
		assert_true(rc > 0);
		sent += (uint32_t)rc;
		if (sent == 3000)
			break;
		assert_true(i < 9);
	}
	while (got < 2000) {
		io_uring_prep_recv(sqe_ud(55), afd, rx + got, sizeof(rx) - got, 0);
		g = wait_ud(55);
		assert_true(g.res > 0);
		got += (uint32_t)g.res;
	}
	assert_true(got < 3000);
	io_uring_prep_recv(sqe_ud(56), afd, rx + got, sizeof(rx) - got, 0);
	assert_no_cqe(50);
	assert_int_equal(ring_send(bfd, tx + 3000, 1), 1);
	g = wait_ud(56);
	assert_int_equal(g.res, 3001 - got);
	assert_memory_equal(rx, tx, 3001);
	assert_int_equal(ring_close(afd), 0);
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

/* ---- provided buffers (IOSQE_BUFFER_SELECT) and RECV multishot ---- */

#define KB_LEN	64

static void provide(void *base, int len, int nr, int bgid, int bid0)
{
	io_uring_prep_provide_buffers(sqe_ud(110), base, len, nr, bgid, bid0);
	assert_int_equal(res_of(110), 0);
}

static struct io_uring_sqe *recv_bsel(uint64_t ud, int fd, size_t len, int bgid, unsigned ioprio)
{
	struct io_uring_sqe *sqe = sqe_ud(ud);

	io_uring_prep_recv(sqe, fd, NULL, len, 0);
	sqe->ioprio |= ioprio;
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = (__u16)bgid;
	return sqe;
}

/* A completion that names buffer bid and holds len bytes equal to want. */
static void got_buf(struct got g, int len, unsigned bid, const uint8_t *buf, const void *want)
{
	assert_int_equal(g.res, len);
	assert_true(g.flags & IORING_CQE_F_BUFFER);
	assert_int_equal(g.flags >> IORING_CQE_BUFFER_SHIFT, bid);
	assert_memory_equal(buf, want, (size_t)len);
}

static void udp_pair(uint16_t port, int *afd, int *bfd)
{
	struct sockaddr_in a = sin_of(n.ip_a, port);

	*afd = ring_socket(SOCK_DGRAM, IPPROTO_UDP);
	*bfd = ring_socket(SOCK_DGRAM, 0);
	assert_int_equal(ring_bind(*afd, &a, sizeof(a)), 0);
	io_uring_prep_connect(sqe_ud(111), *bfd, (struct sockaddr *)&a, sizeof(a));
	assert_int_equal(res_of(111), 0);
}

static void test_kbuf_udp_legacy(void **state)
{
	static uint8_t pool[4 * KB_LEN], dg[3][100];
	struct io_uring_sqe *sqe;
	struct got g;
	int afd, bfd;

	(void)state;
	for (unsigned i = 0; i < 3; i++)
		for (unsigned j = 0; j < sizeof(dg[i]); j++)
			dg[i][j] = pat(i * 1000 + j);
	udp_pair(PORT + 4, &afd, &bfd);
	/* no group: -ENOBUFS at once, as the kernel selects before it looks */
	recv_bsel(60, afd, 0, 1, 0);
	assert_int_equal(res_of(60), -ENOBUFS);
	/* the kernel's prep rules: FIXED_BUF or BUNDLE with it, MULTISHOT without it */
	recv_bsel(61, afd, 0, 1, IORING_RECVSEND_FIXED_BUF);
	assert_int_equal(res_of(61), -EINVAL);
	recv_bsel(61, afd, 0, 1, IORING_RECVSEND_BUNDLE);
	assert_int_equal(res_of(61), -EINVAL);
	io_uring_prep_recv_multishot(sqe_ud(61), afd, pool, 0, 0);
	assert_int_equal(res_of(61), -EINVAL);
	sqe = sqe_ud(61);
	io_uring_prep_recv_multishot(sqe, afd, NULL, 0, MSG_WAITALL);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	assert_int_equal(res_of(61), -EINVAL);

	provide(pool, KB_LEN, 3, 1, 10);
	/* a RECV waiting with buffers in the group takes one when data comes */
	recv_bsel(62, afd, 0, 1, 0);
	assert_int_equal(ring_send(bfd, dg[0], 20), 20);
	got_buf(wait_ud(62), 20, 10, pool, dg[0]);
	/* data there: 64 fills bid 11; 100 is cut to bid 12's 64 bytes */
	assert_int_equal(ring_send(bfd, dg[1], 64), 64);
	assert_int_equal(ring_send(bfd, dg[2], 100), 100);
	recv_bsel(63, afd, 0, 1, 0);
	got_buf(wait_ud(63), 64, 11, pool + KB_LEN, dg[1]);
	recv_bsel(64, afd, 0, 1, 0);
	got_buf(wait_ud(64), 64, 12, pool + 2 * KB_LEN, dg[2]);
	/* the group is empty: the datagram there stays queued */
	assert_int_equal(ring_send(bfd, dg[0], 30), 30);
	recv_bsel(65, afd, 0, 1, 0);
	g = wait_ud(65);
	assert_int_equal(g.res, -ENOBUFS);
	assert_int_equal(g.flags, 0);
	provide(pool + 3 * KB_LEN, KB_LEN, 1, 1, 7);
	/* len caps the buffer: 8 of the 30 bytes */
	recv_bsel(66, afd, 8, 1, 0);
	got_buf(wait_ud(66), 8, 7, pool + 3 * KB_LEN, dg[0]);
	/* RECVMSG: the one iovec's length caps the buffer; the source is written */
	{
		struct sockaddr_in from = { 0 };
		struct iovec v = { NULL, 16 };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
				    .msg_iov = &v, .msg_iovlen = 1 };

		provide(pool, KB_LEN, 1, 1, 3);
		assert_int_equal(ring_send(bfd, dg[1], 40), 40);
		sqe = sqe_ud(67);
		io_uring_prep_recvmsg(sqe, afd, &m, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = 1;
		got_buf(wait_ud(67), 16, 3, pool, dg[1]);
		assert_int_equal(m.msg_flags, MSG_TRUNC);
		assert_int_equal(from.sin_addr.s_addr, n.ip_b);
		assert_null(v.iov_base);	/* the user's iovec is left alone */
		/* more than one iovec: -EINVAL; RECVMSG multishot (test_recvmsg_multishot)
		 * selects first: the empty group, -ENOBUFS */
		m.msg_iovlen = 2;
		sqe = sqe_ud(68);
		io_uring_prep_recvmsg(sqe, afd, &m, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		assert_int_equal(res_of(68), -EINVAL);
		m.msg_iovlen = 1;
		sqe = sqe_ud(68);
		io_uring_prep_recvmsg(sqe, afd, &m, 0);
		sqe->ioprio |= IORING_RECV_MULTISHOT;
		sqe->flags |= IOSQE_BUFFER_SELECT;
		assert_int_equal(res_of(68), -ENOBUFS);
	}
	/* a 0-byte datagram: res 0, no buffer named, the buffer is first again */
	provide(pool, KB_LEN, 2, 9, 40);
	assert_int_equal(ring_send(bfd, dg[0], 0), 0);
	recv_bsel(69, afd, 0, 9, 0);
	g = wait_ud(69);
	assert_int_equal(g.res, 0);
	assert_int_equal(g.flags, 0);
	assert_int_equal(ring_send(bfd, dg[1], 5), 5);
	recv_bsel(69, afd, 0, 9, 0);
	got_buf(wait_ud(69), 5, 40, pool, dg[1]);
	/* ... and it ends a multishot, as in Linux (res 0, no F_MORE) */
	recv_bsel(69, afd, 0, 9, IORING_RECV_MULTISHOT);
	assert_int_equal(ring_send(bfd, dg[0], 0), 0);
	g = wait_ud(69);
	assert_int_equal(g.res, 0);
	assert_int_equal(g.flags, 0);
	/* an armed multishot cancelled: -ECANCELED, no F_MORE; bid 41 unused */
	recv_bsel(69, afd, 0, 9, IORING_RECV_MULTISHOT);
	io_uring_prep_cancel64(sqe_ud(112), 69, 0);
	assert_int_equal(res_of(112), 0);
	g = wait_ud(69);
	assert_int_equal(g.res, -ECANCELED);
	assert_int_equal(g.flags, 0);
	io_uring_prep_remove_buffers(sqe_ud(113), 8, 9);
	assert_int_equal(res_of(113), 1);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(ring_close(bfd), 0);
}

static void test_kbuf_udp_ring_multishot(void **state)
{
	static uint8_t bufs[4][128], dg[6][128];
	struct io_uring_buf_ring *br;
	int afd, bfd, ret, mask = io_uring_buf_ring_mask(8);
	struct got g;

	(void)state;
	for (unsigned i = 0; i < 6; i++)
		for (unsigned j = 0; j < sizeof(dg[i]); j++)
			dg[i][j] = pat(i * 7777 + j);
	udp_pair(PORT + 6, &afd, &bfd);
	br = io_uring_setup_buf_ring(&ring, 8, 2, 0, &ret);
	assert_non_null(br);
	for (int i = 0; i < 4; i++)
		io_uring_buf_ring_add(br, bufs[i], sizeof(bufs[i]), (unsigned short)(20 + i), mask, i);
	io_uring_buf_ring_advance(br, 4);
	recv_bsel(70, afd, 0, 2, IORING_RECV_MULTISHOT);
	/* one CQE per datagram, F_MORE, the ring's buffers in order */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ring_send(bfd, dg[i], 50 + i), 50 + i);
		g = wait_ud(70);
		got_buf(g, 50 + i, (unsigned)(20 + i), bufs[i], dg[i]);
		assert_true(g.flags & IORING_CQE_F_MORE);
	}
	/* dry: the next datagram ends it, -ENOBUFS without F_MORE */
	assert_int_equal(ring_send(bfd, dg[4], 77), 77);
	g = wait_ud(70);
	assert_int_equal(g.res, -ENOBUFS);
	assert_int_equal(g.flags, 0);
	/* the datagram was kept: a buffer given back gets it */
	io_uring_buf_ring_add(br, bufs[1], sizeof(bufs[1]), 21, mask, 0);
	io_uring_buf_ring_advance(br, 1);
	recv_bsel(71, afd, 0, 2, 0);
	got_buf(wait_ud(71), 77, 21, bufs[1], dg[4]);
	/* the byte budget (optlen): the CQE that spends it is the last */
	for (int i = 0; i < 3; i++)
		io_uring_buf_ring_add(br, bufs[i], sizeof(bufs[i]), (unsigned short)(30 + i), mask, i);
	io_uring_buf_ring_advance(br, 3);
	recv_bsel(72, afd, 0, 2, IORING_RECV_MULTISHOT)->optlen = 150;
	assert_int_equal(ring_send(bfd, dg[5], 100), 100);
	g = wait_ud(72);
	got_buf(g, 100, 30, bufs[0], dg[5]);
	assert_true(g.flags & IORING_CQE_F_MORE);
	assert_int_equal(ring_send(bfd, dg[0], 120), 120);
	g = wait_ud(72);
	got_buf(g, 50, 31, bufs[1], dg[0]);	/* cut to the 50 left */
	assert_false(g.flags & IORING_CQE_F_MORE);
	assert_int_equal(io_uring_free_buf_ring(&ring, br, 8, 2), 0);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(ring_close(bfd), 0);
}

/* RECVMSG multishot: io_uring_recvmsg_out, the name, the payload per buffer */
static void test_recvmsg_multishot(void **state)
{
	static uint8_t bufs[3][128], small[20], dg[120];
	struct msghdr mh = { .msg_namelen = sizeof(struct sockaddr_in) };
	struct io_uring_recvmsg_out *o;
	struct sockaddr_in *from;
	struct io_uring_sqe *sqe;
	struct got g;
	int afd, bfd;

	(void)state;
	for (unsigned j = 0; j < sizeof(dg); j++)
		dg[j] = pat(j + 99);
	udp_pair(PORT + 9, &afd, &bfd);
	/* prep rules: multishot needs BUFFER_SELECT and refuses MSG_WAITALL */
	io_uring_prep_recvmsg_multishot(sqe_ud(80), afd, &mh, 0);
	assert_int_equal(res_of(80), -EINVAL);
	sqe = sqe_ud(81);
	io_uring_prep_recvmsg_multishot(sqe, afd, &mh, MSG_WAITALL);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 5;
	assert_int_equal(res_of(81), -EINVAL);
	/* a buffer that cannot hold header + name: -EFAULT at once */
	provide(small, sizeof(small), 1, 6, 0);
	sqe = sqe_ud(82);
	io_uring_prep_recvmsg_multishot(sqe, afd, &mh, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 6;
	assert_int_equal(res_of(82), -EFAULT);

	provide(bufs, sizeof(bufs[0]), 3, 5, 0);
	sqe = sqe_ud(83);
	io_uring_prep_recvmsg_multishot(sqe, afd, &mh, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 5;
	assert_int_equal(ring_send(bfd, "hello", 5), 5);
	g = wait_ud(83);
	assert_int_equal(g.res, 16 + 16 + 5);
	assert_int_equal(g.flags, IORING_CQE_F_BUFFER | IORING_CQE_F_MORE);	/* bid 0 */
	o = io_uring_recvmsg_validate(bufs[0], g.res, &mh);
	assert_non_null(o);
	assert_int_equal(o->namelen, sizeof(struct sockaddr_in));
	assert_int_equal(o->controllen, 0);
	assert_int_equal(o->payloadlen, 5);
	assert_int_equal(o->flags, 0);
	from = io_uring_recvmsg_name(o);
	assert_int_equal(from->sin_family, AF_INET);
	assert_int_equal(from->sin_addr.s_addr, n.ip_b);
	assert_null(io_uring_recvmsg_cmsg_firsthdr(o, &mh));
	assert_int_equal(io_uring_recvmsg_payload_length(o, g.res, &mh), 5);
	assert_memory_equal(io_uring_recvmsg_payload(o, &mh), "hello", 5);
	/* longer than the 96 bytes of payload room: cut, MSG_TRUNC */
	assert_int_equal(ring_send(bfd, dg, sizeof(dg)), (int)sizeof(dg));
	g = wait_ud(83);
	assert_int_equal(g.res, 128);
	assert_int_equal(g.flags, IORING_CQE_F_BUFFER | IORING_CQE_F_MORE |
			 (1u << IORING_CQE_BUFFER_SHIFT));
	o = io_uring_recvmsg_validate(bufs[1], g.res, &mh);
	assert_non_null(o);
	assert_int_equal(o->payloadlen, 96);
	assert_int_equal(o->flags, MSG_TRUNC);
	assert_memory_equal(io_uring_recvmsg_payload(o, &mh), dg, 96);
	/* an empty datagram ends it (0 bytes of payload, no F_MORE) */
	assert_int_equal(ring_send(bfd, "", 0), 0);
	g = wait_ud(83);
	assert_int_equal(g.res, 32);
	assert_int_equal(g.flags, IORING_CQE_F_BUFFER | (2u << IORING_CQE_BUFFER_SHIFT));
	o = io_uring_recvmsg_validate(bufs[2], g.res, &mh);
	assert_int_equal(o->payloadlen, 0);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(ring_close(bfd), 0);
}

#define KB_XFER	(40u * 1000u)
#define KB_TCPB	1000u
#define KB_NBUF	64

static void test_kbuf_tcp(void **state)
{
	static uint8_t tx[KB_XFER], rx[KB_XFER], bufs[KB_NBUF][KB_TCPB], pool[2][100];
	struct __kernel_timespec ts = { .tv_sec = WAIT_S };
	struct io_uring_buf_ring *br;
	struct io_uring_cqe *cqe;
	int lfd, afd, bfd, ret, mask = io_uring_buf_ring_mask(KB_NBUF);
	uint32_t sent = 0, got = 0, cqes = 0;
	bool sending = false, shut = false, eof = false;
	struct got g;

	(void)state;
	for (uint32_t i = 0; i < KB_XFER; i++)
		tx[i] = pat(i + 13);
	lfd = listener(PORT + 7);
	connect_pair(lfd, PORT + 7, &afd, &bfd);
	/* legacy group: single RECVs, then a multishot that runs dry */
	recv_bsel(80, afd, 0, 4, 0);
	assert_int_equal(res_of(80), -ENOBUFS);
	provide(pool, 100, 2, 4, 0);
	assert_int_equal(ring_send(bfd, tx, 60), 60);
	recv_bsel(81, afd, 0, 4, 0);
	got_buf(wait_ud(81), 60, 0, pool[0], tx);
	provide(pool[0], 100, 1, 4, 5);
	assert_int_equal(ring_send(bfd, tx + 60, 500), 500);
	recv_bsel(82, afd, 0, 4, IORING_RECV_MULTISHOT);
	g = wait_ud(82);
	got_buf(g, 100, 1, pool[1], tx + 60);
	assert_true(g.flags & IORING_CQE_F_MORE);
	g = wait_ud(82);
	got_buf(g, 100, 5, pool[0], tx + 160);
	assert_true(g.flags & IORING_CQE_F_MORE);
	g = wait_ud(82);
	assert_int_equal(g.res, -ENOBUFS);
	assert_int_equal(g.flags, 0);
	/* nothing was lost: the rest is still there */
	assert_int_equal(ring_recv(afd, rx, 300), 300);
	assert_memory_equal(rx, tx + 260, 300);
	/* an incremental ring: one entry, used bit by bit (F_BUF_MORE) */
	br = io_uring_setup_buf_ring(&ring, 1, 6, IOU_PBUF_RING_INC, &ret);
	assert_non_null(br);
	io_uring_buf_ring_add(br, bufs[0], KB_TCPB, 3, io_uring_buf_ring_mask(1), 0);
	io_uring_buf_ring_advance(br, 1);
	assert_int_equal(ring_send(bfd, tx, 300), 300);
	recv_bsel(86, afd, 0, 6, 0);
	g = wait_ud(86);
	got_buf(g, 300, 3, bufs[0], tx);
	assert_true(g.flags & IORING_CQE_F_BUF_MORE);
	assert_int_equal(ring_send(bfd, tx + 300, 200), 200);
	recv_bsel(86, afd, 0, 6, 0);
	g = wait_ud(86);
	got_buf(g, 200, 3, bufs[0] + 300, tx + 300);
	assert_true(g.flags & IORING_CQE_F_BUF_MORE);
	assert_int_equal(io_uring_free_buf_ring(&ring, br, 1, 6), 0);

	/* ring-mapped group, multishot across the whole stream until EOF; each
	 * buffer goes back to the ring once its bytes are checked (the ring
	 * holds more than the TCP window: one poll pass may fill many) */
	br = io_uring_setup_buf_ring(&ring, KB_NBUF, 5, 0, &ret);
	assert_non_null(br);
	for (int i = 0; i < KB_NBUF; i++)
		io_uring_buf_ring_add(br, bufs[i], KB_TCPB, (unsigned short)i, mask, i);
	io_uring_buf_ring_advance(br, KB_NBUF);
	recv_bsel(83, afd, 0, 5, IORING_RECV_MULTISHOT);
	io_uring_submit(&ring);
	while (!eof) {
		if (!sending && sent < KB_XFER) {
			uint32_t k = KB_XFER - sent < 3000 ? KB_XFER - sent : 3000;

			io_uring_prep_send(sqe_ud(84), bfd, tx + sent, k, 0);
			sending = true;
		} else if (!sending && !shut) {
			io_uring_prep_shutdown(sqe_ud(85), bfd, SHUT_WR);
			shut = true;
		}
		io_uring_submit(&ring);
		assert_int_equal(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), 0);
		g = (struct got){ cqe->user_data, cqe->res, cqe->flags };
		io_uring_cqe_seen(&ring, cqe);
		if (g.ud == 84) {
			assert_true(g.res > 0);
			sent += (uint32_t)g.res;
			sending = false;
		} else if (g.ud == 85) {
			assert_int_equal(g.res, 0);
		} else {
			unsigned bid = g.flags >> IORING_CQE_BUFFER_SHIFT;

			assert_int_equal(g.ud, 83);
			if (g.res == 0) {
				assert_false(g.flags & IORING_CQE_F_MORE);
				eof = true;
				continue;
			}
			assert_true(g.res > 0 && g.res <= (int)KB_TCPB);
			assert_true(g.flags & IORING_CQE_F_MORE);
			assert_true(g.flags & IORING_CQE_F_BUFFER);
			assert_int_equal(bid, cqes % KB_NBUF);	/* the ring's order */
			assert_true(got + (uint32_t)g.res <= KB_XFER);
			memcpy(rx + got, bufs[bid], (size_t)g.res);
			got += (uint32_t)g.res;
			cqes++;
			io_uring_buf_ring_add(br, bufs[bid], KB_TCPB, (unsigned short)bid, mask, 0);
			io_uring_buf_ring_advance(br, 1);
		}
	}
	assert_int_equal(got, KB_XFER);
	assert_int_equal(sent, KB_XFER);
	assert_memory_equal(rx, tx, KB_XFER);
	assert_true(cqes >= KB_XFER / KB_TCPB);
	assert_int_equal(io_uring_free_buf_ring(&ring, br, KB_NBUF, 5), 0);
	/* at EOF: res 0 and the buffer goes back (REMOVE finds it) */
	provide(pool, 100, 1, 4, 9);
	recv_bsel(87, afd, 0, 4, 0);
	g = wait_ud(87);
	assert_int_equal(g.res, 0);
	assert_int_equal(g.flags, 0);
	io_uring_prep_remove_buffers(sqe_ud(113), 8, 4);
	assert_int_equal(res_of(113), 1);
	assert_int_equal(ring_close(afd), 0);
	assert_int_equal(ring_close(bfd), 0);
	assert_int_equal(ring_close(lfd), 0);
}

/* The compat header's recvmsg-out helpers at their edges (liburing's). */
static void test_recvmsg_out_edges(void **state)
{
	unsigned char buf[64] = { 0 };
	struct io_uring_recvmsg_out *o = (void *)buf;
	struct msghdr mh = { .msg_namelen = 4, .msg_controllen = 8 };

	(void)state;
	assert_non_null(io_uring_recvmsg_validate(buf, 28, &mh));	/* exact fit */
	assert_null(io_uring_recvmsg_validate(buf, 27, &mh));
	assert_null(io_uring_recvmsg_validate(buf, -1, &mh));
	mh.msg_controllen = (socklen_t)~0u - 16;			/* would wrap */
	assert_null(io_uring_recvmsg_validate(buf, 64, &mh));
	mh.msg_controllen = 8;
	assert_int_equal(io_uring_recvmsg_payload_length(o, 64, &mh), 36);
	assert_int_equal(io_uring_recvmsg_payload_length(o, -1, &mh), 0);
	mh.msg_namelen = 40;
	mh.msg_controllen = 30;					/* past the buffer */
	assert_int_equal(io_uring_recvmsg_payload_length(o, 64, &mh), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_socket_and_bind_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_connect_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_waitall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_msg_more, setup, teardown),
		cmocka_unit_test_setup_teardown(test_udp_msg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kbuf_udp_legacy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kbuf_udp_ring_multishot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kbuf_tcp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recvmsg_multishot, setup, teardown),
		cmocka_unit_test(test_recvmsg_out_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
