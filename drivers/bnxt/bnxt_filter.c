/* SPDX-License-Identifier: MIT */
/*
 * VNICs, RSS, the L2 filter and RX mask, n-tuple rules
 * (hw-docs/bnxt.md §4 steps 13-16, §10, §11, §12).
 *
 * The default VNIC receives what our MAC filter accepts and spreads it with
 * RSS over the queues the RSS table names. A queue that n-tuple rules steer
 * to gets a VNIC of its own whose default ring is that queue (DPDK's
 * rte_flow QUEUE action); the rules point dst_id at it. Header-data split is
 * configured per VNIC (VNIC_PLCMODES_CFG).
 *
 * One RSS context covers 64 table entries; zcnic has at most 64 queues, so
 * the default VNIC uses one context and a 64-entry table.
 */
#include <errno.h>
#include <string.h>

#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define RSS_CTXS		1
#define RSS_ENTRIES		(RSS_CTXS * BNXT_RSS_TABLE_ENTRIES_P5)
#define ETH_P_IPV4		0x0800
#define ETH_P_IPV6		0x86dd

/* The Microsoft RSS verification key: hashes are reproducible in tests. */
static const uint8_t default_key[ZN_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

uint32_t zn_bnxt_rss_table_size(const struct bnxt *bp)
{
	(void)bp;
	return RSS_ENTRIES;
}

void zn_bnxt_rss_default(struct bnxt *bp, struct zn_rss_conf *rss)
{
	memset(rss, 0, sizeof(*rss));
	memcpy(rss->key, default_key, sizeof(default_key));
	rss->hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV4_TCP | ZN_RSS_IPV4_UDP | ZN_RSS_IPV6 |
			  ZN_RSS_IPV6_TCP | ZN_RSS_IPV6_UDP;
	rss->table_size = RSS_ENTRIES;
	for (uint32_t i = 0; i < RSS_ENTRIES; i++)
		rss->table[i] = (uint16_t)(i % (bp->conf.nb_rxq ? bp->conf.nb_rxq : 1));
}

int zn_bnxt_rss_check(const struct bnxt *bp, const struct zn_rss_conf *rss)
{
	const uint32_t known = ZN_RSS_IPV4 | ZN_RSS_IPV4_TCP | ZN_RSS_IPV4_UDP | ZN_RSS_IPV6 |
			       ZN_RSS_IPV6_TCP | ZN_RSS_IPV6_UDP;

	if (rss->hash_types & ~known) {
		ZN_ERR(BNXT_LOG, "%s: RSS hash types 0x%x: unknown bits 0x%x", bp->name,
		       rss->hash_types, rss->hash_types & ~known);
		return -EINVAL;
	}
	if (!rss->table_size || rss->table_size > RSS_ENTRIES || RSS_ENTRIES % rss->table_size) {
		ZN_ERR(BNXT_LOG, "%s: RSS table of %u entries: it must divide %u", bp->name,
		       rss->table_size, RSS_ENTRIES);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < rss->table_size; i++) {
		if (rss->table[i] >= bp->conf.nb_rxq) {
			ZN_ERR(BNXT_LOG, "%s: RSS table entry %u names queue %u; the port has %u",
			       bp->name, i, rss->table[i], bp->conf.nb_rxq);
			return -EINVAL;
		}
	}
	return 0;
}

static uint32_t hash_type_hw(uint32_t t)
{
	uint32_t h = 0;

	if (t & ZN_RSS_IPV4)
		h |= BNXT_RSS_HASH_TYPE_IPV4;
	if (t & ZN_RSS_IPV4_TCP)
		h |= BNXT_RSS_HASH_TYPE_TCP_IPV4;
	if (t & ZN_RSS_IPV4_UDP)
		h |= BNXT_RSS_HASH_TYPE_UDP_IPV4;
	if (t & ZN_RSS_IPV6)
		h |= BNXT_RSS_HASH_TYPE_IPV6;
	if (t & ZN_RSS_IPV6_TCP)
		h |= BNXT_RSS_HASH_TYPE_TCP_IPV6;
	if (t & ZN_RSS_IPV6_UDP)
		h |= BNXT_RSS_HASH_TYPE_UDP_IPV6;
	return h;
}

/* §11: the table as {RX ring, CQ} pairs, then one VNIC_RSS_CFG per context. */
int zn_bnxt_rss_apply(struct bnxt *bp)
{
	struct zn_rss_conf dflt;
	const struct zn_rss_conf *rss = &bp->rss;
	int rc;

	if (!bp->rss_set) {
		zn_bnxt_rss_default(bp, &dflt);
		rss = &dflt;
	}
	for (uint32_t i = 0; i < RSS_ENTRIES; i++) {
		const struct bnxt_rxq *q = bp->rxq[rss->table[i % rss->table_size]];

		bp->rss_tbl[i].rx_ring_id = q->rx.id;
		bp->rss_tbl[i].cmpl_ring_id = q->cq.id;
	}
	memcpy(bp->rss_key, rss->key, ZN_RSS_KEY_LEN);
	for (uint32_t c = 0; c < bp->nrss_ctx; c++) {
		struct bnxt_hwrm_vnic_rss_cfg_input req = {
			.hdr.req_type = BNXT_HWRM_VNIC_RSS_CFG,
			.hash_type = hash_type_hw(rss->hash_types),
			.vnic_id = bp->vnic_id,
			.ring_table_pair_index = (uint8_t)c,
			.ring_grp_tbl_addr = bp->rss_tbl_iova + (uint64_t)c * BNXT_RSS_TABLE_SIZE_P5,
			.hash_key_tbl_addr = bp->rss_key_iova,
			.rss_ctx_idx = bp->rss_ctx[c],
			.ring_select_mode = BNXT_RSS_RING_SELECT_TOEPLITZ,
		};

		rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int vnic_alloc(struct bnxt *bp, bool dflt, uint16_t *id)
{
	struct bnxt_hwrm_vnic_alloc_input req = {
		.hdr.req_type = BNXT_HWRM_VNIC_ALLOC,
		.flags = dflt ? BNXT_VNIC_ALLOC_FLAGS_DEFAULT : 0,
	};
	struct bnxt_hwrm_vnic_alloc_output out;
	int rc;

	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &out, sizeof(out),
			       offsetof(struct bnxt_hwrm_vnic_alloc_output, rsvd));
	if (rc < 0)
		return rc;
	if (out.vnic_id >= BNXT_INVALID_ID16) {
		ZN_ERR(BNXT_LOG, "%s: VNIC_ALLOC returned VNIC id 0x%x", bp->name, out.vnic_id);
		return -EIO;
	}
	*id = (uint16_t)out.vnic_id;
	return 0;
}

static void vnic_free(struct bnxt *bp, uint16_t *id)
{
	struct bnxt_hwrm_vnic_free_input req = {
		.hdr.req_type = BNXT_HWRM_VNIC_FREE,
		.vnic_id = *id,
	};

	if (*id == BNXT_INVALID_ID16)
		return;
	if (!bp->hwrm.dead)
		zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
	*id = BNXT_INVALID_ID16;
}

/* VNIC_CFG: default ring and its CQ (P5 names rings directly). */
static int vnic_cfg(struct bnxt *bp, uint16_t vnic, const struct bnxt_rxq *q)
{
	struct bnxt_hwrm_vnic_cfg_input req = {
		.hdr.req_type = BNXT_HWRM_VNIC_CFG,
		.enables = BNXT_VNIC_CFG_ENABLES_DEFAULT_RX_RING_ID |
			   BNXT_VNIC_CFG_ENABLES_DEFAULT_CMPL_RING_ID,
		.vnic_id = vnic,
		.mru = (uint16_t)q->c.max_frame,	/* filled, as both drivers do */
		.default_rx_ring_id = q->rx.id,
		.default_cmpl_ring_id = q->cq.id,
	};

	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

static int vnic_mru(struct bnxt *bp, uint16_t vnic, uint16_t mru)
{
	struct bnxt_hwrm_vnic_update_input req = {
		.hdr.req_type = BNXT_HWRM_VNIC_UPDATE,
		.vnic_id = vnic,
		.enables = BNXT_VNIC_UPDATE_ENABLES_MRU_VALID,
		.mru = mru,
	};

	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

int zn_bnxt_vnic_hold(struct bnxt *bp, uint16_t q, bool hold)
{
	const struct bnxt_rxq *rxq = bp->rxq[q];
	uint16_t mru = hold ? 0 : (uint16_t)rxq->c.max_frame;
	int rc = vnic_mru(bp, bp->vnic_id, mru);

	if (rxq->steer_vnic != BNXT_INVALID_ID16) {
		int rc2 = vnic_mru(bp, rxq->steer_vnic, mru);

		if (rc == 0)
			rc = rc2;
	}
	return rc;
}

int zn_bnxt_vnic_rering(struct bnxt *bp, uint16_t q)
{
	const struct bnxt_rxq *rxq = bp->rxq[q];
	int rc = zn_bnxt_rss_apply(bp);

	if (rc == 0 && q == 0)
		rc = vnic_cfg(bp, bp->vnic_id, rxq);
	if (rc == 0 && rxq->steer_vnic != BNXT_INVALID_ID16)
		rc = vnic_cfg(bp, rxq->steer_vnic, rxq);
	return rc;
}

/* §10: header-data split for every TCP/UDP frame above thresh bytes. */
static int vnic_plcmodes(struct bnxt *bp, uint16_t vnic, uint32_t hdr_buf, uint32_t thresh)
{
	struct bnxt_hwrm_vnic_plcmodes_cfg_input req = {
		.hdr.req_type = BNXT_HWRM_VNIC_PLCMODES_CFG,
		.flags = BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT | BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4 |
			 BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6,
		.enables = BNXT_PLCMODES_CFG_ENABLES_JUMBO_THRESH_VALID |
			   BNXT_PLCMODES_CFG_ENABLES_HDS_THRESHOLD_VALID,
		.vnic_id = vnic,
		.jumbo_thresh = (uint16_t)hdr_buf,
		.hds_threshold = (uint16_t)thresh,
	};

	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

static int rx_mask(struct bnxt *bp, uint32_t mask)
{
	struct bnxt_hwrm_cfa_l2_set_rx_mask_input req = {
		.hdr.req_type = BNXT_HWRM_CFA_L2_SET_RX_MASK,
		.vnic_id = bp->vnic_id,
		.mask = mask,
	};

	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

int zn_bnxt_vnic_setup(struct bnxt *bp)
{
	uint32_t hdr = BNXT_HDR_BUF_MAX, thresh = BNXT_HDS_THRESHOLD_MAX, tpa_segs = UINT32_MAX;
	int rc;

	/* The default VNIC splits by the smallest setting of its queues, and
	 * aggregates (TPA) only when all of them take aggregates. */
	for (uint16_t q = 0; q < bp->conf.nb_rxq; q++) {
		if (bp->rxq[q]->tpa_segs < tpa_segs)
			tpa_segs = bp->rxq[q]->tpa_segs;
		if (bp->rxq[q]->c.hdr_buf_size < hdr)
			hdr = bp->rxq[q]->c.hdr_buf_size;
		if (bp->rxq[q]->hds_thresh < thresh)
			thresh = bp->rxq[q]->hds_thresh;
	}
	rc = vnic_alloc(bp, true, &bp->vnic_id);		/* step 13 */
	if (rc < 0)
		return rc;
	for (uint32_t c = 0; c < RSS_CTXS; c++) {
		struct bnxt_hwrm_hdr_only_input req = {
			.hdr.req_type = BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC,
		};
		struct bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output out;

		rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &out, sizeof(out),
				       offsetof(struct bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output,
						rsvd));
		if (rc < 0)
			return rc;
		bp->rss_ctx[bp->nrss_ctx++] = out.rss_cos_lb_ctx_id;
	}
	rc = vnic_cfg(bp, bp->vnic_id, bp->rxq[0]);
	if (rc == 0)
		rc = zn_bnxt_rss_apply(bp);
	if (rc == 0)
		rc = vnic_plcmodes(bp, bp->vnic_id, hdr, thresh);
	if (rc == 0 && tpa_segs)
		rc = zn_bnxt_vnic_tpa(bp, bp->vnic_id, tpa_segs);
	if (rc < 0)
		return rc;

	{							/* step 14 */
		struct bnxt_hwrm_cfa_l2_filter_alloc_input req = {
			.hdr.req_type = BNXT_HWRM_CFA_L2_FILTER_ALLOC,
			.flags = BNXT_L2_FILTER_ALLOC_FLAGS_PATH_RX |
				 BNXT_L2_FILTER_ALLOC_FLAGS_OUTERMOST |
				 BNXT_L2_FILTER_ALLOC_FLAGS_TRAFFIC_L2 |
				 BNXT_L2_FILTER_ALLOC_FLAGS_XDP_DISABLE,
			.enables = BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR |
				   BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR_MASK |
				   BNXT_L2_FILTER_ALLOC_ENABLES_DST_ID,
			.dst_id = bp->vnic_id,
			.l2_addr_mask = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		};
		struct bnxt_hwrm_cfa_l2_filter_alloc_output out;

		memcpy(req.l2_addr, bp->mac, ZN_ETH_ALEN);
		rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &out, sizeof(out),
				       offsetof(struct bnxt_hwrm_cfa_l2_filter_alloc_output, flow_id));
		if (rc < 0)
			return rc;
		bp->l2_filter_id = out.l2_filter_id;
		bp->l2_filter_valid = true;
	}
	return rx_mask(bp, BNXT_RX_MASK_BCAST |			/* step 15 */
		       (bp->conf.promisc ? BNXT_RX_MASK_PROMISCUOUS : 0));
}

void zn_bnxt_vnic_teardown(struct bnxt *bp)
{
	if (bp->vnic_id != BNXT_INVALID_ID16 && !bp->hwrm.dead)
		rx_mask(bp, 0);
	for (uint32_t i = 0; i < BNXT_MAX_FLOWS; i++)
		if (bp->flows[i].used)
			zn_bnxt_flow_del(bp, i);
	if (bp->l2_filter_valid && !bp->hwrm.dead) {
		struct bnxt_hwrm_cfa_l2_filter_free_input req = {
			.hdr.req_type = BNXT_HWRM_CFA_L2_FILTER_FREE,
			.l2_filter_id = bp->l2_filter_id,
		};

		zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
	}
	bp->l2_filter_valid = false;
	for (uint16_t q = 0; q < bp->conf.nb_rxq; q++)
		if (bp->rxq[q])
			vnic_free(bp, &bp->rxq[q]->steer_vnic);
	vnic_free(bp, &bp->vnic_id);
	for (uint32_t c = 0; c < bp->nrss_ctx; c++) {
		struct bnxt_hwrm_vnic_rss_cos_lb_ctx_free_input req = {
			.hdr.req_type = BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE,
			.rss_cos_lb_ctx_id = bp->rss_ctx[c],
		};

		if (!bp->hwrm.dead)
			zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
	}
	bp->nrss_ctx = 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* §12: a per-queue VNIC (created on the first rule for the queue), then the rule. */
int zn_bnxt_flow_add(struct bnxt *bp, const struct zn_flow_match *m, uint16_t q,
		     uint32_t *rule_id)
{
	struct bnxt_hwrm_cfa_ntuple_filter_alloc_input req;
	struct bnxt_hwrm_cfa_ntuple_filter_alloc_output out;
	size_t alen = m->ip_version == 4 ? 4 : 16;
	struct bnxt_rxq *rxq;
	uint32_t slot;
	int rc;

	if (!bp->started) {
		ZN_ERR(BNXT_LOG, "%s: flow rules need a started port", bp->name);
		return -EAGAIN;
	}
	if ((m->ip_version != 4 && m->ip_version != 6) || q >= bp->conf.nb_rxq) {
		ZN_ERR(BNXT_LOG, "%s: flow rule: IP version %u (4 or 6), queue %u (< %u)",
		       bp->name, m->ip_version, q, bp->conf.nb_rxq);
		return -EINVAL;
	}
	for (slot = 0; slot < BNXT_MAX_FLOWS && bp->flows[slot].used; slot++)
		;
	if (slot == BNXT_MAX_FLOWS) {
		ZN_ERR(BNXT_LOG, "%s: all %u flow rules are in use", bp->name, BNXT_MAX_FLOWS);
		return -ENOSPC;
	}
	rxq = bp->rxq[q];
	if (rxq->steer_vnic == BNXT_INVALID_ID16) {
		rc = vnic_alloc(bp, false, &rxq->steer_vnic);
		if (rc == 0)
			rc = vnic_cfg(bp, rxq->steer_vnic, rxq);
		if (rc == 0)
			rc = vnic_plcmodes(bp, rxq->steer_vnic, rxq->c.hdr_buf_size,
					   rxq->hds_thresh);
		if (rc == 0 && rxq->tpa_segs)
			rc = zn_bnxt_vnic_tpa(bp, rxq->steer_vnic, rxq->tpa_segs);
		if (rc < 0) {
			vnic_free(bp, &rxq->steer_vnic);
			return rc;
		}
	}

	memset(&req, 0, sizeof(req));
	req.hdr.req_type = BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC;
	req.enables = BNXT_NTUPLE_ENABLES_L2_FILTER_ID | BNXT_NTUPLE_ENABLES_ETHERTYPE |
		      BNXT_NTUPLE_ENABLES_IPADDR_TYPE | BNXT_NTUPLE_ENABLES_DST_ID;
	req.l2_filter_id = bp->l2_filter_id;
	req.ethertype = __builtin_bswap16(m->ip_version == 4 ? ETH_P_IPV4 : ETH_P_IPV6);
	req.ip_addr_type = m->ip_version == 4 ? BNXT_NTUPLE_IP_ADDR_TYPE_IPV4 :
						BNXT_NTUPLE_IP_ADDR_TYPE_IPV6;
	req.dst_id = rxq->steer_vnic;
	if (m->ip_proto) {
		req.enables |= BNXT_NTUPLE_ENABLES_IP_PROTOCOL;
		req.ip_protocol = m->ip_proto;
	}
	if (!all_zero(m->src_ip, alen)) {
		req.enables |= BNXT_NTUPLE_ENABLES_SRC_IPADDR | BNXT_NTUPLE_ENABLES_SRC_IPADDR_MASK;
		memcpy(req.src_ipaddr, m->src_ip, alen);
		memset(req.src_ipaddr_mask, 0xff, alen);
	}
	if (!all_zero(m->dst_ip, alen)) {
		req.enables |= BNXT_NTUPLE_ENABLES_DST_IPADDR | BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK;
		memcpy(req.dst_ipaddr, m->dst_ip, alen);
		memset(req.dst_ipaddr_mask, 0xff, alen);
	}
	if (m->src_port) {
		req.enables |= BNXT_NTUPLE_ENABLES_SRC_PORT | BNXT_NTUPLE_ENABLES_SRC_PORT_MASK;
		req.src_port = m->src_port;
		req.src_port_mask = 0xffff;
	}
	if (m->dst_port) {
		req.enables |= BNXT_NTUPLE_ENABLES_DST_PORT | BNXT_NTUPLE_ENABLES_DST_PORT_MASK;
		req.dst_port = m->dst_port;
		req.dst_port_mask = 0xffff;
	}
	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &out, sizeof(out),
			       offsetof(struct bnxt_hwrm_cfa_ntuple_filter_alloc_output, flow_id));
	if (rc < 0)
		return rc;
	bp->flows[slot].used = true;
	bp->flows[slot].q = q;
	bp->flows[slot].filter_id = out.ntuple_filter_id;
	bp->flows[slot].m = *m;
	rxq->nflows++;
	*rule_id = slot;
	return 0;
}

int zn_bnxt_flow_del(struct bnxt *bp, uint32_t rule_id)
{
	struct bnxt_hwrm_cfa_ntuple_filter_free_input req = {
		.hdr.req_type = BNXT_HWRM_CFA_NTUPLE_FILTER_FREE,
	};
	struct bnxt_flow *f;
	int rc = 0;

	if (rule_id >= BNXT_MAX_FLOWS || !bp->flows[rule_id].used)
		return -ENOENT;
	f = &bp->flows[rule_id];
	req.ntuple_filter_id = f->filter_id;
	if (!bp->hwrm.dead)
		rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
	f->used = false;
	if (bp->rxq[f->q] && bp->rxq[f->q]->nflows)
		bp->rxq[f->q]->nflows--;
	return rc;
}
