/*
 * libFuzzer target: the bnxt RX completion ring as a hostile device could
 * fill it (drivers/bnxt/bnxt_cmpl.h, bnxt_rx.c, bnxt_tpa.c). Input: byte 0
 * sets where the consumer stands (pass parity and slot), byte 1 how many
 * AGG buffers are posted (bits 0-4) and whether the queue does TPA (bit 7),
 * byte 2 the burst size; the rest are the 64 CQ slots.
 *
 * The burst runs on a queue built in plain memory; whatever it hands out
 * must lie inside our buffers, name only payload buffers it owned, and
 * agree frame for frame with a reference walk that uses only the precise
 * decode (zn_bnxt_cmpl_parse), so the fast path never takes a frame the
 * rules refuse. The provider's accounting must balance. With TPA the
 * records TPA_START / TPA_AGG / TPA_END join in (the reference walk does not
 * know them): two bursts, each frame checked alone (an aggregate's header
 * in the TPA header copies, its AGG buffers in any slot order, agg_segs and
 * gso_size set), the buffers held by open aggregations counted, and all of
 * them given back when the queue lets go.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "drivers/bnxt/bnxt_cmpl.h"
#include "zcnic/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

#define CQ_SIZE		64
#define RX_SIZE		16
#define AGG_SIZE	32
#define HDR		128
#define ABUF		256
#define NBUF		64

static uint8_t cq_a[CQ_SIZE * 16] __attribute__((aligned(64)));
static uint8_t cq_b[CQ_SIZE * 16] __attribute__((aligned(64)));
static uint8_t hdrs[RX_SIZE * HDR];
static struct bnxt_rx_bd agg_bd[AGG_SIZE];
static struct bnxt_agg_slot agg_sw[AGG_SIZE];
static uint64_t db_sink;
static struct {
	uint32_t top, stack[NBUF];
	uint8_t out[NBUF];	/* 0 free, 1 posted or handed out */
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
		b[i].va = (void *)(uintptr_t)(0x200000u + (uint64_t)id * ABUF);	/* never read */
		b[i].iova = 0x100000u + (uint64_t)id * ABUF;
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

static void init_queue(struct bnxt_rxq *q, const uint8_t *cq, uint32_t raw, uint32_t agg_posted)
{
	memset(q, 0, sizeof(*q));
	memset(&prov, 0, sizeof(prov));
	for (uint32_t i = 0; i < NBUF; i++)
		prov.stack[prov.top++] = NBUF - 1 - i;
	q->c.cq = cq;
	q->c.cq_size = CQ_SIZE;
	q->c.cq_mask = CQ_SIZE - 1;
	q->c.cq_shift = 6;
	q->c.rx_mask = RX_SIZE - 1;
	q->c.agg_mask = AGG_SIZE - 1;
	q->c.hdr_buf_size = HDR;
	q->c.agg_buf_size = ABUF;
	q->c.max_frame = 1518;
	q->c.hdr_va = hdrs;
	q->c.agg_sw = agg_sw;
	q->agg_bd = agg_bd;
	q->agg_sw = agg_sw;
	q->alloc = p_alloc;
	q->put = p_put;
	q->cq.size = CQ_SIZE;
	q->rx.size = RX_SIZE;
	q->agg.size = AGG_SIZE;
	q->cq_db.mmio = q->rx_db.mmio = q->agg_db.mmio = (volatile uint64_t *)&db_sink;
	q->pos.cq_raw = raw;
	q->pos.rx_cons = raw / 3;
	q->pos.rx_prod = q->pos.rx_cons + RX_SIZE - 1;
	q->pos.agg_cons = raw / 2;
	q->pos.agg_prod = q->pos.agg_cons;
	/* Post AGG buffers as the driver would. */
	for (uint32_t i = 0; i < agg_posted; i++) {
		struct zn_buf b;

		if (!p_alloc(NULL, &b, 1))
			break;
		agg_sw[q->pos.agg_prod & (AGG_SIZE - 1)].buf_id = b.id;
		agg_sw[q->pos.agg_prod & (AGG_SIZE - 1)].va = b.va;
		q->pos.agg_prod++;
	}
}

/* What a frame looks like to the caller, for comparison. */
struct seen {
	const uint8_t *hdr;
	uint32_t hdr_len, pkt_len, nseg, flags, rss;
	uint32_t id[ZN_RX_MAX_SEGS], len[ZN_RX_MAX_SEGS];
	const uint8_t *va[ZN_RX_MAX_SEGS];
};

static void take(struct seen *s, const struct zn_rx_pkt *p)
{
	memset(s, 0, sizeof(*s));
	s->hdr = p->hdr;
	s->hdr_len = p->hdr_len;
	s->pkt_len = p->pkt_len;
	s->nseg = p->nseg;
	s->flags = p->flags;
	s->rss = (p->flags & ZN_RX_F_RSS_HASH) ? p->rss_hash : 0;
	for (uint32_t i = 0; i < p->nseg && i < ZN_RX_MAX_SEGS; i++) {
		s->id[i] = p->seg[i].buf_id;
		s->len[i] = p->seg[i].len;
		s->va[i] = p->seg[i].va;
	}
}

/* One frame of a TPA queue's burst. */
static void check_tpa_pkt(const struct bnxt_rxq *q, const struct zn_rx_pkt *p, uint8_t *handed)
{
	const uint8_t *th = q->tpa_hdr;
	uint32_t sum = p->hdr_len;

	if (p->flags & ZN_RX_F_AGG) {
		CHECK(p->hdr >= th && p->hdr + p->hdr_len <= th + (size_t)BNXT_TPA_AGGS * HDR);
		CHECK(((size_t)(p->hdr - th)) % HDR == 0);
		CHECK(p->nseg >= 1 && p->nseg <= ZN_RX_MAX_SEGS && p->agg_segs >= 1);
	} else {
		CHECK(p->hdr >= hdrs && p->hdr + p->hdr_len <= hdrs + sizeof(hdrs));
		CHECK(p->nseg <= BNXT_RX_MAX_AGG);
	}
	CHECK(p->hdr_len >= 1 && p->hdr_len <= HDR);
	for (uint32_t s = 0; s < p->nseg; s++) {
		uint32_t id = p->seg[s].buf_id;

		CHECK(id < NBUF && prov.out[id] && !handed[id]);
		CHECK(p->seg[s].va == (uint8_t *)(uintptr_t)(0x200000u + (uint64_t)id * ABUF));
		CHECK(p->seg[s].len >= 1 && p->seg[s].len <= ABUF && p->seg[s].off == 0);
		handed[id] = 1;
		sum += p->seg[s].len;
	}
	CHECK(sum == p->pkt_len);
}

/* AGG buffers the ring still holds: TPA_AGG may complete slots past
 * agg_cons out of order, and those are no longer the ring's. */
static uint32_t ring_held(const struct bnxt_rxq *q)
{
	uint32_t n = 0;

	for (uint32_t r = q->pos.agg_cons; r != q->pos.agg_prod; r++)
		n += !zn_bnxt_agg_done(q, r);
	return n;
}

static void run_tpa(const uint8_t *cq, uint32_t raw, uint32_t agg_posted, uint32_t n)
{
	static struct zn_rx_pkt pkts[32];
	static struct bnxt_rxq q;
	uint8_t handed[NBUF] = { 0 };
	uint32_t nhanded = 0, held = 0;

	init_queue(&q, cq, raw, agg_posted);
	CHECK(zn_bnxt_tpa_alloc(&q, 4) == 0);
	for (int b = 0; b < 2; b++) {
		uint32_t got = zn_bnxt_rx_burst(&q, pkts, n);

		CHECK(got <= n);
		for (uint32_t i = 0; i < got; i++) {
			check_tpa_pkt(&q, &pkts[i], handed);
			nhanded += pkts[i].nseg;
		}
	}
	CHECK(prov.bad_puts == 0);
	/* Handed out + held by open aggregations + still posted + free = all. */
	for (uint32_t i = 0; i < BNXT_TPA_AGGS; i++)
		held += q.tpa[i].open ? q.tpa[i].nseg : 0;
	CHECK(nhanded + held + ring_held(&q) + prov.top == NBUF);
	zn_bnxt_tpa_release(&q);
	CHECK(nhanded + ring_held(&q) + prov.top == NBUF);
	CHECK(prov.bad_puts == 0);
	zn_bnxt_tpa_free(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct zn_rx_pkt pkts[32];
	static struct seen got[32], want[32];
	struct bnxt_rxq qa, qb;
	uint32_t raw, agg_posted, n, na, nb = 0, other = 0;
	size_t len;

	if (size < 3)
		return 0;
	raw = (uint32_t)data[0] * 5u;		/* any slot, either pass parity */
	agg_posted = data[1] % AGG_SIZE;	/* at most size - 1 */
	n = 1 + data[2] % 32;
	len = size - 3 < sizeof(cq_a) ? size - 3 : sizeof(cq_a);
	memset(cq_a, 0, sizeof(cq_a));
	memcpy(cq_a, data + 3, len);
	memcpy(cq_b, cq_a, sizeof(cq_b));
	if (data[1] & 0x80) {
		run_tpa(cq_a, raw, agg_posted, n);
		return 0;
	}

	/* The driver's burst. */
	init_queue(&qa, cq_a, raw, agg_posted);
	na = zn_bnxt_rx_burst(&qa, pkts, n);
	CHECK(na <= n);
	for (uint32_t i = 0; i < na; i++) {
		const struct zn_rx_pkt *p = &pkts[i];
		uint32_t sum = p->hdr_len;

		CHECK(p->hdr >= hdrs && p->hdr + p->hdr_len <= hdrs + sizeof(hdrs));
		CHECK(((size_t)(p->hdr - hdrs)) % HDR == 0);
		CHECK(p->hdr_len >= 1 && p->hdr_len <= HDR);
		CHECK(p->nseg <= BNXT_RX_MAX_AGG);
		for (uint32_t s = 0; s < p->nseg; s++) {
			CHECK(p->seg[s].buf_id < NBUF && prov.out[p->seg[s].buf_id]);
			/* the address the provider gave with that very buffer */
			CHECK(p->seg[s].va == (uint8_t *)(uintptr_t)(0x200000u +
								     (uint64_t)p->seg[s].buf_id * ABUF));
			CHECK(p->seg[s].len >= 1 && p->seg[s].len <= ABUF && p->seg[s].off == 0);
			sum += p->seg[s].len;
		}
		CHECK(sum == p->pkt_len && p->pkt_len <= 1518);
		take(&got[i], p);
		for (uint32_t j = 0; j < i; j++)	/* no buffer handed out twice */
			for (uint32_t s = 0; s < p->nseg; s++)
				for (uint32_t t = 0; t < got[j].nseg; t++)
					CHECK(got[j].id[t] != p->seg[s].buf_id);
	}
	CHECK(prov.bad_puts == 0);
	/* Handed out + still posted + free = all. */
	{
		uint32_t handed = 0;

		for (uint32_t i = 0; i < na; i++)
			handed += pkts[i].nseg;
		CHECK(handed + (qa.pos.agg_prod - qa.pos.agg_cons) + prov.top == NBUF);
	}

	/* The reference: the precise decode only, the same stopping rules. */
	init_queue(&qb, cq_b, raw, agg_posted);
	while (nb < n && qb.pos.rx_prod != qb.pos.rx_cons) {
		struct bnxt_cmpl_res res;
		struct zn_rx_pkt p;
		uint32_t k = zn_bnxt_cmpl_parse(&qb.c, &qb.pos, &p, &res);

		if (!k)
			break;
		qb.pos.cq_raw += k;
		if (res.kind == BNXT_CK_PKT) {
			take(&want[nb++], &p);
			qb.pos.rx_cons++;
			qb.pos.agg_cons += res.nagg;
			continue;
		}
		if (res.kind == BNXT_CK_PKT_ERR) {
			qb.pos.rx_cons++;
			qb.pos.agg_cons += res.nagg;
		} else if (res.kind == BNXT_CK_AGG_STRAY) {
			qb.pos.agg_cons++;
		}
		if (++other >= 64)
			break;
	}
	CHECK(na == nb);
	for (uint32_t i = 0; i < na; i++)
		CHECK(!memcmp(&got[i], &want[i], sizeof(got[i])));
	CHECK(qa.pos.rx_cons == qb.pos.rx_cons && qa.pos.agg_cons == qb.pos.agg_cons);
	CHECK(qa.pos.cq_raw == qb.pos.cq_raw);
	return 0;
}
