/* SPDX-License-Identifier: MIT */
/*
 * Interrupts (hw-docs/bnxt.md §16): one NQ per queue pair, as Linux's
 * bnxt_en gives each combined channel (bnxt_napi) its own NQ on P5 chips,
 * so that the thread that owns a pair can sleep on that pair's MSI-X
 * vector alone.
 *
 *   vector 0      NQ of async events (bnxt_start.c), polled, never armed
 *   vector 1 + i  NQ of pair i: the CQs of RX queue i and TX queue i
 *
 * Arming pair i (bnxt_poll_p5's order at the end of a NAPI poll): consume
 * the NQ's CQ notifications, then CQ_ARMALL on the queue's CQ with its
 * consumer index (the device raises a notification at once when
 * completions lie beyond that index, else at the next one), then NQ_ARM
 * with the NQ's consumer index (MSI-X at once if an entry is there, else
 * at the next). Both arms are one-shot. Only the doorbell types are
 * written: each carries the consumer index too, and on a doorbell page of
 * its own (§7.4) a later value supersedes an earlier one, so no plain
 * consumer doorbell is needed before them.
 *
 * The pairs' NQs exist only when the function may reserve them
 * (FUNC_RESOURCE_QCAPS max_msix) and the bus offers as many MSI-X vectors;
 * otherwise every CQ hangs on the async NQ and the port has no interrupts
 * (zn_port_irq_arm says -EOPNOTSUPP and the caller keeps polling).
 */
#include <errno.h>
#include <string.h>

#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define IRQ_NQ_SIZE	64	/* an arm yields at most one entry per CQ: two per pass */
#define IRQ_NQ_BYTES	(IRQ_NQ_SIZE * BNXT_CMPL_SIZE)
#define IRQ_NQ_ALIGN	4096

static uint16_t irq_pairs(const struct bnxt *bp)
{
	return bp->conf.nb_rxq > bp->conf.nb_txq ? bp->conf.nb_rxq : bp->conf.nb_txq;
}

uint16_t zn_bnxt_irq_plan(struct bnxt *bp)
{
	struct bnxt_hwrm_func_qcfg_input req = {
		.hdr.req_type = BNXT_HWRM_FUNC_RESOURCE_QCAPS,
		.fid = BNXT_FID_SELF,
	};
	struct bnxt_hwrm_func_resource_qcaps_output out;
	struct zn_irq_info ii = { 0 };
	uint16_t want = (uint16_t)(1 + irq_pairs(bp));

	bp->irq_nqs = 0;
	if (bp->vf || !bp->bus->ops->get_irq_info ||
	    bp->bus->ops->get_irq_info(bp->bus, ZN_IRQ_MSIX, &ii) < 0 || ii.count < want)
		return 1;
	if (zn_bnxt_hwrm_send(bp, &req, sizeof(req), &out, sizeof(out),
			      offsetof(struct bnxt_hwrm_func_resource_qcaps_output, min_rsscos_ctx)) < 0 ||
	    out.max_msix < want)
		return 1;
	bp->irq_nqs = (uint16_t)(want - 1);
	return want;
}

int zn_bnxt_irq_start(struct bnxt *bp)
{
	size_t off = 0;
	int rc;

	if (!bp->irq_nqs)
		return 0;
	rc = zn_dma_region_alloc("bnxt-irq-nq", (size_t)bp->irq_nqs * IRQ_NQ_ALIGN, -1,
				 ZN_DMA_NO_HUGE, &bp->irq_dma);
	if (rc < 0)
		return rc;
	rc = zn_bus_dma_map(bp->bus, bp->irq_dma);
	if (rc < 0) {
		zn_dma_region_free(bp->irq_dma);
		bp->irq_dma = NULL;
		return rc;
	}
	for (uint16_t i = 0; i < bp->irq_nqs; i++) {
		struct bnxt_ring *nq = &bp->irq_nq[i];

		nq->va = zn_bnxt_carve(bp->irq_dma, &off, IRQ_NQ_BYTES, IRQ_NQ_ALIGN, &nq->iova);
		memset(nq->va, 0, IRQ_NQ_BYTES);
		nq->size = IRQ_NQ_SIZE;
		nq->type = BNXT_RING_TYPE_NQ;
		nq->id = BNXT_INVALID_RING_ID;
		nq->logical_id = (uint16_t)(1 + i);	/* its MSI-X vector */
		bp->irq_nq_raw[i] = 0;
		rc = zn_bnxt_ring_alloc(bp, nq, 0, 0, 0, 0);
		if (rc < 0)
			return rc;	/* stop frees what exists */
		bnxt_db_write(&nq->db, 0);	/* not armed */
	}
	return 0;
}

void zn_bnxt_irq_stop(struct bnxt *bp)
{
	if (!bp->irq_dma)
		return;
	for (uint16_t i = 0; i < bp->irq_nqs; i++)
		if (bp->irq_nq[i].va)
			zn_bnxt_ring_free(bp, &bp->irq_nq[i], BNXT_HWRM_CMPL_RING_NONE, NULL);
	zn_bus_dma_unmap(bp->bus, bp->irq_dma);
	zn_dma_region_free(bp->irq_dma);
	bp->irq_dma = NULL;
	memset(bp->irq_nq, 0, sizeof(bp->irq_nq));
}

uint16_t zn_bnxt_irq_nq_id(const struct bnxt *bp, uint16_t q)
{
	if (q < bp->irq_nqs && bp->irq_nq[q].id != BNXT_INVALID_RING_ID && bp->irq_nq[q].va)
		return bp->irq_nq[q].id;
	return bp->nq.id;
}

int zn_bnxt_irq_vectors(const struct bnxt *bp)
{
	return bp->started && bp->irq_dma ? 1 + bp->irq_nqs : -EOPNOTSUPP;
}

int zn_bnxt_irq_vector(const struct bnxt *bp, bool tx, uint16_t q)
{
	(void)tx;
	if (!bp->started || !bp->irq_dma || q >= bp->irq_nqs)
		return -EOPNOTSUPP;
	return 1 + q;
}

/* The doorbell db with another type and index (same ring, same page). */
static void db_write_type(const struct bnxt_db *db, enum bnxt_dbr_type type, uint32_t idx)
{
	struct bnxt_db d = *db;

	d.key = (db->key & ~BNXT_DBR_TYPE_MASK) | (uint64_t)type << BNXT_DBR_TYPE_SFT;
	bnxt_db_write(&d, idx);
}

/* CQ notifications the NQ holds: the interrupts they announced were taken. */
static uint32_t nq_consume(const struct bnxt_ring *nq, uint32_t raw)
{
	for (uint32_t i = 0; i < nq->size; i++) {
		const struct bnxt_cmpl_base *b =
			(const void *)((const uint8_t *)nq->va +
				       (size_t)(raw & (nq->size - 1)) * BNXT_CMPL_SIZE);

		if (!bnxt_cmpl_valid(b, raw, nq->size))
			break;
		zn_dma_rmb();
		raw += bnxt_cmpl_slots((uint16_t)(b->type & BNXT_CMPL_TYPE_MASK));
	}
	return raw;
}

int zn_bnxt_irq_arm(struct bnxt *bp, bool tx, uint16_t q)
{
	struct bnxt_ring *nq;

	if (zn_bnxt_irq_vector(bp, tx, q) < 0)
		return -EOPNOTSUPP;
	nq = &bp->irq_nq[q];
	bp->irq_nq_raw[q] = nq_consume(nq, bp->irq_nq_raw[q]);
	if (tx && q < bp->conf.nb_txq && bp->txq[q]) {
		const struct bnxt_txq *t = bp->txq[q];

		db_write_type(&t->cq_db, BNXT_DBR_TYPE_CQ_ARMALL, t->cq_raw & t->cq_mask);
	} else if (!tx && q < bp->conf.nb_rxq && bp->rxq[q]) {
		const struct bnxt_rxq *r = bp->rxq[q];

		db_write_type(&r->cq_db, BNXT_DBR_TYPE_CQ_ARMALL, r->pos.cq_raw & r->c.cq_mask);
	} else {
		return -EINVAL;
	}
	db_write_type(&nq->db, BNXT_DBR_TYPE_NQ_ARM, bp->irq_nq_raw[q] & (nq->size - 1));
	return 0;
}
