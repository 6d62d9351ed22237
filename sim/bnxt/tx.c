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

/* Long BD offloads on the assembled frame; 0 or an error bit. */
static uint16_t offloads(struct bsim *m, const struct bnxt_tx_bd_long_hi *hi, size_t *len,
			 size_t max, const char **why)
{
	uint8_t *f = m->frame;
	uint32_t key = hi->cfa_meta & BNXT_TX_BD_CFA_META_KEY_MASK;

	if (hi->lflags & (BNXT_TX_BD_LFLAGS_LSO | BNXT_TX_BD_LFLAGS_T_IP_CHKSUM |
			  BNXT_TX_BD_LFLAGS_T_IPID)) {
		*why = "LSO and tunnel offloads are not modelled";
		return BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
	}
	if (key) {
		uint32_t tpid_sel = hi->cfa_meta & BNXT_TX_BD_CFA_META_VLAN_TPID_MASK;
		uint16_t tpid, tci = (uint16_t)hi->cfa_meta;

		if (key != BNXT_TX_BD_CFA_META_KEY_VLAN_TAG ||
		    (tpid_sel != BNXT_TX_BD_CFA_META_VLAN_TPID_8100 &&
		     tpid_sel != BNXT_TX_BD_CFA_META_VLAN_TPID_88A8)) {
			*why = "cfa_meta: only VLAN insertion with TPID 0x8100 or 0x88a8";
			return BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
		}
		if (*len + 4 > max) {
			*why = "no room for the VLAN tag";
			return BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
		}
		tpid = tpid_sel == BNXT_TX_BD_CFA_META_VLAN_TPID_8100 ? TPID_8021Q : TPID_8021AD;
		memmove(f + 16, f + 12, *len - 12);
		f[12] = (uint8_t)(tpid >> 8);
		f[13] = (uint8_t)tpid;
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
		*len += 4;
		BSIM_INC(m, tx_vlan_inserts);
	}
	if (hi->lflags & (BNXT_TX_BD_LFLAGS_IP_CHKSUM | BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM)) {
		struct bsim_pkt p;

		/* The device computes the sums from scratch, pseudo-header
		 * included, whatever the fields held. */
		bsim_pkt_parse(f, *len, &p);
		bsim_csum_fill(f, &p, hi->lflags & BNXT_TX_BD_LFLAGS_IP_CHKSUM,
			       hi->lflags & BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM);
		BSIM_INC(m, tx_csum_offloads);
	}
	return 0;
}

/*
 * One packet at the ring's consumer. Returns the slots it took, 0 if it is
 * not wholly posted yet (or the wire is full), -1 if the ring must stop (its
 * CQ is dead, its memory gone). *room counts the frames the wire can still
 * take. The BDs are copied in once, then checked: the driver may be writing
 * the ring meanwhile.
 */
static int tx_one(struct bsim *m, struct bsim_ring *r, unsigned *room)
{
	uint32_t avail = r->prod - r->cons;
	struct bnxt_tx_bd bds[BNXT_TX_MAX_BD_CNT], first;
	struct bnxt_tx_bd_long_hi hi;
	unsigned type, cnt, nread, end = 0, slots, s;
	bool is_long, found = false, need_cmpl;
	size_t total = 0, max = m->mtu + BSIM_FRAME_OVERHEAD;
	uint16_t err = 0;
	const char *why = NULL;

	if (max > ZN_SIM_FRAME_MAX)
		max = ZN_SIM_FRAME_MAX;
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
		} else if (total + bd->len > max) {
			err = BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT;
			why = "longer than the MTU allows";
		} else if (zn_vfu_dma_read(m->dev, bd->addr, m->frame + total, bd->len)) {
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
	if (!err) {
		static const uint32_t hint_limit[4] = { 512, 1024, 2048, UINT32_MAX };

		if (total >= hint_limit[(first.flags_type & BNXT_TX_BD_FLAGS_LHINT_MASK) >> 13]) {
			err = BNXT_TX_CMPL_ERRORS_HINT_TOO_SHORT;
			why = "LHINT below the packet length";
		}
	}
	if (!err && is_long) {
		memcpy(&hi, &bds[1], sizeof(hi));
		err = offloads(m, &hi, &total, max, &why);
	}
	r->cons += slots;
	need_cmpl = err || !(first.flags_type & BNXT_TX_BD_FLAGS_NO_CMPL);
	if (err) {
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
	} else {
		if (total < BSIM_FRAME_MIN) {
			memset(m->frame + total, 0, BSIM_FRAME_MIN - total);
			total = BSIM_FRAME_MIN;
		}
		if (m->corrupt_every && ++m->tx_seen % m->corrupt_every == 0) {
			m->frame[total - 1] ^= 0xff;
			BSIM_INC(m, fault_corrupts);
		}
		if (zn_sim_port_tx(&m->port, m->frame, total))
			BSIM_INC(m, tx_wire_drops);
		(*room)--;
		BSIM_INC(m, tx_frames);
		BSIM_ADD(m, tx_bytes, total);
		stat_tx(r->stat, m->frame, total, false);
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
