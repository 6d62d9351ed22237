/* SPDX-License-Identifier: MIT */
/*
 * Receive (hw-docs/mlx5.md §12): one of two RQ layouts per queue (§12.5).
 *
 * Striding RQ with SHAMPO header-data split, one provider buffer per WQE,
 * one packet per WQE, when a buffer holds the port's longest frame:
 *
 *   header ring (driver memory, MTT mkey)     RQ (WQE i = one provider buffer)
 *   +--------+--------+-----+                 +------------------------------+
 *   | hdr 0  | hdr 1  | ... |  <- headers     | stride 0 | stride 1 | ...     | <- payload
 *   +--------+--------+-----+                 +------------------------------+
 *
 * Why one packet per WQE: a WQE's buffer is handed to the caller in a
 * segment, and from then on it is the caller's (include/zcnic/port.h); a
 * second packet in the same buffer would be a second owner. So the WQE is
 * one SHAMPO reservation with one packet per reservation (hd_per_wqe = 1):
 * the device writes one packet's payload at stride 0, then a filler CQE
 * for the rest of the WQE when the next packet comes (§12.3 step 4).
 * A queue with ZN_RX_OFFLOAD_TCP_AGG takes several packets per WQE for
 * HW-GRO and settles who gets the buffer in mlx5_shampo.c (§12.7).
 *
 * Otherwise a cyclic RQ whose WQE scatters a frame over a header slot and
 * nbuf provider buffers (§12.4, as Linux mlx5e's non-linear legacy RQ):
 * the frame's first bytes in the slot, the rest in as many buffers as it
 * reaches, each a segment the caller owns; the buffers it did not reach
 * stay in the WQE. One CQE per frame, no split.
 *
 * Ownership: WQEs [done, posted) are the device's; a WQE becomes
 * software's when its strides are all consumed (packet + filler), or at its
 * CQE (cyclic). Finished WQEs are reposted at the start of the next
 * rx_burst, never in the burst that reported them: the header entries and
 * slots of a burst's packets stay untouched until the next burst because
 * the device cannot get to them again without those WQEs (one header
 * entry or slot per WQE). Only the buffer places handed to the caller (or
 * left empty by a dry provider) get new buffers; nfill counts them.
 *
 * Doorbell order: WQEs written, release fence, RQ dbrec counter; CQEs read
 * after the owner bit (acquire), CQ dbrec set_ci after the burst.
 * The device is not trusted: every CQE is validated against what the
 * driver posted before any of its numbers is used (zn_mlx5_rx_cqe_parse).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/barrier.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

#define RX_ALLOC_BATCH	32

static uint32_t log2u(uint32_t v)
{
	return 31u - (uint32_t)__builtin_clz(v);
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/*
 * The ZN_RX_F_* checksum flags of a CQE, by l4_l3_hdr_type [6:2] and the
 * L3_OK/L4_OK bits of hds_ip_ext: one table load per packet instead of two
 * switches (§9.2).
 */
#define RX_FLAGS_IDX(cqe) (((uint32_t)(cqe)->l4_l3_hdr_type >> ZN_MLX5_CQE_L3_HDR_SHIFT & 0x1f) << 2 | \
			   ((cqe)->hds_ip_ext >> 1 & 3))

static void rx_flags_table(uint8_t *t)
{
	for (uint32_t i = 0; i < 128; i++) {
		uint32_t l3 = (i >> 2) & ZN_MLX5_CQE_L3_HDR_MASK, l4 = i >> 4, f = 0;

		if (l3 == ZN_MLX5_CQE_L3_IPV4)
			f |= i & 1 ? ZN_RX_F_L3_CSUM_OK : ZN_RX_F_L3_CSUM_BAD;
		if (l4 != ZN_MLX5_CQE_L4_NONE)
			f |= i & 2 ? ZN_RX_F_L4_CSUM_OK : ZN_RX_F_L4_CSUM_BAD;
		t[i] = (uint8_t)f;
	}
}

/*
 * Validate one CQE against what the driver posted (the device is not
 * trusted) and say what it means. `cyclic` is a constant where the burst
 * inlines it, so each queue kind runs only its own checks.
 */
static inline __attribute__((always_inline)) enum mlx5_rx_kind
rx_cqe_parse(const struct mlx5_rx_ctx *c, const struct mlx5_rx_pos *pos, bool cyclic,
	     const uint8_t *flags_tbl, const struct zn_mlx5_cqe64 *cqe,
	     struct mlx5_rx_cqe_info *info)
{
	uint32_t bc, stride_idx, len;

	/* Opcode RESP_SEND, plain format (compressed CQEs are never enabled). */
	if (__builtin_expect((cqe->op_own & 0xfc) != ZN_MLX5_CQE_RESP_SEND << 4, 0)) {
		if (zn_mlx5_cqe_opcode(cqe) == ZN_MLX5_CQE_RESP_ERR && !(cqe->op_own & 0x0c)) {
			info->syndrome = ((const struct zn_mlx5_err_cqe *)cqe)->syndrome;
			return MLX5_RX_ERR;
		}
		return MLX5_RX_BAD;
	}
	if (pos->posted == pos->done)
		return MLX5_RX_BAD;
	/* The device fills WQEs in ring order: only WQE `done` can be meant. */
	info->wqe = pos->done & c->wq_mask;
	bc = zn_mlx5_bswap32(cqe->byte_cnt_be);
	if (cyclic) {
		/* §12.4: wqe_counter is the WQE, byte_cnt the frame: header slot first. */
		if ((zn_mlx5_bswap16(cqe->wqe_counter_be) & c->wq_mask) != info->wqe ||
		    !bc || bc > c->frame_max)
			return MLX5_RX_BAD;
		info->strides = 1;
		info->hdr_len = bc < c->hdr_entry ? bc : c->hdr_entry;
		info->data_len = bc - info->hdr_len;
		info->data_off = 0;
		info->hdr_idx = info->wqe;
		goto flags;
	}
	info->strides = (bc >> ZN_MLX5_MPWRQ_STRIDES_SHIFT) & ZN_MLX5_MPWRQ_STRIDES_MASK;
	stride_idx = zn_mlx5_bswap16(cqe->wqe_counter_be);
	if (zn_mlx5_bswap16(cqe->wqe_id_be) != info->wqe)
		return MLX5_RX_BAD;
	len = bc & ZN_MLX5_MPWRQ_LEN_MASK;
	info->hdr_len = cqe->shampo.header_size;
	info->data_off = zn_mlx5_bswap32(cqe->shampo.data_offset_be);
	info->match = (cqe->shampo.flags & ZN_MLX5_CQE_SHAMPO_MATCH) != 0;
	info->flush = (cqe->shampo.flags & ZN_MLX5_CQE_SHAMPO_FLUSH) != 0;
	if (__builtin_expect(info->match && !(bc & ZN_MLX5_MPWRQ_FILLER_CQE), 0)) {
		/*
		 * §12.6: a session's next packet, its payload right after the
		 * previous packet's (pos->cont_off, 0 where none may follow:
		 * queues without HW-GRO, a new WQE, after a flush), counting
		 * only the strides it newly reaches (possibly none).
		 */
		uint32_t end;

		if (!pos->cont_off || info->data_off != pos->cont_off || !info->hdr_len ||
		    info->hdr_len > c->hdr_entry || info->hdr_len >= len)
			return MLX5_RX_BAD;
		info->data_len = len - info->hdr_len;
		end = info->data_off + info->data_len;
		if (end > c->buf_size || stride_idx != info->data_off >> c->log_stride ||
		    info->strides != ((end + (1u << c->log_stride) - 1) >> c->log_stride) -
				     pos->strides_used)
			return MLX5_RX_BAD;
		goto hdr;
	}
	if (stride_idx != pos->strides_used ||
	    info->strides - 1 >= c->strides - pos->strides_used)	/* 1..strides left */
		return MLX5_RX_BAD;
	if (bc & ZN_MLX5_MPWRQ_FILLER_CQE)
		return MLX5_RX_FILLER;
	if (info->hdr_len > c->hdr_entry || info->hdr_len > len)
		return MLX5_RX_BAD;
	info->data_len = len - info->hdr_len;
	if (info->data_off != stride_idx << c->log_stride ||
	    info->data_len > info->strides << c->log_stride)
		return MLX5_RX_BAD;
hdr:
	info->hdr_idx = zn_mlx5_bswap16(cqe->shampo.header_entry_index_be) & c->hdr_mask;
flags:
	info->rss_hash = zn_mlx5_bswap32(cqe->rss_hash_result_be);
	info->flags = flags_tbl[RX_FLAGS_IDX(cqe)] | (cqe->rss_hash_type ? ZN_RX_F_RSS_HASH : 0);
	return MLX5_RX_PKT;
}

enum mlx5_rx_kind zn_mlx5_rx_cqe_parse(const struct mlx5_rx_ctx *c, const struct mlx5_rx_pos *pos,
				       const struct zn_mlx5_cqe64 *cqe,
				       struct mlx5_rx_cqe_info *info)
{
	uint8_t tbl[128];

	rx_flags_table(tbl);
	return c->cyclic ? rx_cqe_parse(c, pos, true, tbl, cqe, info) :
			   rx_cqe_parse(c, pos, false, tbl, cqe, info);
}

uint32_t zn_mlx5_rxq_refill(struct mlx5_rxq *rxq)
{
	const uint32_t k = rxq->c.nbuf, mask = rxq->c.wq_mask;
	uint32_t want = rxq->pos.done + mask + 1 - rxq->pos.posted;
	uint32_t pi = rxq->pos.posted, end = pi + want;
	uint32_t nb = 0, ib = 0;
	struct zn_buf bufs[RX_ALLOC_BATCH];

	/* nfill: the buffer places of WQEs not in the device that hold no buffer
	 * of ours (handed to the caller, or never filled): exactly what to ask
	 * for. None: every WQE goes back as it is (frames that stayed in the
	 * header slot or entry). */
	if (!rxq->nfill)
		pi = end;
	for (; pi != end; pi++) {
		uint32_t slot = pi & mask;
		struct mlx5_rx_wqe *s = &rxq->sw[slot * k];

		/* A WQE goes to the device only with every buffer place filled;
		 * buffers already in a WQE stay there (a frame that did not
		 * reach them left them ours). */
		for (uint32_t j = 0; j < k; j++, s++) {
			if (s->posted && !s->handed)
				continue;
			if (ib == nb) {
				nb = rxq->alloc(rxq->prov_ctx, bufs, rxq->nfill < RX_ALLOC_BATCH ?
						rxq->nfill : RX_ALLOC_BATCH);
				ib = 0;
				if (!nb) {
					rxq->st.nobuf++;
					goto out;
				}
			}
			s->buf_id = bufs[ib].id;
			s->va = bufs[ib].va;
			s->iova = bufs[ib].iova;
			s->posted = true;
			s->handed = false;
			zn_mlx5_rx_seg(rxq, slot, j)->addr_be = zn_mlx5_bswap64(s->iova);
			ib++;
			rxq->nfill--;
		}
	}
out:
	want = pi - rxq->pos.posted;
	if (want) {
		rxq->pos.posted = pi;
		/* WQEs before the counter that names them (§12.2). */
		zn_dma_wmb();
		rxq->rq_dbr[ZN_MLX5_RCV_DBR] = zn_mlx5_bswap32(pi & 0xffff);
	}
	return want;
}

/*
 * A cyclic WQE's frame (§12.4): the first hdr_entry bytes in the header
 * slot, the rest across the WQE's buffers in order, each one a segment
 * (and the caller's); buffers the frame did not reach stay in the WQE.
 * Returns how many buffers went to the caller.
 */
static inline __attribute__((always_inline)) uint32_t
pkt_build_cyclic(struct mlx5_rxq *rxq, const struct mlx5_rx_cqe_info *ci, struct zn_rx_pkt *pkt)
{
	struct mlx5_rx_wqe *s = &rxq->sw[ci->wqe * rxq->c.nbuf];
	uint32_t rem = ci->data_len, i = 0;

	pkt->hdr = rxq->hdr + (size_t)ci->wqe * rxq->c.hdr_entry;
	pkt->hdr_len = (uint16_t)ci->hdr_len;
	pkt->queue = rxq->qid;
	pkt->rss_hash = ci->rss_hash;
	pkt->flags = ci->flags;
	pkt->pkt_len = ci->hdr_len + ci->data_len;
	/* The parse bounded data_len by the WQE's nbuf buffers. */
	for (; rem; i++, s++) {
		uint32_t len = rem < rxq->c.buf_size ? rem : rxq->c.buf_size;

		s->handed = true;
		pkt->seg[i].va = s->va;
		pkt->seg[i].buf_id = s->buf_id;
		pkt->seg[i].off = 0;
		pkt->seg[i].len = len;
		rem -= len;
	}
	pkt->nseg = i;
	return i;
}

/* A striding WQE's packet: headers in the entry, payload in the WQE's buffer. */
static inline __attribute__((always_inline)) bool
pkt_build(struct mlx5_rxq *rxq, const struct mlx5_rx_cqe_info *ci, struct zn_rx_pkt *pkt)
{
	struct mlx5_rx_wqe *s = &rxq->sw[ci->wqe];
	uint8_t *hdr = rxq->hdr + ((size_t)ci->hdr_idx << rxq->log_hdr_entry);
	uint32_t total = ci->hdr_len + ci->data_len;

	pkt->hdr = hdr;
	pkt->hdr_len = (uint16_t)ci->hdr_len;
	pkt->queue = rxq->qid;
	pkt->rss_hash = ci->rss_hash;
	pkt->flags = ci->flags;
	pkt->pkt_len = total;
	pkt->nseg = 0;
	if (!ci->data_len)
		return true;
	/* A small frame (or one the device did not split) lands whole in the entry. */
	if (total <= rxq->c.hdr_entry && s->va &&
	    ((rxq->hds_thresh && total <= rxq->hds_thresh) || !ci->hdr_len)) {
		memcpy(hdr + ci->hdr_len, s->va + ci->data_off, ci->data_len);
		pkt->hdr_len = (uint16_t)total;
		return true;
	}
	if (s->handed)		/* a second payload in a buffer the caller owns */
		return false;
	s->handed = true;
	pkt->nseg = 1;
	pkt->seg[0].va = s->va;
	pkt->seg[0].buf_id = s->buf_id;
	pkt->seg[0].off = ci->data_off;
	pkt->seg[0].len = ci->data_len;
	if (ci->hdr_len)
		pkt->flags |= ZN_RX_F_SPLIT;
	return true;
}

/*
 * The CQ loop, one copy per queue kind (cyclic is a constant). Positions
 * live in locals and go back once; only CQEs the parse accepted move them.
 */
static inline __attribute__((always_inline)) uint32_t
rx_poll(struct mlx5_rxq *rxq, struct zn_rx_pkt *pkts, uint32_t n, bool cyclic)
{
	const uint32_t log_sz = rxq->cq.log_sz, cq_mask = (1u << log_sz) - 1;
	const struct zn_mlx5_cqe64 *ring = rxq->cq.cqe;
	struct mlx5_rx_pos pos = rxq->pos;
	uint32_t ci = rxq->cq.ci, got = 0, end = ci + cq_mask + 1;
	const bool agg = !cyclic && rxq->c.agg;
	uint64_t bytes = 0;

	/* an aggregating queue's CQE may complete the units it holds and its own */
	while (ci != end && got + (agg ? 1u + rxq->ready.live + rxq->open.live : 1u) <= n) {
		const struct zn_mlx5_cqe64 *cqe = &ring[ci & cq_mask];
		struct mlx5_rx_cqe_info info;

		if (!zn_mlx5_cqe_sw_owned(cqe, ci, log_sz))
			break;
		zn_dma_rmb();
		ci++;
		switch (rx_cqe_parse(&rxq->c, &pos, cyclic, rxq->flags_tbl, cqe, &info)) {
		case MLX5_RX_PKT:
			if (agg) {
				got += zn_mlx5_agg_cqe(rxq, &pos, MLX5_RX_PKT, &info, pkts + got);
				break;
			}
			if (cyclic) {
				rxq->nfill += pkt_build_cyclic(rxq, &info, &pkts[got]);
				pos.done++;
			} else {
				if (__builtin_expect(pkt_build(rxq, &info, &pkts[got]), 1)) {
					bytes += pkts[got].pkt_len;
					got++;
				} else {
					rxq->st.bad_cmpl++;
				}
				goto consume;
			}
			bytes += pkts[got].pkt_len;
			got++;
			break;
		case MLX5_RX_FILLER:
			if (agg) {
				got += zn_mlx5_agg_cqe(rxq, &pos, MLX5_RX_FILLER, &info, pkts + got);
				break;
			}
consume:
			/* Strides of WQE `done`; a WQE all used is finished. */
			pos.strides_used += info.strides;
			if (pos.strides_used == rxq->c.strides) {
				pos.strides_used = 0;
				rxq->nfill += rxq->sw[pos.done & rxq->c.wq_mask].handed;
				pos.done++;
			}
			break;
		case MLX5_RX_ERR:
			rxq->st.errors++;
			break;
		default:
			rxq->st.bad_cmpl++;
			break;
		}
	}
	if (agg) {
		/* what is held goes out once the queue is quiet (Linux flushes
		 * its session at the end of every NAPI poll; the copies this
		 * costs are kept for a queue that stopped receiving) */
		if (ci != rxq->cq.ci)
			rxq->idle_polls = 0;
		else if (++rxq->idle_polls >= MLX5_AGG_IDLE_POLLS)
			got += zn_mlx5_agg_idle(rxq, pkts + got, n - got);
		for (uint32_t i = 0; i < got; i++)
			bytes += pkts[i].pkt_len;
	}
	rxq->pos = pos;
	rxq->st.packets += got;
	rxq->st.bytes += bytes;
	if (ci != rxq->cq.ci) {
		rxq->cq.ci = ci;
		zn_dma_rmb();	/* CQEs read before their slots go back */
		rxq->cq.dbr[ZN_MLX5_CQ_DBR_SET_CI] = zn_mlx5_bswap32(ci & ZN_MLX5_CQ_CI_MASK);
	}
	return got;
}

uint32_t zn_mlx5_rx_burst(struct mlx5_rxq *rxq, struct zn_rx_pkt *pkts, uint32_t n)
{
	zn_owner_enter(&rxq->owner, "RX queue");
	if (__builtin_expect(rxq->dead, 0))
		return 0;
	if (__builtin_expect(!(++rxq->bursts & (MLX5_HEALTH_BURSTS - 1)), 0) && rxq->m) {
		zn_mlx5_rx_health(rxq);
		if (rxq->dead)
			return 0;
	}
	/* The previous burst's WQEs (and so its header entries) go back first. */
	if (rxq->pos.posted - rxq->pos.done <= rxq->c.wq_mask)
		zn_mlx5_rxq_refill(rxq);
	return rxq->c.cyclic ? rx_poll(rxq, pkts, n, true) : rx_poll(rxq, pkts, n, false);
}

void zn_mlx5_rxq_release_bufs(struct mlx5_rxq *rxq)
{
	uint32_t ids[RX_ALLOC_BATCH], k = 0;

	for (uint32_t i = 0; i < (rxq->c.wq_mask + 1) * rxq->c.nbuf; i++) {
		struct mlx5_rx_wqe *s = &rxq->sw[i];

		if (s->posted && !s->handed) {
			ids[k++] = s->buf_id;
			if (k == RX_ALLOC_BATCH) {
				rxq->put(rxq->prov_ctx, ids, k);
				k = 0;
			}
		}
		memset(s, 0, sizeof(*s));
	}
	if (k)
		rxq->put(rxq->prov_ctx, ids, k);
}

/* Back to the state of a fresh queue (after stop): rings empty, counters 0. */
void zn_mlx5_rxq_reset(struct mlx5_rxq *rxq)
{
	uint32_t ncqe = 1u << rxq->cq.log_sz;

	for (uint32_t i = 0; i < ncqe; i++)
		rxq->cq.cqe[i].op_own = ZN_MLX5_CQE_OP_OWN_INIT;
	rxq->cq.ci = 0;
	rxq->cq.dbr[0] = 0;
	rxq->cq.dbr[1] = 0;
	zn_mlx5_rxq_reset_wq(rxq);
}

void zn_mlx5_rxq_reset_wq(struct mlx5_rxq *rxq)
{
	zn_mlx5_rxq_release_bufs(rxq);
	zn_mlx5_agg_release(rxq);
	memset(&rxq->pos, 0, sizeof(rxq->pos));
	rxq->nfill = (rxq->c.wq_mask + 1) * rxq->c.nbuf;
	rxq->log_hdr_entry = log2u(rxq->c.hdr_entry);
	rx_flags_table(rxq->flags_tbl);
	rxq->rq_dbr[0] = 0;
	rxq->rq_dbr[1] = 0;
	memset(rxq->wq, 0, (size_t)(rxq->c.wq_mask + 1) << rxq->c.log_wqe);
	for (uint32_t i = 0; i <= rxq->c.wq_mask; i++) {
		struct zn_mlx5_wqe_data *d = zn_mlx5_rx_seg(rxq, i, 0);
		uint32_t nseg = (1u << rxq->c.log_wqe) / sizeof(*d) - 1;

		if (rxq->c.cyclic) {
			/* §12.4: the WQE's first segment is its header slot. */
			d[-1].byte_count_be = zn_mlx5_bswap32(rxq->c.hdr_entry);
			d[-1].lkey_be = zn_mlx5_bswap32(rxq->lkey);
			d[-1].addr_be = zn_mlx5_bswap64(rxq->hdr_iova_hot +
							(uint64_t)i * rxq->c.hdr_entry);
		} else {
			/* §12.2: the linked list links WQE i to i + 1, once. */
			rxq->wq[i].next.next_wqe_index_be =
				zn_mlx5_bswap16((uint16_t)((i + 1) & rxq->c.wq_mask));
		}
		for (uint32_t j = 0; j < nseg; j++) {
			/* Places past the buffers end the scatter list (§12.4). */
			bool buf = j < rxq->c.nbuf;

			d[j].byte_count_be = buf ? zn_mlx5_bswap32(rxq->c.buf_size) : 0;
			d[j].lkey_be = zn_mlx5_bswap32(buf ? rxq->lkey : ZN_MLX5_INVALID_LKEY);
		}
	}
	rxq->dead = false;
}

static size_t align4k(size_t v)
{
	return (v + ZN_MLX5_ADAPTER_PAGE_SIZE - 1) & ~(size_t)(ZN_MLX5_ADAPTER_PAGE_SIZE - 1);
}

int zn_mlx5_rxq_create(struct mlx5 *m, uint16_t q, const struct zn_rxq_conf *conf,
		       struct mlx5_rxq **out)
{
	const struct mlx5_caps *cap = &m->caps;
	const struct zn_buf_provider *prov = conf->payload;
	uint32_t ring = conf->ring_size ? conf->ring_size : MLX5_RX_RING_DFLT;
	uint32_t hdr = conf->hdr_buf_size ? conf->hdr_buf_size : MLX5_HDR_ENTRY_DFLT;
	uint32_t mtu = m->conf.mtu ? m->conf.mtu : MLX5_MTU_DFLT;
	uint32_t frame = mtu + MLX5_HW_MTU_OVERHEAD;
	uint32_t log_b, log_stride, log_strides, min_log_strides, min_res, nbuf, log_wqe, agg = 1;
	bool cyclic;
	size_t off_cq, off_wq, off_dbr, len;
	struct mlx5_rxq *rxq;
	int rc;

	if (conf->offloads & ~zn_mlx5_rx_offloads(cap)) {
		ZN_ERR(MLX5_LOG, "%s: rxq %u: RX offloads 0x%x asked, the driver does 0x%x",
		       m->name, q, conf->offloads, zn_mlx5_rx_offloads(cap));
		return -EOPNOTSUPP;
	}
	if (!prov || !prov->alloc || !prov->put) {
		ZN_ERR(MLX5_LOG, "%s: rxq %u: a payload provider with alloc and put is needed",
		       m->name, q);
		return -EINVAL;
	}
	if (!pow2(ring) || ring < MLX5_RING_MIN || ring > MLX5_RX_RING_MAX ||
	    log2u(ring) > cap->log_max_wq_sz) {
		ZN_ERR(MLX5_LOG, "%s: rxq %u: ring of %u: a power of two in %u..%u", m->name, q,
		       ring, MLX5_RING_MIN, MLX5_RX_RING_MAX);
		return -EINVAL;
	}
	if (hdr < MLX5_HDR_ENTRY_MIN)
		hdr = MLX5_HDR_ENTRY_MIN;
	hdr = 1u << (log2u(hdr - 1) + 1 > 6 ? log2u(hdr - 1) + 1 : 6);
	if (hdr > MLX5_HDR_ENTRY_MAX || log2u(hdr) > cap->shampo_max_log_hdr_entry)
		hdr = 1u << (cap->shampo_max_log_hdr_entry < 10 ? cap->shampo_max_log_hdr_entry : 10);
	/*
	 * §12.1: a striding WQE is one reservation, and a frame the device does
	 * not split lands whole in it, so SHAMPO needs a buffer that is a
	 * reservation size and holds the longest frame. Otherwise a cyclic RQ
	 * (§12.4) scatters a frame over a header slot and up to
	 * ZN_RX_MAX_SEGS buffers, as Linux mlx5e's non-linear legacy RQ does.
	 */
	min_res = cap->shampo_log_min_res > 12 ? cap->shampo_log_min_res : 12;
	log_b = pow2(prov->buf_size) ? log2u(prov->buf_size) : 0;
	cyclic = !log_b || log_b < min_res || log_b > cap->shampo_log_max_res ||
		 frame > prov->buf_size;
	if (cyclic && (prov->buf_size < MLX5_HDR_ENTRY_MIN || prov->buf_size > 1u << 20)) {
		ZN_ERR(MLX5_LOG, "%s: rxq %u: payload buffers of %u bytes; SHAMPO needs a power "
		       "of two in %u..%u (%u..%u for the cyclic fallback)", m->name, q,
		       prov->buf_size, 1u << min_res, 1u << cap->shampo_log_max_res,
		       MLX5_HDR_ENTRY_MIN, 1u << 20);
		return -EINVAL;
	}
	if (cyclic && (conf->offloads & ZN_RX_OFFLOAD_TCP_AGG)) {
		/* -EINVAL tells the caller; it may well set up without */
		ZN_INFO(MLX5_LOG, "%s: rxq %u: HW-GRO needs the striding RQ: payload buffers of a "
		       "power of two in %u..%u bytes holding a %u-byte frame, not %u", m->name, q,
		       1u << min_res, 1u << cap->shampo_log_max_res, frame, prov->buf_size);
		return -EINVAL;
	}
	if (cyclic) {
		log_stride = log_strides = 0;
		nbuf = frame > hdr ? (frame - hdr + prov->buf_size - 1) / prov->buf_size : 1;
		if (nbuf > ZN_RX_MAX_SEGS) {
			ZN_ERR(MLX5_LOG, "%s: rxq %u: %u-byte frames (MTU %u) need %u buffers of %u "
			       "bytes; at most %u per frame", m->name, q, frame, mtu, nbuf,
			       prov->buf_size, ZN_RX_MAX_SEGS);
			return -EINVAL;
		}
		/* The header slot and the buffers, rounded up to a power of two of segments. */
		log_wqe = 4 + (nbuf < 2 ? 1 : log2u(nbuf) + 1);
		ZN_INFO(MLX5_LOG, "%s: rxq %u: %u-byte payload buffers for %u-byte frames: cyclic "
			"RQ, a %u-byte header slot and %u buffer%s per frame, no header-data split",
			m->name, q, prov->buf_size, frame, hdr, nbuf, nbuf > 1 ? "s" : "");
		goto sized;
	}
	nbuf = 1;
	log_wqe = 5;		/* next segment + one data segment */
	log_stride = log_b > 9 + ZN_MLX5_MPWQE_MIN_LOG_STRIDE_SZ ? log_b - 9 :
		     ZN_MLX5_MPWQE_MIN_LOG_STRIDE_SZ;
	if (log_stride < cap->log_min_stride)
		log_stride = cap->log_min_stride;
	if (log_stride > cap->log_max_stride)
		log_stride = cap->log_max_stride;
	log_strides = log_b - log_stride;
	min_log_strides = cap->ext_stride_num_range ? ZN_MLX5_MPWQE_LOG_NUM_STRIDES_EXT_BASE :
			  ZN_MLX5_MPWQE_LOG_NUM_STRIDES_BASE;
	if (log_stride < ZN_MLX5_MPWQE_MIN_LOG_STRIDE_SZ || log_b < log_stride ||
	    log_strides < min_log_strides || log_strides > 16) {
		ZN_ERR(MLX5_LOG, "%s: rxq %u: no stride layout for %u-byte buffers", m->name, q,
		       prov->buf_size);
		return -EINVAL;
	}
	if (conf->offloads & ZN_RX_OFFLOAD_TCP_AGG) {
		/*
		 * §12.6: packets per WQE (one reservation), each with its own
		 * CQE (and a filler per WQE) and header entry; the header ring
		 * index field has 4 bits and the CQ its cap.
		 */
		agg = zn_mlx5_agg_pkts(1u << log_b, mtu, conf->agg_max);
		while (agg > 1 && (log2u(ring * agg) > 15 ||
				   log2u(ring * agg) + 1 > cap->log_max_cq_sz ||
				   (size_t)ring * agg * hdr > MLX5_HDR_RING_MAX))
			agg >>= 1;
		ZN_INFO(MLX5_LOG, "%s: rxq %u: HW-GRO, up to %u packets per %u-byte WQE", m->name,
			q, agg, 1u << log_b);
	}
sized:
	rxq = calloc(1, sizeof(*rxq));
	if (!rxq)
		return -ENOMEM;
	rxq->sw = calloc((size_t)ring * nbuf, sizeof(*rxq->sw));
	if (!rxq->sw) {
		free(rxq);
		return -ENOMEM;
	}
	rxq->qid = q;
	rxq->c.wq_mask = ring - 1;
	rxq->c.log_stride = log_stride;
	rxq->c.strides = 1u << log_strides;
	rxq->c.buf_size = cyclic ? prov->buf_size : 1u << log_b;
	rxq->c.cyclic = cyclic;
	rxq->c.nbuf = nbuf;
	rxq->c.log_wqe = log_wqe;
	rxq->c.frame_max = cyclic ? hdr + nbuf * prov->buf_size : 0;
	rxq->mtu = mtu;
	/* hd_per_wq = roundup_pow2(hd_per_wqe x ring) (§12.1) */
	rxq->c.hdr_mask = ring * agg - 1;
	rxq->c.hdr_entry = hdr;
	rxq->c.agg = agg > 1;
	rxq->agg_pkts = agg;
	rxq->hds_thresh = conf->hds_thresh;
	rxq->cq.log_sz = log2u(ring * agg) + 1;	/* agg packets and a filler per WQE */
	rxq->lkey = m->lkey;
	rxq->m = q == 0 ? m : NULL;
	rxq->alloc = prov->alloc;
	rxq->put = prov->put;
	rxq->va = prov->va;
	rxq->prov_ctx = prov->ctx;

	rxq->hdr_bytes = align4k((size_t)ring * agg * hdr);
	off_cq = rxq->hdr_bytes;
	off_wq = off_cq + align4k((size_t)ZN_MLX5_CQE_SIZE << rxq->cq.log_sz);
	off_dbr = off_wq + align4k((size_t)ring << log_wqe);
	len = off_dbr + 2 * ZN_MLX5_DBR_ALIGN;
	rc = zn_mlx5_dma_alloc(m, "mlx5-rxq", len, &rxq->dma);
	if (rc < 0) {
		free(rxq->sw);
		free(rxq);
		return rc;
	}
	rxq->hdr = rxq->dma->va;
	rxq->hdr_iova = rxq->dma->iova;
	rxq->hdr_iova_hot = rxq->hdr_iova;
	rxq->cq.cqe = (void *)((uint8_t *)rxq->dma->va + off_cq);
	rxq->cq.iova = rxq->dma->iova + off_cq;
	rxq->wq = (void *)((uint8_t *)rxq->dma->va + off_wq);
	rxq->wq_iova = rxq->dma->iova + off_wq;
	rxq->cq.dbr = (void *)((uint8_t *)rxq->dma->va + off_dbr);
	rxq->cq.dbr_iova = rxq->dma->iova + off_dbr;
	rxq->rq_dbr = (void *)((uint8_t *)rxq->dma->va + off_dbr + ZN_MLX5_DBR_ALIGN);
	rxq->rq_dbr_iova = rxq->dma->iova + off_dbr + ZN_MLX5_DBR_ALIGN;
	zn_mlx5_rxq_reset(rxq);
	*out = rxq;
	return 0;
}

void zn_mlx5_rxq_destroy(struct mlx5 *m, struct mlx5_rxq *rxq)
{
	if (!rxq)
		return;
	zn_mlx5_rxq_release_bufs(rxq);
	zn_mlx5_dma_free(m, &rxq->dma);
	free(rxq->sw);
	free(rxq);
}
