/* SPDX-License-Identifier: MIT */
/*
 * Backing store (context memory), hw-docs/bnxt.md §4 step 5: a P5 PF gives
 * the firmware host memory for its QP, SRQ, CQ, VNIC, stat and TQM contexts
 * before it may allocate any ring, stat context or VNIC (until then those
 * commands fail with BUSY). The entry counts follow DPDK ([REF] §9): every
 * L2 maximum FUNC_BACKING_STORE_QCAPS reports.
 *
 * Memory: one DMA region holds every type's data pages (4 KiB each) and its
 * page tables. One page is described directly (level 0); up to 512 pages by
 * one page of 8-byte PTEs (level 1); more by a page of PTEs to such pages
 * (level 2). A PTE is the page's DMA address | VALID; the last two PTEs of
 * a ring-type context (the TQM rings) also carry LAST and NEXT_TO_LAST.
 * The firmware may use this memory until FUNC_DRV_UNRGTR: it is released
 * only after that (zn_bnxt_fw_fini).
 */
#include <errno.h>
#include <string.h>

#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define CTX_PAGE		4096u
#define CTX_PTES_PER_PAGE	(CTX_PAGE / 8u)
#define CTX_MAX_PAGES		(CTX_PTES_PER_PAGE * CTX_PTES_PER_PAGE)
#define CTX_TQM_RINGS		8

enum { CTX_QP, CTX_SRQ, CTX_CQ, CTX_VNIC, CTX_STAT, CTX_TQM_SP, CTX_TQM0, CTX_NTYPES = CTX_TQM0 + CTX_TQM_RINGS };

static uint32_t clamp_u32(uint32_t v, uint32_t lo, uint32_t hi)
{
	if (v < lo)
		v = lo;
	return hi && v > hi ? hi : v;
}

static uint32_t round_up_u32(uint32_t v, uint32_t mult)
{
	return mult ? (v + mult - 1) / mult * mult : v;
}

static size_t pt_pages(uint8_t level, size_t pages)
{
	if (level == 0)
		return 0;
	if (level == 1)
		return 1;
	return 1 + (pages + CTX_PTES_PER_PAGE - 1) / CTX_PTES_PER_PAGE;
}

/* Fill in one type's page tables in the region; set page_dir. */
static void ctx_map(struct zn_dma_region *r, struct bnxt_ctx_mem *m)
{
	size_t pages = m->bytes / CTX_PAGE;
	uint64_t data = r->iova + m->off;
	uint64_t *pt;

	if (m->level == 0) {
		m->page_dir = data;
		return;
	}
	if (m->level == 1) {
		pt = (uint64_t *)((uint8_t *)r->va + m->pt_off);
		for (size_t i = 0; i < pages; i++) {
			pt[i] = (data + i * CTX_PAGE) | BNXT_PTU_PTE_VALID;
			if (m->ring && i == pages - 1)
				pt[i] |= BNXT_PTU_PTE_LAST;
			if (m->ring && pages > 1 && i == pages - 2)
				pt[i] |= BNXT_PTU_PTE_NEXT_TO_LAST;
		}
		m->page_dir = r->iova + m->pt_off;
		return;
	}
	/* Level 2: the directory page, then the PTE pages it points to. */
	{
		uint64_t *dir = (uint64_t *)((uint8_t *)r->va + m->pt_off);
		size_t nt = pt_pages(2, pages) - 1;

		for (size_t t = 0; t < nt; t++) {
			size_t pt_off = m->pt_off + (1 + t) * CTX_PAGE;

			dir[t] = (r->iova + pt_off) | BNXT_PTU_PTE_VALID;
			pt = (uint64_t *)((uint8_t *)r->va + pt_off);
			for (size_t i = 0; i < CTX_PTES_PER_PAGE; i++) {
				size_t p = t * CTX_PTES_PER_PAGE + i;

				if (p >= pages)
					break;
				pt[i] = (data + p * CTX_PAGE) | BNXT_PTU_PTE_VALID;
				if (m->ring && p == pages - 1)
					pt[i] |= BNXT_PTU_PTE_LAST;
				if (m->ring && pages > 1 && p == pages - 2)
					pt[i] |= BNXT_PTU_PTE_NEXT_TO_LAST;
			}
		}
		m->page_dir = r->iova + m->pt_off;
	}
}

int zn_bnxt_ctx_init(struct bnxt *bp)
{
	struct bnxt_hwrm_hdr_only_input qreq = {
		.hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_QCAPS,
	};
	struct bnxt_hwrm_func_backing_store_qcaps_output q;
	struct bnxt_hwrm_func_backing_store_cfg_input req;
	struct bnxt_ctx_mem m[CTX_NTYPES];
	uint32_t qp1, qpl2, vnics, tqm_min, tqm_max, ntqm, tqm_entries;
	size_t total = 0;
	int rc;

	rc = zn_bnxt_hwrm_send(bp, &qreq, sizeof(qreq), &q, sizeof(q),
			       offsetof(struct bnxt_hwrm_func_backing_store_qcaps_output,
					mrav_max_entries));
	if (rc == -EOPNOTSUPP) {
		/* Firmware that manages its own context memory. */
		ZN_INFO(BNXT_LOG, "%s: no backing store needed (FUNC_BACKING_STORE_QCAPS "
			"not supported)", bp->name);
		return 0;
	}
	if (rc < 0)
		return rc;

	memset(m, 0, sizeof(m));
	qp1 = q.qp_min_qp1_entries;
	qpl2 = q.qp_max_l2_entries;
	vnics = q.vnic_max_vnic_entries;
	m[CTX_QP].entries = clamp_u32(qp1 + qpl2, 0, q.qp_max_entries);
	m[CTX_QP].entry_size = q.qp_entry_size;
	m[CTX_SRQ].entries = clamp_u32(q.srq_max_l2_entries, 0, q.srq_max_entries);
	m[CTX_SRQ].entry_size = q.srq_entry_size;
	m[CTX_CQ].entries = clamp_u32(q.cq_max_l2_entries, 0, q.cq_max_entries);
	m[CTX_CQ].entry_size = q.cq_entry_size;
	m[CTX_VNIC].entries = (uint32_t)q.vnic_max_vnic_entries + q.vnic_max_ring_table_entries;
	m[CTX_VNIC].entry_size = q.vnic_entry_size;
	m[CTX_STAT].entries = q.stat_max_entries;
	m[CTX_STAT].entry_size = q.stat_entry_size;
	tqm_min = q.tqm_min_entries_per_ring;
	tqm_max = q.tqm_max_entries_per_ring;
	m[CTX_TQM_SP].entries = clamp_u32(round_up_u32(qpl2 + vnics + 2 * qp1 + tqm_min,
						       q.tqm_entries_multiple), tqm_min, tqm_max);
	m[CTX_TQM_SP].entry_size = q.tqm_entry_size;
	m[CTX_TQM_SP].ring = true;
	ntqm = q.tqm_fp_rings_count < CTX_TQM_RINGS ? q.tqm_fp_rings_count : CTX_TQM_RINGS;
	tqm_entries = clamp_u32(round_up_u32(qpl2 + qp1, q.tqm_entries_multiple), tqm_min,
				tqm_max);
	for (uint32_t i = 0; i < ntqm; i++) {
		m[CTX_TQM0 + i].entries = tqm_entries;
		m[CTX_TQM0 + i].entry_size = q.tqm_entry_size;
		m[CTX_TQM0 + i].ring = true;
	}

	/* Lay out every type: data pages first, then its page tables. */
	for (int t = 0; t < CTX_NTYPES; t++) {
		size_t pages;

		if (!m[t].entries || !m[t].entry_size)
			continue;
		m[t].bytes = ((size_t)m[t].entries * m[t].entry_size + CTX_PAGE - 1) &
			     ~(size_t)(CTX_PAGE - 1);
		pages = m[t].bytes / CTX_PAGE;
		if (pages > CTX_MAX_PAGES) {
			ZN_ERR(BNXT_LOG, "%s: backing store type %d wants %zu pages, more than "
			       "%u", bp->name, t, pages, CTX_MAX_PAGES);
			return -E2BIG;
		}
		m[t].level = pages == 1 ? 0 : pages <= CTX_PTES_PER_PAGE ? 1 : 2;
		m[t].off = total;
		total += m[t].bytes;
		m[t].pt_off = total;
		total += pt_pages(m[t].level, pages) * CTX_PAGE;
	}
	if (!total) {
		ZN_INFO(BNXT_LOG, "%s: FUNC_BACKING_STORE_QCAPS asks for no memory", bp->name);
		return 0;
	}
	rc = zn_dma_region_alloc("bnxt-ctx", total, -1, 0, &bp->ctx_dma);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: cannot allocate %zu bytes of backing store: %s",
		       bp->name, total, strerror(-rc));
		return rc;
	}
	rc = zn_bus_dma_map(bp->bus, bp->ctx_dma);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: cannot DMA-map the backing store: %s", bp->name,
		       strerror(-rc));
		zn_dma_region_free(bp->ctx_dma);
		bp->ctx_dma = NULL;
		return rc;
	}
	/* Types that ask for it start filled with the initializer byte. */
	{
		static const uint16_t init_bit[CTX_TQM_SP] = {
			BNXT_BS_CTX_INIT_MASK_QP, BNXT_BS_CTX_INIT_MASK_SRQ,
			BNXT_BS_CTX_INIT_MASK_CQ, BNXT_BS_CTX_INIT_MASK_VNIC,
			BNXT_BS_CTX_INIT_MASK_STAT,
		};

		for (int t = 0; t < CTX_TQM_SP; t++)
			if (m[t].bytes && (q.ctx_init_mask & init_bit[t]))
				memset((uint8_t *)bp->ctx_dma->va + m[t].off,
				       q.ctx_kind_initializer, m[t].bytes);
	}
	for (int t = 0; t < CTX_NTYPES; t++)
		if (m[t].bytes)
			ctx_map(bp->ctx_dma, &m[t]);

	memset(&req, 0, sizeof(req));
	req.hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_CFG;
#define LVL(t) ((uint8_t)(BNXT_BS_PG_SIZE_4K | m[t].level))
	if (m[CTX_QP].bytes) {
		req.enables |= BNXT_BS_CFG_ENABLES_QP;
		req.qpc_pg_size_lvl = LVL(CTX_QP);
		req.qpc_page_dir = m[CTX_QP].page_dir;
		req.qp_num_entries = m[CTX_QP].entries;
		req.qp_num_qp1_entries = (uint16_t)qp1;
		req.qp_num_l2_entries = (uint16_t)qpl2;
		req.qp_entry_size = (uint16_t)m[CTX_QP].entry_size;
	}
	if (m[CTX_SRQ].bytes) {
		req.enables |= BNXT_BS_CFG_ENABLES_SRQ;
		req.srq_pg_size_lvl = LVL(CTX_SRQ);
		req.srq_page_dir = m[CTX_SRQ].page_dir;
		req.srq_num_entries = m[CTX_SRQ].entries;
		req.srq_num_l2_entries = (uint16_t)m[CTX_SRQ].entries;
		req.srq_entry_size = (uint16_t)m[CTX_SRQ].entry_size;
	}
	if (m[CTX_CQ].bytes) {
		req.enables |= BNXT_BS_CFG_ENABLES_CQ;
		req.cq_pg_size_lvl = LVL(CTX_CQ);
		req.cq_page_dir = m[CTX_CQ].page_dir;
		req.cq_num_entries = m[CTX_CQ].entries;
		req.cq_num_l2_entries = (uint16_t)m[CTX_CQ].entries;
		req.cq_entry_size = (uint16_t)m[CTX_CQ].entry_size;
	}
	if (m[CTX_VNIC].bytes) {
		req.enables |= BNXT_BS_CFG_ENABLES_VNIC;
		req.vnic_pg_size_lvl = LVL(CTX_VNIC);
		req.vnic_page_dir = m[CTX_VNIC].page_dir;
		req.vnic_num_vnic_entries = q.vnic_max_vnic_entries;
		req.vnic_num_ring_table_entries = q.vnic_max_ring_table_entries;
		req.vnic_entry_size = (uint16_t)m[CTX_VNIC].entry_size;
	}
	if (m[CTX_STAT].bytes) {
		req.enables |= BNXT_BS_CFG_ENABLES_STAT;
		req.stat_pg_size_lvl = LVL(CTX_STAT);
		req.stat_page_dir = m[CTX_STAT].page_dir;
		req.stat_num_entries = m[CTX_STAT].entries;
		req.stat_entry_size = (uint16_t)m[CTX_STAT].entry_size;
	}
	if (m[CTX_TQM_SP].bytes) {
		req.enables |= BNXT_BS_CFG_ENABLES_TQM_SP;
		req.tqm_sp_pg_size_lvl = LVL(CTX_TQM_SP);
		req.tqm_sp_page_dir = m[CTX_TQM_SP].page_dir;
		req.tqm_sp_num_entries = m[CTX_TQM_SP].entries;
		req.tqm_entry_size = (uint16_t)m[CTX_TQM_SP].entry_size;
	}
	for (uint32_t i = 0; i < ntqm; i++) {
		struct bnxt_ctx_mem *t = &m[CTX_TQM0 + i];

		if (!t->bytes)
			continue;
		req.enables |= BNXT_BS_CFG_ENABLES_TQM_RING(i);
		req.tqm_ring_pg_size_lvl[i] = LVL(CTX_TQM0 + i);
		req.tqm_ring_page_dir[i] = t->page_dir;
		req.tqm_ring_num_entries[i] = t->entries;
		req.tqm_entry_size = (uint16_t)t->entry_size;
	}
#undef LVL
	/* Every field we use lies in the first 256 bytes, the length DPDK sends
	 * to current firmware (§3.5); it goes by short command. */
	rc = zn_bnxt_hwrm_send(bp, &req, BNXT_BS_CFG_LEGACY_LEN, NULL, 0, 0);
	if (rc < 0) {
		zn_bnxt_ctx_free(bp);
		return rc;
	}
	bp->ctx_cfg_done = true;
	ZN_DEBUG(BNXT_LOG, "%s: backing store: %zu KiB, enables 0x%x", bp->name, total / 1024,
		 req.enables);
	return 0;
}

void zn_bnxt_ctx_free(struct bnxt *bp)
{
	if (!bp->ctx_dma)
		return;
	zn_bus_dma_unmap(bp->bus, bp->ctx_dma);
	zn_dma_region_free(bp->ctx_dma);
	bp->ctx_dma = NULL;
	bp->ctx_cfg_done = false;
}
