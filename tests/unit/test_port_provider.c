/*
 * zn_port_rxq_set_provider over the real bnxt driver: two bnxt models of
 * zn-nicsim on a pair wire, port B sends numbered UDP frames, port A
 * receives them with header-data split. The swapped-in provider's memory is
 * an adopted anonymous mapping (zn_mem_adopt), DMA-mapped over vfio-user:
 * the model writes payloads into it. Checked: frames before the swap and
 * the AGG buffers posted at the swap land in the pool, later ones in the
 * provider; ids route back to their provider on put; detached() exactly
 * once, only after the last buffer came back (or at close); swapping back
 * to NULL returns to the pool; a stopped port; buf_size mismatch; counts
 * exact; payload bytes intact across every swap. Those tests run port A
 * without the driver's rxq_restart (as a driver that lacks it), so that
 * buffers posted before a swap are received into; test_swap_restarts_queue
 * runs it as it is: the swap restarts the queue and takes effect at once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <cmocka.h>

#include "base/clock.h"
#include "core/port/port_pool.h"
#include "tests/unit/support/bnxt_test_client.h"
#include "tests/unit/support/port_open.h"
#include "zcnic/log.h"
#include "zcnic/mem.h"
#include "zcnic/port.h"

#define WAIT_NS		(3ull * 1000000000ull)
#define RING		64
#define BUF		2048
#define NB		512		/* buffers of a test provider */
#define ROUND		16		/* frames sent, then received */
#define FRAME_MAX	1514
/* AGG buffers the bnxt driver keeps posted: 2 per RX slot (BNXT_AGG_FACTOR)
 * less the one ring slot left empty; refilled to full after every burst. */
#define POSTED		(2 * RING - 1)

struct tp {
	struct zn_buf_provider p;
	uint8_t *mem;			/* adopted anonymous memory */
	struct zn_dma_region *r;
	uint8_t out[NB];
	uint32_t nout, allocs, bad_put, detached, nout_at_detach;
};

static uint32_t tp_alloc(void *ctx, struct zn_buf *b, uint32_t n)
{
	struct tp *t = ctx;
	uint32_t i = 0;

	for (uint32_t k = 0; k < NB && i < n; k++) {
		if (t->out[k])
			continue;
		t->out[k] = 1;
		b[i].id = k;
		b[i].va = t->mem + (size_t)k * BUF;
		b[i].iova = t->r->iova + (uint64_t)k * BUF;
		i++;
	}
	t->nout += i;
	t->allocs += i;
	return i;
}

static void tp_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct tp *t = ctx;

	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] >= NB || !t->out[ids[i]]) {
			t->bad_put++;
			continue;
		}
		t->out[ids[i]] = 0;
		t->nout--;
	}
}

static uint8_t *tp_va(void *ctx, uint32_t id)
{
	struct tp *t = ctx;

	return id < NB ? t->mem + (size_t)id * BUF : NULL;
}

static void tp_detached(void *ctx)
{
	struct tp *t = ctx;

	t->detached++;
	t->nout_at_detach = t->nout;
}

static struct {
	struct btc_sim sim;
	struct zn_port *a, *b;
	struct zn_port_info ia, ib;
	struct zn_dma_region *peer_mem;
	struct tp tp[3];
	uint32_t seq;			/* next frame number */
	int nwarn;
	const struct zn_port_ops *real_ops;	/* A's, with rxq_restart */
	struct zn_port_ops ops;			/* A's without it */
	char last[512];
} F;

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)comp;
	(void)arg;
	if (level <= ZN_LOG_WARN)
		F.nwarn++;
	snprintf(F.last, sizeof(F.last), "%s", msg);
}

static int tp_open(struct tp *t)
{
	const size_t len = (size_t)NB * BUF;

	memset(t, 0, sizeof(*t));
	t->mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->mem == MAP_FAILED)
		return -1;
	memset(t->mem, 0xee, len);
	if (zn_mem_adopt(t->mem, len, &t->r) != 0 || zn_bus_dma_map(F.a->bus, t->r))
		return -1;
	t->p = (struct zn_buf_provider){ .buf_size = BUF, .alloc = tp_alloc, .put = tp_put,
					 .ctx = t, .va = tp_va, .detached = tp_detached };
	return 0;
}

static void tp_close(struct tp *t)
{
	if (!t->r)
		return;
	if (F.a)
		zn_bus_dma_unmap(F.a->bus, t->r);
	zn_dma_region_free(t->r);
	munmap(t->mem, (size_t)NB * BUF);
	t->r = NULL;
}

static int open_port(const char *path, struct zn_port **p)
{
	struct zn_rxq_conf rq = { .ring_size = RING, .hds_thresh = 0, .hdr_buf_size = 256,
				  .payload_buf_size = BUF, .numa_node = -1 };

	return tpo_open(path, &rq, p);
}

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	zn_log_set_sink(sink, NULL);
	if (zn_log_configure("info") || btc_sim_start(&F.sim, "", "", true))
		return -1;
	if (open_port(F.sim.path[0], &F.a) || open_port(F.sim.path[1], &F.b))
		return -1;
	F.real_ops = F.a->ops;
	F.ops = *F.a->ops;
	F.ops.rxq_restart = NULL;
	F.a->ops = &F.ops;
	zn_port_info(F.a, &F.ia);
	zn_port_info(F.b, &F.ib);
	if (zn_dma_region_alloc("test-peer", (size_t)ROUND * BUF, -1, ZN_DMA_NO_HUGE,
				&F.peer_mem) || zn_bus_dma_map(F.b->bus, F.peer_mem))
		return -1;
	for (int i = 0; i < 3; i++)
		if (tp_open(&F.tp[i]))
			return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (F.peer_mem && F.b)
		zn_bus_dma_unmap(F.b->bus, F.peer_mem);
	zn_port_close(F.b);
	zn_port_close(F.a);	/* puts posted buffers back, detaches providers */
	F.a = F.b = NULL;
	for (int i = 0; i < 3; i++)
		tp_close(&F.tp[i]);
	zn_dma_region_free(F.peer_mem);
	btc_sim_stop(&F.sim);
	zn_log_set_sink(NULL, NULL);
	zn_log_configure("");
	return 0;
}

/* Frame number seq: UDP payload of 100..1400 bytes, its first 4 bytes seq. */
static uint32_t build(uint8_t *f, uint32_t seq)
{
	uint32_t pay = 100 + (seq * 97) % 1301;
	uint32_t len = (uint32_t)btc_udp4_frame(f, F.ia.mac, F.ib.mac, pay, (uint8_t)seq);

	memcpy(f + 42, &seq, 4);
	return len;
}

static void send_round(uint32_t n)
{
	struct zn_tx_pkt t[ROUND];
	uint64_t c[ROUND], t0 = zn_now_ns();
	uint32_t reaped = 0;

	assert_true(n <= ROUND);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *f = (uint8_t *)F.peer_mem->va + (size_t)i * BUF;

		t[i] = (struct zn_tx_pkt){ .nseg = 1 };
		t[i].seg[0].iova = F.peer_mem->iova + (uint64_t)i * BUF;
		t[i].seg[0].len = build(f, F.seq + i);
	}
	assert_int_equal(zn_port_tx_burst(F.b, 0, t, n), n);
	while (reaped < n) {
		reaped += zn_port_tx_reap(F.b, 0, c, ROUND);
		assert_true(zn_now_ns() - t0 < WAIT_NS);
	}
}

/* What one received frame's payload landed in. */
struct got {
	uint32_t slot;		/* buf_id >> ZN_BUF_ID_BITS */
	uint32_t id;		/* as rx_burst gave it */
	const uint8_t *va;
};

/*
 * Sends n frames (in rounds) and receives them on A, checking each byte for
 * byte; out[i] says where frame i's payload went. Buffers go back through
 * zn_port_rx_buf_put unless hold says to keep the last `hold` of them.
 */
static void exchange(uint32_t n, struct got *out, uint32_t hold)
{
	const struct zn_buf_provider *mux = zn_port_rx_provider(F.a, 0);
	uint8_t want[FRAME_MAX + 64], frame[FRAME_MAX + 64];
	struct zn_rx_pkt pkts[ROUND];

	for (uint32_t done = 0; done < n;) {
		uint32_t k = n - done < ROUND ? n - done : ROUND, r = 0;
		uint64_t t0 = zn_now_ns();

		send_round(k);
		while (r < k) {
			uint32_t m = zn_port_rx_burst(F.a, 0, pkts, k - r);

			assert_true(zn_now_ns() - t0 < WAIT_NS);
			for (uint32_t i = 0; i < m; i++, r++) {
				const struct zn_rx_pkt *p = &pkts[i];
				uint32_t wl = build(want, F.seq + r), len = p->hdr_len;
				struct got *g = &out[done + r];

				assert_int_equal(p->pkt_len, wl);
				assert_int_equal(p->nseg, 1);
				assert_true(p->flags & ZN_RX_F_SPLIT);
				memcpy(frame, p->hdr, p->hdr_len);
				g->id = p->seg[0].buf_id;
				g->slot = g->id >> ZN_BUF_ID_BITS;
				g->va = zn_port_rx_payload(F.a, 0, g->id);
				assert_non_null(g->va);
				/* the mux's va is the same look-up */
				assert_ptr_equal(mux->va(mux->ctx, g->id), g->va);
				/* and the segment carried that address from the start */
				assert_ptr_equal(p->seg[0].va, g->va);
				assert_true(len + p->seg[0].len <= sizeof(frame));
				memcpy(frame + len, g->va + p->seg[0].off, p->seg[0].len);
				len += p->seg[0].len;
				assert_int_equal(len, wl);
				assert_memory_equal(frame, want, wl);
				if (done + r < n - hold)
					zn_port_rx_buf_put(F.a, 0, &g->id, 1);
			}
		}
		F.seq += k;
		done += k;
	}
}

static bool in_tp(const struct tp *t, const uint8_t *va)
{
	return va >= t->mem && va < t->mem + (size_t)NB * BUF;
}

/* Frames [from, to) went to slot `slot` (0: the pool), into t's memory or not. */
static void expect(const struct got *g, uint32_t from, uint32_t to, uint32_t slot,
		   const struct tp *t)
{
	for (uint32_t i = from; i < to; i++) {
		if (g[i].slot != slot)
			fail_msg("frame %u of this run: slot %u, expected %u", i, g[i].slot, slot);
		if (t)
			assert_true(in_tp(t, g[i].va));
		else
			for (int k = 0; k < 3; k++)
				assert_false(in_tp(&F.tp[k], g[i].va));
	}
}

static void test_swap_on_started_port(void **state)
{
	static struct got g[POSTED + 64];
	const struct zn_buf_provider *mux = zn_port_rx_provider(F.a, 0);
	struct tp *t = &F.tp[0];
	uint32_t slot;
	struct zn_queue_stats st;

	(void)state;
	assert_non_null(mux);
	assert_int_equal(mux->buf_size, BUF);
	exchange(32, g, 0);
	expect(g, 0, 32, 0, NULL);

	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t->p), 0);
	assert_ptr_equal(zn_port_rx_provider(F.a, 0), mux);	/* one stable provider */
	assert_int_equal(t->allocs, 0);		/* nothing taken until the driver refills */
	/* The AGG buffers posted at the swap are the pool's; then t's. */
	exchange(POSTED + 40, g, 3);
	expect(g, 0, POSTED, 0, NULL);
	slot = g[POSTED].slot;
	assert_true(slot >= 1 && slot < 16);
	expect(g, POSTED, POSTED + 40, slot, t);
	for (uint32_t i = POSTED; i < POSTED + 40; i++)
		assert_true((g[i].id & ZN_BUF_ID_MASK) < NB);
	/* posted again after every burst + the 3 we hold */
	assert_int_equal(t->nout, POSTED + 3);
	assert_int_equal(t->allocs, POSTED + 40);
	assert_int_equal(t->bad_put, 0);
	assert_int_equal(t->detached, 0);

	/* Back to the pool while we hold 3 of t's buffers. */
	{
		uint32_t held[3] = { g[POSTED + 37].id, g[POSTED + 38].id, g[POSTED + 39].id };

		assert_int_equal(zn_port_rxq_set_provider(F.a, 0, NULL), 0);
		assert_int_equal(t->detached, 0);
		exchange(POSTED + 20, g, 0);
		expect(g, 0, POSTED, slot, t);	/* t's posted buffers drain first */
		expect(g, POSTED, POSTED + 20, 0, NULL);
		assert_int_equal(t->allocs, POSTED + 40);	/* nothing more from t */
		assert_int_equal(t->nout, 3);
		assert_int_equal(t->detached, 0);
		zn_port_rx_buf_put(F.a, 0, &held[0], 2);
		assert_int_equal(t->detached, 0);
		assert_int_equal(t->nout, 1);
		zn_port_rx_buf_put(F.a, 0, &held[2], 1);
		assert_int_equal(t->detached, 1);
		assert_int_equal(t->nout_at_detach, 0);
	}
	assert_int_equal(t->bad_put, 0);
	assert_int_equal(zn_port_rxq_stats(F.a, 0, &st), 0);
	assert_int_equal(st.drops, 0);
	assert_int_equal(st.errors, 0);
	assert_int_equal(F.nwarn, 0);	/* no stray or doubled id anywhere */

	/* The same provider can be swapped in again (its slot was freed). */
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t->p), 0);
	exchange(POSTED + 5, g, 0);
	expect(g, POSTED, POSTED + 5, g[POSTED].slot, t);
	assert_int_equal(t->nout, POSTED);
	assert_int_equal(t->detached, 1);
}

/* Straight from one external provider to another: the first drains, then the
 * second takes over; each detached exactly once. */
static void test_swap_between_providers(void **state)
{
	static struct got g[2 * POSTED + 16];
	struct tp *t0 = &F.tp[0], *t1 = &F.tp[1];
	uint32_t s0, s1;

	(void)state;
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t0->p), 0);
	exchange(POSTED + 8, g, 0);
	s0 = g[POSTED].slot;
	expect(g, POSTED, POSTED + 8, s0, t0);
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t1->p), 0);
	exchange(POSTED + 8, g, 0);
	expect(g, 0, POSTED, s0, t0);
	s1 = g[POSTED].slot;
	assert_int_not_equal(s1, s0);
	assert_int_not_equal(s1, 0);
	expect(g, POSTED, POSTED + 8, s1, t1);
	assert_int_equal(t0->detached, 1);	/* its last buffer came back in the run */
	assert_int_equal(t0->nout_at_detach, 0);
	assert_int_equal(t0->nout, 0);
	assert_int_equal(t1->detached, 0);
	assert_int_equal(t1->nout, POSTED);
	assert_int_equal(t0->bad_put + t1->bad_put, 0);
	assert_int_equal(F.nwarn, 0);
}

/* With rxq_restart: the swap restarts the queue, the pool's posted buffers
 * come back and t's are posted at once; swapping back detaches t at once. */
static void test_swap_restarts_queue(void **state)
{
	static struct got g[POSTED + 64];
	struct tp *t = &F.tp[0];
	uint32_t avail0, slot;

	(void)state;
	F.a->ops = F.real_ops;
	exchange(POSTED + 9, g, 0);		/* the pool's ring turned once */
	expect(g, 0, POSTED + 9, 0, NULL);
	avail0 = zn_port_rxq_pool_avail(F.a, 0);
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t->p), 0);
	assert_int_equal(zn_port_rxq_pool_avail(F.a, 0), avail0 + POSTED);
	assert_int_equal(t->allocs, POSTED);
	assert_int_equal(t->nout, POSTED);
	exchange(40, g, 0);			/* every frame in t's memory */
	slot = g[0].slot;
	assert_true(slot >= 1 && slot < 16);
	expect(g, 0, 40, slot, t);
	assert_int_equal(t->nout, POSTED);
	assert_int_equal(t->allocs, POSTED + 40);

	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, NULL), 0);
	assert_int_equal(t->detached, 1);	/* its posted buffers came back in the swap */
	assert_int_equal(t->nout_at_detach, 0);
	assert_int_equal(t->nout, 0);
	assert_int_equal(zn_port_rxq_pool_avail(F.a, 0), avail0);
	exchange(20, g, 0);
	expect(g, 0, 20, 0, NULL);
	assert_int_equal(zn_port_rxq_pool_avail(F.a, 0), avail0);
	assert_int_equal(t->bad_put, 0);
	assert_int_equal(F.nwarn, 0);
}

static void test_set_provider_checks(void **state)
{
	struct tp *t = &F.tp[0];
	struct zn_buf_provider bad = t->p;

	(void)state;
	bad.buf_size = BUF / 2;
	F.nwarn = 0;
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &bad), -EINVAL);
	assert_int_equal(F.nwarn, 1);
	assert_non_null(strstr(F.last, "rxq 0"));
	assert_non_null(strstr(F.last, "2048-byte"));
	assert_non_null(strstr(F.last, "it has 1024"));
	bad.buf_size = BUF;
	bad.put = NULL;
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &bad), -EINVAL);
	assert_int_equal(zn_port_rxq_set_provider(F.a, 1, &t->p), -EINVAL);	/* no such queue */
	assert_int_equal(zn_port_rxq_set_provider(NULL, 0, &t->p), -EINVAL);
	assert_null(zn_port_rx_provider(F.a, 1));
	assert_int_equal(t->allocs, 0);
	assert_int_equal(t->detached, 0);
}

static void test_swap_on_stopped_port(void **state)
{
	static struct got g[POSTED + 16];
	struct tp *t = &F.tp[2];
	uint32_t held;

	(void)state;
	zn_port_stop(F.a);
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t->p), 0);
	assert_int_equal(t->allocs, 0);
	assert_int_equal(zn_port_start(F.a), 0);
	assert_int_equal(t->nout, POSTED);	/* the initial fill came from t */
	exchange(10, g, 1);
	expect(g, 0, 10, g[0].slot, t);
	assert_int_not_equal(g[0].slot, 0);
	held = g[9].id;
	zn_port_stop(F.a);	/* the driver gives back all it held */
	assert_int_equal(t->nout, 1);
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, NULL), 0);
	assert_int_equal(t->detached, 0);
	zn_port_rx_buf_put(F.a, 0, &held, 1);
	assert_int_equal(t->detached, 1);
	assert_int_equal(t->nout, 0);
	assert_int_equal(zn_port_start(F.a), 0);
	exchange(5, g, 0);
	expect(g, 0, 5, 0, NULL);
	assert_int_equal(t->allocs, POSTED + 10);	/* every consumed slot refilled from t */
	assert_int_equal(t->bad_put, 0);
	assert_int_equal(F.nwarn, 0);
}

/* Receive k frames (the next ones sent) through a bound queue, byte for byte,
 * payload read at the segment's va; the buffers go back. */
static void recv_bound(struct zn_rxq *h, uint32_t k)
{
	uint8_t want[FRAME_MAX + 64], frame[FRAME_MAX + 64];
	struct zn_rx_pkt pkts[ROUND];
	uint64_t t0 = zn_now_ns();
	uint32_t r = 0;

	send_round(k);
	while (r < k) {
		uint32_t m = zn_rxq_burst(h, pkts, k - r);

		assert_true(zn_now_ns() - t0 < WAIT_NS);
		for (uint32_t i = 0; i < m; i++, r++) {
			const struct zn_rx_pkt *p = &pkts[i];
			uint32_t wl = build(want, F.seq + r);

			assert_int_equal(p->queue, 0);
			assert_int_equal(p->pkt_len, wl);
			assert_int_equal(p->nseg, 1);
			assert_ptr_equal(p->seg[0].va, zn_port_rx_payload(F.a, 0, p->seg[0].buf_id));
			memcpy(frame, p->hdr, p->hdr_len);
			memcpy(frame + p->hdr_len, p->seg[0].va + p->seg[0].off, p->seg[0].len);
			assert_memory_equal(frame, want, wl);
			zn_port_rx_buf_put(F.a, 0, &p->seg[0].buf_id, 1);
		}
	}
	F.seq += k;
}

/* A queue bound once: the same handle across stop and start; nothing
 * received while stopped; only configured queues have one. */
static void test_bound_rxq(void **state)
{
	struct zn_rxq *h = zn_port_rxq(F.a, 0);
	struct zn_rx_pkt pkts[ROUND];

	(void)state;
	assert_non_null(h);
	assert_int_equal(h->qid, 0);
	assert_int_equal(F.nwarn, 0);
	assert_null(zn_port_rxq(F.a, 1));	/* configured with one RX queue */
	assert_int_equal(F.nwarn, 1);
	assert_null(zn_port_rxq(NULL, 0));
	recv_bound(h, 8);
	zn_port_stop(F.a);
	assert_null(h->drv);
	assert_int_equal(zn_rxq_burst(h, pkts, ROUND), 0);
	assert_int_equal(zn_port_start(F.a), 0);
	assert_ptr_equal(zn_port_rxq(F.a, 0), h);
	assert_non_null(h->drv);
	recv_bound(h, 8);
	assert_int_equal(F.nwarn, 1);
}

/* A provider swapped in and one detached with a buffer still held: both get
 * detached() at close, after the driver gave back everything it held. */
static void test_close_detaches(void **state)
{
	static struct got g[POSTED + 16];
	struct tp *t0 = &F.tp[0], *t1 = &F.tp[1];

	(void)state;
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t0->p), 0);
	exchange(POSTED + 4, g, 1);		/* hold t0's last one */
	assert_int_equal(zn_port_rxq_set_provider(F.a, 0, &t1->p), 0);
	exchange(POSTED + 2, g, 0);		/* drain t0's posted buffers; t1 takes over */
	assert_int_equal(t0->detached, 0);
	assert_int_equal(t0->nout, 1);
	assert_int_equal(t1->nout, POSTED);
	zn_port_close(F.a);
	F.a = NULL;
	assert_int_equal(t0->detached, 1);
	assert_int_equal(t0->nout_at_detach, 1);	/* ours, never returned */
	assert_int_equal(t1->detached, 1);
	assert_int_equal(t1->nout_at_detach, 0);	/* the driver returned all first */
	assert_int_equal(t0->bad_put + t1->bad_put, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_swap_on_started_port, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_between_providers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_restarts_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_provider_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_on_stopped_port, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_detaches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound_rxq, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
