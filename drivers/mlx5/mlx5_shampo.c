/* SPDX-License-Identifier: MIT */
/*
 * HW-GRO on a SHAMPO striding RQ (hw-docs/mlx5.md §12.6), the way Linux's
 * mlx5e reads it ([L-EN] en_rx.c mlx5e_handle_rx_cqe_mpwrq_shampo,
 * mlx5e_shampo_flush_skb, mlx5e_shampo_update_hdr): every packet has its
 * own CQE and header entry; a CQE with `match` continues the session of
 * the CQE before it, its payload right after the previous one in the same
 * WQE buffer; `flush` (or a CQE without `match`) ends it. A session becomes
 * one zn_rx_pkt with ZN_RX_F_AGG: the first packet's headers with the IP
 * length (and IPv4 checksum) of the whole, one payload segment, agg_segs
 * packets of gso_size bytes (the first packet's payload).
 *
 * Ownership. A WQE is one provider buffer and now holds several packets
 * (up to agg_pkts), so two things differ from one packet per WQE:
 *  - the device keeps writing into a WQE's buffer until its strides are
 *    all used. A buffer handed to the caller before that could come back
 *    to the provider and be reposted (or copied into) while the device
 *    still writes the old WQE's later packets into it. So a unit (a session,
 *    or a packet alone) is handed out by reference only once its WQE is
 *    finished; until then it waits in `ready` (one slot).
 *  - a buffer has one owner, so of the units of one WQE only one can have
 *    it. The others go out by copy: into their header entry when they fit,
 *    else into a fresh buffer from the provider (counted in agg_copies).
 *    Units keep the device's order, so a unit held when the next one of
 *    its WQE closes goes out then, by copy. A bulk flow fills a WQE with one
 *    session (the device ends a session at the end of its reservation), so
 *    its data stays where the device put it.
 * A queue that goes quiet would hold its last units until more traffic
 * finishes their WQE: after MLX5_AGG_IDLE_POLLS empty bursts they go out by
 * copy (the session that is still open too, as Linux ends its session at
 * the end of a NAPI poll; a later `match` CQE then starts a unit of its
 * own, with its own header entry).
 *
 * Header entries stay valid until the WQE that holds their packet is
 * reposted, at the start of the burst after the one that finished it: the
 * units a burst returns are read before then.
 */
#include <string.h>

#include "drivers/common/rx_agg.h"
#include "drivers/mlx5/mlx5.h"

uint32_t zn_mlx5_agg_pkts(uint32_t buf, uint32_t mtu, uint32_t want)
{
	/* Linux (en/params.c mlx5e_shampo_get_log_pkt_per_rsrv): enough for a
	 * reservation of MTU-sized packets, rounded up to a power of two */
	uint32_t need = (buf + mtu - 1) / mtu, pkts = 1;

	while (pkts < need && pkts < MLX5_AGG_SEGS_MAX)
		pkts <<= 1;
	while (want && pkts > want)
		pkts >>= 1;
	return pkts;
}

static uint8_t *unit_hdr(const struct mlx5_rxq *rxq, const struct mlx5_rx_unit *u)
{
	return rxq->hdr + ((size_t)u->hdr_idx << rxq->log_hdr_entry);
}

/* The zn_rx_pkt of a unit whose payload is (or is not yet) placed. */
static void unit_pkt(struct mlx5_rxq *rxq, const struct mlx5_rx_unit *u, struct zn_rx_pkt *p)
{
	uint8_t *h = unit_hdr(rxq, u);

	p->hdr = h;
	p->hdr_len = (uint16_t)u->hdr_len;
	p->queue = rxq->qid;
	p->rss_hash = u->rss;
	p->flags = u->flags;
	p->pkt_len = u->hdr_len + u->len;
	p->nseg = 0;
	if (u->segs > 1) {
		zn_rx_agg_fix_hdr(h, u->hdr_len, u->hdr_len + u->len);
		p->flags |= ZN_RX_F_AGG;
		p->agg_segs = (uint16_t)u->segs;
		p->gso_size = (uint16_t)u->gso;
		rxq->st.agg++;
	}
}

/* By reference: the unit's part of its (finished) WQE's buffer. */
static uint32_t emit_ref(struct mlx5_rxq *rxq, const struct mlx5_rx_unit *u, struct zn_rx_pkt *p)
{
	struct mlx5_rx_wqe *s = &rxq->sw[u->wqe & rxq->c.wq_mask];

	unit_pkt(rxq, u, p);
	if (u->len) {
		s->handed = true;
		zn_mlx5_rx_seg_fill(p, s->va, s->buf_id, u->off, u->len);
		if (u->hdr_len)
			p->flags |= ZN_RX_F_SPLIT;
	}
	return 1;
}

/* By copy: after its headers in the header entry, or into a fresh buffer. */
static uint32_t emit_copy(struct mlx5_rxq *rxq, const struct mlx5_rx_unit *u, struct zn_rx_pkt *p)
{
	const uint8_t *src = rxq->sw[u->wqe & rxq->c.wq_mask].va + u->off;
	struct zn_buf b;

	if (u->len && u->hdr_len + u->len <= rxq->c.hdr_entry) {
		unit_pkt(rxq, u, p);
		memcpy(unit_hdr(rxq, u) + u->hdr_len, src, u->len);
		p->hdr_len = (uint16_t)(u->hdr_len + u->len);
		return 1;
	}
	if (!u->len)
		return emit_ref(rxq, u, p);
	if (rxq->alloc(rxq->prov_ctx, &b, 1) != 1) {
		rxq->st.nobuf++;	/* dropped, as the device drops without a buffer */
		return 0;
	}
	unit_pkt(rxq, u, p);
	memcpy(b.va, src, u->len);
	zn_mlx5_rx_seg_fill(p, b.va, b.id, 0, u->len);
	if (u->hdr_len)
		p->flags |= ZN_RX_F_SPLIT;
	rxq->st.agg_copies++;
	return 1;
}

/*
 * A closed unit of the WQE still being filled: held for the buffer, unless
 * it has no payload worth keeping there. Units go out in the order the
 * device completed them (a flow's segments must not be reordered), so one
 * held before it goes out first, by copy (both cannot have the buffer).
 */
static uint32_t unit_close(struct mlx5_rxq *rxq, struct mlx5_rx_unit *u, struct zn_rx_pkt *out)
{
	struct mlx5_rx_unit *r = &rxq->ready;
	uint32_t k = 0;

	u->live = false;
	if (r->live) {
		r->live = false;
		k += emit_copy(rxq, r, out + k);
	}
	if (!u->len || u->hdr_len + u->len <= rxq->c.hdr_entry)
		return k + emit_copy(rxq, u, out + k);
	*r = *u;
	r->live = true;
	return k;
}

/* WQE `done` is finished: its units go out in order, the larger with the
 * buffer (the held one completed before the open one). */
static uint32_t wqe_finish(struct mlx5_rxq *rxq, struct mlx5_rx_pos *pos, struct zn_rx_pkt *out)
{
	struct mlx5_rx_unit *r = &rxq->ready, *o = &rxq->open;
	bool o_ref = o->live && (!r->live || o->len > r->len);
	uint32_t k = 0;

	if (r->live)
		k += o_ref ? emit_copy(rxq, r, out + k) : emit_ref(rxq, r, out + k);
	if (o->live)
		k += o_ref ? emit_ref(rxq, o, out + k) : emit_copy(rxq, o, out + k);
	r->live = o->live = false;
	rxq->nfill += rxq->sw[pos->done & rxq->c.wq_mask].handed;
	pos->done++;
	pos->strides_used = 0;
	pos->cont_off = 0;
	return k;
}

uint32_t zn_mlx5_agg_cqe(struct mlx5_rxq *rxq, struct mlx5_rx_pos *pos, enum mlx5_rx_kind k,
			 const struct mlx5_rx_cqe_info *ci, struct zn_rx_pkt *out)
{
	struct mlx5_rx_unit *o = &rxq->open;
	uint32_t got = 0;

	if (k == MLX5_RX_PKT) {
		if (o->live && !ci->match)
			got += unit_close(rxq, o, out + got);
		if (o->live) {
			/* the parse checked it is the next byte of this WQE */
			o->len += ci->data_len;
			o->segs++;
			/* checksums good only if good in every packet */
			o->flags &= ci->flags | ~(uint32_t)(ZN_RX_F_L3_CSUM_OK | ZN_RX_F_L4_CSUM_OK);
			o->flags |= ci->flags & (ZN_RX_F_L3_CSUM_BAD | ZN_RX_F_L4_CSUM_BAD);
		} else {
			*o = (struct mlx5_rx_unit){
				.wqe = pos->done, .hdr_idx = ci->hdr_idx, .hdr_len = ci->hdr_len,
				.off = ci->data_off, .len = ci->data_len, .gso = ci->data_len,
				.segs = 1, .flags = ci->flags, .rss = ci->rss_hash, .live = true,
			};
		}
		pos->cont_off = ci->flush || !ci->hdr_len || !ci->data_len ? 0 :
				ci->data_off + ci->data_len;
		if (ci->flush || !pos->cont_off)
			got += unit_close(rxq, o, out + got);
	} else {
		pos->cont_off = 0;
	}
	pos->strides_used += ci->strides;
	if (pos->strides_used == rxq->c.strides)
		got += wqe_finish(rxq, pos, out + got);
	return got;
}

uint32_t zn_mlx5_agg_idle(struct mlx5_rxq *rxq, struct zn_rx_pkt *out, uint32_t n)
{
	uint32_t k = 0;

	if (rxq->ready.live && k < n) {
		rxq->ready.live = false;
		k += emit_copy(rxq, &rxq->ready, out + k);
	}
	if (rxq->open.live && k < n) {
		rxq->open.live = false;
		k += emit_copy(rxq, &rxq->open, out + k);
	}
	return k;
}

void zn_mlx5_agg_release(struct mlx5_rxq *rxq)
{
	rxq->open.live = rxq->ready.live = false;
	rxq->idle_polls = 0;
}
