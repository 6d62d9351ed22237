/* SPDX-License-Identifier: MIT */
/*
 * cost_tcp: a fixed TCP workload for callgrind (scripts/cost.sh), over an
 * in-process bnxt model pair with the offloads on: LSO on B's sends, TPA
 * (zn_netdev_conf, unless no_rx_agg) on A's receive. Each end has its own ring in
 * this thread, so a ring's progress pass polls its own netdev only:
 *   B: SEND_ZC of BATCH 4 KiB requests from a registered buffer per round
 *   A: one RECV_ZC multishot into a zcrx area on RX queue 1 (an n-tuple
 *      rule steers the port there), every buffer handed back at once
 *
 *   send_zc  measured: B's prep + submit, then B's passes: TCP output, TX,
 *            TX completions, ACK input, result and notification CQEs
 *   zcrx     measured: A's passes: RX, TCP input (aggregates), the ACKs
 *            it sends, RECV_ZC CQEs, the refill (the check of the bytes
 *            between, the app's own work, is not)
 *
 * The unmeasured end runs the same code outside the toggled functions;
 * between passes this thread sleeps so that the model moves the frames
 * (waiting, not collected). Every byte is checked in the area against the
 * stream's pattern.
 *
 *   cost_tcp send_zc|zcrx [ROUNDS]       (default 16 measured rounds)
 *
 * Prints "cost_tcp: MODE: R rounds, N requests, B bytes, G aggregates,
 * S segments, P passes".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "liburing.h"
#include "base/clock.h"
#include "core/net/netif.h"
#include "tests/unit/support/netdev_pair.h"
#include "tests/unit/support/zcrx_user.h"
#include "zcnic/port.h"
#include "zcnic/socket.h"
#include "zcnic/zcrx.h"

#define BATCH		32u
#define REQ		4096u
#define WARMUP		8u
#define PAGE		4096u
#define PORT		5400
#define RXQ		1
#define AREA		(4u << 20)
#define RQ_ENTRIES	2048u
#define MAX_GOT		1024u			/* CQEs of one pass: at most the area */
#define PASS_US		200u			/* the model moves frames meanwhile */
#define IDLE_NS		(10ull * 1000000ull)
#define WAIT_NS		(60ull * 1000000000ull)	/* generous: valgrind, shared cores */

#define DIE(...) do { fprintf(stderr, "cost_tcp: " __VA_ARGS__); fputc('\n', stderr); \
		      exit(1); } while (0)

static bool m_send;
static struct ndp n;
static struct io_uring ra, rb;
static struct io_uring_zcrx_rq rq;
static uint8_t *area, *tx;
static uint64_t token, rx_bytes;
static uint32_t zcrx_id;
static int lfd, afd, bfd;
static struct { uint64_t off; uint32_t len; } got[MAX_GOT];
static unsigned ngot;
static unsigned send_cqes, passes_a, passes_b, idle_passes;

static inline uint8_t pat(uint64_t i)
{
	return (uint8_t)(i ^ (i >> 9) ^ (i >> 17) ^ 0x5a);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		DIE("mmap");
	return p;
}

static void submit_sends(void)
{
	for (unsigned i = 0; i < BATCH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&rb);

		if (!sqe)
			DIE("SQ full");
		io_uring_prep_send_zc_fixed(sqe, bfd, tx + (size_t)i * REQ, REQ, 0, 0, 0);
		sqe->user_data = i;
	}
	if (io_uring_submit(&rb) != (int)BATCH)
		DIE("submit");
}

/* B: its netdev's pass, result CQEs (4096) and notifications (0). */
static unsigned pass_b(void)
{
	struct io_uring_cqe *cqe;
	unsigned head, k = 0;

	io_uring_get_events(&rb);
	io_uring_for_each_cqe(&rb, head, cqe) {
		int32_t want = cqe->flags & IORING_CQE_F_NOTIF ? 0 : (int32_t)REQ;

		if (cqe->res != want || cqe->user_data >= BATCH)
			DIE("send CQE ud %llu res %d flags %x", (unsigned long long)cqe->user_data,
			    cqe->res, cqe->flags);
		k++;
	}
	io_uring_cq_advance(&rb, k);
	send_cqes += k;
	return k;
}

/* A: its netdev's pass, the RECV_ZC CQEs taken (off, len) into got[]. */
static void reap_a(void)
{
	struct io_uring_cqe *cqe;
	unsigned head;

	ngot = 0;
	io_uring_get_events(&ra);
	io_uring_for_each_cqe(&ra, head, cqe) {
		const struct io_uring_zcrx_cqe *z = (const struct io_uring_zcrx_cqe *)(cqe + 1);

		if (!(cqe->flags & IORING_CQE_F_MORE) || cqe->res <= 0 || ngot == MAX_GOT)
			DIE("recv CQE res %d flags %x (%u this pass)", cqe->res, cqe->flags, ngot);
		got[ngot].off = z->off & ~IORING_ZCRX_AREA_MASK;
		got[ngot++].len = (uint32_t)cqe->res;
	}
	io_uring_cq_advance(&ra, ngot);
}

/* Every buffer of the pass back to A's refill ring. */
static void refill_a(void)
{
	uint32_t mask = rq.ring_entries - 1;

	for (unsigned i = 0; i < ngot; i++) {
		struct io_uring_zcrx_rqe *rqe = &rq.rqes[rq.rq_tail & mask];

		rqe->off = got[i].off | token;
		rqe->len = 0;
		rqe->__pad = 0;
		rq.rq_tail++;
	}
	io_uring_smp_store_release(rq.ktail, rq.rq_tail);
}

/* The bytes, in place, against the stream (not measured: the app's own work). */
static void check_a(void)
{
	for (unsigned i = 0; i < ngot; i++) {
		if (got[i].off + got[i].len > AREA)
			DIE("CQE off %llu len %u", (unsigned long long)got[i].off, got[i].len);
		for (uint32_t j = 0; j < got[i].len; j++)
			if (area[got[i].off + j] != pat(rx_bytes + j))
				DIE("byte %llu differs", (unsigned long long)(rx_bytes + j));
		rx_bytes += got[i].len;
	}
}

static void pass_a(void)
{
	reap_a();
	check_a();
	refill_a();
}

static __attribute__((noinline)) void measured_submit(void)
{
	submit_sends();
}

static __attribute__((noinline)) void measured_pass_b(void)
{
	pass_b();
}

static __attribute__((noinline)) void measured_reap_a(void)
{
	reap_a();
}

static __attribute__((noinline)) void measured_refill_a(void)
{
	refill_a();
}

/* Frames the model moved on port i (0: A, 1: B) since the last look. */
static bool moved(unsigned i)
{
	static uint64_t seen[2];
	uint64_t v = btc_counter(&n.sim, i, "port.tx_frames") +
		     btc_counter(&n.sim, i, "port.rx_frames");

	if (v == seen[i])
		return false;
	seen[i] = v;
	return true;
}

/*
 * One round: BATCH requests sent, notified, and received by A. An end's
 * pass runs when the model moved a frame on its port (a little later, for
 * the completions), so that passes find work; a round idle for IDLE_NS
 * (a delayed ACK's timer, say) runs both, counted as idle passes.
 */
static void round_once(bool measured, uint64_t *sent)
{
	uint64_t end = zn_now_ns() + WAIT_NS, last = zn_now_ns();
	bool ma, mb = true;	/* B's first pass: what the submit left queued */

	send_cqes = 0;
	if (measured && m_send)
		measured_submit();
	else
		submit_sends();
	*sent += (uint64_t)BATCH * REQ;
	while (send_cqes < 2 * BATCH || rx_bytes < *sent) {
		if (zn_now_ns() > end)
			DIE("%u of %u send CQEs, %llu of %llu bytes", send_cqes, 2 * BATCH,
			    (unsigned long long)rx_bytes, (unsigned long long)*sent);
		usleep(PASS_US);
		ma = moved(0);
		mb = moved(1) || mb;
		if (!ma && !mb) {
			if (zn_now_ns() - last < IDLE_NS)
				continue;
			ma = mb = true;
			if (measured)
				idle_passes++;
		}
		usleep(PASS_US);
		last = zn_now_ns();
		if (mb) {
			passes_b += measured;
			if (measured && m_send)
				measured_pass_b();
			else
				pass_b();
		}
		if (ma) {
			passes_a += measured;
			if (measured && !m_send) {
				measured_reap_a();
				check_a();
				measured_refill_a();
			} else {
				pass_a();
			}
		}
		mb = false;
	}
	if (send_cqes != 2 * BATCH || rx_bytes != *sent)
		DIE("%u send CQEs, %llu bytes", send_cqes, (unsigned long long)rx_bytes);
}

static void setup_zcrx(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER |
					      IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE,
				     .cq_entries = 4096 };
	struct zcrx_user z = { 0 };
	struct io_uring_sqe *sqe;
	int rc;

	if (io_uring_queue_init_params(64, &ra, &p))
		DIE("ring A");
	rc = zcrx_user_register(&ra, zn_netdev_ifindex(n.a), RXQ, AREA, RQ_ENTRIES, &z);
	if (rc)
		DIE("register ifq: %d", rc);
	area = z.area;
	rq = z.rq;
	zcrx_id = z.zcrx_id;
	token = z.token;
	sqe = io_uring_get_sqe(&ra);
	io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, afd, NULL, 0, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = zcrx_id;
	if (io_uring_submit(&ra) != 1)
		DIE("arm RECV_ZC");
}

/* The pair with offloads, A's listener on RXQ, B connected, both rings. */
static void setup(void)
{
	struct zn_flow_match m = { .ip_version = 4, .ip_proto = IPPROTO_TCP };
	struct zn_addr4 dst, peer;
	struct iovec iov;
	uint64_t end;
	uint32_t rule;
	int rc;

	if (ndp_open_agg(&n, "", 0, 0, true) || ndp_resolve(&n, 5000))
		DIE("netdev pair");
	memcpy(m.dst_ip, &n.ip_a, 4);
	m.dst_port = htons(PORT);
	if (zn_port_flow_add(zn_netdev_port(n.a), &m, RXQ, &rule))
		DIE("flow rule");
	lfd = zn_tcp_socket(n.a, &(struct zn_socket_conf){ .local = { 0, htons(PORT) } });
	bfd = zn_tcp_socket(n.b, &(struct zn_socket_conf){ 0 });
	if (lfd <= 0 || bfd <= 0 || zn_tcp_listen(lfd, 4))
		DIE("sockets");
	dst = (struct zn_addr4){ .ip = n.ip_a, .port = htons(PORT) };
	if (zn_tcp_connect(bfd, &dst, 0) != -EINPROGRESS)
		DIE("connect");
	end = zn_now_ms() + 60000;
	afd = -EAGAIN;
	while (afd == -EAGAIN && zn_now_ms() < end) {
		zn_netdev_poll(n.a);
		zn_netdev_poll(n.b);
		afd = zn_tcp_accept(lfd, &peer, 0);
	}
	while ((rc = zn_tcp_connect(bfd, &dst, 0)) == -EALREADY && zn_now_ms() < end) {
		zn_netdev_poll(n.a);
		zn_netdev_poll(n.b);
	}
	if (afd <= 0 || rc != -EISCONN)
		DIE("accept %d, connect %d", afd, rc);
	setup_zcrx();
	if (io_uring_queue_init(4 * BATCH, &rb,
				IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN))
		DIE("ring B");
	tx = map_anon((size_t)BATCH * REQ);
	iov = (struct iovec){ tx, (size_t)BATCH * REQ };
	if (io_uring_register_buffers(&rb, &iov, 1))
		DIE("register buffers");
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 16;
	struct zn_netif_stats s0 = { 0 }, s1;
	uint64_t sent = 0, bytes0 = 0;

	if (argc < 2 || (strcmp(argv[1], "send_zc") && strcmp(argv[1], "zcrx")))
		DIE("usage: cost_tcp send_zc|zcrx [ROUNDS]");
	m_send = !strcmp(argv[1], "send_zc");
	setup();
	/* the stream's pattern, the same in every round (the buffer is reused) */
	for (unsigned r = 0; r < WARMUP + rounds; r++) {
		for (size_t i = 0; i < (size_t)BATCH * REQ; i++)
			tx[i] = pat(sent + i);
		if (r == WARMUP) {
			zn_netif_stats(zn_netdev_netif(n.a), &s0);
			bytes0 = rx_bytes;
		}
		round_once(r >= WARMUP, &sent);
	}
	zn_netif_stats(zn_netdev_netif(n.a), &s1);
	printf("cost_tcp: %s: %u rounds, %u requests, %llu bytes, %llu aggregates, "
	       "%llu segments in them, %llu frames, passes A %u B %u (%u idle)\n", argv[1], rounds, rounds * BATCH,
	       (unsigned long long)(rx_bytes - bytes0),
	       (unsigned long long)(s1.rx_agg - s0.rx_agg),
	       (unsigned long long)(s1.rx_agg_segs - s0.rx_agg_segs),
	       (unsigned long long)(s1.rx_frames - s0.rx_frames), passes_a, passes_b, idle_passes);
	zn_socket_close(bfd);
	zn_socket_close(afd);
	zn_socket_close(lfd);
	io_uring_queue_exit(&rb);
	io_uring_queue_exit(&ra);
	ndp_close(&n);
	return 0;
}
