/* SPDX-License-Identifier: MIT */
/*
 * RX completion decoding and validation (hw-docs/bnxt.md §6, §9, §10).
 *
 * The device is not trusted: every record is checked before anything in it
 * is used, with compare-and-branch tests cheap enough for the burst loop.
 * A record that fails is "bad": it is consumed (so the walk goes on), counted
 * in bad_cmpl, and nothing it names is touched. The rules:
 *
 *   V      a slot is read only when its V bit has the phase of its pass
 *          (bnxt_cmpl_valid); a 32-byte record needs both slots valid, an RX
 *          record with N AGG records the last of them too; then a read
 *          barrier, then the other fields.
 *   type   RX_L2 (0x11) starts a frame; RX_AGG (0x12) belongs to the RX_L2
 *          record before it; HWRM_DONE (0x20) is accepted; anything else is
 *          bad and consumed by its own size (bnxt_cmpl_slots).
 *   N      the AGG count is at most ZN_RX_MAX_SEGS - 1 (7) and at most the
 *          AGG slots posted; each of the N records must be type RX_AGG.
 *   opaque an RX record names the next RX slot in ring order, and only a
 *          posted one; its AGG records name the next AGG slots in ring order
 *          (zcnic uses no TPA, so the device consumes both rings in order).
 *   len    1..header buffer size in the RX buffer, 1..payload buffer size in
 *          each AGG buffer, and the frame at most the MRU.
 * (The placement field is only reported: ZN_RX_F_SPLIT for HDS.)
 *
 * When a bad RX record is consumed the AGG records after it stay in the ring
 * and each is then consumed on its own: a lone AGG record that names the next
 * AGG slot gives that buffer back to the provider (the device did use it), so
 * the AGG ring neither leaks nor loses its place. A frame the device marks in
 * error (ERROR flag, buffer error, CRC or packet error) is well formed but
 * dropped: its buffers are consumed and counted in errors. Checksum errors
 * are reported in the packet flags, not dropped.
 */
#ifndef ZCNIC_DRIVERS_BNXT_CMPL_H
#define ZCNIC_DRIVERS_BNXT_CMPL_H

#include "drivers/bnxt/bnxt.h"

enum bnxt_cmpl_kind {
	BNXT_CK_NONE = 0,	/* nothing complete at this slot yet */
	BNXT_CK_PKT,		/* a good frame; the packet descriptor is filled */
	BNXT_CK_PKT_ERR,	/* a frame the device flagged: its buffers are consumed */
	BNXT_CK_HWRM_DONE,	/* res.seq = the command's seq_id */
	BNXT_CK_AGG_STRAY,	/* a lone AGG record naming the next AGG slot: consume it */
	BNXT_CK_BAD,		/* rejected; res.bad says why */
};

enum bnxt_cmpl_bad {
	BNXT_BAD_NONE = 0,
	BNXT_BAD_TYPE,		/* a record type that does not belong on this ring */
	BNXT_BAD_AGG_COUNT,	/* more AGG records than a frame may have or than posted */
	BNXT_BAD_OPAQUE,	/* RX record for a slot other than the next posted one */
	BNXT_BAD_LEN,		/* RX buffer length 0 or past the buffer */
	BNXT_BAD_AGG_TYPE,	/* a record inside the group is not RX_AGG */
	BNXT_BAD_AGG_OPAQUE,	/* AGG record for a slot other than the next one */
	BNXT_BAD_AGG_LEN,	/* AGG length 0 or past the buffer */
	BNXT_BAD_FRAME_LEN,	/* frame longer than the MRU */
	BNXT_BAD_AGG_STRAY,	/* a lone AGG record naming some other slot */
	BNXT_BAD_MAX
};

struct bnxt_cmpl_res {
	uint8_t kind;		/* enum bnxt_cmpl_kind */
	uint8_t bad;		/* enum bnxt_cmpl_bad */
	uint8_t nagg;		/* AGG slots the record consumed */
	uint16_t seq;		/* HWRM_DONE sequence_id */
};

#define BNXT_RX_MAX_AGG		(ZN_RX_MAX_SEGS - 1)

/* Errors that make the device's frame unusable (hw-docs/bnxt.md §9.2). */
#define BNXT_RX_ERRORS_DROP \
	(BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_MASK | BNXT_RX_CMPL_ERRORS_CRC_ERROR | \
	 BNXT_RX_CMPL_ERRORS_T_PKT_ERROR_MASK | BNXT_RX_CMPL_ERRORS_PKT_ERROR_MASK)

/*
 * The packet flags of a good frame: one table load. Index bits 0-1 flags2
 * IP/L4 checksum computed, 2-3 errors IP/L4 checksum bad, 4 flags_type bit 8
 * (placement bit 1: set for HDS (2), and the undefined placements 3, 6 and
 * 7 too) -> ZN_RX_F_SPLIT, 6 flags_type bit 10 (RSS_VALID) ->
 * ZN_RX_F_RSS_HASH. The checksum flags by bits 0-3 (computed | bad << 2)
 * are packed a byte each in two 64-bit constants, so the table is built at
 * compile time: OK when computed and not bad, BAD when computed and bad,
 * nothing when not computed.
 */
#define BNXT_CS_L3OK	ZN_RX_F_L3_CSUM_OK
#define BNXT_CS_L4OK	ZN_RX_F_L4_CSUM_OK
#define BNXT_CS_L3BAD	ZN_RX_F_L3_CSUM_BAD
#define BNXT_CS_L4BAD	ZN_RX_F_L4_CSUM_BAD
#define BNXT_CS_B(i, v)	((uint64_t)(v) << (8 * ((i) & 7)))
#define BNXT_CS_0_7 \
	(BNXT_CS_B(1, BNXT_CS_L3OK) | BNXT_CS_B(2, BNXT_CS_L4OK) | \
	 BNXT_CS_B(3, BNXT_CS_L3OK | BNXT_CS_L4OK) | BNXT_CS_B(5, BNXT_CS_L3BAD) | \
	 BNXT_CS_B(6, BNXT_CS_L4OK) | BNXT_CS_B(7, BNXT_CS_L3BAD | BNXT_CS_L4OK))
#define BNXT_CS_8_15 \
	(BNXT_CS_B(9, BNXT_CS_L3OK) | BNXT_CS_B(10, BNXT_CS_L4BAD) | \
	 BNXT_CS_B(11, BNXT_CS_L3OK | BNXT_CS_L4BAD) | BNXT_CS_B(13, BNXT_CS_L3BAD) | \
	 BNXT_CS_B(14, BNXT_CS_L4BAD) | BNXT_CS_B(15, BNXT_CS_L3BAD | BNXT_CS_L4BAD))
#define BNXT_CS(i) \
	((uint8_t)((((i) & 8 ? BNXT_CS_8_15 : BNXT_CS_0_7) >> (8 * ((i) & 7))) & 0xffu))
#define BNXT_RXF(i) \
	((uint8_t)(BNXT_CS(i) | ((i) & 0x10 ? ZN_RX_F_SPLIT : 0) | \
		   ((i) & 0x40 ? ZN_RX_F_RSS_HASH : 0)))
#define BNXT_RXF4(i)	BNXT_RXF(i), BNXT_RXF((i) + 1), BNXT_RXF((i) + 2), BNXT_RXF((i) + 3)
#define BNXT_RXF16(i)	BNXT_RXF4(i), BNXT_RXF4((i) + 4), BNXT_RXF4((i) + 8), BNXT_RXF4((i) + 12)
static const uint8_t bnxt_rx_flag_tbl[128] = {
	BNXT_RXF16(0), BNXT_RXF16(16), BNXT_RXF16(32), BNXT_RXF16(48),
	BNXT_RXF16(64), BNXT_RXF16(80), BNXT_RXF16(96), BNXT_RXF16(112),
};
_Static_assert(BNXT_RX_CMPL_FLAGS_RSS_VALID == 0x400u && BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS == 0x100u &&
	       BNXT_RX_CMPL_FLAGS2_IP_CS_CALC == 1u && BNXT_RX_CMPL_FLAGS2_L4_CS_CALC == 2u &&
	       BNXT_RX_CMPL_ERRORS_IP_CS_ERROR == 0x10u && BNXT_RX_CMPL_ERRORS_L4_CS_ERROR == 0x20u,
	       "the flag table's index bits");

static inline uint32_t bnxt_rx_flags(uint32_t ft, uint32_t flags2, uint32_t errs)
{
	return bnxt_rx_flag_tbl[(flags2 & 0x3u) | ((errs >> 2) & 0xcu) | ((ft >> 4) & 0x50u)];
}

static inline const void *bnxt_cq_slot(const struct bnxt_rx_ctx *c, uint32_t raw)
{
	return c->cq + (size_t)(raw & c->cq_mask) * BNXT_CMPL_SIZE;
}

static inline uint32_t bnxt_rx_bad(struct bnxt_cmpl_res *res, enum bnxt_cmpl_bad why,
				   uint32_t slots)
{
	res->kind = BNXT_CK_BAD;
	res->bad = (uint8_t)why;
	res->nagg = 0;
	return slots;
}

/*
 * Decode the record at pos->cq_raw. Returns the slots it occupies (the walk
 * advances by that much whatever the kind), or 0 when it is not complete
 * yet. For BNXT_CK_PKT, *pkt is filled.
 */
/*
 * With TPA (c->agg_done), the i-th AGG record of the group at raw may name
 * any AGG slot that is posted, not completed ahead already, and not named by
 * an earlier record of the group (hw-docs/bnxt.md 9.4).
 */
static inline bool bnxt_agg_slot_ok(const struct bnxt_rx_ctx *c, const struct bnxt_rx_pos *pos,
				    uint32_t raw, uint32_t i, uint32_t slot)
{
	if (slot > c->agg_mask || ((slot - pos->agg_cons) & c->agg_mask) >= pos->agg_prod - pos->agg_cons ||
	    (c->agg_done[slot / 64] >> (slot % 64) & 1u))
		return false;
	for (uint32_t j = 0; j < i; j++)
		if (((const struct bnxt_rx_agg_cmpl *)bnxt_cq_slot(c, raw + 2 + j))->opaque == slot)
			return false;
	return true;
}

static inline uint32_t bnxt_rx_decode(const struct bnxt_rx_ctx *c, const struct bnxt_rx_pos *pos,
				      struct zn_rx_pkt *pkt, struct bnxt_cmpl_res *res)
{
	uint32_t raw = pos->cq_raw;
	const struct bnxt_rx_pkt_cmpl *lo = bnxt_cq_slot(c, raw);
	const struct bnxt_rx_pkt_cmpl_hi *hi;
	uint32_t type, ft, n, len, total, errs;
	bool err;

	if (!bnxt_cmpl_valid(lo, raw, c->cq_size))
		return 0;
	/* V first, then the rest: the device writes V last. */
	zn_dma_rmb();
	ft = lo->flags_type;
	type = ft & BNXT_CMPL_TYPE_MASK;

	if (__builtin_expect(type != BNXT_CMPL_TYPE_RX_L2, 0)) {
		const struct bnxt_cmpl_base *b = (const void *)lo;

		if (type == BNXT_CMPL_TYPE_HWRM_DONE) {
			res->kind = BNXT_CK_HWRM_DONE;
			res->bad = 0;
			res->nagg = 0;
			res->seq = ((const struct bnxt_hwrm_done_cmpl *)b)->sequence_id;
			return 1;
		}
		if (type == BNXT_CMPL_TYPE_RX_AGG) {
			const struct bnxt_rx_agg_cmpl *a = (const void *)b;

			if (pos->agg_prod != pos->agg_cons &&
			    a->opaque == (pos->agg_cons & c->agg_mask)) {
				res->kind = BNXT_CK_AGG_STRAY;
				res->bad = BNXT_BAD_AGG_STRAY;
				res->nagg = 1;
				return 1;
			}
			return bnxt_rx_bad(res, BNXT_BAD_AGG_STRAY, 1);
		}
		n = bnxt_cmpl_slots((uint16_t)type);
		if (n == 2 && !bnxt_cmpl_valid(bnxt_cq_slot(c, raw + 1), raw + 1, c->cq_size))
			return 0;
		return bnxt_rx_bad(res, BNXT_BAD_TYPE, n);
	}

	hi = bnxt_cq_slot(c, raw + 1);
	if (!bnxt_cmpl_valid(hi, raw + 1, c->cq_size))
		return 0;
	n = bnxt_rx_agg_bufs(lo->agg_bufs_v1);
	if (n > BNXT_RX_MAX_AGG || n > pos->agg_prod - pos->agg_cons)
		return bnxt_rx_bad(res, BNXT_BAD_AGG_COUNT, 2);
	if (n) {
		if (!bnxt_cmpl_valid(bnxt_cq_slot(c, raw + 1 + n), raw + 1 + n, c->cq_size))
			return 0;
		zn_dma_rmb();
	}
	if (lo->opaque != (pos->rx_cons & c->rx_mask) || pos->rx_prod == pos->rx_cons)
		return bnxt_rx_bad(res, BNXT_BAD_OPAQUE, 2);

	errs = hi->errors_v2;
	err = (ft & BNXT_RX_CMPL_FLAGS_ERROR) || (errs & BNXT_RX_ERRORS_DROP);
	len = lo->len;
	total = len;
	for (uint32_t i = 0; i < n; i++) {
		const struct bnxt_rx_agg_cmpl *a = bnxt_cq_slot(c, raw + 2 + i);

		if ((a->type & BNXT_CMPL_TYPE_MASK) != BNXT_CMPL_TYPE_RX_AGG)
			return bnxt_rx_bad(res, BNXT_BAD_AGG_TYPE, 2);
		if (c->agg_done ? !bnxt_agg_slot_ok(c, pos, raw, i, a->opaque) :
		    a->opaque != ((pos->agg_cons + i) & c->agg_mask))
			return bnxt_rx_bad(res, BNXT_BAD_AGG_OPAQUE, 2);
		if (a->len - 1u >= c->agg_buf_size && !err)
			return bnxt_rx_bad(res, BNXT_BAD_AGG_LEN, 2);
		total += a->len;
		if (pkt) {
			const uint32_t sl = c->agg_done ? a->opaque : (pos->agg_cons + i) & c->agg_mask;

			pkt->seg[i].va = c->agg_sw[sl].va;
			pkt->seg[i].buf_id = c->agg_sw[sl].buf_id;
			pkt->seg[i].off = 0;
			pkt->seg[i].len = a->len;
		}
	}
	res->nagg = (uint8_t)n;
	if (err) {
		res->kind = BNXT_CK_PKT_ERR;
		res->bad = 0;
		return 2 + n;
	}
	if (len - 1u >= c->hdr_buf_size)
		return bnxt_rx_bad(res, BNXT_BAD_LEN, 2);
	if (total > c->max_frame)
		return bnxt_rx_bad(res, BNXT_BAD_FRAME_LEN, 2);

	res->kind = BNXT_CK_PKT;
	res->bad = 0;
	if (pkt) {
		pkt->hdr = c->hdr_va + (size_t)(pos->rx_cons & c->rx_mask) * c->hdr_buf_size;
		pkt->hdr_len = (uint16_t)len;
		pkt->queue = c->qid;
		pkt->rss_hash = lo->rss_hash;
		pkt->flags = bnxt_rx_flags(ft, hi->flags2, errs);
		pkt->pkt_len = total;
		pkt->nseg = n;
	}
	return 2 + n;
}

/*
 * The same decode as a function, for tests and the fuzzer: c->cq may be any
 * buffer of c->cq_size 16-byte slots. Returns slots consumed or 0.
 */
uint32_t zn_bnxt_cmpl_parse(const struct bnxt_rx_ctx *c, const struct bnxt_rx_pos *pos,
			    struct zn_rx_pkt *pkt, struct bnxt_cmpl_res *res);
const char *zn_bnxt_cmpl_bad_name(unsigned bad);

#endif
