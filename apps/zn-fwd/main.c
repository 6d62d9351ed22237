/* SPDX-License-Identifier: MIT */
/*
 * zn-fwd: a small testpmd. Sends generated UDP frames on port0, receives
 * them on port1 (two ports on one wire), checks every byte of every frame,
 * and reports frames/s, drops, per-queue counts and mismatches.
 *
 *   zn-fwd                                    a private zn-nicsim, 2 bnxt ports
 *   zn-fwd --port0 vfio-user:/tmp/s/bnxt0.sock --port1 vfio-user:/tmp/s/bnxt1.sock
 *   zn-fwd -q 4 --sizes 60-9000 --mtu 9000 --frames 1000000
 *
 * One thread: a TX burst on port0, reap its completions, an RX burst on every
 * queue of port1, repeat. At most --window frames are in flight, so that a
 * slow receiver is measured rather than overrun. Frame layout: fwd.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apps/common/open.h"
#include "apps/common/watch.h"
#include "fwd.h"
#include "zcnic/mem.h"
#include "zcnic/nicsim.h"
#include "zcnic/port.h"

#define SEEN_WINDOW		(1u << 20)	/* sequence numbers tracked for duplicates */
#define IDLE_MS			1000	/* no frame for this long: the ones in flight are lost */
#define LINK_WAIT_MS		3000
#define MISMATCH_REPORTS	10	/* mismatches described one by one, then counted */

static struct fwd_opts o;

struct rxq {
	struct zn_pool *pool;
	struct zn_buf_provider prov;
	struct zn_rxq *h;		/* port1's queue, bound once */
	uint64_t frames, bytes;
};

static struct {
	struct zn_nicsim sim;
	struct zn_port *p[2];
	struct zn_port_info info[2];
	struct zn_dma_region *txr, *rxr;
	bool txr_mapped, rxr_mapped;
	bool stopped[2];
	struct zn_pool *txpool;
	struct rxq rxq[MAX_QUEUES];
	struct fwd_frame_cfg fc;
	uint8_t *seen;		/* bit per sequence number in [base, base + SEEN_WINDOW) */
	uint64_t base, next_seq;
	uint64_t sent, received, mismatched, misrouted, duplicate, placement, bad_seg;
	uint64_t bad_cookie, presumed_lost, split, whole;
	uint64_t rx_calls, rx_empty, tx_calls, tx_full, reap_calls, reaped;
	volatile sig_atomic_t stop;	/* the signal that stops the run */
	struct zn_watch watch[2];	/* is each port's device still there? */
	bool gone;
} g;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig)
{
	g.stop = sig;
}

/* ---- DMA memory and the payload buffer provider ---- */

static uint32_t provide(void *ctx, struct zn_buf *bufs, uint32_t n)
{
	struct rxq *q = ctx;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint8_t *b = zn_pool_get(q->pool);
		uint32_t idx;

		if (!b)
			break;
		zn_pool_index(q->pool, b, &idx);
		bufs[i].va = b;
		bufs[i].iova = g.rxr->iova + (uint64_t)(b - (uint8_t *)g.rxr->va);
		bufs[i].id = idx;
	}
	return i;
}

/* Buffers the driver took but will not hand out come back here. */
static void give_back(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct rxq *q = ctx;

	for (uint32_t i = 0; i < n; i++)
		if (ids[i] >= zn_pool_count(q->pool) ||
		    zn_pool_put(q->pool, zn_pool_buf(q->pool, ids[i])))
			g.bad_seg++;
}

static int alloc_memory(void)
{
	uint32_t tx_buf = (fwd_sizes_max(&g.fc.sizes) + 63) & ~63u;
	uint32_t tx_count = o.queues * o.ring_size + o.burst;
	uint32_t rx_count = o.ring_size * 4 + o.burst * ZN_RX_MAX_SEGS;
	size_t rx_per_q = (size_t)rx_count * o.buf_size;
	int rc;

	rc = zn_dma_region_alloc("zn-fwd tx", (size_t)tx_count * tx_buf, -1, 0, &g.txr);
	if (rc)
		return rc;
	rc = zn_pool_create(g.txr, 0, tx_buf, tx_count, &g.txpool);
	if (rc)
		return rc;
	rc = zn_dma_region_alloc("zn-fwd rx", rx_per_q * o.queues, -1, 0, &g.rxr);
	if (rc)
		return rc;
	for (unsigned q = 0; q < o.queues; q++) {
		rc = zn_pool_create(g.rxr, q * rx_per_q, o.buf_size, rx_count, &g.rxq[q].pool);
		if (rc)
			return rc;
		g.rxq[q].prov = (struct zn_buf_provider){
			.buf_size = o.buf_size, .alloc = provide, .put = give_back, .ctx = &g.rxq[q] };
	}
	g.seen = calloc(SEEN_WINDOW / 8, 1);
	return g.seen ? 0 : -ENOMEM;
}

static void free_memory(void)
{
	for (unsigned q = 0; q < MAX_QUEUES; q++)
		if (g.rxq[q].pool)
			zn_pool_destroy(g.rxq[q].pool);
	if (g.txpool)
		zn_pool_destroy(g.txpool);
	if (g.rxr)
		zn_dma_region_free(g.rxr);
	if (g.txr)
		zn_dma_region_free(g.txr);
	free(g.seen);
}

/* ---- Ports ---- */

static int port_up(int i, const char *dev)
{
	struct zn_port_conf pc = {
		.nb_rxq = i == 1 ? o.queues : 1, .nb_txq = i == 0 ? o.queues : 1, .mtu = o.mtu };
	struct zn_txq_conf tc = { .ring_size = o.ring_size, .numa_node = -1 };
	struct zn_dma_region *r = i == 0 ? g.txr : g.rxr;
	struct zn_port *p;
	int rc;

	zn_open_watch();
	rc = zn_port_open(dev, NULL, &g.p[i]);
	zn_open_said("zn-fwd", dev, rc);
	if (rc)
		return rc;
	p = g.p[i];
	zn_port_info(p, &g.info[i]);
	if (pc.nb_rxq > g.info[i].max_rxq || pc.nb_txq > g.info[i].max_txq) {
		fprintf(stderr, "zn-fwd: port%d %s has at most %u RX and %u TX queues; asked for "
			"%u (--queues)\n", i, dev, g.info[i].max_rxq, g.info[i].max_txq,
			i ? pc.nb_rxq : pc.nb_txq);
		return -EINVAL;
	}
	rc = zn_port_configure(p, &pc);
	if (rc) {
		fprintf(stderr, "zn-fwd: port%d: configure (%u RX, %u TX queues, MTU %u) failed: "
			"%s\n", i, pc.nb_rxq, pc.nb_txq, o.mtu, strerror(-rc));
		return rc;
	}
	/* Our buffers must be reachable by the device before it is given any. */
	rc = zn_bus_dma_map(p->bus, r);
	if (rc && rc != -EEXIST) {
		fprintf(stderr, "zn-fwd: port%d: DMA mapping of %zu bytes failed: %s\n", i, r->len,
			strerror(-rc));
		return rc;
	}
	*(i == 0 ? &g.txr_mapped : &g.rxr_mapped) = rc == 0;
	for (uint16_t q = 0; q < pc.nb_rxq; q++) {
		struct zn_rxq_conf rc_ = {
			.ring_size = o.ring_size, .hds_thresh = o.hds_thresh,
			.hdr_buf_size = o.hdr_buf, .numa_node = -1,
			/* port0 receives nothing: let its driver carve its own buffers */
			.payload = i == 1 ? &g.rxq[q].prov : NULL,
		};

		rc = zn_port_rxq_setup(p, q, &rc_);
		if (rc) {
			fprintf(stderr, "zn-fwd: port%d: RX queue %u set-up failed: %s\n", i, q,
				strerror(-rc));
			return rc;
		}
		if (i == 1)
			g.rxq[q].h = zn_port_rxq(p, q);
	}
	for (uint16_t q = 0; q < pc.nb_txq; q++) {
		rc = zn_port_txq_setup(p, q, &tc);
		if (rc) {
			fprintf(stderr, "zn-fwd: port%d: TX queue %u set-up failed: %s\n", i, q,
				strerror(-rc));
			return rc;
		}
	}
	rc = zn_port_start(p);
	if (rc)
		fprintf(stderr, "zn-fwd: port%d: start failed: %s\n", i, strerror(-rc));
	return rc;
}

static void port_down(int i)
{
	struct zn_dma_region *r = i == 0 ? g.txr : g.rxr;
	bool *mapped = i == 0 ? &g.txr_mapped : &g.rxr_mapped;

	if (!g.p[i])
		return;
	if (!g.stopped[i])
		zn_port_stop(g.p[i]);
	if (*mapped)
		zn_bus_dma_unmap(g.p[i]->bus, r);
	*mapped = false;
	zn_port_close(g.p[i]);
	g.p[i] = NULL;
}

/* RSS over every queue of port1, with the well-known Toeplitz key. */
static int setup_rss(void)
{
	static const uint8_t key[ZN_RSS_KEY_LEN] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
		0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
		0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
		0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	};
	struct zn_rss_conf rss = {
		.hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV4_UDP | ZN_RSS_IPV4_TCP |
			      ZN_RSS_IPV6 | ZN_RSS_IPV6_UDP | ZN_RSS_IPV6_TCP,
	};
	int rc;

	memcpy(rss.key, key, sizeof(key));
	rss.table_size = g.info[1].rss_table_size ? g.info[1].rss_table_size : 64;
	if (rss.table_size > ZN_RSS_MAX_TABLE)
		rss.table_size = ZN_RSS_MAX_TABLE;
	for (uint32_t i = 0; i < rss.table_size; i++)
		rss.table[i] = (uint16_t)(i % o.queues);
	rc = zn_port_rss_set(g.p[1], &rss);
	if (rc)
		fprintf(stderr, "zn-fwd: port1: RSS over %u queues failed: %s\n", o.queues,
			strerror(-rc));
	return rc;
}

static int add_rules(void)
{
	for (unsigned i = 0; i < o.nrules; i++) {
		int rc = zn_port_flow_add(g.p[1], &o.rules[i].m, o.rules[i].queue, &o.rules[i].id);

		if (rc) {
			fprintf(stderr, "zn-fwd: port1: rule %u (to queue %u) failed: %s\n", i + 1,
				o.rules[i].queue, strerror(-rc));
			return rc;
		}
		o.rules[i].added = true;
	}
	return 0;
}

static void wait_link(void)
{
	uint64_t deadline = now_ns() + LINK_WAIT_MS * 1000000ull;

	for (int i = 0; i < 2; i++) {
		struct zn_link l = { 0 };

		while (zn_port_link(g.p[i], &l) == 0 && !l.up && now_ns() < deadline) {
			struct timespec ts = { 0, 10000000L };

			nanosleep(&ts, NULL);
		}
		if (!l.up)
			fprintf(stderr, "zn-fwd: warning: port%d link is down after %d ms; "
				"sending anyway\n", i, LINK_WAIT_MS);
	}
}

/* ---- Accounting ---- */

static bool seen_test_set(uint64_t seq)
{
	uint8_t *b = &g.seen[(seq % SEEN_WINDOW) / 8], bit = (uint8_t)(1u << (seq % 8));
	bool was = *b & bit;

	*b |= bit;
	return was;
}

/* Make room for seq: sequence numbers falling out of the window are final. */
static void seen_slide(uint64_t seq)
{
	while (seq >= g.base + SEEN_WINDOW) {
		g.seen[(g.base % SEEN_WINDOW) / 8] &= (uint8_t)~(1u << (g.base % 8));
		g.base++;
	}
}

/* The queue rules say a flow must arrive on, or -1 (RSS decides). */
static int rule_queue(uint32_t flow)
{
	for (unsigned i = 0; i < o.nrules; i++) {
		const struct fwd_rule *r = &o.rules[i];

		if (r->m.ip_proto != 17 || (r->has_src && r->src != FWD_SRC_IP) ||
		    (r->has_dst && r->dst != FWD_DST_IP) ||
		    (r->m.src_port && ntohs(r->m.src_port) != FWD_SPORT0 + flow) ||
		    (r->m.dst_port && ntohs(r->m.dst_port) != FWD_DPORT0 + flow))
			continue;
		return r->queue;
	}
	return -1;
}

static void mismatch(const char *what, uint16_t q, const struct zn_rx_pkt *pkt, uint64_t seq,
		     uint32_t off)
{
	g.mismatched++;
	if (g.mismatched <= MISMATCH_REPORTS)
		fprintf(stderr, "zn-fwd: mismatch: queue %u, seq %" PRIu64 ", %u bytes (%u in the "
			"header buffer, %u segments): %s at offset %u\n", q, seq, pkt->pkt_len,
			pkt->hdr_len, pkt->nseg, what, off);
	else if (g.mismatched == MISMATCH_REPORTS + 1)
		fprintf(stderr, "zn-fwd: more mismatches: counted, not shown\n");
}

/* Placement rule of --check-hds (include/zcnic/port.h, struct zn_rxq_conf). */
static bool placement_ok(const struct zn_rx_pkt *pkt)
{
	if (pkt->pkt_len > o.hds_thresh)
		return (pkt->flags & ZN_RX_F_SPLIT) && pkt->hdr_len == FWD_HDR_LEN && pkt->nseg > 0;
	if (pkt->pkt_len <= o.hdr_buf)
		return !(pkt->flags & ZN_RX_F_SPLIT) && pkt->hdr_len == pkt->pkt_len &&
		       pkt->nseg == 0;
	return !(pkt->flags & ZN_RX_F_SPLIT);
}

/*
 * The three data-path calls, out of line so that callgrind can count exactly
 * the driver's work per burst (scripts/bench-bnxt.sh: --toggle-collect).
 */
__attribute__((noinline)) static uint32_t fwd_rx_burst(uint16_t q, struct zn_rx_pkt *pkts,
						       uint32_t n)
{
	return zn_rxq_burst(g.rxq[q].h, pkts, n);
}

__attribute__((noinline)) static uint32_t fwd_tx_burst(uint16_t q, const struct zn_tx_pkt *pkts,
						       uint32_t n)
{
	return zn_port_tx_burst(g.p[0], q, pkts, n);
}

__attribute__((noinline)) static uint32_t fwd_tx_reap(uint16_t q, uint64_t *cookies, uint32_t n)
{
	return zn_port_tx_reap(g.p[0], q, cookies, n);
}

static void rx_one(uint16_t q, const struct zn_rx_pkt *pkt)
{
	struct rxq *rq = &g.rxq[q];
	struct fwd_piece pc[1 + ZN_RX_MAX_SEGS];
	uint32_t total = pkt->hdr_len, off = 0, count = zn_pool_count(rq->pool);
	unsigned npc = 0;
	uint64_t seq = 0;
	enum fwd_verdict v;
	bool segs_ok = pkt->nseg <= ZN_RX_MAX_SEGS;

	if (pkt->hdr_len)
		pc[npc++] = (struct fwd_piece){ pkt->hdr, pkt->hdr_len };
	for (uint32_t s = 0; segs_ok && s < pkt->nseg; s++) {
		const uint8_t *b;

		/* the address the segment carries must be its buffer's */
		if (pkt->seg[s].buf_id >= count || pkt->seg[s].off > o.buf_size ||
		    pkt->seg[s].len > o.buf_size - pkt->seg[s].off ||
		    pkt->seg[s].va != zn_pool_buf(rq->pool, pkt->seg[s].buf_id)) {
			segs_ok = false;
			break;
		}
		b = pkt->seg[s].va;
		pc[npc++] = (struct fwd_piece){ b + pkt->seg[s].off, pkt->seg[s].len };
		total += pkt->seg[s].len;
	}
	if (!segs_ok) {
		g.bad_seg++;
		mismatch("a segment outside the payload buffers", q, pkt, 0, 0);
		goto give_back;
	}
	if (total != pkt->pkt_len) {
		mismatch("pkt_len differs from the sum of its pieces", q, pkt, 0, total);
		goto give_back;
	}
	v = fwd_frame_verify(&g.fc, pc, npc, &seq, &off);
	if (v != FWD_OK) {
		mismatch(fwd_verdict_str(v), q, pkt, seq, off);
		goto give_back;
	}
	if (seq >= g.next_seq) {
		mismatch("a sequence number never sent", q, pkt, seq, 0);
		goto give_back;
	}
	if (seq < g.base || seen_test_set(seq)) {
		g.duplicate++;
		goto give_back;
	}
	g.received++;
	rq->frames++;
	rq->bytes += pkt->pkt_len;
	if (pkt->queue != q) {
		g.misrouted++;
	} else {
		int want = rule_queue(fwd_frame_flow(&g.fc, seq));

		if (want >= 0 && want != q)
			g.misrouted++;
	}
	if (pkt->flags & ZN_RX_F_SPLIT)
		g.split++;
	else
		g.whole++;
	if (o.check_hds && !placement_ok(pkt)) {
		g.placement++;
		if (g.placement <= MISMATCH_REPORTS)
			fprintf(stderr, "zn-fwd: placement: seq %" PRIu64 ", %u bytes, threshold %u: "
				"%u bytes in the header buffer, %u segments, %s\n", seq, pkt->pkt_len,
				o.hds_thresh, pkt->hdr_len, pkt->nseg,
				pkt->flags & ZN_RX_F_SPLIT ? "split" : "not split");
	}
give_back:
	/* The payload buffers are ours now; they go back to the provider. */
	for (uint32_t s = 0; s < pkt->nseg && s < ZN_RX_MAX_SEGS; s++) {
		if (pkt->seg[s].buf_id >= count)
			continue;
		if (zn_pool_put(rq->pool, zn_pool_buf(rq->pool, pkt->seg[s].buf_id))) {
			g.bad_seg++;
			mismatch("a payload buffer handed out twice", q, pkt, seq, 0);
		}
	}
}

static uint32_t rx_all(void)
{
	static struct zn_rx_pkt pkts[MAX_BURST];
	uint32_t got = 0;

	for (uint16_t q = 0; q < o.queues; q++) {
		uint32_t n = fwd_rx_burst(q, pkts, o.burst);

		g.rx_calls++;
		if (!n)
			g.rx_empty++;
		for (uint32_t i = 0; i < n; i++)
			rx_one(q, &pkts[i]);
		got += n;
	}
	return got;
}

static void reap_all(void)
{
	uint64_t cookies[MAX_BURST];
	uint32_t count = zn_pool_count(g.txpool);

	for (uint16_t q = 0; q < o.queues; q++) {
		uint32_t n = fwd_tx_reap(q, cookies, MAX_BURST);

		g.reap_calls++;
		g.reaped += n;
		for (uint32_t i = 0; i < n; i++)
			if (cookies[i] >= count ||
			    zn_pool_put(g.txpool, zn_pool_buf(g.txpool, (uint32_t)cookies[i])))
				g.bad_cookie++;
	}
}

static uint32_t tx_one_burst(uint16_t q, uint64_t limit)
{
	static struct zn_tx_pkt pkts[MAX_BURST];
	uint32_t n = o.burst, k;

	if (n > limit)
		n = (uint32_t)limit;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *b = zn_pool_get(g.txpool);
		uint32_t idx;

		if (!b) {
			n = i;
			break;
		}
		zn_pool_index(g.txpool, b, &idx);
		pkts[i].seg[0].iova = g.txr->iova + (uint64_t)(b - (uint8_t *)g.txr->va);
		pkts[i].seg[0].len = fwd_frame_build(&g.fc, g.next_seq + i, b);
		pkts[i].nseg = 1;
		if (o.tx_split) {
			/* headers and payload as two segments, as send_zc gives them */
			pkts[i].seg[1].iova = pkts[i].seg[0].iova + FWD_HDR_LEN;
			pkts[i].seg[1].len = pkts[i].seg[0].len - FWD_HDR_LEN;
			pkts[i].seg[0].len = FWD_HDR_LEN;
			pkts[i].nseg = 2;
		}
		pkts[i].cookie = idx;
	}
	if (!n)
		return 0;
	seen_slide(g.next_seq + n - 1);
	k = fwd_tx_burst(q, pkts, n);
	g.tx_calls++;
	if (k < n)
		g.tx_full++;
	for (uint32_t i = k; i < n; i++)
		zn_pool_put(g.txpool, zn_pool_buf(g.txpool, (uint32_t)pkts[i].cookie));
	g.next_seq += k;
	g.sent += k;
	return k;
}

/* Frames that are no longer in flight: arrived (intact or not) or given up on. */
static uint64_t accounted(void)
{
	return g.received + g.mismatched + g.duplicate + g.presumed_lost;
}

static void pace(void)
{
	struct timespec ts = { o.pace_us / 1000000, (long)(o.pace_us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

static void run(uint64_t *elapsed_ns)
{
	uint64_t t0 = now_ns(), last_rx = t0, t_last = t0;
	uint64_t dur_ns = (uint64_t)(o.duration * 1e9);
	uint16_t txq = 0;
	bool sending = true;

	for (;;) {
		uint64_t t = now_ns(), done = accounted(), inflight = g.sent > done ? g.sent - done : 0;

		for (unsigned i = 0; i < 2 && !g.gone; i++) {
			if (zn_watch_gone(&g.watch[i], g.p[i])) {
				fprintf(stderr, "zn-fwd: port%u: the device stopped answering (%s): "
					"stopping\n", i, strerror(-g.watch[i].err));
				g.gone = true;
			}
		}
		if (g.gone)
			break;	/* nothing in flight will arrive */
		if (g.stop || (o.duration > 0 ? t - t0 >= dur_ns : g.sent >= o.frames))
			sending = false;
		if (sending && inflight < o.window) {
			uint64_t limit = o.window - inflight;

			if (!(o.duration > 0) && o.frames - g.sent < limit)
				limit = o.frames - g.sent;
			if (tx_one_burst(txq, limit) && o.pace_us)
				pace();
			txq = (uint16_t)((txq + 1) % o.queues);
		}
		reap_all();
		if (rx_all()) {
			last_rx = now_ns();
			t_last = last_rx;
		} else if (o.pace_us) {
			pace();	/* keep empty polls out of what is being counted */
		}
		if (!sending && (accounted() >= g.sent ||
				 now_ns() - last_rx > IDLE_MS * 1000000ull))
			break;
		if (sending && inflight >= o.window && now_ns() - last_rx > IDLE_MS * 1000000ull) {
			/* Lost on the way: stop waiting for them. */
			g.presumed_lost += inflight;
			last_rx = now_ns();
		}
	}
	reap_all();
	*elapsed_ns = t_last - t0;
}

static void summary(uint64_t elapsed_ns)
{
	double s = elapsed_ns / 1e9;
	uint64_t bytes = 0, arrived = g.received + g.mismatched;
	uint64_t dropped = g.sent > arrived ? g.sent - arrived : 0;
	struct zn_queue_stats st, sum = { 0 };

	for (uint16_t q = 0; q < o.queues; q++) {
		bytes += g.rxq[q].bytes;
		if (zn_port_rxq_stats(g.p[1], q, &st) == 0) {
			sum.drops += st.drops;
			sum.errors += st.errors;
			sum.bad_cmpl += st.bad_cmpl;
		}
	}
	printf("zn-fwd: %" PRIu64 " sent, %" PRIu64 " received, %" PRIu64 " dropped, %" PRIu64
	       " mismatched, %" PRIu64 " misrouted, %" PRIu64 " duplicate, %" PRIu64
	       " placement errors in %.3f s: %.0f frames/s, %.3f Gbit/s\n",
	       g.sent, g.received, dropped, g.mismatched, g.misrouted, g.duplicate, g.placement, s,
	       s > 0 ? g.received / s : 0.0, s > 0 ? bytes * 8 / s / 1e9 : 0.0);
	printf("zn-fwd: per queue:");
	for (uint16_t q = 0; q < o.queues; q++)
		printf(" q%u=%" PRIu64, q, g.rxq[q].frames);
	printf("; split %" PRIu64 ", whole %" PRIu64 "; port1 driver: %" PRIu64 " no-buffer drops, %"
	       PRIu64 " error completions, %" PRIu64 " bad completions\n", g.split, g.whole,
	       sum.drops, sum.errors, sum.bad_cmpl);
	printf("zn-fwd: bursts: rx %" PRIu64 " (%" PRIu64 " empty), tx %" PRIu64 " (%" PRIu64
	       " not taken whole), reap %" PRIu64 " (%" PRIu64 " frames), bad cookies %" PRIu64
	       "\n", g.rx_calls, g.rx_empty, g.tx_calls, g.tx_full, g.reap_calls, g.reaped,
	       g.bad_cookie);
}

/* Once port1 stopped, every payload buffer must be home (port.h, ownership). */
static bool buffers_home(void)
{
	uint64_t missing = 0;

	zn_port_stop(g.p[1]);
	g.stopped[1] = true;
	for (uint16_t q = 0; q < o.queues; q++)
		missing += zn_pool_count(g.rxq[q].pool) - zn_pool_avail(g.rxq[q].pool);
	if (missing || g.bad_seg)
		fprintf(stderr, "zn-fwd: port1 stopped but %" PRIu64 " payload buffers are not back "
			"in their pools (%" PRIu64 " bad segment or returned twice)\n", missing,
			g.bad_seg);
	return !missing && !g.bad_seg;
}

static void describe(void)
{
	char sizes[256] = "";
	size_t n = 0;

	for (unsigned i = 0; i < g.fc.sizes.n && n < sizeof(sizes); i++) {
		if (g.fc.sizes.item[i].lo == g.fc.sizes.item[i].hi)
			n += (size_t)snprintf(sizes + n, sizeof(sizes) - n, "%s%u", i ? "," : "",
					      g.fc.sizes.item[i].lo);
		else
			n += (size_t)snprintf(sizes + n, sizeof(sizes) - n, "%s%u-%u", i ? "," : "",
					      g.fc.sizes.item[i].lo, g.fc.sizes.item[i].hi);
	}
	printf("zn-fwd: %s (%s %04x:%04x) -> %s (%s %04x:%04x); %u queue(s), MTU %u, sizes %s, "
	       "burst %u, %u flows, %u rule(s), HDS threshold %u\n",
	       g.p[0]->bus->name, g.info[0].driver, g.info[0].vendor, g.info[0].device,
	       g.p[1]->bus->name, g.info[1].driver, g.info[1].vendor, g.info[1].device,
	       o.queues, o.mtu, sizes, o.burst, g.fc.nflows, o.nrules, o.hds_thresh);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t elapsed = 0;
	int rc, ret = 1;

	fwd_parse_args(&o, argc, argv);
	if (o.quiet)
		zn_quiet_logs();
	g.fc.nflows = o.nflows;
	g.fc.sizes = o.sizes;
	fwd_pattern_init();
	g.sim.pid = -1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!o.port0) {
		if (zn_nicsim_start(&g.sim, "zn-fwd", o.sim_opts))
			return 1;
		if (!o.quiet)
			printf("zn-fwd: no --port0/--port1 given: started zn-nicsim (pid %d) with "
			       "two bnxt ports on a pair wire in %s; it stops when zn-fwd exits\n",
			       (int)g.sim.pid, g.sim.dir);
		fflush(stdout);
		o.port0 = g.sim.port[0];
		o.port1 = g.sim.port[1];
	}
	rc = alloc_memory();
	if (rc) {
		fprintf(stderr, "zn-fwd: cannot allocate DMA memory: %s\n", strerror(-rc));
		goto out;
	}
	if (port_up(0, o.port0) || port_up(1, o.port1))
		goto out;
	memcpy(g.fc.src_mac, g.info[0].mac, 6);
	memcpy(g.fc.dst_mac, g.info[1].mac, 6);
	if ((o.queues > 1 && setup_rss()) || add_rules())
		goto out;
	if (!o.quiet)
		describe();
	wait_link();
	run(&elapsed);
	summary(elapsed);
	ret = g.mismatched || g.misrouted || g.duplicate || g.placement || g.bad_cookie ||
	      !g.received || g.gone;
	if (!g.gone && !buffers_home())
		ret = 1;
	if (!g.received && !g.mismatched && !g.gone)
		fprintf(stderr, "zn-fwd: nothing arrived on port1: are the ports on one wire?\n");
out:
	for (unsigned i = 0; i < o.nrules; i++)
		if (o.rules[i].added && zn_port_flow_del(g.p[1], o.rules[i].id))
			fprintf(stderr, "zn-fwd: port1: freeing rule %u failed\n", i + 1);
	port_down(1);
	port_down(0);
	free_memory();
	zn_nicsim_stop(&g.sim);
	return zn_exit_status(g.stop, ret);
}

