/* SPDX-License-Identifier: MIT */
/*
 * Port start and stop: hw-docs/bnxt.md §4 steps 9-17 and the teardown, in
 * the documented order, each step naming its HWRM command.
 *
 * Rules learnt from the document:
 *  - a stat context and a completion ring (and its NQ) exist before a ring
 *    or VNIC names them, and are freed after it;
 *  - the AGG doorbell is rung before the RX doorbell (§7.3);
 *  - a TX/RX/AGG ring is freed with cmpl_ring = its CQ, and the driver waits
 *    for the HWRM_DONE there: after it no completion for the ring follows,
 *    so the buffers posted to it are ours again;
 *  - the backing store outlives every ring (released at close, §4).
 * Teardown works from whatever state a failed start left: every resource
 * records whether it exists.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define DONE_POLL_NS	100000	/* between looks for HWRM_DONE */

/* §4 step 9: FUNC_CFG reserves what start is about to allocate. */
static int func_cfg_reserve(struct bnxt *bp)
{
	struct bnxt_hwrm_func_cfg_input req;
	uint16_t nrx = bp->conf.nb_rxq, ntx = bp->conf.nb_txq;

	memset(&req, 0, sizeof(req));
	req.hdr.req_type = BNXT_HWRM_FUNC_CFG;
	req.fid = BNXT_FID_SELF;
	req.enables = BNXT_FUNC_CFG_ENABLES_NUM_TX_RINGS | BNXT_FUNC_CFG_ENABLES_NUM_RX_RINGS |
		      BNXT_FUNC_CFG_ENABLES_NUM_CMPL_RINGS | BNXT_FUNC_CFG_ENABLES_NUM_STAT_CTXS |
		      BNXT_FUNC_CFG_ENABLES_NUM_VNICS | BNXT_FUNC_CFG_ENABLES_NUM_RSSCOS_CTXS |
		      BNXT_FUNC_CFG_ENABLES_NUM_L2_CTXS | BNXT_FUNC_CFG_ENABLES_NUM_MSIX;
	req.num_tx_rings = ntx;
	req.num_rx_rings = (uint16_t)(2 * nrx);		/* an AGG ring counts as an RX ring */
	req.num_cmpl_rings = (uint16_t)(nrx + ntx);
	req.num_stat_ctxs = (uint16_t)(nrx + ntx);
	req.num_vnics = (uint16_t)(1 + nrx);		/* default + one per steered queue */
	req.num_rsscos_ctxs = 1;
	req.num_l2_ctxs = 1;
	req.num_msix = zn_bnxt_irq_plan(bp);		/* P5: the number of NQs */
	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

/* §4 step 10, second half: async events go to our NQ. */
static int func_cfg_async_cr(struct bnxt *bp)
{
	struct bnxt_hwrm_func_cfg_input req;

	memset(&req, 0, sizeof(req));
	req.hdr.req_type = BNXT_HWRM_FUNC_CFG;
	req.fid = BNXT_FID_SELF;
	req.enables = BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR;
	req.async_event_cr = bp->nq.id;
	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

/* §4 step 11: stat context, CQ, then the TX ring that names both. */
static int txq_start(struct bnxt *bp, struct bnxt_txq *q)
{
	int rc;

	q->max_frame = bp->conf.mtu + BNXT_L2_OVERHEAD;
	zn_owner_reset(&q->owner);	/* a started port's queue may go to any thread */
	zn_bnxt_txq_prepare(q);
	rc = zn_bnxt_stat_ctx_alloc(bp, q->hw_stats_iova, &q->stat_ctx_id);
	if (rc == 0)
		rc = zn_bnxt_ring_alloc(bp, &q->cq_ring, zn_bnxt_irq_nq_id(bp, q->qid), 0, 0, 0);
	if (rc < 0)
		return rc;
	q->cq_db = q->cq_ring.db;
	bnxt_db_write(&q->cq_db, 0);	/* §7.3: a polling driver does not arm */
	rc = zn_bnxt_ring_alloc(bp, &q->tx, q->cq_ring.id, 0, q->stat_ctx_id, 0);
	if (rc < 0)
		return rc;
	q->sq_db = q->tx.db;
	return 0;
}

/* §4 step 12: stat context, CQ, RX ring, AGG ring; buffers; AGG then RX doorbell. */
static int rxq_start(struct bnxt *bp, struct bnxt_rxq *q)
{
	int rc;

	q->c.max_frame = bp->conf.mtu + BNXT_L2_OVERHEAD;
	zn_owner_reset(&q->owner);
	zn_bnxt_rxq_prepare(q);
	rc = zn_bnxt_stat_ctx_alloc(bp, q->hw_stats_iova, &q->stat_ctx_id);
	if (rc == 0)
		rc = zn_bnxt_ring_alloc(bp, &q->cq, zn_bnxt_irq_nq_id(bp, q->c.qid), 0, 0, 0);
	if (rc < 0)
		return rc;
	q->cq_db = q->cq.db;
	bnxt_db_write(&q->cq_db, 0);
	rc = zn_bnxt_ring_alloc(bp, &q->rx, q->cq.id, 0, q->stat_ctx_id, q->c.hdr_buf_size);
	if (rc == 0)
		rc = zn_bnxt_ring_alloc(bp, &q->agg, q->cq.id, q->rx.id, q->stat_ctx_id,
					q->c.agg_buf_size);
	if (rc < 0)
		return rc;
	q->rx_db = q->rx.db;
	q->agg_db = q->agg.db;
	if (!bp->recovering)	/* recovery posts once the flow rules are back */
		zn_bnxt_rxq_post_initial(q);
	return 0;
}

/* Free a producer ring and wait for its HWRM_DONE on the CQ it completes to. */
static void free_and_wait(struct bnxt *bp, struct bnxt_ring *r, uint16_t cq_id,
			  uint32_t *last_done, void (*drain)(void *), void *q)
{
	uint16_t seq, id = r->id;
	uint64_t deadline;

	if (id == BNXT_INVALID_RING_ID)
		return;
	if (cq_id == BNXT_INVALID_RING_ID || bp->hwrm.dead) {
		zn_bnxt_ring_free(bp, r, BNXT_HWRM_CMPL_RING_NONE, NULL);
		return;
	}
	if (zn_bnxt_ring_free(bp, r, cq_id, &seq) < 0)
		return;
	deadline = zn_now_ms() + bp->hwrm.timeout_ms;
	for (;;) {
		drain(q);
		if (*last_done == ((uint32_t)seq | BNXT_HWRM_DONE_SEEN))
			return;
		if (zn_now_ms() > deadline)
			break;
		nanosleep(&(struct timespec){ 0, DONE_POLL_NS }, NULL);
	}
	ZN_WARN(BNXT_LOG, "%s: RING_FREE of ring %u: no HWRM_DONE on CQ %u within %u ms",
		bp->name, id, cq_id, bp->hwrm.timeout_ms);
}

static void rx_drain_cb(void *q)
{
	zn_bnxt_rxq_drain(q);
}

static void tx_drain_cb(void *q)
{
	zn_bnxt_txq_drain(q);
}

void zn_bnxt_rxq_stop_rings(struct bnxt *bp, struct bnxt_rxq *q)
{
	/* the queue's thread has stopped: the control thread drains it now */
	zn_owner_reset(&q->owner);
	free_and_wait(bp, &q->agg, q->cq.id, &q->last_hwrm_done, rx_drain_cb, q);
	free_and_wait(bp, &q->rx, q->cq.id, &q->last_hwrm_done, rx_drain_cb, q);
	memset(&q->rx_db, 0, sizeof(q->rx_db));
	memset(&q->agg_db, 0, sizeof(q->agg_db));
}

static void txq_stop(struct bnxt *bp, struct bnxt_txq *q)
{
	zn_owner_reset(&q->owner);	/* as rxq_stop */
	free_and_wait(bp, &q->tx, q->cq_ring.id, &q->last_hwrm_done, tx_drain_cb, q);
	memset(&q->sq_db, 0, sizeof(q->sq_db));
	/* The device is done with every frame: tx_reap may hand them all back. */
	q->done = q->prod;
}

int zn_bnxt_start(struct bnxt *bp)
{
	size_t off = 0;
	int rc;

	if (!bp->vf) {
		rc = func_cfg_reserve(bp);			/* step 9 */
		if (rc < 0)
			return rc;
	}
	rc = zn_dma_region_alloc("bnxt-ctl", BNXT_NQ_SIZE * BNXT_CMPL_SIZE +
				 BNXT_RSS_TABLE_SIZE_P5 * BNXT_RSS_TABLE_MAX_TBL_P5 + 2 * 4096,
				 -1, ZN_DMA_NO_HUGE, &bp->ctl_dma);
	if (rc < 0)
		return rc;
	rc = zn_bus_dma_map(bp->bus, bp->ctl_dma);
	if (rc < 0) {
		zn_dma_region_free(bp->ctl_dma);
		bp->ctl_dma = NULL;
		return rc;
	}
	bp->nq.va = zn_bnxt_carve(bp->ctl_dma, &off, BNXT_NQ_SIZE * BNXT_CMPL_SIZE, 4096,
				  &bp->nq.iova);
	bp->rss_tbl = zn_bnxt_carve(bp->ctl_dma, &off,
				    BNXT_RSS_TABLE_SIZE_P5 * BNXT_RSS_TABLE_MAX_TBL_P5, 64,
				    &bp->rss_tbl_iova);
	bp->rss_key = zn_bnxt_carve(bp->ctl_dma, &off, 64, 64, &bp->rss_key_iova);
	bp->nq.size = BNXT_NQ_SIZE;
	bp->nq.type = BNXT_RING_TYPE_NQ;
	bp->nq.id = BNXT_INVALID_RING_ID;
	bp->nq_raw = 0;
	bp->vnic_id = BNXT_INVALID_ID16;
	bp->nrss_ctx = 0;
	bp->l2_filter_valid = false;
	memset(bp->nq.va, 0, BNXT_NQ_SIZE * BNXT_CMPL_SIZE);

	rc = zn_bnxt_ring_alloc(bp, &bp->nq, 0, 0, 0, 0);	/* step 10 */
	if (rc < 0)
		goto err;
	if (!bp->vf) {
		rc = func_cfg_async_cr(bp);
		if (rc < 0)
			goto err;
	}
	bnxt_db_write(&bp->nq.db, 0);
	if (zn_bnxt_irq_start(bp) < 0) {	/* the pairs' NQs (bnxt_irq.c) */
		/* the port works without: it is polled */
		ZN_WARN(BNXT_LOG, "%s: no NQs for the queues: the port has no interrupts",
			bp->name);
		zn_bnxt_irq_stop(bp);
		bp->irq_nqs = 0;
	}
	for (uint16_t q = 0; q < bp->conf.nb_txq; q++) {	/* step 11 */
		rc = txq_start(bp, bp->txq[q]);
		if (rc < 0)
			goto err;
	}
	for (uint16_t q = 0; q < bp->conf.nb_rxq; q++) {	/* step 12 */
		rc = rxq_start(bp, bp->rxq[q]);
		if (rc < 0)
			goto err;
	}
	rc = zn_bnxt_vnic_setup(bp);				/* steps 13-15 */
	if (rc < 0)
		goto err;
	bp->started = true;
	bp->link_known = false;
	if (zn_bnxt_link_query(bp, &bp->link) == 0)		/* step 17 */
		bp->link_known = true;
	ZN_INFO(BNXT_LOG, "%s: started: %u RX, %u TX queues, MTU %u, link %s", bp->name,
		bp->conf.nb_rxq, bp->conf.nb_txq, bp->conf.mtu,
		!bp->link_known ? "unknown" : bp->link.up ? "up" : "down");
	return 0;

err:
	bp->started = true;	/* so that stop undoes the part that exists */
	zn_bnxt_stop(bp);
	return rc;
}

void zn_bnxt_stop(struct bnxt *bp)
{
	if (!bp->started)
		return;
	zn_bnxt_vnic_teardown(bp);
	for (uint16_t q = 0; q < bp->conf.nb_rxq; q++)
		if (bp->rxq[q])
			zn_bnxt_rxq_stop_rings(bp, bp->rxq[q]);
	for (uint16_t q = 0; q < bp->conf.nb_txq; q++)
		if (bp->txq[q])
			txq_stop(bp, bp->txq[q]);
	for (uint16_t q = 0; q < bp->conf.nb_rxq; q++) {
		struct bnxt_rxq *r = bp->rxq[q];

		if (!r)
			continue;
		zn_bnxt_ring_free(bp, &r->cq, BNXT_HWRM_CMPL_RING_NONE, NULL);
		memset(&r->cq_db, 0, sizeof(r->cq_db));
		zn_bnxt_stat_ctx_free(bp, &r->stat_ctx_id);
		zn_bnxt_rxq_release_bufs(r);
	}
	for (uint16_t q = 0; q < bp->conf.nb_txq; q++) {
		struct bnxt_txq *t = bp->txq[q];

		if (!t)
			continue;
		zn_bnxt_ring_free(bp, &t->cq_ring, BNXT_HWRM_CMPL_RING_NONE, NULL);
		memset(&t->cq_db, 0, sizeof(t->cq_db));
		zn_bnxt_stat_ctx_free(bp, &t->stat_ctx_id);
	}
	zn_bnxt_irq_stop(bp);
	if (bp->ctl_dma) {
		zn_bnxt_ring_free(bp, &bp->nq, BNXT_HWRM_CMPL_RING_NONE, NULL);
		zn_bus_dma_unmap(bp->bus, bp->ctl_dma);
		zn_dma_region_free(bp->ctl_dma);
		bp->ctl_dma = NULL;
	}
	bp->started = false;
	ZN_INFO(BNXT_LOG, "%s: stopped", bp->name);
}

/* NQ (async events, §13): consumed on the control thread. */
int zn_bnxt_nq_poll(struct bnxt *bp)
{
	uint32_t raw = bp->nq_raw;
	int events = 0;

	if (!bp->started || bp->nq.id == BNXT_INVALID_RING_ID)
		return 0;
	for (uint32_t i = 0; i < bp->nq.size; i++) {
		const struct bnxt_cmpl_base *b =
			(const void *)((const uint8_t *)bp->nq.va +
				       (size_t)(raw & (bp->nq.size - 1)) * BNXT_CMPL_SIZE);
		uint32_t type;

		if (!bnxt_cmpl_valid(b, raw, bp->nq.size))
			break;
		zn_dma_rmb();
		type = b->type & BNXT_CMPL_TYPE_MASK;
		if (type == BNXT_CMPL_TYPE_HWRM_ASYNC_EVENT) {
			const struct bnxt_async_event_cmpl *e = (const void *)b;

			bp->async_events++;
			events++;
			if (e->event_id == BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE) {
				bp->link_known = false;
				ZN_INFO(BNXT_LOG, "%s: link event: %s", bp->name,
					(e->event_data1 & BNXT_ASYNC_LINK_DATA1_LINK_UP) ?
					"up" : "down");
			} else if (e->event_id == BNXT_ASYNC_EVENT_RESET_NOTIFY) {
				/* said by zn_bnxt_recover, which the link check runs */
				bp->reset_notified = true;
				bp->fw_fatal |= (e->event_data1 & BNXT_RESET_NOTIFY_REASON_MASK) ==
						BNXT_RESET_NOTIFY_REASON_FW_FATAL;
			}
		}
		/* Two-slot records are skipped whole; CQ notifications are not
		 * expected (no CQ is armed) and are ignored. */
		raw += bnxt_cmpl_slots((uint16_t)type);
	}
	if (raw != bp->nq_raw) {
		bp->nq_raw = raw;
		bnxt_db_write(&bp->nq.db, raw & (bp->nq.size - 1));
	}
	return events;
}

/* §13 / step 17: PORT_PHY_QCFG. */
int zn_bnxt_link_query(struct bnxt *bp, struct zn_link *link)
{
	struct bnxt_hwrm_port_phy_qcfg_input req = {
		.hdr.req_type = BNXT_HWRM_PORT_PHY_QCFG,
		.port_id = bp->port_id,
	};
	struct bnxt_hwrm_port_phy_qcfg_output r;
	int rc;

	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &r, sizeof(r),
			       offsetof(struct bnxt_hwrm_port_phy_qcfg_output, support_speeds));
	if (rc < 0)
		return rc;
	link->up = r.link == BNXT_PORT_PHY_QCFG_LINK_LINK;
	link->speed_mbps = link->up ? (uint32_t)r.link_speed * 100u : 0;
	link->full_duplex = link->up && r.duplex_cfg == 1;
	return 0;
}
