/* SPDX-License-Identifier: MIT */
/*
 * The BSD calls of include/zcnic/bsd.h: each one is the ring's own op
 * (op_sock.c) on a ring made for the call, submitted and waited for, so a
 * ported program's set-up follows the same rules as the SQEs it would
 * otherwise prepare. The sockets it touched stay with the thread's other
 * rings, or untied until a ring uses them (sock.c).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/sock/sock.h"
#include "zcnic/bsd.h"
#include "zcnic/uring.h"

/* The sockets this thread made with these calls (zn_socket, zn_accept):
 * each call's ring polls their netdevs, so a blocking CONNECT to a
 * listener of the same thread gets its SYN answered. */
#define BSD_SOCKS	64
#define BSD_DRAIN_S	3	/* a ring's exit waits as long for its sends */
static __thread int bsd_socks[BSD_SOCKS];
static __thread unsigned bsd_nsocks;

static void bsd_track(int fd)
{
	unsigned j = 0;

	for (unsigned i = 0; i < bsd_nsocks; i++)	/* drop the closed ones */
		if (zn_sock_from_handle(bsd_socks[i]))
			bsd_socks[j++] = bsd_socks[i];
	bsd_nsocks = j;
	if (bsd_nsocks < BSD_SOCKS)
		bsd_socks[bsd_nsocks++] = fd;
}

static void bsd_tie(struct zn_uring *r)
{
	for (unsigned i = 0; i < bsd_nsocks; i++) {
		struct zn_sock *s = zn_sock_from_handle(bsd_socks[i]);

		if (s && s->dev && !zn_sock_foreign(s))
			(void)zn_sock_bind(s, r);
	}
}

/* The call's ring is gone: a socket no other ring took may go to any
 * thread's ring next (an SQPOLL thread's, say), as sock.c's untied ones. */
static void bsd_untie(void)
{
	for (unsigned i = 0; i < bsd_nsocks; i++) {
		struct zn_sock *s = zn_sock_from_handle(bsd_socks[i]);

		if (s && !s->ring)
			zn_owner_reset(&s->owner);
	}
}

/*
 * A send(2) is done when its bytes are queued; here they are queued on a
 * ring that goes away with the call, and a ring's exit drains what its
 * sockets still have in flight (TCP: until the peer acknowledged), polling
 * only their own netdev. Drain it now, polling every netdev of the
 * thread's sockets (the peer may be one of them), as long as the ring's
 * exit would have waited.
 */
static void send_drain(struct zn_uring *r, int fd)
{
	struct zn_sock *s = zn_sock_from_handle(fd);
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (s && zn_sock_tx_inflight(s)) {
		zn_uring_get_events(r);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= BSD_DRAIN_S)
			break;
	}
}

/*
 * Run one SQE on a ring of its own: its CQE's res, or -errno. The ring
 * lives for the call only: once it is gone, nothing of this thread polls
 * a netdev it has no other ring on, so a netdev may pass to another
 * thread between calls (sock.c lets go of it).
 */
static int run_sqe(const struct io_uring_sqe *in)
{
	struct io_uring_params p = { 0 };
	struct zn_uring *r;
	struct zn_uring_map m;
	unsigned tail, head;
	int rc;

	rc = zn_uring_create(4, &p, &r);
	if (rc)
		return rc;
	bsd_tie(r);
	zn_uring_get_map(r, &m);
	tail = *m.sq_tail;
	m.sqes[tail & *m.sq_mask] = *in;
	m.sq_array[tail & *m.sq_mask] = tail & *m.sq_mask;
	atomic_store_explicit((_Atomic unsigned *)m.sq_tail, tail + 1, memory_order_release);
	for (;;) {
		rc = zn_uring_enter(r, 1, 1, IORING_ENTER_GETEVENTS, -1);
		if (rc < 0)
			goto out;
		head = *m.cq_head;
		if (atomic_load_explicit((_Atomic unsigned *)m.cq_tail, memory_order_acquire) != head)
			break;
	}
	rc = m.cqes[head & *m.cq_mask].res;
	if (rc > 0 && (in->opcode == IORING_OP_SOCKET || in->opcode == IORING_OP_ACCEPT))
		bsd_track(rc);
	if (rc > 0 && (in->opcode == IORING_OP_SEND || in->opcode == IORING_OP_SENDMSG))
		send_drain(r, in->fd);
out:
	zn_uring_destroy(r);
	bsd_untie();
	return rc;
}

static int ret_errno(int rc)
{
	if (rc >= 0)
		return rc;
	errno = -rc;
	return -1;
}

static int sock_op(uint8_t opcode, int fd, const void *addr, uint64_t addr2, uint32_t len,
		   uint32_t flags)
{
	struct io_uring_sqe sqe = { .opcode = opcode, .fd = fd,
				    .addr = (uint64_t)(uintptr_t)addr, .addr2 = addr2,
				    .len = len, .rw_flags = (int)flags };

	return ret_errno(run_sqe(&sqe));
}

/* Has the program opened a netdev itself? Then zn_socket needs no other. */
static bool netdev_open(void)
{
	for (int i = 1; i <= ZN_NETDEV_MAX; i++)
		if (zn_netdev_by_ifindex(i))
			return true;
	return false;
}

int zn_socket(int domain, int type, int protocol)
{
	struct io_uring_sqe sqe = { .opcode = IORING_OP_SOCKET, .fd = domain,
				    .off = (uint64_t)(uint32_t)type, .len = (uint32_t)protocol };

	if (!netdev_open() && !zn_env_netdev(0))
		return -1;
	return ret_errno(run_sqe(&sqe));
}

int zn_bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return sock_op(IORING_OP_BIND, fd, addr, len, 0, 0);
}

int zn_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	return sock_op(IORING_OP_CONNECT, fd, addr, len, 0, 0);
}

int zn_listen(int fd, int backlog)
{
	return sock_op(IORING_OP_LISTEN, fd, NULL, 0, (uint32_t)backlog, 0);
}

int zn_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	return sock_op(IORING_OP_ACCEPT, fd, addr, (uint64_t)(uintptr_t)len, 0, (uint32_t)flags);
}

int zn_accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return zn_accept4(fd, addr, len, 0);
}

int zn_shutdown(int fd, int how)
{
	return sock_op(IORING_OP_SHUTDOWN, fd, NULL, 0, (uint32_t)how, 0);
}

ssize_t zn_recv(int fd, void *buf, size_t len, int flags)
{
	return sock_op(IORING_OP_RECV, fd, buf, 0, (uint32_t)len, (uint32_t)flags);
}

ssize_t zn_send(int fd, const void *buf, size_t len, int flags)
{
	return sock_op(IORING_OP_SEND, fd, buf, 0, (uint32_t)len, (uint32_t)flags);
}

ssize_t zn_recvmsg(int fd, struct msghdr *msg, int flags)
{
	return sock_op(IORING_OP_RECVMSG, fd, msg, 0, 1, (uint32_t)flags);
}

ssize_t zn_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	return sock_op(IORING_OP_SENDMSG, fd, msg, 0, 1, (uint32_t)flags);
}

/* getsockname/getpeername: the address truncated to *len, *len the full
 * size (move_addr_to_user). */
static int sock_name(int fd, struct sockaddr *addr, socklen_t *len, bool peer)
{
	struct zn_sock *s = zn_sock_from_handle(fd);
	struct zn_addr4 local, remote;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t n;

	if (!s)
		return ret_errno(-EBADF);
	if (!addr || !len || (int)*len < 0)
		return ret_errno(!len ? -EFAULT : -EINVAL);
	local = s->local;
	remote = s->remote;
	if (s->proto->stream)
		zn_tcp_sock_name(s, &local, &remote);
	if (peer && !remote.port)
		return ret_errno(-ENOTCONN);
	sin.sin_addr.s_addr = peer ? remote.ip : local.ip;
	sin.sin_port = peer ? remote.port : local.port;
	n = *len < sizeof(sin) ? *len : sizeof(sin);
	memcpy(addr, &sin, n);
	*len = sizeof(sin);
	return 0;
}

int zn_getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	return sock_name(fd, addr, len, false);
}

int zn_getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	return sock_name(fd, addr, len, true);
}

int zn_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct zn_sock *s = zn_sock_from_handle(fd);
	int on;

	if (!s)
		return ret_errno(-EBADF);
	if (len < sizeof(int))
		return ret_errno(-EINVAL);
	if (!val)
		return ret_errno(-EFAULT);
	memcpy(&on, val, sizeof(on));
	if (level == SOL_SOCKET &&
	    (name == SO_REUSEADDR || name == SO_REUSEPORT || name == SO_ZEROCOPY))
		return 0;
	if (level == SOL_SOCKET && name == SO_KEEPALIVE && s->proto->stream)
		return ret_errno(zn_tcp_keepalive(fd, on != 0, 0, 0, 0));
	if (level == IPPROTO_TCP && name == TCP_NODELAY && s->proto->stream)
		return ret_errno(zn_tcp_nodelay(fd, on != 0));
	return ret_errno(-ENOPROTOOPT);
}
