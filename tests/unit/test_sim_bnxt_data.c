/*
 * sim/bnxt: the data path of two bnxt models joined by a pair wire, driven
 * by hand-built rings through the real vfio-user client: TX to the wire,
 * RX with header-data split, the valid bit across ring passes, RSS against
 * published Toeplitz vectors, n-tuple steering, drops without buffers,
 * malformed BDs and doorbells, DMA outside mapped memory, both doorbell
 * modes, offloads, fault injection, and the frame rate through the pair.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/support/bnxt_test_client.h"

static struct btc_sim S;
static struct btc CA, CB;		/* A sends, B receives (mostly) */
static struct btc_port PA, PB;
static struct btc_rx_pkt RX;

#define CNT(i, key) btc_counter(&S, i, key)

/* Microsoft's "Verifying the RSS Hash Calculation" key */
static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static const struct btc_port_cfg base_cfg = {
	.nq = 1, .tx_size = 256, .rx_size = 64, .agg_size = 128, .cq_size = 1024,
	.rx_buf = 256, .agg_buf = 1024,
	.plc_flags = BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT | BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4 |
		     BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6,
	.hds_threshold = 0, .jumbo_thresh = 256,
};

static int start(const char *opts, const struct btc_port_cfg *ca, const struct btc_port_cfg *cb)
{
	if (btc_sim_start(&S, opts, opts, true) || btc_open(&CA, S.path[0]) ||
	    btc_open(&CB, S.path[1]))
		return -1;
	if (btc_port_open(&CA, &PA, ca) || btc_port_open(&CB, &PB, cb)) {
		fprintf(stderr, "port setup failed\n");
		return -1;
	}
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return start("", &base_cfg, &base_cfg);
}

static int setup_legacy(void **state)
{
	(void)state;
	return start(",multidb=0", &base_cfg, &base_cfg);
}

static int teardown(void **state)
{
	(void)state;
	btc_close(&CA);
	btc_close(&CB);
	btc_sim_stop(&S);
	return 0;
}

/* ---- frames, built and checksummed here independently of the model ---- */

static uint16_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

struct flow {
	uint8_t ipv;			/* 4 or 6 */
	uint8_t proto;			/* 6 or 17 */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};

/* Ethernet + IPv4/IPv6 + TCP/UDP + payload (pattern from seed); correct
 * checksums unless zero_csum. Returns the frame length (padded to 60). */
static size_t build(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const struct flow *fl,
		    size_t payload, uint8_t seed, bool zero_csum)
{
	size_t l3 = 14, l4, hl = fl->proto == 6 ? 20 : 8, len, l4len = hl + payload;
	uint8_t ph[40];
	uint32_t s;

	memset(f, 0, 64);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (fl->ipv == 4) {
		f[12] = 0x08, f[13] = 0x00;
		f[l3] = 0x45;
		f[l3 + 2] = (uint8_t)((20 + l4len) >> 8);
		f[l3 + 3] = (uint8_t)(20 + l4len);
		f[l3 + 8] = 64;
		f[l3 + 9] = fl->proto;
		memcpy(f + l3 + 12, fl->src, 4);
		memcpy(f + l3 + 16, fl->dst, 4);
		l4 = l3 + 20;
	} else {
		f[12] = 0x86, f[13] = 0xdd;
		f[l3] = 0x60;
		f[l3 + 4] = (uint8_t)(l4len >> 8);
		f[l3 + 5] = (uint8_t)l4len;
		f[l3 + 6] = fl->proto;
		f[l3 + 7] = 64;
		memcpy(f + l3 + 8, fl->src, 16);
		memcpy(f + l3 + 24, fl->dst, 16);
		l4 = l3 + 40;
	}
	memset(f + l4, 0, hl);
	f[l4] = (uint8_t)(fl->sport >> 8), f[l4 + 1] = (uint8_t)fl->sport;
	f[l4 + 2] = (uint8_t)(fl->dport >> 8), f[l4 + 3] = (uint8_t)fl->dport;
	if (fl->proto == 6) {
		f[l4 + 12] = 5 << 4;
		f[l4 + 13] = 0x18;	/* PSH ACK */
	} else {
		f[l4 + 4] = (uint8_t)(l4len >> 8), f[l4 + 5] = (uint8_t)l4len;
	}
	for (size_t i = 0; i < payload; i++)
		f[l4 + hl + i] = (uint8_t)(seed + i * 7);
	len = l4 + l4len;
	if (len < 60) {
		memset(f + len, 0, 60 - len);
		len = 60;
	}
	if (zero_csum)
		return len;
	if (fl->ipv == 4) {
		uint16_t c = (uint16_t)~sum16(f + l3, 20, 0);

		f[l3 + 10] = (uint8_t)(c >> 8), f[l3 + 11] = (uint8_t)c;
	}
	/* pseudo header: addresses, then zero, protocol, length (both versions
	 * sum to the same words) */
	memset(ph, 0, sizeof(ph));
	s = sum16(fl->src, fl->ipv == 4 ? 4 : 16, 0);
	s = sum16(fl->dst, fl->ipv == 4 ? 4 : 16, s);
	s += fl->proto + (uint32_t)l4len;
	{
		unsigned o = fl->proto == 6 ? 16 : 6;
		uint16_t c = (uint16_t)~sum16(f + l4, l4len, s);

		if (!c && fl->proto == 17)
			c = 0xffff;
		f[l4 + o] = (uint8_t)(c >> 8), f[l4 + o + 1] = (uint8_t)c;
	}
	return len;
}

static const struct flow flow_udp = {
	4, 17, { 10, 0, 0, 1 }, { 10, 0, 0, 2 }, 40000, 4791,
};

static uint8_t frame[BTC_TX_BUF];

static uint32_t send_frame(struct btc_port *p, const uint8_t *f, size_t len, uint16_t flags)
{
	uint32_t o = btc_tx_queue(p, f, len, flags);

	assert_int_not_equal(o, UINT32_MAX);
	btc_tx_kick(p);
	return o;
}

static void wait_tx(struct btc_port *p, uint32_t n)
{
	int64_t end = btc_now_ms() + BTC_TIMEOUT_MS;

	while (p->tx_done < n && btc_now_ms() < end) {
		btc_tx_reap(p, NULL, 0);
		btc_sleep_ms(0);
	}
	assert_int_equal(p->tx_done, n);
}

static void wait_counter(unsigned dev, const char *key, uint64_t want)
{
	int64_t end = btc_now_ms() + BTC_TIMEOUT_MS;

	while (CNT(dev, key) < want && btc_now_ms() < end)
		btc_sleep_ms(1);
	assert_int_equal(CNT(dev, key), want);
}

/* ---- TX over the pair into RX with header-data split ---- */

static void test_tx_rx_hds(void **state)
{
	struct bnxt_tx_cmpl tc;
	size_t len;
	uint32_t op;

	(void)state;
	/* UDP, 1000 bytes of payload: headers in the RX buffer, payload in
	 * AGG buffers (1024 each): one RX record, one AGG record */
	len = build(frame, CB.mac, CA.mac, &flow_udp, 1000, 3, false);
	op = send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.lo.flags_type & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_RX_L2);
	assert_int_equal(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK,
			 BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS);
	assert_int_equal(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_ITYPE_MASK,
			 BNXT_RX_CMPL_FLAGS_ITYPE_UDP);
	assert_false(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_ERROR);
	assert_int_equal(RX.lo.len, 42);
	assert_int_equal(bnxt_rx_payload_offset(RX.lo.payload_offset), 42);
	assert_int_equal(RX.nagg, 1);
	assert_int_equal(RX.agg[0].type & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_RX_AGG);
	assert_int_equal(RX.agg[0].len, 1000);
	assert_int_equal(RX.len, len);
	assert_memory_equal(RX.data, frame, len);
	assert_int_equal(RX.hi.flags2 & (BNXT_RX_CMPL_FLAGS2_IP_CS_CALC | BNXT_RX_CMPL_FLAGS2_L4_CS_CALC),
			 BNXT_RX_CMPL_FLAGS2_IP_CS_CALC | BNXT_RX_CMPL_FLAGS2_L4_CS_CALC);
	assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, 0);
	/* A's TX completion carries the first BD's opaque */
	wait_tx(&PA, 1);
	assert_int_equal(PA.txcq.cons, 1);
	memcpy(&tc, PA.txcq.va, sizeof(tc));
	assert_int_equal(tc.flags_type, BNXT_CMPL_TYPE_TX_L2);
	assert_int_equal(tc.opaque, op);
	assert_int_equal(tc.errors_v & ~BNXT_CMPL_V, 0);

	/* 3000 bytes: headers + 3 AGG buffers (1024, 1024, the rest), data in
	 * record order */
	len = build(frame, CB.mac, CA.mac, &flow_udp, 3000 - 42, 9, false);
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.lo.len, 42);
	assert_int_equal(RX.nagg, 3);
	assert_int_equal(RX.agg[0].len, 1024);
	assert_int_equal(RX.agg[1].len, 1024);
	assert_int_equal(RX.agg[2].len, 3000 - 42 - 2048);
	assert_int_equal(RX.len, 3000);
	assert_memory_equal(RX.data, frame, 3000);

	/* a TCP segment without payload is not split: whole, in the RX buffer */
	{
		struct flow tcp = flow_udp;

		tcp.proto = 6;
		len = build(frame, CB.mac, CA.mac, &tcp, 0, 0, false);
		assert_int_equal(len, 60);
		send_frame(&PA, frame, len, 0);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK,
				 BNXT_RX_CMPL_FLAGS_PLACEMENT_NORMAL);
		assert_int_equal(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_ITYPE_MASK,
				 BNXT_RX_CMPL_FLAGS_ITYPE_TCP);
		assert_int_equal(RX.lo.len, 60);
		assert_int_equal(RX.nagg, 0);
		assert_memory_equal(RX.data, frame, 60);
	}
	/* not IP: normal placement when it fits, jumbo (256 bytes first) when
	 * not */
	memset(frame, 0x5a, sizeof(frame));
	memcpy(frame, CB.mac, 6);
	memcpy(frame + 6, CA.mac, 6);
	frame[12] = 0x88, frame[13] = 0xb5;
	send_frame(&PA, frame, 200, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.lo.flags_type & (BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK |
					     BNXT_RX_CMPL_FLAGS_ITYPE_MASK), 0);
	assert_int_equal(RX.lo.len, 200);
	send_frame(&PA, frame, 2000, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK,
			 BNXT_RX_CMPL_FLAGS_PLACEMENT_JUMBO);
	assert_int_equal(RX.lo.len, 256);
	assert_int_equal(RX.nagg, 2);
	assert_int_equal(RX.len, 2000);
	assert_memory_equal(RX.data, frame, 2000);
	/* counters on both ends */
	assert_int_equal(CNT(0, "tx_frames"), 5);
	assert_int_equal(CNT(1, "rx_frames"), 5);
	assert_int_equal(CNT(1, "rx_hds"), 2);
	assert_int_equal(CNT(1, "rx_jumbo"), 1);
	assert_int_equal(CNT(0, "db_polled") > 0, 1);
	assert_int_equal(CNT(0, "db_legacy"), 0);
	assert_int_equal(CNT(0, "db_bad") + CNT(1, "db_bad"), 0);
	/* frames for another MAC are not ours */
	frame[5] ^= 0x40;
	send_frame(&PA, frame, 200, 0);
	wait_counter(1, "rx_l2_drops", 1);
	assert_false(btc_rx_next(&PB, 0, &RX));
}

/* The valid bit flips on every pass over a ring: a 16-slot CQ wrapped
 * several times, and the raw V values checked slot by slot. */
static void test_valid_bit_wraps(void **state)
{
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 300, 1, false);

	(void)state;
	for (unsigned i = 0; i < 40; i++) {
		struct btc_ring *cq = &PB.q[0].cq;
		uint32_t raw = cq->cons;
		const uint8_t *slot = cq->va + (raw & (cq->size - 1)) * 16u;
		uint32_t v;

		frame[60] = (uint8_t)i;
		send_frame(&PA, frame, len, 0);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		memcpy(&v, slot + 8, 4);
		assert_int_equal(v & 1, bnxt_cmpl_phase(raw, cq->size));
		assert_int_equal(v & 1, (raw / cq->size) % 2 == 0 ? 1 : 0);
		assert_int_equal(RX.data[60], (uint8_t)i);
		assert_int_equal(RX.nagg, 1);
		btc_tx_reap(&PA, NULL, 0);
	}
	/* 40 packets x 3 slots over a 16-slot CQ: 7 passes */
	assert_int_equal(PB.q[0].cq.cons, 120);
	assert_int_equal(CNT(1, "cq_overflows"), 0);
}

static int setup_small_cq(void **state)
{
	struct btc_port_cfg b = base_cfg;

	(void)state;
	b.cq_size = 16;
	b.rx_size = 16;
	b.agg_size = 16;
	return start("", &base_cfg, &b);
}

/* ---- RSS ---- */

struct ms_vec {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t h2, h4;	/* addresses only, with ports */
};

/* Microsoft's published verification vectors (IPv4 and IPv6, TCP). */
static const struct ms_vec ms4[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217, 0x82989176, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303, 0x5d1809c5, 0x10e828a2 },
};
static const struct ms_vec ms6[] = {
	{ { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 7 },
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 1 },
	  2794, 1766, 0x2cc18cd5, 0x40207d3d },
	{ { 0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0, 0, 0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab },
	  { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	  14230, 4739, 0x0f0c461c, 0xdde51bbf },
	{ { 0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf },
	  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf },
	  44251, 38024, 0x4b61e985, 0x02d1feef },
};

static int setup_rss(void **state)
{
	struct btc_port_cfg b = base_cfg;

	(void)state;
	b.nq = 4;
	b.rss_hash_type = BNXT_RSS_HASH_TYPE_IPV4 | BNXT_RSS_HASH_TYPE_TCP_IPV4 |
			  BNXT_RSS_HASH_TYPE_IPV6 | BNXT_RSS_HASH_TYPE_TCP_IPV6;
	b.rss_key = ms_key;
	return start("", &base_cfg, &b);
}

/* Which queue the 64-entry table (entry e -> queue e % 4) sends a hash to;
 * entry = hash % entries (hw-docs/bnxt.md 14, 15). */
static unsigned queue_of(uint32_t hash)
{
	return (hash % BNXT_RSS_TABLE_ENTRIES_P5) % 4;
}

static void rss_one(const struct ms_vec *v, uint8_t ipv, uint8_t proto, uint32_t want)
{
	struct flow fl = { ipv, proto, { 0 }, { 0 }, v->sport, v->dport };
	size_t len;
	unsigned q = queue_of(want);

	memcpy(fl.src, v->src, ipv == 4 ? 4 : 16);
	memcpy(fl.dst, v->dst, ipv == 4 ? 4 : 16);
	len = build(frame, CB.mac, CA.mac, &fl, 100, 0, false);
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, q, &RX, BTC_TIMEOUT_MS));
	assert_true(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_RSS_VALID);
	assert_int_equal(RX.lo.rss_hash, want);
	assert_int_equal(bnxt_rx_rss_tuple_op(RX.lo.rss_hash_type),
			 want == v->h4 ? BNXT_RX_RSS_OP_INNER_4TUPLE : BNXT_RX_RSS_OP_INNER_2TUPLE);
	for (unsigned o = 0; o < 4; o++)
		assert_false(btc_cq_peek(&PB.q[o].cq, 0, NULL));
	btc_tx_reap(&PA, NULL, 0);
}

static void test_rss(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ms4) / sizeof(ms4[0]); i++) {
		rss_one(&ms4[i], 4, 6, ms4[i].h4);	/* TCP_IPV4: 4-tuple */
		rss_one(&ms4[i], 4, 17, ms4[i].h2);	/* UDP not enabled: addresses */
	}
	for (size_t i = 0; i < sizeof(ms6) / sizeof(ms6[0]); i++) {
		rss_one(&ms6[i], 6, 6, ms6[i].h4);
		rss_one(&ms6[i], 6, 17, ms6[i].h2);
	}
	assert_int_equal(CNT(1, "rx_rss"), 16);
	/* not IP: the default ring, no hash */
	memset(frame, 0, 64);
	memcpy(frame, CB.mac, 6);
	frame[12] = 0x88, frame[13] = 0xb5;
	send_frame(&PA, frame, 64, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_false(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_RSS_VALID);
}

/* ---- n-tuple steering ---- */

static int ntuple(uint16_t port, uint16_t vnic, uint32_t flags, uint64_t *id)
{
	struct bnxt_hwrm_cfa_ntuple_filter_alloc_input in = {
		.hdr.req_type = BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC };
	struct bnxt_hwrm_cfa_ntuple_filter_alloc_output o;
	int rc;

	in.flags = flags;
	in.enables = BNXT_NTUPLE_ENABLES_L2_FILTER_ID | BNXT_NTUPLE_ENABLES_ETHERTYPE |
		     BNXT_NTUPLE_ENABLES_IPADDR_TYPE | BNXT_NTUPLE_ENABLES_DST_IPADDR |
		     BNXT_NTUPLE_ENABLES_IP_PROTOCOL | BNXT_NTUPLE_ENABLES_DST_PORT |
		     BNXT_NTUPLE_ENABLES_DST_PORT_MASK |
		     (flags & BNXT_NTUPLE_FLAGS_DROP ? 0 : BNXT_NTUPLE_ENABLES_DST_ID);
	in.l2_filter_id = PB.l2;
	in.ethertype = __builtin_bswap16(0x0800);
	in.ip_addr_type = BNXT_NTUPLE_IP_ADDR_TYPE_IPV4;
	in.ip_protocol = 17;
	memcpy(in.dst_ipaddr, flow_udp.dst, 4);
	in.dst_port = __builtin_bswap16(port);
	in.dst_port_mask = 0xffff;
	in.dst_id = vnic;
	*id = 0;
	rc = btc_hwrm(&CB, &in, sizeof(in), &o, sizeof(o));
	if (!rc)
		*id = o.ntuple_filter_id;
	return rc;
}

static int ntuple_free(uint64_t id)
{
	struct bnxt_hwrm_cfa_ntuple_filter_free_input in = {
		.hdr.req_type = BNXT_HWRM_CFA_NTUPLE_FILTER_FREE, .ntuple_filter_id = id };

	return btc_hwrm(&CB, &in, sizeof(in), NULL, 0);
}

static int setup_two_queues(void **state)
{
	struct btc_port_cfg b = base_cfg;

	(void)state;
	b.nq = 2;
	return start("", &base_cfg, &b);
}

static void expect_queue(uint16_t dport, unsigned q)
{
	struct flow fl = flow_udp;
	size_t len;

	fl.dport = dport;
	len = build(frame, CB.mac, CA.mac, &fl, 500, (uint8_t)dport, false);
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, q, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.len, len);
	assert_memory_equal(RX.data, frame, len);
	assert_false(btc_cq_peek(&PB.q[q ^ 1].cq, 0, NULL));
	btc_tx_reap(&PA, NULL, 0);
}

static void test_ntuple_steering(void **state)
{
	uint64_t rule, drop;

	(void)state;
	assert_int_equal(btc_port_queue_vnic(&PB, 1), 0);
	expect_queue(4791, 0);
	assert_int_equal(ntuple(4791, PB.q[1].vnic, 0, &rule), 0);
	expect_queue(4791, 1);			/* the rule wins over the L2 filter */
	expect_queue(4792, 0);
	assert_int_equal(CNT(1, "rx_ntuple_hits"), 1);
	/* the rule's VNIC splits too: HDS on queue 1 */
	assert_int_equal(ntuple_free(rule), 0);
	expect_queue(4791, 0);			/* removed: back to the default */
	assert_int_equal(CNT(1, "rx_ntuple_hits"), 1);
	/* a DROP rule */
	assert_int_equal(ntuple(5000, 0, BNXT_NTUPLE_FLAGS_DROP, &drop), 0);
	{
		struct flow fl = flow_udp;
		size_t len;

		fl.dport = 5000;
		len = build(frame, CB.mac, CA.mac, &fl, 10, 0, false);
		send_frame(&PA, frame, len, 0);
		wait_counter(1, "rx_ntuple_drops", 1);
		assert_false(btc_rx_next(&PB, 0, &RX));
	}
	/* the first allocated of two matching rules wins */
	assert_int_equal(ntuple_free(drop), 0);
	assert_int_equal(ntuple(4791, PB.q[1].vnic, 0, &rule), 0);
	assert_int_equal(ntuple(4791, PB.vnic, 0, &drop), 0);
	expect_queue(4791, 1);
}

/* ---- drops without buffers ---- */

static int setup_no_fill(void **state)
{
	struct btc_port_cfg b = base_cfg;

	(void)state;
	b.no_fill = true;
	b.stats_period_ms = 5;
	return start("", &base_cfg, &b);
}

static void test_no_buffer_drops(void **state)
{
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 400, 0, false);
	struct bnxt_ctx_hw_stats *st = PB.q[0].stats;
	int64_t end;

	(void)state;
	/* no RX buffer at all */
	for (int i = 0; i < 3; i++)
		send_frame(&PA, frame, len, 0);
	wait_counter(1, "rx_no_buffer", 3);
	/* RX buffers but no AGG buffer for the payload: the RX BD stays */
	btc_rx_post(&PB, 0, 2, 0);
	send_frame(&PA, frame, len, 0);
	wait_counter(1, "rx_no_buffer", 4);
	assert_false(btc_cq_peek(&PB.q[0].cq, 0, NULL));
	/* a frame that fits the RX buffer whole needs no AGG buffer */
	{
		size_t small = build(frame, CB.mac, CA.mac, &flow_udp, 0, 0, false);

		send_frame(&PA, frame, small, 0);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.lo.opaque, 0);	/* the first posted BD */
		assert_int_equal(RX.nagg, 0);
	}
	/* with buffers it flows again */
	btc_rx_post(&PB, 0, 0, 4);
	len = build(frame, CB.mac, CA.mac, &flow_udp, 400, 0, false);
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.lo.opaque, 1);
	assert_int_equal(RX.len, len);
	assert_int_equal(CNT(1, "rx_no_buffer"), 4);
	/* counted as the hardware does: rx_discard_pkts of the ring's stat
	 * context, DMA'd every 5 ms */
	end = btc_now_ms() + BTC_TIMEOUT_MS;
	while ((__atomic_load_n(&st->rx_discard_pkts, __ATOMIC_ACQUIRE) != 4 ||
		__atomic_load_n(&st->rx_ucast_pkts, __ATOMIC_ACQUIRE) != 2) &&
	       btc_now_ms() < end)
		btc_sleep_ms(1);
	assert_int_equal(st->rx_discard_pkts, 4);
	assert_int_equal(st->rx_ucast_pkts, 2);
	assert_int_equal(st->rx_ucast_bytes, 60 + len);
}

/* ---- malformed BDs ---- */

static void raw_tx_bd(struct btc_port *p, uint16_t flags_type, uint16_t len, uint32_t opaque,
		      uint64_t addr)
{
	struct bnxt_tx_bd bd = { .flags_type = flags_type, .len = len, .opaque = opaque,
				 .addr = addr };
	uint32_t s = p->tx.prod & (p->tx.size - 1);

	memcpy(p->tx.va + s * 16u, &bd, sizeof(bd));
	p->tx.prod++;
}

static void raw_tx_done(struct btc_port *p, struct bnxt_tx_cmpl *c)
{
	btc_tx_kick(p);
	assert_true(btc_cq_wait(&p->txcq, 1, BTC_TIMEOUT_MS));
	assert_true(btc_cq_peek(&p->txcq, 0, c));
	p->txcq.cons++;
	btc_db(p->c, &p->txcq, BNXT_DBR_TYPE_CQ, p->txcq.cons);
}

static void test_tx_bad_bds(void **state)
{
	struct bnxt_tx_cmpl c;
	uint64_t buf = btc_iova(&CA, PA.txbuf);
	const uint16_t one = BNXT_TX_BD_TYPE_SHORT | BNXT_TX_BD_FLAGS_PACKET_END;

	(void)state;
	memset(PA.txbuf, 0, 4096);
	memcpy(PA.txbuf, CB.mac, 6);
	/* type 3 */
	raw_tx_bd(&PA, 0x3 | BNXT_TX_BD_FLAGS_PACKET_END | bnxt_tx_bd_cnt(1), 100, 0x11, buf);
	raw_tx_done(&PA, &c);
	assert_int_equal(c.flags_type, BNXT_CMPL_TYPE_TX_L2 | BNXT_TX_CMPL_FLAGS_ERROR);
	assert_int_equal(c.opaque, 0x11);
	assert_int_equal(c.errors_v & BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_MASK,
			 BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT);
	/* zero length */
	raw_tx_bd(&PA, one | bnxt_tx_bd_cnt(1), 0, 0x12, buf);
	raw_tx_done(&PA, &c);
	assert_int_equal(c.opaque, 0x12);
	assert_true(c.errors_v & BNXT_TX_CMPL_ERRORS_ZERO_LENGTH_PKT);
	/* BD_CNT 2, PACKET_END on the first BD */
	raw_tx_bd(&PA, one | bnxt_tx_bd_cnt(2), 100, 0x13, buf);
	raw_tx_done(&PA, &c);
	assert_int_equal(c.errors_v & BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_MASK,
			 BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT);
	/* a buffer outside mapped memory: DMA error, even with NO_CMPL */
	raw_tx_bd(&PA, one | bnxt_tx_bd_cnt(1) | BNXT_TX_BD_FLAGS_NO_CMPL, 100, 0x14, 0x80000);
	raw_tx_done(&PA, &c);
	assert_int_equal(c.opaque, 0x14);
	assert_true(c.errors_v & BNXT_TX_CMPL_ERRORS_DMA_ERROR);
	/* the length hint below the length */
	raw_tx_bd(&PA, one | bnxt_tx_bd_cnt(1) | BNXT_TX_BD_FLAGS_LHINT_LT512, 600, 0x15, buf);
	raw_tx_done(&PA, &c);
	assert_true(c.errors_v & BNXT_TX_CMPL_ERRORS_HINT_TOO_SHORT);
	/* shorter than 52 bytes */
	raw_tx_bd(&PA, one | bnxt_tx_bd_cnt(1), 40, 0x16, buf);
	raw_tx_done(&PA, &c);
	assert_int_equal(c.errors_v & BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_MASK,
			 BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT);
	/* longer than the MTU allows: 3 x 4000 bytes */
	raw_tx_bd(&PA, BNXT_TX_BD_TYPE_SHORT | bnxt_tx_bd_cnt(3) | BNXT_TX_BD_FLAGS_LHINT_GTE2K,
		  4000, 0x17, buf);
	raw_tx_bd(&PA, 0, 4000, 0, buf);
	raw_tx_bd(&PA, BNXT_TX_BD_FLAGS_PACKET_END, 4000, 0, buf);
	raw_tx_done(&PA, &c);
	assert_int_equal(c.opaque, 0x17);
	assert_int_equal(c.errors_v & BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_MASK,
			 BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT);
	/* a good NO_CMPL packet: sent, no completion */
	raw_tx_bd(&PA, one | bnxt_tx_bd_cnt(1) | BNXT_TX_BD_FLAGS_NO_CMPL, 100, 0x18, buf);
	btc_tx_kick(&PA);
	wait_counter(0, "tx_frames", 1);
	assert_true(btc_cq_quiet(&PA.txcq, 50));
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.len, 100);
	/* counted, and nothing but the good one reached the wire */
	assert_int_equal(CNT(0, "tx_errors"), 7);
	assert_int_equal(CNT(0, "tx_bad_bd"), 4);
	assert_int_equal(CNT(0, "tx_zero_len"), 1);
	assert_int_equal(CNT(0, "tx_dma_errors"), 1);
	assert_int_equal(CNT(0, "tx_hint_short"), 1);
	assert_int_equal(CNT(0, "port.tx_frames"), 1);
	/* and the ring still works */
	PA.tx.cons = PA.tx.prod;
	PA.tx_done = PA.tx_seq;
	{
		size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 100, 0, false);

		send_frame(&PA, frame, len, 0);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.len, len);
	}
}

static void test_rx_bad_bds(void **state)
{
	struct btc_q *q = &PB.q[0];
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 500, 0, false);
	struct bnxt_rx_bd *bd;

	(void)state;
	/* the next RX BD made an AGG-type BD */
	bd = (struct bnxt_rx_bd *)(q->rx.va + 0);
	bd->flags_type = BNXT_RX_BD_TYPE_AGG;
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_true(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_ERROR);
	assert_int_equal(RX.hi.errors_v2 & BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_MASK,
			 BNXT_RX_CMPL_ERRORS_BUFFER_ERROR_BAD_FORMAT);
	assert_int_equal(RX.lo.opaque, 0);
	assert_int_equal(RX.nagg, 0);
	/* the next AGG BD of length 0: RX and AGG buffer come back with the error */
	bd = (struct bnxt_rx_bd *)(q->agg.va + 0);
	bd->len = 0;
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_true(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_ERROR);
	assert_int_equal(RX.lo.opaque, 1);
	assert_int_equal(RX.nagg, 1);
	assert_int_equal(RX.agg[0].opaque, 0);
	assert_int_equal(RX.agg[0].len, 0);
	/* an RX buffer outside mapped memory */
	bd = (struct bnxt_rx_bd *)(q->rx.va + 2 * 16);
	bd->addr = 0x90000;
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_true(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_ERROR);
	assert_int_equal(RX.lo.opaque, 2);
	assert_int_equal(RX.nagg, 1);
	assert_int_equal(CNT(1, "rx_bad_bd"), 2);
	assert_int_equal(CNT(1, "rx_dma_errors"), 1);
	/* the next ones are fine */
	send_frame(&PA, frame, len, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_false(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_ERROR);
	assert_int_equal(RX.lo.opaque, 3);
	assert_int_equal(RX.len, len);
	assert_memory_equal(RX.data, frame, len);
}

/* ---- doorbells ---- */

static void test_doorbell_errors(void **state)
{
	struct btc_ring *rx = &PB.q[0].rx, *cq = &PB.q[0].cq;
	uint64_t bad;

	(void)state;
	/* index beyond the ring */
	btc_db_raw(&CB, rx->dpi, bnxt_db64(BNXT_DBR_TYPE_SRQ, rx->id, 0) | rx->size);
	wait_counter(1, "db_bad_index", 1);
	/* a type that does not fit the ring */
	btc_db_raw(&CB, rx->dpi, bnxt_db64(BNXT_DBR_TYPE_SQ, rx->id, 3));
	wait_counter(1, "db_bad_type", 1);
	/* reserved / P7 bits, a path other than L2 */
	btc_db_raw(&CB, rx->dpi, bnxt_db64(BNXT_DBR_TYPE_SRQ, rx->id, 4) | BNXT_DBR_VALID);
	wait_counter(1, "db_bad_bits", 1);
	bad = bnxt_db64(BNXT_DBR_TYPE_SRQ, rx->id, 5) & ~BNXT_DBR_PATH_MASK;
	btc_db_raw(&CB, rx->dpi, bad);
	wait_counter(1, "db_bad_bits", 2);
	/* another ring's xid on this ring's page */
	btc_db_raw(&CB, rx->dpi, bnxt_db64(BNXT_DBR_TYPE_SRQ, PB.q[0].agg.id, 6));
	wait_counter(1, "db_bad_ring", 1);
	/* no such ring, on the legacy page */
	btc_db_raw(&CB, -1, bnxt_db64(BNXT_DBR_TYPE_SRQ, 200, 6));
	wait_counter(1, "db_bad_ring", 2);
	/* the producer moving back */
	btc_db_raw(&CB, rx->dpi, bnxt_db64(BNXT_DBR_TYPE_SRQ, rx->id, rx->prod - 5));
	wait_counter(1, "db_bad_move", 1);
	/* the consumer passing what the device wrote */
	btc_db_raw(&CB, cq->dpi, bnxt_db64(BNXT_DBR_TYPE_CQ, cq->id, 7));
	wait_counter(1, "db_bad_move", 2);
	/* half a doorbell on the legacy page */
	assert_int_equal(zn_bus_write32(CB.bus, BNXT_BAR_DB, 0x10000, 0x12345678), 0);
	assert_int_equal(CNT(1, "db_bad_access"), 1);
	assert_int_equal(CNT(1, "db_bad"), 9);
	/* nothing of it changed the rings: traffic flows */
	btc_db(&CB, rx, BNXT_DBR_TYPE_SRQ, rx->prod);
	btc_db(&CB, cq, BNXT_DBR_TYPE_CQ, cq->cons);
	{
		size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 700, 0, false);

		send_frame(&PA, frame, len, 0);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.len, len);
		assert_int_equal(RX.lo.opaque, 0);
	}
}

/* The legacy doorbell stays valid for a ring that has a DPI. */
static void test_legacy_doorbell_with_dpi(void **state)
{
	struct btc_ring *rx = &PB.q[0].rx;
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 100, 0, false);
	uint64_t legacy0 = CNT(0, "db_legacy");

	(void)state;
	assert_true(rx->dpi >= 0 && PA.tx.dpi >= 0);
	btc_tx_queue(&PA, frame, len, 0);
	btc_db_raw(&CA, -1, bnxt_db64(BNXT_DBR_TYPE_SQ, PA.tx.id, PA.tx.prod));
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(CNT(0, "db_legacy"), legacy0 + 1);
}

/* multidb=0: every doorbell a trapped write, nothing polled */
static void test_legacy_doorbells_only(void **state)
{
	(void)state;
	assert_false(CA.multidb);
	assert_int_equal(PA.tx.dpi, -1);
	for (int i = 0; i < 20; i++) {
		size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 100 + 97 * i, (uint8_t)i, false);

		send_frame(&PA, frame, len, 0);
		assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
		assert_int_equal(RX.len, len);
		assert_memory_equal(RX.data, frame, len);
		btc_tx_reap(&PA, NULL, 0);
	}
	assert_true(CNT(0, "db_legacy") >= 20);
	assert_true(CNT(1, "db_legacy") >= 20);
	assert_int_equal(CNT(0, "db_polled") + CNT(1, "db_polled"), 0);
	assert_int_equal(CNT(0, "db_bad") + CNT(1, "db_bad"), 0);
}

/* ---- a client that truncates its own DMA memory ---- */

/* B's memory file shrinks under the model (sim/vfu's SIGBUS rule): the
 * model's copies into it fail, B's rings stop, the daemon and A go on. */
static void test_truncated_client_memory(void **state)
{
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 300, 0, false);
	struct zn_vfu_stats vs;

	struct zn_dma_region *extra;

	(void)state;
	/* cmocka puts its own SIGBUS handler in around each test body; sim/vfu
	 * puts its guard back (chaining) when a window is mapped: map one now */
	assert_int_equal(zn_dma_region_alloc("extra", 4096, -1, ZN_DMA_NO_HUGE, &extra), 0);
	assert_int_equal(zn_bus_dma_map(CB.bus, extra), 0);
	assert_int_equal(ftruncate(CB.mem->fd, 0), 0);
	send_frame(&PA, frame, len, 0);
	/* reading B's RX BD faults: the RX ring stops, the frame is lost */
	wait_counter(1, "ring_faults", 1);
	wait_counter(1, "rx_no_ring", 1);
	zn_vfu_dev_stats(S.dev[1]->dev, &vs);
	assert_int_equal(vs.dma_err_bus, 1);
	assert_int_equal(CNT(1, "rx_frames"), 0);
	/* A, in its own memory, still sends and completes; B's ring stays
	 * stopped without touching the memory again */
	wait_tx(&PA, 1);
	send_frame(&PA, frame, len, 0);
	wait_tx(&PA, 2);
	wait_counter(1, "rx_no_ring", 2);
	zn_vfu_dev_stats(S.dev[1]->dev, &vs);
	assert_int_equal(vs.dma_err_bus, 1);
	/* B can still talk to its firmware: the response buffer is gone too,
	 * so no response comes, and the model is still there to say so */
	assert_true(zn_vfu_dev_connected(S.dev[1]->dev));
	assert_int_equal(zn_bus_dma_unmap(CB.bus, extra), 0);
	zn_dma_region_free(extra);
}

/* ---- CQ overflow ---- */

static void test_cq_overflow(void **state)
{
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 300, 0, false);

	(void)state;
	/* 16-slot CQ, 15 usable, 3 slots a packet: the sixth does not fit */
	for (int i = 0; i < 6; i++)
		send_frame(&PA, frame, len, 0);
	wait_counter(1, "cq_overflows", 1);
	assert_int_equal(CNT(1, "rx_frames"), 5);
	/* the ring is stopped for good: later frames find no ring */
	send_frame(&PA, frame, len, 0);
	wait_counter(1, "rx_no_ring", 1);
	/* what was written stays readable */
	for (int i = 0; i < 5; i++)
		assert_true(btc_rx_next(&PB, 0, &RX));
}

/* ---- offloads ---- */

static int setup_vlan_strip(void **state)
{
	struct btc_port_cfg b = base_cfg;

	(void)state;
	b.vnic_flags = BNXT_VNIC_CFG_FLAGS_VLAN_STRIP_MODE;
	return start("", &base_cfg, &b);
}

static void long_tx(struct btc_port *p, const uint8_t *f, size_t len, uint16_t lflags,
		    uint32_t cfa_meta)
{
	struct bnxt_tx_bd bd = { 0 };
	struct bnxt_tx_bd_long_hi hi = { .lflags = lflags, .cfa_meta = cfa_meta };
	uint32_t s = p->tx.prod & (p->tx.size - 1);

	memcpy(p->txbuf + (size_t)s * BTC_TX_CHUNK, f, len);
	bd.flags_type = BNXT_TX_BD_TYPE_LONG | BNXT_TX_BD_FLAGS_PACKET_END | bnxt_tx_bd_cnt(2) |
			bnxt_tx_lhint((uint32_t)len + 4);
	bd.len = (uint16_t)len;
	bd.opaque = 0x77;
	bd.addr = btc_iova(p->c, p->txbuf + (size_t)s * BTC_TX_CHUNK);
	memcpy(p->tx.va + s * 16u, &bd, 16);
	p->tx.prod++;
	memcpy(p->tx.va + (p->tx.prod & (p->tx.size - 1)) * 16u, &hi, 16);
	p->tx.prod++;
	btc_tx_kick(p);
}

static void test_offloads_and_vlan(void **state)
{
	uint8_t want[2048];
	size_t len = build(want, CB.mac, CA.mac, &flow_udp, 333, 5, false);
	struct flow tcp6 = { 6, 6, { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
			     { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 }, 1234, 80 };

	(void)state;
	/* checksums left zero, computed by the device */
	build(frame, CB.mac, CA.mac, &flow_udp, 333, 5, true);
	long_tx(&PA, frame, len,
		BNXT_TX_BD_LFLAGS_IP_CHKSUM | BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM, 0);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_int_equal(RX.len, len);
	assert_memory_equal(RX.data, want, len);
	assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, 0);
	/* the same for TCP over IPv6, and a VLAN tag inserted (8100, VID 42)
	 * that B strips into the completion's metadata */
	len = build(want, CB.mac, CA.mac, &tcp6, 1000, 8, false);
	build(frame, CB.mac, CA.mac, &tcp6, 1000, 8, true);
	long_tx(&PA, frame, len, BNXT_TX_BD_LFLAGS_TCP_UDP_CHKSUM,
		BNXT_TX_BD_CFA_META_KEY_VLAN_TAG | BNXT_TX_BD_CFA_META_VLAN_TPID_8100 | 42);
	assert_true(btc_rx_wait(&PB, 0, &RX, BTC_TIMEOUT_MS));
	assert_true(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_PKT_METADATA_PRESENT);
	assert_int_equal(RX.hi.flags2 & BNXT_RX_CMPL_FLAGS2_META_FORMAT_MASK,
			 BNXT_RX_CMPL_FLAGS2_META_FORMAT_VLAN);
	assert_true(RX.hi.flags2 & BNXT_RX_CMPL_FLAGS2_IP_TYPE_IPV6);
	assert_int_equal(RX.hi.metadata, 0x8100u << 16 | 42);
	assert_int_equal(RX.lo.flags_type & BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK,
			 BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS);
	assert_int_equal(RX.lo.len, 14 + 40 + 20);
	assert_int_equal(RX.len, len);
	assert_memory_equal(RX.data, want, len);
	assert_int_equal(RX.hi.errors_v2 & ~BNXT_RX_CMPL_V2, 0);
	assert_int_equal(CNT(0, "tx_csum_offloads"), 2);
	assert_int_equal(CNT(0, "tx_vlan_inserts"), 1);
	assert_int_equal(CNT(1, "rx_vlan_strips"), 1);
	/* LSO without a header size: refused, not sent */
	long_tx(&PA, frame, len, BNXT_TX_BD_LFLAGS_LSO, 0);
	wait_counter(0, "tx_bad_bd", 1);
}

/* ---- fault injection ---- */

static int setup_faults(void **state)
{
	(void)state;
	return start(",drop=3,corrupt=2", &base_cfg, &base_cfg);
}

static void test_faults(void **state)
{
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, 200, 0, false);
	unsigned got = 0, bad = 0;

	(void)state;
	for (int i = 0; i < 6; i++) {
		send_frame(&PA, frame, len, 0);
		btc_sleep_ms(2);
	}
	wait_counter(1, "fault_drops", 2);	/* frames 3 and 6 */
	while (btc_rx_wait(&PB, 0, &RX, 200)) {
		got++;
		if (RX.hi.errors_v2 & BNXT_RX_CMPL_ERRORS_L4_CS_ERROR)
			bad++;
	}
	assert_int_equal(got, 4);
	assert_int_equal(CNT(0, "fault_corrupts"), 3);	/* frames 2, 4, 6 */
	assert_int_equal(bad, 2);			/* 2 and 4; 6 was dropped */
	assert_int_equal(CNT(1, "rx_csum_errors"), 2);
}

/* ---- frames per second through the pair ---- */

static double run_rate(size_t payload, unsigned total, unsigned *received)
{
	size_t len = build(frame, CB.mac, CA.mac, &flow_udp, payload, 0, false);

	return btc_pair_rate(&PA, &PB, frame, len, total, received);
}

static int setup_rate(void **state)
{
	struct btc_port_cfg b = base_cfg;

	(void)state;
	b.rx_size = 512;
	b.agg_size = 512;
	b.cq_size = 4096;
	b.rx_batch = 32;
	return start("", &base_cfg, &b);
}

static void test_frame_rate(void **state)
{
	static const size_t sizes[] = { 18, 1458 };	/* 60- and 1500-byte frames */
	const char *env = getenv("ZN_BNXT_RATE_FRAMES");
	unsigned total = env ? (unsigned)atoi(env) : 20000;

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned got;
		double rate = run_rate(sizes[i], total, &got);

		printf("bnxt model pair: %zu-byte frames: %u in, %.0f frames/s\n",
		       sizes[i] + 42 < 60 ? 60 : sizes[i] + 42, got, rate);
		assert_int_equal(got, total);
	}
	assert_int_equal(CNT(0, "tx_errors") + CNT(1, "rx_no_buffer") + CNT(1, "cq_overflows") +
			 CNT(0, "tx_wire_drops") + CNT(0, "port.tx_dropped"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tx_rx_hds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_valid_bit_wraps, setup_small_cq, teardown),
		cmocka_unit_test_setup_teardown(test_rss, setup_rss, teardown),
		cmocka_unit_test_setup_teardown(test_ntuple_steering, setup_two_queues, teardown),
		cmocka_unit_test_setup_teardown(test_no_buffer_drops, setup_no_fill, teardown),
		cmocka_unit_test_setup_teardown(test_tx_bad_bds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_bad_bds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doorbell_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legacy_doorbell_with_dpi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legacy_doorbells_only, setup_legacy, teardown),
		cmocka_unit_test_setup_teardown(test_cq_overflow, setup_small_cq, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_client_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offloads_and_vlan, setup_vlan_strip, teardown),
		cmocka_unit_test_setup_teardown(test_faults, setup_faults, teardown),
		cmocka_unit_test_setup_teardown(test_frame_rate, setup_rate, teardown),
	};

	/* ZN_TEST_CASE=glob runs a subset (debugging) */
	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
