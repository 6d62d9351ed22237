/* drivers/bnxt/bnxt_hw.h: doorbell encodings, completion validity, record
 * field positions, checked against values worked out by hand from the
 * documented bit positions (hw-docs/bnxt.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "drivers/bnxt/bnxt_hw.h"

/* Little-endian byte images of words, written out by hand in the tests. */
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_p5_doorbell_worked_examples(void **state)
{
	(void)state;
	/* TX producer 0x45 on ring 0x123: type SQ(0)<<60 | path L2(1)<<56 |
	 * 0x123<<32 | 0x45 */
	assert_true(bnxt_db64(BNXT_DBR_TYPE_SQ, 0x123, 0x45) == 0x0100012300000045ULL);
	/* RX/AGG producer: type SRQ(2) */
	assert_true(bnxt_db64(BNXT_DBR_TYPE_SRQ, 0x9, 0x3ff) == 0x21000009000003ffULL);
	/* CQ consumer, polling: type CQ(4) */
	assert_true(bnxt_db64(BNXT_DBR_TYPE_CQ, 0x7, 0x1ff) == 0x41000007000001ffULL);
	/* CQ arm: type CQ_ARMALL(6) */
	assert_true(bnxt_db64(BNXT_DBR_TYPE_CQ_ARMALL, 0x7, 0x1ff) == 0x61000007000001ffULL);
	/* NQ without / with arm: types 0xa and 0xb */
	assert_true(bnxt_db64(BNXT_DBR_TYPE_NQ, 0x2, 0x10) == 0xa100000200000010ULL);
	assert_true(bnxt_db64(BNXT_DBR_TYPE_NQ_ARM, 0x2, 0x10) == 0xb100000200000010ULL);
	/* xid is 20 bits, index 24 bits: wider inputs are cut, never spill */
	assert_true(bnxt_db64(BNXT_DBR_TYPE_SQ, 0xfffff, 0xffffff) == 0x010fffff00ffffffULL);
	assert_true(bnxt_db64(BNXT_DBR_TYPE_SQ, 0x1fffff, 0x1000001) == 0x010fffff00000001ULL);
}

static void test_p5_doorbell_decode_and_word_view(void **state)
{
	(void)state;
	uint64_t v = bnxt_db64(BNXT_DBR_TYPE_CQ_ARMALL, 0xabcde, 0x123456);
	struct bnxt_dbc w;

	assert_int_equal(bnxt_db64_type(v), BNXT_DBR_TYPE_CQ_ARMALL);
	assert_int_equal(bnxt_db64_path(v), 1);
	assert_int_equal(bnxt_db64_xid(v), 0xabcde);
	assert_int_equal(bnxt_db64_idx(v), 0x123456);
	assert_true((v & BNXT_DBR_P5_RSVD_MASK) == 0);
	/* dbc_dbc view: low word index, high word xid | path<<24 | type<<28 */
	memcpy(&w, &v, sizeof(w));
	assert_int_equal(w.index, 0x123456);
	assert_int_equal(w.type_path_xid, 0x610abcdeu);
	/* every type composes without touching reserved or P7-only bits */
	for (unsigned int t = 0; t <= 0xf; t++) {
		uint64_t d = bnxt_db64((enum bnxt_dbr_type)t, 0xfffff, 0xffffff);

		assert_true((d & BNXT_DBR_P5_RSVD_MASK) == 0);
		assert_int_equal(bnxt_db64_type(d), t);
	}
	/* a P7 doorbell (VALID, epoch) is caught by the P5 reserved mask */
	assert_true(((v | BNXT_DBR_VALID) & BNXT_DBR_P5_RSVD_MASK) != 0);
	assert_true(((v | BNXT_DBR_EPOCH) & BNXT_DBR_P5_RSVD_MASK) != 0);
}

static void test_legacy_doorbell(void **state)
{
	(void)state;
	assert_int_equal(bnxt_db32(BNXT_DB_KEY_TX, 5), 0x00000005u);
	assert_int_equal(bnxt_db32(BNXT_DB_KEY_RX, 0x10), 0x10000010u);
	assert_int_equal(bnxt_db32(BNXT_DB_CP_FLAGS, 0x1ff), 0x2c0001ffu);
	assert_int_equal(bnxt_db32(BNXT_DB_CP_REARM_FLAGS, 0x1ff), 0x240001ffu);
	assert_int_equal(bnxt_db32(BNXT_DB_KEY_TX, 0x1000002), 0x00000002u);
	assert_int_equal(bnxt_db32_key(0x2c0001ffu), 2);
	assert_int_equal(bnxt_db32_idx(0x2c0001ffu), 0x1ff);
	assert_int_equal(BNXT_DB_LEGACY_STRIDE * 3, 0x180);
}

/* Writer and reader of an 8-entry ring over three passes: the reader sees
 * exactly what the writer has written in the current pass, never a stale
 * record of the previous one. */
static void test_completion_phase(void **state)
{
	(void)state;
	enum { N = 8 };
	struct bnxt_cmpl_base ring[N];
	uint32_t prod = 0, cons = 0;

	memset(ring, 0, sizeof(ring));
	assert_int_equal(bnxt_cmpl_phase(0, N), 1);
	assert_int_equal(bnxt_cmpl_phase(7, N), 1);
	assert_int_equal(bnxt_cmpl_phase(8, N), 0);
	assert_int_equal(bnxt_cmpl_phase(16, N), 1);
	/* zeroed memory is not a valid first-pass record */
	assert_false(bnxt_cmpl_valid(&ring[0], 0, N));

	for (int round = 0; round < 6; round++) {
		unsigned int burst = 3 + (unsigned int)round % 3;	/* 3,4,5,... */

		for (unsigned int i = 0; i < burst; i++, prod++) {
			struct bnxt_cmpl_base *c = &ring[prod & (N - 1)];

			c->type = BNXT_CMPL_TYPE_TX_L2;
			c->info2 = prod;
			c->info3_v = bnxt_cmpl_phase(prod, N);
		}
		while (bnxt_cmpl_valid(&ring[cons & (N - 1)], cons, N)) {
			assert_true(cons < prod);
			assert_int_equal(ring[cons & (N - 1)].info2, cons);
			cons++;
		}
		assert_int_equal(cons, prod);
	}
	assert_true(prod > 2 * N);	/* wrapped at least twice */
}

static void test_completion_sizes(void **state)
{
	(void)state;
	assert_int_equal(bnxt_cmpl_slots(BNXT_CMPL_TYPE_TX_L2), 1);
	assert_int_equal(bnxt_cmpl_slots(BNXT_CMPL_TYPE_RX_L2), 2);
	assert_int_equal(bnxt_cmpl_slots(BNXT_CMPL_TYPE_RX_AGG), 1);
	assert_int_equal(bnxt_cmpl_slots(BNXT_CMPL_TYPE_RX_TPA_START), 2);
	assert_int_equal(bnxt_cmpl_slots(BNXT_CMPL_TYPE_HWRM_DONE), 1);
	assert_int_equal(bnxt_cmpl_slots(BNXT_CMPL_TYPE_HWRM_ASYNC_EVENT), 1);
	assert_int_equal(bnxt_cmpl_slots(BNXT_CMPL_TYPE_CQ_NOTIFICATION), 1);
}

/* An HDS RX record written byte by byte, read back through the structs. */
static void test_rx_l2_record_fields(void **state)
{
	(void)state;
	_Alignas(16) uint8_t b[32];
	struct bnxt_rx_l2_cmpl rc;

	memset(b, 0, sizeof(b));
	put16(b + 0, 0x2511);		/* TCP | RSS_VALID | HDS | type 0x11 */
	put16(b + 2, 66);		/* header bytes in the RX buffer */
	put32(b + 4, 7);		/* opaque of the PKT BD */
	b[8] = 0x07;			/* 3 AGG records follow, V = 1 */
	b[9] = 0x0a;			/* profile 5, 4-tuple */
	b[10] = 66;			/* payload offset */
	put32(b + 12, 0xdeadbeef);	/* hash */
	put32(b + 16, 0x103);		/* IPv6, IP and L4 checksums done */
	put16(b + 24, 0x0021);		/* L4 checksum error, V = 1 */
	memcpy(&rc, b, sizeof(rc));

	assert_int_equal(rc.lo.flags_type & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_RX_L2);
	assert_int_equal(rc.lo.flags_type & BNXT_RX_CMPL_FLAGS_PLACEMENT_MASK,
			 BNXT_RX_CMPL_FLAGS_PLACEMENT_HDS);
	assert_true(rc.lo.flags_type & BNXT_RX_CMPL_FLAGS_RSS_VALID);
	assert_int_equal(rc.lo.flags_type & BNXT_RX_CMPL_FLAGS_ITYPE_MASK,
			 BNXT_RX_CMPL_FLAGS_ITYPE_TCP);
	assert_int_equal(rc.lo.len, 66);
	assert_int_equal(rc.lo.opaque, 7);
	assert_int_equal(bnxt_rx_agg_bufs(rc.lo.agg_bufs_v1), 3);
	assert_int_equal(rc.lo.agg_bufs_v1 & BNXT_RX_CMPL_V1, 1);
	assert_int_equal(bnxt_rx_rss_profile_id(rc.lo.rss_hash_type), 5);
	assert_int_equal(bnxt_rx_rss_tuple_op(rc.lo.rss_hash_type), BNXT_RX_RSS_OP_INNER_4TUPLE);
	assert_int_equal(bnxt_rx_payload_offset(rc.lo.payload_offset), 66);
	assert_int_equal(rc.lo.rss_hash, 0xdeadbeef);
	assert_true(rc.hi.flags2 & BNXT_RX_CMPL_FLAGS2_IP_TYPE_IPV6);
	assert_int_equal(rc.hi.errors_v2 & BNXT_RX_CMPL_V2, 1);
	assert_int_equal(rc.hi.errors_v2 & BNXT_RX_CMPL_ERRORS_L4_CS_ERROR,
			 BNXT_RX_CMPL_ERRORS_L4_CS_ERROR);
	/* both slots pass the validity test on the first pass */
	assert_true(bnxt_cmpl_valid(&b[0], 0, 64));
	assert_true(bnxt_cmpl_valid(&b[16], 1, 64));
	assert_false(bnxt_cmpl_valid(&b[16], 65, 64));
	assert_int_equal(bnxt_rx_payload_offset(0), 256);
}

static void test_rss_hash_type_packing(void **state)
{
	(void)state;
	/* {op[1:0], profile[4:0], op[2]} from bit 7 down */
	assert_int_equal(bnxt_rx_rss_hash_type(3, 0x1f), 0xfe);
	assert_int_equal(bnxt_rx_rss_hash_type(4, 0), 0x01);
	assert_int_equal(bnxt_rx_rss_hash_type(1, 2), 0x44);
	for (unsigned int op = 0; op < 8; op++)
		for (unsigned int id = 0; id < 32; id++) {
			uint8_t t = bnxt_rx_rss_hash_type(op, id);

			assert_int_equal(bnxt_rx_rss_tuple_op(t), op);
			assert_int_equal(bnxt_rx_rss_profile_id(t), id);
		}
}

static void test_tx_bd_flags(void **state)
{
	(void)state;
	struct bnxt_tx_bd bd = {
		.flags_type = BNXT_TX_BD_TYPE_SHORT | BNXT_TX_BD_FLAGS_PACKET_END |
			      bnxt_tx_bd_cnt(1) | bnxt_tx_lhint(60),
		.len = 60, .opaque = 0x11223344, .addr = 0x0000123456789000ULL,
	};
	uint8_t b[16];

	assert_int_equal(bd.flags_type, 0x0140);
	memcpy(b, &bd, sizeof(b));
	assert_int_equal(b[0], 0x40);
	assert_int_equal(b[1], 0x01);
	assert_int_equal(b[2], 60);
	assert_int_equal(get32(b + 4), 0x11223344u);
	assert_int_equal(get32(b + 8), 0x56789000u);
	assert_int_equal(get32(b + 12), 0x00001234u);
	/* a long BD + long_hi + one short BD = 3 slots */
	assert_int_equal(BNXT_TX_BD_TYPE_LONG | bnxt_tx_bd_cnt(3) | BNXT_TX_BD_FLAGS_NO_CMPL |
			 BNXT_TX_BD_FLAGS_COAL_NOW, 0x8390);
	assert_int_equal(bnxt_tx_bd_cnt(32), 0);	/* 0 encodes 32 */
	assert_int_equal(bnxt_tx_lhint(511), BNXT_TX_BD_FLAGS_LHINT_LT512);
	assert_int_equal(bnxt_tx_lhint(512), BNXT_TX_BD_FLAGS_LHINT_LT1K);
	assert_int_equal(bnxt_tx_lhint(1023), BNXT_TX_BD_FLAGS_LHINT_LT1K);
	assert_int_equal(bnxt_tx_lhint(1024), BNXT_TX_BD_FLAGS_LHINT_LT2K);
	assert_int_equal(bnxt_tx_lhint(2047), BNXT_TX_BD_FLAGS_LHINT_LT2K);
	assert_int_equal(bnxt_tx_lhint(2048), BNXT_TX_BD_FLAGS_LHINT_GTE2K);
	assert_int_equal(bnxt_tx_lhint(9000), 0x6000);
}

static void test_rx_bds(void **state)
{
	(void)state;
	struct bnxt_rx_bd pkt = { .flags_type = BNXT_RX_BD_TYPE_PKT, .len = 256, .opaque = 3 };
	struct bnxt_rx_bd agg = { .flags_type = BNXT_RX_BD_TYPE_AGG | BNXT_RX_BD_FLAGS_SOP_PAD,
				  .len = 4096, .opaque = 9 };
	uint8_t b[16];

	memcpy(b, &pkt, sizeof(b));
	assert_int_equal(b[0], 0x04);
	assert_int_equal(b[2] | b[3] << 8, 256);
	memcpy(b, &agg, sizeof(b));
	assert_int_equal(b[0], 0x46);
	assert_int_equal(b[3], 0x10);		/* 4096 little-endian */
	assert_int_equal(get32(b + 4), 9);
}

/* A request filled through the struct lands at the documented offsets. */
static void test_hwrm_request_bytes(void **state)
{
	(void)state;
	struct bnxt_hwrm_ring_alloc_input r;
	uint8_t b[sizeof(r)];

	memset(&r, 0, sizeof(r));
	r.hdr.req_type = BNXT_HWRM_RING_ALLOC;
	r.hdr.cmpl_ring = BNXT_HWRM_CMPL_RING_NONE;
	r.hdr.seq_id = 0x1234;
	r.hdr.target_id = BNXT_HWRM_TARGET_ID_HWRM;
	r.hdr.resp_addr = 0x1122334455667780ULL;
	r.enables = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID | BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
	r.ring_type = BNXT_RING_TYPE_RX_AGG;
	r.length = 1024;
	r.rx_buf_size = 4096;
	r.rx_ring_id = 0x21;
	r.nq_ring_id = 0x2;
	r.stat_ctx_id = 5;
	r.cq_handle = 0xa5a5000000000001ULL;
	memcpy(b, &r, sizeof(b));

	assert_int_equal(sizeof(b), 88);
	assert_int_equal(b[0], 0x50);
	assert_int_equal(b[2] | b[3] << 8, 0xffff);
	assert_int_equal(b[4] | b[5] << 8, 0x1234);
	assert_int_equal(get32(b + 8), 0x55667780u);
	assert_int_equal(get32(b + 0x10), 0x180u);
	assert_int_equal(b[0x14], 4);
	assert_int_equal(get32(b + 0x28), 1024);
	assert_int_equal(b[0x32] | b[0x33] << 8, 4096);
	assert_int_equal(b[0x34], 0x21);
	assert_int_equal(b[0x36], 0x2);
	assert_int_equal(get32(b + 0x40), 5);
	assert_int_equal(get32(b + 0x50), 1);
	assert_int_equal(get32(b + 0x54), 0xa5a50000u);
}

/* The valid byte is the last byte of resp_len, whatever the struct size. */
static void test_hwrm_response_valid_byte(void **state)
{
	(void)state;
	_Alignas(16) uint8_t buf[BNXT_HWRM_MAX_RESP_LEN];
	const struct bnxt_hwrm_ring_alloc_output *o = (const void *)buf;

	memset(buf, 0, sizeof(buf));
	put16(buf + 2, BNXT_HWRM_RING_ALLOC);
	put16(buf + 4, 0x1234);
	put16(buf + 6, sizeof(*o));
	put16(buf + 8, 0x0103);
	buf[15] = BNXT_HWRM_RESP_VALID_KEY;
	assert_int_equal(o->hdr.resp_len, 16);
	assert_int_equal(buf[o->hdr.resp_len - 1], o->valid);
	assert_int_equal(o->valid, 1);
	assert_int_equal(o->ring_id, 0x103);
	assert_int_equal(o->hdr.seq_id, 0x1234);
	/* a 176-byte VER_GET response has its valid byte at 0xaf */
	assert_int_equal(offsetof(struct bnxt_hwrm_ver_get_output, valid),
			 sizeof(struct bnxt_hwrm_ver_get_output) - 1);
}

static void test_pci_ids_and_events(void **state)
{
	(void)state;
	assert_true(bnxt_dev_is_p5(BNXT_DEV_57508));
	assert_true(bnxt_dev_is_p5(BNXT_DEV_57502));
	assert_true(bnxt_dev_is_p5(BNXT_DEV_57500_VF2));
	assert_false(bnxt_dev_is_p5(BNXT_DEV_57414));
	assert_false(bnxt_dev_is_p5(0x1753));
	assert_true(bnxt_dev_is_vf(BNXT_DEV_57500_VF1));
	assert_true(bnxt_dev_is_vf(BNXT_DEV_5741X_VF));
	assert_false(bnxt_dev_is_vf(BNXT_DEV_57508));
	assert_true(bnxt_chip_num_is_p5(0x1751));
	assert_false(bnxt_chip_num_is_p5(0x16d7));

	/* link up on port 1, port id 0x12, PF 3 */
	uint32_t d1 = 0x1u | (1u << 1) | (0x12u << 4) | (3u << 20);

	assert_int_equal(d1 & BNXT_ASYNC_LINK_DATA1_LINK_UP, 1);
	assert_int_equal((d1 & BNXT_ASYNC_LINK_DATA1_PORT_MASK) >> BNXT_ASYNC_LINK_DATA1_PORT_SFT, 1);
	assert_int_equal((d1 & BNXT_ASYNC_LINK_DATA1_PORT_ID_MASK) >> BNXT_ASYNC_LINK_DATA1_PORT_ID_SFT,
			 0x12);
	assert_int_equal((d1 & BNXT_ASYNC_LINK_DATA1_PF_ID_MASK) >> BNXT_ASYNC_LINK_DATA1_PF_ID_SFT, 3);
	assert_int_equal(BNXT_BS_PG_SIZE_2M | BNXT_BS_LVL_1, 0x31);
	assert_int_equal(BNXT_BS_CFG_ENABLES_TQM_RING(7), 0x2000);
}

static void test_resp_tail_fields(void **state)
{
	(void)state;
	uint8_t buf[176];
	const struct bnxt_hwrm_func_qcaps_output_long *qc = (const void *)buf;
	const struct bnxt_hwrm_func_qcfg_output_long *qf = (const void *)buf;

	/* 144-byte FUNC_QCAPS with MULTI_L2_DB (0x200) in flags_ext3 at 0x84 */
	memset(buf, 0, sizeof(buf));
	put16(buf + 6, 144);
	put32(buf + 0x84, 0x200);
	buf[143] = BNXT_HWRM_RESP_VALID_KEY;
	assert_true(bnxt_qcaps_multi_l2_db(qc));
	/* the same bit from firmware that only knows RX_RATE_PROFILE_SEL */
	put32(buf + 0x84, 0x8);
	assert_false(bnxt_qcaps_multi_l2_db(qc));

	/* 136-byte FUNC_QCAPS: 0x84..0x86 padding, 0x87 the valid byte. The
	 * bytes where flags_ext3 would be are non-zero, yet it is absent. */
	memset(buf, 0, sizeof(buf));
	put16(buf + 6, 136);
	buf[0x85] = 0x02;	/* padding that reads as bit 0x200 */
	buf[135] = BNXT_HWRM_RESP_VALID_KEY;
	assert_true(qc->flags_ext3 & BNXT_FUNC_QCAPS_FLAGS_EXT3_MULTI_L2_DB_SUPPORTED);
	assert_false(bnxt_qcaps_multi_l2_db(qc));
	assert_false(BNXT_RESP_HAS(136, bnxt_hwrm_func_qcaps_output_long, flags_ext3));
	assert_true(BNXT_RESP_HAS(136, bnxt_hwrm_func_qcaps_output_long, roce_vf_max));
	assert_true(BNXT_RESP_HAS(144, bnxt_hwrm_func_qcaps_output_long, max_crypto_rx_flow_filters));
	assert_false(BNXT_RESP_HAS(0, bnxt_hwrm_func_qcaps_output_long, fid));

	/* FUNC_QCFG l2_db_multi_page_size_kb at 0xa8..0xa9: absent from the
	 * 160- and 168-byte layouts, present from 171 bytes on (176 in HSI .133) */
	assert_false(BNXT_RESP_HAS(160, bnxt_hwrm_func_qcfg_output_long, l2_db_multi_page_size_kb));
	assert_false(BNXT_RESP_HAS(168, bnxt_hwrm_func_qcfg_output_long, l2_db_multi_page_size_kb));
	assert_false(BNXT_RESP_HAS(170, bnxt_hwrm_func_qcfg_output_long, l2_db_multi_page_size_kb));
	assert_true(BNXT_RESP_HAS(171, bnxt_hwrm_func_qcfg_output_long, l2_db_multi_page_size_kb));
	memset(buf, 0, sizeof(buf));
	put16(buf + 6, 176);
	put16(buf + 0xa8, 256);
	buf[0x59] = 1;
	buf[175] = BNXT_HWRM_RESP_VALID_KEY;
	assert_int_equal(qf->l2_db_multi_page_size_kb, 256);
	assert_int_equal(qf->db_page_size, 1);
	assert_int_equal(qf->valid, 1);
}

static void test_multi_doorbell_worked_example(void **state)
{
	(void)state;
	/* db_page_size codes: 4 KiB << code, 0xa = 4 MiB is the last */
	assert_int_equal(bnxt_db_page_bytes(0), 4096);
	assert_int_equal(bnxt_db_page_bytes(1), 8192);
	assert_int_equal(bnxt_db_page_bytes(0xa), 4u << 20);
	assert_int_equal(bnxt_db_page_bytes(0xb), 0);

	/* P5 PF, 4 KiB pages: the legacy doorbell 0x10000 is DPI 16; rings
	 * get DPIs from 17, ring k's doorbell at BAR2 + (17 + k) * 4 KiB. */
	uint32_t pg = bnxt_db_page_bytes(BNXT_FUNC_QCFG_DB_PAGE_SIZE_4KB);

	assert_int_equal(bnxt_mdb_db_off(16, pg), BNXT_DB_PF_OFFSET_P5);
	assert_int_equal(bnxt_mdb_first_dpi(false, pg), 17);
	assert_int_equal(bnxt_mdb_db_off(17, pg), 0x11000);
	assert_int_equal(bnxt_mdb_db_off(17 + 3, pg), 0x14000);
	/* l2_db_multi_page_size_kb 256: 64 pages, DPIs 17..80, the last
	 * page ending at 0x51000 */
	assert_int_equal(bnxt_mdb_num_dpis(256, pg), 64);
	assert_int_equal(bnxt_mdb_db_off(17 + 64 - 1, pg) + pg, 0x51000);
	/* VF: legacy 0x4000 is DPI 4, first ring DPI 5 at 0x5000 */
	assert_int_equal(bnxt_mdb_first_dpi(true, pg), 5);
	assert_int_equal(bnxt_mdb_db_off(5, pg), 0x5000);
	/* 8 KiB pages: legacy 0x10000 is DPI 8, first ring DPI 9 at 0x12000 */
	assert_int_equal(bnxt_mdb_first_dpi(false, 8192), 9);
	assert_int_equal(bnxt_mdb_db_off(9, 8192), 0x12000);
	assert_int_equal(bnxt_mdb_num_dpis(256, 8192), 32);
	assert_int_equal(bnxt_mdb_num_dpis(256, 0), 0);
	/* the 64-bit offset does not wrap for the largest inputs */
	assert_true(bnxt_mdb_db_off(0xffff, 4u << 20) == 0xffffULL << 22);

	/* RING_ALLOC for a TX ring on DPI 17: 96 bytes, dpi at 0x58, enables
	 * DPI_VALID (0x2000) | STAT_CTX_ID_VALID (0x8) at 0x10 */
	struct bnxt_hwrm_ring_alloc_input_long req;
	uint8_t img[sizeof(req)];

	memset(&req, 0, sizeof(req));
	req.base.enables = BNXT_RING_ALLOC_ENABLES_DPI_VALID |
			   BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID;
	req.base.ring_type = BNXT_RING_TYPE_TX;
	req.dpi = 17;
	memcpy(img, &req, sizeof(img));
	assert_int_equal(sizeof(img), 96);
	assert_int_equal(get32(img + 0x10), 0x2008);
	assert_int_equal(img[0x14], 1);
	assert_int_equal(img[0x58], 0x11);
	assert_int_equal(img[0x59], 0x00);
	for (size_t i = 0x5a; i < sizeof(img); i++)
		assert_int_equal(img[i], 0);

	/* MSI-X model layout: table page then PBA page, both inside BAR4 */
	assert_int_equal(BNXT_MODEL_MSIX_TABLE_OFF + BNXT_MODEL_MSIX_VECTORS *
			 BNXT_PCI_MSIX_ENTRY_SIZE, 0x400);
	assert_true(BNXT_MODEL_MSIX_PBA_OFF % 4096 == 0);
	assert_int_equal(BNXT_PCI_CFG_SPACE_SIZE, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p5_doorbell_worked_examples),
		cmocka_unit_test(test_p5_doorbell_decode_and_word_view),
		cmocka_unit_test(test_legacy_doorbell),
		cmocka_unit_test(test_completion_phase),
		cmocka_unit_test(test_completion_sizes),
		cmocka_unit_test(test_rx_l2_record_fields),
		cmocka_unit_test(test_rss_hash_type_packing),
		cmocka_unit_test(test_tx_bd_flags),
		cmocka_unit_test(test_rx_bds),
		cmocka_unit_test(test_hwrm_request_bytes),
		cmocka_unit_test(test_hwrm_response_valid_byte),
		cmocka_unit_test(test_pci_ids_and_events),
		cmocka_unit_test(test_resp_tail_fields),
		cmocka_unit_test(test_multi_doorbell_worked_example),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
