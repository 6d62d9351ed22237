/* SPDX-License-Identifier: MIT */
/*
 * TPA: receive aggregation in GRO mode (hw-docs/bnxt.md §9.4), the way
 * Linux's bnxt uses it on P5 ([L] bnxt.c bnxt_hwrm_vnic_set_tpa,
 * bnxt_tpa_start, bnxt_tpa_agg, bnxt_tpa_end):
 *
 *   TPA_START  names the next RX slot: the first frame's headers. They are
 *              copied to the aggregation's state (agg_id), since the RX slot
 *              is posted again long before TPA_END.
 *   TPA_AGG    one per AGG buffer: the buffer joins the aggregation (at
 *              most ZN_RX_MAX_SEGS of them). Its opaque names the slot, and
 *              with several aggregations open the slots complete out of
 *              ring order (hw-docs/bnxt.md §9.4): any posted slot not yet
 *              completed is accepted; agg_done marks those completed ahead
 *              of agg_cons, which steps over them once the gap closes, so
 *              the refill (behind agg_cons) only reposts completed slots.
 *   TPA_END    the aggregation is one zn_rx_pkt with ZN_RX_F_AGG: headers
 *              from the state with the IP length (and the IPv4 checksum)
 *              rewritten for the whole, the AGG buffers as segments,
 *              agg_segs = tpa_segs, gso_size = seg_len.
 *
 * Every record is checked as bnxt_cmpl.h checks RX records: V on both
 * slots, the RX / AGG slot it names is the next one and posted, the agg_id
 * is one we track and in the right state, lengths within the buffers, the
 * AGG count of TPA_END the one we saw. A bad record is consumed and
 * counted; an aggregation it breaks is dropped with its buffers given back.
 * An aggregation ended in this burst is not restarted in the same burst
 * (its header copy is what the caller reads until the next burst): the
 * burst stops there instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/bnxt/bnxt_cmpl.h"
#include "drivers/common/rx_agg.h"
#include "zcnic/log.h"

/*
 * Frames one aggregation may merge so that its payload fits ZN_RX_MAX_SEGS
 * AGG buffers, GRO_HDS placing a frame's payload in one buffer unless it
 * is longer than a buffer (hw-docs/bnxt.md §9.4); 0: not even one.
 */
uint32_t zn_bnxt_tpa_segs(uint32_t buf, uint32_t mtu, uint32_t want)
{
	uint32_t pay = mtu - 40, segs;	/* TCP payload of a full frame, at most */

	segs = buf >= pay ? ZN_RX_MAX_SEGS * (buf / pay) : ZN_RX_MAX_SEGS / ((pay + buf - 1) / buf);
	if (segs > BNXT_MAX_TPA_SEGS_P5)
		segs = BNXT_MAX_TPA_SEGS_P5;
	if (want && want < segs)
		segs = want;
	return segs;
}

int zn_bnxt_tpa_alloc(struct bnxt_rxq *q, uint32_t segs)
{
	q->tpa = calloc(BNXT_TPA_AGGS, sizeof(*q->tpa));
	if (!q->tpa)
		return -ENOMEM;
	q->tpa_hdr = calloc(BNXT_TPA_AGGS, q->c.hdr_buf_size);
	if (!q->tpa_hdr) {
		free(q->tpa);
		q->tpa = NULL;
		return -ENOMEM;
	}
	q->agg_done = calloc((q->c.agg_mask + 64) / 64, sizeof(*q->agg_done));
	if (!q->agg_done) {
		zn_bnxt_tpa_free(q);
		return -ENOMEM;
	}
	q->c.agg_done = q->agg_done;
	q->tpa_segs = segs;
	return 0;
}

void zn_bnxt_tpa_free(struct bnxt_rxq *q)
{
	free(q->tpa);
	free(q->tpa_hdr);
	free(q->agg_done);
	q->tpa = NULL;
	q->tpa_hdr = NULL;
	q->agg_done = NULL;
	q->c.agg_done = NULL;
}

/* VNIC_TPA_CFG for vnic: GRO mode with Linux's flags, or off (segs 0). */
int zn_bnxt_vnic_tpa(struct bnxt *bp, uint16_t vnic, uint32_t segs)
{
	struct bnxt_hwrm_vnic_tpa_cfg_input req = {
		.hdr.req_type = BNXT_HWRM_VNIC_TPA_CFG,
		.vnic_id = vnic,
	};

	if (segs) {
		if (!bp->max_tpa) {
			struct bnxt_hwrm_vnic_qcaps_input qi = { .hdr.req_type = BNXT_HWRM_VNIC_QCAPS };
			struct bnxt_hwrm_vnic_qcaps_output qo;
			int rc = zn_bnxt_hwrm_send(bp, &qi, sizeof(qi), &qo, sizeof(qo),
						   offsetof(struct bnxt_hwrm_vnic_qcaps_output,
							    rsvd1));

			if (rc < 0)
				return rc;
			bp->max_tpa = qo.max_aggs_supported < BNXT_TPA_AGGS ?
				      qo.max_aggs_supported : BNXT_TPA_AGGS;
			if (!bp->max_tpa) {
				ZN_ERR(BNXT_LOG, "%s: the firmware offers no TPA contexts", bp->name);
				return -EOPNOTSUPP;
			}
		}
		req.flags = BNXT_TPA_CFG_FLAGS_TPA | BNXT_TPA_CFG_FLAGS_ENCAP_TPA |
			    BNXT_TPA_CFG_FLAGS_RSC_WND_UPDATE | BNXT_TPA_CFG_FLAGS_AGG_WITH_ECN |
			    BNXT_TPA_CFG_FLAGS_AGG_WITH_SAME_GRE_SEQ | BNXT_TPA_CFG_FLAGS_GRO;
		req.enables = BNXT_TPA_CFG_ENABLES_MAX_AGG_SEGS | BNXT_TPA_CFG_ENABLES_MAX_AGGS |
			      BNXT_TPA_CFG_ENABLES_MIN_AGG_LEN;
		req.max_agg_segs = (uint16_t)segs;
		req.max_aggs = bp->max_tpa;
		req.min_agg_len = 512;		/* as Linux */
	}
	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

static void tpa_drop(struct bnxt_rxq *q, struct bnxt_tpa *t)
{
	for (uint32_t i = 0; i < t->nseg; i++)
		q->put(q->prov_ctx, &t->seg[i].buf_id, 1);
	t->nseg = 0;
	t->open = false;
}

/* Teardown: buffers held by open aggregations go back. */
void zn_bnxt_tpa_release(struct bnxt_rxq *q)
{
	for (uint32_t i = 0; q->tpa && i < BNXT_TPA_AGGS; i++)
		if (q->tpa[i].open)
			tpa_drop(q, &q->tpa[i]);
}

/* Slots completed out of order are forgotten (the ring starts over). */
void zn_bnxt_agg_done_reset(struct bnxt_rxq *q)
{
	if (q->agg_done)
		memset(q->agg_done, 0, (q->c.agg_mask + 64) / 64 * sizeof(*q->agg_done));
	q->agg_ahead = 0;
}

static uint32_t tpa_bad(struct bnxt_rxq *q, uint32_t raw, const char *why, uint32_t slots)
{
	q->st.bad_cmpl++;
	ZN_LOG_RL(ZN_LOG_WARN, BNXT_LOG, "rxq %u: TPA completion at slot %u rejected: %s",
		  q->c.qid, raw & q->c.cq_mask, why);
	return slots;
}

static bool valid2(const struct bnxt_rxq *q, uint32_t raw)
{
	return bnxt_cmpl_valid(bnxt_cq_slot(&q->c, raw + 1), raw + 1, q->c.cq_size);
}

static bool agg_done_test(const struct bnxt_rxq *q, uint32_t slot)
{
	return q->agg_done[slot / 64] >> (slot % 64) & 1u;
}

static void agg_done_clear(struct bnxt_rxq *q, uint32_t slot)
{
	q->agg_done[slot / 64] &= ~(1ull << (slot % 64));
	q->agg_ahead--;
}

void zn_bnxt_agg_skip(struct bnxt_rxq *q, struct bnxt_rx_pos *pos)
{
	while (q->agg_ahead && pos->agg_cons != pos->agg_prod &&
	       agg_done_test(q, pos->agg_cons & q->c.agg_mask)) {
		agg_done_clear(q, pos->agg_cons & q->c.agg_mask);
		pos->agg_cons++;
	}
}

uint32_t zn_bnxt_agg_plain_end(const struct bnxt_rxq *q, uint32_t cons, uint32_t prod)
{
	for (uint32_t r = cons; q->agg_ahead && r != prod; r++)
		if (agg_done_test(q, r & q->c.agg_mask))
			return r;
	return prod;
}

/*
 * Takes AGG slot `slot` as completed: false when it is not posted (outside
 * agg_cons..agg_prod) or completed already.
 */
bool zn_bnxt_agg_take(struct bnxt_rxq *q, struct bnxt_rx_pos *pos, uint32_t slot)
{
	const uint32_t mask = q->c.agg_mask;

	if (slot > mask || ((slot - pos->agg_cons) & mask) >= pos->agg_prod - pos->agg_cons ||
	    agg_done_test(q, slot))
		return false;
	if (slot != (pos->agg_cons & mask)) {
		q->agg_done[slot / 64] |= 1ull << (slot % 64);
		q->agg_ahead++;
		return true;
	}
	pos->agg_cons++;
	zn_bnxt_agg_skip(q, pos);
	return true;
}

bool zn_bnxt_agg_done(const struct bnxt_rxq *q, uint32_t slot)
{
	return q->agg_done && agg_done_test(q, slot & q->c.agg_mask);
}

uint32_t zn_bnxt_tpa_rx(struct bnxt_rxq *q, struct bnxt_rx_pos *pos, uint32_t type,
			struct zn_rx_pkt *p, bool *got)
{
	const uint32_t raw = pos->cq_raw;
	const void *lo = bnxt_cq_slot(&q->c, raw);
	struct bnxt_tpa *t;
	uint32_t id;

	*got = false;
	if (type == BNXT_CMPL_TYPE_RX_TPA_AGG) {
		const struct bnxt_rx_agg_cmpl *a = lo;
		const uint32_t slot = a->opaque;

		id = (a->v & BNXT_RX_TPA_AGG_ID_MASK_P5) >> BNXT_RX_TPA_AGG_ID_SFT_P5;
		/* the device filled the buffer: it is consumed whatever else is wrong */
		if (!zn_bnxt_agg_take(q, pos, slot))
			return tpa_bad(q, raw, "TPA_AGG names no posted AGG slot, or one completed "
				       "already", 1);
		t = id < BNXT_TPA_AGGS ? &q->tpa[id] : NULL;
		if (!t || !t->open || a->len - 1u >= q->c.agg_buf_size ||
		    t->nseg == ZN_RX_MAX_SEGS) {
			q->put(q->prov_ctx, &q->agg_sw[slot].buf_id, 1);
			if (t && t->open)
				t->bad = true;
			return tpa_bad(q, raw, "TPA_AGG for no open aggregation, of a bad length, "
				       "or past the segments a frame holds", 1);
		}
		t->seg[t->nseg].va = q->agg_sw[slot].va;
		t->seg[t->nseg].buf_id = q->agg_sw[slot].buf_id;
		t->seg[t->nseg].off = 0;
		t->seg[t->nseg].len = a->len;
		t->nseg++;
		return 1;
	}
	if (!valid2(q, raw))
		return 0;
	zn_dma_rmb();
	if (type == BNXT_CMPL_TYPE_RX_TPA_START) {
		const struct bnxt_rx_tpa_start_cmpl *s = lo;
		const struct bnxt_rx_tpa_start_cmpl_hi *sh = bnxt_cq_slot(&q->c, raw + 1);
		const uint32_t rs = pos->rx_cons & q->c.rx_mask;

		id = (s->misc_v1 & BNXT_RX_TPA_AGG_ID_MASK_P5) >> BNXT_RX_TPA_AGG_ID_SFT_P5;
		if (pos->rx_prod == pos->rx_cons || s->opaque != rs)
			return tpa_bad(q, raw, "TPA_START names no posted RX slot in order", 2);
		pos->rx_cons++;
		if (id >= BNXT_TPA_AGGS || s->len - 1u >= q->c.hdr_buf_size ||
		    (sh->cfa_code_v2 & BNXT_RX_TPA_END_ERRORS_MASK_P5))
			return tpa_bad(q, raw, "TPA_START: agg_id, length or buffer error", 2);
		t = &q->tpa[id];
		if (t->ended == q->burst_seq && q->burst_seq) {
			pos->rx_cons--;		/* its header copy is still out: next burst */
			return 0;
		}
		if (t->open) {
			tpa_drop(q, t);
			tpa_bad(q, raw, "TPA_START for an open aggregation", 2);
		}
		memcpy(q->tpa_hdr + (size_t)id * q->c.hdr_buf_size,
		       q->c.hdr_va + (size_t)rs * q->c.hdr_buf_size, s->len);
		t->hdr_len = s->len;
		t->ft = s->flags_type;
		t->flags2 = sh->flags2;
		t->rss = s->rss_hash;
		t->nseg = 0;
		t->bad = false;
		t->open = true;
		return 2;
	}
	/* TPA_END */
	{
		const struct bnxt_rx_tpa_end_cmpl *e = lo;
		const struct bnxt_rx_tpa_end_cmpl_hi *eh = bnxt_cq_slot(&q->c, raw + 1);
		uint32_t total = 0, segs = (e->misc_v1 & BNXT_RX_TPA_END_SEGS_MASK) >>
					   BNXT_RX_TPA_END_SEGS_SFT;
		uint8_t *h;

		id = (e->misc_v1 & BNXT_RX_TPA_AGG_ID_MASK_P5) >> BNXT_RX_TPA_AGG_ID_SFT_P5;
		t = id < BNXT_TPA_AGGS ? &q->tpa[id] : NULL;
		if (!t || !t->open)
			return tpa_bad(q, raw, "TPA_END for no open aggregation", 2);
		if (t->bad || (eh->errors_v2 & BNXT_RX_TPA_END_ERRORS_MASK_P5) ||
		    eh->dup_acks >> BNXT_RX_TPA_END_AGG_BUFS_SFT_P5 != t->nseg || !t->nseg ||
		    !segs) {
			q->st.errors++;
			tpa_drop(q, t);
			return 2;
		}
		for (uint32_t i = 0; i < t->nseg; i++) {
			p->seg[i] = t->seg[i];
			total += t->seg[i].len;
		}
		h = q->tpa_hdr + (size_t)id * q->c.hdr_buf_size;
		zn_rx_agg_fix_hdr(h, t->hdr_len, t->hdr_len + total);
		p->hdr = h;
		p->hdr_len = t->hdr_len;
		p->queue = q->c.qid;
		p->rss_hash = t->rss;
		/* checksums: computed means good for every merged frame (Linux
		 * sets CHECKSUM_UNNECESSARY from L4_CS_CALC) */
		p->flags = bnxt_rx_flags(t->ft, t->flags2, 0) | ZN_RX_F_AGG;
		p->pkt_len = t->hdr_len + total;
		p->nseg = t->nseg;
		p->agg_segs = (uint16_t)segs;
		p->gso_size = (uint16_t)eh->seg_len;
		t->open = false;
		t->nseg = 0;
		t->ended = q->burst_seq;
		q->st.agg++;
		*got = true;
		return 2;
	}
}
