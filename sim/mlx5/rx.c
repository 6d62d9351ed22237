/* SPDX-License-Identifier: MIT */
/*
 * Receive side of the mlx5 model (hw-docs/mlx5.md 11, 12): the vport
 * filter, the NIC RX flow table, the TIR (direct, or Toeplitz over an RQT),
 * then placement into the RQ: a striding RQ with SHAMPO header-data split
 * (headers into the header ring, payload into strides), a plain striding
 * RQ, or a cyclic RQ of scatter lists; a CQE per packet.
 */
#include <string.h>

#include "sim/mlx5/priv.h"

struct rx_ctx {
	const uint8_t *f;
	size_t len;
	struct msim_pkt p;
	uint32_t hash;
	uint8_t hash_type;
	uint32_t flow_tag;
};

static bool vport_accepts(const struct msim *m, const uint8_t *f)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (ZN_MLX5_GET(m->vport_ctx, NIC_VPORT_PROMISC_ALL))
		return true;
	if (!memcmp(f, m->mac, 6) || !memcmp(f, bcast, 6))
		return true;
	if (f[0] & 1)
		return ZN_MLX5_GET(m->vport_ctx, NIC_VPORT_PROMISC_MC);
	return ZN_MLX5_GET(m->vport_ctx, NIC_VPORT_PROMISC_UC);
}

static bool fte_matches(const struct msim_fg *g, const struct msim_fte *e, const uint8_t *img)
{
	for (unsigned i = 0; i < sizeof(g->mask); i++)
		if ((img[i] ^ e->value[i]) & g->mask[i])
			return false;
	return true;
}

/* The TIR the flow tables send the packet to, or NULL (dropped, counted). */
static struct msim_tir *classify(struct msim *m, struct rx_ctx *x)
{
	uint8_t img[ZN_MLX5_SZ_MATCH_LYR_2_4];
	uint32_t table = m->root_ft;

	if (!table) {
		MSIM_INC(m, rx_no_root);
		return NULL;
	}
	msim_pkt_match_image(x->f, &x->p, img);
	for (unsigned hops = 0; hops < MSIM_MAX_FT; hops++) {
		const struct msim_fte *best = NULL;

		/* The lowest matching flow_index wins. */
		for (unsigned i = 0; i < MSIM_MAX_FTE; i++) {
			const struct msim_fte *e = &m->fte[i];

			if (e->used && e->table == table && (!best || e->index < best->index) &&
			    fte_matches(&m->fg[e->group], e, img))
				best = e;
		}
		if (best) {
			if (best->action & ZN_MLX5_FLOW_ACTION_DROP) {
				MSIM_INC(m, rx_flow_drops);
				return NULL;
			}
			x->flow_tag = best->flow_tag;
			return msim_tir_get(m, best->tirn);
		}
		if (m->ft[table].miss_action != ZN_MLX5_FT_MISS_ACTION_FWD)
			break;
		table = m->ft[table].miss_id;
		if (!table || !m->ft[table].used)
			break;
	}
	MSIM_INC(m, rx_flow_misses);
	return NULL;
}

/* Toeplitz over the selected fields the packet has (hw-docs/mlx5.md 11). */
static void rss(const struct msim_tir *t, struct rx_ctx *x)
{
	uint8_t in[36];
	size_t n = 0, alen = x->p.ipv == 4 ? 4 : 16;
	const uint8_t *ip = x->f + x->p.l3;
	uint8_t t_ip = 0, t_l4 = 0, sel[4];
	uint32_t f;

	zn_mlx5_st_be32(sel, t->sel);
	f = (uint32_t)ZN_MLX5_GET(sel, HASH_SEL_SELECTED_FIELDS);
	if (t->hash_fn != ZN_MLX5_RX_HASH_FN_TOEPLITZ || !x->p.ipv)
		return;
	if (f & ZN_MLX5_HASH_SEL_SRC_IP) {
		memcpy(in + n, ip + (x->p.ipv == 4 ? 12 : 8), alen);
		n += alen;
	}
	if (f & ZN_MLX5_HASH_SEL_DST_IP) {
		memcpy(in + n, ip + (x->p.ipv == 4 ? 16 : 24), alen);
		n += alen;
	}
	if (n)
		t_ip = x->p.ipv == 4 ? ZN_MLX5_CQE_RSS_IPV4 : ZN_MLX5_CQE_RSS_IPV6;
	if (x->p.l4 && (f & (ZN_MLX5_HASH_SEL_L4_SPORT | ZN_MLX5_HASH_SEL_L4_DPORT))) {
		if (f & ZN_MLX5_HASH_SEL_L4_SPORT) {
			memcpy(in + n, x->f + x->p.l4, 2);
			n += 2;
		}
		if (f & ZN_MLX5_HASH_SEL_L4_DPORT) {
			memcpy(in + n, x->f + x->p.l4 + 2, 2);
			n += 2;
		}
		t_l4 = x->p.proto == 6 ? ZN_MLX5_CQE_RSS_L4_TCP : ZN_MLX5_CQE_RSS_L4_UDP;
	}
	if (!n)
		return;
	x->hash = msim_toeplitz(t->key, in, n);
	x->hash_type = (uint8_t)(t_ip << ZN_MLX5_CQE_RSS_IP_SHIFT | t_l4 << ZN_MLX5_CQE_RSS_L4_SHIFT);
}

static struct msim_wq *pick_rq(struct msim *m, struct msim_tir *t, struct rx_ctx *x)
{
	struct msim_rqt *r;

	rss(t, x);
	if (t->disp == ZN_MLX5_TIRC_DISP_DIRECT)
		return msim_rq_get(m, t->rqn);
	r = msim_rqt_get(m, t->rqtn);
	if (!r)
		return NULL;
	MSIM_INC(m, rx_rss);
	return msim_rq_get(m, r->rqn[x->hash & (r->size - 1)]);
}

/* l4_hdr_type of a TCP segment: whether it acknowledges, and carries data
 * ([L-DEV] CQE_L4_HDR_TYPE_*, what Linux's LRO header rebuild reads). */
static uint8_t tcp_hdr_type(const struct rx_ctx *x)
{
	if (!(x->f[x->p.l4 + 13] & 0x10))
		return ZN_MLX5_CQE_L4_TCP_NO_ACK;
	return msim_ip_end(x->f, x->len, &x->p) > x->p.hdr_len ? ZN_MLX5_CQE_L4_TCP_ACK_AND_DATA
								 : ZN_MLX5_CQE_L4_TCP_ACK_NO_DATA;
}

/* The CQE fields every receive CQE carries. */
static void cqe_common(struct msim *m, const struct rx_ctx *x, struct zn_mlx5_cqe64 *e)
{
	bool l3_ok = false, l4_ok = false, l4_bad = false;
	uint8_t l4t = ZN_MLX5_CQE_L4_NONE, l3t = ZN_MLX5_CQE_L3_NONE;

	memset(e, 0, sizeof(*e));
	e->rss_hash_result_be = zn_mlx5_bswap32(x->hash);
	e->rss_hash_type = x->hash_type;
	if (x->p.ipv) {
		msim_csum_check(x->f, x->len, &x->p, &l3_ok, &l4_ok, &l4_bad);
		if (l3_ok && l4_ok)
			MSIM_INC(m, rx_csum_ok);
		if (!l3_ok || l4_bad)
			MSIM_INC(m, rx_csum_bad);
		l3t = x->p.ipv == 4 ? ZN_MLX5_CQE_L3_IPV4 : ZN_MLX5_CQE_L3_IPV6;
		e->check_sum_be = zn_mlx5_bswap16(msim_csum_l3(x->f, x->len, &x->p));
	}
	if (x->p.l4)
		l4t = x->p.proto == 6 ? tcp_hdr_type(x) : ZN_MLX5_CQE_L4_UDP;
	e->hds_ip_ext = (uint8_t)(ZN_MLX5_CQE_L2_OK | (l3_ok ? ZN_MLX5_CQE_L3_OK : 0) |
				  (l4_ok ? ZN_MLX5_CQE_L4_OK : 0));
	e->l4_l3_hdr_type = (uint8_t)(l4t << ZN_MLX5_CQE_L4_HDR_SHIFT |
				      l3t << ZN_MLX5_CQE_L3_HDR_SHIFT |
				      (x->p.vlan ? ZN_MLX5_CQE_VLAN_PRESENT : 0));
	e->sop_drop_qpn_be = zn_mlx5_bswap32(x->flow_tag & ZN_MLX5_CQE_FLOW_TAG_MASK);
	e->timestamp_be = zn_mlx5_bswap64(msim_timer_ns());
	e->op_own = ZN_MLX5_CQE_RESP_SEND << 4;
}

/* The next posted WQE of an RQ, by its doorbell record. */
static bool rq_wqe(struct msim *m, struct msim_wq *q, uint8_t *buf, size_t n)
{
	uint32_t pc_be;
	uint64_t a;

	if (zn_vfu_dma_read(m->dev, q->dbr, &pc_be, 4))
		return false;
	if ((uint16_t)zn_mlx5_bswap32(pc_be) == q->rcv)
		return false;
	a = msim_qmem_addr(&q->mem, (uint64_t)(q->rcv & ((1u << q->log_sz) - 1)) << q->log_stride);
	return a && !zn_vfu_dma_read(m->dev, a, buf, n);
}

static bool fetch_mpwqe(struct msim *m, struct msim_wq *q)
{
	struct zn_mlx5_mpwqe w;

	if (!rq_wqe(m, q, (uint8_t *)&w, sizeof(w)))
		return false;
	q->have_wqe = true;
	q->wqe_addr = zn_mlx5_bswap64(w.data.addr_be);
	q->wqe_lkey = zn_mlx5_bswap32(w.data.lkey_be);
	q->stride = 0;
	q->wqe_pkts = 0;
	return true;
}

static void wqe_done(struct msim_wq *q)
{
	q->have_wqe = false;
	q->rcv++;
}

/* A SHAMPO RQ's CQEs of one pass show up together (msim_cqe_hold): the
 * driver ends its open session when the queue looks quiet. */
static bool post(struct msim *m, struct msim_wq *q, struct zn_mlx5_cqe64 *e)
{
	struct msim_cq *cq = msim_cq_get(m, q->cqn);

	if (!cq)
		return false;
	return q->shampo ? msim_cqe_hold(m, cq, e) : msim_cqe_post(m, cq, e);
}

/* A frame completed: counted once the driver can see its CQE. */
static void count_rx(struct msim *m, struct msim_wq *q, size_t len)
{
	struct msim_cq *cq = msim_cq_get(m, q->cqn);

	if (cq && cq->held) {
		m->held_frames++;
		m->held_bytes += len;
		return;
	}
	MSIM_INC(m, rx_frames);
	MSIM_ADD(m, rx_bytes, len);
}

static void filler(struct msim *m, struct msim_wq *q)
{
	uint32_t n = (1u << q->log_nstrides) - q->stride;
	struct zn_mlx5_cqe64 e;

	memset(&e, 0, sizeof(e));
	e.byte_cnt_be = zn_mlx5_bswap32(ZN_MLX5_MPWRQ_FILLER_CQE | n << ZN_MLX5_MPWRQ_STRIDES_SHIFT);
	e.wqe_id_be = zn_mlx5_bswap16((uint16_t)(q->rcv & ((1u << q->log_sz) - 1)));
	e.wqe_counter_be = zn_mlx5_bswap16((uint16_t)q->stride);
	e.op_own = ZN_MLX5_CQE_RESP_SEND << 4;
	MSIM_INC(m, rx_fillers);
	post(m, q, &e);
	wqe_done(q);
}

/* The packet's headers into the next header ring entry (SHAMPO): the
 * entry index, or -1 on a DMA failure. */
static int put_header(struct msim *m, struct msim_wq *q, const struct rx_ctx *x, unsigned hsz)
{
	uint32_t h = q->hdr_ctr++ & ((1u << q->log_hdr_num) - 1);

	if (hsz) {
		uint32_t esz = 1u << q->log_hdr_entry;
		struct msim_simple *k = msim_simple_get(m->mkey, MSIM_MAX_OBJ, q->hdr_mkey >> 8);
		uint64_t ha = k ? msim_mkey_xlate(m, q->hdr_mkey, k->start + (uint64_t)h * esz, hsz) : 0;

		if (!ha || zn_vfu_dma_write(m->dev, ha, x->f, hsz)) {
			MSIM_INC(m, rx_dma_errors);
			return -1;
		}
		MSIM_INC(m, rx_hds);
	}
	return (int)h;
}

/*
 * SHAMPO HW-GRO (hw-docs/mlx5.md 12.6): may this packet continue the RQ's
 * open session? It must be the next TCP segment of the session's flow by
 * sim/offload.c's GRO rule, and its payload must fit the session's
 * reservation, the reservation's packet count and the WQE's header count.
 * Anything else ends the session (its CQE will say "no match").
 */
static enum zn_sim_gro_verdict sess_offer(struct msim_wq *q, const struct rx_ctx *x,
					  const struct zn_sim_tcp_hdrs *h, size_t pay)
{
	if (!q->sess_open || !q->have_wqe || q->wqe_pkts >= q->hd_per_wqe ||
	    !zn_sim_gro_same_flow(&q->sess, x->f, h) || q->sess_off + pay > q->sess_end)
		return ZN_SIM_GRO_FLUSH;
	return zn_sim_gro_offer(&q->sess, x->f, h, pay, q->pkts_per_res,
				65535u - (h->hdr_len - h->l3));
}

static bool rx_striding(struct msim *m, struct msim_wq *q, const struct rx_ctx *x)
{
	uint32_t nstr = 1u << q->log_nstrides, ssz = 1u << q->log_stride_sz;
	unsigned hsz = 0;
	size_t pay;
	uint32_t need, off;
	int h = 0;
	uint64_t a;
	struct zn_mlx5_cqe64 e;
	struct zn_sim_tcp_hdrs th;
	enum zn_sim_gro_verdict vd = ZN_SIM_GRO_FLUSH;
	bool tcp = false, match = false, flush = true;

	if (q->shampo && x->p.hdr_len && x->p.hdr_len <= (1u << q->log_hdr_entry))
		hsz = x->p.hdr_len;
	pay = x->len - hsz;
	if (q->shampo_merge && hsz && x->p.proto == 6) {
		bool l3_ok, l4_ok, l4_bad;

		/* only whole, checksummed segments without Ethernet padding
		 * merge: the session's payload is what the driver hands on */
		msim_csum_check(x->f, x->len, &x->p, &l3_ok, &l4_ok, &l4_bad);
		tcp = l3_ok && l4_ok && !zn_sim_tcp_hdrs(x->f, x->len, &th) && th.hdr_len == hsz &&
		      msim_ip_end(x->f, x->len, &x->p) == x->len;
	}
	if (tcp)
		vd = sess_offer(q, x, &th, pay);
	if (vd == ZN_SIM_GRO_MERGE || vd == ZN_SIM_GRO_MERGE_LAST) {
		/* byte-contiguous after the session's last payload */
		match = true;
		off = q->sess_off;
		need = (uint32_t)((off + pay + ssz - 1) / ssz) - q->stride;
		flush = vd == ZN_SIM_GRO_MERGE_LAST;
	} else {
		if (q->sess_open && q->sess.segs > 1)
			MSIM_INC(m, rx_gro_flushes);
		q->sess_open = false;
		need = pay ? (uint32_t)((pay + ssz - 1) / ssz) : 1;
		if (need > nstr) {
			MSIM_INC(m, rx_too_big);
			return false;
		}
		if (!q->have_wqe && !fetch_mpwqe(m, q)) {
			MSIM_INC(m, rx_no_wqe);
			return false;
		}
		if (q->stride + need > nstr || (q->shampo && q->wqe_pkts >= q->hd_per_wqe)) {
			filler(m, q);
			if (!fetch_mpwqe(m, q)) {
				MSIM_INC(m, rx_no_wqe);
				return false;
			}
		}
		off = q->stride * ssz;
	}
	if (q->shampo && (h = put_header(m, q, x, hsz)) < 0)
		return false;
	a = msim_mkey_xlate(m, q->wqe_lkey, q->wqe_addr + off, pay ? pay : 1);
	if (!a || (pay && zn_vfu_dma_write(m->dev, a, x->f + hsz, pay))) {
		MSIM_INC(m, rx_dma_errors);
		return false;
	}
	if (!match && tcp && zn_sim_gro_can_start(x->f, &th, pay)) {
		/* a session opens; it may grow to the end of its reservation */
		uint32_t res = 1u << q->log_res;

		zn_sim_gro_start(&q->sess, x->f, &th, pay);
		q->sess_open = true;
		q->sess_end = (off / res + 1) * res;
		m->gro_open = true;
		MSIM_INC(m, rx_gro_sessions);
		flush = (x->f[th.l4 + 13] & ZN_SIM_TCP_PSH) != 0;
	}
	if (match) {
		MSIM_INC(m, rx_gro_matches);
		q->sess_off += (uint32_t)pay;
	} else {
		q->sess_off = off + (uint32_t)pay;
	}
	q->stride += need;
	q->wqe_pkts++;
	if (q->sess_open) {
		q->sess_last_rx = m->rx_seq;
		/* the session cannot grow any more: say so now */
		if (q->sess.segs >= q->pkts_per_res || q->sess_end - q->sess_off < q->sess.mss ||
		    q->wqe_pkts >= q->hd_per_wqe || q->stride == nstr)
			flush = true;
		if (flush) {
			if (q->sess.segs > 1)
				MSIM_INC(m, rx_gro_flushes);
			q->sess_open = false;
		}
	}
	cqe_common(m, x, &e);
	e.wqe_id_be = zn_mlx5_bswap16((uint16_t)(q->rcv & ((1u << q->log_sz) - 1)));
	e.wqe_counter_be = zn_mlx5_bswap16((uint16_t)(off / ssz));
	e.byte_cnt_be = zn_mlx5_bswap32(need << ZN_MLX5_MPWRQ_STRIDES_SHIFT | (uint32_t)x->len);
	e.shampo.data_offset_be = zn_mlx5_bswap32(off);
	if (q->shampo) {
		e.shampo.flags = (uint8_t)((match ? ZN_MLX5_CQE_SHAMPO_MATCH : 0) |
					   (flush ? ZN_MLX5_CQE_SHAMPO_FLUSH : 0));
		e.shampo.header_size = (uint8_t)hsz;
		e.shampo.header_entry_index_be = zn_mlx5_bswap16((uint16_t)h);
	}
	if (q->stride == nstr)
		wqe_done(q);
	if (!post(m, q, &e))
		return false;
	count_rx(m, q, x->len);
	return true;
}

void msim_gro_poll(struct msim *m)
{
	bool open = false;

	for (unsigned i = 1; i < MSIM_MAX_OBJ; i++) {
		struct msim_wq *q = &m->rq[i];

		if (!q->used || !q->sess_open)
			continue;
		if (q->sess_last_rx <= m->gro_mark) {
			/* the burst is over: the next packet starts anew (the
			 * driver ends the session when it stops polling, as Linux
			 * does at the end of a NAPI poll) */
			q->sess_open = false;
			MSIM_INC(m, rx_gro_idle);
		} else {
			open = true;
		}
	}
	m->gro_open = open;
	m->gro_mark = m->rx_seq;
}

/* Cyclic RQ: a WQE is a scatter list filled in order. */
static bool rx_cyclic(struct msim *m, struct msim_wq *q, const struct rx_ctx *x)
{
	uint8_t w[1024];
	size_t n = (size_t)1 << q->log_stride, off = 0;
	struct zn_mlx5_cqe64 e;

	if (!rq_wqe(m, q, w, n)) {
		MSIM_INC(m, rx_no_wqe);
		return false;
	}
	for (size_t i = 0; i + 16 <= n && off < x->len; i += 16) {
		const struct zn_mlx5_wqe_data *d = (const void *)(w + i);
		uint32_t lkey = zn_mlx5_bswap32(d->lkey_be), bc = zn_mlx5_bswap32(d->byte_count_be);
		size_t k = x->len - off < bc ? x->len - off : bc;
		uint64_t a;

		if (lkey == ZN_MLX5_INVALID_LKEY)
			break;
		a = k ? msim_mkey_xlate(m, lkey, zn_mlx5_bswap64(d->addr_be), k) : 0;
		if (k && (!a || zn_vfu_dma_write(m->dev, a, x->f + off, k))) {
			MSIM_INC(m, rx_dma_errors);
			q->rcv++;
			return false;
		}
		off += k;
	}
	if (off < x->len) {
		MSIM_INC(m, rx_too_big);
		return false;
	}
	cqe_common(m, x, &e);
	e.wqe_counter_be = zn_mlx5_bswap16(q->rcv);
	e.byte_cnt_be = zn_mlx5_bswap32((uint32_t)x->len);
	q->rcv++;
	if (!post(m, q, &e))
		return false;
	MSIM_INC(m, rx_frames);
	MSIM_ADD(m, rx_bytes, x->len);
	return true;
}

void msim_rx(void *opaque, const void *frame, size_t len)
{
	struct msim *m = opaque;
	struct rx_ctx x = { .f = frame, .len = len };
	struct msim_tir *t;
	struct msim_wq *q;

	m->rx_seq++;
	if (m->synd || !m->link_up || !zn_vfu_bus_master(m->dev)) {
		MSIM_INC(m, rx_link_down);
		MSIM_INC(m, rx_dropped);
		return;
	}
	if (len < 14 || !vport_accepts(m, x.f)) {
		MSIM_INC(m, rx_vport_drops);
		MSIM_INC(m, rx_dropped);
		return;
	}
	msim_pkt_parse(x.f, len, &x.p);
	t = classify(m, &x);
	q = t ? pick_rq(m, t, &x) : NULL;
	if (t && (!q || q->state != ZN_MLX5_QSTATE_RDY))
		MSIM_INC(m, rx_no_rq);
	if (!q || q->state != ZN_MLX5_QSTATE_RDY) {
		MSIM_INC(m, rx_dropped);
		return;
	}
	if (zn_sim_fault_rx_nobuf(&m->port)) {	/* as if the RQ had no WQE */
		MSIM_INC(m, rx_no_wqe);
		MSIM_INC(m, rx_dropped);
		return;
	}
	if (t->disp == ZN_MLX5_TIRC_DISP_DIRECT && m->root_ft)
		MSIM_INC(m, rx_ntuple_hits);
	if (!(q->wq_type == ZN_MLX5_WQ_TYPE_CYCLIC ? rx_cyclic(m, q, &x) : rx_striding(m, q, &x)))
		MSIM_INC(m, rx_dropped);
}
