/* SPDX-License-Identifier: MIT */
/*
 * TPA of the bnxt model (hw-docs/bnxt.md 9.4): TCP frames of one flow that
 * arrive in sequence on an RX ring of a VNIC with TPA in GRO mode become one
 * aggregation: a TPA_START record naming the RX buffer that holds the first
 * frame's headers, RX_TPA_AGG records as AGG buffers fill with the frames'
 * payloads (one frame's payload never straddles two buffers unless it
 * starts a buffer: GRO_HDS placement), and a TPA_END record with the
 * segment count. Whether a frame may join is sim/offload.c's GRO rule; an
 * aggregation also ends at max_agg_segs, at BSIM_TPA_MAX_AGG_BUFS buffers,
 * at 64 KiB, and when its flow sent nothing between two model polls (the
 * end of a burst).
 */
#include <string.h>

#include "sim/bnxt/priv.h"

#define TCPOPT_EOL	0
#define TCPOPT_NOP	1
#define TCPOPT_TS	8
#define IP_MAX_LEN	65535u

static struct bsim_tpa *slots_of(struct bsim *m, const struct bsim_ring *rx)
{
	return m->tpa[rx - m->ring];
}

static unsigned agg_id(struct bsim *m, const struct bsim_tpa *t)
{
	return (unsigned)(t - slots_of(m, t->rx));
}

/* Does the first frame carry a TCP timestamp option (TPA_END GRO_TS)? */
static bool has_ts(const struct zn_sim_gro *g)
{
	const uint8_t *o = g->hdr + g->h.l4 + 20, *end = g->hdr + g->h.hdr_len;

	while (o < end && *o != TCPOPT_EOL) {
		if (*o == TCPOPT_NOP) {
			o++;
			continue;
		}
		if (o + 1 >= end || o[1] < 2)
			break;
		if (*o == TCPOPT_TS)
			return true;
		o += o[1];
	}
	return false;
}

/* The AGG buffer in hand is full or done: its RX_TPA_AGG record. */
static void close_abd(struct bsim *m, struct bsim_tpa *t)
{
	struct bnxt_rx_agg_cmpl a = {
		.type = BNXT_CMPL_TYPE_RX_TPA_AGG,
		.len = (uint16_t)t->fill,
		.opaque = t->abd.opaque,
		.v = (uint32_t)agg_id(m, t) << BNXT_RX_TPA_AGG_ID_SFT_P5,
	};

	if (!t->have_abd)
		return;
	t->have_abd = false;
	if (bsim_cq_post(m, t->cq, &a, 1))
		t->nagg++;
}

static void end(struct bsim *m, struct bsim_tpa *t, uint16_t errors)
{
	uint8_t recs[32];
	struct bnxt_rx_tpa_end_cmpl *e = (void *)recs;
	struct bnxt_rx_tpa_end_cmpl_hi *h = (void *)(recs + 16);
	struct bsim_stat *st = t->rx->stat;

	close_abd(m, t);
	memset(recs, 0, sizeof(recs));
	e->flags_type = (uint16_t)(BNXT_CMPL_TYPE_RX_TPA_END | t->flags_type);
	e->opaque = t->start_opaque;
	e->misc_v1 = (uint32_t)(t->g.segs & 0xff) << BNXT_RX_TPA_END_SEGS_SFT |
		     (uint32_t)agg_id(m, t) << BNXT_RX_TPA_AGG_ID_SFT_P5;
	e->tsdelta = has_ts(&t->g) ? BNXT_RX_TPA_END_GRO_TS : 0;
	h->dup_acks = (uint32_t)(t->g.h.hdr_len & 0xff) << BNXT_RX_TPA_END_PAYLOAD_OFF_SFT_P5 |
		      (uint32_t)t->nagg << BNXT_RX_TPA_END_AGG_BUFS_SFT_P5;
	h->seg_len = t->g.mss;
	h->errors_v2 = errors;
	h->start_opaque = t->start_opaque;
	bsim_cq_post(m, t->cq, recs, 2);
	t->open = false;
	m->tpa_open--;
	BSIM_INC(m, rx_tpa_ends);
	if (errors) {
		BSIM_INC(m, rx_tpa_aborts);
		if (st)
			st->hw.tpa_aborts++;
	} else if (st) {
		st->hw.tpa_events++;
		st->hw.tpa_pkts += t->g.segs;
		st->hw.tpa_bytes += t->g.bytes;
	}
}

/* AGG BDs the payload of n bytes takes beyond the buffer in hand, if every
 * BD holds the AGG ring's rx_buf_size (RING_ALLOC) bytes. */
static unsigned bds_needed(const struct bsim_tpa *t, const struct bsim_ring *agg, size_t n)
{
	uint32_t cap = agg->buf_size;

	if (t->have_abd && (t->fill + n <= t->abd.len))
		return 0;
	return (unsigned)((n + cap - 1) / cap);
}

/* n payload bytes into AGG buffers (GRO placement): 0, or an error code
 * for TPA_END. */
static uint16_t place(struct bsim *m, struct bsim_tpa *t, const uint8_t *d, size_t n)
{
	struct bsim_ring *agg = t->rx->agg;

	if (t->have_abd && t->fill && t->fill + n > t->abd.len)
		close_abd(m, t);
	while (n) {
		size_t k;

		if (!t->have_abd) {
			if (agg->prod == agg->cons)
				return BNXT_RX_TPA_ERRORS_BUFFER_ERROR_FLUSH;
			if (!bsim_ring_copy(m, agg, agg->cons, &t->abd, 1, false))
				return BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT;
			agg->cons++;
			t->have_abd = true;
			t->fill = 0;
			if (!bsim_rx_bd_ok(&t->abd, BNXT_RX_BD_TYPE_AGG)) {
				BSIM_INC(m, rx_bad_bd);
				return BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT;
			}
		}
		k = n < t->abd.len - t->fill ? n : t->abd.len - t->fill;
		if (zn_vfu_dma_write(m->dev, t->abd.addr + t->fill, d, k)) {
			BSIM_INC(m, rx_dma_errors);
			return BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT;
		}
		t->fill += (uint32_t)k;
		d += k;
		n -= k;
		if (t->fill == t->abd.len)
			close_abd(m, t);
	}
	return 0;
}

static void count_frame(struct bsim *m, struct bsim_tpa *t, const uint8_t *f,
			const struct bsim_pkt *p)
{
	t->last_rx = m->rx_seen;
	BSIM_INC(m, rx_tpa_frames);
	BSIM_INC(m, rx_frames);
	BSIM_ADD(m, rx_bytes, p->ip_end);
	bsim_stat_rx(t->rx->stat, f, p->ip_end);
}

/* Opens an aggregation with frame f: false if it cannot (no free context,
 * no buffers), nothing consumed then. */
static bool start(struct bsim *m, struct bsim_vnic *v, struct bsim_ring *rx, struct bsim_ring *cq,
		  const uint8_t *f, const struct bsim_pkt *p, const struct zn_sim_tcp_hdrs *h,
		  uint32_t hash, uint8_t rss_type, bool rss_valid)
{
	struct bsim_tpa *t = NULL, *all = slots_of(m, rx);
	size_t pay = p->ip_end - h->hdr_len;
	uint8_t recs[32];
	struct bnxt_rx_tpa_start_cmpl *s = (void *)recs;
	struct bnxt_rx_tpa_start_cmpl_hi *x = (void *)(recs + 16);
	struct bnxt_rx_bd rbd;
	uint16_t err;

	for (unsigned i = 0; i < v->tpa_max_aggs && i < BSIM_TPA_PER_RING && !t; i++)
		if (!all[i].open)
			t = &all[i];
	if (!t) {
		BSIM_INC(m, rx_tpa_no_ctx);
		return false;
	}
	memset(t, 0, sizeof(*t));
	t->rx = rx;
	if (rx->prod == rx->cons || rx->agg->prod - rx->agg->cons < bds_needed(t, rx->agg, pay) ||
	    !bsim_ring_copy(m, rx, rx->cons, &rbd, 1, false) ||
	    !bsim_rx_bd_ok(&rbd, BNXT_RX_BD_TYPE_PKT) || bsim_rx_room(&rbd) < h->hdr_len)
		return false;	/* normal delivery drops or reports it */
	if (zn_vfu_dma_write(m->dev, rbd.addr + (rbd.flags_type & BNXT_RX_BD_FLAGS_SOP_PAD ? 2 : 0),
			     f, h->hdr_len))
		return false;
	rx->cons++;
	zn_sim_gro_start(&t->g, f, h, pay);
	t->open = true;
	m->tpa_open++;
	t->cq = cq;
	t->start_opaque = rbd.opaque;
	t->max_segs = v->tpa_max_segs;
	t->flags_type = (uint16_t)(BNXT_RX_CMPL_FLAGS_PLACEMENT_GRO_HDS |
				   BNXT_RX_CMPL_FLAGS_ITYPE_TCP |
				   (rss_valid ? BNXT_RX_CMPL_FLAGS_RSS_VALID : 0));
	memset(recs, 0, sizeof(recs));
	s->flags_type = (uint16_t)(BNXT_CMPL_TYPE_RX_TPA_START | t->flags_type);
	s->len = (uint16_t)h->hdr_len;
	s->opaque = rbd.opaque;
	s->misc_v1 = (uint32_t)rss_type << 8 | (uint32_t)agg_id(m, t) << BNXT_RX_TPA_AGG_ID_SFT_P5;
	s->rss_hash = rss_valid ? hash : 0;
	x->flags2 = BNXT_RX_CMPL_FLAGS2_L4_CS_CALC |
		    (h->ipv == 4 ? BNXT_RX_CMPL_FLAGS2_IP_CS_CALC : BNXT_RX_CMPL_FLAGS2_IP_TYPE_IPV6);
	/* no tunnel: the outer and the inner L3 header are the one IP header */
	x->hdr_info = (uint32_t)h->l3 | (uint32_t)h->l3 << BNXT_RX_TPA_HDR_INFO_INNER_L3_SFT;
	bsim_cq_post(m, cq, recs, 2);
	BSIM_INC(m, rx_tpa_starts);
	count_frame(m, t, f, p);
	err = place(m, t, f + h->hdr_len, pay);
	if (err)
		end(m, t, err);
	return true;
}

bool bsim_tpa_rx(struct bsim *m, struct bsim_vnic *v, struct bsim_ring *rx, struct bsim_ring *cq,
		 const uint8_t *f, const struct bsim_pkt *p, uint32_t hash, uint8_t rss_type,
		 bool rss_valid)
{
	struct bsim_tpa *all = slots_of(m, rx), *t = NULL;
	struct zn_sim_tcp_hdrs h;
	size_t pay;
	uint32_t max_bytes;
	uint16_t err;

	bool hds = (p->ipv == 4 && (v->plc_flags & BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4)) ||
		   (p->ipv == 6 && (v->plc_flags & BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6));

	if (!hds || !rx->agg || zn_sim_tcp_hdrs(f, p->ip_end, &h))
		return false;
	pay = p->ip_end - h.hdr_len;
	for (unsigned i = 0; i < BSIM_TPA_PER_RING && !t; i++)
		if (all[i].open && zn_sim_gro_same_flow(&all[i].g, f, &h))
			t = &all[i];
	if (t) {
		enum zn_sim_gro_verdict vd;

		/* the IP packet of the aggregate stays within IP's length
		 * field, and its buffers within BSIM_TPA_MAX_AGG_BUFS */
		max_bytes = IP_MAX_LEN - (h.hdr_len - h.l3);
		if (rx->agg->prod - rx->agg->cons < bds_needed(t, rx->agg, pay)) {
			BSIM_INC(m, rx_tpa_flush_nobuf);
			end(m, t, 0);
			return false;
		}
		if (t->nagg + (t->have_abd ? 1 : 0) + bds_needed(t, rx->agg, pay) >
		    BSIM_TPA_MAX_AGG_BUFS)
			max_bytes = 0;
		vd = zn_sim_gro_offer(&t->g, f, &h, pay, t->max_segs, max_bytes);
		if (vd == ZN_SIM_GRO_MERGE || vd == ZN_SIM_GRO_MERGE_LAST) {
			count_frame(m, t, f, p);
			err = place(m, t, f + h.hdr_len, pay);
			if (err || vd == ZN_SIM_GRO_MERGE_LAST) {
				if (!err)
					BSIM_INC(m, rx_tpa_flush_psh);
				end(m, t, err);
			}
			return true;
		}
		if (t->g.segs >= t->max_segs || t->g.bytes + pay > max_bytes)
			BSIM_INC(m, rx_tpa_flush_max);
		else
			BSIM_INC(m, rx_tpa_flush_other);
		end(m, t, 0);
	}
	if (pay < v->tpa_min_len || !zn_sim_gro_can_start(f, &h, pay))
		return false;
	return start(m, v, rx, cq, f, p, &h, hash, rss_type, rss_valid);
}

void bsim_tpa_flow_end(struct bsim *m, struct bsim_ring *rx, const uint8_t *f,
		       const struct bsim_pkt *p)
{
	struct bsim_tpa *all = slots_of(m, rx);
	struct zn_sim_tcp_hdrs h;

	if (!rx->agg || zn_sim_tcp_hdrs(f, p->ip_end, &h))
		return;
	for (unsigned i = 0; i < BSIM_TPA_PER_RING; i++)
		if (all[i].open && zn_sim_gro_same_flow(&all[i].g, f, &h)) {
			BSIM_INC(m, rx_tpa_flush_other);
			end(m, &all[i], 0);
		}
}

int bsim_tpa_poll(struct bsim *m)
{
	int work = 0;

	for (unsigned r = 0; r < BSIM_MAX_RINGS && m->tpa_open; r++) {
		for (unsigned i = 0; i < BSIM_TPA_PER_RING; i++) {
			struct bsim_tpa *t = &m->tpa[r][i];

			if (!t->open || t->last_rx > m->tpa_mark)
				continue;
			BSIM_INC(m, rx_tpa_flush_idle);
			end(m, t, 0);
			work++;
		}
	}
	m->tpa_mark = m->rx_seen;
	return work;
}

void bsim_tpa_forget(struct bsim *m, struct bsim_ring *r)
{
	if (!m->tpa_open)
		return;
	for (unsigned i = 0; i < BSIM_MAX_RINGS * BSIM_TPA_PER_RING; i++) {
		struct bsim_tpa *t = &m->tpa[i / BSIM_TPA_PER_RING][i % BSIM_TPA_PER_RING];

		if (t->open && (t->rx == r || t->cq == r || t->rx->agg == r || !t->rx->agg)) {
			t->open = false;
			m->tpa_open--;
		}
	}
}
