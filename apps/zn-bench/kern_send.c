/* SPDX-License-Identifier: MIT */
/*
 * zn-bench kernel path: UDP send through io_uring, the three ways of the
 * published io_uring zero-copy results:
 *   nonzc    IORING_OP_SEND
 *   zc       IORING_OP_SEND_ZC, notifications reaped as they come; a buffer
 *            is reused without waiting for its notification (its content is
 *            not checked), as liburing's send-zerocopy example does
 *   zc-wait  IORING_OP_SEND_ZC, every notification of a batch waited for
 *            before its buffers are used again (what a correct app must do)
 * Each round submits --batch SQEs with one io_uring_enter and reaps their
 * completions. SEND_ZC asks for IORING_SEND_ZC_REPORT_USAGE (Linux 6.2):
 * each notification then says whether the kernel copied after all
 * (IORING_NOTIF_USAGE_ZC_COPIED); that fraction is reported, not hidden.
 *
 * The receiver is a plain UDP socket drained by a sink thread with
 * recvmmsg(); it counts what arrived, so drops are reported too. Over TCP
 * (the send-tcp group) the sink reads the accepted connection with recv()
 * and "delivered" is not counted: TCP loses nothing, and request
 * boundaries do not survive the byte stream. Each run
 * writes its own tag into the first bytes of the datagrams, and the sink
 * counts per tag: a datagram of an earlier run that arrives late is never
 * counted for the next one. The measured CPU time is the sending thread's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "kern.h"
#include "kern_uring.h"

#define SEND_SNDBUF		(8 << 20)
#define SEND_RCVBUF		(32 << 20)
#define SINK_BATCH		64
#define SINK_TRUNC		64	/* bytes the sink copies per datagram */
#define SINK_TIMEOUT_US		20000
#define CQE_TIMEOUT_NS		1000000000ll
#define SETTLE_STEP_US		5000
#define SETTLE_MAX_STEPS	40	/* the sink count settles within 200 ms */
#define MIN_RING		8
#define TAG_SLOTS		4	/* a tag's counter is reused 4 runs later */
#define TCP_SINK_BUF		(256 << 10)

enum send_mode { SEND_NONZC, SEND_ZC, SEND_ZCW };

struct send_st {
	enum send_mode mode;
	bool tcp;
	struct io_uring ring;
	bool have_ring;
	int tx, rx;
	unsigned zc_flags;
	unsigned batch;
	uint8_t *bufs;
	size_t stride;
	pthread_t sink;
	bool have_sink;
	atomic_bool sink_stop;
	atomic_uint_fast64_t sink_count;
	atomic_uint_fast64_t tag_count[TAG_SLOTS];
	uint32_t tag;
	int cpu;
};

static void *tcp_sink(struct send_st *st)
{
	uint8_t *buf = malloc(TCP_SINK_BUF);

	while (buf && !atomic_load(&st->sink_stop)) {
		ssize_t n = recv(st->rx, buf, TCP_SINK_BUF, 0);

		if (n > 0)
			atomic_fetch_add(&st->sink_count, (uint64_t)n);
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	free(buf);
	return NULL;
}

static void *sink_main(void *arg)
{
	struct send_st *st = arg;
	struct mmsghdr msgs[SINK_BATCH];
	struct iovec iov[SINK_BATCH];
	static __thread uint8_t trash[SINK_BATCH][SINK_TRUNC];

	bench_pin(st->cpu);
	if (st->tcp)
		return tcp_sink(st);
	for (unsigned i = 0; i < SINK_BATCH; i++) {
		iov[i] = (struct iovec){ trash[i], SINK_TRUNC };
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (!atomic_load(&st->sink_stop)) {
		int n = recvmmsg(st->rx, msgs, SINK_BATCH, MSG_WAITFORONE, NULL);

		for (int i = 0; i < n; i++) {
			uint32_t tag;

			if (msgs[i].msg_len < sizeof(tag))
				continue;
			memcpy(&tag, trash[i], sizeof(tag));
			atomic_fetch_add(&st->tag_count[tag % TAG_SLOTS], 1);
		}
		if (n > 0)
			atomic_fetch_add(&st->sink_count, (uint64_t)n);
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
	}
	return NULL;
}

static int sock_opt(int fd, int level, int force, int plain, int val)
{
	if (!setsockopt(fd, level, force, &val, sizeof(val)))
		return 0;
	return setsockopt(fd, level, plain, &val, sizeof(val)) ? -errno : 0;
}

/* A listener in the receiving namespace, the sender connected to it, the accepted end as rx. */
static int open_tcp(struct send_st *st, const struct kern_net *n, const struct bench_case *c)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr = n->rx_ip };
	struct timeval tv = { 0, SINK_TIMEOUT_US };
	socklen_t alen = sizeof(addr);
	int one = 1, lst, ret = 0;

	lst = kern_socket_in(n->rx_ns, AF_INET, SOCK_STREAM, 0);
	if (lst < 0)
		return lst;
	st->tx = kern_socket_in(n->tx_ns, AF_INET, SOCK_STREAM, 0);
	if (st->tx < 0) {
		close(lst);
		return st->tx;
	}
	if (bind(lst, (struct sockaddr *)&addr, sizeof(addr)) || listen(lst, 1) ||
	    getsockname(lst, (struct sockaddr *)&addr, &alen) ||
	    setsockopt(st->tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    sock_opt(st->tx, SOL_SOCKET, SO_SNDBUFFORCE, SO_SNDBUF, SEND_SNDBUF) ||
	    connect(st->tx, (struct sockaddr *)&addr, sizeof(addr)) ||
	    (st->rx = accept4(lst, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
	    setsockopt(st->rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		ret = -errno;
		snprintf(c->note, BENCH_NOTE_LEN, "TCP sockets: %s", strerror(errno));
	}
	close(lst);
	return ret;
}

static int open_sockets(struct send_st *st, const struct bench_case *c)
{
	struct sockaddr_in rx_addr = { .sin_family = AF_INET };
	struct sockaddr_in tx_addr = { .sin_family = AF_INET };
	struct timeval tv = { 0, SINK_TIMEOUT_US };
	socklen_t alen = sizeof(rx_addr);
	struct kern_net n;
	int ret;

	ret = kern_net_get(c->transport, &n, c->note);
	if (ret)
		return ret;
	if (st->tcp)
		return open_tcp(st, &n, c);
	st->rx = kern_socket_in(n.rx_ns, AF_INET, SOCK_DGRAM, 0);
	if (st->rx < 0)
		return st->rx;
	st->tx = kern_socket_in(n.tx_ns, AF_INET, SOCK_DGRAM, 0);
	if (st->tx < 0)
		return st->tx;
	rx_addr.sin_addr = n.rx_ip;
	tx_addr.sin_addr = n.tx_ip;
	if (sock_opt(st->rx, SOL_SOCKET, SO_RCVBUFFORCE, SO_RCVBUF, SEND_RCVBUF) ||
	    sock_opt(st->tx, SOL_SOCKET, SO_SNDBUFFORCE, SO_SNDBUF, SEND_SNDBUF) ||
	    setsockopt(st->rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(st->rx, (struct sockaddr *)&rx_addr, sizeof(rx_addr)) ||
	    getsockname(st->rx, (struct sockaddr *)&rx_addr, &alen) ||
	    bind(st->tx, (struct sockaddr *)&tx_addr, sizeof(tx_addr)) ||
	    connect(st->tx, (struct sockaddr *)&rx_addr, sizeof(rx_addr))) {
		ret = -errno;
		snprintf(c->note, BENCH_NOTE_LEN, "UDP sockets: %s", strerror(errno));
		return ret;
	}
	return 0;
}

static void prep(struct send_st *st, struct io_uring_sqe *sqe, unsigned i, uint32_t len)
{
	uint8_t *buf = st->bufs + (size_t)i * st->stride;

	if (st->mode == SEND_NONZC)
		io_uring_prep_send(sqe, st->tx, buf, len, 0);
	else
		io_uring_prep_send_zc(sqe, st->tx, buf, len, 0, st->zc_flags);
	sqe->user_data = i;
}

struct reap {
	unsigned sends;		/* send CQEs still to come */
	unsigned notifs;	/* notifications still to come */
	int err;		/* first fatal CQE error */
};

/* Reaps every CQE there is, waiting (bounded) for at least one. */
static int reap_some(struct send_st *st, struct reap *rp, struct bench_meas *m)
{
	struct __kernel_timespec ts = { 0, CQE_TIMEOUT_NS };
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int ret;

	ret = io_uring_wait_cqe_timeout(&st->ring, &cqe, &ts);
	if (ret)
		return ret;
	io_uring_for_each_cqe(&st->ring, head, cqe) {
		seen++;
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			rp->notifs--;
			/* without usage reports a notification says nothing about copying */
			if (st->zc_flags & IORING_SEND_ZC_REPORT_USAGE) {
				m->notifs++;
				if ((uint32_t)cqe->res & IORING_NOTIF_USAGE_ZC_COPIED)
					m->notifs_copied++;
			}
			continue;
		}
		rp->sends--;
		if (cqe->flags & IORING_CQE_F_MORE)
			rp->notifs++;
		if (cqe->res >= 0) {
			m->ops++;
			m->bytes += (uint64_t)cqe->res;
		} else if (cqe->res != -ENOBUFS && cqe->res != -EAGAIN && !rp->err) {
			rp->err = cqe->res;
		}
	}
	io_uring_cq_advance(&st->ring, seen);
	return 0;
}

/*
 * Until the sink has caught up: its socket queue is empty (FIONREAD on UDP
 * is the next datagram's length) and its count did not move for a step.
 */
static void sink_settled(struct send_st *st)
{
	uint64_t last = atomic_load(&st->sink_count), now;
	int queued;

	for (unsigned i = 0; i < SETTLE_MAX_STEPS; i++) {
		usleep(SETTLE_STEP_US);
		now = atomic_load(&st->sink_count);
		if (ioctl(st->rx, FIONREAD, &queued))
			queued = 0;
		if (now == last && !queued)
			break;
		last = now;
	}
}

int kern_send_run(void *state, const struct bench_case *c, struct bench_meas *m)
{
	struct send_st *st = state;
	struct reap rp = { 0 };
	uint64_t t0, t_end, u0, s0, u1, s1;
	bool tagged = !st->tcp && c->size >= sizeof(st->tag);
	int ret = 0;

	/* every send of this run is complete and its notification in: the buffers are ours */
	st->tag++;
	atomic_store(&st->tag_count[st->tag % TAG_SLOTS], 0);
	for (unsigned i = 0; tagged && i < st->batch; i++)
		memcpy(st->bufs + (size_t)i * st->stride, &st->tag, sizeof(st->tag));
	bench_thread_cpu(&u0, &s0);
	t0 = bench_now_ns();
	t_end = t0 + (uint64_t)c->o->duration_ms * 1000000ull;
	while (!bench_stop && bench_now_ns() < t_end && !rp.err) {
		for (unsigned i = 0; i < st->batch; i++)
			prep(st, io_uring_get_sqe(&st->ring), i, c->size);
		ret = io_uring_submit(&st->ring);
		if (ret < 0)
			break;
		rp.sends += (unsigned)ret;
		ret = 0;
		while (!ret && !rp.err && (rp.sends || (st->mode == SEND_ZCW && rp.notifs)))
			ret = reap_some(st, &rp, m);
		if (ret)
			break;
	}
	m->ns = bench_now_ns() - t0;
	bench_thread_cpu(&u1, &s1);
	m->cpu_user_ns = u1 - u0;
	m->cpu_sys_ns = s1 - s0;
	/* notifications of the last rounds: outside the clock, but never left behind */
	while (!ret && (rp.sends || rp.notifs))
		ret = reap_some(st, &rp, m);
	sink_settled(st);
	m->delivered = tagged ? (int64_t)atomic_load(&st->tag_count[st->tag % TAG_SLOTS]) : -1;
	if (ret == -ETIME) {
		snprintf(c->note, BENCH_NOTE_LEN, "no completion within %lld ms",
			 CQE_TIMEOUT_NS / 1000000);
		return -ETIMEDOUT;
	}
	if (ret)
		return ret;
	if (rp.err) {
		snprintf(c->note, BENCH_NOTE_LEN, "%s completed with %s",
			 st->mode == SEND_NONZC ? "SEND" : "SEND_ZC", strerror(-rp.err));
		return rp.err;
	}
	return 0;
}

void kern_send_teardown(void *state)
{
	struct send_st *st = state;

	if (!st)
		return;
	if (st->have_sink) {
		atomic_store(&st->sink_stop, true);
		pthread_join(st->sink, NULL);
	}
	if (st->have_ring)
		io_uring_queue_exit(&st->ring);
	if (st->tx >= 0)
		close(st->tx);
	if (st->rx >= 0)
		close(st->rx);
	free(st->bufs);
	free(st);
}

/* SEND_ZC with usage reports if the kernel has them, without otherwise. */
static int probe_zc(struct send_st *st, const struct bench_case *c)
{
	struct io_uring_probe *probe = io_uring_get_probe_ring(&st->ring);
	bool ok = probe && io_uring_opcode_supported(probe, IORING_OP_SEND_ZC);
	struct bench_meas scratch = { 0 };
	struct reap rp = { 0 };
	int ret = 0;

	if (probe)
		io_uring_free_probe(probe);
	if (!ok) {
		snprintf(c->note, BENCH_NOTE_LEN, "IORING_OP_SEND_ZC: not supported by this kernel");
		return -EOPNOTSUPP;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		st->zc_flags = attempt ? 0 : IORING_SEND_ZC_REPORT_USAGE;
		rp = (struct reap){ 0 };
		prep(st, io_uring_get_sqe(&st->ring), 0, c->size);
		ret = io_uring_submit(&st->ring);
		if (ret < 0)
			return ret;
		rp.sends = 1;
		ret = 0;
		while (!ret && (rp.sends || rp.notifs))
			ret = reap_some(st, &rp, &scratch);
		if (ret)
			return ret;
		if (!rp.err)
			return 0;
		if (rp.err != -EINVAL)
			break;
	}
	snprintf(c->note, BENCH_NOTE_LEN, "SEND_ZC over %s: %s", st->tcp ? "TCP" : "UDP",
		 strerror(-rp.err));
	return kern_unsupported(rp.err) ? -EOPNOTSUPP : rp.err;
}

static int send_setup(const struct bench_case *c, void **state, enum send_mode mode, bool tcp)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE };
	struct send_st *st = calloc(1, sizeof(*st));
	unsigned entries = MIN_RING;
	int ret;

	if (!st)
		return -ENOMEM;
	st->mode = mode;
	st->tcp = tcp;
	st->tx = st->rx = -1;
	st->batch = c->o->batch;
	st->cpu = c->o->cpu[1];
	st->stride = (c->size + 4095) & ~(size_t)4095;
	st->bufs = aligned_alloc(4096, st->stride * st->batch);
	ret = -ENOMEM;
	if (!st->bufs)
		goto err;
	for (size_t i = 0; i < st->stride * st->batch; i++)
		st->bufs[i] = (uint8_t)(i * 7 + 1);
	ret = open_sockets(st, c);
	if (ret)
		goto err;
	while (entries < st->batch)
		entries <<= 1;
	p.cq_entries = entries * 4;
	ret = io_uring_queue_init_params(entries, &st->ring, &p);
	if (ret) {
		snprintf(c->note, BENCH_NOTE_LEN, "io_uring_setup: %s", strerror(-ret));
		goto err;
	}
	st->have_ring = true;
	ret = pthread_create(&st->sink, NULL, sink_main, st);
	if (ret) {
		ret = -ret;
		goto err;
	}
	st->have_sink = true;
	if (mode != SEND_NONZC) {
		ret = probe_zc(st, c);
		if (ret)
			goto err;
		if (!st->zc_flags)
			fprintf(stderr, "zn-bench: this kernel has no IORING_SEND_ZC_REPORT_USAGE: "
				"\"copied\" is unknown\n");
	}
	*state = st;
	return 0;
err:
	kern_send_teardown(st);
	return ret;
}

int kern_send_setup(const struct bench_case *c, void **state)
{
	return send_setup(c, state, SEND_NONZC, false);
}

int kern_send_zc_setup(const struct bench_case *c, void **state)
{
	return send_setup(c, state, SEND_ZC, false);
}

int kern_send_zcw_setup(const struct bench_case *c, void **state)
{
	return send_setup(c, state, SEND_ZCW, false);
}

int kern_send_tcp_setup(const struct bench_case *c, void **state)
{
	return send_setup(c, state, SEND_NONZC, true);
}

int kern_send_tcp_zc_setup(const struct bench_case *c, void **state)
{
	return send_setup(c, state, SEND_ZC, true);
}

int kern_send_tcp_zcw_setup(const struct bench_case *c, void **state)
{
	return send_setup(c, state, SEND_ZCW, true);
}
