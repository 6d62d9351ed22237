/* SPDX-License-Identifier: MIT */
/*
 * Transmit (hw-docs/mlx5.md §14): one send WQE per frame — control
 * segment, Ethernet segment with the inline headers the device requires,
 * one data segment per remaining buffer — in a ring of 64-byte WQEBBs.
 *
 * Ownership: WQEBBs [cons, prod) are in flight; [done, prod) not yet
 * reported complete. A WQE may wrap the ring end at WQEBB granularity
 * (§14.2). Only the last WQE of a burst asks for a CQE (CQ_UPDATE); its
 * wqe_counter completes every WQE up to it, in order, so cookies come back
 * in the order frames were sent. Ring space comes back only through
 * tx_reap.
 *
 * Doorbell order per burst (§14.3): WQEs, release fence, SQ dbrec send
 * counter, release fence, the last WQE's first 8 bytes to the UAR
 * BlueFlame register (0x800 and 0x900 alternately).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/barrier.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

/* Inline header DSs: an LSO frame's headers go whole into the WQE
 * (hw-docs/mlx5.md §14.2): Ethernet + VLAN, IPv4 or IPv6 and TCP with
 * options, up to 2 + 9 x 16 = 146 bytes. */
#define TX_INLINE_DS	9
#define TX_INLINE_MAX	(ZN_MLX5_ETH_INLINE_START + TX_INLINE_DS * ZN_MLX5_WQE_DS_SIZE)
#define TX_MAX_DS	(2 + TX_INLINE_DS + ZN_TX_MAX_SEGS)	/* ctrl, eth, inline, data */
#define TX_MAX_BB	((TX_MAX_DS * ZN_MLX5_WQE_DS_SIZE + ZN_MLX5_SEND_WQE_BB - 1) / \
			 ZN_MLX5_SEND_WQE_BB)
/* A WQE without LSO inlines at most TX_INLINE_L4 bytes (5 DSs). */
#define TX_PLAIN_BB	(((2 + 5 + ZN_TX_MAX_SEGS) * ZN_MLX5_WQE_DS_SIZE + ZN_MLX5_SEND_WQE_BB - 1) / \
			 ZN_MLX5_SEND_WQE_BB)
#define TX_INLINE_L2	ZN_MLX5_ETH_L2_INLINE_MIN	/* Ethernet + VLAN */
#define TX_INLINE_L3	(TX_INLINE_L2 + 40)		/* + IPv6 header ([DPDK] mlx5_defs.h) */
#define TX_INLINE_L4	(TX_INLINE_L3 + 20)		/* + TCP header */

_Static_assert(TX_INLINE_L4 <= TX_INLINE_MAX && 18 + 60 + 60 <= TX_INLINE_MAX,
	       "inline headers fit the DS budget");
_Static_assert(TX_MAX_DS <= ZN_MLX5_WQE_MAX_DS, "one WQE");
_Static_assert(TX_INLINE_L4 <= ZN_MLX5_ETH_INLINE_START + 5 * ZN_MLX5_WQE_DS_SIZE,
	       "a WQE without LSO fits TX_PLAIN_BB");

/*
 * The offload fields of a frame with flags (hw-docs/mlx5.md §14.2, [L]
 * en_tx.c mlx5e_txwqe_build_eseg_csum / mlx5e_sq_xmit_prepare): cs_flags
 * L3 and L4 checksum, and for LSO the opcode LSO, the MSS in the Ethernet
 * segment and every header byte inline. 0 when the frame asks for what the
 * queue cannot do or its lengths do not add up.
 */
static __attribute__((noinline)) uint32_t
tx_offload(const struct zn_tx_pkt *pkt, uint32_t offl, uint32_t max_lso, uint8_t *cs,
	   uint16_t *mss, uint32_t *inl)
{
	uint32_t fl = pkt->flags, hl, tot = 0;

	if (fl & ~offl)
		return 0;
	*cs = (uint8_t)((fl & (ZN_TX_F_IP_CSUM | ZN_TX_F_LSO) ? ZN_MLX5_ETH_WQE_L3_CSUM : 0) |
			(fl & (ZN_TX_F_L4_CSUM | ZN_TX_F_LSO) ? ZN_MLX5_ETH_WQE_L4_CSUM : 0));
	if (!(fl & ZN_TX_F_LSO))
		return ZN_MLX5_OPCODE_SEND;
	hl = (uint32_t)pkt->l2_len + pkt->l3_len + pkt->l4_len;
	for (uint32_t i = 0; i < pkt->nseg; i++)
		tot += pkt->seg[i].len;
	if (!pkt->mss || !pkt->l3_len || !pkt->l4_len || hl > pkt->seg[0].len ||
	    hl > TX_INLINE_MAX || tot <= hl || tot > max_lso)
		return 0;
	*mss = zn_mlx5_bswap16(pkt->mss);
	*inl = hl;
	return ZN_MLX5_OPCODE_LSO;
}

/*
 * Write one send WQE at wqe (contiguous WQEBBs); returns WQEBBs used (0: a
 * packet the WQE cannot describe) and the frame's bytes in *bytes. Every
 * 16-byte unit of the WQEBBs it takes is written once, with fixed-size
 * stores, so that the data path builds a WQE without library calls: the
 * data segments first, then the control segment that counts them.
 */
static inline __attribute__((always_inline)) uint32_t
tx_wqe_at(uint8_t *wqe, uint32_t pi, uint32_t sqn, uint32_t lkey_be, uint32_t min_inline,
	  const uint8_t *inline_src, const struct zn_tx_pkt *pkt, uint8_t fm_ce_se,
	  uint32_t offl, uint32_t max_lso, uint64_t *bytes)
{
	const uint64_t zero[2] = { 0, 0 };
	uint32_t nseg = pkt->nseg, inl, extra = 0, ds, nbb, opcode = ZN_MLX5_OPCODE_SEND;
	struct zn_mlx5_wqe_data *d;
	uint64_t tot = 0;
	uint16_t mss = 0;
	uint8_t cs = 0;

	if (!nseg || nseg > ZN_TX_MAX_SEGS)
		return 0;
	inl = min_inline < pkt->seg[0].len ? min_inline : pkt->seg[0].len;
	if (__builtin_expect(pkt->flags != 0, 0)) {
		opcode = tx_offload(pkt, offl, max_lso, &cs, &mss, &inl);
		if (!opcode)
			return 0;
	}
	/* Ethernet segment: offloads, inline headers from byte 30 (§14.2). */
	memcpy(wqe + 16, zero, 16);
	wqe[16 + offsetof(struct zn_mlx5_wqe_eth, cs_flags)] = cs;
	memcpy(wqe + 16 + offsetof(struct zn_mlx5_wqe_eth, mss_be), &mss, 2);
	if (inl) {
		if (!inline_src)
			return 0;
		/* The first 2 bytes in the Ethernet segment, the rest in the next DSs. */
		extra = (inl - ZN_MLX5_ETH_INLINE_START + ZN_MLX5_WQE_DS_SIZE - 1) /
			ZN_MLX5_WQE_DS_SIZE;
		/* The inline bytes cover every inline DS but the last one's tail. */
		memcpy(wqe + 16 * (1 + extra), zero, 16);
		zn_mlx5_st_be16(wqe + 16 + offsetof(struct zn_mlx5_wqe_eth, inline_hdr_sz_be),
				(uint16_t)inl);
		if (inl == TX_INLINE_L2)
			memcpy(wqe + 30, inline_src, TX_INLINE_L2);
		else
			memcpy(wqe + 30, inline_src, inl);
	}
	d = (void *)(wqe + (size_t)(2 + extra) * ZN_MLX5_WQE_DS_SIZE);
	for (uint32_t i = 0; i < nseg; i++) {
		uint64_t addr = pkt->seg[i].iova;
		uint32_t len = pkt->seg[i].len;

		tot += len;
		if (i == 0) {
			addr += inl;
			len -= inl;
		}
		if (!len)
			continue;
		d->byte_count_be = zn_mlx5_bswap32(len);
		d->lkey_be = lkey_be;
		d->addr_be = zn_mlx5_bswap64(addr);
		d++;
	}
	ds = (uint32_t)((uint8_t *)d - wqe) / ZN_MLX5_WQE_DS_SIZE;
	if (ds == 2 && !inl)		/* nothing to send */
		return 0;
	/* Control segment: opcode and index, SQ and size, CQE request; the rest 0. */
	zn_mlx5_st_be32(wqe, zn_mlx5_ctrl_opmod_idx_opcode(0, (uint16_t)pi, (uint8_t)opcode));
	zn_mlx5_st_be32(wqe + 4, zn_mlx5_ctrl_qpn_ds(sqn, ds));
	memcpy(wqe + 8, zero, 8);
	wqe[offsetof(struct zn_mlx5_wqe_ctrl, fm_ce_se)] = fm_ce_se;
	nbb = (ds + 3) / 4;
	/* The tail of the last WQEBB is zeroed: no stale segment is left behind. */
	switch (nbb * 4 - ds) {
	case 3:
		memcpy(wqe + (size_t)(ds + 2) * 16, zero, 16);
		/* fall through */
	case 2:
		memcpy(wqe + (size_t)(ds + 1) * 16, zero, 16);
		/* fall through */
	case 1:
		memcpy(wqe + (size_t)ds * 16, zero, 16);
		break;
	default:
		break;
	}
	*bytes = tot;
	return nbb;
}

_Static_assert(ZN_MLX5_SEND_WQE_BB == 64 && ZN_MLX5_WQE_DS_SIZE == 16, "4 DSs per WQEBB");

/* A WQE that may run past the ring's end: built aside, copied WQEBB by WQEBB. */
static __attribute__((noinline, cold)) uint32_t
tx_wqe_wrap(uint8_t *ring, uint32_t mask, uint32_t pi, uint32_t sqn, uint32_t lkey_be,
	    uint32_t min_inline, const uint8_t *inline_src, const struct zn_tx_pkt *pkt,
	    uint8_t fm_ce_se, uint32_t offl, uint32_t max_lso, uint64_t *bytes)
{
	uint8_t tmp[TX_MAX_BB * ZN_MLX5_SEND_WQE_BB] __attribute__((aligned(16)));
	uint32_t nbb = tx_wqe_at(tmp, pi, sqn, lkey_be, min_inline, inline_src, pkt, fm_ce_se,
				 offl, max_lso, bytes);

	for (uint32_t b = 0; b < nbb; b++)
		memcpy(ring + (size_t)((pi + b) & mask) * ZN_MLX5_SEND_WQE_BB,
		       tmp + (size_t)b * ZN_MLX5_SEND_WQE_BB, ZN_MLX5_SEND_WQE_BB);
	return nbb;
}

/* One send WQE at WQEBB index pi of the ring, in place unless near the end. */
static inline __attribute__((always_inline)) uint32_t
tx_wqe(uint8_t *ring, uint32_t mask, uint32_t pi, uint32_t sqn, uint32_t lkey_be,
       uint32_t min_inline, const uint8_t *inline_src, const struct zn_tx_pkt *pkt,
       uint8_t fm_ce_se, uint32_t offl, uint32_t max_lso, uint64_t *bytes)
{
	uint32_t slot = pi & mask;

	if (__builtin_expect(slot + TX_MAX_BB <= mask + 1, 1))
		return tx_wqe_at(ring + (size_t)slot * ZN_MLX5_SEND_WQE_BB, pi, sqn, lkey_be,
				 min_inline, inline_src, pkt, fm_ce_se, offl, max_lso, bytes);
	return tx_wqe_wrap(ring, mask, pi, sqn, lkey_be, min_inline, inline_src, pkt, fm_ce_se,
			   offl, max_lso, bytes);
}

uint32_t zn_mlx5_tx_build(uint8_t *ring, uint32_t mask, uint32_t pi, uint32_t sqn,
			  uint32_t lkey, uint32_t min_inline, const uint8_t *inline_src,
			  const struct zn_tx_pkt *pkt, bool cqe)
{
	uint64_t bytes;

	return tx_wqe(ring, mask, pi, sqn, zn_mlx5_bswap32(lkey), min_inline, inline_src, pkt,
		      cqe ? ZN_MLX5_WQE_CTRL_CQ_UPDATE : 0, MLX5_TX_OFFLOADS, UINT16_MAX, &bytes);
}

/*
 * The VA of the bytes to inline: IOVA and VA agree for zcnic DMA memory
 * unless a region was moved (zn_dma_region_set_iova); then we cannot
 * inline. The region found is remembered for the rest of the burst (the
 * frames of a burst come from one or two regions; the lookup takes a lock).
 */
struct inline_cache {
	uint64_t lo, hi;		/* [lo, hi): a region whose IOVA is its VA */
};

static const uint8_t *inline_va(struct inline_cache *c, uint64_t iova, uint32_t len)
{
	const struct zn_dma_region *r;

	if (iova >= c->lo && iova + len <= c->hi)
		return (const uint8_t *)(uintptr_t)iova;
	r = zn_mem_find((const void *)(uintptr_t)iova);
	if (!r || r->iova != (uint64_t)(uintptr_t)r->va || iova + len > r->iova + r->len)
		return NULL;
	c->lo = r->iova;
	c->hi = r->iova + r->len;
	return (const uint8_t *)(uintptr_t)iova;
}

static void ring_doorbell(struct mlx5_txq *txq, uint32_t last)
{
	uint64_t first8;

	zn_dma_wmb();
	txq->sq_dbr[ZN_MLX5_SND_DBR] = zn_mlx5_bswap32(txq->prod & 0xffff);
	zn_dma_wmb();
	memcpy(&first8, txq->wq + (size_t)(last & txq->mask) * ZN_MLX5_SEND_WQE_BB, 8);
	if (__builtin_expect(txq->uar->va != NULL, 1))
		*(volatile uint64_t *)(txq->uar->va + txq->bf_off) = first8;
	else
		zn_mlx5_uar_write64_slow(txq->uar, txq->bf_off, first8);
	txq->bf_off ^= ZN_MLX5_UAR_BF_SIZE;
}

uint32_t zn_mlx5_tx_burst(struct mlx5_txq *txq, const struct zn_tx_pkt *pkts, uint32_t n)
{
	const uint32_t mask = txq->mask, min_inline = txq->min_inline;
	const uint32_t lkey_be = zn_mlx5_bswap32(txq->lkey);
	uint32_t prod = txq->prod, room = mask + 1 - (prod - txq->cons), sent = 0, last = 0;
	struct inline_cache ic = { 0, 0 };
	uint64_t bytes = 0;

	zn_owner_enter(&txq->owner, "TX queue");
	if (__builtin_expect(txq->err, 0))
		return 0;
	for (; sent < n; sent++) {
		const struct zn_tx_pkt *p = &pkts[sent];
		struct mlx5_tx_slot *s = &txq->sw[prod & mask];
		const uint8_t *src = NULL;
		uint32_t nbb, inl = min_inline;
		uint64_t b;

		/* Room for the largest WQE of its kind, whatever this one needs. */
		if (room < TX_PLAIN_BB ||
		    (__builtin_expect(p->flags & ZN_TX_F_LSO, 0) && room < TX_MAX_BB)) {
			txq->st.full += n - sent;
			break;
		}
		if (__builtin_expect((min_inline | p->flags) != 0, 0) && p->nseg) {
			/* LSO: every header byte inline */
			inl = p->flags & ZN_TX_F_LSO ?
			      (uint32_t)p->l2_len + p->l3_len + p->l4_len : min_inline;
			src = inline_va(&ic, p->seg[0].iova, p->seg[0].len < inl ?
					p->seg[0].len : inl);
		}
		/* Only the burst's last WQE asks for a CQE (set below). */
		nbb = tx_wqe(txq->wq, mask, prod, txq->sqn, lkey_be, inl, src, p, 0,
			     txq->offloads, txq->max_lso, &b);
		if (!nbb) {
			txq->st.errors++;
			break;
		}
		s->cookie = p->cookie;
		s->nbb = (uint16_t)nbb;
		last = prod;
		prod += nbb;
		room -= nbb;
		bytes += b;
	}
	if (sent) {
		/* Its wqe_counter completes every WQE of the burst, in order. */
		txq->wq[(size_t)(last & mask) * ZN_MLX5_SEND_WQE_BB +
			offsetof(struct zn_mlx5_wqe_ctrl, fm_ce_se)] = ZN_MLX5_WQE_CTRL_CQ_UPDATE;
		txq->prod = prod;
		txq->st.packets += sent;
		txq->st.bytes += bytes;
		ring_doorbell(txq, last);
	}
	return sent;
}

/* Completions: each names the last WQE done; everything before it is too. */
static void tx_poll_cq(struct mlx5_txq *txq)
{
	const uint32_t cq_mask = (1u << txq->cq.log_sz) - 1;
	uint32_t seen = 0;

	while (seen <= cq_mask) {
		const struct zn_mlx5_cqe64 *cqe = &txq->cq.cqe[txq->cq.ci & cq_mask];
		unsigned op;
		uint32_t dist, raw, nbb;

		if (!zn_mlx5_cqe_sw_owned(cqe, txq->cq.ci, txq->cq.log_sz))
			break;
		zn_dma_rmb();
		txq->cq.ci++;
		seen++;
		op = zn_mlx5_cqe_opcode(cqe);
		if (op == ZN_MLX5_CQE_REQ_ERR) {
			txq->st.errors++;
			txq->err = true;	/* the SQ is in ERR: nothing more is sent */
		} else if (op != ZN_MLX5_CQE_REQ || ((cqe->op_own >> 2) & 3)) {
			txq->st.bad_cmpl++;
			continue;
		}
		dist = (uint16_t)(zn_mlx5_bswap16(cqe->wqe_counter_be) - (uint16_t)txq->done);
		raw = txq->done + dist;
		if (dist >= txq->prod - txq->done ||
		    !(nbb = txq->sw[raw & txq->mask].nbb)) {
			txq->st.bad_cmpl++;
			continue;
		}
		txq->done = raw + nbb;
	}
	if (seen) {
		zn_dma_rmb();	/* CQEs read before their slots go back */
		txq->cq.dbr[ZN_MLX5_CQ_DBR_SET_CI] = zn_mlx5_bswap32(txq->cq.ci & ZN_MLX5_CQ_CI_MASK);
	}
}

/* Cookies a recovery flushed: older than anything on the ring now. */
static uint32_t reap_flushed(struct mlx5_txq *txq, uint64_t *cookies, uint32_t n)
{
	uint32_t got = 0;

	while (got < n && txq->flushed_next < txq->nflushed)
		cookies[got++] = txq->flushed[txq->flushed_next++];
	if (txq->flushed_next == txq->nflushed)
		txq->nflushed = txq->flushed_next = 0;
	return got;
}

void zn_mlx5_txq_flush(struct mlx5_txq *txq)
{
	const uint32_t cap = 2 * (txq->mask + 1);
	uint32_t i, lost = 0;

	tx_poll_cq(txq);	/* completions written before the reset still count */
	i = txq->cons;
	/* what an earlier recovery left unreaped goes first */
	memmove(txq->flushed, txq->flushed + txq->flushed_next,
		(size_t)(txq->nflushed - txq->flushed_next) * sizeof(*txq->flushed));
	txq->nflushed -= txq->flushed_next;
	txq->flushed_next = 0;
	while (i != txq->prod) {
		const struct mlx5_tx_slot *s = &txq->sw[i & txq->mask];

		if (!s->nbb || s->nbb > txq->prod - i)	/* the ring's books are ours: a bug */
			break;
		if (i - txq->done < txq->prod - txq->done)
			txq->st.errors++;	/* in flight: never sent, or not known to be */
		if (txq->nflushed < cap)
			txq->flushed[txq->nflushed++] = s->cookie;
		else
			lost++;
		i += s->nbb;
	}
	txq->cons = txq->done = txq->prod;
	if (lost)
		ZN_ERR(MLX5_LOG, "txq %u: %u cookies of work a reset took are lost (resets "
		       "came faster than tx_reap)", txq->qid, lost);
}

uint32_t zn_mlx5_tx_reap(struct mlx5_txq *txq, uint64_t *cookies, uint32_t n)
{
	uint32_t got = 0;

	zn_owner_enter(&txq->owner, "TX queue");
	if (__builtin_expect(txq->nflushed != 0, 0))
		got = reap_flushed(txq, cookies, n);
	tx_poll_cq(txq);
	while (got < n && txq->cons != txq->done) {
		struct mlx5_tx_slot *s = &txq->sw[txq->cons & txq->mask];

		cookies[got++] = s->cookie;
		txq->cons += s->nbb;
		s->nbb = 0;
	}
	return got;
}

void zn_mlx5_txq_reset(struct mlx5_txq *txq)
{
	uint32_t ncqe = 1u << txq->cq.log_sz;

	txq->prod = txq->cons = txq->done = 0;
	memset(txq->sw, 0, (size_t)(txq->mask + 1) * sizeof(*txq->sw));
	memset(txq->wq, 0, (size_t)(txq->mask + 1) * ZN_MLX5_SEND_WQE_BB);
	for (uint32_t i = 0; i < ncqe; i++)
		txq->cq.cqe[i].op_own = ZN_MLX5_CQE_OP_OWN_INIT;
	txq->cq.ci = 0;
	txq->cq.dbr[0] = txq->cq.dbr[1] = 0;
	txq->sq_dbr[0] = txq->sq_dbr[1] = 0;
	txq->bf_off = ZN_MLX5_UAR_BF_OFFSET;
	txq->err = false;
}

int zn_mlx5_txq_create(struct mlx5 *m, uint16_t q, const struct zn_txq_conf *conf,
		       struct mlx5_txq **out)
{
	uint32_t ring = conf->ring_size ? conf->ring_size : MLX5_TX_RING_DFLT;
	size_t off_cq, off_dbr, len;
	struct mlx5_txq *txq;
	int rc;

	if (ring & (ring - 1) || ring < MLX5_RING_MIN || ring > MLX5_TX_RING_MAX ||
	    31u - (uint32_t)__builtin_clz(ring) > m->caps.log_max_wq_sz) {
		ZN_ERR(MLX5_LOG, "%s: txq %u: ring of %u: a power of two in %u..%u", m->name, q,
		       ring, MLX5_RING_MIN, MLX5_TX_RING_MAX);
		return -EINVAL;
	}
	txq = calloc(1, sizeof(*txq));
	if (!txq)
		return -ENOMEM;
	txq->sw = calloc(ring, sizeof(*txq->sw));
	txq->flushed = calloc(2 * (size_t)ring, sizeof(*txq->flushed));
	if (!txq->sw || !txq->flushed) {
		free(txq->sw);
		free(txq->flushed);
		free(txq);
		return -ENOMEM;
	}
	txq->qid = q;
	txq->mask = ring - 1;
	txq->cq.log_sz = 31u - (uint32_t)__builtin_clz(ring);
	txq->lkey = m->lkey;
	txq->uar = &m->uar;
	txq->offloads = zn_mlx5_tx_offloads(&m->caps);
	txq->max_lso = zn_mlx5_max_lso(&m->caps);
	/* §14.1: what the device needs inline (cap wqe_inline_mode, vport context). */
	switch (m->caps.wqe_inline_mode == ZN_MLX5_CAP_INLINE_MODE_L2 ? ZN_MLX5_INLINE_MODE_L2 :
		m->caps.wqe_inline_mode == ZN_MLX5_CAP_INLINE_MODE_VPORT_CONTEXT ?
		m->vport_inline_mode : ZN_MLX5_INLINE_MODE_NONE) {
	case ZN_MLX5_INLINE_MODE_NONE: txq->min_inline = 0; break;
	case ZN_MLX5_INLINE_MODE_L2: txq->min_inline = TX_INLINE_L2; break;
	case ZN_MLX5_INLINE_MODE_IP: txq->min_inline = TX_INLINE_L3; break;
	default: txq->min_inline = TX_INLINE_L4; break;
	}

	off_cq = (size_t)ring * ZN_MLX5_SEND_WQE_BB;
	off_dbr = off_cq + ((size_t)ZN_MLX5_CQE_SIZE << txq->cq.log_sz);
	len = off_dbr + 2 * ZN_MLX5_DBR_ALIGN;
	rc = zn_mlx5_dma_alloc(m, "mlx5-txq", len, &txq->dma);
	if (rc < 0) {
		free(txq->sw);
		free(txq->flushed);
		free(txq);
		return rc;
	}
	txq->wq = txq->dma->va;
	txq->wq_iova = txq->dma->iova;
	txq->cq.cqe = (void *)((uint8_t *)txq->dma->va + off_cq);
	txq->cq.iova = txq->dma->iova + off_cq;
	txq->cq.dbr = (void *)((uint8_t *)txq->dma->va + off_dbr);
	txq->cq.dbr_iova = txq->dma->iova + off_dbr;
	txq->sq_dbr = (void *)((uint8_t *)txq->dma->va + off_dbr + ZN_MLX5_DBR_ALIGN);
	txq->sq_dbr_iova = txq->dma->iova + off_dbr + ZN_MLX5_DBR_ALIGN;
	zn_mlx5_txq_reset(txq);
	*out = txq;
	return 0;
}

void zn_mlx5_txq_destroy(struct mlx5 *m, struct mlx5_txq *txq)
{
	if (!txq)
		return;
	zn_mlx5_dma_free(m, &txq->dma);
	free(txq->sw);
	free(txq->flushed);
	free(txq);
}
