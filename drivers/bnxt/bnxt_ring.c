/* SPDX-License-Identifier: MIT */
/*
 * Rings, stat contexts and doorbells (hw-docs/bnxt.md §5, §7).
 *
 * Doorbells. On P5 every ring can be rung through one shared 64-bit register
 * (BAR2 + 0x10000 for a PF); the xid in the value names the ring. zn-nicsim
 * polls doorbell pages in shared memory and would lose all but the last of
 * several values written to one address between two polls, so when the
 * firmware offers it (§7.4) each ring gets a doorbell page of its own (a
 * DPI), and a later value on a page always supersedes an earlier one. A
 * doorbell whose page is not mapped (the model traps the legacy page) is
 * written through the bus: slow but lossless.
 */
#include <errno.h>
#include <string.h>

#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

void zn_bnxt_db_write_slow(const struct bnxt_db *db, uint64_t v)
{
	int rc;

	if (!db->bus)
		return;
	rc = zn_bus_write64(db->bus, BNXT_BAR_DB, db->bar_off, v);
	if (rc < 0)
		ZN_LOG_RL(ZN_LOG_ERR, BNXT_LOG, "%s: doorbell write at BAR2+0x%llx failed: %s",
			  db->bus->name, (unsigned long long)db->bar_off, strerror(-rc));
}

/* Is [off, off + len) of a BAR inside memory that is mapped? */
static volatile void *bar_mapped(struct zn_bus_dev *d, uint32_t bar, uint64_t off, size_t len)
{
	const struct zn_region_info *ri = &d->region[bar];

	if (!d->region_va[bar] || off + len > ri->size)
		return NULL;
	if (ri->nr_sparse == 0)
		return (volatile uint8_t *)d->region_va[bar] + off;
	for (uint32_t i = 0; i < ri->nr_sparse; i++)
		if (off >= ri->sparse[i].offset &&
		    off + len <= ri->sparse[i].offset + ri->sparse[i].size)
			return (volatile uint8_t *)d->region_va[bar] + off;
	return NULL;
}

int zn_bnxt_dpi_get(struct bnxt *bp, uint32_t *dpi)
{
	for (uint32_t i = 0; i < bp->num_dpis; i++) {
		if (!bp->dpi_used[i]) {
			bp->dpi_used[i] = 1;
			*dpi = bp->first_dpi + i;
			return 0;
		}
	}
	ZN_ERR(BNXT_LOG, "%s: all %u doorbell pages are in use; use fewer queues",
	       bp->name, bp->num_dpis);
	return -ENOSPC;
}

void zn_bnxt_dpi_put(struct bnxt *bp, uint32_t dpi)
{
	if (dpi >= bp->first_dpi && dpi - bp->first_dpi < bp->num_dpis)
		bp->dpi_used[dpi - bp->first_dpi] = 0;
}

/* The doorbell of an allocated ring: its own page or the shared one. */
int zn_bnxt_db_setup(struct bnxt *bp, struct bnxt_ring *r, enum bnxt_dbr_type type)
{
	struct bnxt_db *db = &r->db;

	db->bus = bp->bus;
	db->bar_off = db->dpi ? bnxt_mdb_db_off(db->dpi, bp->db_page_bytes) : bp->legacy_db_off;
	if (db->bar_off + 8 > bp->bar2_size) {
		ZN_ERR(BNXT_LOG, "%s: doorbell at BAR2+0x%llx lies outside BAR2 (%llu bytes)",
		       bp->name, (unsigned long long)db->bar_off,
		       (unsigned long long)bp->bar2_size);
		return -ENODEV;
	}
	db->mmio = (volatile uint64_t *)bar_mapped(bp->bus, BNXT_BAR_DB, db->bar_off, 8);
	db->key = bnxt_db64(type, r->id, 0);
	return 0;
}

void *zn_bnxt_carve(struct zn_dma_region *r, size_t *off, size_t len, size_t align,
		    uint64_t *iova)
{
	size_t o = (*off + align - 1) & ~(align - 1);

	if (o > r->len || len > r->len - o)
		return NULL;
	*off = o + len;
	if (iova)
		*iova = r->iova + o;
	return (uint8_t *)r->va + o;
}

static enum bnxt_dbr_type ring_db_type(uint8_t ring_type)
{
	switch (ring_type) {
	case BNXT_RING_TYPE_TX: return BNXT_DBR_TYPE_SQ;
	case BNXT_RING_TYPE_RX:
	case BNXT_RING_TYPE_RX_AGG: return BNXT_DBR_TYPE_SRQ;
	case BNXT_RING_TYPE_NQ: return BNXT_DBR_TYPE_NQ;
	default: return BNXT_DBR_TYPE_CQ;
	}
}

/*
 * RING_ALLOC (§4 steps 10-12, §5): cmpl_ring is the NQ for a CQ and the CQ
 * for a TX/RX/AGG ring; rx_ring the parent of an AGG ring.
 */
int zn_bnxt_ring_alloc(struct bnxt *bp, struct bnxt_ring *r, uint16_t cmpl_ring,
		       uint16_t rx_ring, uint32_t stat_ctx, uint32_t rx_buf_size)
{
	struct bnxt_hwrm_ring_alloc_input_long req;
	struct bnxt_hwrm_ring_alloc_input *b = &req.base;
	struct bnxt_hwrm_ring_alloc_output out;
	uint32_t dpi = 0, len = sizeof(req.base);
	int rc;

	memset(&req, 0, sizeof(req));
	b->hdr.req_type = BNXT_HWRM_RING_ALLOC;
	b->ring_type = r->type;
	b->page_tbl_addr = r->iova;
	b->page_tbl_depth = 0;
	/* 4 KiB pages on every ring: §4 names it for the NQ, DPDK sends 0 for
	 * the others, zn-nicsim requires 12..30 on all (a contiguous ring is
	 * valid under either reading). */
	b->page_size = 12;
	b->length = r->size;
	switch (r->type) {
	case BNXT_RING_TYPE_NQ:
		b->int_mode = BNXT_RING_ALLOC_INT_MODE_MSIX;
		b->logical_id = r->logical_id;	/* the MSI-X vector it raises */
		break;
	case BNXT_RING_TYPE_L2_CMPL:
		b->enables = BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
		b->nq_ring_id = cmpl_ring;
		b->int_mode = BNXT_RING_ALLOC_INT_MODE_MSIX;
		b->cq_handle = r->iova;		/* echoed in NQ entries; unique per CQ */
		break;
	case BNXT_RING_TYPE_TX:
		b->enables = BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID;
		b->cmpl_ring_id = cmpl_ring;
		b->queue_id = bp->tx_cos_queue;
		b->stat_ctx_id = stat_ctx;
		break;
	case BNXT_RING_TYPE_RX:
		b->enables = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID |
			     BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID;
		b->cmpl_ring_id = cmpl_ring;
		b->rx_buf_size = (uint16_t)rx_buf_size;
		b->stat_ctx_id = stat_ctx;
		break;
	case BNXT_RING_TYPE_RX_AGG:
		b->enables = BNXT_RING_ALLOC_ENABLES_RX_RING_ID_VALID |
			     BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID |
			     BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID;
		b->cmpl_ring_id = cmpl_ring;
		b->rx_ring_id = rx_ring;
		b->rx_buf_size = (uint16_t)rx_buf_size;
		b->stat_ctx_id = stat_ctx;
		break;
	default:
		return -EINVAL;
	}
	/* §7.4 rule 4: the ring's own doorbell page, named at allocation. */
	if (bp->multi_db) {
		rc = zn_bnxt_dpi_get(bp, &dpi);
		if (rc < 0)
			return rc;
		b->enables |= BNXT_RING_ALLOC_ENABLES_DPI_VALID;
		req.dpi = (uint16_t)dpi;
		len = sizeof(req);
	}
	rc = zn_bnxt_hwrm_send(bp, &req, len, &out, sizeof(out),
			       offsetof(struct bnxt_hwrm_ring_alloc_output, logical_ring_id));
	if (rc == 0 && out.ring_id == BNXT_INVALID_RING_ID) {
		ZN_ERR(BNXT_LOG, "%s: RING_ALLOC returned the invalid ring id 0xffff", bp->name);
		rc = -EIO;
	}
	if (rc < 0) {
		if (dpi)
			zn_bnxt_dpi_put(bp, dpi);
		return rc;
	}
	r->id = out.ring_id;
	r->db.dpi = dpi;
	rc = zn_bnxt_db_setup(bp, r, ring_db_type(r->type));
	if (rc < 0) {
		zn_bnxt_ring_free(bp, r, BNXT_HWRM_CMPL_RING_NONE, NULL);
		return rc;
	}
	ZN_DEBUG(BNXT_LOG, "%s: RING_ALLOC type %u: id %u, %u entries, doorbell BAR2+0x%llx%s",
		 bp->name, r->type, r->id, r->size, (unsigned long long)r->db.bar_off,
		 r->db.mmio ? "" : " (trapped)");
	return 0;
}

/*
 * RING_FREE. With cmpl_ring set, the firmware also writes an HWRM_DONE on
 * that CQ once the ring has drained; *seq receives the sequence id to wait
 * for. The ring's DPI is given back with the ring.
 */
int zn_bnxt_ring_free(struct bnxt *bp, struct bnxt_ring *r, uint16_t cmpl_ring, uint16_t *seq)
{
	struct bnxt_hwrm_ring_free_input req = {
		.hdr.req_type = BNXT_HWRM_RING_FREE,
		.ring_type = r->type,
		.ring_id = r->id,
	};
	int rc = 0;

	if (r->id == BNXT_INVALID_RING_ID)
		return 0;
	if (!bp->hwrm.dead)
		rc = zn_bnxt_hwrm_send_cmpl(bp, &req, sizeof(req), NULL, 0, 0, cmpl_ring, seq);
	if (r->db.dpi)
		zn_bnxt_dpi_put(bp, r->db.dpi);
	r->db.dpi = 0;
	r->db.mmio = NULL;
	r->db.bus = NULL;
	r->id = BNXT_INVALID_RING_ID;
	return rc;
}

int zn_bnxt_stat_ctx_alloc(struct bnxt *bp, uint64_t iova, uint32_t *id)
{
	struct bnxt_hwrm_stat_ctx_alloc_input req = {
		.hdr.req_type = BNXT_HWRM_STAT_CTX_ALLOC,
		.stats_dma_addr = iova,
		.update_period_ms = BNXT_STATS_PERIOD_MS,
		.stats_dma_length = sizeof(struct bnxt_ctx_hw_stats),
	};
	struct bnxt_hwrm_stat_ctx_alloc_output out;
	int rc;

	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &out, sizeof(out),
			       offsetof(struct bnxt_hwrm_stat_ctx_alloc_output, rsvd));
	if (rc == 0)
		*id = out.stat_ctx_id;
	return rc;
}

void zn_bnxt_stat_ctx_free(struct bnxt *bp, uint32_t *id)
{
	struct bnxt_hwrm_stat_ctx_free_input req = {
		.hdr.req_type = BNXT_HWRM_STAT_CTX_FREE,
		.stat_ctx_id = *id,
	};

	if (*id == BNXT_INVALID_ID32)
		return;
	if (!bp->hwrm.dead)
		zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
	*id = BNXT_INVALID_ID32;
}
