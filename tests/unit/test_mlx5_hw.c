/* drivers/mlx5/mlx5_hw.h: the big-endian bit-field accessors, and whole
 * command layouts checked byte by byte against images worked out by hand
 * from the public mlx5_ifc bit positions (hw-docs/mlx5.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "drivers/mlx5/mlx5_hw.h"

/* Reference model: one PRM bit at a time (bit 0 = MSB of byte 0). */
static unsigned ref_bit(const uint8_t *b, unsigned i)
{
	return (b[i / 8] >> (7 - i % 8)) & 1;
}

static void ref_set_bit(uint8_t *b, unsigned i, unsigned v)
{
	uint8_t m = (uint8_t)(1u << (7 - i % 8));

	b[i / 8] = (uint8_t)(v ? (b[i / 8] | m) : (b[i / 8] & ~m));
}

static void ref_set(uint8_t *b, unsigned off, unsigned w, uint64_t v)
{
	for (unsigned k = 0; k < w; k++)
		ref_set_bit(b, off + k, (unsigned)(v >> (w - 1 - k)) & 1);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Every width 1..64 at every offset 0..95: the set matches the bitwise
 * reference exactly (neighbours untouched) and get returns the value. */
static void test_accessor_round_trips(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (unsigned w = 1; w <= 64; w++) {
		for (unsigned off = 0; off < 96; off++) {
			uint8_t a[24], b[24];
			uint64_t v = xorshift(&seed);
			uint64_t mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;

			for (unsigned i = 0; i < sizeof(a); i++)
				a[i] = b[i] = (uint8_t)xorshift(&seed);
			zn_mlx5_set(a, off, w, v);
			ref_set(b, off, w, v & mask);
			assert_memory_equal(a, b, sizeof(a));
			uint64_t r = 0;
			for (unsigned k = 0; k < w; k++)
				r = r << 1 | ref_bit(b, off + k);
			assert_true(zn_mlx5_get(a, off, w) == r);
			assert_true(r == (v & mask));
		}
	}
}

/* Values wider than the field are cut to the field, never spill. */
static void test_accessor_truncates(void **state)
{
	(void)state;
	uint8_t buf[8] = { 0 };

	zn_mlx5_set(buf, 4, 4, 0xff);	/* bits 4..7 of byte 0 */
	assert_int_equal(buf[0], 0x0f);
	assert_int_equal(buf[1], 0x00);
	zn_mlx5_set(buf, 8, 24, 0xabcdef12);	/* 24-bit field: 0xcdef12 */
	static const uint8_t want[8] = { 0x0f, 0xcd, 0xef, 0x12, 0, 0, 0, 0 };
	assert_memory_equal(buf, want, sizeof(want));
}

/* A field that crosses a 32-bit boundary, and a 64-bit field. */
static void test_accessor_cross_dword(void **state)
{
	(void)state;
	uint8_t buf[16];

	memset(buf, 0, sizeof(buf));
	zn_mlx5_set(buf, 28, 8, 0xa5);	/* low nibble of dword 0, high of dword 1 */
	static const uint8_t w1[8] = { 0x00, 0x00, 0x00, 0x0a, 0x50, 0x00, 0x00, 0x00 };
	assert_memory_equal(buf, w1, 8);
	assert_true(zn_mlx5_get(buf, 28, 8) == 0xa5);

	memset(buf, 0xff, sizeof(buf));
	zn_mlx5_set(buf, 32, 64, 0x0123456789abcdefULL);
	static const uint8_t w2[16] = { 0xff, 0xff, 0xff, 0xff, 0x01, 0x23, 0x45, 0x67,
					0x89, 0xab, 0xcd, 0xef, 0xff, 0xff, 0xff, 0xff };
	assert_memory_equal(buf, w2, sizeof(w2));
	assert_true(zn_mlx5_get(buf, 32, 64) == 0x0123456789abcdefULL);

	/* 64 bits not on a byte boundary */
	memset(buf, 0, sizeof(buf));
	zn_mlx5_set(buf, 4, 64, 0xfedcba9876543210ULL);
	static const uint8_t w3[9] = { 0x0f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21, 0x00 };
	assert_memory_equal(buf, w3, sizeof(w3));
	assert_true(zn_mlx5_get(buf, 4, 64) == 0xfedcba9876543210ULL);
}

/* The common header: opcode 0x400 is bytes 04 00; op_mod in bytes 6..7;
 * output status byte 0, syndrome bytes 4..7. */
static void test_command_header_bytes(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_CREATE_CQ_IN] = { 0 };
	uint8_t out[16] = { 0x05, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0, 0, 0, 0 };

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_CQ);
	ZN_MLX5_SET(in, IN_OP_MOD, 0x0102);
	assert_int_equal(in[0], 0x04);
	assert_int_equal(in[1], 0x00);
	assert_int_equal(in[2], 0x00);
	assert_int_equal(in[6], 0x01);
	assert_int_equal(in[7], 0x02);
	assert_int_equal(ZN_MLX5_GET(out, OUT_STATUS), ZN_MLX5_CMD_STAT_BAD_RES_ERR);
	assert_true(ZN_MLX5_GET(out, OUT_SYNDROME) == 0x12345678);

	/* QUERY_HCA_CAP op_mod: current general caps = 1, max eth caps = 2,
	 * current SHAMPO caps = 0x3b */
	assert_int_equal(ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 1), 1);
	assert_int_equal(ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_ETHERNET_OFFLOADS, 0), 2);
	assert_int_equal(ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_DEV_SHAMPO, 1), 0x3b);
}

/*
 * CREATE_CQ, worked out from mlx5_ifc_create_cq_in_bits / cqc_bits: cqc at
 * byte 0x10; cqe_sz dword 0x00 [23:21]; log_cq_size dword 0x0c [28:24];
 * uar_page [23:0]; cq_period dword 0x10 [27:16]; cq_max_count [15:0];
 * c_eqn dword 0x14 [7:0]; log_page_size dword 0x18 [28:24]; dbr_addr at
 * 0x38 (8 bytes); pas[] at 0x110.
 */
static void test_create_cq_layout(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_CREATE_CQ_IN + 8] = { 0 };
	uint8_t want[sizeof(in)] = { 0 };
	uint8_t *cqc = ZN_MLX5_ADDR(in, CREATE_CQ_IN_CQC);

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_CQ);
	ZN_MLX5_SET(cqc, CQC_CQE_SZ, ZN_MLX5_CQE_SZ_128);
	ZN_MLX5_SET(cqc, CQC_LOG_CQ_SIZE, 10);
	ZN_MLX5_SET(cqc, CQC_UAR_PAGE, 0x123456);
	ZN_MLX5_SET(cqc, CQC_CQ_PERIOD, 0xabc);
	ZN_MLX5_SET(cqc, CQC_CQ_MAX_COUNT, 0x4321);
	ZN_MLX5_SET(cqc, CQC_C_EQN, 7);
	ZN_MLX5_SET(cqc, CQC_LOG_PAGE_SIZE, 3);
	ZN_MLX5_SET(cqc, CQC_DBR_ADDR, 0x1122334455667788ULL);
	zn_mlx5_st_be64(ZN_MLX5_ADDR(in, CREATE_CQ_IN_PAS), 0x00000000deadb000ULL);

	want[0x00] = 0x04;			/* opcode 0x0400 */
	want[0x11] = 0x20;			/* cqe_sz 1 in [23:21] */
	want[0x1c] = 0x0a;			/* log_cq_size */
	want[0x1d] = 0x12; want[0x1e] = 0x34; want[0x1f] = 0x56;
	want[0x20] = 0x0a; want[0x21] = 0xbc;	/* cq_period 0xabc in [27:16] */
	want[0x22] = 0x43; want[0x23] = 0x21;
	want[0x27] = 0x07;			/* c_eqn */
	want[0x28] = 0x03;			/* log_page_size [28:24] */
	static const uint8_t dbr[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	memcpy(&want[0x48], dbr, 8);
	static const uint8_t pas[8] = { 0, 0, 0, 0, 0xde, 0xad, 0xb0, 0x00 };
	memcpy(&want[0x110], pas, 8);
	assert_memory_equal(in, want, sizeof(in));
	assert_int_equal(ZN_MLX5_GET(cqc, CQC_LOG_CQ_SIZE), 10);
	assert_int_equal(ZN_MLX5_GET(cqc, CQC_C_EQN), 7);
}

/*
 * CREATE_RQ as a SHAMPO striding RQ: rqc at 0x20, wq at rqc + 0x30 = 0x50.
 * rqc: vsd dword 0 [28], state [23:20], flush_in_error_en [18], cqn dword
 * 0x08 [23:0], shampo_no_match_alignment_granularity dword 0x24 [25:24],
 * shampo_match_criteria_type [17:16], reservation_timeout [15:0].
 * wq: wq_type dword 0 [31:28], pd 0x08 [23:0], dbr_addr 0x10, log_wq_stride
 * 0x20 [19:16], log_wq_pg_sz [12:8], log_wq_sz [4:0], log_wqe_num_of_strides
 * 0x24 [11:8], log_wqe_stride_size [2:0], headers_mkey 0x38, shampo_enable
 * 0x3c [31], log_reservation_size [26:24], log_max_num_of_packets_per_
 * reservation [18:16], log_headers_entry_size [9:8],
 * log_headers_buffer_entry_num [3:0].
 */
static void test_create_rq_shampo_layout(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_CREATE_RQ_IN] = { 0 };
	uint8_t want[sizeof(in)] = { 0 };
	uint8_t *rqc = ZN_MLX5_ADDR(in, CREATE_RQ_IN_RQC);
	uint8_t *wq = ZN_MLX5_ADDR(rqc, RQC_WQ);

	assert_ptr_equal(wq, in + 0x50);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_RQ);
	ZN_MLX5_SET(rqc, RQC_VSD, 1);
	ZN_MLX5_SET(rqc, RQC_STATE, ZN_MLX5_QSTATE_RST);
	ZN_MLX5_SET(rqc, RQC_FLUSH_IN_ERROR_EN, 1);
	ZN_MLX5_SET(rqc, RQC_CQN, 0x000abc);
	ZN_MLX5_SET(rqc, RQC_SHAMPO_NO_MATCH_ALIGNMENT_GRANULARITY, ZN_MLX5_SHAMPO_NO_MATCH_ALIGN_STRIDE);
	ZN_MLX5_SET(rqc, RQC_SHAMPO_MATCH_CRITERIA_TYPE, ZN_MLX5_SHAMPO_MATCH_EXTENDED);
	ZN_MLX5_SET(rqc, RQC_RESERVATION_TIMEOUT, 0x1234);
	ZN_MLX5_SET(wq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_LINKED_LIST_STRIDING);
	ZN_MLX5_SET(wq, WQ_PD, 0x000005);
	ZN_MLX5_SET(wq, WQ_DBR_ADDR, 0x0000000000a0b0c0ULL);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_STRIDE, 5);		/* 32 B: next + data seg */
	ZN_MLX5_SET(wq, WQ_LOG_WQ_PG_SZ, 0);
	ZN_MLX5_SET(wq, WQ_LOG_WQ_SZ, 6);
	ZN_MLX5_SET(wq, WQ_LOG_WQE_NUM_OF_STRIDES, 7);	/* 2^(7+9) strides */
	ZN_MLX5_SET(wq, WQ_LOG_WQE_STRIDE_SIZE, 6);	/* 2^(6+6) = 4 KiB */
	ZN_MLX5_SET(wq, WQ_HEADERS_MKEY, 0x00112233);
	ZN_MLX5_SET(wq, WQ_SHAMPO_ENABLE, 1);
	ZN_MLX5_SET(wq, WQ_LOG_RESERVATION_SIZE, 4);
	ZN_MLX5_SET(wq, WQ_LOG_MAX_NUM_OF_PACKETS_PER_RESERVATION, 5);
	ZN_MLX5_SET(wq, WQ_LOG_HEADERS_ENTRY_SIZE, 2);
	ZN_MLX5_SET(wq, WQ_LOG_HEADERS_BUFFER_ENTRY_NUM, 9);

	want[0x00] = 0x09; want[0x01] = 0x08;	/* opcode 0x0908 */
	want[0x20] = 0x10;			/* vsd */
	want[0x21] = 0x04;			/* state 0, flush_in_error_en [18] */
	want[0x29] = 0x00; want[0x2a] = 0x0a; want[0x2b] = 0xbc;	/* cqn */
	want[0x44] = 0x01;			/* granularity 1 in [25:24] */
	want[0x45] = 0x01;			/* criteria 1 in [17:16] */
	want[0x46] = 0x12; want[0x47] = 0x34;
	want[0x50] = 0x20;			/* wq_type 2 in [31:28] */
	want[0x5b] = 0x05;			/* pd */
	want[0x65] = 0xa0; want[0x66] = 0xb0; want[0x67] = 0xc0;	/* dbr_addr low */
	want[0x71] = 0x05;			/* log_wq_stride [19:16] */
	want[0x73] = 0x06;			/* log_wq_sz */
	want[0x76] = 0x07;			/* log_wqe_num_of_strides [11:8] */
	want[0x77] = 0x06;			/* log_wqe_stride_size [2:0] */
	want[0x89] = 0x11; want[0x8a] = 0x22; want[0x8b] = 0x33;	/* headers_mkey */
	want[0x8c] = 0x84;			/* shampo_enable [31], log_reservation_size 4 [26:24] */
	want[0x8d] = 0x05;			/* packets per reservation [18:16] */
	want[0x8e] = 0x02;			/* header entry size [9:8] */
	want[0x8f] = 0x09;			/* header entries [3:0] */
	assert_memory_equal(in, want, sizeof(in));
}

/* MODIFY_SQ RST -> RDY: sq_state dword 0x08 [31:28] (current), sqn [23:0],
 * new state in sqc (at 0x20) dword 0 [23:20]. */
static void test_modify_sq_layout(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_MODIFY_SQ_IN] = { 0 };
	uint8_t want[sizeof(in)] = { 0 };

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MODIFY_SQ);
	ZN_MLX5_SET(in, MODIFY_SQ_IN_SQ_STATE, ZN_MLX5_QSTATE_ERR);
	ZN_MLX5_SET(in, MODIFY_SQ_IN_SQN, 0x654321);
	ZN_MLX5_SET(ZN_MLX5_ADDR(in, MODIFY_SQ_IN_SQC), SQC_STATE, ZN_MLX5_QSTATE_RDY);
	want[0x00] = 0x09; want[0x01] = 0x05;
	want[0x08] = 0x30; want[0x09] = 0x65; want[0x0a] = 0x43; want[0x0b] = 0x21;
	want[0x21] = 0x10;
	assert_memory_equal(in, want, sizeof(in));
}

/*
 * CREATE_TIR with Toeplitz RSS over UDP/IPv4 4-tuples: tirc at 0x20;
 * disp_type dword 0x04 [31:28]; indirect_table dword 0x20 [23:0];
 * rx_hash_fn dword 0x24 [31:28]; transport_domain [23:0]; key at 0x28
 * (40 bytes); rx_hash_field_selector_outer at 0x50: l3_prot_type [31],
 * l4_prot_type [30], selected_fields [29:0].
 */
static void test_create_tir_layout(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_CREATE_TIR_IN] = { 0 };
	uint8_t want[sizeof(in)] = { 0 };
	uint8_t *tirc = ZN_MLX5_ADDR(in, CREATE_TIR_IN_TIRC);
	uint8_t key[ZN_MLX5_TOEPLITZ_KEY_SIZE];

	for (unsigned i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x80 + i);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_TIR);
	ZN_MLX5_SET(tirc, TIRC_DISP_TYPE, ZN_MLX5_TIRC_DISP_INDIRECT);
	ZN_MLX5_SET(tirc, TIRC_INDIRECT_TABLE, 0x000777);
	ZN_MLX5_SET(tirc, TIRC_RX_HASH_FN, ZN_MLX5_RX_HASH_FN_TOEPLITZ);
	ZN_MLX5_SET(tirc, TIRC_TRANSPORT_DOMAIN, 0x000042);
	memcpy(ZN_MLX5_ADDR(tirc, TIRC_RX_HASH_TOEPLITZ_KEY), key, sizeof(key));
	uint8_t *sel = ZN_MLX5_ADDR(tirc, TIRC_RX_HASH_FIELD_SELECTOR_OUTER);
	ZN_MLX5_SET(sel, HASH_SEL_L3_PROT_TYPE, ZN_MLX5_L3_PROT_IPV4);
	ZN_MLX5_SET(sel, HASH_SEL_L4_PROT_TYPE, ZN_MLX5_L4_PROT_UDP);
	ZN_MLX5_SET(sel, HASH_SEL_SELECTED_FIELDS, ZN_MLX5_HASH_SEL_SRC_IP | ZN_MLX5_HASH_SEL_DST_IP |
			ZN_MLX5_HASH_SEL_L4_SPORT | ZN_MLX5_HASH_SEL_L4_DPORT);

	want[0x00] = 0x09; want[0x01] = 0x00;
	want[0x24] = 0x10;				/* disp_type 1 */
	want[0x42] = 0x07; want[0x43] = 0x77;		/* indirect_table */
	want[0x44] = 0x20;				/* Toeplitz */
	want[0x47] = 0x42;				/* transport domain */
	memcpy(&want[0x48], key, sizeof(key));
	want[0x70] = 0x40;				/* UDP */
	want[0x73] = 0x0f;
	assert_memory_equal(in, want, sizeof(in));
}

/*
 * SET_FLOW_TABLE_ENTRY steering UDP to 10.0.0.2:4791 into TIR 0x99:
 * table_type 0x10 [31:24], table_id 0x14 [23:0], flow_index 0x20; flow
 * context at 0x40: group_id +0x04, flow_tag +0x08 [23:0], action +0x0c
 * [15:0], destination_list_size +0x10 [23:0], match_value +0x40 (outer
 * headers: ethertype +0x06, ip_protocol +0x10, udp_dport +0x1e, dst IPv4
 * +0x3c); destinations +0x300: type [31:24], id [23:0].
 */
static void test_set_fte_layout(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_SET_FTE_IN + ZN_MLX5_FLOW_DEST_SIZE] = { 0 };
	uint8_t want[sizeof(in)] = { 0 };
	uint8_t *fc = ZN_MLX5_ADDR(in, SET_FTE_IN_FLOW_CONTEXT);
	uint8_t *outer = ZN_MLX5_ADDR(ZN_MLX5_ADDR(fc, FLOW_CTX_MATCH_VALUE), MATCH_OUTER_HEADERS);
	uint8_t *dest = ZN_MLX5_ADDR(fc, FLOW_CTX_DESTINATION);
	static const uint8_t ip[4] = { 10, 0, 0, 2 };

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	ZN_MLX5_SET(in, SET_FTE_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
	ZN_MLX5_SET(in, SET_FTE_IN_TABLE_ID, 0x000301);
	ZN_MLX5_SET(in, SET_FTE_IN_FLOW_INDEX, 5);
	ZN_MLX5_SET(fc, FLOW_CTX_GROUP_ID, 0x17);
	ZN_MLX5_SET(fc, FLOW_CTX_FLOW_TAG, 0xabcdef);
	ZN_MLX5_SET(fc, FLOW_CTX_ACTION, ZN_MLX5_FLOW_ACTION_FWD_DEST);
	ZN_MLX5_SET(fc, FLOW_CTX_DESTINATION_LIST_SIZE, 1);
	ZN_MLX5_SET(outer, L24_ETHERTYPE, 0x0800);
	ZN_MLX5_SET(outer, L24_IP_PROTOCOL, 17);
	ZN_MLX5_SET(outer, L24_UDP_DPORT, 4791);
	memcpy((uint8_t *)ZN_MLX5_ADDR(outer, L24_DST_IP) + ZN_MLX5_MATCH_IPV4_IN_IP_OFF, ip, 4);
	ZN_MLX5_SET(dest, DEST_TYPE, ZN_MLX5_FLOW_DEST_TIR);
	ZN_MLX5_SET(dest, DEST_ID, 0x000099);

	want[0x00] = 0x09; want[0x01] = 0x36;
	want[0x16] = 0x03; want[0x17] = 0x01;
	want[0x23] = 0x05;
	want[0x47] = 0x17;
	want[0x49] = 0xab; want[0x4a] = 0xcd; want[0x4b] = 0xef;
	want[0x4f] = 0x04;
	want[0x53] = 0x01;
	want[0x86] = 0x08; want[0x87] = 0x00;		/* ethertype */
	want[0x90] = 0x11;				/* UDP */
	want[0x9e] = 0x12; want[0x9f] = 0xb7;		/* 4791 */
	memcpy(&want[0xbc], ip, 4);
	want[0x340] = 0x02; want[0x343] = 0x99;
	assert_memory_equal(in, want, sizeof(in));
}

/* MANAGE_PAGES and QUERY_PAGES: function_id dword 0x08 [15:0],
 * num_pages / input_num_entries dword 0x0c (signed in QUERY_PAGES out),
 * pas[] from 0x10; output_num_entries dword 0x08 of the output. */
static void test_pages_layouts(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_MANAGE_PAGES_IN + 16] = { 0 };
	uint8_t want[sizeof(in)] = { 0 };
	uint8_t qout[ZN_MLX5_SZ_QUERY_PAGES_OUT] = { 0 };

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_GIVE);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 2);
	zn_mlx5_st_be64((uint8_t *)ZN_MLX5_ADDR(in, MANAGE_PAGES_IN_PAS) + 0, 0x0000000100002000ULL);
	zn_mlx5_st_be64((uint8_t *)ZN_MLX5_ADDR(in, MANAGE_PAGES_IN_PAS) + 8, 0x0000000100003000ULL);
	want[0x00] = 0x01; want[0x01] = 0x08; want[0x07] = 0x01; want[0x0f] = 0x02;
	want[0x13] = 0x01; want[0x16] = 0x20;
	want[0x1b] = 0x01; want[0x1e] = 0x30;
	assert_memory_equal(in, want, sizeof(in));

	/* a negative count asks the driver to take pages back */
	qout[0x0c] = 0xff; qout[0x0d] = 0xff; qout[0x0e] = 0xff; qout[0x0f] = 0xfc;
	assert_int_equal((int32_t)ZN_MLX5_GET(qout, QUERY_PAGES_OUT_NUM_PAGES), -4);
}

/* Initialization segment registers as the device presents them. */
static void test_init_segment(void **state)
{
	(void)state;
	uint8_t iseg[ZN_MLX5_ISEG_SIZE] = { 0 };

	/* fw 22.31.1014, cmdif rev 5 */
	zn_mlx5_st_be32(iseg + ZN_MLX5_ISEG_FW_REV, 31u << 16 | 22);
	zn_mlx5_st_be32(iseg + ZN_MLX5_ISEG_CMDIF_REV_FW_SUB, 5u << 16 | 1014);
	/* command queue at 0x1_2345_6000, 32 entries of 64 bytes */
	zn_mlx5_st_be32(iseg + ZN_MLX5_ISEG_CMDQ_ADDR_H, 0x1);
	zn_mlx5_st_be32(iseg + ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, 0x23456000u | 5u << 4 | 6);
	zn_mlx5_st_be32(iseg + ZN_MLX5_ISEG_INITIALIZING, ZN_MLX5_ISEG_INITIALIZING_BIT);
	iseg[ZN_MLX5_ISEG_HEALTH_SYND] = ZN_MLX5_HEALTH_SYND_HW_FATAL_ERR;
	zn_mlx5_st_be16(iseg + ZN_MLX5_ISEG_HEALTH_EXT_SYND, 0xbeef);
	zn_mlx5_st_be32(iseg + ZN_MLX5_ISEG_HEALTH_COUNTER, 0x00abcdef);

	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_FW_REV_MAJOR), 22);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_FW_REV_MINOR), 31);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_FW_REV_SUBMINOR), 1014);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_CMD_INTERFACE_REV), ZN_MLX5_CMD_IF_REV);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_CMDQ_PHY_ADDR_HI), 1);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_CMDQ_PHY_ADDR_LO), 0x23456);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_LOG_CMDQ_SIZE), 5);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_LOG_CMDQ_STRIDE), 6);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_NIC_INTERFACE), ZN_MLX5_NIC_IFC_FULL);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_INITIALIZING), 1);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_HEALTH_SYND), ZN_MLX5_HEALTH_SYND_HW_FATAL_ERR);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_HEALTH_EXT_SYND), 0xbeef);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_HEALTH_COUNTER), 0xabcdef);
	assert_int_equal(ZN_MLX5_GET(iseg, INIT_SEG_HEALTH_SYNDROME), 0);
}

/* Command entry and mailbox structs against the bit constants, chaining,
 * signatures. */
static void test_cmd_entry_and_mailbox(void **state)
{
	(void)state;
	struct zn_mlx5_cmd_entry e;
	struct zn_mlx5_cmd_mbox m;
	const uint8_t *b = (const uint8_t *)&e;

	memset(&e, 0, sizeof(e));
	e.type = ZN_MLX5_CMD_TYPE_PCIE;
	e.inlen_be = zn_mlx5_bswap32(ZN_MLX5_SZ_CREATE_CQ_IN + 8);
	e.in_ptr_be = zn_mlx5_bswap64(0x0000000200000400ULL);
	e.outlen_be = zn_mlx5_bswap32(16);
	e.token = 0x5a;
	e.status_own = ZN_MLX5_CMD_OWNER_HW;
	assert_int_equal(b[0], 0x07);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_INPUT_LENGTH), 280);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_IN_PTR_HI), 2);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_IN_PTR_LO), 0x400 >> 9);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_TOKEN), 0x5a);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_OWNERSHIP), 1);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_STATUS), 0);
	e.status_own = (uint8_t)(ZN_MLX5_DSTAT_TOK_ERR << ZN_MLX5_CMD_STATUS_SHIFT);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_STATUS), ZN_MLX5_DSTAT_TOK_ERR);
	assert_int_equal(ZN_MLX5_GET(&e, CMD_ENTRY_OWNERSHIP), 0);
	/* the signature makes the XOR of the whole entry 0xff */
	e.sig = zn_mlx5_cmd_entry_sig(&e);
	assert_int_equal(zn_mlx5_xor8(&e, sizeof(e)), 0xff);

	memset(&m, 0, sizeof(m));
	m.next_be = zn_mlx5_bswap64(0x0000000300000c00ULL);
	m.block_num_be = zn_mlx5_bswap32(3);
	m.token = 0x5a;
	assert_int_equal(ZN_MLX5_GET(&m, MBOX_NEXT_HI), 3);
	assert_int_equal(ZN_MLX5_GET(&m, MBOX_NEXT_LO) << 10, 0xc00);
	assert_int_equal(ZN_MLX5_GET(&m, MBOX_BLOCK_NUMBER), 3);
	assert_int_equal(ZN_MLX5_GET(&m, MBOX_TOKEN), 0x5a);
	m.ctrl_sig = zn_mlx5_mbox_ctrl_sig(&m);
	m.sig = zn_mlx5_mbox_sig(&m);
	assert_int_equal(zn_mlx5_xor8((uint8_t *)&m + 0x200, 0x3f), 0xff);
	assert_int_equal(zn_mlx5_xor8(&m, sizeof(m)), 0xff);

	/* 16 bytes inline, the rest in 512-byte blocks */
	assert_int_equal(zn_mlx5_cmd_blocks(16), 0);
	assert_int_equal(zn_mlx5_cmd_blocks(17), 1);
	assert_int_equal(zn_mlx5_cmd_blocks(16 + 512), 1);
	assert_int_equal(zn_mlx5_cmd_blocks(16 + 513), 2);
	assert_int_equal(zn_mlx5_cmd_blocks(ZN_MLX5_SZ_SET_HCA_CAP_IN), 8);
}

/* A SHAMPO receive CQE written by hand and read through the struct. */
static void test_cqe_shampo_fields(void **state)
{
	(void)state;
	uint8_t raw[64] = { 0 };
	struct zn_mlx5_cqe64 c;

	raw[0x02] = 0x00; raw[0x03] = 0x21;		/* wqe_id 33 */
	raw[0x04] = 0x06;				/* match + flush */
	raw[0x05] = 54;					/* header bytes */
	raw[0x06] = 0x01; raw[0x07] = 0x02;		/* header entry 0x102 */
	raw[0x08] = 0x00; raw[0x09] = 0x00; raw[0x0a] = 0x10; raw[0x0b] = 0x00;
	raw[0x0c] = 0xde; raw[0x0d] = 0xad; raw[0x0e] = 0xbe; raw[0x0f] = 0xef;
	raw[0x10] = (uint8_t)(ZN_MLX5_CQE_RSS_IPV4 << 2 | ZN_MLX5_CQE_RSS_L4_TCP << 6);
	raw[0x1c] = ZN_MLX5_CQE_L3_OK | ZN_MLX5_CQE_L4_OK;
	raw[0x1d] = (uint8_t)(ZN_MLX5_CQE_L4_TCP_ACK_AND_DATA << 4 | ZN_MLX5_CQE_L3_IPV4 << 2);
	raw[0x2c] = 0x00; raw[0x2d] = 0x02; raw[0x2e] = 0x05; raw[0x2f] = 0xdc;	/* 2 strides, 1500 */
	raw[0x39] = 0x00; raw[0x3a] = 0x00; raw[0x3b] = 0x07;	/* flow tag 7 */
	raw[0x3c] = 0x00; raw[0x3d] = 0x40;		/* first stride 64 */
	raw[0x3f] = (uint8_t)(ZN_MLX5_CQE_RESP_SEND << 4 | 1);
	memcpy(&c, raw, sizeof(c));

	assert_int_equal(zn_mlx5_bswap16(c.wqe_id_be), 33);
	assert_true(c.shampo.flags & ZN_MLX5_CQE_SHAMPO_MATCH);
	assert_true(c.shampo.flags & ZN_MLX5_CQE_SHAMPO_FLUSH);
	assert_int_equal(c.shampo.header_size, 54);
	assert_int_equal(zn_mlx5_bswap16(c.shampo.header_entry_index_be), 0x102);
	assert_int_equal(zn_mlx5_bswap32(c.shampo.data_offset_be), 0x1000);
	assert_true(zn_mlx5_bswap32(c.rss_hash_result_be) == 0xdeadbeef);
	assert_int_equal((c.rss_hash_type >> ZN_MLX5_CQE_RSS_IP_SHIFT) & 3, ZN_MLX5_CQE_RSS_IPV4);
	assert_int_equal((c.rss_hash_type >> ZN_MLX5_CQE_RSS_L4_SHIFT) & 3, ZN_MLX5_CQE_RSS_L4_TCP);
	assert_int_equal((c.l4_l3_hdr_type >> ZN_MLX5_CQE_L4_HDR_SHIFT) & ZN_MLX5_CQE_L4_HDR_MASK,
			 ZN_MLX5_CQE_L4_TCP_ACK_AND_DATA);
	assert_int_equal((c.l4_l3_hdr_type >> ZN_MLX5_CQE_L3_HDR_SHIFT) & ZN_MLX5_CQE_L3_HDR_MASK,
			 ZN_MLX5_CQE_L3_IPV4);
	uint32_t bc = zn_mlx5_bswap32(c.byte_cnt_be);
	assert_false(bc & ZN_MLX5_MPWRQ_FILLER_CQE);
	assert_int_equal((bc >> ZN_MLX5_MPWRQ_STRIDES_SHIFT) & ZN_MLX5_MPWRQ_STRIDES_MASK, 2);
	assert_int_equal(bc & ZN_MLX5_MPWRQ_LEN_MASK, 1500);
	assert_int_equal(zn_mlx5_bswap32(c.sop_drop_qpn_be) & ZN_MLX5_CQE_FLOW_TAG_MASK, 7);
	assert_int_equal(zn_mlx5_bswap16(c.wqe_counter_be), 64);
	assert_int_equal(zn_mlx5_cqe_opcode(&c), ZN_MLX5_CQE_RESP_SEND);
}

/* Ownership: first pass software looks for owner 0, second pass owner 1;
 * INVALID entries (software's initial fill) are never software's. */
static void test_cqe_eqe_ownership(void **state)
{
	(void)state;
	struct zn_mlx5_cqe64 c;
	struct zn_mlx5_eqe e;

	memset(&c, 0, sizeof(c));
	c.op_own = ZN_MLX5_CQE_OP_OWN_INIT;
	assert_false(zn_mlx5_cqe_sw_owned(&c, 0, 4));
	assert_false(zn_mlx5_cqe_sw_owned(&c, 16, 4));
	c.op_own = (uint8_t)(ZN_MLX5_CQE_REQ << 4 | zn_mlx5_cqe_hw_owner(3, 4));
	assert_true(zn_mlx5_cqe_sw_owned(&c, 3, 4));
	assert_false(zn_mlx5_cqe_sw_owned(&c, 19, 4));
	c.op_own = (uint8_t)(ZN_MLX5_CQE_REQ << 4 | zn_mlx5_cqe_hw_owner(19, 4));
	assert_true(zn_mlx5_cqe_sw_owned(&c, 19, 4));

	memset(&e, 0, sizeof(e));
	e.owner = ZN_MLX5_EQE_OWNER_INIT;
	assert_false(zn_mlx5_eqe_sw_owned(&e, 0, 5));
	assert_true(zn_mlx5_eqe_sw_owned(&e, 32, 5));
}

/* Doorbell words, WQE control words, mkeys. */
static void test_doorbells_and_wqe_words(void **state)
{
	(void)state;
	/* EQ 3 consumer 0x1234567 -> ci cut to 24 bits, eqn in the top byte */
	assert_true(zn_mlx5_eq_doorbell(0x1234567, 3) == 0x03234567u);
	/* CQ arm: sn 1, next completion, ci 0x10; UAR word carries cqn 0x55 */
	uint32_t arm = zn_mlx5_cq_arm_word(1, ZN_MLX5_CQ_DB_REQ_NOT, 0x10);
	assert_true(arm == 0x10000010u);
	assert_true(zn_mlx5_cq_uar_doorbell(arm, 0x55) == 0x1000001000000055ULL);
	assert_true(zn_mlx5_cq_arm_word(3, ZN_MLX5_CQ_DB_REQ_NOT_SOL, 0x1ffffff) == 0x31ffffffu);

	/* SEND at WQE index 0x1234 on SQ 0x56, 4 DS */
	struct zn_mlx5_wqe_ctrl ctrl = { 0 };
	ctrl.opmod_idx_opcode_be = zn_mlx5_bswap32(zn_mlx5_ctrl_opmod_idx_opcode(0, 0x1234, ZN_MLX5_OPCODE_SEND));
	ctrl.qpn_ds_be = zn_mlx5_bswap32(zn_mlx5_ctrl_qpn_ds(0x56, 4));
	ctrl.fm_ce_se = ZN_MLX5_WQE_CTRL_CQ_UPDATE;
	static const uint8_t want[16] = { 0x00, 0x12, 0x34, 0x0a, 0x00, 0x00, 0x56, 0x04,
					  0x00, 0x00, 0x00, 0x08, 0, 0, 0, 0 };
	assert_memory_equal(&ctrl, want, sizeof(want));

	/* the 8-byte doorbell is the first 8 bytes of the control segment */
	uint64_t db;
	memcpy(&db, &ctrl, 8);
	assert_true(zn_mlx5_bswap64(db) == 0x0012340a00005604ULL);

	assert_true(zn_mlx5_mkey(0x123456, 0x78) == 0x12345678u);
	assert_int_equal(ZN_MLX5_UAR_BF_ALT_OFFSET, 0x900);
	assert_int_equal(ZN_MLX5_UAR_EQ_DOORBELL_ARM, 0x40);
	assert_int_equal(ZN_MLX5_UAR_EQ_DOORBELL, 0x48);
	assert_int_equal(ZN_MLX5_UAR_CQ_DOORBELL, 0x20);
}

/* CREATE_EQ event mask words, striding-RQ stride count encoding. */
static void test_eq_mask_and_stride_encoding(void **state)
{
	(void)state;
	uint8_t in[ZN_MLX5_SZ_CREATE_EQ_IN] = { 0 };
	static const uint8_t w0[8] = { 0, 0, 0, 0, 0, 0, 0x0e, 0x01 };	/* bits 11, 10, 9, 0 */
	static const uint8_t w1[8] = { 0, 0, 0, 0, 0, 0, 0, 0x02 };

	zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_CMD);
	zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_PAGE_REQUEST);
	zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_PORT_CHANGE);
	zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_COMP);
	zn_mlx5_eq_mask_event(in, 65);
	assert_memory_equal(in + 0x58, w0, 8);
	assert_memory_equal(in + 0x60, w1, 8);

	assert_int_equal(zn_mlx5_mpwqe_log_num_strides(0), 9);
	assert_int_equal(zn_mlx5_mpwqe_log_num_strides(7), 16);
	assert_int_equal(zn_mlx5_mpwqe_log_num_strides(0xa), 3);
	assert_int_equal(zn_mlx5_mpwqe_log_num_strides(0xf), 8);
	assert_int_equal(zn_mlx5_mpwqe_num_strides_field(3), 0xa);
	assert_int_equal(zn_mlx5_mpwqe_num_strides_field(16), 7);
	for (int n = 3; n <= 16; n++)
		assert_int_equal(zn_mlx5_mpwqe_log_num_strides(zn_mlx5_mpwqe_num_strides_field(n)), n);
}

/* A capability block read from the device: selected general caps. */
static void test_hca_cap_fields(void **state)
{
	(void)state;
	uint8_t cap[ZN_MLX5_SZ_CMD_HCA_CAP] = { 0 };

	cap[0x17] = 0x20;			/* shampo: bit 0xba = dword 0x14 [5] */
	cap[0x19] = 22;				/* log_max_cq_sz */
	cap[0x36] = 0x01;			/* port_type ETH [9:8] */
	cap[0x37] = 1;				/* num_ports */
	cap[0x40] = 0x40;			/* striding_rq [30] */
	cap[0x42] = 0xc0;			/* cmdif_checksum 3 [15:14] */
	cap[0x74] = 0x80;			/* ext_stride_num_range */
	assert_int_equal(ZN_MLX5_GET(cap, CAP_SHAMPO), 1);
	assert_int_equal(ZN_MLX5_GET(cap, CAP_LOG_MAX_CQ_SZ), 22);
	assert_int_equal(ZN_MLX5_GET(cap, CAP_PORT_TYPE), ZN_MLX5_CAP_PORT_TYPE_ETH);
	assert_int_equal(ZN_MLX5_GET(cap, CAP_NUM_PORTS), 1);
	assert_int_equal(ZN_MLX5_GET(cap, CAP_STRIDING_RQ), 1);
	assert_int_equal(ZN_MLX5_GET(cap, CAP_CMDIF_CHECKSUM), 3);
	assert_int_equal(ZN_MLX5_GET(cap, CAP_EXT_STRIDE_NUM_RANGE), 1);
	ZN_MLX5_SET(cap, CAP_CMDIF_CHECKSUM, 0);
	assert_int_equal(cap[0x42], 0x00);
	assert_int_equal(cap[0x40], 0x40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accessor_round_trips),
		cmocka_unit_test(test_accessor_truncates),
		cmocka_unit_test(test_accessor_cross_dword),
		cmocka_unit_test(test_command_header_bytes),
		cmocka_unit_test(test_create_cq_layout),
		cmocka_unit_test(test_create_rq_shampo_layout),
		cmocka_unit_test(test_modify_sq_layout),
		cmocka_unit_test(test_create_tir_layout),
		cmocka_unit_test(test_set_fte_layout),
		cmocka_unit_test(test_pages_layouts),
		cmocka_unit_test(test_init_segment),
		cmocka_unit_test(test_cmd_entry_and_mailbox),
		cmocka_unit_test(test_cqe_shampo_fields),
		cmocka_unit_test(test_cqe_eqe_ownership),
		cmocka_unit_test(test_doorbells_and_wqe_words),
		cmocka_unit_test(test_eq_mask_and_stride_encoding),
		cmocka_unit_test(test_hca_cap_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
