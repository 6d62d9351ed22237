/* SPDX-License-Identifier: MIT */
/*
 * RX of the bnxt model (hw-docs/bnxt.md 9-12, 14 "RX"): a frame from the
 * wire is classified (L2 filters and RX masks, then n-tuple rules, which win),
 * given a ring by RSS (Toeplitz, entry hash % entries) or the VNIC's default,
 * placed (normal, header-data split, jumbo) into the RX buffer and AGG
 * buffers in ring order, and completed with one RX L2 record followed by its
 * AGG records. No buffer: dropped and counted (rx_discard_pkts).
 */
#include <string.h>

#include "sim/bnxt/priv.h"

#define ETH_ALEN	6
#define PROTO_TCP	6
#define PROTO_UDP	17
#define PROTO_ICMP	1
#define PROTO_ICMPV6	58
#define SOP_PAD		2	/* bytes skipped by BNXT_RX_BD_FLAGS_SOP_PAD */

struct rx_plan {
	unsigned placement;		/* BNXT_RX_CMPL_FLAGS_PLACEMENT_* */
	unsigned first;			/* bytes in the RX buffer */
	unsigned nagg;
	struct bnxt_rx_bd rbd;
	struct bnxt_rx_bd abd[BSIM_MAX_AGG_BUFS];
	uint16_t alen[BSIM_MAX_AGG_BUFS];
};

static bool is_bcast(const uint8_t *mac)
{
	return !memcmp(mac, "\xff\xff\xff\xff\xff\xff", ETH_ALEN);
}

static bool l2_match(const struct bsim_l2f *f, const uint8_t *dst)
{
	for (int i = 0; i < ETH_ALEN; i++)
		if ((dst[i] & f->mask[i]) != f->mac[i])
			return false;
	return true;
}

static bool mc_listed(const struct bsim_vnic *v, const uint8_t *dst)
{
	for (unsigned i = 0; i < v->n_mc; i++)
		if (!memcmp(v->mc[i], dst, ETH_ALEN))
			return true;
	return false;
}

/* The VNIC the L2 stage accepts the frame for (and the filter that did). */
static struct bsim_vnic *l2_classify(struct bsim *m, const uint8_t *dst, struct bsim_l2f **hit)
{
	*hit = NULL;
	for (unsigned i = 0; i < BSIM_MAX_L2; i++) {
		if (m->l2[i].used && l2_match(&m->l2[i], dst)) {
			*hit = &m->l2[i];
			return m->l2[i].vnic;
		}
	}
	for (unsigned i = 0; i < BSIM_MAX_VNICS; i++) {
		struct bsim_vnic *v = &m->vnic[i];
		uint32_t mk = v->rx_mask;

		if (!v->used)
			continue;
		if (mk & BNXT_RX_MASK_PROMISCUOUS)
			return v;
		if (is_bcast(dst) ? (mk & BNXT_RX_MASK_BCAST) :
		    (dst[0] & 1) && ((mk & BNXT_RX_MASK_ALL_MCAST) ||
				     ((mk & BNXT_RX_MASK_MCAST) && mc_listed(v, dst))))
			return v;
	}
	return NULL;
}

static bool masked_eq(const uint8_t *a, const uint8_t *want, const uint8_t *mask, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if ((a[i] & mask[i]) != want[i])
			return false;
	return true;
}

static bool nt_match(const struct bsim_ntuple *t, const uint8_t *f, const struct bsim_pkt *p,
		     const struct bsim_l2f *hit, bool l2_ok)
{
	uint32_t en = t->enables;
	unsigned alen = p->ipv == 4 ? 4 : 16;

	if (en & BNXT_NTUPLE_ENABLES_L2_FILTER_ID) {
		if (t->l2 != hit)
			return false;
	} else if (!(t->flags & BNXT_NTUPLE_FLAGS_NO_L2_CONTEXT) && !l2_ok) {
		return false;
	}
	if ((en & BNXT_NTUPLE_ENABLES_SRC_MACADDR) && memcmp(f + ETH_ALEN, t->src_mac, ETH_ALEN))
		return false;
	if ((en & BNXT_NTUPLE_ENABLES_ETHERTYPE) && p->ethertype != __builtin_bswap16(t->ethertype))
		return false;
	if ((en & (BNXT_NTUPLE_ENABLES_IPADDR_TYPE | BNXT_NTUPLE_ENABLES_IP_PROTOCOL)) && !p->ipv)
		return false;
	if ((en & BNXT_NTUPLE_ENABLES_IPADDR_TYPE) && p->ipv != t->ip_type)
		return false;
	if ((en & BNXT_NTUPLE_ENABLES_IP_PROTOCOL) && p->proto != t->proto)
		return false;
	if ((en & BNXT_NTUPLE_ENABLES_SRC_IPADDR) && !masked_eq(p->src, t->src, t->src_mask, alen))
		return false;
	if ((en & BNXT_NTUPLE_ENABLES_DST_IPADDR) && !masked_eq(p->dst, t->dst, t->dst_mask, alen))
		return false;
	if (en & (BNXT_NTUPLE_ENABLES_SRC_PORT | BNXT_NTUPLE_ENABLES_DST_PORT)) {
		if (!p->l4 || (p->proto != PROTO_TCP && p->proto != PROTO_UDP))
			return false;
		if ((en & BNXT_NTUPLE_ENABLES_SRC_PORT) && (p->sport & t->sport_mask) != t->sport)
			return false;
		if ((en & BNXT_NTUPLE_ENABLES_DST_PORT) && (p->dport & t->dport_mask) != t->dport)
			return false;
	}
	return true;
}

/* The Toeplitz input for this packet under the VNIC's hash types. */
static size_t rss_input(uint32_t ht, const struct bsim_pkt *p, uint8_t *in, unsigned *op)
{
	bool four;
	unsigned alen;

	if (p->ipv == 4) {
		four = p->l4 && ((p->proto == PROTO_TCP && (ht & BNXT_RSS_HASH_TYPE_TCP_IPV4)) ||
				 (p->proto == PROTO_UDP && (ht & BNXT_RSS_HASH_TYPE_UDP_IPV4)));
		if (!four && !(ht & BNXT_RSS_HASH_TYPE_IPV4))
			return 0;
		alen = 4;
	} else if (p->ipv == 6) {
		four = p->l4 && ((p->proto == PROTO_TCP && (ht & BNXT_RSS_HASH_TYPE_TCP_IPV6)) ||
				 (p->proto == PROTO_UDP && (ht & BNXT_RSS_HASH_TYPE_UDP_IPV6)));
		if (!four && !(ht & BNXT_RSS_HASH_TYPE_IPV6))
			return 0;
		alen = 16;
	} else {
		return 0;
	}
	memcpy(in, p->src, alen);
	memcpy(in + alen, p->dst, alen);
	*op = four ? BNXT_RX_RSS_OP_INNER_4TUPLE : BNXT_RX_RSS_OP_INNER_2TUPLE;
	if (!four)
		return 2 * alen;
	memcpy(in + 2 * alen, &p->sport, 2);
	memcpy(in + 2 * alen + 2, &p->dport, 2);
	return 2 * alen + 4;
}

static unsigned itype(const struct bsim_pkt *p)
{
	if (!p->ipv)
		return BNXT_RX_CMPL_FLAGS_ITYPE_NOT_KNOWN;
	if (p->l4 && p->proto == PROTO_TCP)
		return BNXT_RX_CMPL_FLAGS_ITYPE_TCP;
	if (p->l4 && p->proto == PROTO_UDP)
		return BNXT_RX_CMPL_FLAGS_ITYPE_UDP;
	if (p->l4 && (p->proto == PROTO_ICMP || p->proto == PROTO_ICMPV6))
		return BNXT_RX_CMPL_FLAGS_ITYPE_ICMP;
	return BNXT_RX_CMPL_FLAGS_ITYPE_IP;
}

void bsim_stat_rx(struct bsim_stat *st, const uint8_t *f, size_t len)
{
	if (!st)
		return;
	if (is_bcast(f)) {
		st->hw.rx_bcast_pkts++;
		st->hw.rx_bcast_bytes += len;
	} else if (f[0] & 1) {
		st->hw.rx_mcast_pkts++;
		st->hw.rx_mcast_bytes += len;
	} else {
		st->hw.rx_ucast_pkts++;
		st->hw.rx_ucast_bytes += len;
	}
}

static void drop_no_buffer(struct bsim *m, struct bsim_ring *rx)
{
	BSIM_INC(m, rx_no_buffer);
	if (rx->stat)
		rx->stat->hw.rx_discard_pkts++;
}

bool bsim_rx_bd_ok(const struct bnxt_rx_bd *bd, unsigned type)
{
	unsigned pad = (bd->flags_type & BNXT_RX_BD_FLAGS_SOP_PAD) && type == BNXT_RX_BD_TYPE_PKT ?
			       SOP_PAD : 0;

	return (bd->flags_type & BNXT_RX_BD_TYPE_MASK) == type &&
	       !(bd->flags_type & BNXT_RX_BD_FLAGS_BUFFERS_MASK) && bd->len > pad;
}

unsigned bsim_rx_room(const struct bnxt_rx_bd *bd)
{
	return bd->len - (bd->flags_type & BNXT_RX_BD_FLAGS_SOP_PAD ? SOP_PAD : 0);
}

/* An error completion: the RX BD and the nagg AGG BDs taken so far go back
 * to the driver with no data. */
static void rx_error(struct bsim *m, struct bsim_ring *rx, struct bsim_ring *cq,
		     struct rx_plan *pl, unsigned nagg, uint16_t buf_err)
{
	uint8_t recs[16 * (2 + BSIM_MAX_AGG_BUFS)];
	struct bnxt_rx_l2_cmpl *c = (void *)recs;

	memset(recs, 0, sizeof(recs));
	c->lo.flags_type = BNXT_CMPL_TYPE_RX_L2 | BNXT_RX_CMPL_FLAGS_ERROR;
	c->lo.opaque = pl->rbd.opaque;
	c->lo.agg_bufs_v1 = (uint8_t)(nagg << BNXT_RX_CMPL_AGG_BUFS_SFT);
	c->hi.errors_v2 = buf_err;
	for (unsigned i = 0; i < nagg; i++) {
		struct bnxt_rx_agg_cmpl *a = (void *)(recs + 32 + 16 * i);

		a->type = BNXT_CMPL_TYPE_RX_AGG;
		a->opaque = pl->abd[i].opaque;
	}
	if (!bsim_cq_post(m, cq, recs, 2 + nagg))
		return;
	rx->cons++;
	if (nagg)
		rx->agg->cons += nagg;
	if (rx->stat)
		rx->stat->hw.rx_error_pkts++;
}

/* Where the frame goes (hw-docs/bnxt.md 10). 0, or a buffer error code
 * (DID_NOT_FIT) with pl->first describing nothing. */
static int plan(const struct bsim_vnic *v, const struct bsim_ring *rx, const struct bsim_pkt *p,
		size_t len, struct rx_plan *pl)
{
	unsigned cap = bsim_rx_room(&pl->rbd);
	bool hds = (p->ipv == 4 && (v->plc_flags & BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4)) ||
		   (p->ipv == 6 && (v->plc_flags & BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6));

	/* Split a packet with L4 payload (by the IP length, not the padded
	 * frame) whose headers fit the RX buffer; everything after the
	 * headers, padding included, goes to AGG buffers. */
	if (hds && rx->agg && len > v->hds_threshold && p->ip_end > p->hdr_len &&
	    p->hdr_len <= cap) {
		pl->placement = BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS;
		pl->first = p->hdr_len;
	} else if (len <= cap) {
		pl->placement = BNXT_RX_CMPL_FLAGS_PLACEMENT_NORMAL;
		pl->first = (unsigned)len;
	} else if ((v->plc_flags & BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT) && rx->agg) {
		pl->placement = BNXT_RX_CMPL_FLAGS_PLACEMENT_JUMBO;
		pl->first = v->jumbo_thresh && v->jumbo_thresh < cap ? v->jumbo_thresh : cap;
	} else {
		return BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_DID_NOT_FIT;
	}
	return 0;
}

static void deliver(struct bsim *m, struct bsim_vnic *v, struct bsim_ring *rx,
		    struct bsim_ring *cq, const uint8_t *f, size_t len, struct bsim_pkt *p,
		    uint32_t hash, unsigned rss_op, bool rss_valid, uint32_t meta)
{
	uint8_t recs[16 * (2 + BSIM_MAX_AGG_BUFS)];
	struct bnxt_rx_l2_cmpl *c = (void *)recs;
	struct bsim_ring *agg = rx->agg;
	struct rx_plan pl;
	bool ip_ok, l4_ok, ip_calc, l4_calc;
	uint16_t buf_err = 0;
	unsigned nread = 0;
	size_t off;
	int rc;

	if (rx->prod == rx->cons || zn_sim_fault_rx_nobuf(&m->port)) {
		drop_no_buffer(m, rx);
		return;
	}
	if (!bsim_ring_copy(m, rx, rx->cons, &pl.rbd, 1, false)) {
		BSIM_INC(m, rx_no_ring);
		return;
	}
	if (!bsim_rx_bd_ok(&pl.rbd, BNXT_RX_BD_TYPE_PKT)) {
		BSIM_INC(m, rx_bad_bd);
		ZN_SIM_LOG_RL_AT(&m->rl_rx, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: RX ring %#x BD %u: flags_type %#x len %u is not a PKT BD "
				 "with a length: error completion", m->name, rx->id,
				 rx->cons & rx->mask, pl.rbd.flags_type, pl.rbd.len);
		rx_error(m, rx, cq, &pl, 0, BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT);
		return;
	}
	rc = plan(v, rx, p, len, &pl);
	if (rc) {
		BSIM_INC(m, rx_did_not_fit);
		rx_error(m, rx, cq, &pl, 0, (uint16_t)rc);
		return;
	}
	/* AGG buffers for the rest, in ring order */
	pl.nagg = 0;
	for (size_t rest = len - pl.first; rest > 0;) {
		struct bnxt_rx_bd *a = &pl.abd[pl.nagg];

		if (pl.nagg == BSIM_MAX_AGG_BUFS) {
			BSIM_INC(m, rx_did_not_fit);
			rx_error(m, rx, cq, &pl, 0, BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_DID_NOT_FIT);
			return;
		}
		if (agg->prod - agg->cons <= pl.nagg) {
			drop_no_buffer(m, rx);
			return;
		}
		if (!nread) {
			/* the AGG BDs this frame may take, in one copy */
			uint32_t posted = agg->prod - agg->cons;

			nread = posted < BSIM_MAX_AGG_BUFS ? posted : BSIM_MAX_AGG_BUFS;
			if (!bsim_ring_copy(m, agg, agg->cons, pl.abd, nread, false)) {
				BSIM_INC(m, rx_no_ring);
				return;
			}
		}
		if (!bsim_rx_bd_ok(a, BNXT_RX_BD_TYPE_AGG)) {
			BSIM_INC(m, rx_bad_bd);
			ZN_SIM_LOG_RL_AT(&m->rl_rx, ZN_SIM_LOG_WARN, BSIM_LOG,
					 "%s: AGG ring %#x BD %u: flags_type %#x len %u is not an AGG "
					 "BD with a length: error completion", m->name, agg->id,
					 (agg->cons + pl.nagg) & agg->mask, a->flags_type, a->len);
			rx_error(m, rx, cq, &pl, pl.nagg + 1,
				 BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT);
			return;
		}
		pl.alen[pl.nagg] = (uint16_t)(rest < a->len ? rest : a->len);
		rest -= pl.alen[pl.nagg];
		pl.nagg++;
	}
	if (cq->dead || !bsim_cq_room(cq, 2 + pl.nagg)) {
		/* let the CQ code declare the overflow; the frame is lost */
		memset(recs, 0, 32);
		bsim_cq_post(m, cq, recs, 2 + pl.nagg);
		return;
	}
	/* the data: headers (or all) into the RX buffer, the rest into AGG */
	if (zn_vfu_dma_write(m->dev, pl.rbd.addr + (pl.rbd.flags_type & BNXT_RX_BD_FLAGS_SOP_PAD ?
						    SOP_PAD : 0), f, pl.first))
		buf_err = BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT;
	off = pl.first;
	for (unsigned i = 0; i < pl.nagg && !buf_err; i++) {
		if (zn_vfu_dma_write(m->dev, pl.abd[i].addr, f + off, pl.alen[i]))
			buf_err = BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT;
		off += pl.alen[i];
	}
	if (buf_err) {
		/* a buffer outside mapped memory: what the device can say */
		BSIM_INC(m, rx_dma_errors);
		rx_error(m, rx, cq, &pl, pl.nagg, buf_err);
		return;
	}

	memset(recs, 0, 32 + 16 * pl.nagg);
	bsim_csum_check(f, p, &ip_ok, &l4_ok, &ip_calc, &l4_calc);
	c->lo.flags_type = (uint16_t)(BNXT_CMPL_TYPE_RX_L2 | pl.placement | itype(p) |
				      (rss_valid ? BNXT_RX_CMPL_FLAGS_RSS_VALID : 0) |
				      (meta ? BNXT_RX_CMPL_FLAGS_PKT_METADATA_PRESENT : 0));
	c->lo.len = (uint16_t)pl.first;
	c->lo.opaque = pl.rbd.opaque;
	c->lo.agg_bufs_v1 = (uint8_t)(pl.nagg << BNXT_RX_CMPL_AGG_BUFS_SFT);
	c->lo.rss_hash_type = rss_valid ? bnxt_rx_rss_hash_type(rss_op, 0) : 0;
	if (p->l4)
		c->lo.payload_offset = (uint8_t)p->hdr_len;	/* 256 reads as 0 */
	c->lo.rss_hash = rss_valid ? hash : 0;
	c->hi.flags2 = (ip_calc ? BNXT_RX_CMPL_FLAGS2_IP_CS_CALC : 0) |
		       (l4_calc ? BNXT_RX_CMPL_FLAGS2_L4_CS_CALC : 0) |
		       (p->ipv == 6 ? BNXT_RX_CMPL_FLAGS2_IP_TYPE_IPV6 : 0) |
		       (meta ? BNXT_RX_CMPL_FLAGS2_META_FORMAT_VLAN : 0);
	c->hi.metadata = meta;
	c->hi.errors_v2 = (uint16_t)((ip_ok ? 0 : BNXT_RX_CMPL_ERRORS_IP_CS_ERROR) |
				     (l4_ok ? 0 : BNXT_RX_CMPL_ERRORS_L4_CS_ERROR));
	for (unsigned i = 0; i < pl.nagg; i++) {
		struct bnxt_rx_agg_cmpl *a = (void *)(recs + 32 + 16 * i);

		a->type = BNXT_CMPL_TYPE_RX_AGG;
		a->len = pl.alen[i];
		a->opaque = pl.abd[i].opaque;
	}
	if (!bsim_cq_post(m, cq, recs, 2 + pl.nagg))
		return;
	rx->cons++;
	if (pl.nagg)
		agg->cons += pl.nagg;
	if (!ip_ok || !l4_ok)
		BSIM_INC(m, rx_csum_errors);
	if (pl.placement == BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS)
		BSIM_INC(m, rx_hds);
	else if (pl.placement == BNXT_RX_CMPL_FLAGS_PLACEMENT_JUMBO)
		BSIM_INC(m, rx_jumbo);
	BSIM_INC(m, rx_frames);
	BSIM_ADD(m, rx_bytes, len);
	bsim_stat_rx(rx->stat, f, len);
}

void bsim_rx(void *opaque, const void *frame, size_t len)
{
	struct bsim *m = opaque;
	const uint8_t *f = frame;
	struct bsim_l2f *hit;
	struct bsim_vnic *v;
	struct bsim_ring *rx = NULL, *cq = NULL;
	struct bsim_pkt p;
	uint8_t in[36];
	uint32_t hash = 0, meta = 0;
	unsigned op = 0;
	size_t n;
	bool rss_valid = false;

	m->rx_seen++;
	if (m->drop_every && m->rx_seen % m->drop_every == 0) {
		BSIM_INC(m, fault_drops);
		return;
	}
	if (!m->link_up) {
		BSIM_INC(m, rx_link_down);
		return;
	}
	if (len < 14 || !zn_vfu_bus_master(m->dev)) {
		BSIM_INC(m, rx_no_ring);
		return;
	}
	bsim_pkt_parse(f, len, &p);
	v = l2_classify(m, f, &hit);
	for (unsigned i = 0; i < m->n_nt; i++) {
		const struct bsim_ntuple *t = &m->nt[i];

		if (!nt_match(t, f, &p, hit, v != NULL))
			continue;
		if (t->flags & BNXT_NTUPLE_FLAGS_DROP) {
			BSIM_INC(m, rx_ntuple_drops);
			return;
		}
		BSIM_INC(m, rx_ntuple_hits);
		v = t->vnic;
		break;
	}
	if (!v) {
		BSIM_INC(m, rx_l2_drops);
		return;
	}
	if (v->stopped) {
		BSIM_INC(m, rx_no_ring);
		return;
	}
	if (v->mru && len > v->mru) {
		BSIM_INC(m, rx_oversize);
		return;
	}
	if (p.vlan && (v->flags & BNXT_VNIC_CFG_FLAGS_VLAN_STRIP_MODE)) {
		/* the tag goes to the completion's metadata: TPID 31:16, TCI 15:0 */
		meta = (uint32_t)(f[12] << 8 | f[13]) << 16 | (uint32_t)(f[14] << 8 | f[15]);
		memcpy(m->rxframe, f, 12);
		memcpy(m->rxframe + 12, f + 16, len - 16);
		len -= 4;
		f = m->rxframe;
		bsim_pkt_parse(f, len, &p);
		BSIM_INC(m, rx_vlan_strips);
	}
	if (v->n_entries && (n = rss_input(v->hash_type, &p, in, &op))) {
		const struct bsim_rss_entry *e;

		hash = bsim_toeplitz(v->key, in, n);
		e = &v->table[hash % v->n_entries];
		rx = e->rx;
		cq = e->cq;
		rss_valid = true;
		BSIM_INC(m, rx_rss);
	} else if (v->dflt_rx && v->dflt_cq) {
		rx = v->dflt_rx;
		cq = v->dflt_cq;
	} else if (v->n_entries) {
		rx = v->table[0].rx;
		cq = v->table[0].cq;
	}
	if (!rx || !cq || rx->kind != BK_RX || rx->dead || cq->dead ||
	    (rx->agg && rx->agg->dead)) {
		BSIM_INC(m, rx_no_ring);
		return;
	}
	if (v->tpa_flags && !meta && p.proto == PROTO_TCP && p.l4) {
		bool ip_ok, l4_ok, ip_calc, l4_calc;

		bsim_csum_check(f, &p, &ip_ok, &l4_ok, &ip_calc, &l4_calc);
		if (ip_ok && l4_ok && l4_calc &&
		    bsim_tpa_rx(m, v, rx, cq, f, &p, hash,
				rss_valid ? bnxt_rx_rss_hash_type(op, 0) : 0, rss_valid))
			return;
		if (!ip_ok || !l4_ok)
			bsim_tpa_flow_end(m, rx, f, &p);
	}
	deliver(m, v, rx, cq, f, len, &p, hash, op, rss_valid, meta);
}
