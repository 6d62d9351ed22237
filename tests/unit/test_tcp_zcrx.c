/* SPDX-License-Identifier: MIT */
/*
 * zcnic's TCP into a zcrx area: netdev B sends with SEND_ZC from a
 * registered buffer, netdev A receives with RECV_ZC multishot into an area
 * on its RX queue 1 (an n-tuple rule steers the listening port there), over
 * an in-process zn-nicsim bnxt pair. One ring, one thread drives both ends;
 * set-up goes through zn_tcp_socket / listen / connect / accept.
 *
 * Asserted on every run:
 *  - every byte, in place in the area, against the stream's pattern, in
 *    CQE order; EOF as a final CQE with res 0 and no F_MORE;
 *  - the area's accounting after every reap: free + nic + stack + user ==
 *    all, the area's own recount, and the user references equal to the
 *    CQEs the test holds plus the refill entries zcnic has not read yet;
 *  - SEND_ZC: one notification per request, in request order, and none
 *    before B's connection saw the request's last byte acknowledged;
 *  - small requests queued together share segments, each with its own
 *    notification.
 * Cases: a plain transfer; a lossy one (out of order in area buffers);
 * small sends; the forms of a send (SEND_ZC, SENDMSG_ZC, registered or
 * plain memory, REPORT_USAGE); len limits; an area that runs dry while the
 * test holds every CQE (the window closes with the area, reopens when the
 * buffers come back, nothing is lost); a reset with data
 * in flight (what arrived before the RST, then -ECONNRESET, and every
 * buffer accounted for).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "base/clock.h"
#include "core/net/netif.h"
#include "core/net/tcp_priv.h"
#include "core/zcrx/zcrx_priv.h"
#include "drivers/mlx5/mlx5.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/port.h"
#include "zcnic/socket.h"
#include "zcnic/uring.h"
#include "zcnic/zcrx.h"

#define PAGE		4096u
#define PORT		5400
#define RXQ		1
#define RX_RING		64		/* 127 pool buffers posted before the swap */
#define RQ_ENTRIES	1024
#define CQ_ENTRIES	8192
#define MAX_REQ		4096
#define MAX_HELD	4096
#define WAIT_MS		10000
#define XFER_MS		90000		/* RTOs with backoff under load */
#define STALL_MS	200		/* no CQE for this long: the area ran dry */
#define UD_SEND		(1ull << 56)
#define UD_RECV		(2ull << 56)
#define UD_MASK		(0xffull << 56)

struct fx {
	struct ndp n;
	bool mlx5_agg;			/* two mlx5 models, SHAMPO HW-GRO on */
	struct io_uring ring;
	bool ring_up;
	uint8_t *area;
	size_t area_len;
	void *rq_mem;
	size_t rq_len;
	struct io_uring_zcrx_rq rq;
	uint64_t token;
	uint32_t zcrx_id;
	uint32_t rule;
	bool has_rule;
	int lfd, afd, bfd;
	/* B: the stream to send, registered */
	uint8_t *tx;
	size_t tx_len;
	uint64_t total, sent;
	uint32_t nreq, nres, nnotif, inflight;
	uint64_t req_end[MAX_REQ];
	int32_t notif_res[MAX_REQ];	/* what its notification's res must be */
	bool shut;
	/* SENDMSG_ZC: msghdrs and iovecs live until the requests were issued */
	struct msghdr msg[8];
	struct iovec iov[8][8];
	uint8_t *plain;			/* the stream again, in memory no NIC can reach */
	/* A */
	uint64_t rx_bytes;
	bool armed;
	int final_res, finals;
	bool eof;
	bool hold;			/* keep CQEs instead of refilling */
	uint64_t held[MAX_HELD];
	uint32_t nheld;
	uint32_t stalls;
	unsigned bad;
};

static uint8_t pat(uint64_t i)
{
	return (uint8_t)(i ^ (i >> 9) ^ (i >> 17) ^ 0x5a);
}

static struct zn_uring *zr(struct fx *f)
{
	return zn_uring_from_handle(f->ring.ring_fd);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

static uint32_t rq_unread(struct fx *f)
{
	return f->rq.rq_tail - io_uring_smp_load_acquire(f->rq.khead);
}

/* The invariant, the area's recount, and the user references held. */
static void check_acct(struct fx *f, struct zn_zcrx_stats *out)
{
	struct zn_zcrx_stats st;
	struct zn_zcrx_ifq *ifq;

	assert_int_equal(zn_zcrx_get_stats(zr(f), f->zcrx_id, &st), 0);
	assert_int_equal(st.free + st.nic + st.stack + st.user, st.nbufs);
	assert_int_equal(st.nbufs, f->area_len / PAGE);
	assert_int_equal(st.bad_puts, 0);
	assert_int_equal(st.user_refs, f->nheld + rq_unread(f));
	ifq = zn_zcrx_ifq_get(zr(f), f->zcrx_id);
	assert_non_null(ifq);
	assert_int_equal(zn_zcrx_area_check(&ifq->area), 0);
	zn_zcrx_ifq_put(ifq);
	if (out)
		*out = st;
}

static void give_back(struct fx *f, uint64_t zoff)
{
	uint32_t mask = f->rq.ring_entries - 1;
	struct io_uring_zcrx_rqe *rqe;

	for (int i = 0; i < 1000 && rq_unread(f) >= f->rq.ring_entries; i++)
		io_uring_get_events(&f->ring);
	assert_true(rq_unread(f) < f->rq.ring_entries);
	rqe = &f->rq.rqes[f->rq.rq_tail & mask];
	rqe->off = (zoff & ~IORING_ZCRX_AREA_MASK) | f->token;
	rqe->len = 0;
	rqe->__pad = 0;
	f->rq.rq_tail++;
	io_uring_smp_store_release(f->rq.ktail, f->rq.rq_tail);
}

static void give_back_held(struct fx *f)
{
	while (f->nheld)
		give_back(f, f->held[--f->nheld]);
}

static void setup_ring(struct fx *f, size_t area_len)
{
	struct io_uring_params p;
	struct io_uring_zcrx_area_reg area;
	struct io_uring_region_desc region;
	struct io_uring_zcrx_ifq_reg reg;
	struct iovec iov;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		  IORING_SETUP_CQSIZE;
	p.cq_entries = CQ_ENTRIES;
	assert_int_equal(io_uring_queue_init_params(256, &f->ring, &p), 0);
	f->ring_up = true;
	f->area_len = area_len;
	f->area = map_anon(area_len);
	f->rq_len = (RQ_ENTRIES * sizeof(struct io_uring_zcrx_rqe) + PAGE + PAGE - 1) & ~(PAGE - 1);
	f->rq_mem = map_anon(f->rq_len);
	memset(&area, 0, sizeof(area));
	memset(&region, 0, sizeof(region));
	memset(&reg, 0, sizeof(reg));
	area.addr = (uintptr_t)f->area;
	area.len = area_len;
	region.user_addr = (uintptr_t)f->rq_mem;
	region.size = f->rq_len;
	region.flags = IORING_MEM_REGION_TYPE_USER;
	reg.if_idx = (uint32_t)zn_netdev_ifindex(f->n.a);
	reg.if_rxq = RXQ;
	reg.rq_entries = RQ_ENTRIES;
	reg.area_ptr = (uintptr_t)&area;
	reg.region_ptr = (uintptr_t)&region;
	assert_int_equal(io_uring_register_ifq(&f->ring, &reg), 0);
	f->zcrx_id = reg.zcrx_id;
	f->token = area.rq_area_token;
	f->rq.khead = (uint32_t *)((char *)f->rq_mem + reg.offsets.head);
	f->rq.ktail = (uint32_t *)((char *)f->rq_mem + reg.offsets.tail);
	f->rq.rqes = (struct io_uring_zcrx_rqe *)((char *)f->rq_mem + reg.offsets.rqes);
	f->rq.rq_tail = 0;
	f->rq.ring_entries = reg.rq_entries;
	f->rq.ring_ptr = f->rq_mem;
	iov = (struct iovec){ f->tx, f->tx_len };
	assert_int_equal(io_uring_register_buffers(&f->ring, &iov, 1), 0);
	check_acct(f, NULL);
}

static void poll_both(struct fx *f)
{
	zn_netdev_poll(f->n.a);
	zn_netdev_poll(f->n.b);
}

/* The pair, A's listener steered to RXQ, B connected, the ring with an ifq. */
static void fx_start_opts(struct fx *f, const char *model_opts, size_t area_len, uint64_t total)
{
	struct zn_flow_match m = { .ip_version = 4, .ip_proto = IPPROTO_TCP };
	struct zn_addr4 dst, peer;
	uint64_t end;
	int rc;

	if (f->mlx5_agg)
		assert_int_equal(ndp_open_mlx5(&f->n, 0, RX_RING, true), 0);
	else
		assert_int_equal(ndp_open_ex(&f->n, model_opts, 0, RX_RING), 0);
	assert_int_equal(ndp_resolve(&f->n, 3000), 0);
	memcpy(m.dst_ip, &f->n.ip_a, 4);
	m.dst_port = htons(PORT);
	assert_int_equal(zn_port_flow_add(zn_netdev_port(f->n.a), &m, RXQ, &f->rule), 0);
	f->has_rule = true;
	f->total = total;
	f->tx_len = (total + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	f->tx = map_anon(f->tx_len);
	for (uint64_t i = 0; i < total; i++)
		f->tx[i] = pat(i);
	setup_ring(f, area_len);

	f->lfd = zn_tcp_socket(f->n.a, &(struct zn_socket_conf){ .local = { 0, htons(PORT) } });
	assert_true(f->lfd > 0);
	assert_int_equal(zn_tcp_listen(f->lfd, 4), 0);
	f->bfd = zn_tcp_socket(f->n.b, &(struct zn_socket_conf){ 0 });
	assert_true(f->bfd > 0);
	dst = (struct zn_addr4){ .ip = f->n.ip_a, .port = htons(PORT) };
	assert_int_equal(zn_tcp_connect(f->bfd, &dst, 0), -EINPROGRESS);
	end = zn_now_ms() + WAIT_MS;
	f->afd = -EAGAIN;
	while (f->afd == -EAGAIN && zn_now_ms() < end) {
		poll_both(f);
		f->afd = zn_tcp_accept(f->lfd, &peer, 0);
	}
	assert_true(f->afd > 0);
	while ((rc = zn_tcp_connect(f->bfd, &dst, 0)) == -EALREADY && zn_now_ms() < end)
		poll_both(f);
	assert_int_equal(rc, -EISCONN);
}

static void fx_start(struct fx *f, size_t area_len, uint64_t total)
{
	fx_start_opts(f, "", area_len, total);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->lfd = f->afd = f->bfd = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->afd > 0)
		zn_socket_close(f->afd);
	if (f->bfd > 0)
		zn_socket_close(f->bfd);
	if (f->lfd > 0)
		zn_socket_close(f->lfd);
	if (f->ring_up)
		io_uring_queue_exit(&f->ring);
	if (f->has_rule)
		zn_port_flow_del(zn_netdev_port(f->n.a), f->rule);
	if (f->n.a || f->n.b)
		ndp_close(&f->n);
	assert_int_equal(zn_zcrx_areas_pending(), 0);
	if (f->area)
		munmap(f->area, f->area_len);
	if (f->rq_mem)
		munmap(f->rq_mem, f->rq_len);
	if (f->tx)
		munmap(f->tx, f->tx_len);
	free(f);
	return 0;
}

static void arm(struct fx *f, uint32_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

	assert_non_null(sqe);
	assert_false(f->armed);
	io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, f->afd, NULL, len, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = f->zcrx_id;
	sqe->user_data = UD_RECV;
	f->armed = true;
}

/* SEND_ZC requests of size bytes while fewer than window are unnotified. */
static void queue_sends(struct fx *f, uint32_t size, uint32_t window)
{
	while (f->sent < f->total && f->inflight < window && f->nreq < MAX_REQ) {
		uint32_t k = f->total - f->sent < size ? (uint32_t)(f->total - f->sent) : size;
		struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

		if (!sqe)
			break;
		io_uring_prep_send_zc_fixed(sqe, f->bfd, f->tx + f->sent, k, 0, 0, 0);
		sqe->user_data = UD_SEND | f->nreq;
		f->sent += k;
		f->req_end[f->nreq++] = f->sent;
		f->inflight++;
	}
}

/* Bytes of the stream A acknowledged: B's snd_una past its SYN; all of
 * them once the connection failed (its sends complete with the error). */
static uint64_t b_acked(struct fx *f)
{
	for (struct zn_tcp_conn *c = zn_netif_tcp(zn_netdev_netif(f->n.b))->all; c; c = c->lnext)
		if (c->rport == htons(PORT) && c->state != ZN_TCP_LISTEN && !c->zombie)
			return c->err ? UINT64_MAX : c->snd_una - c->iss - 1;
	return 0;
}

static void on_send(struct fx *f, const struct io_uring_cqe *cqe)
{
	uint32_t i = (uint32_t)(cqe->user_data & ~UD_MASK);

	if (!(cqe->flags & IORING_CQE_F_NOTIF)) {
		f->nres++;
		if (i >= f->nreq || !(cqe->flags & IORING_CQE_F_MORE) ||
		    cqe->res != (int)(f->req_end[i] - (i ? f->req_end[i - 1] : 0))) {
			print_message("request %u: res %d flags %#x\n", i, cqe->res, cqe->flags);
			f->bad++;
		}
		return;
	}
	/* the notification: this request's, in order, after its last byte */
	if (i != f->nnotif || cqe->res != f->notif_res[i] || (cqe->flags & IORING_CQE_F_MORE)) {
		print_message("notification %u (res %d flags %#x) when %u was due\n", i, cqe->res,
			      cqe->flags, f->nnotif);
		f->bad++;
	}
	/* (after B's close gave up on them: notified unacknowledged, with a warning) */
	if (f->bfd > 0 && b_acked(f) < f->req_end[i]) {
		print_message("notification %u for bytes up to %llu, B's acknowledged %llu\n", i,
			      (unsigned long long)f->req_end[i], (unsigned long long)b_acked(f));
		f->bad++;
	}
	f->nnotif++;
	f->inflight--;
}

static void on_recv(struct fx *f, const struct io_uring_cqe *cqe)
{
	const struct io_uring_zcrx_cqe *z = (const struct io_uring_zcrx_cqe *)(cqe + 1);
	const uint8_t *p;
	uint64_t off;

	assert_true(f->armed);
	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		assert_true(cqe->res <= 0);
		f->armed = false;
		f->finals++;
		f->final_res = cqe->res;
		if (cqe->res == 0)
			f->eof = true;
		return;
	}
	assert_true(cqe->res > 0 && cqe->res <= (int)PAGE);
	off = z->off & ~IORING_ZCRX_AREA_MASK;
	assert_int_equal(z->off >> IORING_ZCRX_AREA_SHIFT, 0);
	assert_true(off + (uint64_t)cqe->res <= f->area_len);
	p = f->area + off;
	for (int j = 0; j < cqe->res; j++)
		if (p[j] != pat(f->rx_bytes + (uint64_t)j)) {
			print_message("byte %llu: %#x, want %#x\n",
				      (unsigned long long)(f->rx_bytes + (uint64_t)j), p[j],
				      pat(f->rx_bytes + (uint64_t)j));
			fail();
		}
	f->rx_bytes += (uint64_t)cqe->res;
	if (f->hold) {
		assert_true(f->nheld < MAX_HELD);
		f->held[f->nheld++] = z->off;
	} else {
		give_back(f, z->off);
	}
}

/* Wait up to ms for CQEs and handle them all: how many. */
static unsigned reap(struct fx *f, unsigned ms)
{
	struct __kernel_timespec ts = { .tv_nsec = (long long)ms * 1000000 };
	struct io_uring_cqe *cqe;
	unsigned n = 0;

	io_uring_submit_and_wait_timeout(&f->ring, &cqe, 1, &ts, NULL);
	while (io_uring_peek_cqe(&f->ring, &cqe) == 0) {
		if ((cqe->user_data & UD_MASK) == UD_SEND)
			on_send(f, cqe);
		else if ((cqe->user_data & UD_MASK) == UD_RECV)
			on_recv(f, cqe);
		else
			f->bad++;
		io_uring_cqe_seen(&f->ring, cqe);
		n++;
	}
	check_acct(f, NULL);
	return n;
}

static void counters(struct fx *f)
{
	struct zn_tcp_stats a, b;
	struct zn_zcrx_stats st;

	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(f->n.a)), &a);
	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(f->n.b)), &b);
	check_acct(f, &st);
	print_message("A rx %llu segs (ooo %llu, dup %llu); B tx %llu data segs, retrans %llu, "
		      "rto %llu, zwp %llu, done late %llu; area zc %llu B copied %llu B, %llu "
		      "stalls; sent %llu received %llu notified %u/%u\n",
		      (unsigned long long)a.rx_segs, (unsigned long long)a.rx_ooo,
		      (unsigned long long)a.rx_dup, (unsigned long long)b.tx_data_segs,
		      (unsigned long long)b.retrans, (unsigned long long)b.rto_fired,
		      (unsigned long long)b.zwp, (unsigned long long)b.tx_done_late,
		      (unsigned long long)st.zc_bytes, (unsigned long long)st.copy_bytes,
		      (unsigned long long)f->stalls, (unsigned long long)f->sent, (unsigned long long)f->rx_bytes,
		      f->nnotif, f->nreq);
	print_message("A: out of window %llu, paws %llu, challenge %llu, bad %llu/%llu/%llu, "
		      "no conn %llu, ooo drop %llu\n", (unsigned long long)a.rx_out_of_window,
		      (unsigned long long)a.rx_paws, (unsigned long long)a.rx_challenge,
		      (unsigned long long)a.rx_bad[1], (unsigned long long)a.rx_bad[2],
		      (unsigned long long)a.rx_bad[3], (unsigned long long)a.rx_no_conn,
		      (unsigned long long)a.rx_ooo_drop);
	for (struct zn_tcp_conn *c = zn_netif_tcp(zn_netdev_netif(f->n.a))->all; c; c = c->lnext)
		print_message("A conn %s: rcv %u, queued %u, held %u, ooo %u, wnd %u, adv %u, "
			      "snd_una %u\n", zn_tcp_state_name(c->state), c->rcv_nxt - c->irs - 1,
			      c->rx_queued, c->rx_held, c->ooo_bytes, zn_tcp_rcv_wnd(c),
			      c->rcv_adv - c->rcv_nxt, c->snd_una - c->iss);
	for (struct zn_tcp_conn *c = zn_netif_tcp(zn_netdev_netif(f->n.b))->all; c; c = c->lnext)
		print_message("B conn %s: snd_una %u snd_nxt %u snd_max %u end %u wnd %u cwnd %u "
			      "txq %u..%u frames %u\n", zn_tcp_state_name(c->state),
			      c->snd_una - c->iss, c->snd_nxt - c->iss, c->snd_max - c->iss,
			      c->snd_end - c->iss, c->snd_wnd, c->cwnd, c->txq_head, c->txq_tail,
			      c->tx_frames);
	for (int k = 0; k < 2; k++) {
		struct zn_netif_stats ns;

		zn_netif_stats(zn_netdev_netif(k ? f->n.b : f->n.a), &ns);
		print_message("netif %c: rx %llu frames, tcp %llu, no buffer %llu, bad tcp %llu; tx tcp %llu, "
			      "refused %llu, no slot %llu, completed %llu\n", k ? 'B' : 'A',
			      (unsigned long long)ns.rx_frames, (unsigned long long)ns.rx[ZN_NET_RX_TCP],
			      (unsigned long long)ns.rx[ZN_NET_DROP_NOBUF],
			      (unsigned long long)ns.rx[ZN_NET_DROP_TCP], (unsigned long long)ns.tx_tcp,
			      (unsigned long long)ns.tx_refused, (unsigned long long)ns.tx_no_slot,
			      (unsigned long long)ns.tx_completed);
	}
}

/*
 * B sends the stream in requests of size bytes, then shuts down; A
 * receives it until EOF. With hold set, A keeps every CQE until nothing
 * came for STALL_MS (or a final -ENOMEM), then gives them all back.
 */
static void transfer(struct fx *f, uint32_t size, uint32_t window)
{
	uint64_t end = zn_now_ms() + XFER_MS, last = zn_now_ms();

	arm(f, 0);
	while ((!f->eof || f->nnotif < f->nreq) && zn_now_ms() < end) {
		queue_sends(f, size, window);
		if (!f->shut && f->sent == f->total && f->nres == f->nreq) {
			/* every request is in the send queue: FIN after them */
			assert_int_equal(zn_tcp_shutdown(f->bfd), 0);
			f->shut = true;
		}
		if (reap(f, 1))
			last = zn_now_ms();
		if (!f->armed && !f->eof) {
			/* -ENOSPC or -ENOMEM: buffers back, and again */
			assert_true(f->final_res == -ENOMEM || f->final_res == -ENOSPC);
			give_back_held(f);
			arm(f, 0);
		}
		if (f->hold && f->nheld && zn_now_ms() - last > STALL_MS) {
			f->stalls++;
			give_back_held(f);
			last = zn_now_ms();
		}
	}
	if (f->rx_bytes != f->total || f->nnotif != f->nreq)
		counters(f);
	assert_int_equal(f->bad, 0);
	assert_true(f->eof);
	assert_int_equal(f->rx_bytes, f->total);
	assert_int_equal(f->nnotif, f->nreq);
	assert_int_equal(f->final_res, 0);
}

/* After the sockets closed and every CQE went back: nothing held above the NIC. */
static void check_all_back(struct fx *f)
{
	struct zn_zcrx_stats st;

	give_back_held(f);
	for (int i = 0; i < 100 && rq_unread(f); i++)
		reap(f, 1);
	check_acct(f, &st);
	assert_int_equal(st.user, 0);
	assert_int_equal(st.stack, 0);
	assert_int_equal(st.user_refs, 0);
	assert_int_equal(st.free + st.nic, st.nbufs);
}

static void close_all(struct fx *f)
{
	zn_socket_close(f->afd);
	zn_socket_close(f->bfd);
	f->afd = f->bfd = -1;
	for (int i = 0; i < 20; i++)
		reap(f, 1);
}

static void test_stream(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;

	fx_start(f, 4u << 20, 4u << 20);
	transfer(f, 64u * 1024u, 32);
	check_acct(f, &st);
	/* the registration restarted the queue (bnxt rxq_restart): the pool
	 * buffers posted before it came back, so nothing is copied */
	assert_true(st.zc_bytes > f->total / 2);
	assert_int_equal(st.zc_bytes + st.copy_bytes, f->total);
	assert_int_equal(st.copy_bytes, 0);
	print_message("4 MiB: %llu bytes zero copy, %llu copied, %llu CQEs\n",
		      (unsigned long long)st.zc_bytes, (unsigned long long)st.copy_bytes,
		      (unsigned long long)st.cqes);
	/* after EOF, a new request ends at once with 0 */
	arm(f, 0);
	for (int i = 0; i < 100 && f->armed; i++)
		reap(f, 1);
	assert_false(f->armed);
	assert_int_equal(f->final_res, 0);
	close_all(f);
	check_all_back(f);
}

/*
 * The stream over two mlx5 models with SHAMPO HW-GRO on both (4 KiB area
 * buffers: up to two full segments an aggregate, drivers/mlx5/mlx5_shampo.c):
 * every byte in place in the area, aggregates taken by core/net, the area's
 * books exact, nothing copied by zcrx (the registration restarted the queue). A unit that shares its WQE's buffer with another reaches the
 * area by the driver's copy into a fresh area buffer (counted by the
 * driver, printed).
 */
static void test_stream_mlx5_agg(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	struct zn_netif_stats ns;
	const struct mlx5_rx_stats *ds;

	f->mlx5_agg = true;
	fx_start(f, 4u << 20, 4u << 20);
	transfer(f, 64u * 1024u, 32);
	check_acct(f, &st);
	zn_netif_stats(zn_netdev_netif(f->n.a), &ns);
	ds = &((struct mlx5 *)zn_netdev_port(f->n.a)->priv)->rxq[RXQ]->st;
	assert_true(ns.rx_agg > 0);
	assert_true(ds->agg > 0);
	assert_true(st.zc_bytes > f->total / 2);
	assert_int_equal(st.zc_bytes + st.copy_bytes, f->total);
	/* the registration restarted the queue (mlx5 rxq_restart): none of the
	 * pool's buffers was received into */
	assert_int_equal(st.copy_bytes, 0);
	print_message("mlx5 HW-GRO, 4 MiB: %llu aggregates of %llu segments; %llu bytes in area "
		      "buffers, %llu copied by zcrx; the driver copied %llu of %llu units\n",
		      (unsigned long long)ns.rx_agg, (unsigned long long)ns.rx_agg_segs,
		      (unsigned long long)st.zc_bytes, (unsigned long long)st.copy_bytes,
		      (unsigned long long)ds->agg_copies, (unsigned long long)ds->packets);
	close_all(f);
	check_all_back(f);
}

/* Every 61st frame dropped by each NIC: segments wait out of order (in
 * area buffers, by reference) until the hole is filled; the stream comes
 * out whole and in order, and no buffer goes astray. */
static void test_stream_lossy(void **state)
{
	struct fx *f = *state;
	struct zn_tcp_stats a;

	fx_start_opts(f, ",drop=61", 1u << 20, 2u << 20);
	transfer(f, 64u * 1024u, 32);
	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(f->n.a)), &a);
	counters(f);
	assert_true(a.rx_ooo > 0);
	close_all(f);
	check_all_back(f);
}

/*
 * The forms of a zero-copy send on one stream, in order, each checked by
 * its notification's REPORT_USAGE word: SEND_ZC and SENDMSG_ZC (3 iovecs)
 * from the registered buffer go zero copy (res 0); SENDMSG_ZC from plain
 * memory, SENDMSG_ZC with more iovecs than a frame has pieces, and SEND_ZC
 * from plain memory are copied (IORING_NOTIF_USAGE_ZC_COPIED). A receives
 * the one stream through RECV_ZC, every byte checked.
 */
static void send_msg(struct fx *f, unsigned slot, bool fixed, unsigned niov, uint32_t each,
		     int32_t usage)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);
	uint8_t *base = fixed ? f->tx : f->plain;

	assert_non_null(sqe);
	for (unsigned k = 0; k < niov; k++)
		f->iov[slot][k] = (struct iovec){ base + f->sent + k * each, each };
	f->msg[slot] = (struct msghdr){ .msg_iov = f->iov[slot], .msg_iovlen = niov };
	io_uring_prep_sendmsg_zc(sqe, f->bfd, &f->msg[slot], 0);
	sqe->ioprio = IORING_SEND_ZC_REPORT_USAGE | (fixed ? IORING_RECVSEND_FIXED_BUF : 0);
	sqe->buf_index = 0;
	sqe->user_data = UD_SEND | f->nreq;
	f->sent += (uint64_t)niov * each;
	f->notif_res[f->nreq] = usage;
	f->req_end[f->nreq++] = f->sent;
	f->inflight++;
}

static void send_one(struct fx *f, bool fixed, uint32_t len, int32_t usage)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

	assert_non_null(sqe);
	if (fixed)
		io_uring_prep_send_zc_fixed(sqe, f->bfd, f->tx + f->sent, len, 0,
					    IORING_SEND_ZC_REPORT_USAGE, 0);
	else
		io_uring_prep_send_zc(sqe, f->bfd, f->plain + f->sent, len, 0,
				      IORING_SEND_ZC_REPORT_USAGE);
	sqe->user_data = UD_SEND | f->nreq;
	f->sent += len;
	f->notif_res[f->nreq] = usage;
	f->req_end[f->nreq++] = f->sent;
	f->inflight++;
}

static void test_send_forms(void **state)
{
	struct fx *f = *state;
	const int32_t copied = (int32_t)IORING_NOTIF_USAGE_ZC_COPIED;

	fx_start(f, 1u << 20, 3000 + 3 * 1000 + 3 * 400 + 8 * 100 + 1400);
	f->plain = malloc(f->total);
	assert_non_null(f->plain);
	memcpy(f->plain, f->tx, f->total);
	send_one(f, true, 3000, 0);
	send_msg(f, 0, true, 3, 1000, 0);
	send_msg(f, 1, false, 3, 400, copied);
	send_msg(f, 2, true, 8, 100, copied);
	send_one(f, false, 1400, copied);	/* a copy: at most one bounce buffer */
	assert_int_equal(f->sent, f->total);
	transfer(f, 0, 0);
	close_all(f);
	check_all_back(f);
	free(f->plain);
}

/* 64 requests of 100 bytes queued at once: fewer segments, 64 notifications in order. */
static void test_small_sends(void **state)
{
	struct fx *f = *state;
	struct zn_tcp_stats b0, b1;

	fx_start(f, 1u << 20, 64u * 100u);
	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(f->n.b)), &b0);
	transfer(f, 100, 64);
	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(f->n.b)), &b1);
	print_message("64 x 100 B: %llu data segments\n",
		      (unsigned long long)(b1.tx_data_segs - b0.tx_data_segs));
	assert_int_equal(f->nnotif, 64);
	/* a segment carries as many requests as the NIC takes pieces per frame */
	assert_true(b1.tx_data_segs - b0.tx_data_segs <= 64 / (ZN_TCP_OUT_PIECES) + 2);
	close_all(f);
	check_all_back(f);
}

/* len limits: 1000 bytes, then 5000 (across descriptors), then the rest. */
static void test_len_limit(void **state)
{
	struct fx *f = *state;
	uint64_t end = zn_now_ms() + XFER_MS;

	fx_start(f, 1u << 20, 256u * 1024u);
	queue_sends(f, 64u * 1024u, 4);
	arm(f, 1000);
	while (f->armed && zn_now_ms() < end)
		reap(f, 1);
	assert_int_equal(f->final_res, 0);
	assert_int_equal(f->rx_bytes, 1000);
	assert_false(f->eof && f->rx_bytes != 1000);
	f->eof = false;
	arm(f, 5000);
	while (f->armed && zn_now_ms() < end)
		reap(f, 1);
	assert_int_equal(f->final_res, 0);
	assert_int_equal(f->rx_bytes, 6000);
	f->eof = false;
	transfer(f, 64u * 1024u, 4);
	close_all(f);
	check_all_back(f);
}

/* A small area, every CQE held: the area runs dry, A's window closes with
 * it (the sender stops instead of the NIC dropping), and once the CQEs come
 * back the window update restarts it; every byte arrives once. */
static void test_area_dry(void **state)
{
	struct fx *f = *state;
	struct zn_tcp_stats b;

	fx_start(f, 64u * PAGE, 1u << 20);
	f->hold = true;
	transfer(f, 64u * 1024u, 32);
	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(f->n.b)), &b);
	counters(f);
	assert_true(f->stalls > 0);
	/* the window closed with the area (rx_room): the NIC seldom had to
	 * drop, so few segments went twice (without the bound: about 1 in 5) */
	assert_true(b.retrans * 10 < b.tx_data_segs);
	close_all(f);
	check_all_back(f);
}

/* B resets with data in flight (close while A does not poll: B's send
 * drain times out and it aborts): A gets what arrived before the RST in
 * order, then -ECONNRESET; every buffer is accounted for at each step. */
static void test_reset(void **state)
{
	struct fx *f = *state;
	uint64_t end = zn_now_ms() + XFER_MS;

	fx_start(f, 256u * PAGE, 2u << 20);
	f->hold = true;
	arm(f, 0);
	while (f->rx_bytes < 128u * 1024u && zn_now_ms() < end) {
		queue_sends(f, 64u * 1024u, 32);
		reap(f, 1);
	}
	assert_true(f->rx_bytes >= 128u * 1024u);
	assert_true(f->nnotif < f->nreq);
	zn_socket_close(f->bfd);
	f->bfd = -1;
	check_acct(f, NULL);
	/* A takes the rest: bytes before the RST, then the error */
	f->hold = false;
	give_back_held(f);
	while (f->armed && zn_now_ms() < end)
		reap(f, 1);
	counters(f);
	assert_int_equal(f->bad, 0);
	assert_int_equal(f->final_res, -ECONNRESET);
	assert_true(f->rx_bytes < f->total);
	/* again: the error was told once (Linux clears sk_err), now EOF */
	arm(f, 0);
	for (int i = 0; i < 100 && f->armed; i++)
		reap(f, 1);
	assert_false(f->armed);
	assert_int_equal(f->final_res, 0);
	zn_socket_close(f->afd);
	f->afd = -1;
	check_all_back(f);
}

/* A closes while holding CQEs and with a descriptor half posted (len
 * limit): the socket's references go back, the user's stay until refilled. */
static void test_close_holding(void **state)
{
	struct fx *f = *state;
	uint64_t end = zn_now_ms() + XFER_MS;
	struct zn_zcrx_stats st;

	fx_start(f, 256u * PAGE, 256u * 1024u);
	f->hold = true;
	queue_sends(f, 64u * 1024u, 4);
	arm(f, 3000);		/* cuts a segment: the rest stays in the cursor */
	while (f->armed && zn_now_ms() < end)
		reap(f, 1);
	assert_int_equal(f->rx_bytes, 3000);
	for (int i = 0; i < 50; i++)
		reap(f, 1);
	zn_socket_close(f->afd);
	f->afd = -1;
	for (int i = 0; i < 20; i++)
		reap(f, 1);
	check_acct(f, &st);
	assert_int_equal(st.stack, 0);
	assert_int_equal(st.user_refs, f->nheld);
	assert_int_equal(f->bad, 0);
	zn_socket_close(f->bfd);
	f->bfd = -1;
	check_all_back(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_lossy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_mlx5_agg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_sends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_len_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_area_dry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_holding, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
