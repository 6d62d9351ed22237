/*
 * sim/mlx5: the initialization segment, the boot handshake, health, the
 * command queue (entries, mailbox chains, delivery statuses, ownership,
 * completion EQEs), the function states and the page supply of the mlx5
 * model, driven through the real vfio-user client with commands built by
 * hand from drivers/mlx5/mlx5_hw.h (hw-docs/mlx5.md 2-7, 13).
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

static struct mtc_sim S;
static struct mtc C;

#define CNT(key) mtc_counter(&S, 0, key)
#define ST(x) ZN_MLX5_CMD_STAT_##x
#define DST(x) (0x100 | ZN_MLX5_DSTAT_##x)

static int start(const char *spec)
{
	if (mtc_sim_start(&S, spec, NULL, false))
		return -1;
	return mtc_open(&C, S.path[0]) ? -1 : 0;
}

static int setup(void **state)
{
	(void)state;
	return start("mlx5");
}

static int setup_cx7(void **state)
{
	(void)state;
	return start("mlx5,device=cx7,mac=02:00:00:00:00:07");
}

static int setup_fatal_opt(void **state)
{
	(void)state;
	return start("mlx5,fatal_after_ms=60,fatal_synd=0x09");
}

static int teardown(void **state)
{
	(void)state;
	mtc_close(&C);
	mtc_sim_stop(&S);
	return 0;
}

static uint32_t iseg(uint64_t off)
{
	uint32_t v = 0;

	assert_int_equal(zn_bus_read32(C.bus, 0, off, &v), 0);
	return zn_mlx5_bswap32(v);
}

static void test_pci_identity(void **state)
{
	uint16_t v;

	(void)state;
	assert_int_equal(zn_bus_cfg_read16(C.bus, 0, &v), 0);
	assert_int_equal(v, ZN_MLX5_PCI_VENDOR_MELLANOX);
	assert_int_equal(zn_bus_cfg_read16(C.bus, 2, &v), 0);
	assert_int_equal(v, ZN_MLX5_DEV_CX6DX);
	assert_int_equal(iseg(ZN_MLX5_ISEG_FW_REV), 40u << 16 | 22);
	assert_int_equal(iseg(ZN_MLX5_ISEG_CMDIF_REV_FW_SUB), 5u << 16 | 1000);
}

static void test_pci_identity_cx7(void **state)
{
	uint16_t v;
	uint8_t in[16] = { 0 }, out[ZN_MLX5_SZ_QUERY_NIC_VPORT_OUT];
	const uint8_t mac[6] = { 2, 0, 0, 0, 0, 7 };

	(void)state;
	assert_int_equal(zn_bus_cfg_read16(C.bus, 2, &v), 0);
	assert_int_equal(v, ZN_MLX5_DEV_CX7);
	assert_int_equal(iseg(ZN_MLX5_ISEG_FW_REV), 40u << 16 | 28);
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	assert_int_equal(mtc_cmd(&C, in, sizeof(in), out, sizeof(out), NULL), 0);
	assert_memory_equal((uint8_t *)ZN_MLX5_ADDR(out, QUERY_NIC_VPORT_OUT_CONTEXT) + 0xf6, mac, 6);
}

static void test_boot_handshake(void **state)
{
	uint64_t a;
	int64_t t0 = mtc_now_ms();

	(void)state;
	/* The first access starts the 20 ms of firmware initialization. */
	assert_true(iseg(ZN_MLX5_ISEG_INITIALIZING) & ZN_MLX5_ISEG_INITIALIZING_BIT);
	while (iseg(ZN_MLX5_ISEG_INITIALIZING) & ZN_MLX5_ISEG_INITIALIZING_BIT)
		mtc_sleep_ms(1);
	assert_true(mtc_now_ms() - t0 >= 19);
	/* Queue geometry read back with the committed address. */
	assert_int_equal(iseg(ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ) & 0xff, 5u << 4 | 6);
	assert_int_equal(mtc_boot(&C), 0);
	a = mtc_iova(&C, C.cmdq);
	assert_int_equal(iseg(ZN_MLX5_ISEG_CMDQ_ADDR_H), (uint32_t)(a >> 32));
	assert_int_equal(iseg(ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ), ((uint32_t)a & 0xfffff000u) | 0x56);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL), 0);
	assert_int_equal(CNT("cmds"), 1);
}

static void test_health_counter(void **state)
{
	uint32_t h0, h1, mapped;

	(void)state;
	h0 = iseg(ZN_MLX5_ISEG_HEALTH_COUNTER) & ZN_MLX5_HEALTH_COUNTER_MASK;
	mtc_sleep_ms(350);
	h1 = iseg(ZN_MLX5_ISEG_HEALTH_COUNTER) & ZN_MLX5_HEALTH_COUNTER_MASK;
	assert_true(h1 >= h0 + 2 && h1 <= h0 + 5);
	/* The same register through the mapping of page 1. */
	mapped = zn_mlx5_ld_be32(C.bar0 + ZN_MLX5_ISEG_HEALTH_COUNTER);
	assert_true((mapped & ZN_MLX5_HEALTH_COUNTER_MASK) >= h1);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW), 0);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_FW_VER) >> 24, 22);
	assert_true(iseg(ZN_MLX5_ISEG_INTERNAL_TIMER_L) || iseg(ZN_MLX5_ISEG_INTERNAL_TIMER_H));
}

static void test_fatal_syndrome(void **state)
{
	uint32_t h0, pd;
	struct mtc_fault f = MTC_FAULT_NONE;
	uint8_t in[16] = { 0 }, out[16];

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(mtc_alloc_pd(&C, &pd), 0);
	assert_int_equal(zn_sim_mlx5_set_fatal(S.dev[0], ZN_MLX5_HEALTH_SYND_HW_FATAL_ERR, 0x1234),
			 0);
	mtc_sleep_ms(50);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW), 0x08u << 16 | 0x1234);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_COUNTER) >> 24, 0x08);
	h0 = iseg(ZN_MLX5_ISEG_HEALTH_COUNTER) & ZN_MLX5_HEALTH_COUNTER_MASK;
	mtc_sleep_ms(250);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_COUNTER) & ZN_MLX5_HEALTH_COUNTER_MASK, h0);
	/* No command completes: the slot stays the device's. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_PD);
	f.no_wait = true;
	assert_int_equal(mtc_cmd_ex(&C, in, sizeof(in), out, sizeof(out), &f), 0);
	mtc_sleep_ms(50);
	assert_int_equal(C.cmdq[63] & 1, 1);
	assert_int_equal(CNT("cmd_dropped_fatal"), 1);
	assert_int_equal(CNT("fatal_events"), 1);
	assert_int_equal(CNT("health_synd"), 8);
	assert_int_equal(zn_sim_mlx5_set_fatal(S.dev[0], 0, 0), -EINVAL);
	/* A function reset brings it back. */
	assert_int_equal(zn_bus_reset(C.bus), 0);
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL), 0);
}

static void test_fatal_option(void **state)
{
	int64_t t0;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	mtc_sleep_ms(100);
	/* The clock starts at INIT_HCA. */
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	t0 = mtc_now_ms();
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW), 0);
	while (!iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW) && mtc_now_ms() - t0 < 2000)
		mtc_sleep_ms(2);
	assert_true(mtc_now_ms() - t0 >= 50);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW), 0x09u << 16);
	assert_int_equal(CNT("fatal_events"), 1);
}

static void test_states(void **state)
{
	uint32_t synd = 0, v;
	uint8_t in[16] = { 0 };

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	/* Before ENABLE_HCA: only ENABLE_HCA. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_PD);
	assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, &synd), ST(BAD_SYS_STATE_ERR));
	assert_int_equal(synd >> 16, ZN_MLX5_CMD_OP_ALLOC_PD);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 1, 0, NULL),
			 ST(BAD_PARAM_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));
	/* Between ENABLE_HCA and INIT_HCA: no objects. */
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));	/* ISSI not set */
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_SET_ISSI, 0, 2, 0, NULL), ST(BAD_PARAM_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_SET_ISSI, 0, 1, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, 0, &v),
			 ST(BAD_SYS_STATE_ERR));	/* no pages */
	assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_BOOT), 0);
	assert_int_equal(C.pages_given, 8);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));	/* no init pages */
	assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_INIT), 0);
	assert_int_equal(C.pages_given, 40);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_SET_ISSI, 0, 1, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));
	assert_int_equal(mtc_alloc_pd(&C, &v), 0);
	assert_int_equal(v, 1);
	/* Unknown opcodes and op_mods. */
	assert_int_equal(mtc_simple(&C, 0x7777, 0, 0, 0, NULL), ST(BAD_OP_ERR));
	assert_int_equal(CNT("cmd_bad_opcode"), 1);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_QUERY_PAGES, 4, 0, 0, NULL), ST(BAD_OP_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_QUERY_SPECIAL_CONTEXTS, 0, 0, 0, NULL),
			 ST(BAD_OP_ERR));
	/* After TEARDOWN_HCA: no objects, pages back. */
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_TEARDOWN_HCA, 0, 5, 0, NULL),
			 ST(BAD_PARAM_ERR));
	assert_int_equal(mtc_teardown(&C), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));
}

static void test_lengths(void **state)
{
	uint8_t in[16] = { 0 }, out[ZN_MLX5_SZ_QUERY_HCA_CAP_OUT];
	uint32_t synd;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	/* An output shorter than the command's is refused before any effect. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_HCA_CAP);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 1));
	assert_int_equal(mtc_cmd(&C, in, 16, out, 1024, &synd), ST(BAD_OUTP_LEN_ERR));
	assert_int_equal(synd, (uint32_t)ZN_MLX5_CMD_OP_QUERY_HCA_CAP << 16 | 0xfff1);
	/* An input shorter than the layout. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_CQ);
	ZN_MLX5_SET(in, IN_OP_MOD, 0);
	assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, NULL), ST(BAD_INP_LEN_ERR));
	/* The 4 KiB capability block over a 9-block output chain. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_HCA_CAP);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 1));
	assert_int_equal(mtc_cmd(&C, in, 16, out, sizeof(out), NULL), 0);
	{
		const uint8_t *cap = out + 16;

		assert_int_equal(ZN_MLX5_GET(cap, CAP_PORT_TYPE), ZN_MLX5_CAP_PORT_TYPE_ETH);
		assert_int_equal(ZN_MLX5_GET(cap, CAP_LOG_MAX_CQ_SZ), 22);
		assert_int_equal(ZN_MLX5_GET(cap, CAP_LOG_MAX_STRIDE_SZ_RQ), 13);
		assert_int_equal(ZN_MLX5_GET(cap, CAP_SHAMPO), 1);
		assert_int_equal(ZN_MLX5_GET(cap, CAP_CMDIF_CHECKSUM), 0);
		assert_int_equal(ZN_MLX5_GET(cap, CAP_LOG_BF_REG_SIZE), 8);
	}
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_DEV_SHAMPO, 1));
	assert_int_equal(mtc_cmd(&C, in, 16, out, sizeof(out), NULL), 0);
	assert_int_equal(ZN_MLX5_GET(out + 16, SHAMPO_CAP_LOG_MAX_RESERVATION_SIZE), 20);
	assert_int_equal(ZN_MLX5_GET(out + 16, SHAMPO_CAP_MAX_LOG_HEADERS_ENTRY_SIZE), 10);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_ETHERNET_OFFLOADS, 1));
	assert_int_equal(mtc_cmd(&C, in, 16, out, sizeof(out), NULL), 0);
	assert_int_equal(ZN_MLX5_GET(out + 16, ETH_CAP_WQE_INLINE_MODE), 2);
	assert_int_equal(ZN_MLX5_GET(out + 16, ETH_CAP_CSUM_CAP), 1);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_FLOW_TABLE, 1));
	assert_int_equal(mtc_cmd(&C, in, 16, out, sizeof(out), NULL), ST(BAD_OP_ERR));
}

static int faulty(uint16_t opcode, size_t inlen, size_t outlen, struct mtc_fault *f)
{
	uint8_t *in = calloc(1, inlen + 16), *out = calloc(1, outlen + 16);
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, opcode);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_HCA_CAP_OPMOD(ZN_MLX5_CAP_GENERAL, 1));
	rc = mtc_cmd_ex(&C, in, inlen, out, outlen, f);
	free(in);
	free(out);
	return rc;
}

static void test_delivery_errors(void **state)
{
	struct mtc_fault f;
	uint64_t before;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	before = CNT("cmds");
#define FAULT(field, val, op, il, ol, want)                                  \
	do {                                                                 \
		f = (struct mtc_fault)MTC_FAULT_NONE;                        \
		f.field = (val);                                             \
		assert_int_equal(faulty(op, il, ol, &f), want);              \
	} while (0)
	FAULT(type, 3, ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 16, 4112, ZN_MLX5_DSTAT_CMD_DESC_TYPE);
	/* The long input of SET_HCA_CAP: 8 input blocks. */
	FAULT(bad_token_block, 4, ZN_MLX5_CMD_OP_SET_HCA_CAP, 4112, 16, ZN_MLX5_DSTAT_TOK_ERR);
	FAULT(bad_blknum_block, 7, ZN_MLX5_CMD_OP_SET_HCA_CAP, 4112, 16,
	      ZN_MLX5_DSTAT_BAD_BLK_NUM);
	FAULT(misalign_in, true, ZN_MLX5_CMD_OP_SET_HCA_CAP, 4112, 16, ZN_MLX5_DSTAT_IN_PTR_ALIGN);
	FAULT(cut_in_chain, 3, ZN_MLX5_CMD_OP_SET_HCA_CAP, 4112, 16,
	      ZN_MLX5_DSTAT_IN_LENGTH_ERR);
	FAULT(in_ptr, 0x7ff000000000ull, ZN_MLX5_CMD_OP_SET_HCA_CAP, 4112, 16,
	      ZN_MLX5_DSTAT_FW_ERR);
	/* Output chains are checked before the command runs. */
	FAULT(misalign_out, true, ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 16, 4112,
	      ZN_MLX5_DSTAT_OUT_PTR_ALIGN);
	FAULT(cut_out_chain, 2, ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 16, 4112,
	      ZN_MLX5_DSTAT_OUT_LENGTH_ERR);
	FAULT(bad_token_block, 0, ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 16, 4112, ZN_MLX5_DSTAT_TOK_ERR);
	FAULT(type, 0, ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 4, 16, ZN_MLX5_DSTAT_IN_LENGTH_ERR);
	FAULT(type, 0, ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 16, 4, ZN_MLX5_DSTAT_OUT_LENGTH_ERR);
	FAULT(type, 0, ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 70000, 16, ZN_MLX5_DSTAT_IN_LENGTH_ERR);
#undef FAULT
	assert_int_equal(CNT("cmd_delivery_errors"), 12);
	/* None of them ran; a good one still does. */
	assert_int_equal(CNT("cmds"), before);
	assert_int_equal(faulty(ZN_MLX5_CMD_OP_QUERY_HCA_CAP, 16, 4112, NULL), 0);
	assert_int_equal(CNT("cmds"), before + 1);
}

static void test_not_owned_and_slots(void **state)
{
	uint8_t in[16] = { 0 }, out[16];
	struct mtc_fault f = MTC_FAULT_NONE;
	uint32_t pd;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	/* A doorbell for a slot software still owns is ignored. */
	memset(C.cmdq + 64 * 3, 0, 64);
	assert_int_equal(zn_bus_write32(C.bus, 0, ZN_MLX5_ISEG_CMD_DBELL,
					zn_mlx5_bswap32(1u << 3)), 0);
	mtc_sleep_ms(20);
	assert_int_equal(CNT("cmd_not_owned"), 1);
	/* Slot 31 works as well as slot 0. */
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_PD);
	f.slot = 31;
	assert_int_equal(mtc_cmd_ex(&C, in, sizeof(in), out, sizeof(out), &f), 0);
	assert_int_equal(out[0], 0);
	pd = (uint32_t)ZN_MLX5_GET(out, ALLOC_PD_OUT_PD);
	assert_int_equal(pd, 1);
}

static void test_completion_eqe(void **state)
{
	struct mtc_eq eq;
	struct zn_mlx5_eqe e;
	uint32_t uar, pd;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(mtc_alloc_uar(&C, &uar), 0);
	assert_int_equal(uar, 1);
	assert_int_equal(mtc_create_eq(&C, &eq, uar, 4, 1ull << ZN_MLX5_EVENT_CMD |
								  1ull << ZN_MLX5_EVENT_PAGE_REQUEST), 0);
	/* The CREATE_EQ itself completed with an EQE already (the EQ exists). */
	assert_true(mtc_eq_wait(&C, &eq, &e, 500));
	assert_int_equal(e.type, ZN_MLX5_EVENT_CMD);
	assert_int_equal(zn_mlx5_bswap32(e.data.cmd.vector_be), 1);
	assert_int_equal(mtc_alloc_pd(&C, &pd), 0);
	assert_true(mtc_eq_wait(&C, &eq, &e, 500));
	assert_int_equal(e.type, ZN_MLX5_EVENT_CMD);
	assert_false(mtc_eq_poll(&C, &eq, &e));
	assert_int_equal(CNT("cmd_eqes"), 2);
	/* 20 more commands through a 16-entry EQ: the consumer doorbell keeps
	 * it from overrunning. */
	for (int i = 0; i < 20; i++) {
		assert_int_equal(mtc_alloc_pd(&C, &pd), 0);
		mtc_sleep_ms(2);
		assert_true(mtc_eq_wait(&C, &eq, &e, 500));
	}
	assert_int_equal(CNT("eq_overruns"), 0);
}

static void test_eq_overrun_is_fatal(void **state)
{
	struct mtc_eq eq;
	uint32_t uar, pd;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(mtc_alloc_uar(&C, &uar), 0);
	assert_int_equal(mtc_create_eq(&C, &eq, uar, 1, 1ull << ZN_MLX5_EVENT_CMD), 0);
	/* Two entries, never consumed: the third EQE overruns. */
	assert_int_equal(mtc_alloc_pd(&C, &pd), 0);
	assert_int_equal(mtc_alloc_pd(&C, &pd), 0);
	mtc_sleep_ms(20);
	assert_int_equal(CNT("eq_overruns"), 1);
	assert_int_equal(iseg(ZN_MLX5_ISEG_HEALTH_SYND_DW) >> 16 & 0xff,
			 ZN_MLX5_HEALTH_SYND_ASYNC_EQ_OVERRUN);
}

static void test_page_accounting(void **state)
{
	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(C.pages_given, 8 + 32 + 16);
	assert_int_equal(CNT("pages_given"), 56);
	assert_int_equal(CNT("pages_held"), 56);
	assert_int_equal(mtc_teardown(&C), 0);
	assert_int_equal(C.pages_returned, 56);
	assert_int_equal(C.npages, 0);
	assert_int_equal(CNT("pages_returned"), 56);
	assert_int_equal(CNT("pages_held"), 0);
	assert_int_equal(CNT("pages_leaked"), 0);
	/* A second life of the function, the returned pages reused. */
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(mtc_teardown(&C), 0);
	assert_int_equal(CNT("pages_given"), 112);
	assert_int_equal(CNT("pages_returned"), 112);
}

static void test_pages_leaked_at_disable(void **state)
{
	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_TEARDOWN_HCA, 0, 0, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_DISABLE_HCA, 0, 0, 0, NULL), 0);
	assert_int_equal(CNT("pages_leaked"), 56);
}

static void give_raw(const uint64_t *addrs, unsigned n, int want)
{
	uint8_t in[16 + 8 * 8] = { 0 };

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_GIVE);
	ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	for (unsigned i = 0; i < n && i < 8; i++)
		zn_mlx5_st_be64(in + 16 + 8 * i, addrs[i]);
	assert_int_equal(mtc_cmd(&C, in, 16 + 8 * (n < 8 ? n : 8), NULL, 0, NULL), want);
}

static void test_manage_pages_errors(void **state)
{
	uint8_t *p = NULL;
	uint64_t a, held;
	uint32_t got;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL), 0);
	p = mtc_alloc(&C, 3 * 4096, 4096);
	a = mtc_iova(&C, p);
	{
		uint64_t zero[2] = { a, 0 }, unal[2] = { a, a + 4096 + 8 }, dup[3] = { a, a + 4096, a };
		uint64_t unmapped[1] = { 0x7ff000000000ull };

		give_raw(zero, 2, ST(BAD_PARAM_ERR));
		give_raw(unal, 2, ST(BAD_PARAM_ERR));
		give_raw(dup, 3, ST(BAD_PARAM_ERR));
		give_raw(unmapped, 1, ST(BAD_PARAM_ERR));
		give_raw(zero, 0, ST(BAD_PARAM_ERR));
	}
	/* None of the lists was taken, even in part. */
	assert_int_equal(CNT("pages_held"), 0);
	{
		uint8_t in[16] = { 0 };

		/* input_num_entries beyond the input */
		ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_MANAGE_PAGES);
		ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_GIVE);
		ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 4);
		assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, NULL), ST(BAD_INP_LEN_ERR));
		ZN_MLX5_SET(in, IN_OP_MOD, 7);
		assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, NULL), ST(BAD_OP_ERR));
		ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_TAKE);
		ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 0);
		assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, NULL), ST(BAD_PARAM_ERR));
		ZN_MLX5_SET(in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 4);
		assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, NULL), ST(BAD_OUTP_LEN_ERR));
		ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_CANT_GIVE);
		assert_int_equal(mtc_cmd(&C, in, 16, NULL, 0, NULL), 0);
	}
	/* Before teardown the device keeps what it asked for. */
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_QUERY_ISSI, 0, 0, 0, NULL),
			 ST(BAD_OUTP_LEN_ERR));
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_SET_ISSI, 0, 1, 0, NULL), 0);
	assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_BOOT), 0);
	held = CNT("pages_held");
	assert_int_equal(held, 8);
	assert_int_equal(mtc_take_pages(&C, 8, &got), 0);
	assert_int_equal(got, 0);
	/* The page data the driver had is gone (firmware owns the page). */
	memset(p, 0xaa, 4096);
	{
		uint64_t one[1] = { a };

		give_raw(one, 1, 0);
		mtc_sleep_ms(5);
		assert_int_equal(p[100], 0);
	}
}

static void test_refuse_without_pages(void **state)
{
	uint32_t uar, pd, td, synd;
	struct mtc_eq eq;
	struct zn_mlx5_eqe e;
	uint8_t in[16] = { 0 }, out[16];
	int rc;

	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ENABLE_HCA, 0, 0, 0, NULL), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_SET_ISSI, 0, 1, 0, NULL), 0);
	assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_BOOT), 0);
	assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_INIT), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_INIT_HCA, 0, 0, 0, NULL), 0);
	/* No regular pages: objects with a context are refused. */
	assert_int_equal(mtc_alloc_uar(&C, &uar), 0);
	assert_int_equal(mtc_alloc_pd(&C, &pd), 0);
	assert_int_equal(mtc_alloc_td(&C, &td), 0);
	rc = mtc_create_eq(&C, &eq, uar, 4, 1ull << ZN_MLX5_EVENT_PAGE_REQUEST);
	assert_int_equal(rc, ST(NO_RES_ERR));
	assert_int_equal(CNT("no_page_refusals"), 1);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_PAGES);
	ZN_MLX5_SET(in, IN_OP_MOD, ZN_MLX5_PAGES_REGULAR);
	assert_int_equal(mtc_cmd(&C, in, 16, out, 16, &synd), 0);
	assert_int_equal((int32_t)ZN_MLX5_GET(out, QUERY_PAGES_OUT_NUM_PAGES), 16);
	/* One page is 16 contexts; give one and the EQ fits. */
	assert_int_equal(mtc_give_pages(&C, 1), 0);
	assert_int_equal(mtc_create_eq(&C, &eq, uar, 4, 1ull << ZN_MLX5_EVENT_PAGE_REQUEST), 0);
	/* The EQ's context is in the page: its first bytes are the eqc. */
	assert_int_equal(CNT("ctx_writes"), 1);
	/* Filling the page: below 4 free contexts the device asks for more. */
	for (int i = 0; i < 12; i++) {
		struct mtc_cq cq;

		assert_int_equal(mtc_create_cq(&C, &cq, uar, eq.eqn, 2), 0);
	}
	assert_true(mtc_eq_wait(&C, &eq, &e, 500));
	assert_int_equal(e.type, ZN_MLX5_EVENT_PAGE_REQUEST);
	assert_int_equal(zn_mlx5_bswap16(e.data.req_pages.func_id_be), 0);
	assert_true((int32_t)zn_mlx5_bswap32(e.data.req_pages.num_pages_be) > 0);
	assert_true(CNT("page_requests") >= 1);
	{
		struct mtc_cq cq;

		for (int i = 0; i < 3; i++)
			assert_int_equal(mtc_create_cq(&C, &cq, uar, eq.eqn, 2), 0);
		assert_int_equal(mtc_create_cq(&C, &cq, uar, eq.eqn, 2), ST(NO_RES_ERR));
		assert_int_equal(mtc_supply_pages(&C, ZN_MLX5_PAGES_REGULAR), 0);
		assert_int_equal(mtc_create_cq(&C, &cq, uar, eq.eqn, 2), 0);
	}
	assert_int_equal(mtc_teardown(&C), 0);
	assert_int_equal(CNT("pages_given"), CNT("pages_returned"));
	assert_int_equal(C.pages_given, C.pages_returned);
}

static void test_reset_and_disconnect(void **state)
{
	(void)state;
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(zn_bus_reset(C.bus), 0);
	/* The queue address is gone until programmed again. */
	assert_int_equal(iseg(ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ) & 0xfffff000u, 0);
	assert_int_equal(CNT("pages_lost_reset"), 56);
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_simple(&C, ZN_MLX5_CMD_OP_ALLOC_PD, 0, 0, 0, NULL),
			 ST(BAD_SYS_STATE_ERR));
	assert_int_equal(mtc_bringup(&C), 0);
	mtc_close(&C);
	assert_int_equal(mtc_open(&C, S.path[0]), 0);
	assert_int_equal(mtc_boot(&C), 0);
	assert_int_equal(mtc_bringup(&C), 0);
	assert_int_equal(mtc_teardown(&C), 0);
	assert_int_equal(CNT("pages_lost_reset"), 112);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pci_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pci_identity_cx7, setup_cx7, teardown),
		cmocka_unit_test_setup_teardown(test_boot_handshake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fatal_syndrome, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fatal_option, setup_fatal_opt, teardown),
		cmocka_unit_test_setup_teardown(test_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lengths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delivery_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_owned_and_slots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_completion_eqe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eq_overrun_is_fatal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_accounting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pages_leaked_at_disable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manage_pages_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_without_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_and_disconnect, setup, teardown),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
