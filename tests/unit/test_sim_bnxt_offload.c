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
	if (ipv == 6) {
		static const uint8_t s6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
		static const uint8_t d6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

		memcpy(fl.src, s6, 16);
		memcpy(fl.dst, d6, 16);
	}
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

	assert_true(len <= BIG_LEN);
	memcpy(big, f, len);
	for (unsigned i = 0, s = 0; i < nbd; i++) {
		size_t off = (size_t)i * 32768, n = len - off < 32768 ? len - off : 32768;
		struct bnxt_tx_bd bd = { .len = (uint16_t)n, .addr = btc_iova(&CA, big + off) };

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
	assert_int_equal(CNT(0, "tx_lso"), 5);
	assert_int_equal(CNT(0, "tx_errors") + CNT(0, "tx_wire_drops") + CNT(1, "rx_no_buffer"), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lso, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lso_refused, setup, teardown),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
