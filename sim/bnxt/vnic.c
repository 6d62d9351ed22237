/* SPDX-License-Identifier: MIT */
/*
 * VNICs and what hangs off them in the bnxt model: VNIC_ALLOC/FREE/CFG/QCAPS,
 * RSS contexts and VNIC_RSS_CFG, VNIC_PLCMODES_CFG, CFA L2 filters and RX
 * masks, CFA n-tuple filters (hw-docs/bnxt.md 10-12, 14).
 *
 * Filter ids are 64-bit and opaque to the driver; the model makes them look
 * like it (high bits set, a generation) so that a truncated or stale id is
 * refused instead of hitting another filter.
 */
#include <string.h>

#include "sim/bnxt/priv.h"

#define L2_ID_TAG	0x4c32000000000000ull
#define NT_ID_TAG	0x4e54000000000000ull
#define ID_GEN_SFT	16

struct bsim_vnic *bsim_vnic_by_id(struct bsim *m, uint32_t id)
{
	if (id >= BSIM_MAX_VNICS || !m->vnic[id].used)
		return NULL;
	return &m->vnic[id];
}

static struct bsim_rss_ctx *rss_by_id(struct bsim *m, uint32_t id)
{
	if (id >= BSIM_MAX_RSS_CTX || !m->rss[id].used)
		return NULL;
	return &m->rss[id];
}

static struct bsim_l2f *l2_by_id(struct bsim *m, uint64_t id)
{
	uint64_t slot = id & 0xffff;

	if ((id & 0xffff000000000000ull) != L2_ID_TAG || slot >= BSIM_MAX_L2 || !m->l2[slot].used ||
	    m->l2[slot].id != id)
		return NULL;
	return &m->l2[slot];
}

static int nt_index(struct bsim *m, uint64_t id)
{
	for (unsigned i = 0; i < m->n_nt; i++)
		if (m->nt[i].id == id)
			return (int)i;
	return -1;
}

bool bsim_vnic_uses_ring(const struct bsim *m, const struct bsim_ring *r, bool live)
{
	for (unsigned i = 0; i < BSIM_MAX_VNICS; i++) {
		const struct bsim_vnic *v = &m->vnic[i];

		if (!v->used || (live && v->stopped))
			continue;
		if (v->dflt_rx == r || v->dflt_cq == r)
			return true;
		for (unsigned c = 0; c < BNXT_RSS_TABLE_MAX_TBL_P5; c++) {
			if (!(v->chunks & (1u << c)))
				continue;
			for (unsigned e = 0; e < BNXT_RSS_TABLE_ENTRIES_P5; e++) {
				const struct bsim_rss_entry *t =
					&v->table[c * BNXT_RSS_TABLE_ENTRIES_P5 + e];

				if (t->rx == r || t->cq == r)
					return true;
			}
		}
	}
	return false;
}

static void vnic_release(struct bsim *m, struct bsim_vnic *v)
{
	for (unsigned i = 0; i < BSIM_MAX_RSS_CTX; i++)
		if (m->rss[i].used && m->rss[i].vnic == v - m->vnic)
			m->rss[i].vnic = -1;
	memset(v, 0, sizeof(*v));
	m->used.vnic--;
}

void bsim_vnic_free_all(struct bsim *m)
{
	m->n_nt = 0;
	memset(m->l2, 0, sizeof(m->l2));
	for (unsigned i = 0; i < BSIM_MAX_VNICS; i++)
		if (m->vnic[i].used)
			vnic_release(m, &m->vnic[i]);
	memset(m->rss, 0, sizeof(m->rss));
	m->used.rss = m->used.l2 = 0;
}

/* ---- VNIC_ALLOC / FREE / CFG / QCAPS ---- */

int bsim_cmd_vnic_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_alloc_input *in = (const void *)rq->b;
	struct bnxt_hwrm_vnic_alloc_output *o = (void *)rs->b;
	unsigned limit = m->rsv.vnic ? m->rsv.vnic : m->max.vnic;
	struct bsim_vnic *v = NULL;
	int code;

	rs->len = sizeof(*o);
	if (!bsim_need_bs(m, rq, &code))
		return code;
	if (in->flags & ~BNXT_VNIC_ALLOC_FLAGS_DEFAULT)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if (m->used.vnic >= limit)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR, "no VNIC left (%u)",
				   limit);
	for (unsigned i = 0; i < BSIM_MAX_VNICS; i++) {
		if (m->vnic[i].used && m->vnic[i].is_default &&
		    (in->flags & BNXT_VNIC_ALLOC_FLAGS_DEFAULT))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "VNIC %u is already the default", m->vnic[i].id);
		if (!m->vnic[i].used && !v)
			v = &m->vnic[i];
	}
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR, "no VNIC id left");
	memset(v, 0, sizeof(*v));
	v->used = true;
	v->id = (uint16_t)(v - m->vnic);
	v->is_default = in->flags & BNXT_VNIC_ALLOC_FLAGS_DEFAULT;
	for (unsigned c = 0; c < BNXT_RSS_TABLE_MAX_TBL_P5; c++)
		v->ctx[c] = -1;
	m->used.vnic++;
	o->vnic_id = v->id;
	return 0;
}

int bsim_cmd_vnic_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_free_input *in = (const void *)rq->b;
	struct bsim_vnic *v = bsim_vnic_by_id(m, in->vnic_id);

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u",
				   in->vnic_id);
	for (unsigned i = 0; i < BSIM_MAX_L2; i++)
		if (m->l2[i].used && m->l2[i].vnic == v)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "VNIC %u: an L2 filter points at it", v->id);
	for (unsigned i = 0; i < m->n_nt; i++)
		if (m->nt[i].vnic == v)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "VNIC %u: an n-tuple filter points at it", v->id);
	vnic_release(m, v);
	return 0;
}

static bool ring_is(struct bsim *m, uint16_t id, enum bsim_kind k, struct bsim_ring **out)
{
	struct bsim_ring *r = bsim_ring_by_id(m, id);

	*out = r;
	return r && r->kind == k;
}

int bsim_cmd_vnic_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_cfg_input *in = (const void *)rq->b;
	const uint32_t flags = BNXT_VNIC_CFG_FLAGS_DEFAULT | BNXT_VNIC_CFG_FLAGS_VLAN_STRIP_MODE |
			       BNXT_VNIC_CFG_FLAGS_BD_STALL_MODE |
			       BNXT_VNIC_CFG_FLAGS_RSS_DFLT_CR_MODE;
	const uint32_t enables = BNXT_VNIC_CFG_ENABLES_RSS_RULE | BNXT_VNIC_CFG_ENABLES_MRU |
				 BNXT_VNIC_CFG_ENABLES_DEFAULT_RX_RING_ID |
				 BNXT_VNIC_CFG_ENABLES_DEFAULT_CMPL_RING_ID |
				 BNXT_VNIC_CFG_ENABLES_QUEUE_ID | BNXT_VNIC_CFG_ENABLES_L2_CQE_MODE;
	struct bsim_vnic *v = bsim_vnic_by_id(m, in->vnic_id);
	struct bsim_ring *rx = NULL, *cq = NULL;
	uint32_t en = in->enables;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u",
				   in->vnic_id);
	if (in->flags & ~flags)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if (en & ~enables)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "enables %#x (ring groups and COS/LB rules are not P5 L2)", en);
	if ((en & BNXT_VNIC_CFG_ENABLES_DEFAULT_RX_RING_ID) &&
	    !ring_is(m, in->default_rx_ring_id, BK_RX, &rx))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "default_rx_ring_id %#x is not an RX ring", in->default_rx_ring_id);
	if ((en & BNXT_VNIC_CFG_ENABLES_DEFAULT_CMPL_RING_ID) &&
	    !ring_is(m, in->default_cmpl_ring_id, BK_CQ, &cq))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "default_cmpl_ring_id %#x is not a completion ring",
				   in->default_cmpl_ring_id);
	if ((en & BNXT_VNIC_CFG_ENABLES_RSS_RULE) && in->rss_rule != 0xffff &&
	    !rss_by_id(m, in->rss_rule))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "rss_rule %#x",
				   in->rss_rule);
	if ((en & BNXT_VNIC_CFG_ENABLES_QUEUE_ID) && !bsim_queue_id_ok(in->queue_id))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "queue_id %u",
				   in->queue_id);
	if ((en & BNXT_VNIC_CFG_ENABLES_L2_CQE_MODE) && in->l2_cqe_mode)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "l2_cqe_mode %u: only 32-byte RX completions (0)", in->l2_cqe_mode);
	if ((en & BNXT_VNIC_CFG_ENABLES_MRU) && in->mru > m->mtu + BSIM_FRAME_OVERHEAD)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "mru %u (at most %u)",
				   in->mru, m->mtu + BSIM_FRAME_OVERHEAD);
	v->flags = in->flags;
	if (en & BNXT_VNIC_CFG_ENABLES_DEFAULT_RX_RING_ID)
		v->dflt_rx = rx;
	if (en & BNXT_VNIC_CFG_ENABLES_DEFAULT_CMPL_RING_ID)
		v->dflt_cq = cq;
	if (en & BNXT_VNIC_CFG_ENABLES_MRU)
		v->mru = in->mru;
	return 0;
}

/* VNIC_UPDATE: the MRU only (what Linux's queue restart sends). */
int bsim_cmd_vnic_update(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_update_input *in = (const void *)rq->b;
	struct bsim_vnic *v = bsim_vnic_by_id(m, (uint16_t)in->vnic_id);

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!v || in->vnic_id > 0xffff)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u",
				   in->vnic_id);
	if (in->enables != BNXT_VNIC_UPDATE_ENABLES_MRU_VALID)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "enables %#x (the model updates the MRU only)", in->enables);
	if (in->mru > m->mtu + BSIM_FRAME_OVERHEAD)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "mru %u (at most %u)",
				   in->mru, m->mtu + BSIM_FRAME_OVERHEAD);
	v->stopped = in->mru == 0;
	if (in->mru)
		v->mru = in->mru;
	return 0;
}

int bsim_cmd_vnic_qcaps(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_qcaps_input *in = (const void *)rq->b;
	struct bnxt_hwrm_vnic_qcaps_output *o = (void *)rs->b;

	rs->len = sizeof(*o);
	if (in->enables)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES, "enables %#x",
				   in->enables);
	o->mru = (uint16_t)(m->mtu + BSIM_FRAME_OVERHEAD);
	/* P5 firmware has TPA v2 and says how many aggregations it runs at
	 * once; DPDK's PMD refuses to start a P5 port when this is 0, even
	 * with LRO off (hw-docs/dpdk-bnxt.md 4). */
	o->max_aggs_supported = BSIM_TPA_PER_RING;
	return 0;
}

/* ---- TPA ---- */

int bsim_cmd_tpa_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_tpa_cfg_input *in = (const void *)rq->b;
	const uint32_t flags_ok = BNXT_TPA_CFG_FLAGS_TPA | BNXT_TPA_CFG_FLAGS_ENCAP_TPA |
				  BNXT_TPA_CFG_FLAGS_RSC_WND_UPDATE | BNXT_TPA_CFG_FLAGS_GRO |
				  BNXT_TPA_CFG_FLAGS_AGG_WITH_ECN |
				  BNXT_TPA_CFG_FLAGS_AGG_WITH_SAME_GRE_SEQ |
				  BNXT_TPA_CFG_FLAGS_GRO_IPID_CHECK | BNXT_TPA_CFG_FLAGS_GRO_TTL_CHECK |
				  BNXT_TPA_CFG_FLAGS_AGG_PACK_AS_GRO;
	const uint32_t en_ok = BNXT_TPA_CFG_ENABLES_MAX_AGG_SEGS | BNXT_TPA_CFG_ENABLES_MAX_AGGS |
			       BNXT_TPA_CFG_ENABLES_MAX_AGG_TIMER |
			       BNXT_TPA_CFG_ENABLES_MIN_AGG_LEN | BNXT_TPA_CFG_ENABLES_TNL_TPA_EN;
	struct bsim_vnic *v = bsim_vnic_by_id(m, in->vnic_id);
	uint16_t segs = BNXT_MAX_TPA_SEGS_P5, aggs = BSIM_TPA_PER_RING;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u", in->vnic_id);
	if (in->flags & ~flags_ok)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	/* LRO mode would have the device rewrite the first packet's headers
	 * for the whole aggregate: not modelled, GRO mode only */
	if ((in->flags & BNXT_TPA_CFG_FLAGS_TPA) && !(in->flags & BNXT_TPA_CFG_FLAGS_GRO))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS,
				   "flags %#x: TPA without GRO (LRO mode) is not modelled", in->flags);
	if (in->enables & ~en_ok)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES, "enables %#x", in->enables);
	if (in->enables & BNXT_TPA_CFG_ENABLES_MAX_AGG_SEGS) {
		segs = in->max_agg_segs;
		if (!segs || segs > BNXT_MAX_TPA_SEGS_P5)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "max_agg_segs %u: 1-63 segments", segs);
	}
	if (in->enables & BNXT_TPA_CFG_ENABLES_MAX_AGGS) {
		aggs = in->max_aggs;
		if (!aggs || aggs > BSIM_TPA_PER_RING)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "max_aggs %u: 1-%u", aggs, BSIM_TPA_PER_RING);
	}
	v->tpa_flags = in->flags & BNXT_TPA_CFG_FLAGS_TPA ? in->flags : 0;
	v->tpa_max_segs = segs;
	v->tpa_max_aggs = aggs;
	v->tpa_min_len = in->enables & BNXT_TPA_CFG_ENABLES_MIN_AGG_LEN ? in->min_agg_len : 0;
	return 0;
}

/* ---- RSS ---- */

int bsim_cmd_rss_ctx_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	struct bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output *o = (void *)rs->b;
	unsigned limit = m->rsv.rss ? m->rsv.rss : m->max.rss;
	int code;

	rs->len = sizeof(*o);
	if (!bsim_need_bs(m, rq, &code))
		return code;
	if (m->used.rss >= limit)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR,
				   "no RSS context left (%u)", limit);
	for (unsigned i = 0; i < BSIM_MAX_RSS_CTX; i++) {
		if (m->rss[i].used)
			continue;
		m->rss[i] = (struct bsim_rss_ctx){ .used = true, .id = (uint16_t)i, .vnic = -1 };
		m->used.rss++;
		o->rss_cos_lb_ctx_id = (uint16_t)i;
		return 0;
	}
	return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR, "no RSS context id left");
}

int bsim_cmd_rss_ctx_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_rss_cos_lb_ctx_free_input *in = (const void *)rq->b;
	struct bsim_rss_ctx *c = rss_by_id(m, in->rss_cos_lb_ctx_id);

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!c)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "rss_cos_lb_ctx_id %#x is not allocated", in->rss_cos_lb_ctx_id);
	if (c->vnic >= 0)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "RSS context %u serves VNIC %d", c->id, c->vnic);
	memset(c, 0, sizeof(*c));
	m->used.rss--;
	return 0;
}

static void rss_recount(struct bsim_vnic *v)
{
	unsigned n = 0;

	while (n < BNXT_RSS_TABLE_MAX_TBL_P5 && (v->chunks & (1u << n)))
		n++;
	v->n_entries = n * BNXT_RSS_TABLE_ENTRIES_P5;
}

int bsim_cmd_rss_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_rss_cfg_input *in = (const void *)rq->b;
	const uint32_t types = BNXT_RSS_HASH_TYPE_IPV4 | BNXT_RSS_HASH_TYPE_TCP_IPV4 |
			       BNXT_RSS_HASH_TYPE_UDP_IPV4 | BNXT_RSS_HASH_TYPE_IPV6 |
			       BNXT_RSS_HASH_TYPE_TCP_IPV6 | BNXT_RSS_HASH_TYPE_UDP_IPV6;
	const uint8_t modes = BNXT_RSS_HASH_MODE_FLAGS_DEFAULT |
			      BNXT_RSS_HASH_MODE_FLAGS_INNERMOST_4 |
			      BNXT_RSS_HASH_MODE_FLAGS_INNERMOST_2;
	struct bnxt_rss_entry_p5 tbl[BNXT_RSS_TABLE_ENTRIES_P5];
	struct bsim_rss_entry ent[BNXT_RSS_TABLE_ENTRIES_P5];
	unsigned chunk = in->ring_table_pair_index;
	struct bsim_rss_ctx *c;
	struct bsim_vnic *v;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (in->hash_mode_flags & ~modes)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS,
				   "hash_mode_flags %#x (no tunnels: default or inner)",
				   in->hash_mode_flags);
	if (in->flags)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	/* vnic_id and rss_ctx_idx 0xffff: the global hash mode, nothing more */
	if (in->vnic_id == 0xffff && in->rss_ctx_idx == 0xffff)
		return 0;
	v = bsim_vnic_by_id(m, in->vnic_id);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u",
				   in->vnic_id);
	if (in->hash_type & ~types)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "hash_type %#x: the model hashes IPv4/IPv6 2- and 4-tuples (%#x)",
				   in->hash_type, types);
	if (!in->hash_type) {
		/* RSS off for this VNIC */
		for (unsigned i = 0; i < BNXT_RSS_TABLE_MAX_TBL_P5; i++) {
			if (v->ctx[i] >= 0)
				m->rss[v->ctx[i]].vnic = -1;
			v->ctx[i] = -1;
		}
		v->hash_type = 0;
		v->chunks = 0;
		v->n_entries = 0;
		return 0;
	}
	if (in->ring_select_mode != BNXT_RSS_RING_SELECT_TOEPLITZ)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ring_select_mode %u: Toeplitz (0) only", in->ring_select_mode);
	if (chunk >= BNXT_RSS_TABLE_MAX_TBL_P5)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ring_table_pair_index %u (0-%d)", chunk,
				   BNXT_RSS_TABLE_MAX_TBL_P5 - 1);
	c = rss_by_id(m, in->rss_ctx_idx);
	if (!c || (c->vnic >= 0 && (c->vnic != v - m->vnic || v->ctx[chunk] != c->id)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "rss_ctx_idx %#x: not allocated or serving another table",
				   in->rss_ctx_idx);
	if (v->ctx[chunk] >= 0 && v->ctx[chunk] != c->id)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "chunk %u of VNIC %u already has RSS context %d", chunk, v->id,
				   v->ctx[chunk]);
	if (zn_vfu_dma_probe(m->dev, in->ring_grp_tbl_addr, sizeof(tbl), ZN_VFU_DMA_FROM_RAM) ||
	    zn_vfu_dma_probe(m->dev, in->hash_key_tbl_addr, BNXT_RSS_KEY_SIZE,
			     ZN_VFU_DMA_FROM_RAM))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ring table %#llx or key %#llx not mapped",
				   (unsigned long long)in->ring_grp_tbl_addr,
				   (unsigned long long)in->hash_key_tbl_addr);
	if (zn_vfu_dma_read(m->dev, in->ring_grp_tbl_addr, tbl, sizeof(tbl)))
		return BNXT_HWRM_ERR_INVALID_PARAMS;
	for (unsigned e = 0; e < BNXT_RSS_TABLE_ENTRIES_P5; e++) {
		if (!ring_is(m, tbl[e].rx_ring_id, BK_RX, &ent[e].rx) ||
		    !ring_is(m, tbl[e].cmpl_ring_id, BK_CQ, &ent[e].cq))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "table entry %u {%#x, %#x} is not {RX ring, CQ}",
					   chunk * BNXT_RSS_TABLE_ENTRIES_P5 + e, tbl[e].rx_ring_id,
					   tbl[e].cmpl_ring_id);
	}
	if (zn_vfu_dma_read(m->dev, in->hash_key_tbl_addr, v->key, BNXT_RSS_KEY_SIZE))
		return BNXT_HWRM_ERR_INVALID_PARAMS;
	memcpy(&v->table[chunk * BNXT_RSS_TABLE_ENTRIES_P5], ent, sizeof(ent));
	v->hash_type = in->hash_type;
	v->ctx[chunk] = (int8_t)c->id;
	c->vnic = (int)(v - m->vnic);
	v->chunks |= (uint8_t)(1u << chunk);
	rss_recount(v);
	return 0;
}

/* ---- VNIC_PLCMODES_CFG ---- */

static bool rings_have_agg(const struct bsim_vnic *v)
{
	if (v->dflt_rx && !v->dflt_rx->agg)
		return false;
	for (unsigned e = 0; e < v->n_entries; e++)
		if (!v->table[e].rx->agg)
			return false;
	return true;
}

int bsim_cmd_plcmodes_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_plcmodes_cfg_input *in = (const void *)rq->b;
	const uint32_t flags = BNXT_PLCMODES_CFG_FLAGS_REGULAR_PLACEMENT |
			       BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT |
			       BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4 | BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6;
	const uint32_t enables = BNXT_PLCMODES_CFG_ENABLES_JUMBO_THRESH_VALID |
				 BNXT_PLCMODES_CFG_ENABLES_HDS_OFFSET_VALID |
				 BNXT_PLCMODES_CFG_ENABLES_HDS_THRESHOLD_VALID;
	struct bsim_vnic *v = bsim_vnic_by_id(m, in->vnic_id);
	uint32_t en = in->enables;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u",
				   in->vnic_id);
	if (in->flags & ~flags)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS,
				   "flags %#x (regular, jumbo, HDS IPv4/IPv6)", in->flags);
	if (en & ~enables)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES, "enables %#x", en);
	if ((en & BNXT_PLCMODES_CFG_ENABLES_HDS_THRESHOLD_VALID) &&
	    (in->hds_threshold > BNXT_HDS_THRESHOLD_MAX || (in->hds_threshold & 3)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "hds_threshold %u: a multiple of 4, at most %u",
				   in->hds_threshold, BNXT_HDS_THRESHOLD_MAX);
	if ((en & BNXT_PLCMODES_CFG_ENABLES_HDS_OFFSET_VALID) && in->hds_offset)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "hds_offset %u: only 0 (its meaning is not public)",
				   in->hds_offset);
	if ((in->flags & ~BNXT_PLCMODES_CFG_FLAGS_REGULAR_PLACEMENT) && !rings_have_agg(v))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "jumbo/HDS placement on VNIC %u needs an AGG ring on each of its "
				   "RX rings", v->id);
	v->plc_flags = in->flags;
	if (en & BNXT_PLCMODES_CFG_ENABLES_JUMBO_THRESH_VALID)
		v->jumbo_thresh = in->jumbo_thresh;
	if (en & BNXT_PLCMODES_CFG_ENABLES_HDS_THRESHOLD_VALID)
		v->hds_threshold = in->hds_threshold;
	return 0;
}

/* ---- CFA L2 filters and RX mask ---- */

int bsim_cmd_l2_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_cfa_l2_filter_alloc_input *in = (const void *)rq->b;
	struct bnxt_hwrm_cfa_l2_filter_alloc_output *o = (void *)rs->b;
	const uint32_t bad_flags = BNXT_L2_FILTER_ALLOC_FLAGS_LOOPBACK |
				   BNXT_L2_FILTER_ALLOC_FLAGS_DROP |
				   BNXT_L2_FILTER_ALLOC_FLAGS_SOURCE_VALID;
	const uint32_t enables = BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR |
				 BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR_MASK |
				 BNXT_L2_FILTER_ALLOC_ENABLES_DST_ID |
				 BNXT_L2_FILTER_ALLOC_ENABLES_NUM_VLANS;
	const uint32_t required = BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR |
				  BNXT_L2_FILTER_ALLOC_ENABLES_DST_ID;
	unsigned limit = m->rsv.l2 ? m->rsv.l2 : m->max.l2;
	struct bsim_vnic *v;
	struct bsim_l2f *f = NULL;
	uint32_t en = in->enables;

	rs->len = sizeof(*o);
	if (!(in->flags & BNXT_L2_FILTER_ALLOC_FLAGS_PATH_RX) || (in->flags & bad_flags) ||
	    (in->flags & ~0xffu))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS,
				   "flags %#x: RX path filters only, no loopback/drop/source",
				   in->flags);
	if ((en & ~enables) || (en & required) != required)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "enables %#x: L2_ADDR and DST_ID needed; no VLAN matching", en);
	if ((en & BNXT_L2_FILTER_ALLOC_ENABLES_NUM_VLANS) && in->num_vlans)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "num_vlans %u",
				   in->num_vlans);
	v = bsim_vnic_by_id(m, in->dst_id);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "dst_id %u is not a VNIC",
				   in->dst_id);
	if (m->used.l2 >= limit)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR,
				   "no L2 context left (%u)", limit);
	for (unsigned i = 0; i < BSIM_MAX_L2 && !f; i++)
		if (!m->l2[i].used)
			f = &m->l2[i];
	if (!f)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR, "no L2 filter left");
	memset(f, 0, sizeof(*f));
	f->used = true;
	f->vnic = v;
	memset(f->mask, 0xff, 6);
	if (en & BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR_MASK)
		memcpy(f->mask, in->l2_addr_mask, 6);
	for (int i = 0; i < 6; i++)
		f->mac[i] = in->l2_addr[i] & f->mask[i];
	f->id = L2_ID_TAG | (++m->filter_gen & 0xffffffffull) << ID_GEN_SFT |
		(uint64_t)(f - m->l2);
	m->used.l2++;
	o->l2_filter_id = f->id;
	return 0;
}

int bsim_cmd_l2_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_cfa_l2_filter_free_input *in = (const void *)rq->b;
	struct bsim_l2f *f = l2_by_id(m, in->l2_filter_id);

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!f)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "l2_filter_id %#llx is not allocated",
				   (unsigned long long)in->l2_filter_id);
	for (unsigned i = 0; i < m->n_nt; i++)
		if (m->nt[i].l2 == f)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "an n-tuple filter names L2 filter %#llx",
					   (unsigned long long)f->id);
	memset(f, 0, sizeof(*f));
	m->used.l2--;
	return 0;
}

int bsim_cmd_rx_mask(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_cfa_l2_set_rx_mask_input *in = (const void *)rq->b;
	const uint32_t known = BNXT_RX_MASK_MCAST | BNXT_RX_MASK_ALL_MCAST | BNXT_RX_MASK_BCAST |
			       BNXT_RX_MASK_PROMISCUOUS | BNXT_RX_MASK_OUTERMOST |
			       BNXT_RX_MASK_ANYVLAN_NONVLAN;
	struct bsim_vnic *v = bsim_vnic_by_id(m, in->vnic_id);
	uint8_t mc[BSIM_MAX_MC][6];
	unsigned n = 0;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u",
				   in->vnic_id);
	if (in->mask & ~known)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "mask %#x: no VLAN tables in the model", in->mask);
	if (in->num_vlan_tags)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "num_vlan_tags %u",
				   in->num_vlan_tags);
	if (in->mask & BNXT_RX_MASK_MCAST) {
		n = in->num_mc_entries;
		if (n > BSIM_MAX_MC)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "num_mc_entries %u (at most %d)", n, BSIM_MAX_MC);
		if (n && (zn_vfu_dma_probe(m->dev, in->mc_tbl_addr, 6ull * n, ZN_VFU_DMA_FROM_RAM) ||
			  zn_vfu_dma_read(m->dev, in->mc_tbl_addr, mc, 6ull * n)))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "mc_tbl_addr %#llx not mapped",
					   (unsigned long long)in->mc_tbl_addr);
	}
	v->rx_mask = in->mask;
	v->n_mc = n;
	if (n)
		memcpy(v->mc, mc, 6ull * n);
	return 0;
}

/* ---- CFA n-tuple filters ---- */

int bsim_cmd_ntuple_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_cfa_ntuple_filter_alloc_input *in = (const void *)rq->b;
	struct bnxt_hwrm_cfa_ntuple_filter_alloc_output *o = (void *)rs->b;
	const uint32_t flags = BNXT_NTUPLE_FLAGS_DROP | BNXT_NTUPLE_FLAGS_NO_L2_CONTEXT;
	const uint32_t enables =
		BNXT_NTUPLE_ENABLES_L2_FILTER_ID | BNXT_NTUPLE_ENABLES_ETHERTYPE |
		BNXT_NTUPLE_ENABLES_SRC_MACADDR | BNXT_NTUPLE_ENABLES_IPADDR_TYPE |
		BNXT_NTUPLE_ENABLES_SRC_IPADDR | BNXT_NTUPLE_ENABLES_SRC_IPADDR_MASK |
		BNXT_NTUPLE_ENABLES_DST_IPADDR | BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK |
		BNXT_NTUPLE_ENABLES_IP_PROTOCOL | BNXT_NTUPLE_ENABLES_SRC_PORT |
		BNXT_NTUPLE_ENABLES_SRC_PORT_MASK | BNXT_NTUPLE_ENABLES_DST_PORT |
		BNXT_NTUPLE_ENABLES_DST_PORT_MASK | BNXT_NTUPLE_ENABLES_PRI_HINT |
		BNXT_NTUPLE_ENABLES_NTUPLE_FILTER_ID | BNXT_NTUPLE_ENABLES_DST_ID;
	const uint32_t addr = BNXT_NTUPLE_ENABLES_SRC_IPADDR | BNXT_NTUPLE_ENABLES_DST_IPADDR |
			      BNXT_NTUPLE_ENABLES_SRC_IPADDR_MASK |
			      BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK;
	const uint32_t ports = BNXT_NTUPLE_ENABLES_SRC_PORT | BNXT_NTUPLE_ENABLES_DST_PORT |
			       BNXT_NTUPLE_ENABLES_SRC_PORT_MASK |
			       BNXT_NTUPLE_ENABLES_DST_PORT_MASK;
	uint32_t en = in->enables;
	struct bsim_ntuple t;
	unsigned alen;

	rs->len = sizeof(*o);
	if (in->flags & ~flags)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS,
				   "flags %#x: DROP and NO_L2_CONTEXT only", in->flags);
	if (en & ~enables)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "enables %#x: unsupported %#x (tunnels, mirror, RFS ring index)",
				   en, en & ~enables);
	memset(&t, 0, sizeof(t));
	t.flags = in->flags;
	t.enables = en;
	if (!(in->flags & BNXT_NTUPLE_FLAGS_DROP)) {
		if (!(en & BNXT_NTUPLE_ENABLES_DST_ID))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
					   "DST_ID needed (or the DROP flag)");
		t.vnic = bsim_vnic_by_id(m, in->dst_id);
		if (!t.vnic)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "dst_id %u is not a VNIC", in->dst_id);
	}
	if (en & BNXT_NTUPLE_ENABLES_L2_FILTER_ID) {
		t.l2 = l2_by_id(m, in->l2_filter_id);
		if (!t.l2)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "l2_filter_id %#llx is not allocated",
					   (unsigned long long)in->l2_filter_id);
	}
	if ((en & addr) && !(en & BNXT_NTUPLE_ENABLES_IPADDR_TYPE))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "addresses without IPADDR_TYPE");
	if ((en & BNXT_NTUPLE_ENABLES_IPADDR_TYPE) &&
	    in->ip_addr_type != BNXT_NTUPLE_IP_ADDR_TYPE_IPV4 &&
	    in->ip_addr_type != BNXT_NTUPLE_IP_ADDR_TYPE_IPV6)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "ip_addr_type %u",
				   in->ip_addr_type);
	if ((en & BNXT_NTUPLE_ENABLES_ETHERTYPE) && (en & BNXT_NTUPLE_ENABLES_IPADDR_TYPE) &&
	    in->ethertype != __builtin_bswap16(in->ip_addr_type == 4 ? 0x0800 : 0x86dd))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ethertype %#06x (big-endian) does not match ip_addr_type %u",
				   __builtin_bswap16(in->ethertype), in->ip_addr_type);
	if ((en & ports) && (!(en & BNXT_NTUPLE_ENABLES_IP_PROTOCOL) ||
			     (in->ip_protocol != 6 && in->ip_protocol != 17)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ports need IP_PROTOCOL 6 (TCP) or 17 (UDP)");
	if (((en & BNXT_NTUPLE_ENABLES_SRC_IPADDR_MASK) && !(en & BNXT_NTUPLE_ENABLES_SRC_IPADDR)) ||
	    ((en & BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK) && !(en & BNXT_NTUPLE_ENABLES_DST_IPADDR)) ||
	    ((en & BNXT_NTUPLE_ENABLES_SRC_PORT_MASK) && !(en & BNXT_NTUPLE_ENABLES_SRC_PORT)) ||
	    ((en & BNXT_NTUPLE_ENABLES_DST_PORT_MASK) && !(en & BNXT_NTUPLE_ENABLES_DST_PORT)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "a mask enabled without its field");
	if (m->n_nt >= BSIM_MAX_NTUPLE)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR,
				   "no n-tuple filter left (%d)", BSIM_MAX_NTUPLE);
	memcpy(t.src_mac, in->src_macaddr, 6);
	t.ethertype = in->ethertype;
	t.ip_type = in->ip_addr_type;
	t.proto = in->ip_protocol;
	alen = in->ip_addr_type == BNXT_NTUPLE_IP_ADDR_TYPE_IPV4 ? 4 : 16;
	/* a field without its mask matches exactly */
	memset(t.src_mask, 0xff, alen);
	memset(t.dst_mask, 0xff, alen);
	t.sport_mask = t.dport_mask = 0xffff;
	if (en & BNXT_NTUPLE_ENABLES_SRC_IPADDR_MASK)
		memcpy(t.src_mask, in->src_ipaddr_mask, alen);
	if (en & BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK)
		memcpy(t.dst_mask, in->dst_ipaddr_mask, alen);
	if (en & BNXT_NTUPLE_ENABLES_SRC_PORT_MASK)
		t.sport_mask = in->src_port_mask;
	if (en & BNXT_NTUPLE_ENABLES_DST_PORT_MASK)
		t.dport_mask = in->dst_port_mask;
	for (unsigned i = 0; i < alen; i++) {
		t.src[i] = in->src_ipaddr[i] & t.src_mask[i];
		t.dst[i] = in->dst_ipaddr[i] & t.dst_mask[i];
	}
	t.sport = in->src_port & t.sport_mask;
	t.dport = in->dst_port & t.dport_mask;
	t.id = NT_ID_TAG | (++m->filter_gen & 0xffffffffull) << ID_GEN_SFT | m->n_nt;
	m->nt[m->n_nt++] = t;
	o->ntuple_filter_id = t.id;
	return 0;
}

int bsim_cmd_ntuple_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_cfa_ntuple_filter_free_input *in = (const void *)rq->b;
	int i = nt_index(m, in->ntuple_filter_id);

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (i < 0)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "ntuple_filter_id %#llx is not allocated",
				   (unsigned long long)in->ntuple_filter_id);
	/* keep allocation order: the first allocated match wins */
	memmove(&m->nt[i], &m->nt[i + 1], (m->n_nt - (unsigned)i - 1) * sizeof(m->nt[0]));
	m->n_nt--;
	return 0;
}

int bsim_cmd_plcmodes_qcfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_vnic_plcmodes_qcfg_input *in = (const void *)rq->b;
	struct bnxt_hwrm_vnic_plcmodes_qcfg_output *o = (void *)rs->b;
	struct bsim_vnic *v = bsim_vnic_by_id(m, in->vnic_id);

	rs->len = sizeof(*o);
	if (!v)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "vnic_id %u",
				   in->vnic_id);
	o->flags = v->plc_flags | (v->is_default ? BNXT_PLCMODES_QCFG_FLAGS_DFLT_VNIC : 0);
	o->jumbo_thresh = v->jumbo_thresh;
	o->hds_offset = 0;
	o->hds_threshold = v->hds_threshold;
	o->max_bds = BSIM_MAX_AGG_BUFS + 1;
	return 0;
}
