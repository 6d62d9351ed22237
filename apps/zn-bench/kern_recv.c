/* SPDX-License-Identifier: MIT */
/*
 * zn-bench kernel path: TCP receive over loopback, 64 KiB per read, three
 * ways:
 *   epoll    non-blocking recv() until EAGAIN, then epoll_wait()
 *   uring    one IORING_OP_RECV in flight at a time
 *   tcp-zc   TCP_ZEROCOPY_RECEIVE: the socket's receive queue mapped into
 *            a 64 KiB window of an mmap() of the socket. The kernel can map
 *            only whole, page-aligned pages of payload; the rest it copies
 *            into our copy buffer (copybuf_len) or leaves to be read with
 *            recv() (recv_skip_hint). "fallback" is the fraction of bytes
 *            that came by copying; on loopback it is usually most of them.
 * A sender thread keeps the connection full with send(). The measured CPU
 * time is the receiving thread's. One op = one 64 KiB read's worth of bytes.
 * Source of the TCP_ZEROCOPY_RECEIVE contract: Linux include/uapi/linux/tcp.h
 * and tools/testing/selftests/net/tcp_mmap.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "kern.h"
#include "kern_uring.h"

#define RECV_SOCKBUF		(4 << 20)
#define SENDER_TIMEOUT_US	20000
#define WAIT_MS			100
#define CQE_TIMEOUT_NS		1000000000ll

/* struct tcp_zerocopy_receive of Linux 5.11+ (include/uapi/linux/tcp.h); glibc has only its head. */
struct kern_tcp_zc {
	uint64_t address;
	uint32_t length;
	uint32_t recv_skip_hint;
	uint32_t inq;
	int32_t err;
	uint64_t copybuf_address;
	int32_t copybuf_len;
	uint32_t flags;
	uint64_t msg_control;
	uint64_t msg_controllen;
	uint32_t msg_flags;
	uint32_t reserved;
};
_Static_assert(sizeof(struct kern_tcp_zc) == 64, "uAPI layout: tcp_zerocopy_receive");

enum recv_mode { RECV_EPOLL, RECV_URING, RECV_TCPZC };

struct recv_st {
	enum recv_mode mode;
	int rx, tx, ep;
	struct io_uring ring;
	bool have_ring;
	uint8_t *buf, *sbuf;
	void *map;
	pthread_t sender;
	bool have_sender;
	atomic_bool stop;
	int cpu;
};

static void *sender_main(void *arg)
{
	struct recv_st *st = arg;

	bench_pin(st->cpu);
	while (!atomic_load(&st->stop)) {
		ssize_t n = send(st->tx, st->sbuf, KERN_RECV_CHUNK, MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
	}
	return NULL;
}

/* A connected loopback pair: st->rx accepted here, st->tx for the sender. */
static int connect_pair(struct recv_st *st, const struct bench_case *c)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 0, SENDER_TIMEOUT_US };
	socklen_t alen = sizeof(a);
	int lfd, buf = RECV_SOCKBUF, ret = 0;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	st->tx = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (st->tx < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) ||
	    setsockopt(st->tx, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf)) ||
	    setsockopt(st->tx, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(st->tx, (struct sockaddr *)&a, sizeof(a)))
		ret = -errno;
	if (!ret) {
		st->rx = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (st->rx < 0)
			ret = -errno;
	}
	if (!ret && st->mode != RECV_URING &&
	    fcntl(st->rx, F_SETFL, fcntl(st->rx, F_GETFL) | O_NONBLOCK))
		ret = -errno;
	if (ret)
		snprintf(c->note, BENCH_NOTE_LEN, "TCP over loopback: %s", strerror(-ret));
	close(lfd);
	return ret;
}

static int wait_readable(struct recv_st *st)
{
	struct pollfd p = { .fd = st->rx, .events = POLLIN };
	struct epoll_event ev;

	if (st->mode == RECV_EPOLL)
		return epoll_wait(st->ep, &ev, 1, WAIT_MS) < 0 && errno != EINTR ? -errno : 0;
	return poll(&p, 1, WAIT_MS) < 0 && errno != EINTR ? -errno : 0;
}

static int step_epoll(struct recv_st *st, struct bench_meas *m)
{
	ssize_t n = recv(st->rx, st->buf, KERN_RECV_CHUNK, 0);

	if (n > 0) {
		m->bytes += (uint64_t)n;
		return 0;
	}
	if (n == 0)
		return -ECONNRESET;
	if (errno == EAGAIN || errno == EINTR)
		return wait_readable(st);
	return -errno;
}

static int step_uring(struct recv_st *st, struct bench_meas *m)
{
	struct __kernel_timespec ts = { 0, CQE_TIMEOUT_NS };
	struct io_uring_sqe *sqe = io_uring_get_sqe(&st->ring);
	struct io_uring_cqe *cqe;
	int ret, res;

	io_uring_prep_recv(sqe, st->rx, st->buf, KERN_RECV_CHUNK, 0);
	ret = io_uring_submit(&st->ring);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe_timeout(&st->ring, &cqe, &ts);
	if (ret)
		return ret == -ETIME ? -ETIMEDOUT : ret;
	res = cqe->res;
	io_uring_cqe_seen(&st->ring, cqe);
	if (res > 0)
		m->bytes += (uint64_t)res;
	return res > 0 ? 0 : res == 0 ? -ECONNRESET : res;
}

static int step_tcpzc(struct recv_st *st, const struct bench_case *c, struct bench_meas *m)
{
	struct kern_tcp_zc zc = {
		.address = (uintptr_t)st->map, .length = KERN_RECV_CHUNK,
		.copybuf_address = (uintptr_t)st->buf, .copybuf_len = KERN_RECV_CHUNK,
	};
	socklen_t len = sizeof(zc);
	uint64_t copied = 0;

	if (getsockopt(st->rx, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &len)) {
		snprintf(c->note, BENCH_NOTE_LEN, "TCP_ZEROCOPY_RECEIVE: %s", strerror(errno));
		return -errno;
	}
	if (zc.err) {
		snprintf(c->note, BENCH_NOTE_LEN, "TCP_ZEROCOPY_RECEIVE: socket error %s",
			 strerror(-zc.err));
		return zc.err;
	}
	m->bytes += zc.length;
	if (zc.copybuf_len > 0)
		copied += (uint64_t)zc.copybuf_len;
	if (zc.recv_skip_hint) {
		ssize_t n = recv(st->rx, st->buf,
				 zc.recv_skip_hint < KERN_RECV_CHUNK ? zc.recv_skip_hint
								     : KERN_RECV_CHUNK, 0);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n > 0)
			copied += (uint64_t)n;
	}
	m->bytes += copied;
	m->fallback += (int64_t)copied;
	if (!zc.length && !copied)
		return wait_readable(st);
	return 0;
}

int kern_recv_run(void *state, const struct bench_case *c, struct bench_meas *m)
{
	struct recv_st *st = state;
	uint64_t t0, t_end, u0, s0, u1, s1;
	int ret = 0;

	if (st->mode == RECV_TCPZC)
		m->fallback = 0;
	bench_thread_cpu(&u0, &s0);
	t0 = bench_now_ns();
	t_end = t0 + (uint64_t)c->o->duration_ms * 1000000ull;
	while (!ret && !bench_stop && bench_now_ns() < t_end) {
		switch (st->mode) {
		case RECV_EPOLL:
			ret = step_epoll(st, m);
			break;
		case RECV_URING:
			ret = step_uring(st, m);
			break;
		case RECV_TCPZC:
			ret = step_tcpzc(st, c, m);
			break;
		}
	}
	m->ns = bench_now_ns() - t0;
	bench_thread_cpu(&u1, &s1);
	m->cpu_user_ns = u1 - u0;
	m->cpu_sys_ns = s1 - s0;
	m->ops = m->bytes / c->size;
	if (ret && !c->note[0])
		snprintf(c->note, BENCH_NOTE_LEN, "receive: %s", strerror(-ret));
	return ret;
}

void kern_recv_teardown(void *state)
{
	struct recv_st *st = state;

	if (!st)
		return;
	if (st->have_sender) {
		atomic_store(&st->stop, true);
		pthread_join(st->sender, NULL);
	}
	if (st->map)
		munmap(st->map, KERN_RECV_CHUNK);
	if (st->have_ring)
		io_uring_queue_exit(&st->ring);
	if (st->ep >= 0)
		close(st->ep);
	if (st->rx >= 0)
		close(st->rx);
	if (st->tx >= 0)
		close(st->tx);
	free(st->buf);
	free(st->sbuf);
	free(st);
}

static int recv_setup(const struct bench_case *c, void **state, enum recv_mode mode)
{
	struct recv_st *st = calloc(1, sizeof(*st));
	int ret = -ENOMEM;

	if (!st)
		return -ENOMEM;
	st->mode = mode;
	st->rx = st->tx = st->ep = -1;
	st->cpu = c->o->cpu[1];
	st->buf = aligned_alloc(4096, KERN_RECV_CHUNK);
	st->sbuf = aligned_alloc(4096, KERN_RECV_CHUNK);
	if (!st->buf || !st->sbuf)
		goto err;
	memset(st->sbuf, 0x5a, KERN_RECV_CHUNK);
	ret = connect_pair(st, c);
	if (ret)
		goto err;
	switch (mode) {
	case RECV_EPOLL: {
		struct epoll_event ev = { .events = EPOLLIN };

		st->ep = epoll_create1(EPOLL_CLOEXEC);
		if (st->ep < 0 || epoll_ctl(st->ep, EPOLL_CTL_ADD, st->rx, &ev)) {
			ret = -errno;
			goto err;
		}
		break;
	}
	case RECV_URING:
		ret = io_uring_queue_init(8, &st->ring, 0);
		if (ret) {
			snprintf(c->note, BENCH_NOTE_LEN, "io_uring_setup: %s", strerror(-ret));
			goto err;
		}
		st->have_ring = true;
		break;
	case RECV_TCPZC:
		st->map = mmap(NULL, KERN_RECV_CHUNK, PROT_READ, MAP_SHARED, st->rx, 0);
		if (st->map == MAP_FAILED) {
			ret = -errno;
			st->map = NULL;
			snprintf(c->note, BENCH_NOTE_LEN, "mmap of a TCP socket: %s",
				 strerror(-ret));
			if (ret == -ENODEV || ret == -EACCES)
				ret = -EOPNOTSUPP;
			goto err;
		}
		break;
	}
	ret = pthread_create(&st->sender, NULL, sender_main, st);
	if (ret) {
		ret = -ret;
		goto err;
	}
	st->have_sender = true;
	*state = st;
	return 0;
err:
	kern_recv_teardown(st);
	return ret;
}

int kern_recv_epoll_setup(const struct bench_case *c, void **state)
{
	return recv_setup(c, state, RECV_EPOLL);
}

int kern_recv_uring_setup(const struct bench_case *c, void **state)
{
	return recv_setup(c, state, RECV_URING);
}

int kern_recv_tcpzc_setup(const struct bench_case *c, void **state)
{
	return recv_setup(c, state, RECV_TCPZC);
}
