/* SPDX-License-Identifier: MIT */
/*
 * Rings and stat contexts of the bnxt model: RING_ALLOC / RING_FREE,
 * STAT_CTX_ALLOC / STAT_CTX_FREE (hw-docs/bnxt.md 5, 7.4, 14 "Resources").
 *
 * Ring ids are one space for every kind (id = slot + 1, never 0 or 0xffff),
 * so that an id of the wrong kind is caught wherever it is named.
 */
#include <stddef.h>
#include <string.h>

#include "sim/bnxt/priv.h"

#define PAGE_SHIFT_MIN	12
#define PAGE_SHIFT_MAX	30

struct bsim_ring *bsim_ring_by_id(struct bsim *m, uint32_t id)
{
	struct bsim_ring *r;

	if (id == 0 || id > BSIM_MAX_RINGS)
		return NULL;
	r = &m->ring[id - 1];
	return r->kind != BK_FREE ? r : NULL;
}

static struct bsim_stat *stat_by_id(struct bsim *m, uint32_t id)
{
	if (id >= BSIM_MAX_STATS || !m->stat[id].used)
		return NULL;
	return &m->stat[id];
}

static unsigned *used_count(struct bsim *m, enum bsim_kind k, unsigned **max, unsigned **rsv)
{
	switch (k) {
	case BK_NQ:
		*max = &m->max.nq, *rsv = &m->rsv.nq;
		return &m->used.nq;
	case BK_CQ:
		*max = &m->max.cq, *rsv = &m->rsv.cq;
		return &m->used.cq;
	case BK_TX:
		*max = &m->max.tx, *rsv = &m->rsv.tx;
		return &m->used.tx;
	default:	/* RX and AGG rings count as RX rings */
		*max = &m->max.rx, *rsv = &m->rsv.rx;
		return &m->used.rx;
	}
}

static volatile uint64_t *dpi_word(struct bsim *m, int dpi)
{
	return (volatile uint64_t *)(m->bar2 + bnxt_mdb_db_off((uint32_t)dpi, BSIM_DB_PAGE));
}

static void list_del(struct bsim_ring **list, unsigned *n, struct bsim_ring *r)
{
	for (unsigned i = 0; i < *n; i++) {
		if (list[i] == r) {
			memmove(&list[i], &list[i + 1], (*n - i - 1) * sizeof(*list));
			(*n)--;
			return;
		}
	}
}

static void ring_release(struct bsim *m, struct bsim_ring *r)
{
	unsigned *max, *rsv;

	bsim_tpa_forget(m, r);
	if (r->dpi >= 0) {
		/* The page starts clean for its next ring: a stale value equal to
		 * that ring's first doorbell would otherwise go unnoticed. */
		if (m->bar2)
			__atomic_store_n(dpi_word(m, r->dpi), 0, __ATOMIC_RELAXED);
		m->dpi_ring[r->dpi - m->first_dpi] = NULL;
		list_del(m->polled, &m->npolled, r);
	}
	if (r->kind == BK_TX)
		list_del(m->txr, &m->ntx, r);
	if (r->kind == BK_AGG && r->rx)
		r->rx->agg = NULL;
	if (m->async_cr == r)
		m->async_cr = NULL;
	(*used_count(m, (enum bsim_kind)r->kind, &max, &rsv))--;
	memset(r, 0, sizeof(*r));
}

void bsim_free_all(struct bsim *m)
{
	bsim_vnic_free_all(m);
	for (unsigned i = 0; i < BSIM_MAX_RINGS; i++)
		if (m->ring[i].kind != BK_FREE)
			ring_release(m, &m->ring[i]);
	memset(m->stat, 0, sizeof(m->stat));
	m->used.stat = 0;
	m->async_cr = NULL;
}

/* ---- RING_ALLOC ---- */

static int kind_of(uint8_t ring_type)
{
	switch (ring_type) {
	case BNXT_RING_TYPE_L2_CMPL:
		return BK_CQ;
	case BNXT_RING_TYPE_TX:
		return BK_TX;
	case BNXT_RING_TYPE_RX:
		return BK_RX;
	case BNXT_RING_TYPE_RX_AGG:
		return BK_AGG;
	case BNXT_RING_TYPE_NQ:
		return BK_NQ;
	default:
		return -1;
	}
}

static const char *const kind_name[] = { "free", "NQ", "CQ", "TX", "RX", "AGG" };

/* enables a ring kind may carry, and those it must */
static void enables_for(enum bsim_kind k, uint32_t *allowed, uint32_t *required)
{
	const uint32_t common = BNXT_RING_ALLOC_ENABLES_DPI_VALID;

	switch (k) {
	case BK_NQ:
		*allowed = common;
		*required = 0;
		break;
	case BK_CQ:
		*allowed = common | BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
		*required = BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
		break;
	case BK_TX:
		*allowed = common | BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID |
			   BNXT_RING_ALLOC_ENABLES_RING_ARB_CFG |
			   BNXT_RING_ALLOC_ENABLES_MAX_BW_VALID | BNXT_RING_ALLOC_ENABLES_SCHQ_ID;
		*required = 0;
		break;
	case BK_RX:
		*allowed = common | BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID |
			   BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID;
		*required = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID;
		break;
	default:
		*allowed = common | BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID |
			   BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID |
			   BNXT_RING_ALLOC_ENABLES_RX_RING_ID_VALID;
		*required = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID |
			    BNXT_RING_ALLOC_ENABLES_RX_RING_ID_VALID;
		break;
	}
}

int bsim_cmd_ring_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_ring_alloc_input_long *inl = (const void *)rq->b;
	const struct bnxt_hwrm_ring_alloc_input *in = &inl->base;
	struct bnxt_hwrm_ring_alloc_output *o = (void *)rs->b;
	uint32_t allowed, required, en = in->enables;
	struct bsim_ring *nq = NULL, *cq = NULL, *parent = NULL, *r = NULL;
	struct bsim_stat *st = NULL;
	unsigned *used, *max, *rsv, limit;
	int kind, dpi = -1, code;

	rs->len = sizeof(*o);
	if (!bsim_need_bs(m, rq, &code))
		return code;
	kind = kind_of(in->ring_type);
	if (kind < 0)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ring_type %u (the model has L2_CMPL, TX, RX, RX_AGG, NQ)",
				   in->ring_type);
	enables_for((enum bsim_kind)kind, &allowed, &required);
	if ((en & ~allowed) || (en & required) != required)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "%s ring: enables %#x (allowed %#x, required %#x)",
				   kind_name[kind], en, allowed, required);
	if ((en & BNXT_RING_ALLOC_ENABLES_DPI_VALID) && !m->multidb)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "DPI_VALID: MULTI_L2_DB_SUPPORTED was not offered");
	if (in->flags & ~(BNXT_RING_ALLOC_FLAGS_RX_SOP_PAD |
			  BNXT_RING_ALLOC_FLAGS_DISABLE_CQ_OVERFLOW_DETECTION))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if (in->length < BSIM_RING_MIN || in->length > BSIM_RING_MAX ||
	    (in->length & (in->length - 1)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "length %u: a power of two, %u-%u entries", in->length,
				   BSIM_RING_MIN, BSIM_RING_MAX);
	if (in->page_tbl_depth != 0 || in->fbo != 0)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "page_tbl_depth %u / fbo %u: only contiguous rings (0, 0)",
				   in->page_tbl_depth, in->fbo);
	/* 0 is what DPDK's PMD sends for every ring but the NQ, and firmware
	 * takes it: a contiguous ring has no pages to size
	 * (hw-docs/dpdk-bnxt.md 4). */
	if (in->page_size && (in->page_size < PAGE_SHIFT_MIN || in->page_size > PAGE_SHIFT_MAX))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "page_size %u (log2 bytes, %u-%u, or 0)", in->page_size, PAGE_SHIFT_MIN,
				   PAGE_SHIFT_MAX);
	if ((in->page_tbl_addr & (BNXT_BD_SIZE - 1)) ||
	    zn_vfu_dma_probe(m->dev, in->page_tbl_addr, (uint64_t)in->length * BNXT_BD_SIZE,
			     kind == BK_CQ || kind == BK_NQ ? ZN_VFU_DMA_TO_RAM :
							      ZN_VFU_DMA_FROM_RAM))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ring memory %#llx + %u entries: unaligned or not mapped%s",
				   (unsigned long long)in->page_tbl_addr, in->length,
				   kind == BK_CQ || kind == BK_NQ ? " writable" : "");
	used = used_count(m, (enum bsim_kind)kind, &max, &rsv);
	limit = *rsv ? *rsv : *max;
	if (*used >= limit)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR,
				   "no %s ring left (%u of %u%s)", kind_name[kind], *used, limit,
				   *rsv ? " reserved" : "");
	switch (kind) {
	case BK_NQ:
		if (in->int_mode != BNXT_RING_ALLOC_INT_MODE_MSIX &&
		    in->int_mode != BNXT_RING_ALLOC_INT_MODE_POLL)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "int_mode %u (MSIX or POLL)", in->int_mode);
		if (in->int_mode == BNXT_RING_ALLOC_INT_MODE_MSIX &&
		    in->logical_id >= BNXT_MODEL_MSIX_VECTORS)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "logical_id %u: no such MSI-X vector", in->logical_id);
		break;
	case BK_CQ:
		nq = bsim_ring_by_id(m, in->nq_ring_id);
		if (!nq || nq->kind != BK_NQ)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "nq_ring_id %#x is not an NQ", in->nq_ring_id);
		break;
	case BK_TX:
		cq = bsim_ring_by_id(m, in->cmpl_ring_id);
		if (!cq || cq->kind != BK_CQ)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "cmpl_ring_id %#x is not a completion ring",
					   in->cmpl_ring_id);
		if (!bsim_queue_id_ok(in->queue_id))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "queue_id %u: not one QUEUE_QPORTCFG gave", in->queue_id);
		break;
	case BK_AGG:
		parent = bsim_ring_by_id(m, in->rx_ring_id);
		if (!parent || parent->kind != BK_RX || parent->agg)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "rx_ring_id %#x is not an RX ring without an AGG ring",
					   in->rx_ring_id);
		/* fall through */
	case BK_RX:
		if (!in->rx_buf_size)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "rx_buf_size 0");
		break;
	}
	if (en & BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID) {
		st = stat_by_id(m, in->stat_ctx_id);
		if (!st)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "stat_ctx_id %u is not allocated", in->stat_ctx_id);
	}
	if (en & BNXT_RING_ALLOC_ENABLES_DPI_VALID) {
		dpi = inl->dpi;
		if ((uint32_t)dpi < m->first_dpi || (uint32_t)dpi >= m->first_dpi + m->ndpi)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "dpi %d outside the function's DPIs %u-%u", dpi,
					   m->first_dpi, m->first_dpi + m->ndpi - 1);
		if (m->dpi_ring[dpi - m->first_dpi])
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "dpi %d is bound to ring %#x", dpi,
					   m->dpi_ring[dpi - m->first_dpi]->id);
	}
	for (unsigned i = 0; i < BSIM_MAX_RINGS && !r; i++)
		if (m->ring[i].kind == BK_FREE)
			r = &m->ring[i];
	if (!r)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR, "no ring id left");

	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	r->id = (uint16_t)(r - m->ring + 1);
	r->logical_id = in->logical_id;
	r->size = in->length;
	r->mask = in->length - 1;
	r->base = in->page_tbl_addr;
	r->dpi = dpi;
	r->nq = nq;
	r->cq = cq;
	r->rx = parent;
	r->stat = st;
	r->buf_size = in->rx_buf_size;
	r->cq_handle = in->cq_handle;
	r->int_mode = in->int_mode;
	/* The driver asked for no overflow detection; or its consumer
	 * doorbells reach the model through the polled legacy page, where a
	 * later store to that page (a TX doorbell, say) hides an earlier one:
	 * a consumer index the model never saw is no overflow
	 * (hw-docs/dpdk-bnxt.md 4). */
	r->no_overflow = (kind == BK_CQ || kind == BK_NQ) &&
			 ((in->flags & BNXT_RING_ALLOC_FLAGS_DISABLE_CQ_OVERFLOW_DETECTION) ||
			  (m->legacy_db_mapped && dpi < 0));
	if (parent)
		parent->agg = r;
	if (dpi >= 0) {
		m->dpi_ring[dpi - m->first_dpi] = r;
		if (m->bar2)
			__atomic_store_n(dpi_word(m, dpi), 0, __ATOMIC_RELAXED);
		r->db_last = 0;
		m->polled[m->npolled++] = r;
	}
	if (kind == BK_TX)
		m->txr[m->ntx++] = r;
	(*used)++;
	o->ring_id = r->id;
	o->logical_ring_id = in->logical_id;
	return 0;
}

/* ---- RING_FREE ---- */

static const char *ring_in_use(struct bsim *m, const struct bsim_ring *r)
{
	for (unsigned i = 0; i < BSIM_MAX_RINGS; i++) {
		const struct bsim_ring *o = &m->ring[i];

		if (o->kind == BK_FREE)
			continue;
		if (o->nq == r)
			return "a completion ring names this NQ";
		if (o->cq == r)
			return "a TX ring names this completion ring";
	}
	if (r->agg)
		return "its AGG ring is still allocated";
	/* An RX ring may go while only stopped VNICs (VNIC_UPDATE mru 0) name
	 * it: Linux's per-queue restart (bnxt_queue_stop) frees it so. */
	if (bsim_vnic_uses_ring(m, r, r->kind == BK_RX))
		return "a VNIC names this ring (default ring or RSS table)";
	return NULL;
}

int bsim_cmd_ring_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_ring_free_input *in = (const void *)rq->b;
	struct bsim_ring *r = bsim_ring_by_id(m, in->ring_id);
	const char *why;
	int kind = kind_of(in->ring_type);

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (in->flags)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if (!r || kind < 0 || r->kind != kind)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ring %#x of type %u is not allocated", in->ring_id,
				   in->ring_type);
	why = ring_in_use(m, r);
	if (why)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "ring %#x: %s", r->id,
				   why);
	/* A TX ring drains first: what was posted goes out and completes. */
	if (r->kind == BK_TX && zn_vfu_bus_master(m->dev))
		bsim_tx_drain(m, r);
	ring_release(m, r);
	return 0;
}

/* ---- STAT_CTX_ALLOC / FREE ---- */

int bsim_cmd_stat_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_stat_ctx_alloc_input *in = (const void *)rq->b;
	struct bnxt_hwrm_stat_ctx_alloc_output *o = (void *)rs->b;
	unsigned limit = m->rsv.stat ? m->rsv.stat : m->max.stat;
	struct bsim_stat *st = NULL;
	int code;

	rs->len = sizeof(*o);
	if (!bsim_need_bs(m, rq, &code))
		return code;
	if ((in->stat_ctx_flags & ~BNXT_STAT_CTX_ALLOC_FLAGS_ROCE) || in->flags)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS,
				   "stat_ctx_flags %#x / flags %#x", in->stat_ctx_flags, in->flags);
	if (in->stats_dma_length && in->stats_dma_length != sizeof(struct bnxt_ctx_hw_stats))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "stats_dma_length %u (P5: %zu)", in->stats_dma_length,
				   sizeof(struct bnxt_ctx_hw_stats));
	if (in->update_period_ms &&
	    ((in->stats_dma_addr & 7) ||
	     zn_vfu_dma_probe(m->dev, in->stats_dma_addr, sizeof(struct bnxt_ctx_hw_stats),
			      ZN_VFU_DMA_TO_RAM)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "stats_dma_addr %#llx: unaligned or not mapped writable",
				   (unsigned long long)in->stats_dma_addr);
	if (m->used.stat >= limit)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR,
				   "no stat context left (%u)", limit);
	for (unsigned i = 0; i < BSIM_MAX_STATS && !st; i++)
		if (!m->stat[i].used)
			st = &m->stat[i];
	if (!st)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR, "no stat context");
	memset(st, 0, sizeof(*st));
	st->used = true;
	st->id = (uint32_t)(st - m->stat);
	st->dma_addr = in->stats_dma_addr;
	st->period_ms = in->update_period_ms;
	st->next_ns = 0;	/* a first update at once */
	m->stats_due_ns = 0;
	m->used.stat++;
	o->stat_ctx_id = st->id;
	return 0;
}

int bsim_cmd_stat_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_stat_ctx_free_input *in = (const void *)rq->b;
	struct bnxt_hwrm_stat_ctx_free_output *o = (void *)rs->b;
	struct bsim_stat *st = stat_by_id(m, in->stat_ctx_id);

	rs->len = sizeof(*o);
	if (!st)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "stat_ctx_id %u is not allocated", in->stat_ctx_id);
	for (unsigned i = 0; i < BSIM_MAX_RINGS; i++)
		if (m->ring[i].kind != BK_FREE && m->ring[i].stat == st)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "stat context %u: ring %#x names it", st->id,
					   m->ring[i].id);
	o->stat_ctx_id = st->id;
	memset(st, 0, sizeof(*st));
	m->used.stat--;
	return 0;
}

static const struct bnxt_hwrm_stat_ctx_query_input *stat_req(struct bsim *m,
							      const struct bsim_req *rq,
							      struct bsim_stat **st, int *code)
{
	const struct bnxt_hwrm_stat_ctx_query_input *in = (const void *)rq->b;

	*st = stat_by_id(m, in->stat_ctx_id);
	if (!*st)
		*code = bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				    "stat_ctx_id %u is not allocated", in->stat_ctx_id);
	return in;
}

int bsim_cmd_stat_query(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	struct bnxt_hwrm_stat_ctx_query_output *o = (void *)rs->b;
	const struct bnxt_hwrm_stat_ctx_query_input *in;
	struct bsim_stat *st;
	const struct bnxt_ctx_hw_stats *h;
	int code = 0;

	rs->len = sizeof(*o);
	in = stat_req(m, rq, &st, &code);
	if (!st)
		return code;
	if (in->flags & BNXT_STAT_CTX_QUERY_FLAGS_COUNTER_MASK) {
		/* the widths of the counters: the model's are all 64-bit */
		memset(&o->tx_ucast_pkts, 0xff, offsetof(struct bnxt_hwrm_stat_ctx_query_output,
							  rsvd) -
			       offsetof(struct bnxt_hwrm_stat_ctx_query_output, tx_ucast_pkts));
		return 0;
	}
	h = &st->hw;
	o->tx_ucast_pkts = h->tx_ucast_pkts;
	o->tx_mcast_pkts = h->tx_mcast_pkts;
	o->tx_bcast_pkts = h->tx_bcast_pkts;
	o->tx_discard_pkts = h->tx_discard_pkts;
	o->tx_error_pkts = h->tx_error_pkts;
	o->tx_ucast_bytes = h->tx_ucast_bytes;
	o->tx_mcast_bytes = h->tx_mcast_bytes;
	o->tx_bcast_bytes = h->tx_bcast_bytes;
	o->rx_ucast_pkts = h->rx_ucast_pkts;
	o->rx_mcast_pkts = h->rx_mcast_pkts;
	o->rx_bcast_pkts = h->rx_bcast_pkts;
	o->rx_discard_pkts = h->rx_discard_pkts;
	o->rx_error_pkts = h->rx_error_pkts;
	o->rx_ucast_bytes = h->rx_ucast_bytes;
	o->rx_mcast_bytes = h->rx_mcast_bytes;
	o->rx_bcast_bytes = h->rx_bcast_bytes;
	o->rx_agg_pkts = h->tpa_pkts;
	o->rx_agg_bytes = h->tpa_bytes;
	o->rx_agg_events = h->tpa_events;
	o->rx_agg_aborts = h->tpa_aborts;
	return 0;
}

int bsim_cmd_stat_clr(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	struct bsim_stat *st;
	int code = 0;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	stat_req(m, rq, &st, &code);
	if (!st)
		return code;
	memset(&st->hw, 0, sizeof(st->hw));
	return 0;
}
