/* SPDX-License-Identifier: MIT */
/*
 * TX of the bnxt model (hw-docs/bnxt.md 8, 14 "TX"): from a TX ring's
 * consumer to its producer, packet by packet: check the BDs, DMA-read the
 * buffers into one frame, apply the long BD's offloads (checksums, VLAN
 * insertion), put the frame on the wire, and complete it unless NO_CMPL.
 * A malformed packet is not sent; its error completion is written even with
 * NO_CMPL. TX waits (BDs stay posted) while the wire is full.
 */
#include <string.h>

#include "sim/bnxt/priv.h"

#define TX_BUDGET	64	/* packets per ring per poll, for fairness */
#define TPID_8021Q	0x8100
#define TPID_8021AD	0x88a8

static void stat_tx(struct bsim_stat *st, const uint8_t *f, size_t len, bool err)
{
	if (!st)
		return;
	if (err) {
		st->hw.tx_error_pkts++;
		return;
	}
	if (!memcmp(f, "\xff\xff\xff\xff\xff\xff", 6)) {
		st->hw.tx_bcast_pkts++;
		st->hw.tx_bcast_bytes += len;
	} else if (f[0] & 1) {
		st->hw.tx_mcast_pkts++;
		st->hw.tx_mcast_bytes += len;
	} else {
		st->hw.tx_ucast_pkts++;
		st->hw.tx_ucast_bytes += len;
	}
}

/* The long BD's cfa_meta and tunnel bits: 0 or an error bit. T_IPID is
 * accepted: it concerns only a tunnel's outer header, which LSO of a plain
 * TCP packet does not have (bnxt_hsi.h tx_bd_long_hi). */
static uint16_t check_long(const struct bnxt_tx_bd_long_hi *hi, const char **why)
{
	uint32_t key = hi->cfa_meta & BNXT_TX_BD_CFA_META_KEY_MASK;
	uint32_t tpid_sel = hi->cfa_meta & BNXT_TX_BD_CFA_META_VLAN_TPID_MASK;

	if (hi->lflags & BNXT_TX_BD_LFLAGS_T_IP_CHKSUM) {
		*why = "tunnel offloads are not modelled";
		return BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
	}
	if (key && (key != BNXT_TX_BD_CFA_META_KEY_VLAN_TAG ||
		    (tpid_sel != BNXT_TX_BD_CFA_META_VLAN_TPID_8100 &&
		     tpid_sel != BNXT_TX_BD_CFA_META_VLAN_TPID_88A8))) {
		*why = "cfa_meta: only VLAN insertion with TPID 0x8100 or 0x88a8";
		return BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
	}
	return 0;
}

static bool has_vlan(const struct bnxt_tx_bd_long_hi *hi)
{
	return (hi->cfa_meta & BNXT_TX_BD_CFA_META_KEY_MASK) == BNXT_TX_BD_CFA_META_KEY_VLAN_TAG;
}

/* The long BD's VLAN tag into the frame (room checked by the caller) and
 * the checksums it asks for, computed from scratch, pseudo-header
 * included, whatever the fields held. */
static void apply_long(struct bsim *m, const struct bnxt_tx_bd_long_hi *hi, uint8_t *f,
		       size_t *len, uint16_t lflags)
{
	if (has_vlan(hi)) {
		uint32_t tpid_sel = hi->cfa_meta & BNXT_TX_BD_CFA_META_VLAN_TPID_MASK;
		uint16_t tpid = tpid_sel == BNXT_TX_BD_CFA_META_VLAN_TPID_8100 ? TPID_8021Q
									       : TPID_8021AD;
		uint16_t tci = (uint16_t)hi->cfa_meta;

		memmove(f + 16, f + 12, *len - 12);
		f[12] = (uint8_t)(tpid >> 8);
		f[13] = (uint8_t)tpid;
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
		*len += 4;
		BSIM_INC(m, tx_vlan_inserts);
	}
	if (lflags & (BNXT_TX_BD_LFLAGS_IP_CHKSUM | BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM)) {
		struct bsim_pkt p;

		bsim_pkt_parse(f, *len, &p);
		bsim_csum_fill(f, &p, lflags & BNXT_TX_BD_LFLAGS_IP_CHKSUM,
			       lflags & BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM);
		BSIM_INC(m, tx_csum_offloads);
	}
}

/* An LSO packet's description from its long BD (hw-docs/bnxt.md 8.3): 0
 * or an error bit. */
static uint16_t lso_prepare(struct bsim *m, const struct bnxt_tx_bd_long_hi *hi, size_t total,
			    size_t max, struct zn_sim_tso *t, const char **why)
{
	unsigned hdr = (hi->hdr_size & BNXT_TX_BD_HDR_SIZE_MASK) * 2u;

	t->frame = m->lso;
	t->len = total;
	t->mss = hi->mss & BNXT_TX_BD_MSS_MASK;
	t->ipid_mask = hi->lflags & BNXT_TX_BD_LFLAGS_IPID_FMT ? 0x7fff : 0xffff;
	if (zn_sim_tcp_hdrs(m->lso, total, &t->h) || t->h.hdr_len != hdr) {
		*why = "LSO: not Ethernet + IP + TCP, or hdr_size is not its header length";
		return BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
	}
	if (!t->mss || hdr + t->mss + (has_vlan(hi) ? 4u : 0u) > max) {
		*why = "LSO: mss 0, or a segment longer than the MTU allows";
		return BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
	}
	return 0;
}

/* One frame to the wire: padded, maybe corrupted (fault), counted. */
static void emit(struct bsim *m, struct bsim_ring *r, uint8_t *f, size_t len, unsigned *room)
{
	if (len < BSIM_FRAME_MIN) {
		memset(f + len, 0, BSIM_FRAME_MIN - len);
		len = BSIM_FRAME_MIN;
	}
	if (m->corrupt_every && ++m->tx_seen % m->corrupt_every == 0) {
		f[len - 1] ^= 0xff;
		BSIM_INC(m, fault_corrupts);
	}
	if (zn_sim_port_tx(&m->port, f, len))
		BSIM_INC(m, tx_wire_drops);
	(*room)--;
	BSIM_INC(m, tx_frames);
	BSIM_ADD(m, tx_bytes, len);
	stat_tx(r->stat, f, len, false);
}

/* The segments of the LSO packet t not yet sent, as long as the wire takes
 * them: true when all are out. */
static bool lso_send(struct bsim *m, struct bsim_ring *r, const struct bnxt_tx_bd_long_hi *hi,
		     const struct zn_sim_tso *t, unsigned *room)
{
	unsigned n = zn_sim_tso_nseg(t);
	uint16_t sums = BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM |
			(t->h.ipv == 4 ? BNXT_TX_BD_LFLAGS_IP_CHKSUM : 0);

	for (; r->lso_next < n; r->lso_next++) {
		size_t len;

		if (!*room)
			return false;
		len = zn_sim_tso_seg(t, r->lso_next, m->frame);
		/* the device replaces both checksums of every segment,
		 * whatever the checksum flags say */
		apply_long(m, hi, m->frame, &len, sums);
		emit(m, r, m->frame, len, room);
	}
	r->lso_next = 0;
	BSIM_INC(m, tx_lso);
	BSIM_ADD(m, tx_lso_segs, n);
	return true;
}

/*
 * One packet at the ring's consumer. Returns the slots it took, 0 if it is
 * not wholly posted yet (or the wire is full, also part way through an LSO
 * packet's segments), -1 if the ring must stop (its CQ is dead, its memory
 * gone). *room counts the frames the wire can still take. The BDs are
 * copied in once, then checked: the driver may be writing the ring
 * meanwhile.
 */
static int tx_one(struct bsim *m, struct bsim_ring *r, unsigned *room)
{
	uint32_t avail = r->prod - r->cons;
	struct bnxt_tx_bd bds[BNXT_TX_MAX_BD_CNT], first;
	struct bnxt_tx_bd_long_hi hi;
	struct zn_sim_tso t;
	unsigned type, cnt, nread, end = 0, slots, s;
	bool is_long, found = false, need_cmpl, lso = false;
	size_t total = 0, max = m->mtu + BSIM_FRAME_OVERHEAD, cap, hint_len;
	uint8_t *buf = m->frame;
	uint16_t err = 0;
	const char *why = NULL;

	if (max > ZN_SIM_FRAME_MAX)
		max = ZN_SIM_FRAME_MAX;
	cap = max;
	if (!bsim_ring_copy(m, r, r->cons, bds, 1, false))
		return -1;
	first = bds[0];
	type = first.flags_type & BNXT_TX_BD_TYPE_MASK;
	is_long = type == BNXT_TX_BD_TYPE_LONG;
	cnt = (first.flags_type & BNXT_TX_BD_FLAGS_BD_CNT_MASK) >> BNXT_TX_BD_FLAGS_BD_CNT_SFT;
	if (!cnt)
		cnt = BNXT_TX_MAX_BD_CNT;
	nread = cnt < avail ? cnt : avail;
	if (nread > 1 && !bsim_ring_copy(m, r, r->cons + 1, &bds[1], nread - 1, false))
		return -1;
	/* the packet ends at the first buffer BD with PACKET_END */
	for (s = 0; s < nread; s++) {
		if (is_long && s == 1)
			continue;	/* the long_hi slot */
		if (bds[s].flags_type & BNXT_TX_BD_FLAGS_PACKET_END) {
			found = true;
			end = s;
			break;
		}
	}
	if (!found) {
		if (cnt > avail)
			return 0;	/* the rest is not posted yet */
		slots = cnt;
		err = BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
		why = "no PACKET_END within BD_CNT slots";
	} else {
		slots = is_long && end == 0 ? 2 : end + 1;
		if (slots > avail)
			return 0;
		if (slots > nread && !bsim_ring_copy(m, r, r->cons + 1, &bds[1], slots - 1, false))
			return -1;
		if (slots != cnt) {
			err = BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
			why = "BD_CNT is not the slot count through PACKET_END";
		}
	}
	if (!err && type != BNXT_TX_BD_TYPE_SHORT && !is_long) {
		err = BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
		why = "first BD type is neither SHORT nor LONG";
	}
	if (!err && is_long) {
		memcpy(&hi, &bds[1], sizeof(hi));
		lso = hi.lflags & BNXT_TX_BD_LFLAGS_LSO;
		if (lso) {
			buf = m->lso;
			cap = sizeof(m->lso);
		}
	}
	/* a dead CQ stops the ring: any packet may need a completion */
	if (r->cq->dead)
		return -1;
	if (!err && *room == 0)
		return 0;
	for (s = 0; !err && s < slots; s++) {
		const struct bnxt_tx_bd *bd = &bds[s];

		if (is_long && s == 1)
			continue;
		if (!bd->len) {
			err = BNXT_TX_CMPL_ERRORS_ZERO_LENGTH_PKT;
			why = "a BD of length 0";
		} else if (total + bd->len > cap) {
			err = BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
			why = lso ? "LSO packet longer than 64 KiB of payload" :
				    "longer than the MTU allows";
		} else if (zn_vfu_dma_read(m->dev, bd->addr, buf + total, bd->len)) {
			err = BNXT_TX_CMPL_ERRORS_DMA_ERROR;
			why = "a buffer outside mapped memory";
		} else {
			total += bd->len;
		}
	}
	if (!err && total < BNXT_TX_MIN_PKT_LEN) {
		err = BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
		why = "shorter than 52 bytes";
	}
	if (!err && is_long)
		err = check_long(&hi, &why);
	if (!err && lso)
		err = lso_prepare(m, &hi, total, max, &t, &why);
	if (!err) {
		static const uint32_t hint_limit[4] = { 512, 1024, 2048, UINT32_MAX };

		/* for LSO the hint describes one segment (Linux bnxt_start_xmit
		 * takes mss + header length) */
		hint_len = lso ? t.h.hdr_len + t.mss : total;
		if (hint_len >= hint_limit[(first.flags_type & BNXT_TX_BD_FLAGS_LHINT_MASK) >> 13]) {
			err = BNXT_TX_CMPL_ERRORS_HINT_TOO_SHORT;
			why = "LHINT below the packet length";
		}
	}
	if (!err && lso) {
		if (!lso_send(m, r, &hi, &t, room))
			return 0;
	} else if (!err) {
		if (is_long && has_vlan(&hi) && total + 4 > max) {
			err = BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
			why = "no room for the VLAN tag";
		} else {
			if (is_long)
				apply_long(m, &hi, m->frame, &total, hi.lflags);
			emit(m, r, m->frame, total, room);
		}
	}
	r->cons += slots;
	need_cmpl = err || !(first.flags_type & BNXT_TX_BD_FLAGS_NO_CMPL);
	if (err) {
		r->lso_next = 0;
		BSIM_INC(m, tx_errors);
		switch (err) {
		case BNXT_TX_CMPL_ERRORS_ZERO_LENGTH_PKT:
			BSIM_INC(m, tx_zero_len);
			break;
		case BNXT_TX_CMPL_ERRORS_DMA_ERROR:
			BSIM_INC(m, tx_dma_errors);
			break;
		case BNXT_TX_CMPL_ERRORS_HINT_TOO_SHORT:
			BSIM_INC(m, tx_hint_short);
			break;
		default:
			BSIM_INC(m, tx_bad_bd);
		}
		stat_tx(r->stat, m->frame, 0, true);
		ZN_SIM_LOG_RL_AT(&m->rl_tx, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: TX ring %#x: packet at %u (%u slots, opaque %#x) not sent: %s",
				 m->name, r->id, r->cons - slots, slots, first.opaque, why);
	}
	if (need_cmpl) {
		struct bnxt_tx_cmpl c = {
			.flags_type = BNXT_CMPL_TYPE_TX_L2 | (err ? BNXT_TX_CMPL_FLAGS_ERROR : 0),
			.opaque = first.opaque,
			.errors_v = err,
		};

		bsim_cq_post(m, r->cq, &c, 1);
	}
	return (int)slots;
}

static int serve(struct bsim *m, struct bsim_ring *r, unsigned budget, unsigned *room)
{
	int work = 0;

	if (r->dead || r->prod == r->cons)
		return 0;
	for (unsigned n = 0; n < budget && r->prod != r->cons; n++) {
		if (tx_one(m, r, room) <= 0)
			break;
		work++;
	}
	return work;
}

int bsim_tx_poll(struct bsim *m)
{
	unsigned room = zn_sim_port_tx_room(&m->port);
	int work = 0;

	/* rotate the starting ring so that no ring starves the others */
	for (unsigned k = 0; k < m->ntx && room; k++)
		work += serve(m, m->txr[(m->tx_next + k) % m->ntx], TX_BUDGET, &room);
	m->tx_next++;
	return work;
}

int bsim_tx_drain(struct bsim *m, struct bsim_ring *r)
{
	unsigned room = UINT32_MAX;	/* a full wire drops and counts */

	return serve(m, r, r->size, &room);
}
