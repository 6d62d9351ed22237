/* SPDX-License-Identifier: MIT */
/*
 * RX queues: memory, the burst, the AGG refill (hw-docs/bnxt.md §6, §9, §10).
 *
 *   RX ring   one header buffer per slot, fixed: slot i's BD always points
 *             at header buffer i and carries opaque i, so the BDs are written
 *             once and "posting" a slot is only moving the producer.
 *   AGG ring  payload buffers from the queue's provider; slot i's BD names
 *             the buffer posted there and carries opaque i.
 *   CQ        RX records (32 bytes) followed by their AGG records; 2 * RX +
 *             AGG entries, so it can hold every completion the posted
 *             buffers can produce.
 *
 * Ownership: RX slots from pos.rx_cons up to pos.rx_prod and AGG slots from
 * pos.agg_cons up to pos.agg_prod are the device's; the rest are ours. A
 * header buffer handed out by a burst stays valid until the next burst
 * (port.h), so a burst re-posts only the RX slots the previous burst
 * consumed: rx_prod = rx_cons at the start of this burst + size - 1.
 *
 * Doorbells at the end of a burst, at most one per ring: AGG first, then RX
 * (the device must never see a header slot whose payload buffers are not
 * there yet, §7.3), then the CQ consumer.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "drivers/bnxt/bnxt_cmpl.h"
#include "zcnic/log.h"

#define RX_REFILL_BATCH		32	/* provider alloc per call */
#define RX_PREFETCH_SLOTS	8	/* completion slots read ahead */
#define RX_MAX_OTHER		64	/* non-frame records handled per burst */
#define RX_AGG_BUF_MIN		128
#define RX_AGG_BUF_MAX		32768	/* [REF] §8.2: 32 KiB, the BD length is 16 bits */

static const char *const bad_names[BNXT_BAD_MAX] = {
	[BNXT_BAD_NONE] = "none",
	[BNXT_BAD_TYPE] = "record type does not belong on an RX completion ring",
	[BNXT_BAD_AGG_COUNT] = "AGG count above 7 or above the posted AGG buffers",
	[BNXT_BAD_OPAQUE] = "RX opaque is not the next posted RX slot",
	[BNXT_BAD_LEN] = "RX length is 0 or past the header buffer",
	[BNXT_BAD_AGG_TYPE] = "record inside the AGG group is not RX_AGG",
	[BNXT_BAD_AGG_OPAQUE] = "AGG opaque is not the next AGG slot",
	[BNXT_BAD_AGG_LEN] = "AGG length is 0 or past the payload buffer",
	[BNXT_BAD_FRAME_LEN] = "frame longer than the MRU",
	[BNXT_BAD_AGG_STRAY] = "lone AGG record for another slot",
};

const char *zn_bnxt_cmpl_bad_name(unsigned bad)
{
	return bad < BNXT_BAD_MAX ? bad_names[bad] : "unknown";
}

uint32_t zn_bnxt_cmpl_parse(const struct bnxt_rx_ctx *c, const struct bnxt_rx_pos *pos,
			    struct zn_rx_pkt *pkt, struct bnxt_cmpl_res *res)
{
	return bnxt_rx_decode(c, pos, pkt, res);
}

int zn_bnxt_rxq_create(struct bnxt *bp, uint16_t q, const struct zn_rxq_conf *conf,
		       struct bnxt_rxq **out)
{
	const struct zn_buf_provider *prov = conf->payload;
	uint32_t rs = conf->ring_size ? conf->ring_size : BNXT_RX_RING_DFLT;
	uint32_t hdr = conf->hdr_buf_size ? conf->hdr_buf_size : BNXT_HDR_BUF_DFLT;
	uint32_t as, cs, mtu = bp->conf.mtu ? bp->conf.mtu : BNXT_MTU_DFLT, tpa_segs = 0;
	struct bnxt_rxq *rxq;
	size_t len, off = 0;
	char name[32];
	int rc;

	if (!zn_is_pow2(rs) || rs < BNXT_RING_MIN || rs > BNXT_RX_RING_MAX) {
		ZN_ERR(BNXT_LOG, "%s: rxq %u: ring size %u must be a power of two in %u..%u",
		       bp->name, q, rs, BNXT_RING_MIN, BNXT_RX_RING_MAX);
		return -EINVAL;
	}
	if (hdr < BNXT_HDR_BUF_MIN || hdr > BNXT_HDR_BUF_MAX || hdr % 64) {
		ZN_ERR(BNXT_LOG, "%s: rxq %u: header buffer size %u must be a multiple of 64 "
		       "in %u..%u", bp->name, q, hdr, BNXT_HDR_BUF_MIN, BNXT_HDR_BUF_MAX);
		return -EINVAL;
	}
	if (conf->hds_thresh > BNXT_HDS_THRESHOLD_MAX || conf->hds_thresh % 4 ||
	    conf->hds_thresh > hdr) {
		ZN_ERR(BNXT_LOG, "%s: rxq %u: header-split threshold %u must be a multiple of 4, "
		       "at most %u and at most the header buffer size %u", bp->name, q,
		       conf->hds_thresh, BNXT_HDS_THRESHOLD_MAX, hdr);
		return -EINVAL;
	}
	if (conf->offloads & ~(uint32_t)BNXT_RX_OFFLOADS) {
		ZN_ERR(BNXT_LOG, "%s: rxq %u: RX offloads 0x%x asked, the driver does 0x%x",
		       bp->name, q, conf->offloads, BNXT_RX_OFFLOADS);
		return -EOPNOTSUPP;
	}
	if (!prov || !prov->alloc || !prov->put || prov->buf_size < RX_AGG_BUF_MIN ||
	    prov->buf_size > RX_AGG_BUF_MAX) {
		ZN_ERR(BNXT_LOG, "%s: rxq %u: the payload buffer provider needs alloc, put and "
		       "a buffer size in %u..%u", bp->name, q, RX_AGG_BUF_MIN, RX_AGG_BUF_MAX);
		return -EINVAL;
	}
	if (hdr + (uint64_t)BNXT_RX_MAX_AGG * prov->buf_size < mtu + BNXT_L2_OVERHEAD)
		ZN_WARN(BNXT_LOG, "%s: rxq %u: %u + 7 x %u buffer bytes cannot hold a %u-byte "
			"frame; longer frames are dropped", bp->name, q, hdr, prov->buf_size,
			mtu + BNXT_L2_OVERHEAD);
	if (conf->offloads & ZN_RX_OFFLOAD_TCP_AGG) {
		tpa_segs = zn_bnxt_tpa_segs(prov->buf_size, mtu, conf->agg_max);
		if (!tpa_segs) {
			ZN_ERR(BNXT_LOG, "%s: rxq %u: TPA: a %u-byte frame needs more than %u "
			       "buffers of %u bytes", bp->name, q, mtu, ZN_RX_MAX_SEGS,
			       prov->buf_size);
			return -EOPNOTSUPP;
		}
	}
	as = rs * BNXT_AGG_FACTOR;
	/* TPA: START and END (2 slots each) per RX slot, besides the AGG records */
	cs = (uint32_t)zn_roundup_pow2((tpa_segs ? 4 : 2) * rs + as);

	rxq = calloc(1, sizeof(*rxq));
	if (!rxq)
		return -ENOMEM;
	rxq->agg_sw = calloc(as, sizeof(*rxq->agg_sw));
	if (!rxq->agg_sw) {
		rc = -ENOMEM;
		goto err_free;
	}
	len = (size_t)cs * BNXT_CMPL_SIZE + (size_t)rs * BNXT_BD_SIZE +
	      (size_t)as * BNXT_BD_SIZE + (size_t)rs * hdr + sizeof(struct bnxt_ctx_hw_stats) +
	      4 * 4096;
	snprintf(name, sizeof(name), "bnxt-rxq%u", q);
	rc = zn_dma_region_alloc(name, len, conf->numa_node, ZN_DMA_NO_HUGE, &rxq->dma);
	if (rc < 0)
		goto err_free;
	rc = zn_bus_dma_map(bp->bus, rxq->dma);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: rxq %u: cannot DMA-map its rings: %s", bp->name, q,
		       strerror(-rc));
		goto err_region;
	}
	rxq->cq.va = zn_bnxt_carve(rxq->dma, &off, (size_t)cs * BNXT_CMPL_SIZE, 4096,
				   &rxq->cq.iova);
	rxq->rx.va = zn_bnxt_carve(rxq->dma, &off, (size_t)rs * BNXT_BD_SIZE, 4096,
				   &rxq->rx.iova);
	rxq->agg.va = zn_bnxt_carve(rxq->dma, &off, (size_t)as * BNXT_BD_SIZE, 4096,
				    &rxq->agg.iova);
	rxq->c.hdr_va = zn_bnxt_carve(rxq->dma, &off, (size_t)rs * hdr, 4096, &rxq->hdr_iova);
	rxq->hw_stats = zn_bnxt_carve(rxq->dma, &off, sizeof(*rxq->hw_stats), 64,
				      &rxq->hw_stats_iova);
	rxq->cq.size = cs;
	rxq->cq.type = BNXT_RING_TYPE_L2_CMPL;
	rxq->rx.size = rs;
	rxq->rx.type = BNXT_RING_TYPE_RX;
	rxq->agg.size = as;
	rxq->agg.type = BNXT_RING_TYPE_RX_AGG;
	rxq->cq.id = rxq->rx.id = rxq->agg.id = BNXT_INVALID_RING_ID;
	rxq->stat_ctx_id = BNXT_INVALID_ID32;
	rxq->steer_vnic = BNXT_INVALID_ID16;

	rxq->c.cq = rxq->cq.va;
	rxq->c.cq_size = cs;
	rxq->c.cq_mask = cs - 1;
	rxq->c.cq_shift = (uint32_t)__builtin_ctz(cs);
	rxq->c.rx_mask = rs - 1;
	rxq->c.agg_mask = as - 1;
	rxq->c.hdr_buf_size = hdr;
	rxq->c.agg_buf_size = prov->buf_size;
	rxq->c.max_frame = mtu + BNXT_L2_OVERHEAD;
	rxq->c.agg_sw = rxq->agg_sw;
	rxq->c.qid = q;
	rxq->agg_bd = rxq->agg.va;
	rxq->alloc = prov->alloc;
	rxq->put = prov->put;
	rxq->prov_ctx = prov->ctx;
	rxq->hds_thresh = conf->hds_thresh;
	if (tpa_segs) {
		rc = zn_bnxt_tpa_alloc(rxq, tpa_segs);
		if (rc < 0) {
			zn_bus_dma_unmap(bp->bus, rxq->dma);
			goto err_region;
		}
	}
	*out = rxq;
	return 0;

err_region:
	zn_dma_region_free(rxq->dma);
err_free:
	free(rxq->agg_sw);
	free(rxq);
	return rc;
}

void zn_bnxt_rxq_destroy(struct bnxt *bp, struct bnxt_rxq *rxq)
{
	if (!rxq)
		return;
	zn_bnxt_rxq_release_bufs(rxq);
	zn_bnxt_tpa_free(rxq);
	zn_bus_dma_unmap(bp->bus, rxq->dma);
	zn_dma_region_free(rxq->dma);
	free(rxq->agg_sw);
	free(rxq);
}

/*
 * Post up to want AGG buffers from prod on; returns the new producer. A BD's
 * word 0 (type, buffer size, opaque = its slot) never changes and is written
 * once by zn_bnxt_rxq_prepare: posting is the address and the buffer id.
 */
static uint32_t agg_refill(struct bnxt_rxq *q, uint32_t prod, uint32_t want)
{
	struct zn_buf bufs[RX_REFILL_BATCH];
	const uint32_t mask = q->c.agg_mask;
	struct bnxt_rx_bd *const agg_bd = q->agg_bd;
	struct bnxt_agg_slot *const agg_sw = q->agg_sw;

	while (want) {
		uint32_t ask = want < RX_REFILL_BATCH ? want : RX_REFILL_BATCH;
		uint32_t got = q->alloc(q->prov_ctx, bufs, ask);

		if (got > ask)
			got = ask;	/* a provider that overfills is not trusted */
		/* In at most two runs of slots, split where the ring wraps. */
		for (uint32_t i = 0; i < got;) {
			const uint32_t slot = prod & mask;
			const uint32_t run = got - i < mask + 1 - slot ? got - i : mask + 1 - slot;
			struct bnxt_rx_bd *b = &agg_bd[slot];
			struct bnxt_agg_slot *sw = &agg_sw[slot];
			const struct zn_buf *src = &bufs[i], *const end = src + run;

			for (; src < end; src++, b++, sw++) {
				b->addr = src->iova;
				sw->va = src->va;
				sw->buf_id = src->id;
			}
			i += run;
			prod += run;
		}
		if (got < ask) {
			q->st.nobuf++;
			break;
		}
		want -= got;
	}
	return prod;
}

void zn_bnxt_rxq_prepare(struct bnxt_rxq *q)
{
	memset((void *)q->c.cq, 0, (size_t)q->c.cq_size * BNXT_CMPL_SIZE);
	memset(&q->pos, 0, sizeof(q->pos));
	q->cq_db_raw = 0;
	q->last_hwrm_done = 0;
	zn_bnxt_rxq_prepare_rings(q);
}

void zn_bnxt_rxq_prepare_rings(struct bnxt_rxq *q)
{
	struct bnxt_rx_bd *bd = q->rx.va;

	for (uint32_t i = 0; i < q->rx.size; i++) {
		bd[i].flags_type = BNXT_RX_BD_TYPE_PKT;
		bd[i].len = (uint16_t)q->c.hdr_buf_size;
		bd[i].opaque = i;
		bd[i].addr = q->hdr_iova + (uint64_t)i * q->c.hdr_buf_size;
	}
	for (uint32_t i = 0; i < q->agg.size; i++) {
		uint64_t *w = (uint64_t *)&q->agg_bd[i];

		w[0] = BNXT_RX_BD_TYPE_AGG | (uint64_t)q->c.agg_buf_size << 16 | (uint64_t)i << 32;
		w[1] = 0;
	}
	q->pos.rx_cons = 0;
	q->pos.agg_cons = 0;
	zn_bnxt_agg_done_reset(q);
	q->pos.rx_prod = q->rx.size - 1;
	q->pos.agg_prod = agg_refill(q, 0, q->agg.size - 1);
}

/* §4 step 12: the AGG doorbell first, then the RX doorbell. */
void zn_bnxt_rxq_post_initial(struct bnxt_rxq *q)
{
	bnxt_db_write(&q->agg_db, q->pos.agg_prod & q->c.agg_mask);
	bnxt_db_write(&q->rx_db, q->pos.rx_prod & q->c.rx_mask);
}

/* Give back to the provider the payload buffers of n AGG slots from cons on. */
static void agg_put(struct bnxt_rxq *q, uint32_t cons, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		q->put(q->prov_ctx, &q->agg_sw[(cons + i) & q->c.agg_mask].buf_id, 1);
}

static void rx_bad_log(struct bnxt_rxq *q, uint32_t raw, unsigned bad)
{
	q->st.bad_cmpl++;
	ZN_LOG_RL(ZN_LOG_WARN, BNXT_LOG, "rxq %u: completion at slot %u rejected: %s",
		  q->c.qid, raw & q->c.cq_mask, zn_bnxt_cmpl_bad_name(bad));
}

/* Everything but a good frame: the rare paths, out of the burst loop. */
static __attribute__((noinline)) void rx_other(struct bnxt_rxq *q, struct bnxt_rx_pos *pos,
					       const struct bnxt_cmpl_res *res, uint32_t raw)
{
	switch (res->kind) {
	case BNXT_CK_PKT_ERR:
		/* Well formed, flagged by the device: dropped, its buffers ours again. */
		q->st.errors++;
		agg_put(q, pos->agg_cons, res->nagg);
		pos->agg_cons += res->nagg;
		pos->rx_cons++;
		break;
	case BNXT_CK_AGG_STRAY:
		/* The device did fill the next AGG buffer: recycle it, keep our place. */
		agg_put(q, pos->agg_cons, 1);
		pos->agg_cons++;
		rx_bad_log(q, raw, res->bad);
		break;
	case BNXT_CK_BAD:
		rx_bad_log(q, raw, res->bad);
		break;
	case BNXT_CK_HWRM_DONE:
		q->last_hwrm_done = res->seq | BNXT_HWRM_DONE_SEEN;
		break;
	default:
		break;
	}
}

/* The burst's slow path: what the fast path did not take. Returns the slots
 * consumed, 0 when nothing is complete; *got set for a good frame. */
static __attribute__((noinline)) uint32_t rx_slow(struct bnxt_rxq *q, struct bnxt_rx_pos *pos,
						  struct zn_rx_pkt *p, bool *got)
{
	struct bnxt_cmpl_res res;
	uint32_t k;

	*got = false;
	if (q->tpa) {
		const void *slot = bnxt_cq_slot(&q->c, pos->cq_raw);
		uint32_t type;

		if (!bnxt_cmpl_valid(slot, pos->cq_raw, q->c.cq_size))
			return 0;
		zn_dma_rmb();
		type = *(const uint16_t *)slot & BNXT_CMPL_TYPE_MASK;
		if (type == BNXT_CMPL_TYPE_RX_TPA_START || type == BNXT_CMPL_TYPE_RX_TPA_END ||
		    type == BNXT_CMPL_TYPE_RX_TPA_AGG) {
			k = zn_bnxt_tpa_rx(q, pos, type, p, got);
			pos->cq_raw += k;
			return k;
		}
	}
	k = bnxt_rx_decode(&q->c, pos, p, &res);
	if (!k)
		return 0;
	if (q->c.agg_done && (res.kind == BNXT_CK_PKT || res.kind == BNXT_CK_PKT_ERR)) {
		/* AGG slots named by opaque, in any order (bnxt_agg_slot_ok) */
		for (uint32_t i = 0; i < res.nagg; i++) {
			const struct bnxt_rx_agg_cmpl *a = bnxt_cq_slot(&q->c, pos->cq_raw + 2 + i);

			zn_bnxt_agg_take(q, pos, a->opaque);
			if (res.kind == BNXT_CK_PKT_ERR)
				q->put(q->prov_ctx, &q->agg_sw[a->opaque].buf_id, 1);
		}
		pos->rx_cons++;
		if (res.kind == BNXT_CK_PKT_ERR)
			q->st.errors++;
		*got = res.kind == BNXT_CK_PKT;
	} else if (res.kind == BNXT_CK_PKT) {
		pos->rx_cons++;
		pos->agg_cons += res.nagg;
		*got = true;
	} else {
		rx_other(q, pos, &res, pos->cq_raw);
	}
	zn_bnxt_agg_skip(q, pos);
	pos->cq_raw += k;
	return k;
}

#define RX_SIGN 0x80000000u

/* The fast path's AGG limit: agg_prod, or short of a slot TPA completed
 * ahead (a frame ending there goes to rx_slow, which steps over it). */
static inline uint32_t fast_agg_lim(const struct bnxt_rxq *q, uint32_t cons, uint32_t prod)
{
	uint32_t lim = zn_bnxt_agg_plain_end(q, cons, prod);

	return lim == prod ? prod : lim - 1u;
}

/* The burst writes va + buf_id + off with one 16-byte copy from the AGG
 * slot, and hdr_len + queue with one store. */
_Static_assert(offsetof(struct zn_rx_pkt, seg[0].va) == offsetof(struct zn_rx_pkt, seg[0]) &&
	       offsetof(struct zn_rx_pkt, seg[0].buf_id) == offsetof(struct zn_rx_pkt, seg[0]) + 8 &&
	       offsetof(struct zn_rx_pkt, seg[0].off) == offsetof(struct zn_rx_pkt, seg[0]) + 12 &&
	       offsetof(struct bnxt_agg_slot, buf_id) == 8 && offsetof(struct bnxt_agg_slot, zero) == 12 &&
	       sizeof(struct bnxt_agg_slot) == 16 &&
	       offsetof(struct zn_rx_pkt, queue) == offsetof(struct zn_rx_pkt, hdr_len) + 2,
	       "zn_rx_pkt / bnxt_agg_slot layout");

struct agg_res {
	uint64_t bad;
	uint32_t total;
};

/* AGG records of a group with n >= 2 by the fast path's rules: at most 7,
 * all posted, not across the AGG ring's end; out of line so that the
 * one-buffer frame stays short. */
static __attribute__((noinline)) struct agg_res agg_more(const uint8_t *lo, const struct bnxt_rxq *q,
							 uint32_t as, uint32_t n, uint32_t agg_left,
							 struct zn_rx_pkt *p, uint32_t total)
{
	uint64_t exp = (uint64_t)as << 32 | BNXT_CMPL_TYPE_RX_AGG;
	struct agg_res r = { 0, total };

	r.bad = ((BNXT_RX_MAX_AGG - n) | (agg_left - n) | (q->c.agg_mask + 1u - as - n)) & RX_SIGN;
	if (r.bad)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = *(const uint64_t *)(lo + (size_t)(2 + i) * BNXT_CMPL_SIZE);
		uint32_t al = (uint32_t)(a >> 16) & 0xffffu;

		r.bad |= (a & 0xffffffff0000003full) ^ exp;
		r.bad |= ((al - 1u) | (q->c.agg_buf_size - al)) & RX_SIGN;
		r.total += al;
		memcpy(&p->seg[i], &q->agg_sw[as + i], sizeof(q->agg_sw[0]));	/* va, buf_id, off 0 */
		p->seg[i].len = al;
		exp += 1ull << 32;
	}
	return r;
}

/*
 * The burst. Its fast path takes a good frame whose completion group lies
 * within one pass of the CQ and whose AGG slots do not wrap: every rule of
 * bnxt_cmpl.h folded into arithmetic (a value is "bad" when a mismatch bit or
 * its sign bit is set) and one branch. Within one pass every slot of the
 * group carries the first slot's V. Anything else (not complete yet,
 * garbage, a frame in error, HWRM_DONE, a group across the ring's end) goes
 * to bnxt_rx_decode, which says precisely what it is; a frame the fast path
 * takes is one bnxt_rx_decode takes too, with the same fields.
 */
uint32_t zn_bnxt_rx_burst(struct bnxt_rxq *q, struct zn_rx_pkt *pkts, uint32_t n)
{
	const uint8_t *const cq = q->c.cq;
	const uint32_t cq_mask = q->c.cq_mask, cq_shift = q->c.cq_shift;
	const uintptr_t cq_end = (uintptr_t)cq + (size_t)q->c.cq_size * BNXT_CMPL_SIZE;
	const uint32_t rx_mask = q->c.rx_mask, hdr_size = q->c.hdr_buf_size;
	const uint32_t agg_mask = q->c.agg_mask, agg_buf = q->c.agg_buf_size;
	const uint32_t max = q->c.max_frame;
	/* A frame without AGG buffers: one check covers buffer and MRU. */
	const uint32_t hdr_lim = hdr_size < max ? hdr_size : max;
	const uint8_t *const hdr_va = q->c.hdr_va;
	const struct bnxt_agg_slot *const agg_sw = q->agg_sw;
	const uint32_t qid_hi = (uint32_t)q->c.qid << 16;
	uint32_t raw = q->pos.cq_raw, rx_cons = q->pos.rx_cons, agg_cons = q->pos.agg_cons;
	const uint32_t agg_prod = q->pos.agg_prod;
	uint32_t agg_lim = fast_agg_lim(q, agg_cons, agg_prod), agg_prod_m1 = agg_lim - 1u;
	const uint32_t rx_start = rx_cons, cq_start = raw, rx_prod = q->pos.rx_prod;
	/* A good frame takes 2 + k slots, 1 RX and k AGG: raw is not kept in
	 * the loop but derived, raw = raw_bias + 2 * rx_cons + agg_cons. */
	uint32_t raw_bias = raw - 2 * rx_cons - agg_cons;
	struct zn_rx_pkt *p = pkts, *const last = pkts + n, *pend;
	/* The next slot and the V it has when complete (the phase of its pass:
	 * not (raw >> shift) & 1), kept across the loop, not derived from raw. */
	const uint8_t *lo = cq + (size_t)(raw & cq_mask) * BNXT_CMPL_SIZE;
	uint32_t ph = ~(raw >> cq_shift) & 1u;
	uint32_t other = 0, prod, cnt;
	uint64_t bytes = 0;

	zn_owner_enter(&q->owner, "RX queue");
	if (!++q->burst_seq)
		q->burst_seq = 1;	/* 0 is "never" in bnxt_tpa.ended */

	/* At most one frame per posted RX slot: no per-frame check needed. */
	pend = pkts + (n < rx_prod - rx_cons ? n : rx_prod - rx_cons);
	while (p < pend) {
		uint64_t w0, w1, bad;
		uint32_t k, ev, vl, len, total, as, rs;
		uintptr_t nxt;

		w1 = *(const volatile uint64_t *)(lo + 8);
		if (((uint32_t)w1 ^ ph) & 1u)
			break;
		k = ((uint32_t)w1 >> 1) & 0x1fu;	/* AGG records */
		nxt = (uintptr_t)lo + (size_t)(2 + k) * BNXT_CMPL_SIZE;
		if (__builtin_expect(nxt > cq_end, 0))
			goto slow;	/* the group crosses the ring's end */
		zn_dma_rmb();
		ev = *(const volatile uint32_t *)(lo + BNXT_CMPL_SIZE + 8);
		vl = *(const volatile uint32_t *)(nxt - 8);	/* the group's last slot */
		zn_dma_rmb();
		w0 = *(const uint64_t *)lo;
		len = (uint32_t)(w0 >> 16) & 0xffffu;
		rs = rx_cons & rx_mask;
		/* second and last slot valid; RX_L2 without ERROR; the next RX
		 * slot; no error reported; 1..buffer bytes */
		/* (the first slot's V is ph: the V and error checks of ev fold) */
		_Static_assert(!(BNXT_RX_ERRORS_DROP & 1u), "V is bit 0 of errors_v2");
		bad = (ev ^ ph) & (BNXT_RX_ERRORS_DROP | 1u);
		bad |= (vl ^ ph) & 1u;
		bad |= ((uint32_t)w0 & 0x7fu) ^ BNXT_CMPL_TYPE_RX_L2;
		bad |= (uint32_t)(w0 >> 32) ^ rs;
		total = len;
		if (k == 1) {
			/* The usual split frame: one AGG buffer, posted, the next. */
			uint64_t a = *(const uint64_t *)(lo + 2 * BNXT_CMPL_SIZE);
			uint32_t al = (uint32_t)(a >> 16) & 0xffffu;

			as = agg_cons & agg_mask;
			total += al;
			bad |= ((uint32_t)a & 0x3fu) ^ BNXT_CMPL_TYPE_RX_AGG;
			bad |= (uint32_t)(a >> 32) ^ as;
			bad |= ((len - 1u) | (hdr_size - len) | (al - 1u) | (agg_buf - al) |
				(agg_prod_m1 - agg_cons) | (max - total)) & RX_SIGN;
			/* va, buf_id and off = 0 in one copy */
			memcpy(&p->seg[0], &agg_sw[as], sizeof(agg_sw[0]));
			p->seg[0].len = al;
		} else if (k) {
			struct agg_res r = agg_more(lo, q, agg_cons & agg_mask, k,
						      agg_lim - agg_cons, p, total);

			bad |= r.bad;
			total = r.total;
			bad |= ((len - 1u) | (hdr_size - len) | (max - total)) & RX_SIGN;
		} else {
			bad |= (len - 1u) >= hdr_lim;
		}
		if (__builtin_expect(bad != 0, 0))
			goto slow;
		p->hdr = hdr_va + (size_t)rs * hdr_size;
		{
			uint32_t lq = len | qid_hi;	/* hdr_len and queue, one store */

			memcpy(&p->hdr_len, &lq, sizeof(lq));
		}
		p->rss_hash = (uint32_t)(w1 >> 32);
		p->flags = bnxt_rx_flags((uint32_t)w0, *(const uint32_t *)(lo + BNXT_CMPL_SIZE), ev);
		p->pkt_len = total;
		p->nseg = k;
		__builtin_prefetch(p->hdr);
		rx_cons++;
		agg_cons += k;
		bytes += total;
		p++;
		lo = (const uint8_t *)nxt;
		if (__builtin_expect(nxt == cq_end, 0)) {
			lo = cq;
			ph ^= 1u;
		}
		continue;
slow:
		/* Not a plain good frame: what is it? */
		{
			struct bnxt_rx_pos pos = {
				.cq_raw = raw_bias + 2 * rx_cons + agg_cons, .rx_cons = rx_cons,
				.rx_prod = rx_prod, .agg_cons = agg_cons, .agg_prod = agg_prod,
			};
			bool got;

			k = rx_slow(q, &pos, p, &got);
			raw = pos.cq_raw;
			rx_cons = pos.rx_cons;
			agg_cons = pos.agg_cons;
			raw_bias = raw - 2 * rx_cons - agg_cons;
			agg_lim = fast_agg_lim(q, agg_cons, agg_prod);
			agg_prod_m1 = agg_lim - 1u;
			lo = cq + (size_t)(raw & cq_mask) * BNXT_CMPL_SIZE;
			ph = ~(raw >> cq_shift) & 1u;
			if (!k)
				break;
			if (got) {
				bytes += p->pkt_len;
				p++;
			} else if (++other >= RX_MAX_OTHER) {
				break;
			}
			pend = p + ((uint32_t)(last - p) < rx_prod - rx_cons ?
				    (uint32_t)(last - p) : rx_prod - rx_cons);
		}
	}
	raw = raw_bias + 2 * rx_cons + agg_cons;
	cnt = (uint32_t)(p - pkts);
	q->st.packets += cnt;
	q->st.bytes += bytes;
	q->pos.cq_raw = raw;
	q->pos.rx_cons = rx_cons;
	q->pos.agg_cons = agg_cons;

	/* Payload buffers for the AGG slots this burst consumed. */
	prod = q->pos.agg_prod;
	if (agg_cons + agg_mask != prod) {
		q->pos.agg_prod = agg_refill(q, prod, agg_cons + agg_mask - prod);
		if (q->pos.agg_prod != prod)
			bnxt_db_write(&q->agg_db, q->pos.agg_prod & agg_mask);
	}
	/* Header slots of the previous burst: their buffers are ours again. */
	prod = rx_start + rx_mask;
	if (q->pos.rx_prod != prod) {
		q->pos.rx_prod = prod;
		bnxt_db_write(&q->rx_db, prod & rx_mask);
	}
	if (raw != cq_start)
		bnxt_db_write(&q->cq_db, raw & cq_mask);
	return cnt;
}

/*
 * Teardown: consume whatever the device still writes (frames are dropped,
 * their payload buffers go back to the provider) and note HWRM_DONE.
 */
void zn_bnxt_rxq_drain(struct bnxt_rxq *q)
{
	struct bnxt_rx_pos pos = q->pos;
	struct bnxt_cmpl_res res;
	struct zn_rx_pkt pkt;

	for (uint32_t i = 0; i < q->c.cq_size; i++) {
		uint32_t k;
		bool got;

		if (q->tpa) {
			/* TPA records (and aggregates) too: their buffers go back */
			q->burst_seq = 0;	/* no aggregation is held for a caller */
			k = rx_slow(q, &pos, &pkt, &got);
			if (!k)
				break;
			for (uint32_t s = 0; got && s < pkt.nseg; s++)
				q->put(q->prov_ctx, &pkt.seg[s].buf_id, 1);
			continue;
		}
		k = bnxt_rx_decode(&q->c, &pos, &pkt, &res);
		if (!k)
			break;
		if (res.kind == BNXT_CK_PKT) {
			agg_put(q, pos.agg_cons, res.nagg);
			pos.agg_cons += res.nagg;
			pos.rx_cons++;
		} else {
			rx_other(q, &pos, &res, pos.cq_raw);
		}
		pos.cq_raw += k;
	}
	if (pos.cq_raw != q->pos.cq_raw && q->cq.id != BNXT_INVALID_RING_ID)
		bnxt_db_write(&q->cq_db, pos.cq_raw & q->c.cq_mask);
	q->pos = pos;
}

/* After the rings are freed: the buffers still posted go back to the provider. */
void zn_bnxt_rxq_release_bufs(struct bnxt_rxq *q)
{
	zn_bnxt_tpa_release(q);
	/* a slot TPA completed out of order holds no buffer of the ring's any more */
	while (q->pos.agg_cons != q->pos.agg_prod) {
		if (!zn_bnxt_agg_done(q, q->pos.agg_cons))
			q->put(q->prov_ctx, &q->agg_sw[q->pos.agg_cons & q->c.agg_mask].buf_id, 1);
		q->pos.agg_cons++;
	}
	zn_bnxt_agg_done_reset(q);
}
