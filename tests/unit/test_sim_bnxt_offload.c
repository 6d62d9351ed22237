/*
 * sim/bnxt: the offloads of the bnxt model between two devices on a pair
 * wire, driven by hand-built rings: checksums filled on send (long BD
 * lflags) and verified on receive (RX completion flags2/errors), LSO long
 * BDs cut into TCP segments (checked byte for byte against the segments
 * Linux's software TSO would make, one TX completion for the whole), and
 * TPA aggregation (hw-docs/bnxt-model.md "Offloads").
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/support/bnxt_test_client.h"
#include "sim/offload.h"
#include "tests/unit/support/tcp_frames.h"

static struct btc_sim S;
static struct btc CA, CB;		/* A sends, B receives */
static struct btc_port PA, PB;
static struct btc_rx_pkt RX;
static uint8_t F[70000], W[ZN_SIM_FRAME_MAX];
static uint8_t *big;			/* A's DMA buffer for long frames */
static uint32_t tx_cfa_meta;		/* long_tx's cfa_meta */
static bool tx_hold;			/* long_tx queues without the doorbell */
static size_t big_off;

#define CNT(i, key) btc_counter(&S, i, key)
#define BIG_LEN		(128u * 1024)

static const struct btc_port_cfg base_cfg = {
	.nq = 1, .tx_size = 256, .rx_size = 256, .agg_size = 512, .cq_size = 4096,
	.rx_buf = 256, .agg_buf = 4096,
	.plc_flags = BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT | BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4 |
		     BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6,
	.hds_threshold = 0, .jumbo_thresh = 256,
};

static int start(const char *opts)
{
	if (btc_sim_start(&S, opts, opts, true) || btc_open(&CA, S.path[0]) ||
	    btc_open(&CB, S.path[1]))
		return -1;
	if (btc_port_open(&CA, &PA, &base_cfg) || btc_port_open(&CB, &PB, &base_cfg))
		return -1;
	big = btc_alloc(&CA, BIG_LEN, 4096);
	return big ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	return start("");
}

static int teardown(void **state)
{
	(void)state;
	btc_close(&CA);
	btc_close(&CB);
	btc_sim_stop(&S);
	return 0;
}

static struct tf_flow flow(uint8_t ipv, uint8_t proto)
{
	struct tf_flow fl = {
		.ipv = ipv, .proto = proto, .src = { 10, 0, 0, 1 }, .dst = { 10, 0, 0, 2 },
		.sport = 40000, .dport = 5201, .ip_id = 0xfffe, .seq = 0xfffff000u, .ack = 77,
		.flags = 0x18, .win = 512,
	};

	memcpy(fl.dmac, CB.mac, 6);
	memcpy(fl.smac, CA.mac, 6);
	if (ipv == 6)
		tf_addr6(&fl);
	return fl;
}

/* One packet as a LONG BD + long_hi + SHORT BDs of up to 32 KiB, from A's
 * big buffer. lhint_len: the length the LHINT describes. */
static void long_tx(const uint8_t *f, size_t len, uint16_t lflags, unsigned hdr, unsigned mss,
		    uint32_t opaque, size_t lhint_len)
{
	struct btc_ring *r = &PA.tx;
	unsigned nbd = (unsigned)((len + 32767) / 32768), slots = nbd + 1;
	struct bnxt_tx_bd_long_hi hi = { .lflags = lflags, .hdr_size = (uint16_t)(hdr / 2),
					 .mss = mss, .cfa_meta = tx_cfa_meta };

	uint8_t *b;

	/* packets queued while held each keep their own bytes */
	if (big_off + len > BIG_LEN)
		big_off = 0;
	b = big + big_off;
	big_off = tx_hold ? (big_off + len + 63) / 64 * 64 : 0;
	memcpy(b, f, len);
	for (unsigned i = 0, s = 0; i < nbd; i++) {
		size_t off = (size_t)i * 32768, n = len - off < 32768 ? len - off : 32768;
		struct bnxt_tx_bd bd = { .len = (uint16_t)n, .addr = btc_iova(&CA, b + off) };

		if (!i) {
			bd.flags_type = BNXT_TX_BD_TYPE_LONG | bnxt_tx_bd_cnt(slots) |
					bnxt_tx_lhint((uint32_t)lhint_len);
			bd.opaque = opaque;
		} else {
			bd.flags_type = BNXT_TX_BD_TYPE_SHORT;
		}
		if (i + 1 == nbd)
			bd.flags_type |= BNXT_TX_BD_FLAGS_PACKET_END;
		memcpy(r->va + (r->prod & (r->size - 1)) * 16u, &bd, 16);
		r->prod++;
		if (!s++) {
			memcpy(r->va + (r->prod & (r->size - 1)) * 16u, &hi, 16);
			r->prod++;
		}
	}
	if (!tx_hold)
		btc_tx_kick(&PA);
}

/* The packets queued while tx_hold, in one doorbell: one TX burst, so
 * that they reach B in one wire burst. */
static void kick_held(void)
{
	tx_hold = false;
	btc_tx_kick(&PA);
}

static void tx_done(struct bnxt_tx_cmpl *c)
{
	assert_true(btc_cq_wait(&PA.txcq, 1, BTC_TIMEOUT_MS));
	assert_true(btc_cq_peek(&PA.txcq, 0, c));
	PA.txcq.cons++;
	btc_db(PA.c, &PA.txcq, BNXT_DBR_TYPE_CQ, PA.txcq.cons);
}

/* ---- checksums ---- */

static void test_csum(void **state)
{
	static const uint8_t kinds[][2] = { { 4, 6 }, { 4, 17 }, { 6, 6 }, { 6, 17 } };
	const uint16_t both = BNXT_TX_BD_LFLAGS_IP_CHKSUM | BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM;
	struct bnxt_tx_cmpl c;

	(void)state;
	/* TX: zero checksums filled in for every kind; RX: verified */
	for (unsigned k = 0; k < 4; k++) {
		struct tf_flow fl = flow(kinds[k][0], kinds[k][1]);
		size_t len = tf_build(W, &fl, 900 + 31 * k, (uint8_t)k, false);
		uint16_t calc = BNXT_RX_CMPL_FLAGS2_L4_CS_CALC |
				(fl.ipv == 4 ? BNXT_RX_CMPL_FLAGS2_IP_CS_CALC : 0);

		tf_build(F, &fl, 900 + 31 * k, (uint8_t)k, true);
		long_tx(F, len, both, 0, 0, 0x40 + k, len);
		tx_done(&c);
		assert_int_equal(c.opaque, 0x40 + k);
		assert_int_equal(c.errors_v & ~BNXT_CMPL_V, 0);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.len, len);
		assert_memory_equal(RX.data, W, len);
		assert_int_equal(RX.hi.flags2 & 0xf, calc);
		assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, 0);
	}
	/* RX: a bad IPv4 header checksum and a bad TCP checksum are reported */
	{
		struct tf_flow fl = flow(4, 6);
		size_t len = tf_build(F, &fl, 500, 1, false);

		F[14 + 10] ^= 0x10;
		long_tx(F, len, 0, 0, 0, 1, len);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, BNXT_RX_CMPL_ERRORS_IP_CS_ERROR);
		F[14 + 10] ^= 0x10;
		F[len - 3] ^= 0x10;
		long_tx(F, len, 0, 0, 0, 2, len);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, BNXT_RX_CMPL_ERRORS_L4_CS_ERROR);
		assert_int_equal(CNT(1, "rx_csum_errors"), 2);
	}
	/* UDP over IPv4 without a checksum: nothing to calculate */
	{
		struct tf_flow fl = flow(4, 17);
		size_t len = tf_build(F, &fl, 200, 1, false);

		F[14 + 20 + 6] = F[14 + 20 + 7] = 0;
		long_tx(F, len, 0, 0, 0, 3, len);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.hi.flags2 & 0xf, BNXT_RX_CMPL_FLAGS2_IP_CS_CALC);
		assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, 0);
	}
	assert_int_equal(CNT(0, "tx_csum_offloads"), 4);
}

/* ---- LSO ---- */

/* Sends fl's frame of payload bytes as one LSO packet and checks every
 * frame B receives against Linux's segmentation of it, then the single TX
 * completion. vlan: the cfa_meta to insert with (0: none). */
static void lso_one(const struct tf_flow *fl, size_t payload, unsigned mss, uint16_t lflags,
		    uint32_t vlan, uint32_t opaque)
{
	size_t hdr = tf_hdr_len(fl), len = tf_build(F, fl, payload, (uint8_t)opaque, true);
	unsigned n = (unsigned)((payload + mss - 1) / mss);
	struct bnxt_tx_cmpl c;

	tx_cfa_meta = vlan;
	long_tx(F, len, (uint16_t)(BNXT_TX_BD_LFLAGS_LSO | lflags), (unsigned)hdr, mss, opaque,
		hdr + mss);
	tx_cfa_meta = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t want = tf_tso_seg(W, fl, payload, (uint8_t)opaque, mss, i);

		if (vlan) {
			memmove(W + 16, W + 12, want - 12);
			W[12] = 0x81, W[13] = 0x00;
			W[14] = (uint8_t)(vlan >> 8), W[15] = (uint8_t)vlan;
			want += 4;
		}

		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.len, want < 60 ? 60 : want);
		assert_memory_equal(RX.data, W, want);
		assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, 0);
	}
	assert_false(btc_rx_next(&PB, 0, &RX));
	tx_done(&c);
	assert_int_equal(c.opaque, opaque);
	assert_int_equal(c.errors_v & ~BNXT_CMPL_V, 0);
	assert_true(btc_cq_quiet(&PA.txcq, 20));
}

static void test_lso(void **state)
{
	struct tf_flow fl = flow(4, 6);
	uint64_t frames;

	(void)state;
	/* IPv4: id and sequence wrap inside the packet; CWR only on the
	 * first frame, FIN and PSH only on the last */
	fl.flags = 0x80 | 0x18 | 0x01;
	lso_one(&fl, 20000, 1448, 0, 0, 0x101);
	assert_int_equal(CNT(0, "tx_lso"), 1);
	assert_int_equal(CNT(0, "tx_lso_segs"), 14);
	/* IPv6 with timestamps, 64 KiB of payload */
	fl = flow(6, 6);
	fl.opt_len = 12;
	fl.tsval = 0x01020304;
	lso_one(&fl, ZN_SIM_TSO_MAX_PAYLOAD, 1428, BNXT_TX_BD_LFLAGS_IP_CHKSUM, 0, 0x102);
	/* more segments than the wire holds at once (128): sent as it drains */
	fl = flow(4, 6);
	frames = CNT(0, "tx_frames");
	lso_one(&fl, 30000, 200, 0, 0, 0x103);
	assert_int_equal(CNT(0, "tx_frames") - frames, 150);
	/* payload within one mss: one frame, checksums filled */
	lso_one(&fl, 100, 1448, 0, 0, 0x104);
	/* a VLAN tag inserted into every segment (8100, VID 7) */
	lso_one(&fl, 5000, 1448, 0,
		BNXT_TX_BD_CFA_META_KEY_VLAN_TAG | BNXT_TX_BD_CFA_META_VLAN_TPID_8100 | 7, 0x105);
	assert_int_equal(CNT(0, "tx_vlan_inserts"), 4);
	/* IPID_FMT: 15-bit ids that keep the top bit: 0xfffe, 0xffff, 0x8000 */
	fl.ip_id = 0xfffe;
	{
		size_t hdr = tf_hdr_len(&fl), len = tf_build(F, &fl, 3000, 9, true);
		struct bnxt_tx_cmpl c;

		long_tx(F, len, BNXT_TX_BD_LFLAGS_LSO | BNXT_TX_BD_LFLAGS_IPID_FMT, (unsigned)hdr,
			1000, 0x106, hdr + 1000);
		for (unsigned i = 0; i < 3; i++) {
			size_t want = tf_tso_seg(W, &fl, 3000, 9, 1000, i);
			uint16_t id = (uint16_t)(0x8000 | ((0xfffe + i) & 0x7fff));

			W[14 + 4] = (uint8_t)(id >> 8);
			W[14 + 5] = (uint8_t)id;
			tf_fix_csum(W, &fl);
			assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
			assert_int_equal(RX.len, want);
			assert_memory_equal(RX.data, W, want);
		}
		tx_done(&c);
		assert_int_equal(c.opaque, 0x106);
	}
	assert_int_equal(CNT(0, "tx_lso"), 6);
	assert_int_equal(CNT(0, "tx_errors") + CNT(0, "tx_wire_drops") + CNT(1, "rx_no_buffer"), 0);
}

/* fl's frame of payload bytes as one LSO packet from A (B not read). */
static void lso_one_tx(const struct tf_flow *fl, size_t payload, unsigned mss, uint32_t opaque)
{
	size_t hdr = tf_hdr_len(fl), len = tf_build(F, fl, payload, (uint8_t)opaque, true);

	long_tx(F, len, BNXT_TX_BD_LFLAGS_LSO, (unsigned)hdr, mss, opaque, hdr + mss);
}

static void lso_refused(const uint8_t *f, size_t len, unsigned hdr, unsigned mss, uint32_t op)
{
	struct bnxt_tx_cmpl c;

	long_tx(f, len, BNXT_TX_BD_LFLAGS_LSO, hdr, mss, op, 100);
	tx_done(&c);
	assert_int_equal(c.opaque, op);
	assert_int_equal(c.flags_type, BNXT_CMPL_TYPE_TX_L2 | BNXT_TX_CMPL_FLAGS_ERROR);
	assert_int_equal(c.errors_v & BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_MASK,
			 BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT);
}

static void test_lso_refused(void **state)
{
	struct tf_flow fl = flow(4, 6), udp = flow(4, 17);
	size_t len = tf_build(F, &fl, 5000, 0, true);

	(void)state;
	lso_refused(F, len, 52, 1000, 1);	/* hdr_size not the header length */
	lso_refused(F, len, 54, 0, 2);		/* mss 0 */
	lso_refused(F, len, 54, 9000, 3);	/* a segment beyond the MTU */
	len = tf_build(F, &udp, 5000, 0, true);
	lso_refused(F, len, 42, 1000, 4);	/* not TCP */
	assert_int_equal(CNT(0, "tx_bad_bd"), 4);
	assert_int_equal(CNT(0, "port.tx_frames"), 0);
	assert_int_equal(CNT(0, "tx_lso"), 0);
}

/* ---- TPA ---- */

static int tpa_cfg(uint32_t flags, uint16_t segs, uint32_t min_len)
{
	struct bnxt_hwrm_vnic_tpa_cfg_input in = { .hdr.req_type = BNXT_HWRM_VNIC_TPA_CFG };

	in.flags = flags;
	in.enables = BNXT_TPA_CFG_ENABLES_MAX_AGG_SEGS | BNXT_TPA_CFG_ENABLES_MAX_AGGS |
		     BNXT_TPA_CFG_ENABLES_MIN_AGG_LEN;
	in.vnic_id = PB.vnic;
	in.max_agg_segs = segs;
	in.max_aggs = 8;
	in.min_agg_len = min_len;
	return btc_hwrm(&CB, &in, sizeof(in), NULL, 0);
}

static int setup_tpa(void **state)
{
	(void)state;
	if (start(""))
		return -1;
	return tpa_cfg(BNXT_TPA_CFG_FLAGS_TPA | BNXT_TPA_CFG_FLAGS_GRO |
		       BNXT_TPA_CFG_FLAGS_AGG_WITH_ECN, BNXT_MAX_TPA_SEGS_P5, 512);
}

/* What B's CQ said about one packet or aggregation, the data put back
 * together from its buffers. */
struct rx_unit {
	bool tpa;
	struct bnxt_rx_tpa_start_cmpl st;
	struct bnxt_rx_tpa_start_cmpl_hi sth;
	struct bnxt_rx_tpa_end_cmpl en;
	struct bnxt_rx_tpa_end_cmpl_hi enh;
	struct btc_rx_pkt pkt;		/* not TPA */
	unsigned naggs;
	uint8_t data[70000];
	size_t len;
};
static struct rx_unit U;

static bool slot(uint32_t off, void *out)
{
	return btc_cq_peek(&PB.q[0].cq, off, out);
}

/* The next unit of queue 0 once all its records are there; buffers
 * re-posted, CQ consumed. */
static bool next_unit(int timeout_ms)
{
	struct btc_q *q = &PB.q[0];
	int64_t endt = btc_now_ms() + timeout_ms;
	uint8_t rec[16];

	do {
		uint32_t off = 0, rx_used = 0, agg_used = 0;

		if (!slot(0, rec)) {
			btc_sleep_ms(0);
			continue;
		}
		if ((rec[0] & BNXT_CMPL_TYPE_MASK) == BNXT_CMPL_TYPE_RX_L2) {
			if (!btc_rx_next(&PB, 0, &U.pkt))
				continue;
			U.tpa = false;
			U.len = U.pkt.len;
			memcpy(U.data, U.pkt.data, U.pkt.len);
			return true;
		}
		assert_int_equal(rec[0] & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_RX_TPA_START);
		/* the whole aggregation must be there: scan to its TPA_END */
		for (off = 2;; off++) {
			if (!slot(off, rec))
				break;
			if ((rec[0] & BNXT_CMPL_TYPE_MASK) == BNXT_CMPL_TYPE_RX_TPA_END)
				break;
			assert_int_equal(rec[0] & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_RX_TPA_AGG);
		}
		if (!slot(off, rec) || !slot(off + 1, NULL)) {
			btc_sleep_ms(0);
			continue;
		}
		U.tpa = true;
		slot(0, &U.st);
		slot(1, &U.sth);
		slot(off, &U.en);
		slot(off + 1, &U.enh);
		memcpy(U.data, q->rxbuf + (size_t)U.st.opaque * PB.cfg.rx_buf, U.st.len);
		U.len = U.st.len;
		U.naggs = off - 2;
		for (uint32_t i = 2; i < off; i++) {
			struct bnxt_rx_agg_cmpl a;

			slot(i, &a);
			assert_int_equal((a.v & BNXT_RX_TPA_AGG_ID_MASK_P5) >> BNXT_RX_TPA_AGG_ID_SFT_P5,
					 (U.st.misc_v1 & BNXT_RX_TPA_AGG_ID_MASK_P5) >>
						 BNXT_RX_TPA_AGG_ID_SFT_P5);
			assert_true(U.len + a.len <= sizeof(U.data));
			memcpy(U.data + U.len, q->aggbuf + (size_t)a.opaque * PB.cfg.agg_buf, a.len);
			U.len += a.len;
			agg_used++;
		}
		rx_used = 1;
		q->cq.cons += off + 2;
		btc_db(PB.c, &q->cq, BNXT_DBR_TYPE_CQ, q->cq.cons);
		btc_rx_post(&PB, 0, rx_used, agg_used);
		return true;
	} while (btc_now_ms() < endt);
	return false;
}

static unsigned end_segs(void)
{
	return (U.en.misc_v1 & BNXT_RX_TPA_END_SEGS_MASK) >> BNXT_RX_TPA_END_SEGS_SFT;
}

/* The aggregation just read holds segments [first, first + n) of fl's
 * payload (as tf_tso_seg cuts it): header of the first, payloads in order. */
static void expect_agg(const struct tf_flow *fl, size_t payload, uint8_t seed, unsigned mss,
		       unsigned first, unsigned n)
{
	size_t hdr = tf_hdr_len(fl), want_len = hdr, seg;

	assert_true(U.tpa);
	assert_int_equal(U.st.flags_type & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_RX_TPA_START);
	assert_int_equal(U.st.flags_type & BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK,
			 BNXT_RX_CMPL_FLAGS_PLACEMENT_GRO_HDS);
	assert_int_equal(U.st.flags_type & BNXT_RX_CMPL_FLAGS_ITYPE_MASK,
			 BNXT_RX_CMPL_FLAGS_ITYPE_TCP);
	assert_int_equal(U.st.len, hdr);
	assert_int_equal(U.sth.flags2 & 0x10f, BNXT_RX_CMPL_FLAGS2_L4_CS_CALC |
			 (fl->ipv == 4 ? BNXT_RX_CMPL_FLAGS2_IP_CS_CALC :
					 BNXT_RX_CMPL_FLAGS2_IP_TYPE_IPV6));
	assert_int_equal(U.sth.hdr_info >> BNXT_RX_TPA_HDR_INFO_INNER_L3_SFT, 14);
	assert_int_equal(end_segs(), n);
	assert_int_equal(U.en.flags_type & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_RX_TPA_END);
	assert_int_equal((U.en.misc_v1 & BNXT_RX_TPA_AGG_ID_MASK_P5),
			 (U.st.misc_v1 & BNXT_RX_TPA_AGG_ID_MASK_P5));
	assert_int_equal(U.enh.dup_acks >> BNXT_RX_TPA_END_AGG_BUFS_SFT_P5, U.naggs);
	assert_int_equal((U.enh.dup_acks >> BNXT_RX_TPA_END_PAYLOAD_OFF_SFT_P5) & 0xff, hdr);
	assert_int_equal(U.enh.errors_v2 & ~BNXT_RX_CMPL_V2, 0);
	assert_int_equal(U.enh.start_opaque, U.st.opaque);
	seg = tf_tso_seg(W, fl, payload, seed, mss, first);
	assert_int_equal(U.enh.seg_len, seg - hdr);
	assert_memory_equal(U.data, W, hdr);
	for (unsigned i = 0; i < n; i++) {
		seg = tf_tso_seg(W, fl, payload, seed, mss, first + i);
		assert_true(want_len + seg - hdr <= U.len);
		assert_memory_equal(U.data + want_len, W + hdr, seg - hdr);
		want_len += seg - hdr;
	}
	assert_int_equal(U.len, want_len);
}

/* Segment i of fl's payload as its own frame from A (checksums right). */
static void send_seg(const struct tf_flow *fl, size_t payload, uint8_t seed, unsigned mss,
		     unsigned i, uint8_t flags)
{
	struct tf_flow f2 = *fl;
	size_t len;

	f2.flags = flags;
	len = tf_tso_seg(F, &f2, payload, seed, mss, i);
	long_tx(F, len, 0, 0, 0, 0x200 + i, len);
}

static void test_tpa(void **state)
{
	struct tf_flow fl = flow(4, 6);
	struct bnxt_tx_cmpl c;

	(void)state;
	/* 20 in-sequence segments from A's LSO: one aggregation, closed by
	 * the PSH of the last; 2 payloads of 1448 per 4 KiB AGG buffer */
	lso_one_tx(&fl, 20 * 1448, 1448, 0x301);
	assert_true(next_unit(BTC_TIMEOUT_MS));
	expect_agg(&fl, 20 * 1448, 0x301 & 0xff, 1448, 0, 20);
	assert_int_equal(U.naggs, 10);
	assert_int_equal(CNT(1, "rx_tpa_starts"), 1);
	assert_int_equal(CNT(1, "rx_tpa_frames"), 20);
	assert_int_equal(CNT(1, "rx_tpa_flush_psh"), 1);
	tx_done(&c);
	/* max_agg_segs 4: five aggregations of 4 */
	assert_int_equal(tpa_cfg(BNXT_TPA_CFG_FLAGS_TPA | BNXT_TPA_CFG_FLAGS_GRO, 4, 512), 0);
	fl.seq = 5000;
	lso_one_tx(&fl, 20 * 1448, 1448, 0x302);
	for (unsigned k = 0; k < 5; k++) {
		assert_true(next_unit(BTC_TIMEOUT_MS));
		expect_agg(&fl, 20 * 1448, 0x302 & 0xff, 1448, 4 * k, 4);
	}
	assert_int_equal(CNT(1, "rx_tpa_flush_max"), 4);
	tx_done(&c);
	assert_int_equal(tpa_cfg(BNXT_TPA_CFG_FLAGS_TPA | BNXT_TPA_CFG_FLAGS_GRO, 63, 512), 0);
	/* out of order: 0 1 2 | 4 | 3 (each a frame of its own, no PSH);
	 * the last one ends when its flow goes quiet */
	fl = flow(6, 6);
	fl.opt_len = 12;
	tx_hold = true;
	send_seg(&fl, 8 * 1000, 7, 1000, 0, 0x10);
	send_seg(&fl, 8 * 1000, 7, 1000, 1, 0x10);
	send_seg(&fl, 8 * 1000, 7, 1000, 2, 0x10);
	send_seg(&fl, 8 * 1000, 7, 1000, 4, 0x10);
	send_seg(&fl, 8 * 1000, 7, 1000, 3, 0x10);
	kick_held();
	assert_true(next_unit(BTC_TIMEOUT_MS));
	expect_agg(&fl, 8 * 1000, 7, 1000, 0, 3);
	assert_true(U.en.tsdelta & BNXT_RX_TPA_END_GRO_TS);
	assert_true(next_unit(BTC_TIMEOUT_MS));
	expect_agg(&fl, 8 * 1000, 7, 1000, 4, 1);
	assert_true(next_unit(BTC_TIMEOUT_MS));
	expect_agg(&fl, 8 * 1000, 7, 1000, 3, 1);
	assert_true(CNT(1, "rx_tpa_flush_idle") >= 1);
	/* a FIN in sequence ends the aggregation and arrives on its own */
	tx_hold = true;
	send_seg(&fl, 8 * 1000, 7, 1000, 5, 0x10);
	send_seg(&fl, 8 * 1000, 7, 1000, 6, 0x10);
	send_seg(&fl, 8 * 1000, 7, 1000, 7, 0x11);
	kick_held();
	assert_true(next_unit(BTC_TIMEOUT_MS));
	expect_agg(&fl, 8 * 1000, 7, 1000, 5, 2);
	assert_true(next_unit(BTC_TIMEOUT_MS));
	assert_false(U.tpa);
	tf_tso_seg(W, &fl, 8 * 1000, 7, 1000, 7);
	W[14 + 40 + 13] = 0x11;
	tf_fix_csum(W, &fl);
	assert_int_equal(U.len, tf_hdr_len(&fl) + 1000);
	assert_memory_equal(U.data, W, U.len);
	/* short frames (below min_agg_len) are not aggregated */
	fl = flow(4, 6);
	fl.seq = 1;
	send_seg(&fl, 300, 1, 300, 0, 0x10);
	assert_true(next_unit(BTC_TIMEOUT_MS));
	assert_false(U.tpa);
	assert_int_equal(CNT(1, "rx_tpa_aborts") + CNT(1, "rx_no_buffer") + CNT(1, "cq_overflows"),
			 0);
}

static void test_tpa_cfg_refused(void **state)
{
	(void)state;
	/* LRO mode (TPA without GRO), too many segments or contexts, a bad VNIC */
	assert_int_equal(tpa_cfg(BNXT_TPA_CFG_FLAGS_TPA, 8, 512), BNXT_HWRM_ERR_INVALID_FLAGS);
	assert_int_equal(tpa_cfg(BNXT_TPA_CFG_FLAGS_TPA | BNXT_TPA_CFG_FLAGS_GRO, 64, 512),
			 BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(tpa_cfg(0x200, 8, 512), BNXT_HWRM_ERR_INVALID_FLAGS);
	/* off: frames are delivered one by one */
	assert_int_equal(tpa_cfg(0, 8, 512), 0);
	{
		struct tf_flow fl = flow(4, 6);

		tx_hold = true;
		send_seg(&fl, 4000, 1, 1000, 0, 0x10);
		send_seg(&fl, 4000, 1, 1000, 1, 0x10);
		kick_held();
		assert_true(next_unit(BTC_TIMEOUT_MS));
		assert_false(U.tpa);
		assert_true(next_unit(BTC_TIMEOUT_MS));
		assert_false(U.tpa);
	}
	assert_int_equal(CNT(1, "rx_tpa_starts"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lso, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lso_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tpa, setup_tpa, teardown),
		cmocka_unit_test_setup_teardown(test_tpa_cfg_refused, setup_tpa, teardown),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
