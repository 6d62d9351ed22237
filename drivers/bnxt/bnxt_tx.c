/* SPDX-License-Identifier: MIT */
/*
 * TX queues: the burst and the reap (hw-docs/bnxt.md §8).
 *
 *        cons            done                  prod
 *   ------|================|====================|---------
 *          completed, cookies   posted, the device's     free
 *          not yet reaped
 *
 * A frame of n segments is n short BDs (plus one pad BD if it is shorter
 * than 52 bytes, pointing at zeroes); its first slot's software state holds
 * the cookie and the slot count. Every frame but the last of a burst is sent
 * with NO_CMPL; the last one's completion (opaque = raw index of its first
 * slot) completes the whole burst, since completions come in order. So the
 * device writes one completion per burst, and a completion is valid only if
 * it names, within [done, prod), a frame that asked for one. A frame the
 * device rejects gets an error completion even with NO_CMPL: it may name any
 * frame in flight, which is then looked for by walking from done.
 *
 * Ring space comes back only through tx_reap, which hands out the cookies
 * of completed frames in order.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define TX_PAD_BYTES	64

int zn_bnxt_txq_create(struct bnxt *bp, uint16_t q, const struct zn_txq_conf *conf,
		       struct bnxt_txq **out)
{
	uint32_t ts = conf->ring_size ? conf->ring_size : BNXT_TX_RING_DFLT;
	uint32_t cs, mtu = bp->conf.mtu ? bp->conf.mtu : BNXT_MTU_DFLT;
	struct bnxt_txq *txq;
	size_t len, off = 0;
	uint8_t *pad;
	char name[32];
	int rc;

	if (!zn_is_pow2(ts) || ts < BNXT_RING_MIN || ts > BNXT_TX_RING_MAX) {
		ZN_ERR(BNXT_LOG, "%s: txq %u: ring size %u must be a power of two in %u..%u",
		       bp->name, q, ts, BNXT_RING_MIN, BNXT_TX_RING_MAX);
		return -EINVAL;
	}
	/* At most one completion per frame in flight, plus HWRM_DONE at free. */
	cs = ts * 2 > BNXT_RING_MAX ? BNXT_RING_MAX : ts * 2;
	txq = calloc(1, sizeof(*txq));
	if (!txq)
		return -ENOMEM;
	txq->sw = calloc(ts, sizeof(*txq->sw));
	/* two resets' worth before the first one's frames were reaped */
	txq->lost_cap = 2 * ts;
	txq->lost = calloc(txq->lost_cap, sizeof(*txq->lost));
	if (!txq->sw || !txq->lost) {
		rc = -ENOMEM;
		goto err_free;
	}
	len = (size_t)cs * BNXT_CMPL_SIZE + (size_t)ts * BNXT_BD_SIZE + TX_PAD_BYTES +
	      sizeof(struct bnxt_ctx_hw_stats) + 3 * 4096;
	snprintf(name, sizeof(name), "bnxt-txq%u", q);
	rc = zn_dma_region_alloc(name, len, conf->numa_node, ZN_DMA_NO_HUGE, &txq->dma);
	if (rc < 0)
		goto err_free;
	rc = zn_bus_dma_map(bp->bus, txq->dma);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: txq %u: cannot DMA-map its rings: %s", bp->name, q,
		       strerror(-rc));
		goto err_region;
	}
	txq->cq_ring.va = zn_bnxt_carve(txq->dma, &off, (size_t)cs * BNXT_CMPL_SIZE, 4096,
					&txq->cq_ring.iova);
	txq->tx.va = zn_bnxt_carve(txq->dma, &off, (size_t)ts * BNXT_BD_SIZE, 4096,
				   &txq->tx.iova);
	pad = zn_bnxt_carve(txq->dma, &off, TX_PAD_BYTES, 64, &txq->pad_iova);
	memset(pad, 0, TX_PAD_BYTES);
	txq->hw_stats = zn_bnxt_carve(txq->dma, &off, sizeof(*txq->hw_stats), 64,
				      &txq->hw_stats_iova);
	txq->cq_ring.size = cs;
	txq->cq_ring.type = BNXT_RING_TYPE_L2_CMPL;
	txq->tx.size = ts;
	txq->tx.type = BNXT_RING_TYPE_TX;
	txq->cq_ring.id = txq->tx.id = BNXT_INVALID_RING_ID;
	txq->stat_ctx_id = BNXT_INVALID_ID32;
	txq->bd = txq->tx.va;
	txq->mask = ts - 1;
	txq->cq = txq->cq_ring.va;
	txq->cq_size = cs;
	txq->cq_mask = cs - 1;
	txq->max_frame = mtu + BNXT_L2_OVERHEAD;
	txq->qid = q;
	*out = txq;
	return 0;

err_region:
	zn_dma_region_free(txq->dma);
err_free:
	free(txq->lost);
	free(txq->sw);
	free(txq);
	return rc;
}

void zn_bnxt_txq_destroy(struct bnxt *bp, struct bnxt_txq *txq)
{
	if (!txq)
		return;
	zn_bus_dma_unmap(bp->bus, txq->dma);
	zn_dma_region_free(txq->dma);
	free(txq->lost);
	free(txq->sw);
	free(txq);
}

/* Keep the cookies of frames not reaped yet (a stopped queue counts them
 * all done) before the ring starts again from 0. */
static void txq_keep_lost(struct bnxt_txq *q)
{
	uint32_t c = q->cons, dropped = 0;

	if (q->lost_head == q->lost_n)
		q->lost_head = q->lost_n = 0;
	for (uint32_t i = 0; c != q->done && i <= q->mask; i++) {
		const struct bnxt_tx_slot *s = &q->sw[c & q->mask];

		if (!s->nbd)
			break;	/* not a frame's first slot: the walk cannot go on */
		if (q->lost_n < q->lost_cap)
			q->lost[q->lost_n++] = s->cookie;
		else
			dropped++;
		c += s->nbd;
	}
	if (dropped)
		ZN_WARN(BNXT_LOG, "txq %u: %u frames lost in a reset cannot be reported",
			q->qid, dropped);
}

void zn_bnxt_txq_prepare(struct bnxt_txq *q)
{
	txq_keep_lost(q);
	memset((void *)q->cq, 0, (size_t)q->cq_size * BNXT_CMPL_SIZE);
	memset(q->bd, 0, (size_t)(q->mask + 1) * BNXT_BD_SIZE);
	memset(q->sw, 0, (size_t)(q->mask + 1) * sizeof(*q->sw));
	q->prod = q->cons = q->done = 0;
	q->cq_raw = 0;
	q->last_hwrm_done = 0;
}

/* LHINT by total >> 9 (512-byte steps): <512, <1K, <2K, >=2K (bnxt_tx_lhint).
 * Frames the burst takes inline are at most BNXT_MTU_MAX + BNXT_L2_OVERHEAD
 * < 32 << 9 bytes. */
_Static_assert(BNXT_MTU_MAX + BNXT_L2_OVERHEAD < 32u << 9, "LHINT table covers every frame");

#define TX_SIGN 0x80000000u

/*
 * The first BD's flags of a frame the burst takes inline (no pad BD: at
 * least BNXT_TX_MIN_PKT_LEN bytes), by total >> 9 as tx_lhint: the burst ors
 * in length and opaque, so word 0 is one load, two shifts, two ors.
 */
#define TX_W0(type, nbd, end) ((type) | BNXT_TX_BD_FLAGS_NO_CMPL | \
			       (nbd) << BNXT_TX_BD_FLAGS_BD_CNT_SFT | (end))
#define TX_W0_ROW(type, nbd, end) { \
	TX_W0(type, nbd, end) | LH(0), TX_W0(type, nbd, end) | LH(1), \
	TX_W0(type, nbd, end) | LH(2), TX_W0(type, nbd, end) | LH(2), \
	[4 ... 31] = TX_W0(type, nbd, end) | LH(3) }
#define LH(x) ((x) << 13)
static const uint16_t tx_w0_1seg[32] =
	TX_W0_ROW(BNXT_TX_BD_TYPE_SHORT, 1, BNXT_TX_BD_FLAGS_PACKET_END);
/* [1]: with the L4 checksum, a long BD, its lflags slot, the payload's BD */
static const uint16_t tx_w0_2seg[2][32] = {
	TX_W0_ROW(BNXT_TX_BD_TYPE_SHORT, 2, 0), TX_W0_ROW(BNXT_TX_BD_TYPE_LONG, 3, 0),
};
#undef LH
#undef TX_W0_ROW
#undef TX_W0

/*
 * The frame's BDs from prod on. The first BD's word 0 carries flags, length
 * and opaque (the raw index of that slot); every BD its address. Each BD is
 * two 64-bit stores.
 */
static inline void put_bd(struct bnxt_tx_bd *bd, uint64_t w0, uint64_t addr)
{
	uint64_t *w = (uint64_t *)bd;

	w[0] = w0;
	w[1] = addr;
}

/* The zn_tx_pkt flags as long-BD lflags; LSO takes the lengths too. */
_Static_assert(BNXT_TX_OFFLOADS == (ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM | ZN_TX_F_LSO),
	       "every offload bnxt offers is mapped below");
static uint16_t tx_lflags(uint32_t fl)
{
	return (uint16_t)((fl & ZN_TX_F_IP_CSUM ? BNXT_TX_BD_LFLAGS_IP_CHKSUM : 0) |
			  (fl & ZN_TX_F_L4_CSUM ? BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM : 0) |
			  (fl & ZN_TX_F_LSO ? BNXT_TX_BD_LFLAGS_LSO : 0));
}

/*
 * A frame the burst does not take inline (3 or 4 segments, one that needs
 * a pad BD, LSO, one segment with offloads: a long BD, an invalid one): its
 * checks and BDs. Returns its slot count, 0 if it is invalid, or ~0u if it
 * does not fit in avail slots.
 *
 * Offloads (hw-docs/bnxt.md §8.3): the first BD is a long one, its second
 * slot (bnxt_tx_bd_long_hi) carries lflags and, for LSO, the header size and
 * the MSS; the buffer BDs follow. PACKET_END marks the last buffer BD, the
 * first one when it is alone ([L] bnxt_start_xmit: the long_hi slot is not
 * a buffer). An LSO frame may be up to
 * BNXT_TX_LSO_MAX bytes; each frame the device cuts (headers + mss) is
 * bound by the MTU like any other.
 */
static __attribute__((noinline)) uint32_t tx_frame_other(struct bnxt_txq *q,
							 const struct zn_tx_pkt *p,
							 uint32_t prod, uint32_t avail,
							 uint32_t *total_out)
{
	const uint32_t ns = p->nseg, fl = p->flags, mask = q->mask;
	const uint32_t lng = fl ? 1 : 0;
	uint32_t max = q->max_frame, total = 0, chk = 0, nbd, wire, hl = 0;
	uint64_t hi = 0;

	if (ns - 1u >= ZN_TX_MAX_SEGS || (fl & ~(uint32_t)BNXT_TX_OFFLOADS))
		return 0;
	if (fl & ZN_TX_F_LSO) {
		hl = (uint32_t)p->l2_len + p->l3_len + p->l4_len;
		/* headers whole in the first buffer, counted in 2-byte units */
		if (!p->mss || p->mss > BNXT_TX_BD_MSS_MASK || !p->l3_len || !p->l4_len ||
		    hl % BNXT_TX_BD_HDR_UNIT || hl > p->seg[0].len || hl + p->mss > max)
			return 0;
		hi = (uint64_t)(hl / BNXT_TX_BD_HDR_UNIT) << 16 | (uint64_t)p->mss << 32;
		max = BNXT_TX_LSO_MAX;
	}
	for (uint32_t s = 0; s < ns; s++) {
		chk |= (p->seg[s].len - 1u) | (max - p->seg[s].len);
		total += p->seg[s].len;
	}
	if ((chk | (max - total)) & TX_SIGN || (hl && total <= hl))
		return 0;
	wire = hl && total > hl + p->mss ? hl + p->mss : total;
	nbd = lng + ns + (total < BNXT_TX_MIN_PKT_LEN);
	if (nbd > avail)
		return ~0u;
	put_bd(&q->bd[prod & mask],
	       (uint64_t)((lng ? BNXT_TX_BD_TYPE_LONG : BNXT_TX_BD_TYPE_SHORT) |
			  BNXT_TX_BD_FLAGS_NO_CMPL | (nbd << BNXT_TX_BD_FLAGS_BD_CNT_SFT) |
			  bnxt_tx_lhint(wire) | (nbd == lng + 1 ? BNXT_TX_BD_FLAGS_PACKET_END : 0)) |
	       (uint64_t)p->seg[0].len << 16 | (uint64_t)prod << 32, p->seg[0].iova);
	if (lng)
		put_bd(&q->bd[(prod + 1) & mask], tx_lflags(fl) | hi, 0);
	for (uint32_t s = 1; s < ns; s++)
		put_bd(&q->bd[(prod + lng + s) & mask],
		       (lng + s == nbd - 1 ? BNXT_TX_BD_FLAGS_PACKET_END : 0u) |
		       (uint64_t)p->seg[s].len << 16, p->seg[s].iova);
	if (nbd > lng + ns)
		put_bd(&q->bd[(prod + lng + ns) & mask], BNXT_TX_BD_FLAGS_PACKET_END |
		       (uint64_t)(BNXT_TX_MIN_PKT_LEN - total) << 16, q->pad_iova);
	*total_out = total;
	return nbd;
}

/* nseg and flags read as one word: a frame without offloads is 1 or 2. */
_Static_assert(offsetof(struct zn_tx_pkt, flags) == offsetof(struct zn_tx_pkt, nseg) + 2 &&
	       sizeof(((struct zn_tx_pkt *)0)->nseg) == 2, "zn_tx_pkt nseg | flags << 16");

/*
 * Two segments the burst takes inline: each at least 1 byte,
 * BNXT_TX_MIN_PKT_LEN..max in all (no pad BD). (l0 - 1) | (l1 - 1) <=
 * l0 + l1 - 2 < max for valid lengths; a 0 gives ~0u.
 */
static inline bool two_segs_inline(const struct zn_tx_pkt *p, uint32_t max, uint64_t max_less_min)
{
	const uint32_t l0 = p->seg[0].len, l1 = p->seg[1].len;

	return ((l0 - 1u) | (l1 - 1u)) < max &&
	       (uint64_t)l0 + l1 - BNXT_TX_MIN_PKT_LEN <= max_less_min;
}

/*
 * The BDs of two segments that two_segs_inline took: header and payload;
 * lng (a constant at each call) adds the L4 checksum (a UDP datagram, a
 * TCP segment without LSO) as tx_frame_other would, a long BD and its
 * lflags slot, without its loops. Returns the slots used.
 */
static inline __attribute__((always_inline)) uint32_t
put_two_segs(struct bnxt_tx_bd *bd, uint32_t mask, uint32_t prod, const struct zn_tx_pkt *p,
	     uint64_t opq, const uint32_t lng, uint32_t *total)
{
	const uint32_t l0 = p->seg[0].len, l1 = p->seg[1].len;

	*total = l0 + l1;
	put_bd(&bd[prod & mask], tx_w0_2seg[lng][*total >> 9] | (uint64_t)l0 << 16 | opq,
	       p->seg[0].iova);
	if (lng)
		put_bd(&bd[(prod + 1) & mask], BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM, 0);
	put_bd(&bd[(prod + 1 + lng) & mask],
	       BNXT_TX_BD_FLAGS_PACKET_END | (uint64_t)l1 << 16, p->seg[1].iova);
	return 2 + lng;
}

uint32_t zn_bnxt_tx_burst(struct bnxt_txq *q, const struct zn_tx_pkt *pkts, uint32_t n)
{
	struct bnxt_tx_bd *const bd = q->bd;
	struct bnxt_tx_slot *const sw = q->sw;
	const uint32_t mask = q->mask, max = q->max_frame;
	const uint64_t max_less_min = max - BNXT_TX_MIN_PKT_LEN; /* MTU >= 68 */
	uint32_t prod = q->prod, avail = mask - (prod - q->cons), last = 0, i;
	uint64_t bytes = 0;

	zn_owner_enter(&q->owner, "TX queue");

	for (i = 0; i < n; i++) {
		const struct zn_tx_pkt *p = &pkts[i];
		const uint32_t start = prod, ps = prod & mask, l0 = p->seg[0].len;
		uint32_t ns;
		const uint64_t opq = (uint64_t)prod << 32;	/* the first BD's opaque */
		uint32_t total, nbd;
		uint64_t w0;

		memcpy(&ns, &p->nseg, sizeof(ns));	/* nseg | flags << 16 */
		/* Inline: 1 or 2 segments, no offload or (2 segments) the L4 checksum,
		 * BNXT_TX_MIN_PKT_LEN..max bytes in all, each segment at least 1.
		 * Anything else (a pad BD, 3 or 4 segments, LSO, invalid) goes to
		 * tx_frame_other. */
		if (__builtin_expect(ns == 1 && l0 - BNXT_TX_MIN_PKT_LEN <= max_less_min, 1)) {
			if (__builtin_expect(!avail, 0))
				goto full;
			total = l0;
			nbd = 1;
			w0 = tx_w0_1seg[total >> 9] | (uint64_t)l0 << 16 | opq;
			put_bd(&bd[ps], w0, p->seg[0].iova);
		} else if (__builtin_expect(ns == 2, 1) && two_segs_inline(p, max, max_less_min)) {
			if (__builtin_expect(avail < 2, 0))
				goto full;
			nbd = put_two_segs(bd, mask, prod, p, opq, 0, &total);
		} else if (__builtin_expect(ns == (2u | ZN_TX_F_L4_CSUM << 16), 1) &&
			   two_segs_inline(p, max, max_less_min)) {
			if (__builtin_expect(avail < 3, 0))
				goto full;
			nbd = put_two_segs(bd, mask, prod, p, opq, 1, &total);
		} else {
			nbd = tx_frame_other(q, p, prod, avail, &total);
			if (!nbd)
				goto bad;
			if (nbd == ~0u)
				goto full;
		}
		sw[ps].cookie = p->cookie;
		sw[ps].meta = nbd;		/* want_cmpl 0 */
		prod += nbd;
		avail -= nbd;
		bytes += total;
		last = start;
	}
	goto ring;
full:
	q->st.full++;
	goto ring;
bad:
	q->st.errors++;
	ZN_LOG_RL(ZN_LOG_WARN, BNXT_LOG, "txq %u: frame %u refused: %u segments, each "
		  "1..%u bytes, %u in all at most (LSO: %u), offload flags 0x%x of 0x%x with "
		  "valid lengths", q->qid, i, ZN_TX_MAX_SEGS, max, max, BNXT_TX_LSO_MAX,
		  i < n ? pkts[i].flags : 0, BNXT_TX_OFFLOADS);
ring:
	if (prod == q->prod)
		return i;
	/* The burst's last frame asks for the completion that covers them all. */
	bd[last & mask].flags_type &= (uint16_t)~BNXT_TX_BD_FLAGS_NO_CMPL;
	sw[last & mask].want_cmpl = 1;
	q->prod = prod;
	q->st.packets += i;
	q->st.bytes += bytes;
	bnxt_db_write(&q->sq_db, prod & mask);
	return i;
}

/* An error completion may name a frame sent with NO_CMPL: find it. */
static __attribute__((noinline)) bool find_frame(const struct bnxt_txq *q, uint32_t done,
						 uint32_t x)
{
	uint32_t p = done;

	/* x - done < prod - done was checked: the walk ends. */
	while (p != x) {
		uint16_t nbd = q->sw[p & q->mask].nbd;

		if (!nbd)
			return false;
		p += nbd;
		if (p - done > x - done)
			return false;
	}
	return true;
}

static __attribute__((noinline)) void tx_bad(struct bnxt_txq *q, uint32_t raw, const char *why)
{
	q->st.bad_cmpl++;
	ZN_LOG_RL(ZN_LOG_WARN, BNXT_LOG, "txq %u: completion at slot %u rejected: %s",
		  q->qid, raw & q->cq_mask, why);
}

uint32_t zn_bnxt_tx_reap(struct bnxt_txq *q, uint64_t *cookies, uint32_t n)
{
	const uint32_t mask = q->mask;
	struct bnxt_tx_slot *const sw = q->sw;	/* a local: cookies[] may alias q */
	uint32_t raw = q->cq_raw, done = q->done, cons, k = 0;

	zn_owner_enter(&q->owner, "TX queue");
	if (__builtin_expect(q->lost_n != 0, 0)) {
		/* frames a reset took: their senders hear first */
		while (q->lost_head != q->lost_n && k < n)
			cookies[k++] = q->lost[q->lost_head++];
		if (q->lost_head == q->lost_n)
			q->lost_head = q->lost_n = 0;
		if (k)
			return k;
	}

	for (uint32_t budget = q->cq_size; budget; budget--) {
		const struct bnxt_tx_cmpl *c =
			(const void *)(q->cq + (size_t)(raw & q->cq_mask) * BNXT_CMPL_SIZE);
		uint32_t type, x;

		if (!bnxt_cmpl_valid(c, raw, q->cq_size))
			break;
		zn_dma_rmb();
		type = c->flags_type & BNXT_CMPL_TYPE_MASK;
		if (__builtin_expect(type == BNXT_CMPL_TYPE_TX_L2, 1)) {
			x = c->opaque;
			if (x - done >= q->prod - done) {
				tx_bad(q, raw, "opaque names no frame in flight");
			} else if (!(c->flags_type & BNXT_TX_CMPL_FLAGS_ERROR) &&
				   !(c->errors_v & (uint16_t)~BNXT_CMPL_V)) {
				if (q->sw[x & mask].want_cmpl)
					done = x + q->sw[x & mask].nbd;
				else
					tx_bad(q, raw, "completion for a frame sent without one");
			} else if (find_frame(q, done, x)) {
				q->st.errors++;
				ZN_LOG_RL(ZN_LOG_WARN, BNXT_LOG, "txq %u: the device rejected a "
					  "frame: errors 0x%04x", q->qid, c->errors_v);
				done = x + q->sw[x & mask].nbd;
			} else {
				tx_bad(q, raw, "error completion names no frame start");
			}
			raw++;
		} else if (type == BNXT_CMPL_TYPE_HWRM_DONE) {
			q->last_hwrm_done = ((const struct bnxt_hwrm_done_cmpl *)(const void *)c)
						    ->sequence_id | BNXT_HWRM_DONE_SEEN;
			raw++;
		} else {
			uint32_t slots = bnxt_cmpl_slots((uint16_t)type);

			if (slots == 2 && !bnxt_cmpl_valid((const uint8_t *)q->cq +
							   (size_t)((raw + 1) & q->cq_mask) *
							   BNXT_CMPL_SIZE, raw + 1, q->cq_size))
				break;
			tx_bad(q, raw, "record type does not belong on a TX completion ring");
			raw += slots;
		}
	}
	if (raw != q->cq_raw) {
		q->cq_raw = raw;
		if (q->cq_db.key)
			bnxt_db_write(&q->cq_db, raw & q->cq_mask);
	}
	q->done = done;

	cons = q->cons;
	while (cons != done && k < n) {
		struct bnxt_tx_slot *s = &sw[cons & mask];

		cookies[k++] = s->cookie;
		cons += s->nbd;
		s->meta = 0;
	}
	q->cons = cons;
	return k;
}

/* Teardown: consume completions (HWRM_DONE among them) without reaping. */
void zn_bnxt_txq_drain(struct bnxt_txq *q)
{
	zn_bnxt_tx_reap(q, NULL, 0);
}
