/*
 * bnxt_ipp: the bnxt data path in a loop, for counting instructions per
 * packet with callgrind. The port is probed and started through the driver's
 * ops against the fake function of tests/unit/bnxt_fake.h (multi-doorbell
 * mode, so doorbells are plain stores); this program plays the device:
 * between bursts it completes the TX frames and writes RX completions
 * (header-data split, one AGG buffer each, as for a UDP frame with 1000
 * payload bytes). Only the driver's entry points are meant to be counted:
 *
 *   valgrind --tool=callgrind --toggle-collect=bnxt_rx_burst_op \
 *            --toggle-collect=bnxt_tx_burst_op --toggle-collect=bnxt_tx_reap_op \
 *            build/tests/bnxt_ipp ITERATIONS [BURST]
 *
 * Each iteration sends BURST frames (2 segments: header + payload), reaps
 * them, and receives BURST frames. Without valgrind it checks the bytes and
 * counters and prints one line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "drivers/bnxt/bnxt.h"
#include "tests/unit/bnxt_fake.h"

#define HDR_LEN		42
#define PAY_LEN		1000
#define MAX_BURST	64

static uint32_t cq_prod_rx, rx_cons, agg_cons, cq_prod_tx;

/*
 * The payload provider an application would write for a fixed area: a
 * stack of free buffer ids, IOVA = base + id * size. (The fake provider of
 * the unit tests also keeps ownership flags for its checks.)
 */
#define APP_BUFS	2048
#define APP_BUF_SIZE	2048
static struct {
	uint8_t *base;
	uint32_t top;
	uint32_t stack[APP_BUFS];
} app;

static uint32_t app_alloc(void *ctx, struct zn_buf *bufs, uint32_t n)
{
	uint32_t k = n < app.top ? n : app.top;

	(void)ctx;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t id = app.stack[--app.top];
		uint8_t *va = app.base + (size_t)id * APP_BUF_SIZE;

		bufs[i].id = id;
		bufs[i].va = va;
		bufs[i].iova = (uint64_t)(uintptr_t)va;
	}
	return k;
}

static void app_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	(void)ctx;
	for (uint32_t i = 0; i < n; i++)
		app.stack[app.top++] = ids[i];
}

static const struct zn_buf_provider app_prov = {
	.buf_size = APP_BUF_SIZE, .alloc = app_alloc, .put = app_put,
};

static void dev_cq_write(struct bnxt_ring *cq, uint32_t *prod, const uint8_t (*rec)[16], unsigned n)
{
	for (unsigned i = n; i-- > 0;) {	/* the first slot (its V) last */
		uint8_t *slot = (uint8_t *)cq->va + (size_t)((*prod + i) & (cq->size - 1)) * 16;
		uint8_t r[16];

		memcpy(r, rec[i], 16);
		r[8] = (uint8_t)((r[8] & ~1u) | bnxt_cmpl_phase(*prod + i, cq->size));
		memcpy(slot, r, 16);
	}
	*prod += n;
}

/* The device receives one split frame on rxq. */
static void dev_rx_frame(struct bnxt_rxq *q, uint32_t seq)
{
	uint8_t rec[3][16];
	struct bnxt_rx_pkt_cmpl *lo = (void *)rec[0];
	struct bnxt_rx_pkt_cmpl_hi *hi = (void *)rec[1];
	struct bnxt_rx_agg_cmpl *a = (void *)rec[2];
	const struct bnxt_rx_bd *bd = &((const struct bnxt_rx_bd *)q->rx.va)[rx_cons & q->c.rx_mask];
	const struct bnxt_rx_bd *ab = &q->agg_bd[agg_cons & q->c.agg_mask];

	memset(rec, 0, sizeof(rec));
	memcpy((void *)(uintptr_t)bd->addr, &seq, sizeof(seq));
	memcpy((void *)(uintptr_t)ab->addr, &seq, sizeof(seq));
	lo->flags_type = BNXT_CMPL_TYPE_RX_L2 | BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS |
			 BNXT_RX_CMPL_FLAGS_RSS_VALID | BNXT_RX_CMPL_FLAGS_ITYPE_UDP;
	lo->len = HDR_LEN;
	lo->opaque = bd->opaque;
	lo->agg_bufs_v1 = 1 << BNXT_RX_CMPL_AGG_BUFS_SFT;
	lo->payload_offset = HDR_LEN;
	lo->rss_hash = seq * 2654435761u;
	hi->flags2 = BNXT_RX_CMPL_FLAGS2_IP_CS_CALC | BNXT_RX_CMPL_FLAGS2_L4_CS_CALC;
	a->type = BNXT_CMPL_TYPE_RX_AGG;
	a->len = PAY_LEN;
	a->opaque = ab->opaque;
	dev_cq_write(&q->cq, &cq_prod_rx, (const uint8_t (*)[16])rec, 3);
	rx_cons++;
	agg_cons++;
}

int main(int argc, char **argv)
{
	uint32_t iters = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1000;
	uint32_t burst = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 32;
	struct zn_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mtu = 1500 };
	struct zn_rxq_conf rq = { .ring_size = 256, .hdr_buf_size = 256, .numa_node = -1 };
	struct zn_txq_conf tq = { .ring_size = 512, .numa_node = -1 };
	struct zn_port port = { 0 };
	struct zn_rx_pkt pkts[MAX_BURST];
	struct zn_tx_pkt tx[MAX_BURST] = { 0 };	/* no offload flags */
	uint64_t cookies[MAX_BURST], rx_total = 0, tx_total = 0, bad = 0;
	struct fake_fw *f = fake_new(true);
	static uint8_t hdr_slab[MAX_BURST][64], payload[PAY_LEN];
	struct bnxt *bp;
	uint32_t seq = 0, want = 0;

	if (burst == 0 || burst > MAX_BURST) {
		fprintf(stderr, "usage: bnxt_ipp [ITERATIONS] [BURST 1..%d]\n", MAX_BURST);
		return 2;
	}
	zn_log_configure("warn");
	port.bus = &f->dev;
	app.base = calloc(APP_BUFS, APP_BUF_SIZE);
	for (uint32_t i = 0; i < APP_BUFS; i++)
		app.stack[app.top++] = APP_BUFS - 1 - i;
	rq.payload = &app_prov;
	if (zn_bnxt_driver.probe(&port, BNXT_PCI_VENDOR_BROADCOM, BNXT_DEV_57508) ||
	    port.ops->configure(&port, &pc) || port.ops->rxq_setup(&port, 0, &rq) ||
	    port.ops->txq_setup(&port, 0, &tq) || port.ops->start(&port)) {
		fprintf(stderr, "bnxt_ipp: bring-up on the fake device failed\n");
		return 1;
	}
	bp = port.priv;
	for (uint32_t i = 0; i < burst; i++) {
		tx[i].nseg = 2;
		tx[i].seg[0].iova = (uint64_t)(uintptr_t)hdr_slab[i];
		tx[i].seg[0].len = HDR_LEN;
		tx[i].seg[1].iova = (uint64_t)(uintptr_t)payload;
		tx[i].seg[1].len = PAY_LEN;
	}

	for (uint32_t it = 0; it < iters; it++) {
		struct bnxt_txq *tq0 = bp->txq[0];
		uint32_t n, last;

		/* TX: a burst, the device completes its last frame, reap. */
		for (uint32_t i = 0; i < burst; i++)
			tx[i].cookie = (uint64_t)it * burst + i;
		last = tq0->prod + (burst - 1) * 2;
		n = zn_port_tx_burst(&port, 0, tx, burst);
		tx_total += n;
		{
			uint8_t rec[1][16] = { { 0 } };
			struct bnxt_tx_cmpl *c = (void *)rec[0];

			c->opaque = last;
			dev_cq_write(&tq0->cq_ring, &cq_prod_tx, (const uint8_t (*)[16])rec, 1);
		}
		n = zn_port_tx_reap(&port, 0, cookies, MAX_BURST);
		for (uint32_t i = 0; i < n; i++)
			if (cookies[i] != (uint64_t)it * burst + i)
				bad++;

		/* RX: the device fills the CQ with a burst, the driver takes it. */
		for (uint32_t i = 0; i < burst; i++)
			dev_rx_frame(bp->rxq[0], seq++);
		n = zn_port_rx_burst(&port, 0, pkts, burst);
		rx_total += n;
		for (uint32_t i = 0; i < n; i++, want++) {
			uint32_t h, p;

			memcpy(&h, pkts[i].hdr, 4);
			memcpy(&p, app.base + (size_t)pkts[i].seg[0].buf_id * APP_BUF_SIZE, 4);
			if (h != want || p != want || pkts[i].pkt_len != HDR_LEN + PAY_LEN)
				bad++;
			app_put(NULL, &pkts[i].seg[0].buf_id, 1);
		}
	}
	printf("bnxt_ipp: %u iterations of burst %u: tx %llu rx %llu frames, %llu wrong, "
	       "bad completions %llu\n", iters, burst, (unsigned long long)tx_total,
	       (unsigned long long)rx_total, (unsigned long long)bad,
	       (unsigned long long)(bp->rxq[0]->st.bad_cmpl + bp->txq[0]->st.bad_cmpl));
	/* The fake's CQ producers follow ours, so HWRM_DONE lands right. */
	f->ring[bp->rxq[0]->cq.id].prod = cq_prod_rx;
	f->ring[bp->txq[0]->cq_ring.id].prod = cq_prod_tx;
	port.ops->stop(&port);
	port.ops->close(&port);
	free(app.base);
	fake_free(f);
	return bad || rx_total != (uint64_t)iters * burst || tx_total != (uint64_t)iters * burst;
}
