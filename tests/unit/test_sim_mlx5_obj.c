/*
 * sim/mlx5: every object command of the mlx5 model, its success and each
 * refusal with the exact status (hw-docs/mlx5.md 8-13a): UAR, PD, TD, mkey,
 * TIS, EQ, CQ, SQ, RQ (striding, SHAMPO), MODIFY state machines, TIR, RQT,
 * flow tables, groups, entries, the root, NIC vport, vport state, PAOS and
 * PMTU; object contexts in the driver's pages, and pages handed back when
 * objects go.
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

#include "tests/unit/support/mlx5_test_client.h"

static struct mtc_sim S;
static struct mtc C;
static uint32_t uar, pd, td, key, tis;
static struct mtc_eq eq;

#define CNT(key) mtc_counter(&S, 0, key)
#define ST(x) ZN_MLX5_CMD_STAT_##x

static int setup(void **state)
{
	(void)state;
	if (mtc_sim_start(&S, "mlx5", NULL, false) || mtc_open(&C, S.path[0]) || mtc_boot(&C) ||
	    mtc_bringup(&C) || mtc_alloc_uar(&C, &uar) || mtc_alloc_pd(&C, &pd) ||
	    mtc_alloc_td(&C, &td) ||
	    mtc_create_eq(&C, &eq, uar, 6,
			  1ull << ZN_MLX5_EVENT_PAGE_REQUEST | 1ull << ZN_MLX5_EVENT_PORT_CHANGE) ||
	    mtc_create_mkey(&C, pd, NULL, 0, &key) || mtc_create_tis(&C, td, &tis))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mtc_close(&C);
	mtc_sim_stop(&S);
	return 0;
}

/* One field of the next command's input set to a value: (byte base, bit
 * offset, width) as the header's F_ constants give them. */
struct poke {
	size_t base;
	unsigned off, width;
	uint64_t val;
	size_t trunc;		/* != 0: the input cut to this length */
};

static void do_poke(uint8_t *in, size_t len, void *arg)
{
	const struct poke *p = arg;

	if (p->width && p->base + (p->off + p->width + 7) / 8 <= len)
		zn_mlx5_set(in + p->base, p->off, p->width, p->val);
}

#define POKE(b, f, v) (struct poke){ (b), ZN_MLX5_F_##f, (v), 0 }

static void arm(struct poke *p)
{
	C.mutate = do_poke;
	C.mutate_arg = p;
}

static void disarm(void)
{
	C.mutate = NULL;
}

static void test_uar_pd_td(void **state)
{
	uint32_t id;

	(void)state;
	assert_int_equal(uar, 1);
	assert_int_equal(mtc_alloc_uar(&C, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DEALLOC_UAR, 0, id, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DEALLOC_UAR, 0, id, 0, NULL), ST(BAD_RES_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DEALLOC_UAR, 0, 0, 0, NULL), ST(BAD_RES_ERR));
	assert_int_equal(mtc_alloc_pd(&C, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DEALLOC_PD, 0, id, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DEALLOC_PD, 0, 999, 0, NULL),
			 ST(BAD_RES_ERR));
	assert_int_equal(mtc_alloc_td(&C, &id), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 0, id, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 0, id, 0, NULL),
			 ST(BAD_RES_ERR));
	/* Short output: refused before allocating. */
	{
		uint8_t in[16] = { 0 }, out[8];

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_PD);
		assert_int_equal(mtc_cmd(&C, in, 16, out, 8, NULL), ST(BAD_OUTP_LEN_ERR));
	}
	assert_int_equal(mtc_alloc_pd(&C, &id), 0);
	assert_int_equal(id, 2);
}

static void test_mkey(void **state)
{
	uint8_t *ring = mtc_alloc(&C, 3 * 4096, 4096);
	uint32_t k;
	const size_t mkc = ZN_MLX5_BYTE_OFF(CREATE_MKEY_IN_MKC);
	struct poke p;

	(void)state;
	assert_int_equal(mtc_create_mkey(&C, pd, ring, 3 * 4096, &k), 0);
	assert_int_equal(k & 0xff, 0x42);
	p = POKE(mkc, MKC_ACCESS_MODE_1_0, ZN_MLX5_MKC_ACCESS_MODE_KLMS);
	arm(&p);
	assert_int_equal(mtc_create_mkey(&C, pd, NULL, 0, &k), ST(BAD_PARAM_ERR));
	p = POKE(mkc, MKC_PD, 77);
	assert_int_equal(mtc_create_mkey(&C, pd, NULL, 0, &k), ST(BAD_RES_ERR));
	p = POKE(mkc, MKC_LOG_PAGE_SIZE, 13);
	assert_int_equal(mtc_create_mkey(&C, pd, ring, 3 * 4096, &k), ST(BAD_PARAM_ERR));
	p = POKE(0, CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE, 1);
	assert_int_equal(mtc_create_mkey(&C, pd, ring, 3 * 4096, &k), ST(BAD_INP_LEN_ERR));
	disarm();
	assert_int_equal(mtc_create_mkey(&C, pd, NULL, 0, &k), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_MKEY, 0, k >> 8, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_MKEY, 0, k >> 8, 0, NULL),
			 ST(BAD_RES_ERR));
}

static void test_tis(void **state)
{
	uint32_t t;
	struct poke p = POKE(ZN_MLX5_BYTE_OFF(CREATE_TIS_IN_TISC), TISC_TRANSPORT_DOMAIN, 99);

	(void)state;
	arm(&p);
	assert_int_equal(mtc_create_tis(&C, td, &t), ST(BAD_RES_ERR));
	disarm();
	assert_int_equal(mtc_create_tis(&C, td, &t), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_TIS, 0, t, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_TIS, 0, t, 0, NULL), ST(BAD_RES_ERR));
}

static void test_eq_cq(void **state)
{
	struct mtc_eq e2;
	struct mtc_cq cq;
	const size_t eqc = ZN_MLX5_BYTE_OFF(CREATE_EQ_IN_EQC), cqc = ZN_MLX5_BYTE_OFF(CREATE_CQ_IN_CQC);
	struct poke p;

	(void)state;
	p = POKE(eqc, EQC_UAR_PAGE, 9);
	arm(&p);
	assert_int_equal(mtc_create_eq(&C, &e2, uar, 4, 0), ST(BAD_RES_ERR));
	p = POKE(eqc, EQC_LOG_EQ_SIZE, 23);
	assert_int_equal(mtc_create_eq(&C, &e2, uar, 4, 0), ST(BAD_PARAM_ERR));
	/* 2^7 EQEs need two pages; the input carries one address. */
	p = POKE(eqc, EQC_LOG_EQ_SIZE, 7);
	assert_int_equal(mtc_create_eq(&C, &e2, uar, 4, 0), ST(BAD_INP_LEN_ERR));
	p = (struct poke){ ZN_MLX5_BYTE_OFF(CREATE_EQ_IN_PAS), 0, 64, 0x7ff000000000ull, 0 };
	assert_int_equal(mtc_create_eq(&C, &e2, uar, 4, 0), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_eq(&C, &e2, uar, 4, 0), 0);
	assert_int_equal(e2.eqn, 1);
	/* CQ */
	p = POKE(cqc, CQC_C_EQN, 9);
	arm(&p);
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), ST(BAD_RES_ERR));
	p = POKE(cqc, CQC_UAR_PAGE, 200);
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), ST(BAD_RES_ERR));
	p = POKE(cqc, CQC_CQE_SZ, ZN_MLX5_CQE_SZ_128);
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), ST(BAD_PARAM_ERR));
	p = POKE(cqc, CQC_CQE_COMP_EN, 1);
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), ST(BAD_PARAM_ERR));
	p = POKE(0, CREATE_CQ_IN_CQ_UMEM_VALID, 1);
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), ST(BAD_PARAM_ERR));
	p = POKE(cqc, CQC_DBR_ADDR, 0x7ff000000000ull);
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), ST(BAD_PARAM_ERR));
	p = POKE(cqc, CQC_LOG_CQ_SIZE, 23);
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_cq(&C, &cq, uar, e2.eqn, 4), 0);
	/* An EQ with a CQ on it stays. */
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_EQ, 0, e2.eqn, 0, NULL),
			 ST(RES_BUSY));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_CQ, 0, cq.cqn, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_CQ, 0, cq.cqn, 0, NULL),
			 ST(BAD_RES_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_EQ, 0, e2.eqn, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_EQ, 0, e2.eqn, 0, NULL),
			 ST(BAD_RES_ERR));
}

static void test_contexts_live_in_driver_pages(void **state)
{
	struct mtc_cq cq;
	bool found = false;

	(void)state;
	assert_int_equal(mtc_create_cq(&C, &cq, uar, eq.eqn, 9), 0);
	/* The cqc (log_cq_size 9, c_eqn, dbr_addr) is somewhere in a page
	 * the driver gave, written by the device. */
	for (unsigned i = 0; i < C.npages && !found; i++) {
		const uint8_t *pg = (const uint8_t *)C.mem->va + (C.pages[i] - C.mem->iova);

		for (unsigned s = 0; s < 4096; s += 256)
			if (ZN_MLX5_GET(pg + s, CQC_LOG_CQ_SIZE) == 9 &&
			    ZN_MLX5_GET(pg + s, CQC_DBR_ADDR) == mtc_iova(&C, cq.dbr))
				found = true;
	}
	assert_true(found);
	assert_true(CNT("ctx_writes") >= 4);
}

static void test_pages_back_when_objects_go(void **state)
{
	static struct mtc_cq cq[250];
	struct zn_mlx5_eqe e;
	uint8_t in[16] = { 0 }, out[16];
	int32_t want;
	uint32_t got;
	uint64_t given = C.pages_given;

	(void)state;
	/* 16 regular pages hold 256 contexts; near the end the device asks
	 * for more (page request EQE), and the client gives. */
	for (int i = 0; i < 250; i++) {
		int rc = mtc_create_cq(&C, &cq[i], uar, eq.eqn, 2);

		if (rc == ST(NO_RES_ERR)) {
			assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_REGULAR), 0);
			rc = mtc_create_cq(&C, &cq[i], uar, eq.eqn, 2);
		}
		assert_int_equal(rc, 0);
		while (mtc_eq_poll(&C, &eq, &e))
			if (e.type == ZN_MLX5_EVENT_PAGE_REQUEST &&
			    (int32_t)zn_mlx5_bswap32(e.data.req_pages.num_pages_be) > 0)
				assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_REGULAR), 0);
	}
	assert_true(C.pages_given > given);
	for (int i = 0; i < 250; i++)
		assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_CQ, 0, cq[i].cqn, 0, NULL), 0);
	/* A page request with a negative count, and QUERY_PAGES agrees. */
	assert_true(mtc_eq_wait(&C, &eq, &e, 500));
	while (mtc_eq_poll(&C, &eq, &e))
		;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_REGULAR);
	assert_int_equal(mtc_cmd(&C, in, 16, out, 16, NULL), 0);
	want = (int32_t)ZN_MLX5_GET(out, QUERY_PAGES_OUT_NUM_PAGES);
	assert_true(want < 0);
	assert_int_equal(mtc_take_pages(&C, (uint32_t)-want, &got), 0);
	assert_int_equal(got, (uint32_t)-want);
	assert_int_equal(mtc_cmd(&C, in, 16, out, 16, NULL), 0);
	assert_int_equal((int32_t)ZN_MLX5_GET(out, QUERY_PAGES_OUT_NUM_PAGES), 0);
	assert_int_equal(mtc_teardown(&C), 0);
	assert_int_equal(C.pages_given, C.pages_returned);
	assert_int_equal(CNT("pages_given"), CNT("pages_returned"));
	assert_int_equal(CNT("pages_leaked"), 0);
}

static void test_sq_rq(void **state)
{
	struct mtc_cq cq;
	struct mtc_sq sq;
	struct mtc_rq rq;
	struct mtc_rq_cfg cfg = { .log_sz = 2, .log_nstrides = 6, .log_stride_sz = 6, .shampo = true,
				  .log_hdr_entry = 8, .log_res = 12, .log_pkts_per_res = 2 };
	const size_t sqc = ZN_MLX5_BYTE_OFF(CREATE_SQ_IN_SQC), swq = sqc + ZN_MLX5_BYTE_OFF(SQC_WQ);
	const size_t rqc = ZN_MLX5_BYTE_OFF(CREATE_RQ_IN_RQC), rwq = rqc + ZN_MLX5_BYTE_OFF(RQC_WQ);
	struct poke p;

	(void)state;
	assert_int_equal(mtc_create_cq(&C, &cq, uar, eq.eqn, 6), 0);
	p = POKE(sqc, SQC_STATE, ZN_MLX5_QSTATE_RDY);
	arm(&p);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_PARAM_ERR));
	p = POKE(swq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_LINKED_LIST);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_PARAM_ERR));
	p = POKE(swq, WQ_LOG_WQ_STRIDE, 5);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_PARAM_ERR));
	p = POKE(sqc, SQC_TIS_LST_SZ, 2);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_PARAM_ERR));
	p = POKE(sqc, SQC_CQN, 200);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_RES_ERR));
	p = POKE(sqc, SQC_TIS_NUM_0, 200);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_RES_ERR));
	p = POKE(swq, WQ_UAR_PAGE, 200);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_RES_ERR));
	p = POKE(swq, WQ_PD, 200);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_RES_ERR));
	p = POKE(swq, WQ_DBR_ADDR, 0x7ff000000000ull);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_PARAM_ERR));
	p = POKE(sqc, SQC_RLKY, 1);
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_sq(&C, &sq, uar, cq.cqn, tis, pd, 4), 0);
	/* RQ */
	p = POKE(rwq, WQ_WQ_TYPE, ZN_MLX5_WQ_TYPE_LINKED_LIST);
	arm(&p);
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), ST(BAD_PARAM_ERR));
	disarm();
	cfg.log_res = 16;	/* 64 KiB reservation > 4 KiB WQE */
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), ST(BAD_PARAM_ERR));
	cfg.log_res = 12;
	p = POKE(rwq, WQ_HEADERS_MKEY, 0x7700);
	arm(&p);
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), ST(BAD_RES_ERR));
	p = POKE(rqc, RQC_CQN, 200);
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), ST(BAD_RES_ERR));
	p = POKE(rqc, RQC_MEM_RQ_TYPE, 1);
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), ST(BAD_PARAM_ERR));
	p = POKE(rwq, WQ_LOG_WQE_NUM_OF_STRIDES, 0x8);	/* 2^1 strides */
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), 0);
	/* MODIFY: current state must match, transitions must be legal. */
	assert_int_equal(mtc_modify(&C, false, rq.rqn, ZN_MLX5_QSTATE_RDY, ZN_MLX5_QSTATE_ERR),
			 ST(BAD_RES_STATE_ERR));
	assert_int_equal(mtc_modify(&C, false, rq.rqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_ERR),
			 ST(BAD_QP_STATE_ERR));
	assert_int_equal(mtc_modify(&C, false, 200, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY),
			 ST(BAD_RES_ERR));
	assert_int_equal(mtc_modify(&C, false, rq.rqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY), 0);
	assert_int_equal(mtc_modify(&C, false, rq.rqn, ZN_MLX5_QSTATE_RDY, ZN_MLX5_QSTATE_ERR), 0);
	assert_int_equal(mtc_modify(&C, false, rq.rqn, ZN_MLX5_QSTATE_ERR, ZN_MLX5_QSTATE_RDY),
			 ST(BAD_QP_STATE_ERR));
	assert_int_equal(mtc_modify(&C, false, rq.rqn, ZN_MLX5_QSTATE_ERR, ZN_MLX5_QSTATE_RST), 0);
	assert_int_equal(mtc_modify(&C, true, sq.sqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY), 0);
	assert_int_equal(mtc_modify(&C, true, sq.sqn, ZN_MLX5_QSTATE_RDY, ZN_MLX5_QSTATE_RST), 0);
	p = POKE(0, MODIFY_SQ_IN_MODIFY_BITMASK, 1);
	arm(&p);
	assert_int_equal(mtc_modify(&C, true, sq.sqn, ZN_MLX5_QSTATE_RST, ZN_MLX5_QSTATE_RDY),
			 ST(BAD_PARAM_ERR));
	disarm();
	/* The CQ is held by both queues. */
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_CQ, 0, cq.cqn, 0, NULL),
			 ST(RES_BUSY));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_SQ, 0, sq.sqn, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_SQ, 0, sq.sqn, 0, NULL),
			 ST(BAD_RES_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_RQ, 0, rq.rqn, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_CQ, 0, cq.cqn, 0, NULL), 0);
}

static void test_tir_rqt_flow(void **state)
{
	struct mtc_cq cq;
	struct mtc_rq rq;
	struct mtc_rq_cfg cfg = { .cyclic = true, .log_sz = 2, .cyclic_buf = 2048 };
	uint32_t tirn, rqtn, rqns[4], ft, fg, ft2;
	const size_t tirc = ZN_MLX5_BYTE_OFF(CREATE_TIR_IN_TIRC);
	const size_t rqtc = ZN_MLX5_BYTE_OFF(CREATE_RQT_IN_RQTC);
	struct poke p;

	(void)state;
	assert_int_equal(mtc_create_cq(&C, &cq, uar, eq.eqn, 6), 0);
	assert_int_equal(mtc_create_rq(&C, &rq, &cfg, cq.cqn, pd, key), 0);
	/* TIR */
	p = POKE(tirc, TIRC_TRANSPORT_DOMAIN, 99);
	arm(&p);
	assert_int_equal(mtc_create_tir(&C, td, false, rq.rqn, NULL, 0, &tirn), ST(BAD_RES_ERR));
	p = POKE(tirc, TIRC_LRO_ENABLE_MASK, 1);
	assert_int_equal(mtc_create_tir(&C, td, false, rq.rqn, NULL, 0, &tirn), ST(BAD_PARAM_ERR));
	p = POKE(tirc, TIRC_DISP_TYPE, 2);
	assert_int_equal(mtc_create_tir(&C, td, false, rq.rqn, NULL, 0, &tirn), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_tir(&C, td, false, 77, NULL, 0, &tirn), ST(BAD_RES_ERR));
	assert_int_equal(mtc_create_tir(&C, td, true, 77, NULL, 0, &tirn), ST(BAD_RES_ERR));
	/* RQT */
	for (int i = 0; i < 4; i++)
		rqns[i] = rq.rqn;
	assert_int_equal(mtc_create_rqt(&C, rqns, 3, &rqtn), ST(BAD_PARAM_ERR));	/* not 2^n */
	p = POKE(rqtc, RQTC_RQT_MAX_SIZE, 2);
	arm(&p);
	assert_int_equal(mtc_create_rqt(&C, rqns, 4, &rqtn), ST(BAD_PARAM_ERR));
	disarm();
	rqns[2] = 99;
	assert_int_equal(mtc_create_rqt(&C, rqns, 4, &rqtn), ST(BAD_RES_ERR));
	rqns[2] = rq.rqn;
	assert_int_equal(mtc_create_rqt(&C, rqns, 4, &rqtn), 0);
	p = POKE(tirc, TIRC_RX_HASH_FN, ZN_MLX5_RX_HASH_FN_INVERTED_XOR8);
	arm(&p);
	assert_int_equal(mtc_create_tir(&C, td, true, rqtn, NULL, 0xf, &tirn), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_tir(&C, td, true, rqtn, NULL, 0xf, &tirn), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_RQT, 0, rqtn, 0, NULL), ST(RES_BUSY));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_RQ, 0, rq.rqn, 0, NULL), ST(RES_BUSY));
	/* Flow table */
	p = POKE(0, CREATE_FT_IN_TABLE_TYPE, ZN_MLX5_FLOW_TABLE_NIC_TX);
	arm(&p);
	assert_int_equal(mtc_create_ft(&C, 4, &ft), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_ft(&C, 11, &ft), ST(BAD_PARAM_ERR));
	p = POKE(ZN_MLX5_BYTE_OFF(CREATE_FT_IN_FTC), FTC_TABLE_MISS_ACTION,
		 ZN_MLX5_FT_MISS_ACTION_FWD);
	arm(&p);
	assert_int_equal(mtc_create_ft(&C, 4, &ft), ST(BAD_PARAM_ERR));	/* miss id 0 */
	disarm();
	assert_int_equal(mtc_create_ft(&C, 2, &ft), 0);
	assert_int_equal(mtc_create_fg(&C, ft, 0, 4, NULL, &fg), ST(BAD_PARAM_ERR));	/* > 2^2 */
	assert_int_equal(mtc_create_fg(&C, 9, 0, 1, NULL, &fg), ST(BAD_RES_ERR));
	p = POKE(0, CREATE_FG_IN_MATCH_CRITERIA_ENABLE, 2);
	arm(&p);
	assert_int_equal(mtc_create_fg(&C, ft, 0, 1, NULL, &fg), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_create_fg(&C, ft, 0, 1, NULL, &fg), 0);
	assert_int_equal(mtc_create_fg(&C, ft, 1, 2, NULL, &ft2), ST(BAD_PARAM_ERR));	/* overlap */
	/* Entries */
	p = POKE(0, IN_OP_MOD, 1);
	arm(&p);
	assert_int_equal(mtc_set_fte(&C, ft, fg, 0, NULL, tirn, 0), ST(BAD_OP_ERR));
	p = POKE(ZN_MLX5_BYTE_OFF(SET_FTE_IN_FLOW_CONTEXT), FLOW_CTX_ACTION,
		 ZN_MLX5_FLOW_ACTION_FWD_DEST | ZN_MLX5_FLOW_ACTION_DROP);
	assert_int_equal(mtc_set_fte(&C, ft, fg, 0, NULL, tirn, 0), ST(BAD_PARAM_ERR));
	p = POKE(ZN_MLX5_BYTE_OFF(SET_FTE_IN_FLOW_CONTEXT), FLOW_CTX_DESTINATION_LIST_SIZE, 2);
	assert_int_equal(mtc_set_fte(&C, ft, fg, 0, NULL, tirn, 0), ST(BAD_PARAM_ERR));
	p = POKE(ZN_MLX5_BYTE_OFF(SET_FTE_IN_FLOW_CONTEXT) +
			 ZN_MLX5_BYTE_OFF(FLOW_CTX_DESTINATION), DEST_TYPE,
		 ZN_MLX5_FLOW_DEST_FLOW_TABLE);
	assert_int_equal(mtc_set_fte(&C, ft, fg, 0, NULL, tirn, 0), ST(BAD_PARAM_ERR));
	p = POKE(0, SET_FTE_IN_TABLE_TYPE, 1);
	assert_int_equal(mtc_set_fte(&C, ft, fg, 0, NULL, tirn, 0), ST(BAD_PARAM_ERR));
	disarm();
	assert_int_equal(mtc_set_fte(&C, ft, fg, 0, NULL, tirn, 0), 0);
	assert_int_equal(mtc_set_root(&C, ft), 0);
	assert_int_equal(mtc_set_root(&C, 9), ST(BAD_RES_ERR));
	/* Held: TIR by the entry, group by the entry, table by the group. */
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_TIR, 0, tirn, 0, NULL), ST(RES_BUSY));
	{
		uint8_t in[64] = { 0 };

		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP);
		ZN_MLX5_SET(in, DESTROY_FG_IN_TABLE_ID, ft);
		ZN_MLX5_SET(in, DESTROY_FG_IN_GROUP_ID, fg);
		assert_int_equal(mtc_cmd(&C, in, 64, NULL, 0, NULL), ST(RES_BUSY));
		memset(in, 0, sizeof(in));
		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE);
		ZN_MLX5_SET(in, DESTROY_FT_IN_TABLE_ID, ft);
		assert_int_equal(mtc_cmd(&C, in, 64, NULL, 0, NULL), ST(RES_BUSY));
		/* Teardown order: entry, group, table, TIR. */
		memset(in, 0, sizeof(in));
		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
		ZN_MLX5_SET(in, DELETE_FTE_IN_TABLE_ID, ft);
		assert_int_equal(mtc_cmd(&C, in, 64, NULL, 0, NULL), 0);
		memset(in, 0, sizeof(in));
		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DESTROY_FLOW_GROUP);
		ZN_MLX5_SET(in, DESTROY_FG_IN_TABLE_ID, ft);
		ZN_MLX5_SET(in, DESTROY_FG_IN_GROUP_ID, fg);
		assert_int_equal(mtc_cmd(&C, in, 64, NULL, 0, NULL), 0);
		memset(in, 0, sizeof(in));
		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_DESTROY_FLOW_TABLE);
		ZN_MLX5_SET(in, DESTROY_FT_IN_TABLE_ID, ft);
		assert_int_equal(mtc_cmd(&C, in, 64, NULL, 0, NULL), 0);
		assert_int_equal(mtc_cmd(&C, in, 64, NULL, 0, NULL), ST(BAD_RES_ERR));
	}
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_TIR, 0, tirn, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_RQT, 0, rqtn, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DESTROY_RQ, 0, rq.rqn, 0, NULL), 0);
}

static int access_reg(uint16_t reg, uint16_t op_mod, const uint8_t *data, uint8_t *rout)
{
	uint8_t in[32] = { 0 }, out[32];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ACCESS_REG);
	ZN_MLX5_SET(in, IN_OP_MOD, op_mod);
	ZN_MLX5_SET(in, ACCESS_REG_IN_REGISTER_ID, reg);
	memcpy(in + 16, data, 16);
	rc = mtc_cmd(&C, in, sizeof(in), out, sizeof(out), NULL);
	if (rout)
		memcpy(rout, out + 16, 16);
	return rc;
}

static void test_vport_and_registers(void **state)
{
	uint8_t in[ZN_MLX5_SZ_MODIFY_NIC_VPORT_IN] = { 0 }, out[ZN_MLX5_SZ_QUERY_NIC_VPORT_OUT];
	uint8_t reg[16] = { 0 }, r[16];
	uint8_t *ctx = ZN_MLX5_ADDR(in, MODIFY_NIC_VPORT_IN_CONTEXT);
	uint8_t q[16] = { 0 };

	(void)state;
	/* NIC vport context: MTU and promiscuous flags. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
	ZN_MLX5_SET(in, MODIFY_NIC_VPORT_IN_FIELD_SELECT,
		    ZN_MLX5_NIC_VPORT_FS_MTU | ZN_MLX5_NIC_VPORT_FS_PROMISC);
	ZN_MLX5_SET(ctx, NIC_VPORT_MTU, 1522);
	ZN_MLX5_SET(ctx, NIC_VPORT_PROMISC_MC, 1);
	assert_int_equal(mtc_cmd(&C, in, sizeof(in), NULL, 0, NULL), 0);
	ZN_MLX5_SET(q, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	assert_int_equal(mtc_cmd(&C, q, 16, out, sizeof(out), NULL), 0);
	ctx = ZN_MLX5_ADDR(out, QUERY_NIC_VPORT_OUT_CONTEXT);
	assert_int_equal(ZN_MLX5_GET(ctx, NIC_VPORT_MTU), 1522);
	assert_int_equal(ZN_MLX5_GET(ctx, NIC_VPORT_PROMISC_MC), 1);
	assert_int_equal(ZN_MLX5_GET(ctx, NIC_VPORT_PROMISC_UC), 0);
	assert_int_equal(ctx[0xf6], 0x02);
	ctx = ZN_MLX5_ADDR(in, MODIFY_NIC_VPORT_IN_CONTEXT);
	ZN_MLX5_SET(ctx, NIC_VPORT_MTU, 20);
	assert_int_equal(mtc_cmd(&C, in, sizeof(in), NULL, 0, NULL), ST(BAD_PARAM_ERR));
	ZN_MLX5_SET(in, MODIFY_NIC_VPORT_IN_FIELD_SELECT, ZN_MLX5_NIC_VPORT_FS_PERMANENT_ADDRESS);
	assert_int_equal(mtc_cmd(&C, in, sizeof(in), NULL, 0, NULL), ST(BAD_PARAM_ERR));
	assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, NULL), ST(BAD_INP_LEN_ERR));
	ZN_MLX5_SET(q, QUERY_NIC_VPORT_IN_OTHER_VPORT, 1);
	assert_int_equal(mtc_cmd(&C, q, 16, out, sizeof(out), NULL), ST(BAD_PARAM_ERR));
	/* No wire on this device: admin up, link down. */
	memset(q, 0, sizeof(q));
	ZN_MLX5_SET(q, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_VPORT_STATE);
	assert_int_equal(mtc_cmd(&C, q, 16, out, 16, NULL), 0);
	assert_int_equal(ZN_MLX5_GET(out, QUERY_VPORT_STATE_OUT_ADMIN_STATE), 1);
	assert_int_equal(ZN_MLX5_GET(out, QUERY_VPORT_STATE_OUT_STATE), 0);
	ZN_MLX5_SET(q, IN_OP_MOD, 1);
	assert_int_equal(mtc_cmd(&C, q, 16, out, 16, NULL), ST(BAD_PARAM_ERR));
	/* PAOS */
	ZN_MLX5_SET(reg, PAOS_LOCAL_PORT, 1);
	assert_int_equal(access_reg(ZN_MLX5_REG_PAOS, ZN_MLX5_ACCESS_REG_READ, reg, r), 0);
	assert_int_equal(ZN_MLX5_GET(r, PAOS_ADMIN_STATUS), ZN_MLX5_PAOS_STATUS_UP);
	assert_int_equal(ZN_MLX5_GET(r, PAOS_OPER_STATUS), ZN_MLX5_PAOS_STATUS_DOWN);
	ZN_MLX5_SET(reg, PAOS_ADMIN_STATUS, ZN_MLX5_PAOS_STATUS_DOWN);
	ZN_MLX5_SET(reg, PAOS_ASE, 1);
	assert_int_equal(access_reg(ZN_MLX5_REG_PAOS, ZN_MLX5_ACCESS_REG_WRITE, reg, r), 0);
	assert_int_equal(ZN_MLX5_GET(r, PAOS_ADMIN_STATUS), ZN_MLX5_PAOS_STATUS_DOWN);
	ZN_MLX5_SET(reg, PAOS_ADMIN_STATUS, 7);
	assert_int_equal(access_reg(ZN_MLX5_REG_PAOS, ZN_MLX5_ACCESS_REG_WRITE, reg, r),
			 ST(BAD_PARAM_ERR));
	ZN_MLX5_SET(reg, PAOS_LOCAL_PORT, 2);
	assert_int_equal(access_reg(ZN_MLX5_REG_PAOS, ZN_MLX5_ACCESS_REG_READ, reg, r),
			 ST(BAD_PARAM_ERR));
	assert_int_equal(access_reg(ZN_MLX5_REG_PAOS, 2, reg, r), ST(BAD_OP_ERR));
	assert_int_equal(access_reg(ZN_MLX5_REG_PTYS, ZN_MLX5_ACCESS_REG_READ, reg, r),
			 ST(BAD_PARAM_ERR));
	/* PMTU */
	memset(reg, 0, sizeof(reg));
	ZN_MLX5_SET(reg, PMTU_LOCAL_PORT, 1);
	ZN_MLX5_SET(reg, PMTU_ADMIN_MTU, 1522);
	assert_int_equal(access_reg(ZN_MLX5_REG_PMTU, ZN_MLX5_ACCESS_REG_WRITE, reg, r), 0);
	assert_int_equal(access_reg(ZN_MLX5_REG_PMTU, ZN_MLX5_ACCESS_REG_READ, reg, r), 0);
	assert_int_equal(ZN_MLX5_GET(r, PMTU_ADMIN_MTU), 1522);
	assert_int_equal(ZN_MLX5_GET(r, PMTU_OPER_MTU), 1522);
	assert_int_equal(ZN_MLX5_GET(r, PMTU_MAX_MTU), ZN_SIM_FRAME_MAX + 22);
	ZN_MLX5_SET(reg, PMTU_ADMIN_MTU, 10000);
	assert_int_equal(access_reg(ZN_MLX5_REG_PMTU, ZN_MLX5_ACCESS_REG_WRITE, reg, r),
			 ST(BAD_PARAM_ERR));
}

static void test_link_events(void **state)
{
	struct mtc_sim s2;
	struct mtc c2;
	struct mtc_eq e2;
	struct zn_mlx5_eqe e;
	uint8_t reg[16] = { 0 }, in[32] = { 0 }, out[32];
	uint32_t u;

	(void)state;
	/* A wired pair: INIT_HCA brings the link up, PAOS down takes it down. */
	assert_int_equal(mtc_sim_start(&s2, "mlx5", "mlx5", true), 0);
	assert_int_equal(mtc_open(&c2, s2.path[0]), 0);
	assert_int_equal(mtc_boot(&c2), 0);
	assert_int_equal(mtc_bringup(&c2), 0);
	assert_int_equal(mtc_alloc_uar(&c2, &u), 0);
	assert_int_equal(mtc_create_eq(&c2, &e2, u, 4, 1ull << ZN_MLX5_EVENT_PORT_CHANGE), 0);
	for (int i = 0; i < 100 && !mtc_counter(&s2, 0, "link_up"); i++)
		mtc_sleep_ms(2);
	assert_int_equal(mtc_counter(&s2, 0, "link_up"), 1);
	/* The link may have come up after the EQ existed: that event first. */
	while (mtc_eq_poll(&c2, &e2, &e))
		assert_int_equal(e.sub_type, ZN_MLX5_PORT_CHANGE_ACTIVE);
	ZN_MLX5_SET(reg, PAOS_LOCAL_PORT, 1);
	ZN_MLX5_SET(reg, PAOS_ADMIN_STATUS, ZN_MLX5_PAOS_STATUS_DOWN);
	ZN_MLX5_SET(reg, PAOS_ASE, 1);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ACCESS_REG);
	ZN_MLX5_SET(in, ACCESS_REG_IN_REGISTER_ID, ZN_MLX5_REG_PAOS);
	memcpy(in + 16, reg, 16);
	assert_int_equal(mtc_cmd(&c2, in, 32, out, 32, NULL), 0);
	assert_true(mtc_eq_wait(&c2, &e2, &e, 500));
	assert_int_equal(e.type, ZN_MLX5_EVENT_PORT_CHANGE);
	assert_int_equal(e.sub_type, ZN_MLX5_PORT_CHANGE_DOWN);
	assert_int_equal(e.data.port.port >> 4, 1);
	ZN_MLX5_SET(in + 16, PAOS_ADMIN_STATUS, ZN_MLX5_PAOS_STATUS_UP);
	assert_int_equal(mtc_cmd(&c2, in, 32, out, 32, NULL), 0);
	assert_true(mtc_eq_wait(&c2, &e2, &e, 500));
	assert_int_equal(e.sub_type, ZN_MLX5_PORT_CHANGE_ACTIVE);
	assert_int_equal(mtc_counter(&s2, 0, "link_changes"), 3);
	mtc_close(&c2);
	mtc_sim_stop(&s2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_uar_pd_td, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkey, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tis, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eq_cq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_contexts_live_in_driver_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pages_back_when_objects_go, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sq_rq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tir_rqt_flow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vport_and_registers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_events, setup, teardown),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
