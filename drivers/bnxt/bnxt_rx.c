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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	[BNXT_BAD_PLACEMENT] = "placement does not match the AGG count",
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

static uint32_t pow2_ceil(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int zn_bnxt_rxq_create(struct bnxt *bp, uint16_t q, const struct zn_rxq_conf *conf,
		       struct bnxt_rxq **out)
{
	const struct zn_buf_provider *prov = conf->payload;
	uint32_t rs = conf->ring_size ? conf->ring_size : BNXT_RX_RING_DFLT;
	uint32_t hdr = conf->hdr_buf_size ? conf->hdr_buf_size : BNXT_HDR_BUF_DFLT;
	uint32_t as, cs, mtu = bp->conf.mtu ? bp->conf.mtu : BNXT_MTU_DFLT;
	struct bnxt_rxq *rxq;
	size_t len, off = 0;
	char name[32];
	int rc;

	if (!is_pow2(rs) || rs < BNXT_RING_MIN || rs > BNXT_RX_RING_MAX) {
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
	as = rs * BNXT_AGG_FACTOR;
	cs = pow2_ceil(2 * rs + as);

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
	zn_bus_dma_unmap(bp->bus, rxq->dma);
	zn_dma_region_free(rxq->dma);
	free(rxq->agg_sw);
	free(rxq);
}

/* Post up to want AGG buffers from prod on; returns the new producer. */
static uint32_t agg_refill(struct bnxt_rxq *q, uint32_t prod, uint32_t want)
{
	struct zn_buf bufs[RX_REFILL_BATCH];
	const uint32_t mask = q->c.agg_mask;
	const uint64_t lo = BNXT_RX_BD_TYPE_AGG | (uint64_t)q->c.agg_buf_size << 16;

	while (want) {
		uint32_t ask = want < RX_REFILL_BATCH ? want : RX_REFILL_BATCH;
		uint32_t got = q->alloc(q->prov_ctx, bufs, ask);

		if (got > ask)
			got = ask;	/* a provider that overfills is not trusted */
		for (uint32_t i = 0; i < got; i++) {
			uint32_t slot = prod & mask;
			uint64_t *bd = (uint64_t *)&q->agg_bd[slot];

			bd[0] = lo | (uint64_t)slot << 32;
			bd[1] = bufs[i].iova;
			q->agg_sw[slot].buf_id = bufs[i].id;
			prod++;
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
	struct bnxt_rx_bd *bd = q->rx.va;

	memset((void *)q->c.cq, 0, (size_t)q->c.cq_size * BNXT_CMPL_SIZE);
	for (uint32_t i = 0; i < q->rx.size; i++) {
		bd[i].flags_type = BNXT_RX_BD_TYPE_PKT;
		bd[i].len = (uint16_t)q->c.hdr_buf_size;
		bd[i].opaque = i;
		bd[i].addr = q->hdr_iova + (uint64_t)i * q->c.hdr_buf_size;
	}
	memset(q->agg_bd, 0, (size_t)q->agg.size * BNXT_BD_SIZE);
	memset(&q->pos, 0, sizeof(q->pos));
	q->pos.rx_prod = q->rx.size - 1;
	q->pos.agg_prod = agg_refill(q, 0, q->agg.size - 1);
	q->cq_db_raw = 0;
	q->last_hwrm_done = 0;
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

uint32_t zn_bnxt_rx_burst(struct bnxt_rxq *q, struct zn_rx_pkt *pkts, uint32_t n)
{
	struct bnxt_rx_pos pos = q->pos;
	const uint32_t rx_start = pos.rx_cons;
	uint32_t cnt = 0, other = 0, prod;
	uint64_t bytes = 0;
	struct bnxt_cmpl_res res;

	while (cnt < n) {
		uint32_t k = bnxt_rx_decode(&q->c, &pos, &pkts[cnt], &res);

		if (!k)
			break;
		__builtin_prefetch(bnxt_cq_slot(&q->c, pos.cq_raw + RX_PREFETCH_SLOTS));
		if (__builtin_expect(res.kind == BNXT_CK_PKT, 1)) {
			__builtin_prefetch(pkts[cnt].hdr);
			bytes += pkts[cnt].pkt_len;
			pos.rx_cons++;
			pos.agg_cons += res.nagg;
			pos.cq_raw += k;
			cnt++;
			continue;
		}
		rx_other(q, &pos, &res, pos.cq_raw);
		pos.cq_raw += k;
		if (++other >= RX_MAX_OTHER)
			break;
	}
	q->st.packets += cnt;
	q->st.bytes += bytes;

	/* Payload buffers for the AGG slots this burst consumed. */
	prod = pos.agg_prod;
	if (pos.agg_cons + q->c.agg_mask - prod)
		pos.agg_prod = agg_refill(q, prod, pos.agg_cons + q->c.agg_mask - prod);
	/* Header slots of the previous burst: their buffers are ours again. */
	prod = pos.rx_prod;
	pos.rx_prod = rx_start + q->c.rx_mask;
	if (pos.agg_prod != q->pos.agg_prod)
		bnxt_db_write(&q->agg_db, pos.agg_prod & q->c.agg_mask);
	if (pos.rx_prod != prod)
		bnxt_db_write(&q->rx_db, pos.rx_prod & q->c.rx_mask);
	if (pos.cq_raw != q->pos.cq_raw)
		bnxt_db_write(&q->cq_db, pos.cq_raw & q->c.cq_mask);
	q->pos = pos;
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
		uint32_t k = bnxt_rx_decode(&q->c, &pos, &pkt, &res);

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
	while (q->pos.agg_cons != q->pos.agg_prod) {
		q->put(q->prov_ctx, &q->agg_sw[q->pos.agg_cons & q->c.agg_mask].buf_id, 1);
		q->pos.agg_cons++;
	}
}
