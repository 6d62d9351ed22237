/*
 * sim/mlx5: the data path of the mlx5 model between two devices on a pair
 * wire, each driven by a hand-built client: send WQEs with inline headers
 * and gather lists, TX CQEs on CQ_UPDATE, SHAMPO header-data split into a
 * striding RQ at 60-9000 byte frames (byte-exact), RSS on Microsoft's
 * Toeplitz vectors through an RQT, n-tuple steering by flow entries, RX
 * drops without WQEs, a fatal syndrome mid-traffic, and a mlx5 <-> bnxt
 * wire (hw-docs/mlx5.md 9, 11, 12, 14).
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

#include "sim/mlx5/mlx5_sim.h"
#include "tests/unit/support/mlx5_test_client.h"
#include "tests/unit/support/toeplitz.h"

#define MAXQ MTC_MAX_Q

static struct mtc_sim S;
static struct mtc_port A, B;	/* A sends (dev0), B receives (dev1) */
static uint8_t mac_b[6];

#define CNT(i, key) mtc_counter(&S, i, key)

/* SHAMPO geometry: 64 strides of 2 KiB per WQE, 64 KiB reservations of up
 * to 16 packets, 256-byte header entries, 8 WQEs. */
static const struct mtc_rq_cfg shampo_cfg = {
	.log_sz = 3, .log_nstrides = 6, .log_stride_sz = 11, .shampo = true,
	.log_hdr_entry = 8, .log_res = 16, .log_pkts_per_res = 4,
};

static void port_up(struct mtc_port *p, const char *path, unsigned nq,
		    const struct mtc_rq_cfg *cfg)
{
	int rc = mtc_port_open(p, path, nq, cfg);

	if (rc)
		fail_msg("port set-up: %s failed (%#x)", p->failed, rc);
}

static int setup_pair(unsigned nq, const struct mtc_rq_cfg *cfg)
{
	if (mtc_sim_start(&S, "mlx5", "mlx5,device=cx7", true))
		return -1;
	port_up(&A, S.path[0], 1, &shampo_cfg);
	port_up(&B, S.path[1], nq, cfg);
	if (mtc_port_wait_link(&A) || mtc_port_wait_link(&B))
		return -1;
	memcpy(mac_b, B.mac, 6);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_pair(1, &shampo_cfg);
}

static int setup_rss(void **state)
{
	(void)state;
	return setup_pair(4, &shampo_cfg);
}

static int setup_cyclic(void **state)
{
	static const struct mtc_rq_cfg cyc = { .cyclic = true, .log_sz = 6, .cyclic_buf = 9216 };

	(void)state;
	return setup_pair(1, &cyc);
}

static int setup_cyclic_2seg(void **state)
{
	/* A 256-byte header slot, then a 2048-byte buffer (32-byte WQEs). */
	static const struct mtc_rq_cfg cyc = { .cyclic = true, .log_sz = 6,
					       .cyclic_buf = 256 + 2048, .cyclic_hdr = 256 };

	(void)state;
	return setup_pair(1, &cyc);
}

static int setup_striding(void **state)
{
	/* Striding without SHAMPO: 64 strides of 256 bytes. */
	static const struct mtc_rq_cfg str = { .log_sz = 3, .log_nstrides = 6,
					       .log_stride_sz = 8 };

	(void)state;
	return setup_pair(1, &str);
}

static int teardown(void **state)
{
	(void)state;
	mtc_close(&A.c);
	mtc_close(&B.c);
	mtc_sim_stop(&S);
	return 0;
}

/* The next packet of queue qi; for striding RQs its stride index and
 * data offset agree. */
static bool rx_next(struct mtc_port *p, unsigned qi, struct mtc_pkt *pkt, int timeout_ms)
{
	if (!mtc_port_rx(p, qi, pkt, timeout_ms))
		return false;
	if (!p->rq[qi].cfg.cyclic)
		assert_int_equal(zn_mlx5_bswap16(pkt->cqe.wqe_counter_be)
					 << p->rq[qi].cfg.log_stride_sz,
				 zn_mlx5_bswap32(pkt->cqe.shampo.data_offset_be));
	return true;
}

static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };

static void test_shampo_split_sizes(void **state)
{
	static const size_t sizes[] = { 60, 61, 64, 100, 128, 255, 256, 1000, 1514, 2048, 2090,
					4000, 6000, 8000, 8999, 9000, 60, 9000, 4097, 1515 };
	static uint8_t f[ZN_SIM_FRAME_MAX];
	struct mtc_pkt *p = malloc(sizeof(*p));
	struct zn_mlx5_cqe64 tc;
	unsigned n = sizeof(sizes) / sizeof(sizes[0]);

	(void)state;
	for (unsigned round = 0; round < 3; round++) {
		for (unsigned i = 0; i < n; i++) {
			uint16_t idx;

			mtc_frame(f, sizes[i], mac_b, ip_a, ip_b, 4000, 5000 + (uint16_t)i, false,
				  (uint8_t)(i + round));
			/* Inline: the Ethernet header; three gather pieces. */
			idx = mtc_send(&A.c, &A.sq, A.key, f, sizes[i], 14, 3, 0, true);
			assert_true(mtc_cq_wait(&A.txcq, &tc, 2000));
			assert_int_equal(zn_mlx5_cqe_opcode(&tc), ZN_MLX5_CQE_REQ);
			assert_int_equal(zn_mlx5_bswap16(tc.wqe_counter_be), idx);
			assert_true(rx_next(&B, 0, p, 2000));
			assert_int_equal(p->len, sizes[i]);
			assert_int_equal(p->hsz, 42);
			assert_int_equal(p->strides, (sizes[i] - 42 + 2047) / 2048 ? : 1);
			assert_memory_equal(p->data, f, sizes[i]);
			assert_int_equal(p->cqe.shampo.flags, ZN_MLX5_CQE_SHAMPO_FLUSH);
			assert_int_equal(p->cqe.hds_ip_ext,
					 ZN_MLX5_CQE_L2_OK | ZN_MLX5_CQE_L3_OK | ZN_MLX5_CQE_L4_OK);
			assert_int_equal(p->cqe.l4_l3_hdr_type,
					 ZN_MLX5_CQE_L4_UDP << ZN_MLX5_CQE_L4_HDR_SHIFT |
						 ZN_MLX5_CQE_L3_IPV4 << ZN_MLX5_CQE_L3_HDR_SHIFT);
			assert_int_equal(zn_mlx5_bswap32(p->cqe.sop_drop_qpn_be), MTC_CATCHALL_TAG);
		}
	}
	/* 3 x 20 frames filled more than one 64-stride WQE: fillers closed
	 * the partly used ones. */
	assert_true(B.fillers >= 1);
	assert_int_equal(CNT(1, "rx_frames"), 3 * n);
	assert_int_equal(CNT(1, "rx_hds"), 3 * n);
	assert_int_equal(CNT(0, "tx_frames"), 3 * n);
	assert_int_equal(CNT(1, "rx_dropped"), 0);
	free(p);
}

static void test_unsplit_and_inline_variants(void **state)
{
	static uint8_t f[ZN_SIM_FRAME_MAX];
	struct mtc_pkt *p = malloc(sizeof(*p));
	struct zn_mlx5_cqe64 tc;

	(void)state;
	/* A non-IP broadcast frame: not split, all in strides. */
	memset(f, 0xff, 6);
	memcpy(f + 6, mac_b, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	for (int i = 14; i < 60; i++)
		f[i] = (uint8_t)i;
	mtc_send(&A.c, &A.sq, A.key, f, 60, 0, 1, 0, true);
	assert_true(rx_next(&B, 0, p, 2000));
	assert_int_equal(p->hsz, 0);
	assert_int_equal(p->len, 60);
	assert_memory_equal(p->data, f, 60);
	assert_int_equal(p->cqe.l4_l3_hdr_type, 0);
	/* All headers inline (42 bytes), one data segment; and a TCP frame
	 * whose checksums the device fills (cs_flags). */
	mtc_frame(f, 300, mac_b, ip_a, ip_b, 1, 2, true, 9);
	mtc_send(&A.c, &A.sq, A.key, f, 300, 54, 1, 0, true);
	assert_true(rx_next(&B, 0, p, 2000));
	assert_int_equal(p->hsz, 54);
	assert_memory_equal(p->data, f, 300);
	f[24] = f[25] = 0;	/* IP checksum */
	f[50] = f[51] = 0;	/* TCP checksum */
	mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 2,
		 ZN_MLX5_ETH_WQE_L3_CSUM | ZN_MLX5_ETH_WQE_L4_CSUM, true);
	assert_true(rx_next(&B, 0, p, 2000));
	assert_int_equal(p->cqe.hds_ip_ext,
			 ZN_MLX5_CQE_L2_OK | ZN_MLX5_CQE_L3_OK | ZN_MLX5_CQE_L4_OK);
	assert_int_equal(CNT(0, "tx_csum_offloads"), 1);
	/* Without CQ_UPDATE no CQE; the next one reports its own index. */
	mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 1, 0, false);
	{
		uint16_t idx = mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 1, 0, true);

		assert_true(rx_next(&B, 0, p, 2000));
		assert_true(rx_next(&B, 0, p, 2000));
		for (int i = 0; i < 3; i++)
			assert_true(mtc_cq_wait(&A.txcq, &tc, 2000));
		assert_true(mtc_cq_wait(&A.txcq, &tc, 2000));
		assert_int_equal(zn_mlx5_bswap16(tc.wqe_counter_be), idx);
		assert_false(mtc_cq_wait(&A.txcq, &tc, 50));
	}
	free(p);
}

static void test_tx_errors(void **state)
{
	static uint8_t f[128];
	struct zn_mlx5_cqe64 tc;
	struct zn_mlx5_err_cqe *e = (void *)&tc;
	uint16_t idx;

	(void)state;
	mtc_frame(f, 128, mac_b, ip_a, ip_b, 1, 2, false, 1);
	/* A bad lkey: local protection error, SQ in ERR. */
	idx = mtc_send(&A.c, &A.sq, A.key + 0x100, f, 128, 14, 1, 0, true);
	assert_true(mtc_cq_wait(&A.txcq, &tc, 2000));
	assert_int_equal(zn_mlx5_cqe_opcode(&tc), ZN_MLX5_CQE_REQ_ERR);
	assert_int_equal(e->syndrome, ZN_MLX5_CQE_SYND_LOCAL_PROT_ERR);
	assert_int_equal(zn_mlx5_bswap16(e->wqe_counter_be), idx);
	assert_int_equal(zn_mlx5_bswap32(e->s_wqe_opcode_qpn_be) & 0xffffff, A.sq.sqn);
	assert_int_equal(CNT(0, "tx_errors"), 1);
	/* In ERR nothing is sent; RDY->RST needs the right current state. */
	mtc_send(&A.c, &A.sq, A.key, f, 128, 14, 1, 0, true);
	assert_false(mtc_cq_wait(&A.txcq, &tc, 50));
	assert_int_equal(mtc_modify(&A.c, true, A.sq.sqn, ZN_MLX5_QSTATE_RDY, ZN_MLX5_QSTATE_RST),
			 ZN_MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	assert_int_equal(mtc_modify(&A.c, true, A.sq.sqn, ZN_MLX5_QSTATE_ERR, ZN_MLX5_QSTATE_RDY),
			 ZN_MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	assert_int_equal(mtc_modify(&A.c, true, A.sq.sqn, ZN_MLX5_QSTATE_ERR, ZN_MLX5_QSTATE_RST),
			 0);
	/* The device restarts at WQE 0: so does the driver, dbrec included,
	 * before the queue is ready again. */
	A.sq.pc = 0;
	__atomic_store_n(&A.sq.dbr[ZN_MLX5_SND_DBR], 0, __ATOMIC_RELEASE);
	assert_int_equal(mtc_modify(&A.c, true, A.sq.sqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY),
			 0);
	idx = mtc_send(&A.c, &A.sq, A.key, f, 128, 14, 1, 0, true);
	assert_int_equal(idx, 0);
	assert_true(mtc_cq_wait(&A.txcq, &tc, 2000));
	assert_int_equal(zn_mlx5_cqe_opcode(&tc), ZN_MLX5_CQE_REQ);
	assert_int_equal(CNT(0, "tx_frames"), 1);
}

static void test_rx_no_wqe_drops(void **state)
{
	static uint8_t f[9000];
	struct mtc_pkt *p = malloc(sizeof(*p));
	unsigned got = 0;

	(void)state;
	/* 8 WQEs of 128 KiB hold 14 frames of 9000 B each (4 strides ... 5):
	 * without reposting, the rest is dropped and counted. */
	for (int i = 0; i < 200; i++) {
		mtc_frame(f, 9000, mac_b, ip_a, ip_b, 1, 2, false, (uint8_t)i);
		mtc_send(&A.c, &A.sq, A.key, f, 9000, 14, 1, 0, i % 16 == 15);
		if (i % 16 == 15) {
			struct zn_mlx5_cqe64 tc;

			assert_true(mtc_cq_wait(&A.txcq, &tc, 2000));
		}
	}
	mtc_sleep_ms(50);
	while (mtc_cq_poll(&B.rxcq[0], &p->cqe))
		if (!(zn_mlx5_bswap32(p->cqe.byte_cnt_be) & ZN_MLX5_MPWRQ_FILLER_CQE))
			got++;
	/* 64 strides / 5 per frame = 12 per WQE, 8 WQEs */
	assert_int_equal(got, 96);
	assert_int_equal(CNT(1, "rx_frames"), 96);
	assert_int_equal(CNT(1, "rx_no_wqe"), 200 - 96);
	assert_int_equal(CNT(1, "rx_dropped"), 200 - 96);
	free(p);
}

struct vec {
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
	uint32_t with_ports;
};

static const struct vec ms[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303, 0x10e828a2 },
};

static void test_rss_ms_vectors(void **state)
{
	uint32_t rqn[MAXQ], rqtn, tirn, sel = 0;
	static uint8_t f[256];
	struct mtc_pkt *p = malloc(sizeof(*p));
	unsigned per_q[MAXQ] = { 0 };

	(void)state;
	for (unsigned i = 0; i < MAXQ; i++)
		rqn[i] = B.rq[i].rqn;
	assert_int_equal(mtc_create_rqt(&B.c, rqn, MAXQ, &rqtn), 0);
	{
		uint8_t s[4] = { 0 };

		ZN_MLX5_SET(s, HASH_SEL_L3_PROT_TYPE, ZN_MLX5_L3_PROT_IPV4);
		ZN_MLX5_SET(s, HASH_SEL_L4_PROT_TYPE, ZN_MLX5_L4_PROT_TCP);
		ZN_MLX5_SET(s, HASH_SEL_SELECTED_FIELDS,
			    ZN_MLX5_HASH_SEL_SRC_IP | ZN_MLX5_HASH_SEL_DST_IP |
				    ZN_MLX5_HASH_SEL_L4_SPORT | ZN_MLX5_HASH_SEL_L4_DPORT);
		sel = zn_mlx5_ld_be32(s);
	}
	assert_int_equal(mtc_create_tir(&B.c, B.td, true, rqtn, toeplitz_ms_key, sel, &tirn), 0);
	/* The RSS TIR takes over the catch-all: a new entry in a new group. */
	{
		uint32_t g;

		assert_int_equal(mtc_create_fg(&B.c, B.ft, 8, 8, NULL, &g), 0);
		assert_int_equal(mtc_set_fte(&B.c, B.ft, g, 8, NULL, tirn, 7), 0);
	}
	for (unsigned r = 0; r < 2; r++) {
		for (unsigned i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
			uint8_t in[12];
			size_t n = toeplitz_input_v4(in, ms[i].src, ms[i].dst, ms[i].sport, ms[i].dport, 1);
			unsigned q = ms[i].with_ports & (MAXQ - 1);

			assert_int_equal(toeplitz_hash(toeplitz_ms_key, 40, in, n), ms[i].with_ports);
			mtc_frame(f, 200, mac_b, ms[i].src, ms[i].dst, ms[i].sport, ms[i].dport, true,
				  (uint8_t)i);
			mtc_send(&A.c, &A.sq, A.key, f, 200, 14, 1, 0, false);
			assert_true(rx_next(&B, q, p, 2000));
			assert_int_equal(zn_mlx5_bswap32(p->cqe.rss_hash_result_be), ms[i].with_ports);
			assert_int_equal(p->cqe.rss_hash_type,
					 ZN_MLX5_CQE_RSS_IPV4 << ZN_MLX5_CQE_RSS_IP_SHIFT |
						 ZN_MLX5_CQE_RSS_L4_TCP << ZN_MLX5_CQE_RSS_L4_SHIFT);
			assert_int_equal(zn_mlx5_bswap32(p->cqe.sop_drop_qpn_be), 7);
			assert_memory_equal(p->data, f, 200);
			per_q[q]++;
		}
	}
	assert_int_equal(CNT(1, "rx_rss"), 10);
	/* 0x...78, ea, 4a, 7f, a2 & 3: queues 0, 2, 2, 3, 2 */
	assert_int_equal(per_q[0], 2);
	assert_int_equal(per_q[2], 6);
	assert_int_equal(per_q[3], 2);
	/* The RQT holds its RQs, the TIR its RQT. */
	assert_int_equal(mtc_simple(&B.c, ZN_MLX5_CMD_OP_DESTROY_RQT, 0, rqtn, 0, NULL),
			 ZN_MLX5_CMD_STAT_RES_BUSY);
	assert_int_equal(mtc_simple(&B.c, ZN_MLX5_CMD_OP_DESTROY_RQ, 0, rqn[1], 0, NULL),
			 ZN_MLX5_CMD_STAT_RES_BUSY);
	free(p);
}

static void test_ntuple_steering(void **state)
{
	uint8_t v[64] = { 0 };
	static uint8_t f[300];
	struct mtc_pkt *p = malloc(sizeof(*p));
	static const uint8_t other[4] = { 10, 0, 0, 9 };

	(void)state;
	/* UDP to 10.0.0.2:7777 -> queue 2 (tag 0x22); 10.0.0.9:7777 dropped. */
	ZN_MLX5_SET(v, L24_IP_PROTOCOL, 17);
	ZN_MLX5_SET(v, L24_UDP_DPORT, 7777);
	memcpy((uint8_t *)ZN_MLX5_ADDR(v, L24_DST_IP) + 12, ip_b, 4);
	assert_int_equal(mtc_set_fte(&B.c, B.ft, B.fg_rules, 3, v, B.tir[2], 0x22), 0);
	memcpy((uint8_t *)ZN_MLX5_ADDR(v, L24_DST_IP) + 12, other, 4);
	assert_int_equal(mtc_set_fte(&B.c, B.ft, B.fg_rules, 4, v, 0, 0), 0);
	/* Entry errors. */
	assert_int_equal(mtc_set_fte(&B.c, B.ft, B.fg_rules, 3, v, B.tir[1], 0),
			 ZN_MLX5_CMD_STAT_BAD_PARAM_ERR);	/* index in use */
	assert_int_equal(mtc_set_fte(&B.c, B.ft, B.fg_rules, 9, v, B.tir[1], 0),
			 ZN_MLX5_CMD_STAT_BAD_PARAM_ERR);	/* outside the group */
	assert_int_equal(mtc_set_fte(&B.c, B.ft, B.fg_rules, 5, v, 200, 0),
			 ZN_MLX5_CMD_STAT_BAD_RES_ERR);	/* no such TIR */
	assert_int_equal(mtc_set_fte(&B.c, B.ft, 60, 5, v, B.tir[1], 0),
			 ZN_MLX5_CMD_STAT_BAD_RES_ERR);	/* no such group */
	for (int i = 0; i < 6; i++) {
		mtc_frame(f, 300, mac_b, ip_a, ip_b, 1000, 7777, false, (uint8_t)i);
		mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 2, 0, false);
		assert_true(rx_next(&B, 2, p, 2000));
		assert_memory_equal(p->data, f, 300);
		assert_int_equal(zn_mlx5_bswap32(p->cqe.sop_drop_qpn_be), 0x22);
		/* Other ports, and TCP to the same port, take the catch-all. */
		mtc_frame(f, 300, mac_b, ip_a, ip_b, 1000, 7778, false, (uint8_t)i);
		mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 2, 0, false);
		assert_true(rx_next(&B, 0, p, 2000));
		mtc_frame(f, 300, mac_b, ip_a, ip_b, 1000, 7777, true, (uint8_t)i);
		mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 2, 0, false);
		assert_true(rx_next(&B, 0, p, 2000));
		assert_int_equal(zn_mlx5_bswap32(p->cqe.sop_drop_qpn_be), MTC_CATCHALL_TAG);
		mtc_frame(f, 300, mac_b, ip_a, other, 1000, 7777, false, (uint8_t)i);
		mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 2, 0, false);
	}
	mtc_sleep_ms(20);
	assert_int_equal(CNT(1, "rx_flow_drops"), 6);
	assert_int_equal(CNT(1, "rx_ntuple_hits"), 18);
	/* Deleting the rule sends that flow to the catch-all. */
	{
		uint8_t in[ZN_MLX5_SZ_DELETE_FTE_IN] = { 0 };

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
		ZN_MLX5_SET(in, DELETE_FTE_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_RX);
		ZN_MLX5_SET(in, DELETE_FTE_IN_TABLE_ID, B.ft);
		ZN_MLX5_SET(in, DELETE_FTE_IN_FLOW_INDEX, 3);
		assert_int_equal(mtc_cmd(&B.c, in, sizeof(in), NULL, 0, NULL), 0);
		assert_int_equal(mtc_cmd(&B.c, in, sizeof(in), NULL, 0, NULL),
				 ZN_MLX5_CMD_STAT_BAD_RES_ERR);
	}
	mtc_frame(f, 300, mac_b, ip_a, ip_b, 1000, 7777, false, 1);
	mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 2, 0, false);
	assert_true(rx_next(&B, 0, p, 2000));
	/* Not our MAC: the vport filter drops it. */
	f[0] = 0x02;
	f[5] = 0x99;
	mtc_send(&A.c, &A.sq, A.key, f, 300, 14, 2, 0, false);
	mtc_sleep_ms(20);
	assert_int_equal(CNT(1, "rx_vport_drops"), 1);
	free(p);
}

static void test_cyclic_rq(void **state)
{
	static uint8_t f[ZN_SIM_FRAME_MAX];
	struct mtc_pkt *p = malloc(sizeof(*p));

	(void)state;
	for (size_t len = 60; len <= 9000; len += 997) {
		mtc_frame(f, len, mac_b, ip_a, ip_b, 3, 4, false, (uint8_t)len);
		mtc_send(&A.c, &A.sq, A.key, f, len, 14, 2, 0, false);
		assert_true(rx_next(&B, 0, p, 2000));
		assert_int_equal(p->len, len);
		assert_memory_equal(p->data, f, len);
	}
	free(p);
}

/* hw-docs/mlx5.md 12.4: a frame fills a cyclic WQE's segments in order;
 * the PA mkey's key (mkey_7_0 0) is never MLX5_INVALID_LKEY. */
static void test_cyclic_rq_two_segments(void **state)
{
	static const size_t sizes[] = { 60, 64, 255, 256, 257, 1000, 1500, 2304, 61, 1499 };
	static uint8_t f[ZN_SIM_FRAME_MAX];
	struct mtc_pkt *p = malloc(sizeof(*p));

	(void)state;
	assert_int_not_equal(B.key, ZN_MLX5_INVALID_LKEY);
	for (unsigned r = 0; r < 20; r++) {
		for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			mtc_frame(f, sizes[i], mac_b, ip_a, ip_b, 7, 8, i & 1, (uint8_t)(i + r));
			mtc_send(&A.c, &A.sq, A.key, f, sizes[i], 14, 2, 0, false);
			assert_true(rx_next(&B, 0, p, 2000));
			assert_int_equal(zn_mlx5_bswap32(p->cqe.byte_cnt_be), sizes[i]);
			assert_int_equal(p->len, sizes[i]);
			assert_memory_equal(p->data, f, sizes[i]);
		}
	}
	assert_int_equal(CNT(1, "rx_too_big"), 0);
	assert_int_equal(CNT(1, "rx_dropped"), 0);
	free(p);
}

static void test_striding_without_split(void **state)
{
	static uint8_t f[ZN_SIM_FRAME_MAX];
	struct mtc_pkt *p = malloc(sizeof(*p));
	static const size_t sizes[] = { 60, 256, 257, 1514, 9000, 8000, 100, 3000 };

	(void)state;
	for (unsigned r = 0; r < 4; r++) {
		for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			mtc_frame(f, sizes[i], mac_b, ip_a, ip_b, 5, 6, i & 1, (uint8_t)(i + r));
			mtc_send(&A.c, &A.sq, A.key, f, sizes[i], 14, 2, 0, false);
			assert_true(rx_next(&B, 0, p, 2000));
			assert_int_equal(p->hsz, 0);
			assert_int_equal(p->len, sizes[i]);
			assert_int_equal(p->strides, (sizes[i] + 255) / 256);
			assert_memory_equal(p->data, f, sizes[i]);
		}
	}
	assert_int_equal(CNT(1, "rx_hds"), 0);
	assert_true(B.fillers >= 1);
	free(p);
}

static void test_fatal_mid_traffic(void **state)
{
	static uint8_t f[1000];
	struct mtc_pkt *p = malloc(sizeof(*p));
	uint64_t tx;
	uint8_t in[16] = { 0 }, out[16];
	struct mtc_fault fl = MTC_FAULT_NONE;

	(void)state;
	for (int i = 0; i < 10; i++) {
		mtc_frame(f, 1000, mac_b, ip_a, ip_b, 1, 2, false, (uint8_t)i);
		mtc_send(&A.c, &A.sq, A.key, f, 1000, 14, 1, 0, false);
		assert_true(rx_next(&B, 0, p, 2000));
	}
	assert_int_equal(zn_sim_mlx5_set_fatal(S.dev[0], ZN_MLX5_HEALTH_SYND_FW_INTERNAL_ERR, 7), 0);
	mtc_sleep_ms(30);
	tx = CNT(0, "tx_frames");
	for (int i = 0; i < 10; i++)
		mtc_send(&A.c, &A.sq, A.key, f, 1000, 14, 1, 0, true);
	mtc_sleep_ms(50);
	assert_int_equal(CNT(0, "tx_frames"), tx);
	assert_false(mtc_cq_poll(&B.rxcq[0], &p->cqe));
	/* Commands stay with the device; the syndrome is in the health buffer. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_PD);
	fl.no_wait = true;
	assert_int_equal(mtc_cmd_ex(&A.c, in, 16, out, 16, &fl), 0);
	{
		uint32_t v;

		assert_int_equal(zn_bus_read32(A.c.bus, 0, ZN_MLX5_ISEG_HEALTH_SYND_DW, &v), 0);
		assert_int_equal(zn_mlx5_bswap32(v), 1u << 16 | 7);
	}
	/* The receiver is unaffected and the sender's peer sees link loss
	 * only if its wire goes: B still receives from nobody. */
	assert_int_equal(CNT(1, "rx_frames"), 10);
	free(p);
}

static void set_cq_moderation(uint8_t *in, size_t len, void *arg)
{
	const uint16_t *v = arg;

	if (len >= ZN_MLX5_SZ_CREATE_CQ_IN &&
	    ZN_MLX5_GET(in, IN_OPCODE) == ZN_MLX5_CMD_OP_CREATE_CQ) {
		ZN_MLX5_SET(ZN_MLX5_ADDR(in, CREATE_CQ_IN_CQC), CQC_CQ_PERIOD, v[0]);
		ZN_MLX5_SET(ZN_MLX5_ADDR(in, CREATE_CQ_IN_CQC), CQC_CQ_MAX_COUNT, v[1]);
	}
}

/* An SQ on a CQ with moderation (period µs, count CQEs), armed once. */
static void moderated_sq(struct mtc_cq *cq, struct mtc_sq *sq, uint16_t period, uint16_t count)
{
	uint16_t v[2] = { period, count };

	A.c.mutate = set_cq_moderation;
	A.c.mutate_arg = v;
	assert_int_equal(mtc_create_cq(&A.c, cq, A.uar, A.eq.eqn, 6), 0);
	A.c.mutate = NULL;
	assert_int_equal(mtc_create_sq(&A.c, sq, A.uar, cq->cqn, A.tis, A.pd, 6), 0);
	assert_int_equal(mtc_modify(&A.c, true, sq->sqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY), 0);
	mtc_cq_arm(&A.c, cq, A.uar, 1);
	mtc_sleep_ms(5);
}

static void test_cq_events_and_moderation(void **state)
{
	static uint8_t f[200];
	struct mtc_cq cq, cq2;
	struct mtc_sq sq, sq2;
	struct zn_mlx5_eqe e;
	struct zn_mlx5_cqe64 tc;
	int64_t t0;

	(void)state;
	mtc_frame(f, 200, mac_b, ip_a, ip_b, 1, 2, false, 3);
	/* max_count 3: the event comes with the third CQE, once. */
	moderated_sq(&cq, &sq, 0, 3);
	for (int i = 0; i < 2; i++)
		mtc_send(&A.c, &sq, A.key, f, 200, 14, 1, 0, true);
	assert_true(mtc_cq_wait(&cq, &tc, 2000));
	assert_true(mtc_cq_wait(&cq, &tc, 2000));
	assert_false(mtc_eq_wait(&A.c, &A.eq, &e, 30));
	mtc_send(&A.c, &sq, A.key, f, 200, 14, 1, 0, true);
	assert_true(mtc_eq_wait(&A.c, &A.eq, &e, 2000));
	assert_int_equal(e.type, ZN_MLX5_EVENT_COMP);
	assert_int_equal(zn_mlx5_bswap32(e.data.comp.cqn_be) & 0xffffff, cq.cqn);
	mtc_send(&A.c, &sq, A.key, f, 200, 14, 1, 0, true);
	assert_false(mtc_eq_wait(&A.c, &A.eq, &e, 30));	/* not re-armed */
	/* period 4 ms (the field has 12 bits of µs), count 100: the event
	 * waits for the period. */
	moderated_sq(&cq2, &sq2, 4000, 100);
	t0 = mtc_now_ms();
	mtc_send(&A.c, &sq2, A.key, f, 200, 14, 1, 0, true);
	assert_true(mtc_cq_wait(&cq2, &tc, 2000));
	assert_true(mtc_eq_wait(&A.c, &A.eq, &e, 2000));
	assert_int_equal(e.type, ZN_MLX5_EVENT_COMP);
	assert_int_equal(zn_mlx5_bswap32(e.data.comp.cqn_be) & 0xffffff, cq2.cqn);
	assert_true(mtc_now_ms() - t0 >= 3);
	assert_int_equal(zn_mlx5_bswap32(e.data.comp.cqn_be) & 0xffffff, cq2.cqn);
	assert_int_equal(CNT(0, "uar_cq_db"), 2);
	assert_int_equal(CNT(0, "uar_bad"), 0);
	assert_true(CNT(0, "uar_sq_db") >= 1);
}

static void test_mixed_bnxt_wire(void **state)
{
	struct mtc_port *s = malloc(sizeof(*s));
	static uint8_t f[512];
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	(void)state;
	assert_int_equal(mtc_sim_start(&S, "mlx5", "bnxt", true), 0);
	port_up(s, S.path[0], 1, &shampo_cfg);
	assert_int_equal(mtc_port_wait_link(s), 0);
	for (int i = 0; i < 20; i++) {
		mtc_frame(f, 512, bcast, ip_a, ip_b, 1, 2, false, (uint8_t)i);
		mtc_send(&s->c, &s->sq, s->key, f, 512, 14, 2, 0, false);
	}
	for (int i = 0; i < 200 && CNT(1, "port.rx_frames") < 20; i++)
		mtc_sleep_ms(2);
	assert_int_equal(CNT(0, "tx_frames"), 20);
	assert_int_equal(CNT(1, "port.rx_frames"), 20);
	mtc_close(&s->c);
	mtc_sim_stop(&S);
	free(s);
}

static int noop(void **state)
{
	(void)state;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_shampo_split_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsplit_and_inline_variants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tx_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_no_wqe_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rss_ms_vectors, setup_rss, teardown),
		cmocka_unit_test_setup_teardown(test_ntuple_steering, setup_rss, teardown),
		cmocka_unit_test_setup_teardown(test_cyclic_rq, setup_cyclic, teardown),
		cmocka_unit_test_setup_teardown(test_cyclic_rq_two_segments, setup_cyclic_2seg,
						teardown),
		cmocka_unit_test_setup_teardown(test_striding_without_split, setup_striding, teardown),
		cmocka_unit_test_setup_teardown(test_fatal_mid_traffic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_events_and_moderation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mixed_bnxt_wire, noop, noop),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
