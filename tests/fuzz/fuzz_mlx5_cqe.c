/*
 * libFuzzer target: the mlx5 SHAMPO RQ's completion queue as a hostile
 * device could fill it (drivers/mlx5/mlx5_rx.c). Input: byte 0 sets where
 * the consumer stands (pass parity and slot), byte 1 the burst size (bits
 * 0-5) and the queue kind (bit 7: a cyclic RQ whose WQEs scatter over a
 * header slot and 3 buffers, else the SHAMPO striding RQ, with HW-GRO if
 * bit 6: 4 packets per WQE, match/flush CQEs, drivers/mlx5/mlx5_shampo.c),
 * byte 2 hds_thresh (x 4); the rest are the 32 CQEs of the ring. With
 * HW-GRO, empty bursts follow until the queue's idle end has run.
 *
 * The burst runs on a queue built in plain memory: whatever it hands out
 * must lie inside our header ring and buffers, name only payload buffers
 * that were posted, never the same buffer twice, and every number must
 * agree with zn_mlx5_rx_cqe_parse's checks. After the queue is released the
 * provider's accounting balances exactly.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

#define LOG_CQ		5
#define CQ_SIZE		(1u << LOG_CQ)
#define RING		16
#define BUF		4096
#define HDR		256

static struct zn_mlx5_cqe64 cq[CQ_SIZE] __attribute__((aligned(64)));
#define CYC_NBUF	3
static struct zn_mlx5_wqe_data wq[RING * 4] __attribute__((aligned(64)));
static struct mlx5_rx_wqe sw[RING * CYC_NBUF];
#define AGG_PKTS	4
static uint8_t hdrs[RING * AGG_PKTS * HDR];
#define NBUF		40
static uint8_t bufs[NBUF][BUF];
static uint32_t dbr_cq[2], dbr_rq[2];
static struct {
	uint32_t top, stack[NBUF];
	uint8_t out[NBUF];
	uint32_t bad_puts;
} prov;

static uint32_t p_alloc(void *ctx, struct zn_buf *b, uint32_t n)
{
	uint32_t i;

	(void)ctx;
	for (i = 0; i < n && prov.top; i++) {
		uint32_t id = prov.stack[--prov.top];

		prov.out[id] = 1;
		b[i].id = id;
		b[i].va = bufs[id];
		b[i].iova = (uint64_t)(uintptr_t)bufs[id];
	}
	return i;
}

static void p_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	(void)ctx;
	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] >= NBUF || !prov.out[ids[i]]) {
			prov.bad_puts++;
			continue;
		}
		prov.out[ids[i]] = 0;
		prov.stack[prov.top++] = ids[i];
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	zn_log_configure("off");
	return 0;
}

/* What a burst handed out lies in our memory and names buffers once. */
static void check_pkts(const struct zn_rx_pkt *pkts, uint32_t got, bool cyclic, uint8_t *handed,
		       uint32_t *ids, uint32_t *nids)
{
	for (uint32_t i = 0; i < got; i++) {
		const struct zn_rx_pkt *p = &pkts[i];
		uint32_t total = p->hdr_len;

		CHECK(p->hdr >= hdrs && p->hdr + p->hdr_len <= hdrs + sizeof(hdrs));
		CHECK(p->hdr_len <= HDR);
		CHECK(p->nseg <= (cyclic ? CYC_NBUF : 1));
		CHECK(!(p->flags & ZN_RX_F_SPLIT) || !cyclic);
		CHECK(!(p->flags & ZN_RX_F_AGG) || (p->agg_segs >= 2 && p->agg_segs <= AGG_PKTS &&
						     p->gso_size && p->nseg == 1));
		for (uint32_t s = 0; s < p->nseg; s++) {
			uint32_t id = p->seg[s].buf_id;

			CHECK(id < NBUF && prov.out[id] && !handed[id]);
			CHECK(p->seg[s].off + p->seg[s].len <= BUF);
			CHECK(p->seg[s].va == bufs[id]);
			handed[id] = 1;
			ids[(*nids)++] = id;
			total += p->seg[s].len;
		}
		CHECK(total == p->pkt_len);
		CHECK(p->queue == 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mlx5_rxq q;
	struct zn_rx_pkt pkts[64];
	uint8_t handed[NBUF] = { 0 };
	uint32_t start, n, got, total, ids[NBUF], nids = 0;
	bool cyclic, agg;

	if (size < 3 + sizeof(cq))
		return 0;
	memset(&q, 0, sizeof(q));
	memset(&prov, 0, sizeof(prov));
	for (uint32_t i = 0; i < NBUF; i++)
		prov.stack[prov.top++] = NBUF - 1 - i;
	memset(sw, 0, sizeof(sw));
	cyclic = data[1] & 0x80;
	agg = !cyclic && (data[1] & 0x40);
	q.c = (struct mlx5_rx_ctx){ .wq_mask = RING - 1, .strides = 64, .log_stride = 6,
				    .buf_size = BUF, .hdr_mask = RING - 1, .hdr_entry = HDR,
				    .nbuf = 1, .log_wqe = 5 };
	if (cyclic) {
		q.c.cyclic = true;
		q.c.nbuf = CYC_NBUF;
		q.c.log_wqe = 6;	/* header slot + 3 buffers */
		q.c.frame_max = HDR + CYC_NBUF * BUF;
		q.c.strides = 1;
	}
	if (agg) {
		q.c.agg = true;
		q.c.hdr_mask = RING * AGG_PKTS - 1;
		q.agg_pkts = AGG_PKTS;
	}
	q.cq.cqe = cq;
	q.cq.log_sz = LOG_CQ;
	q.cq.dbr = dbr_cq;
	q.wq = (struct zn_mlx5_mpwqe *)wq;
	q.sw = sw;
	q.rq_dbr = dbr_rq;
	q.hdr = hdrs;
	q.alloc = p_alloc;
	q.put = p_put;
	q.hds_thresh = (uint32_t)data[2] * 4;
	q.qid = 1;
	zn_mlx5_rxq_reset(&q);
	/* The consumer stands anywhere in either pass; the RQ starts where it does. */
	start = data[0] & (2 * CQ_SIZE - 1);
	q.cq.ci = start;
	q.pos.done = q.pos.posted = start * 7;
	n = data[1] % 64 + 1;
	memcpy(cq, data + 3, sizeof(cq));

	/* 40 buffers: every WQE of the SHAMPO ring, 13 of the cyclic one. */
	CHECK(zn_mlx5_rxq_refill(&q) == (cyclic ? NBUF / CYC_NBUF : RING));
	got = zn_mlx5_rx_burst(&q, pkts, n);
	CHECK(got <= n);
	check_pkts(pkts, got, cyclic, handed, ids, &nids);
	total = got;
	/* HW-GRO: what is held goes out once the queue is quiet (copies take
	 * fresh buffers: the provider may run dry, never double-hand) */
	for (uint32_t i = 0; agg && i <= MLX5_AGG_IDLE_POLLS; i++) {
		got = zn_mlx5_rx_burst(&q, pkts, 64);
		check_pkts(pkts, got, cyclic, handed, ids, &nids);
		total += got;
	}
	CHECK(q.st.packets == total);
	/* A later burst reposts what finished; nothing handed out is reposted. */
	zn_mlx5_rx_burst(&q, pkts, 0);
	for (uint32_t i = 0; i < RING * q.c.nbuf; i++)
		CHECK(!sw[i].posted || !sw[i].handed || handed[sw[i].buf_id]);
	zn_mlx5_rxq_release_bufs(&q);
	p_put(NULL, ids, nids);
	CHECK(prov.bad_puts == 0);
	CHECK(prov.top == NBUF);
	return 0;
}
