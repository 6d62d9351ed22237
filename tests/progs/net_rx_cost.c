/* SPDX-License-Identifier: MIT */
/*
 * net_rx_cost: a fixed receive workload for callgrind through the whole
 * receive side: the bnxt driver's burst, core/net (classify, deliver to the
 * UDP endpoint) and RECV_ZC (zcrx CQEs). Netdev B of an in-process
 * zn-nicsim pair sends ROUNDS x BATCH datagrams to a zcnic UDP socket on A
 * whose RX queue is bound to a zcrx area; each round waits until B's NIC
 * sent the batch and the model had time to place it in A's completion
 * ring, then runs A's ring (poll_a: its poll hook runs zn_netif_rx, then
 * RECV_ZC's serve) until the batch is in; every CQE's bytes are checked and its
 * buffer given back through the refill ring.
 *
 * Warm-up rounds first, so that the pool buffers posted before the area was
 * swapped in (copied, not zero-copy) are used up: the measured rounds are
 * all zero-copy. scripts/cost-rx.sh runs two round counts under callgrind
 * and divides the difference by the frames between them, so that set-up
 * and warm-up cancel out.
 *
 *   net_rx_cost [ROUNDS [PAYLOAD_BYTES]]     (default 16 rounds, 64 bytes)
 *
 * Prints "net_rx_cost: F frames, P polls, E extra polls" (extra: polls
 * beyond one per round, when the model was slower than the wait).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "liburing.h"
#include "base/clock.h"
#include "core/net/netif.h"
#include "tests/unit/support/netdev_pair.h"
#include "tests/unit/support/zcrx_user.h"
#include "zcnic/mem.h"
#include "zcnic/net.h"
#include "zcnic/socket.h"

#define PAGE		4096u
#define BATCH		32u		/* the netif's burst: one burst per round */
#define WARMUP		10u		/* 320 frames: past the 255 pool buffers posted */
#define RX_RING		128		/* 127 header slots: a burst's 32 held, 95 for the next */
#define RXQ		1
#define PORT_A		5000
#define PORT_B		7000
#define AREA		(4u << 20)	/* 1024 buffers: 255 posted, the rest for copies and the app */
#define RQ_ENTRIES	256u
#define UD		0x5a11
#define WAIT_NS		(60ull * 1000000000ull)	/* generous: valgrind, shared cores */

static struct ndp n;
static struct io_uring ring;
static struct io_uring_zcrx_rq rq;
static uint8_t *area;
static uint64_t token;
static uint32_t zcrx_id;
static uint64_t frames, polls, got_bytes, want_bytes, tx_completed;
static uint32_t payload = 64;

#define DIE(...) do { fprintf(stderr, "net_rx_cost: " __VA_ARGS__); fputc('\n', stderr); \
		      exit(1); } while (0)

static uint64_t now_ns(void)
{
	return zn_now_ns();
}

/* B's sends come back here once its NIC is done with them. */
static void tx_done(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status)
{
	(void)arg;
	(void)ep;
	(void)cookie;
	if (status)
		DIE("send failed: %d", status);
	tx_completed++;
}

static void setup_zcrx(int fd)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER |
					      IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE,
				     .cq_entries = 4096 };
	struct zcrx_user z = { 0 };
	struct io_uring_sqe *sqe;
	int rc;

	if (io_uring_queue_init_params(8, &ring, &p))
		DIE("ring");
	rc = zcrx_user_register(&ring, zn_netdev_ifindex(n.a), RXQ, AREA, RQ_ENTRIES, &z);
	if (rc)
		DIE("register_ifq: %d", rc);
	area = z.area;
	rq = z.rq;
	zcrx_id = z.zcrx_id;
	token = z.token;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, fd, NULL, 0, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = zcrx_id;
	sqe->user_data = UD;
	if (io_uring_submit(&ring) != 1)
		DIE("submit");
}

/* Check each data CQE's bytes (byte j of a datagram: its seq + j) and give it back. */
static void reap(void)
{
	struct io_uring_cqe *cqe;
	unsigned head, k = 0;

	io_uring_for_each_cqe(&ring, head, cqe) {
		const struct io_uring_zcrx_cqe *z = (const void *)(cqe + 1);
		uint64_t off = z->off & ~IORING_ZCRX_AREA_MASK;
		struct io_uring_zcrx_rqe *e;

		if (cqe->user_data != UD || !(cqe->flags & IORING_CQE_F_MORE) || cqe->res <= 0)
			DIE("CQE res %d flags %x", cqe->res, cqe->flags);
		for (int i = 0; i < cqe->res; i++) {
			uint64_t at = got_bytes + (uint64_t)i;
			uint8_t want = (uint8_t)(at / payload + at % payload);

			if (area[off + (uint64_t)i] != want)
				DIE("byte %llu: 0x%02x, want 0x%02x", (unsigned long long)at,
				    area[off + (uint64_t)i], want);
		}
		got_bytes += (uint64_t)cqe->res;
		if (rq.rq_tail - __atomic_load_n(rq.khead, __ATOMIC_ACQUIRE) >= rq.ring_entries)
			DIE("refill ring full");
		e = &rq.rqes[rq.rq_tail++ & (rq.ring_entries - 1)];
		e->off = off | token;
		e->len = (uint32_t)cqe->res;
		e->__pad = 0;
		k++;
	}
	io_uring_cq_advance(&ring, k);
	__atomic_store_n(rq.ktail, rq.rq_tail, __ATOMIC_RELEASE);
}

/* A's ring, once: what callgrind counts (scripts/cost-rx.sh toggles on it). */
static __attribute__((noinline)) void poll_a(void)
{
	io_uring_get_events(&ring);
}

static void round_trip(struct zn_udp_ep *tx, struct zn_dma_region *txr)
{
	struct zn_addr4 dst = { n.ip_a, htons(PORT_A) };
	uint64_t end = now_ns() + WAIT_NS;
	uint64_t base = tx_completed, placed = btc_counter(&n.sim, 0, "rx_frames");
	uint32_t sent;

	for (uint32_t i = 0; i < BATCH; i++) {
		uint8_t *b = (uint8_t *)txr->va + (size_t)i * PAGE;
		uint64_t dg = want_bytes / payload;

		for (uint32_t j = 0; j < payload; j++)
			b[j] = (uint8_t)(dg + j);
		if (zn_udp_send_buf(tx, &dst, b, payload, i))
			DIE("send");
		want_bytes += payload;
	}
	while ((sent = (uint32_t)(tx_completed - base)) < BATCH) {
		if (now_ns() > end)
			DIE("B did not send");
		zn_netdev_poll(n.b);
		if (tx_completed - base < BATCH)
			usleep(100);	/* the model's thread runs (valgrind runs one thread at a time) */
	}
	/* the model places the frames in A's completion ring: wait until it
	 * counted all of them, so that no poll_a is spent on a batch still in
	 * flight (an empty or partial pass would count toward the difference
	 * of two runs and make it noise on a loaded machine) */
	while (btc_counter(&n.sim, 0, "rx_frames") - placed < BATCH) {
		if (now_ns() > end)
			DIE("A's model placed %llu of %u frames",
			    (unsigned long long)(btc_counter(&n.sim, 0, "rx_frames") - placed), BATCH);
		usleep(1000);
	}
	usleep(2000);	/* the completions' valid bits follow the count */
	while (got_bytes < want_bytes) {
		if (now_ns() > end)
			DIE("A got %llu of %llu bytes", (unsigned long long)got_bytes,
			    (unsigned long long)want_bytes);
		poll_a();
		polls++;
		reap();
	}
	/* the refill entries are taken by the next pass */
	frames += BATCH;
}

int main(int argc, char **argv)
{
	struct zn_udp_conf uc = { .local = { 0, htons(PORT_B) }, .no_steer = true,
				  .tx_done = tx_done };
	uint32_t rounds = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 16;
	struct zn_dma_region *txr;
	struct zn_udp_ep *tx;
	uint64_t warm_polls;
	int fd;

	if (argc > 2)
		payload = (uint32_t)strtoul(argv[2], NULL, 0);
	if (!payload || payload > 1472)
		DIE("payload 1..1472 bytes");
	if (ndp_open_ex(&n, "", 0, RX_RING) || ndp_resolve(&n, 5000))
		DIE("netdev pair");
	fd = zn_udp_socket(n.a, &(struct zn_socket_conf){ .local = { 0, htons(PORT_A) },
							   .rxq = RXQ });
	if (fd <= 0)
		DIE("socket");
	if (zn_udp_open(zn_netdev_netif(n.b), &uc, &tx))
		DIE("sender");
	if (zn_dma_region_alloc("cost-tx", (size_t)BATCH * PAGE, -1, ZN_DMA_NO_HUGE, &txr) ||
	    zn_netdev_dma_map(n.b, txr))
		DIE("tx memory");
	setup_zcrx(fd);
	for (uint32_t r = 0; r < WARMUP; r++)
		round_trip(tx, txr);
	warm_polls = polls;
	for (uint32_t r = 0; r < rounds; r++)
		round_trip(tx, txr);
	printf("net_rx_cost: %llu frames, %llu polls, %llu extra polls\n",
	       (unsigned long long)frames, (unsigned long long)polls,
	       (unsigned long long)(polls - warm_polls - rounds));
	io_uring_queue_exit(&ring);
	zn_socket_close(fd);
	zn_udp_close(tx);
	zn_netdev_dma_unmap(n.b, txr);
	ndp_close(&n);
	zn_dma_region_free(txr);
	return 0;
}
