/*
 * sim/bnxt: the HWRM channel and the firmware commands of the bnxt model,
 * driven through the real vfio-user client (zn_bus_open) with requests built
 * by hand from drivers/bnxt/bnxt_hw.h: every command's happy path and its
 * errors (hw-docs/bnxt.md 3, 4, 14).
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim/bnxt/bnxt_sim.h"
#include "tests/unit/support/bnxt_test_client.h"

static struct btc_sim S;
static struct btc C;

#define CNT(key) btc_counter(&S, 0, key)

static int start(const char *opts)
{
	if (btc_sim_start(&S, opts, NULL, false))
		return -1;
	return btc_open(&C, S.path[0]) ? -1 : 0;
}

static int setup(void **state)
{
	(void)state;
	return start("");
}

static int setup_nomdb(void **state)
{
	(void)state;
	return start(",multidb=0");
}

static int teardown(void **state)
{
	(void)state;
	btc_close(&C);
	btc_sim_stop(&S);
	return 0;
}

/* A request struct of a command, header filled in by btc_hwrm. */
#define REQ(type, var, cmd) type var = { .hdr.req_type = (cmd) }

static int plain(uint16_t cmd)
{
	struct bnxt_hwrm_hdr_only_input in = { .hdr.req_type = cmd };
	uint8_t pad[24] = { 0 };

	memcpy(pad, &in, sizeof(in));
	return btc_hwrm(&C, pad, sizeof(pad), NULL, 0);
}

/* ---- PCI identity ---- */

static void test_pci_identity(void **state)
{
	uint16_t v16 = 0;
	uint32_t v32 = 0, dsn_lo = 0, dsn_hi = 0;
	uint8_t cfg[256];
	unsigned cap, msix = 0, exp = 0;
	struct zn_region_info ri;
	REQ(struct bnxt_hwrm_func_qcaps_input, qc, BNXT_HWRM_FUNC_QCAPS);
	struct bnxt_hwrm_func_qcaps_output_long caps;

	(void)state;
	assert_int_equal(zn_bus_cfg_read16(C.bus, 0, &v16), 0);
	assert_int_equal(v16, BNXT_PCI_VENDOR_BROADCOM);
	assert_int_equal(zn_bus_cfg_read16(C.bus, 2, &v16), 0);
	assert_int_equal(v16, BNXT_DEV_57508);
	assert_true(bnxt_dev_is_p5(v16));
	assert_int_equal(zn_bus_cfg_read(C.bus, 0, cfg, sizeof(cfg)), 0);
	assert_int_equal(cfg[0x0b], 0x02);	/* network controller */
	for (cap = cfg[0x34]; cap; cap = cfg[cap + 1]) {
		if (cfg[cap] == 0x11)
			msix = cap;
		if (cfg[cap] == 0x10)
			exp = cap;
	}
	assert_true(msix && exp);
	/* MSI-X: 64 vectors, table BAR4 + 0, PBA BAR4 + 0x1000 */
	assert_int_equal((cfg[msix + 2] | cfg[msix + 3] << 8) & 0x7ff, BNXT_MODEL_MSIX_VECTORS - 1);
	assert_int_equal(zn_bus_cfg_read32(C.bus, msix + 4, &v32), 0);
	assert_int_equal(v32, BNXT_MODEL_MSIX_TABLE_OFF | BNXT_MODEL_MSIX_BAR);
	assert_int_equal(zn_bus_cfg_read32(C.bus, msix + 8, &v32), 0);
	assert_int_equal(v32, BNXT_MODEL_MSIX_PBA_OFF | BNXT_MODEL_MSIX_BAR);
	/* Device Serial Number extended capability, repeated by FUNC_QCAPS */
	assert_int_equal(zn_bus_cfg_read32(C.bus, 0x100, &v32), 0);
	assert_int_equal(v32 & 0xffff, BNXT_PCI_EXT_CAP_ID_DSN);
	assert_int_equal(zn_bus_cfg_read32(C.bus, 0x104, &dsn_lo), 0);
	assert_int_equal(zn_bus_cfg_read32(C.bus, 0x108, &dsn_hi), 0);
	assert_int_equal(btc_hwrm(&C, &qc, sizeof(qc), &caps, sizeof(caps)), 0);
	assert_memory_equal(caps.device_serial_number, &dsn_lo, 4);
	assert_memory_equal(caps.device_serial_number + 4, &dsn_hi, 4);
	/* BARs: 64 KiB registers (all mapped, the HWRM trigger polled: DPDK's
	 * PMD stores to them), doorbells with the DPI pages mapped, BAR4 with
	 * MSI-X */
	assert_int_equal(C.bus->ops->get_region_info(C.bus, 0, &ri), 0);
	assert_int_equal(ri.size, 0x10000);
	assert_true(ri.flags & ZN_REGION_F_MMAP);
	assert_int_equal(ri.nr_sparse, 1);
	assert_int_equal(ri.sparse[0].offset, 0);
	assert_int_equal(ri.sparse[0].size, 0x10000);
	assert_int_equal(C.bus->ops->get_region_info(C.bus, 2, &ri), 0);
	assert_int_equal(ri.size, 512 * 1024);
	assert_true(ri.flags & ZN_REGION_F_MMAP);
	assert_int_equal(ri.nr_sparse, 1);
	assert_int_equal(ri.sparse[0].offset, 0x11000);
	assert_int_equal(ri.sparse[0].size, 64 * 4096);
	assert_int_equal(C.bus->ops->get_region_info(C.bus, 4, &ri), 0);
	assert_int_equal(ri.size, BNXT_MODEL_BAR4_SIZE);
	assert_int_equal(zn_bus_cfg_read32(C.bus, 0x10, &v32), 0);
	assert_int_equal(v32 & 0x6, 0x4);	/* 64-bit BARs */
}

/* ---- VER_GET and the channel ---- */

static void test_ver_get(void **state)
{
	REQ(struct bnxt_hwrm_ver_get_input, in, BNXT_HWRM_VER_GET);
	struct bnxt_hwrm_ver_get_output o;

	(void)state;
	in.hwrm_intf_maj = 1;
	in.hwrm_intf_min = 10;
	in.hwrm_intf_upd = 3;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
	assert_int_equal(C.resp_len, sizeof(o));
	assert_int_equal(o.hdr.resp_len, 176);
	assert_int_equal(o.hdr.req_type, BNXT_HWRM_VER_GET);
	assert_int_equal(o.hdr.seq_id, in.hdr.seq_id);
	assert_int_equal(o.valid, BNXT_HWRM_RESP_VALID_KEY);
	assert_int_equal(o.hwrm_intf_maj_8b, 1);
	assert_int_equal(o.hwrm_intf_min_8b, 10);
	assert_int_equal(o.hwrm_intf_upd_8b, 3);
	assert_int_equal(o.hwrm_intf_major, 1);
	assert_int_equal(o.chip_num, BNXT_CHIP_NUM_57508);
	assert_true(bnxt_chip_num_is_p5(o.chip_num));
	assert_int_equal(o.max_req_win_len, 128);
	assert_int_equal(o.max_resp_len, 704);
	assert_true(o.max_ext_req_len >= 336);
	assert_true(o.dev_caps_cfg & BNXT_VER_GET_DEV_CAPS_SHORT_CMD_SUPPORTED);
	assert_false(o.dev_caps_cfg & BNXT_VER_GET_DEV_CAPS_SHORT_CMD_REQUIRED);
	assert_true(o.def_req_timeout > 0);
	assert_int_equal(o.always_1, 1);
	assert_false(o.flags & BNXT_VER_GET_FLAGS_DEV_NOT_RDY);
	/* until the context memory is given */
	assert_true(o.flags & BNXT_VER_GET_FLAGS_DEV_NOT_RDY_BACKING_STORE);
	assert_int_equal(btc_backing_store(&C), 0);
	memset(&in.hdr, 0, sizeof(in.hdr));
	in.hdr.req_type = BNXT_HWRM_VER_GET;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
	assert_false(o.flags & BNXT_VER_GET_FLAGS_DEV_NOT_RDY_BACKING_STORE);
	assert_int_equal(CNT("hwrm_errors"), 0);
}

/* The window written with 32-bit stores, as drivers do; each response echoes
 * its own seq_id and req_type. */
static void test_window32_seq_echo(void **state)
{
	REQ(struct bnxt_hwrm_func_qcfg_input, in, BNXT_HWRM_FUNC_QCFG);
	struct bnxt_hwrm_func_qcfg_output o;

	(void)state;
	C.window32 = true;
	C.seq = 0x7ffe;
	for (int i = 0; i < 4; i++) {
		memset(&in.hdr, 0, sizeof(in.hdr));
		in.hdr.req_type = BNXT_HWRM_FUNC_QCFG;
		in.fid = BNXT_FID_SELF;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
		assert_int_equal(o.hdr.seq_id, (uint16_t)(0x7fff + i));
		assert_int_equal(o.hdr.req_type, BNXT_HWRM_FUNC_QCFG);
	}
	assert_int_equal(CNT("hwrm_cmds"), 4);
}

static void test_unknown_commands(void **state)
{
	struct bnxt_hwrm_err_output e;
	uint8_t req[24] = { 0 };
	struct bnxt_hwrm_req_hdr *h = (void *)req;

	(void)state;
	h->req_type = 0x1234;
	assert_int_equal(btc_hwrm(&C, req, sizeof(req), &e, sizeof(e)), BNXT_HWRM_ERR_CMD_NOT_SUPPORTED);
	assert_int_equal(C.resp_len, 16);
	assert_int_equal(e.hdr.resp_len, 16);
	assert_int_equal(e.hdr.req_type, 0x1234);
	assert_int_equal(e.hdr.seq_id, h->seq_id);
	assert_int_equal(e.valid, 1);
	/* pre-P5 ring groups are not P5 commands */
	assert_int_equal(plain(BNXT_HWRM_RING_GRP_ALLOC), BNXT_HWRM_ERR_CMD_NOT_SUPPORTED);
	assert_int_equal(CNT("hwrm_unsupported"), 2);
	assert_int_equal(CNT("hwrm_errors"), 2);
}

static void test_bad_header_fields(void **state)
{
	REQ(struct bnxt_hwrm_func_qcfg_input, in, BNXT_HWRM_FUNC_QCFG);

	(void)state;
	in.hdr.target_id = 0x0003;	/* a VF: not ours to address */
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	memset(&in.hdr, 0, sizeof(in.hdr));
	in.hdr.req_type = BNXT_HWRM_FUNC_QCFG;
	in.hdr.cmpl_ring = 7;		/* no such ring */
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	memset(&in.hdr, 0, sizeof(in.hdr));
	in.hdr.req_type = BNXT_HWRM_FUNC_QCFG;
	in.fid = 5;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
}

/* A response that cannot be delivered is not: the driver times out, the
 * model counts it and keeps working. */
static void test_resp_addr_unmapped(void **state)
{
	REQ(struct bnxt_hwrm_func_qcfg_input, in, BNXT_HWRM_FUNC_QCFG);

	(void)state;
	in.fid = BNXT_FID_SELF;
	in.hdr.seq_id = 1;
	in.hdr.target_id = BNXT_HWRM_TARGET_ID_HWRM;
	in.hdr.cmpl_ring = BNXT_HWRM_CMPL_RING_NONE;
	/* nothing mapped there; unaligned; the last byte past the end of the
	 * window. One at a time, as a driver's timeout would space them. */
	/* Counters live as long as the device: count from what earlier tests left. */
	uint64_t base = CNT("hwrm_no_response");

	for (int i = 0; i < 3; i++) {
		int64_t end = btc_now_ms() + BTC_TIMEOUT_MS;

		in.hdr.resp_addr = i == 0 ? 0x10000 : i == 1 ? btc_iova(&C, C.resp) + 8 :
							  C.mem->iova + C.mem->len - 96;
		assert_int_equal(btc_hwrm_raw(&C, &in, sizeof(in), false), 0);
		while (CNT("hwrm_no_response") < base + 1u + i && btc_now_ms() < end)
			btc_sleep_ms(1);
	}
	assert_int_equal(CNT("hwrm_no_response") - base, 3);
	assert_true(zn_vfu_dev_dma_windows(S.dev[0]->dev) == 1);
	/* nothing was written where a response could have gone */
	assert_int_equal(((uint8_t *)C.mem->va)[C.mem->len - 96], 0);
	/* and the channel still works */
	memset(&in.hdr, 0, sizeof(in.hdr));
	in.hdr.req_type = BNXT_HWRM_FUNC_QCFG;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), 0);
}

static void test_bad_trigger(void **state)
{
	int64_t end;

	(void)state;
	assert_int_equal(zn_bus_write32(C.bus, 0, BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER, 2), 0);
	assert_int_equal(zn_bus_write32(C.bus, 0, BNXT_GRCPF_REG_KONG_COMM_TRIGGER, 1), 0);
	/* BAR0 is mapped: the trigger is seen at the next poll, and a store
	 * elsewhere (the Kong trigger) is plain memory, no longer counted */
	end = btc_now_ms() + BTC_TIMEOUT_MS;
	while (CNT("hwrm_bad_trigger") < 1 && btc_now_ms() < end)
		btc_sleep_ms(1);
	assert_int_equal(CNT("hwrm_bad_trigger"), 1);
	assert_int_equal(CNT("bar0_ignored"), 0);
	assert_int_equal(CNT("hwrm_cmds"), 0);
}

/* valid_delay_ms: the body is in memory while the valid byte is not yet,
 * which is what a driver must wait for. */
static void test_valid_byte_last(void **state)
{
	REQ(struct bnxt_hwrm_func_qcfg_input, in, BNXT_HWRM_FUNC_QCFG);
	const struct bnxt_hwrm_resp_hdr *h = (const void *)C.resp;
	int64_t t0, end;

	(void)state;
	in.fid = BNXT_FID_SELF;
	in.hdr.seq_id = 0x55;
	in.hdr.target_id = BNXT_HWRM_TARGET_ID_HWRM;
	in.hdr.cmpl_ring = BNXT_HWRM_CMPL_RING_NONE;
	in.hdr.resp_addr = btc_iova(&C, C.resp);
	t0 = btc_now_ms();
	assert_int_equal(btc_hwrm_raw(&C, &in, sizeof(in), false), 0);
	end = t0 + BTC_TIMEOUT_MS;
	while (!__atomic_load_n(&h->resp_len, __ATOMIC_ACQUIRE) && btc_now_ms() < end)
		btc_sleep_ms(1);
	assert_int_equal(h->resp_len, 176);
	assert_int_equal(h->seq_id, 0x55);
	assert_int_equal(C.resp[175], 0);		/* not valid yet */
	while (!__atomic_load_n(&C.resp[175], __ATOMIC_ACQUIRE) && btc_now_ms() < end)
		btc_sleep_ms(1);
	assert_int_equal(C.resp[175], 1);
	assert_true(btc_now_ms() - t0 >= 400);
}

/* ---- short commands ---- */

static void test_short_commands(void **state)
{
	REQ(struct bnxt_hwrm_func_qcaps_input, qc, BNXT_HWRM_FUNC_QCAPS);
	struct bnxt_hwrm_func_qcaps_output_long caps;
	struct bnxt_hwrm_short_input si = { .signature = BNXT_HWRM_SHORT_SIGNATURE };
	struct bnxt_hwrm_req_hdr *full = (void *)C.req;
	uint8_t win[16];

	(void)state;
	/* a small command by short command works the same */
	C.force_short = true;
	qc.fid = BNXT_FID_SELF;
	assert_int_equal(btc_hwrm(&C, &qc, sizeof(qc), &caps, sizeof(caps)), 0);
	assert_int_equal(caps.hdr.seq_id, qc.hdr.seq_id);
	assert_int_equal(CNT("hwrm_short_cmds"), 1);
	C.force_short = false;

	/* req_type of the short header differs from the request's */
	memset(C.req, 0, 64);
	full->req_type = BNXT_HWRM_FUNC_QCAPS;
	full->seq_id = 0x99;
	full->target_id = BNXT_HWRM_TARGET_ID_HWRM;
	full->cmpl_ring = BNXT_HWRM_CMPL_RING_NONE;
	full->resp_addr = btc_iova(&C, C.resp);
	si.req_type = BNXT_HWRM_FUNC_QCFG;
	si.size = sizeof(qc);
	si.req_addr = btc_iova(&C, C.req);
	memcpy(win, &si, sizeof(si));
	assert_int_equal(btc_hwrm_raw(&C, win, sizeof(win), false), 0);
	{
		const struct bnxt_hwrm_resp_hdr *h = (const void *)C.resp;
		int64_t end = btc_now_ms() + BTC_TIMEOUT_MS;

		while (!__atomic_load_n(&C.resp[15], __ATOMIC_ACQUIRE) && btc_now_ms() < end)
			btc_sleep_ms(1);
		assert_int_equal(h->error_code, BNXT_HWRM_ERR_INVALID_PARAMS);
		assert_int_equal(h->seq_id, 0x99);
	}
	/* size beyond max_ext_req_len, unaligned and unmapped req_addr: no
	 * response at all (the request, with its resp_addr, cannot be read) */
	for (int i = 0; i < 3; i++) {
		int64_t end = btc_now_ms() + BTC_TIMEOUT_MS;

		si.req_type = BNXT_HWRM_FUNC_QCAPS;
		si.size = i == 0 ? 4096 : sizeof(qc);
		si.req_addr = i == 1 ? btc_iova(&C, C.req) + 4 : i == 2 ? 0x20000 :
								      btc_iova(&C, C.req);
		memcpy(win, &si, sizeof(si));
		assert_int_equal(btc_hwrm_raw(&C, win, sizeof(win), false), 0);
		/* one at a time, as a driver's timeout would space them */
		while (CNT("hwrm_bad_short") < 2u + i && btc_now_ms() < end)
			btc_sleep_ms(1);
	}
	assert_int_equal(CNT("hwrm_bad_short"), 4);
	assert_int_equal(C.resp[15], 0);
	/* the channel still works */
	memset(&qc.hdr, 0, sizeof(qc.hdr));
	qc.hdr.req_type = BNXT_HWRM_FUNC_QCAPS;
	assert_int_equal(btc_hwrm(&C, &qc, sizeof(qc), NULL, 0), 0);
}

/* ---- backing store ---- */

static void test_busy_before_backing_store(void **state)
{
	struct btc_ring nq;
	struct btc_ring_opts o = { .stat_ctx = -1 };
	uint32_t sid;

	(void)state;
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), BNXT_HWRM_ERR_BUSY);
	assert_int_equal(btc_stat_alloc(&C, &sid, NULL), BNXT_HWRM_ERR_BUSY);
	assert_int_equal(plain(BNXT_HWRM_VNIC_ALLOC), BNXT_HWRM_ERR_BUSY);
	assert_int_equal(plain(BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC), BNXT_HWRM_ERR_BUSY);
	assert_int_equal(btc_backing_store(&C), 0);
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	assert_int_equal(btc_stat_alloc(&C, &sid, NULL), 0);
	assert_int_equal(plain(BNXT_HWRM_VNIC_ALLOC), 0);
	/* the context memory cannot be reconfigured under live rings */
	assert_int_equal(btc_backing_store(&C), BNXT_HWRM_ERR_INVALID_PARAMS);
}

static int bs_send(struct bnxt_hwrm_func_backing_store_cfg_input *in, size_t len)
{
	memset(&in->hdr, 0, sizeof(in->hdr));
	in->hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_CFG;
	return btc_hwrm(&C, in, len, NULL, 0);
}

static void test_backing_store_checks(void **state)
{
	struct bnxt_hwrm_func_backing_store_cfg_input good, in;
	struct bnxt_hwrm_func_backing_store_qcaps_output q;
	struct bnxt_hwrm_hdr_only_input qi = { .hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_QCAPS };
	uint8_t pad[24] = { 0 };

	(void)state;
	memcpy(pad, &qi, sizeof(qi));
	assert_int_equal(btc_hwrm(&C, pad, sizeof(pad), &q, sizeof(q)), 0);
	assert_int_equal(C.resp_len, sizeof(q));
	assert_true(q.qp_max_l2_entries && q.qp_entry_size && q.srq_entry_size && q.cq_entry_size &&
		    q.vnic_entry_size && q.stat_entry_size && q.tqm_entry_size &&
		    q.tqm_fp_rings_count >= 1 && q.tqm_fp_rings_count <= 8);
	/* a valid configuration, captured from the client's own builder */
	assert_int_equal(btc_backing_store(&C), 0);
	memcpy(&good, C.req, sizeof(good));
	assert_int_equal(good.hdr.req_type, BNXT_HWRM_FUNC_BACKING_STORE_CFG);
	assert_int_equal(plain(BNXT_HWRM_FUNC_DRV_UNRGTR), 0);	/* context memory released */

	in = good;
	in.enables &= ~BNXT_BS_CFG_ENABLES_STAT;
	assert_int_equal(bs_send(&in, sizeof(in)), BNXT_HWRM_ERR_INVALID_ENABLES);
	in = good;
	in.enables |= BNXT_BS_CFG_ENABLES_TQM_RING8;
	assert_int_equal(bs_send(&in, sizeof(in)), BNXT_HWRM_ERR_INVALID_ENABLES);
	in = good;
	in.cq_entry_size += 16;
	assert_int_equal(bs_send(&in, sizeof(in)), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.stat_num_entries = 100000;
	assert_int_equal(bs_send(&in, sizeof(in)), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.qpc_page_dir = 0x40000;		/* not mapped */
	assert_int_equal(bs_send(&in, sizeof(in)), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.srq_pg_size_lvl = BNXT_BS_LVL_2;
	assert_int_equal(bs_send(&in, sizeof(in)), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* a level-1 type whose PTE lacks VALID */
	in = good;
	for (int i = 0; i < 5; i++) {
		uint8_t *lvl = &in.qpc_pg_size_lvl + i;
		uint64_t *dir = &in.qpc_page_dir + i;

		if ((*lvl & BNXT_BS_LVL_MASK) == BNXT_BS_LVL_1) {
			uint64_t *pte = (uint64_t *)((uint8_t *)C.mem->va + (*dir - C.mem->iova));

			pte[0] &= ~BNXT_PTU_PTE_VALID;
			assert_int_equal(bs_send(&in, sizeof(in)), BNXT_HWRM_ERR_INVALID_PARAMS);
			pte[0] |= BNXT_PTU_PTE_VALID;
			break;
		}
	}
	/* through the 128-byte window the fields past it read as zero */
	C.force_short = false;
	in = good;
	memset(&in.hdr, 0, sizeof(in.hdr));
	in.hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_CFG;
	in.hdr.seq_id = ++C.seq;
	in.hdr.target_id = BNXT_HWRM_TARGET_ID_HWRM;
	in.hdr.cmpl_ring = BNXT_HWRM_CMPL_RING_NONE;
	in.hdr.resp_addr = btc_iova(&C, C.resp);
	assert_int_equal(btc_hwrm_raw(&C, &in, sizeof(in), true), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_true(CNT("hwrm_short_cmds") >= 1);
	/* DPDK's legacy 256-byte request by short command is whole enough */
	in = good;
	assert_int_equal(bs_send(&in, BNXT_BS_CFG_LEGACY_LEN), 0);
	{
		struct btc_ring nq;
		struct btc_ring_opts o = { .stat_ctx = -1 };

		assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	}
}

/* ---- FUNC_* ---- */

static void test_func_qcaps_qcfg(void **state)
{
	REQ(struct bnxt_hwrm_func_qcaps_input, qc, BNXT_HWRM_FUNC_QCAPS);
	REQ(struct bnxt_hwrm_func_qcfg_input, qf, BNXT_HWRM_FUNC_QCFG);
	struct bnxt_hwrm_func_qcaps_output_long caps;
	struct bnxt_hwrm_func_qcfg_output_long cfg;

	(void)state;
	qc.fid = BNXT_FID_SELF;
	assert_int_equal(btc_hwrm(&C, &qc, sizeof(qc), &caps, sizeof(caps)), 0);
	assert_int_equal(C.resp_len, 144);
	caps.hdr.resp_len = C.resp_len;
	assert_true(bnxt_qcaps_multi_l2_db(&caps));
	assert_int_equal(caps.max_tx_rings, 8);
	assert_int_equal(caps.max_rx_rings, 16);
	assert_true(caps.max_cmpl_rings >= 16 && caps.max_vnics >= 9 && caps.max_stat_ctx >= 17 &&
		    caps.max_rsscos_ctx >= 8 && caps.max_l2_ctxs >= 1);
	assert_int_equal(caps.mac_address[0], 0x02);
	qf.fid = BNXT_FID_SELF;
	assert_int_equal(btc_hwrm(&C, &qf, sizeof(qf), &cfg, sizeof(cfg)), 0);
	assert_int_equal(C.resp_len, 176);
	assert_true(BNXT_RESP_HAS(C.resp_len, bnxt_hwrm_func_qcfg_output_long,
				  l2_db_multi_page_size_kb));
	assert_int_equal(cfg.l2_db_multi_page_size_kb, 256);
	assert_int_equal(cfg.db_page_size, 0);
	assert_int_equal(cfg.l2_doorbell_bar_size_kb, 324);
	assert_int_equal(cfg.always_1, 1);
	assert_memory_equal(cfg.mac_address, caps.mac_address, 6);
	assert_int_equal(cfg.admin_mtu, 9000);
	assert_int_equal(cfg.dflt_vnic_id, 0xffff);
}

static void test_func_qcaps_qcfg_legacy_db(void **state)
{
	REQ(struct bnxt_hwrm_func_qcaps_input, qc, BNXT_HWRM_FUNC_QCAPS);
	REQ(struct bnxt_hwrm_func_qcfg_input, qf, BNXT_HWRM_FUNC_QCFG);
	struct bnxt_hwrm_func_qcaps_output_long caps;
	struct bnxt_hwrm_func_qcfg_output_long cfg;
	struct zn_region_info ri;

	(void)state;
	assert_int_equal(btc_hwrm(&C, &qc, sizeof(qc), &caps, sizeof(caps)), 0);
	assert_int_equal(C.resp_len, 136);		/* older firmware's layout */
	caps.hdr.resp_len = C.resp_len;
	assert_false(bnxt_qcaps_multi_l2_db(&caps));
	assert_int_equal(btc_hwrm(&C, &qf, sizeof(qf), &cfg, sizeof(cfg)), 0);
	assert_int_equal(C.resp_len, 160);
	assert_false(BNXT_RESP_HAS(C.resp_len, bnxt_hwrm_func_qcfg_output_long,
				   l2_db_multi_page_size_kb));
	assert_int_equal(cfg.l2_doorbell_bar_size_kb, 68);
	assert_int_equal(C.bus->ops->get_region_info(C.bus, 2, &ri), 0);
	assert_false(ri.flags & ZN_REGION_F_MMAP);	/* nothing to poll: all trapped */
	/* DPI_VALID without the capability */
	assert_int_equal(btc_bringup(&C), 0);
	assert_false(C.multidb);
	{
		struct bnxt_hwrm_ring_alloc_input_long in = { .base.hdr.req_type = BNXT_HWRM_RING_ALLOC };
		uint8_t *mem = btc_alloc(&C, 4096, 4096);

		in.base.enables = BNXT_RING_ALLOC_ENABLES_DPI_VALID;
		in.base.ring_type = BNXT_RING_TYPE_NQ;
		in.base.page_tbl_addr = btc_iova(&C, mem);
		in.base.page_size = 12;
		in.base.length = 64;
		in.base.int_mode = BNXT_RING_ALLOC_INT_MODE_MSIX;
		in.dpi = 17;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0),
				 BNXT_HWRM_ERR_INVALID_ENABLES);
	}
}

static void test_func_cfg(void **state)
{
	REQ(struct bnxt_hwrm_func_cfg_input, in, BNXT_HWRM_FUNC_CFG);
	REQ(struct bnxt_hwrm_func_qcfg_input, qf, BNXT_HWRM_FUNC_QCFG);
	struct bnxt_hwrm_func_qcfg_output_long cfg;
	struct btc_ring nq, nq2, cq;
	struct btc_ring_opts o = { .stat_ctx = -1 };

	(void)state;
	assert_int_equal(btc_bringup(&C), 0);
	/* FUNC_CFG is 160 bytes: a short command */
	in.fid = BNXT_FID_SELF;
	in.enables = BNXT_FUNC_CFG_ENABLES_NUM_TX_RINGS | BNXT_FUNC_CFG_ENABLES_NUM_RX_RINGS |
		     BNXT_FUNC_CFG_ENABLES_NUM_CMPL_RINGS | BNXT_FUNC_CFG_ENABLES_NUM_STAT_CTXS |
		     BNXT_FUNC_CFG_ENABLES_NUM_VNICS | BNXT_FUNC_CFG_ENABLES_NUM_RSSCOS_CTXS |
		     BNXT_FUNC_CFG_ENABLES_NUM_L2_CTXS | BNXT_FUNC_CFG_ENABLES_NUM_MSIX;
	in.num_tx_rings = 1;
	in.num_rx_rings = 2;
	in.num_cmpl_rings = 2;
	in.num_stat_ctxs = 2;
	in.num_vnics = 1;
	in.num_rsscos_ctxs = 1;
	in.num_l2_ctxs = 1;
	in.num_msix = 1;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), 0);
	assert_true(CNT("hwrm_short_cmds") >= 2);	/* BS_CFG and this */
	qf.fid = BNXT_FID_SELF;
	assert_int_equal(btc_hwrm(&C, &qf, sizeof(qf), &cfg, sizeof(cfg)), 0);
	assert_int_equal(cfg.alloc_tx_rings, 1);
	assert_int_equal(cfg.alloc_rx_rings, 2);
	assert_int_equal(cfg.alloc_cmpl_rings, 2);
	assert_int_equal(cfg.alloc_msix, 1);
	/* reservations bound allocation: one NQ reserved */
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	assert_int_equal(btc_ring_alloc(&C, &nq2, BNXT_RING_TYPE_NQ, 64, &o),
			 BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR);
	/* the async event ring: a CQ or NQ */
	memset(&in, 0, sizeof(in));
	in.hdr.req_type = BNXT_HWRM_FUNC_CFG;
	in.fid = BNXT_FID_SELF;
	in.enables = BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR;
	in.async_event_cr = nq.id;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), 0);
	o.nq_id = nq.id;
	assert_int_equal(btc_ring_alloc(&C, &cq, BNXT_RING_TYPE_L2_CMPL, 64, &o), 0);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_CFG };
	in.async_event_cr = 0x99;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* errors */
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_CFG };
	in.enables = 0x400;		/* not one the model knows */
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_ENABLES);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_CFG };
	in.enables = BNXT_FUNC_CFG_ENABLES_NUM_TX_RINGS;
	in.num_tx_rings = 100;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_CFG };
	in.enables = BNXT_FUNC_CFG_ENABLES_NUM_CMPL_RINGS;
	in.num_cmpl_rings = 0;		/* one is allocated */
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_CFG };
	in.enables = BNXT_FUNC_CFG_ENABLES_NUM_HW_RING_GRPS;
	in.num_hw_ring_grps = 4;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_CFG };
	in.enables = BNXT_FUNC_CFG_ENABLES_ADMIN_MTU;
	in.admin_mtu = 9600;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
}

static void test_drv_rgtr_unrgtr(void **state)
{
	REQ(struct bnxt_hwrm_func_drv_rgtr_input, rg, BNXT_HWRM_FUNC_DRV_RGTR);
	REQ(struct bnxt_hwrm_func_drv_unrgtr_input, un, BNXT_HWRM_FUNC_DRV_UNRGTR);
	struct bnxt_hwrm_func_drv_rgtr_output ro;
	struct btc_ring nq;
	struct btc_ring_opts o = { .stat_ctx = -1 };

	(void)state;
	rg.enables = 0x80;
	assert_int_equal(btc_hwrm(&C, &rg, sizeof(rg), NULL, 0), BNXT_HWRM_ERR_INVALID_ENABLES);
	rg.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_DRV_RGTR };
	rg.enables = 0;
	rg.flags = BNXT_FUNC_DRV_RGTR_FLAGS_FWD_ALL_MODE | BNXT_FUNC_DRV_RGTR_FLAGS_FWD_NONE_MODE;
	assert_int_equal(btc_hwrm(&C, &rg, sizeof(rg), NULL, 0), BNXT_HWRM_ERR_INVALID_FLAGS);
	assert_int_equal(btc_bringup(&C), 0);	/* registers */
	rg.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_DRV_RGTR };
	rg.flags = 0;
	assert_int_equal(btc_hwrm(&C, &rg, sizeof(rg), &ro, sizeof(ro)), 0);
	assert_int_equal(C.resp_len, sizeof(ro));
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	un.flags = 0x2;
	assert_int_equal(btc_hwrm(&C, &un, sizeof(un), NULL, 0), BNXT_HWRM_ERR_INVALID_FLAGS);
	un.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_DRV_UNRGTR };
	un.flags = BNXT_FUNC_DRV_UNRGTR_FLAGS_PREPARE_FOR_SHUTDOWN;
	assert_int_equal(btc_hwrm(&C, &un, sizeof(un), NULL, 0), 0);
	/* everything went, the context memory with it */
	assert_int_equal(btc_ring_free(&C, &nq, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), BNXT_HWRM_ERR_BUSY);
	/* optional FUNC_DRV_IF_CHANGE */
	{
		REQ(struct bnxt_hwrm_func_drv_if_change_input, ic, BNXT_HWRM_FUNC_DRV_IF_CHANGE);

		ic.flags = BNXT_FUNC_DRV_IF_CHANGE_FLAGS_UP;
		assert_int_equal(btc_hwrm(&C, &ic, sizeof(ic), NULL, 0), 0);
		ic.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_DRV_IF_CHANGE };
		ic.flags = 4;
		assert_int_equal(btc_hwrm(&C, &ic, sizeof(ic), NULL, 0), BNXT_HWRM_ERR_INVALID_FLAGS);
	}
}

static void test_queue_qportcfg(void **state)
{
	REQ(struct bnxt_hwrm_queue_qportcfg_input, in, BNXT_HWRM_QUEUE_QPORTCFG);
	struct bnxt_hwrm_queue_qportcfg_output o;
	bool lossy = false;

	(void)state;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
	assert_int_equal(C.resp_len, 168);
	assert_true(o.max_configurable_queues >= 1);
	for (int i = 0; i < o.max_configurable_queues; i++)
		lossy |= o.queue[i].service_profile == BNXT_QUEUE_PROFILE_LOSSY;
	assert_true(lossy);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_QUEUE_QPORTCFG };
	in.flags = 0x2;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_FLAGS);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_QUEUE_QPORTCFG };
	in.flags = 0;
	in.port_id = 1;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
}

static void test_fail_cmd_fault(void **state)
{
	REQ(struct bnxt_hwrm_func_qcaps_input, qc, BNXT_HWRM_FUNC_QCAPS);

	(void)state;
	assert_int_equal(btc_hwrm(&C, &qc, sizeof(qc), NULL, 0), BNXT_HWRM_ERR_FAIL);
	assert_int_equal(CNT("hwrm_fault_fails"), 1);
	assert_int_equal(plain(BNXT_HWRM_VER_GET), 0);
}

/* ---- rings and stat contexts ---- */

/* A RING_ALLOC request for a fresh ring of size entries, no DPI. */
static struct bnxt_hwrm_ring_alloc_input_long ring_req(uint8_t type, uint32_t size)
{
	struct bnxt_hwrm_ring_alloc_input_long in = { .base.hdr.req_type = BNXT_HWRM_RING_ALLOC };
	uint8_t *mem = btc_alloc(&C, (size_t)size * 16, 4096);

	assert_non_null(mem);
	in.base.ring_type = type;
	in.base.page_tbl_addr = btc_iova(&C, mem);
	in.base.page_size = 12;
	in.base.length = size;
	in.base.int_mode = BNXT_RING_ALLOC_INT_MODE_MSIX;
	return in;
}

static int ring_send(struct bnxt_hwrm_ring_alloc_input_long *in, uint16_t *id)
{
	struct bnxt_hwrm_ring_alloc_output o;
	int rc;

	memset(&in->base.hdr, 0, sizeof(in->base.hdr));
	in->base.hdr.req_type = BNXT_HWRM_RING_ALLOC;
	rc = btc_hwrm(&C, in, sizeof(*in), &o, sizeof(o));
	if (!rc && id)
		*id = o.ring_id;
	return rc;
}

static void bring(void)
{
	assert_int_equal(btc_bringup(&C), 0);
}

static void test_ring_alloc_checks(void **state)
{
	struct bnxt_hwrm_ring_alloc_input_long in;
	struct btc_ring nq, cq, tx, rx, agg;
	struct btc_ring_opts o = { .stat_ctx = -1 };
	uint32_t sid;
	uint16_t id;

	(void)state;
	bring();
	assert_true(C.multidb);
	assert_int_equal(btc_stat_alloc(&C, &sid, NULL), 0);
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	assert_true(nq.id != 0 && nq.id != 0xffff);
	assert_int_equal(nq.dpi, 17);
	o.nq_id = nq.id;
	assert_int_equal(btc_ring_alloc(&C, &cq, BNXT_RING_TYPE_L2_CMPL, 256, &o), 0);
	o.cmpl_ring_id = cq.id;
	o.stat_ctx = (int)sid;
	assert_int_equal(btc_ring_alloc(&C, &tx, BNXT_RING_TYPE_TX, 64, &o), 0);
	o.rx_buf_size = 256;
	assert_int_equal(btc_ring_alloc(&C, &rx, BNXT_RING_TYPE_RX, 64, &o), 0);
	o.rx_ring_id = rx.id;
	o.rx_buf_size = 4096;
	assert_int_equal(btc_ring_alloc(&C, &agg, BNXT_RING_TYPE_RX_AGG, 128, &o), 0);
	/* one id space: all different */
	assert_true(nq.id != cq.id && cq.id != tx.id && tx.id != rx.id && rx.id != agg.id);

	/* geometry */
	in = ring_req(BNXT_RING_TYPE_NQ, 64);
	in.base.length = 24;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.base.length = 8;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.base.length = 64;
	in.base.page_tbl_depth = 1;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.base.page_tbl_depth = 0;
	in.base.page_size = 11;	/* below 4 KiB (0, DPDK's value, in test_dpdk_cmds) */
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.base.page_size = 12;
	in.base.page_tbl_addr = 0x30000;	/* not mapped */
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = ring_req(BNXT_RING_TYPE_NQ, 64);
	in.base.page_tbl_addr = C.mem->iova + C.mem->len - 512;	/* runs past the end */
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = ring_req(BNXT_RING_TYPE_ROCE_CMPL, 64);
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = ring_req(BNXT_RING_TYPE_NQ, 64);
	in.base.flags = 0x4;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_FLAGS);
	in.base.flags = 0;
	in.base.enables = BNXT_RING_ALLOC_ENABLES_RX_RATE_PROFILE_VALID;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_ENABLES);
	in.base.enables = 0;
	in.base.logical_id = 64;		/* no such MSI-X vector */
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* what each kind must name */
	in = ring_req(BNXT_RING_TYPE_L2_CMPL, 64);
	in.base.nq_ring_id = nq.id;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_ENABLES);
	in.base.enables = BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
	in.base.nq_ring_id = cq.id;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = ring_req(BNXT_RING_TYPE_TX, 64);
	in.base.cmpl_ring_id = nq.id;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.base.cmpl_ring_id = cq.id;
	in.base.queue_id = 5;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.base.queue_id = 0;
	in.base.enables = BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID;
	in.base.stat_ctx_id = 99;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = ring_req(BNXT_RING_TYPE_RX, 64);
	in.base.rx_buf_size = 256;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_ENABLES);
	in.base.enables = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID;
	in.base.rx_buf_size = 0;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = ring_req(BNXT_RING_TYPE_RX_AGG, 64);
	in.base.enables = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID |
			  BNXT_RING_ALLOC_ENABLES_RX_RING_ID_VALID;
	in.base.rx_buf_size = 4096;
	in.base.rx_ring_id = rx.id;		/* already has an AGG ring */
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.base.rx_ring_id = tx.id;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* DPIs: the function's 17-80, one ring each, never the legacy page */
	in = ring_req(BNXT_RING_TYPE_NQ, 64);
	in.base.enables = BNXT_RING_ALLOC_ENABLES_DPI_VALID;
	in.dpi = 16;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.dpi = 81;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.dpi = (uint16_t)nq.dpi;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.dpi = 80;
	assert_int_equal(ring_send(&in, &id), 0);
	/* 8 TX rings in all (queues=8) */
	for (int i = 1; i < 8; i++) {
		in = ring_req(BNXT_RING_TYPE_TX, 16);
		in.base.cmpl_ring_id = cq.id;
		assert_int_equal(ring_send(&in, NULL), 0);
	}
	in = ring_req(BNXT_RING_TYPE_TX, 16);
	in.base.cmpl_ring_id = cq.id;
	assert_int_equal(ring_send(&in, NULL), BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR);
	assert_int_equal(CNT("hwrm_errors"), 23);
}

static void test_ring_free(void **state)
{
	struct btc_ring nq, cq, tx, rx, agg;
	struct btc_ring_opts o = { .stat_ctx = -1 };
	struct bnxt_hwrm_done_cmpl done;
	REQ(struct bnxt_hwrm_stat_ctx_free_input, sf, BNXT_HWRM_STAT_CTX_FREE);
	struct bnxt_hwrm_stat_ctx_free_output so;
	uint32_t sid;

	(void)state;
	bring();
	assert_int_equal(btc_stat_alloc(&C, &sid, NULL), 0);
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	o.nq_id = nq.id;
	assert_int_equal(btc_ring_alloc(&C, &cq, BNXT_RING_TYPE_L2_CMPL, 64, &o), 0);
	o.cmpl_ring_id = cq.id;
	o.stat_ctx = (int)sid;
	assert_int_equal(btc_ring_alloc(&C, &tx, BNXT_RING_TYPE_TX, 64, &o), 0);
	o.rx_buf_size = 256;
	assert_int_equal(btc_ring_alloc(&C, &rx, BNXT_RING_TYPE_RX, 64, &o), 0);
	o.rx_ring_id = rx.id;
	assert_int_equal(btc_ring_alloc(&C, &agg, BNXT_RING_TYPE_RX_AGG, 64, &o), 0);

	/* still named by something */
	assert_int_equal(btc_ring_free(&C, &nq, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_ring_free(&C, &cq, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_ring_free(&C, &rx, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	sf.stat_ctx_id = sid;
	assert_int_equal(btc_hwrm(&C, &sf, sizeof(sf), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* a ring type that is not the ring's */
	{
		struct btc_ring wrong = tx;

		wrong.type = BNXT_RING_TYPE_RX;
		assert_int_equal(btc_ring_free(&C, &wrong, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	}
	/* TX ring freed with HWRM_DONE on its CQ */
	assert_int_equal(btc_ring_free(&C, &tx, cq.id), 0);
	assert_true(btc_cq_peek(&cq, 0, &done));
	assert_int_equal(done.type & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_HWRM_DONE);
	assert_int_equal(done.sequence_id, C.seq);
	assert_int_equal(CNT("hwrm_done"), 1);
	assert_int_equal(btc_ring_free(&C, &tx, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_ring_free(&C, &agg, 0), 0);
	assert_int_equal(btc_ring_free(&C, &rx, 0), 0);
	assert_int_equal(btc_ring_free(&C, &cq, 0), 0);
	assert_int_equal(btc_ring_free(&C, &nq, 0), 0);
	sf.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_FREE };
	assert_int_equal(btc_hwrm(&C, &sf, sizeof(sf), &so, sizeof(so)), 0);
	assert_int_equal(so.stat_ctx_id, sid);
	sf.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_FREE };
	assert_int_equal(btc_hwrm(&C, &sf, sizeof(sf), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
}

static void test_stat_ctx(void **state)
{
	REQ(struct bnxt_hwrm_stat_ctx_alloc_input, in, BNXT_HWRM_STAT_CTX_ALLOC);
	struct bnxt_hwrm_stat_ctx_alloc_output o;
	void *mem;
	int64_t end;

	(void)state;
	bring();
	mem = btc_alloc(&C, BTC_STATS_LEN, 64);
	in.stats_dma_addr = btc_iova(&C, mem);
	in.stats_dma_length = 100;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_ALLOC };
	in.stats_dma_length = BTC_STATS_LEN;
	in.stat_ctx_flags = 0x2;
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_FLAGS);
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_ALLOC };
	in.stat_ctx_flags = 0;
	in.update_period_ms = 10;
	in.stats_dma_addr = 0x50000;		/* not mapped */
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* periodic DMA of the counters */
	in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_ALLOC };
	in.stats_dma_addr = btc_iova(&C, mem);
	memset(mem, 0xee, BTC_STATS_LEN);
	assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
	end = btc_now_ms() + BTC_TIMEOUT_MS;
	while (CNT("stats_dma") < 3 && btc_now_ms() < end)
		btc_sleep_ms(2);
	assert_true(CNT("stats_dma") >= 3);
	assert_int_equal(((struct bnxt_ctx_hw_stats *)mem)->rx_ucast_pkts, 0);
	assert_int_equal(((struct bnxt_ctx_hw_stats *)mem)->tx_bcast_bytes, 0);
}

/* ---- VNICs, RSS, placement, filters ---- */

struct qset {
	struct btc_ring nq, cq, rx, agg;
	uint16_t vnic;
};

static void make_rx(struct qset *q, bool with_agg)
{
	struct btc_ring_opts o = { .stat_ctx = -1 };

	bring();
	assert_int_equal(btc_ring_alloc(&C, &q->nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	o.nq_id = q->nq.id;
	assert_int_equal(btc_ring_alloc(&C, &q->cq, BNXT_RING_TYPE_L2_CMPL, 256, &o), 0);
	o.rx_buf_size = 256;
	assert_int_equal(btc_ring_alloc(&C, &q->rx, BNXT_RING_TYPE_RX, 64, &o), 0);
	if (with_agg) {
		o.rx_ring_id = q->rx.id;
		o.rx_buf_size = 2048;
		assert_int_equal(btc_ring_alloc(&C, &q->agg, BNXT_RING_TYPE_RX_AGG, 64, &o), 0);
	}
}

static int vnic_alloc(uint32_t flags, uint16_t *id)
{
	REQ(struct bnxt_hwrm_vnic_alloc_input, in, BNXT_HWRM_VNIC_ALLOC);
	struct bnxt_hwrm_vnic_alloc_output o;
	int rc;

	in.flags = flags;
	*id = 0xffff;
	rc = btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o));
	if (!rc)
		*id = (uint16_t)o.vnic_id;
	return rc;
}

static int vnic_cfg(uint16_t vnic, uint32_t enables, uint16_t rx, uint16_t cq)
{
	REQ(struct bnxt_hwrm_vnic_cfg_input, in, BNXT_HWRM_VNIC_CFG);

	in.vnic_id = vnic;
	in.enables = enables;
	in.default_rx_ring_id = rx;
	in.default_cmpl_ring_id = cq;
	return btc_hwrm(&C, &in, sizeof(in), NULL, 0);
}

static int vnic_free(uint16_t vnic)
{
	REQ(struct bnxt_hwrm_vnic_free_input, in, BNXT_HWRM_VNIC_FREE);

	in.vnic_id = vnic;
	return btc_hwrm(&C, &in, sizeof(in), NULL, 0);
}

#define DFLT_RINGS (BNXT_VNIC_CFG_ENABLES_DEFAULT_RX_RING_ID | \
		    BNXT_VNIC_CFG_ENABLES_DEFAULT_CMPL_RING_ID)

static void test_vnic_cmds(void **state)
{
	struct qset q;
	uint16_t v0, v1;
	REQ(struct bnxt_hwrm_func_qcfg_input, qf, BNXT_HWRM_FUNC_QCFG);
	struct bnxt_hwrm_func_qcfg_output cfg;
	REQ(struct bnxt_hwrm_vnic_qcaps_input, vq, BNXT_HWRM_VNIC_QCAPS);
	struct bnxt_hwrm_vnic_qcaps_output vo;

	(void)state;
	make_rx(&q, true);
	assert_int_equal(vnic_alloc(BNXT_VNIC_ALLOC_FLAGS_DEFAULT, &v0), 0);
	assert_int_equal(vnic_alloc(BNXT_VNIC_ALLOC_FLAGS_DEFAULT, &v1), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(vnic_alloc(0x2, &v1), BNXT_HWRM_ERR_INVALID_FLAGS);
	assert_int_equal(vnic_alloc(0, &v1), 0);
	assert_true(v0 != v1);
	assert_int_equal(btc_hwrm(&C, &qf, sizeof(qf), &cfg, sizeof(cfg)), 0);
	assert_int_equal(cfg.dflt_vnic_id, v0);
	assert_int_equal(vnic_cfg(v0, DFLT_RINGS, q.cq.id, q.cq.id), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(vnic_cfg(v0, DFLT_RINGS, q.rx.id, q.rx.id), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(vnic_cfg(v0, BNXT_VNIC_CFG_ENABLES_DFLT_RING_GRP, 0, 0),
			 BNXT_HWRM_ERR_INVALID_ENABLES);
	assert_int_equal(vnic_cfg(77, DFLT_RINGS, q.rx.id, q.cq.id), BNXT_HWRM_ERR_INVALID_PARAMS);
	{
		REQ(struct bnxt_hwrm_vnic_cfg_input, in, BNXT_HWRM_VNIC_CFG);

		in.vnic_id = v0;
		in.enables = BNXT_VNIC_CFG_ENABLES_L2_CQE_MODE;
		in.l2_cqe_mode = 1;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_CFG };
		in.enables = BNXT_VNIC_CFG_ENABLES_MRU;
		in.mru = 9100;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_CFG };
		in.flags = 0x100;
		in.mru = 1518;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), BNXT_HWRM_ERR_INVALID_FLAGS);
	}
	assert_int_equal(vnic_cfg(v0, DFLT_RINGS | BNXT_VNIC_CFG_ENABLES_MRU, q.rx.id, q.cq.id), 0);
	/* the ring is now named by a VNIC */
	assert_int_equal(btc_ring_free(&C, &q.cq, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_hwrm(&C, &vq, sizeof(vq), &vo, sizeof(vo)), 0);
	assert_true(vo.mru >= 9018);
	assert_int_equal(vnic_free(v1), 0);
	assert_int_equal(vnic_free(v1), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(vnic_free(v0), 0);
	assert_int_equal(btc_ring_free(&C, &q.agg, 0), 0);
	assert_int_equal(btc_ring_free(&C, &q.rx, 0), 0);
}

static int rss_cfg(uint16_t vnic, uint16_t ctx, uint8_t chunk, uint32_t hash_type,
		   const void *tbl, const void *key, uint8_t select)
{
	REQ(struct bnxt_hwrm_vnic_rss_cfg_input, in, BNXT_HWRM_VNIC_RSS_CFG);

	in.hash_type = hash_type;
	in.vnic_id = vnic;
	in.ring_table_pair_index = chunk;
	in.ring_grp_tbl_addr = tbl ? btc_iova(&C, tbl) : 0x60000;
	in.hash_key_tbl_addr = key ? btc_iova(&C, key) : 0x60000;
	in.rss_ctx_idx = ctx;
	in.ring_select_mode = select;
	return btc_hwrm(&C, &in, sizeof(in), NULL, 0);
}

static void test_rss_cmds(void **state)
{
	struct qset q;
	uint16_t v, ctx[2];
	struct bnxt_rss_entry_p5 *tbl;
	uint8_t *key;
	struct bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output co;
	REQ(struct bnxt_hwrm_vnic_rss_cos_lb_ctx_free_input, cf, BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE);
	const uint32_t ht = BNXT_RSS_HASH_TYPE_IPV4 | BNXT_RSS_HASH_TYPE_TCP_IPV4;

	(void)state;
	make_rx(&q, false);
	assert_int_equal(vnic_alloc(BNXT_VNIC_ALLOC_FLAGS_DEFAULT, &v), 0);
	for (int i = 0; i < 2; i++) {
		struct bnxt_hwrm_hdr_only_input in = {
			.hdr.req_type = BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC };
		uint8_t pad[24] = { 0 };

		memcpy(pad, &in, sizeof(in));
		assert_int_equal(btc_hwrm(&C, pad, sizeof(pad), &co, sizeof(co)), 0);
		ctx[i] = co.rss_cos_lb_ctx_id;
	}
	assert_true(ctx[0] != ctx[1]);
	tbl = btc_alloc(&C, BNXT_RSS_TABLE_SIZE_P5, 64);
	key = btc_alloc(&C, BNXT_RSS_KEY_SIZE, 64);
	for (int e = 0; e < BNXT_RSS_TABLE_ENTRIES_P5; e++) {
		tbl[e].rx_ring_id = q.rx.id;
		tbl[e].cmpl_ring_id = q.cq.id;
	}
	assert_int_equal(rss_cfg(v, ctx[0], 0, ht, tbl, key, 1), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(rss_cfg(v, ctx[0], 0, 0x40, tbl, key, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(rss_cfg(v, ctx[0], 8, ht, tbl, key, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(rss_cfg(v, 0x3f, 0, ht, tbl, key, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(rss_cfg(v, ctx[0], 0, ht, NULL, key, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(rss_cfg(v, ctx[0], 0, ht, tbl, NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	tbl[5].rx_ring_id = q.cq.id;		/* not an RX ring */
	assert_int_equal(rss_cfg(v, ctx[0], 0, ht, tbl, key, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	tbl[5].rx_ring_id = q.rx.id;
	assert_int_equal(rss_cfg(v, ctx[0], 0, ht, tbl, key, 0), 0);
	assert_int_equal(rss_cfg(v, ctx[0], 0, ht, tbl, key, 0), 0);	/* again: same chunk */
	assert_int_equal(rss_cfg(v, ctx[0], 1, ht, tbl, key, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(rss_cfg(v, ctx[1], 0, ht, tbl, key, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(rss_cfg(v, ctx[1], 1, ht, tbl, key, 0), 0);
	/* the global hash mode form */
	assert_int_equal(rss_cfg(0xffff, 0xffff, 0, 0, NULL, NULL, 0), 0);
	/* contexts in use, rings in the table */
	cf.rss_cos_lb_ctx_id = ctx[0];
	assert_int_equal(btc_hwrm(&C, &cf, sizeof(cf), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_ring_free(&C, &q.rx, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* RSS off releases them */
	assert_int_equal(rss_cfg(v, 0xffff, 0, 0, NULL, NULL, 0), 0);
	cf.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE };
	assert_int_equal(btc_hwrm(&C, &cf, sizeof(cf), NULL, 0), 0);
	assert_int_equal(btc_ring_free(&C, &q.rx, 0), 0);
	assert_int_equal(vnic_free(v), 0);
	cf.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE };
	cf.rss_cos_lb_ctx_id = ctx[1];
	assert_int_equal(btc_hwrm(&C, &cf, sizeof(cf), NULL, 0), 0);
}

static int plc(uint16_t vnic, uint32_t flags, uint32_t enables, uint16_t jumbo, uint16_t hds_off,
	       uint16_t thresh)
{
	REQ(struct bnxt_hwrm_vnic_plcmodes_cfg_input, in, BNXT_HWRM_VNIC_PLCMODES_CFG);

	in.vnic_id = vnic;
	in.flags = flags;
	in.enables = enables;
	in.jumbo_thresh = jumbo;
	in.hds_offset = hds_off;
	in.hds_threshold = thresh;
	return btc_hwrm(&C, &in, sizeof(in), NULL, 0);
}

static void test_plcmodes(void **state)
{
	struct qset q;
	uint16_t v;
	const uint32_t hds = BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT |
			     BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4 | BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6;
	const uint32_t en = BNXT_PLCMODES_CFG_ENABLES_JUMBO_THRESH_VALID |
			    BNXT_PLCMODES_CFG_ENABLES_HDS_THRESHOLD_VALID;

	(void)state;
	make_rx(&q, false);
	assert_int_equal(vnic_alloc(BNXT_VNIC_ALLOC_FLAGS_DEFAULT, &v), 0);
	assert_int_equal(vnic_cfg(v, DFLT_RINGS, q.rx.id, q.cq.id), 0);
	/* HDS needs an AGG ring */
	assert_int_equal(plc(v, hds, en, 256, 0, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	{
		struct btc_ring_opts o = { .stat_ctx = -1, .rx_ring_id = q.rx.id,
					   .rx_buf_size = 2048 };

		assert_int_equal(btc_ring_alloc(&C, &q.agg, BNXT_RING_TYPE_RX_AGG, 64, &o), 0);
	}
	assert_int_equal(plc(v, hds, en, 256, 0, 6), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(plc(v, hds, en, 256, 0, 0x400), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(plc(v, hds, en | BNXT_PLCMODES_CFG_ENABLES_HDS_OFFSET_VALID, 256, 4, 0),
			 BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(plc(v, BNXT_PLCMODES_CFG_FLAGS_HDS_FCOE, en, 256, 0, 0),
			 BNXT_HWRM_ERR_INVALID_FLAGS);
	assert_int_equal(plc(v, hds, BNXT_PLCMODES_CFG_ENABLES_MAX_BDS_VALID, 0, 0, 0),
			 BNXT_HWRM_ERR_INVALID_ENABLES);
	assert_int_equal(plc(77, hds, en, 256, 0, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(plc(v, hds, en, 256, 0, 0x3fc), 0);
	assert_int_equal(plc(v, hds, en, 256, 0, 0), 0);
}

static int l2_alloc(uint32_t flags, uint32_t enables, const uint8_t *mac, uint16_t dst,
		    uint64_t *id)
{
	REQ(struct bnxt_hwrm_cfa_l2_filter_alloc_input, in, BNXT_HWRM_CFA_L2_FILTER_ALLOC);
	struct bnxt_hwrm_cfa_l2_filter_alloc_output o;
	int rc;

	in.flags = flags;
	in.enables = enables;
	memcpy(in.l2_addr, mac, 6);
	memset(in.l2_addr_mask, 0xff, 6);
	in.dst_id = dst;
	*id = 0;
	rc = btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o));
	if (!rc)
		*id = o.l2_filter_id;
	return rc;
}

static int l2_free(uint64_t id)
{
	REQ(struct bnxt_hwrm_cfa_l2_filter_free_input, in, BNXT_HWRM_CFA_L2_FILTER_FREE);

	in.l2_filter_id = id;
	return btc_hwrm(&C, &in, sizeof(in), NULL, 0);
}

#define L2_FLAGS (BNXT_L2_FILTER_ALLOC_FLAGS_PATH_RX | BNXT_L2_FILTER_ALLOC_FLAGS_OUTERMOST | \
		  BNXT_L2_FILTER_ALLOC_FLAGS_TRAFFIC_L2 | BNXT_L2_FILTER_ALLOC_FLAGS_XDP_DISABLE)
#define L2_EN (BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR | BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR_MASK | \
	       BNXT_L2_FILTER_ALLOC_ENABLES_DST_ID)

static int nt_alloc(struct bnxt_hwrm_cfa_ntuple_filter_alloc_input *in, uint64_t *id)
{
	struct bnxt_hwrm_cfa_ntuple_filter_alloc_output o;
	int rc;

	memset(&in->hdr, 0, sizeof(in->hdr));
	in->hdr.req_type = BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC;
	if (id)
		*id = 0;
	rc = btc_hwrm(&C, in, sizeof(*in), &o, sizeof(o));
	if (!rc && id)
		*id = o.ntuple_filter_id;
	return rc;
}

static void test_filters(void **state)
{
	uint16_t v;
	uint64_t l2, nt;
	uint8_t mc[2][6] = { { 0x01, 0x00, 0x5e, 0, 0, 1 }, { 0x33, 0x33, 0, 0, 0, 1 } };
	REQ(struct bnxt_hwrm_cfa_l2_set_rx_mask_input, rm, BNXT_HWRM_CFA_L2_SET_RX_MASK);
	struct bnxt_hwrm_cfa_ntuple_filter_alloc_input good = { 0 }, in;
	REQ(struct bnxt_hwrm_cfa_ntuple_filter_free_input, nf, BNXT_HWRM_CFA_NTUPLE_FILTER_FREE);
	uint8_t *mct;

	(void)state;
	bring();
	assert_int_equal(vnic_alloc(BNXT_VNIC_ALLOC_FLAGS_DEFAULT, &v), 0);
	/* L2 filters */
	assert_int_equal(l2_alloc(0, L2_EN, C.mac, v, &l2), BNXT_HWRM_ERR_INVALID_FLAGS);
	assert_int_equal(l2_alloc(L2_FLAGS | BNXT_L2_FILTER_ALLOC_FLAGS_DROP, L2_EN, C.mac, v, &l2),
			 BNXT_HWRM_ERR_INVALID_FLAGS);
	assert_int_equal(l2_alloc(L2_FLAGS, BNXT_L2_FILTER_ALLOC_ENABLES_DST_ID, C.mac, v, &l2),
			 BNXT_HWRM_ERR_INVALID_ENABLES);
	assert_int_equal(l2_alloc(L2_FLAGS, L2_EN | BNXT_L2_FILTER_ALLOC_ENABLES_L2_OVLAN, C.mac,
				  v, &l2), BNXT_HWRM_ERR_INVALID_ENABLES);
	assert_int_equal(l2_alloc(L2_FLAGS, L2_EN, C.mac, 33, &l2), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(l2_alloc(L2_FLAGS, L2_EN, C.mac, v, &l2), 0);
	assert_true(l2 >> 32);		/* a full 64-bit id: truncation is caught */
	assert_int_equal(l2_free(l2 & 0xffffffff), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(vnic_free(v), BNXT_HWRM_ERR_INVALID_PARAMS);
	/* RX mask */
	mct = btc_alloc(&C, sizeof(mc), 64);
	memcpy(mct, mc, sizeof(mc));
	rm.vnic_id = 99;
	assert_int_equal(btc_hwrm(&C, &rm, sizeof(rm), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	rm.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_CFA_L2_SET_RX_MASK };
	rm.vnic_id = v;
	rm.mask = BNXT_RX_MASK_VLANONLY;
	assert_int_equal(btc_hwrm(&C, &rm, sizeof(rm), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	rm.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_CFA_L2_SET_RX_MASK };
	rm.mask = BNXT_RX_MASK_MCAST | BNXT_RX_MASK_BCAST;
	rm.num_mc_entries = 17;
	rm.mc_tbl_addr = btc_iova(&C, mct);
	assert_int_equal(btc_hwrm(&C, &rm, sizeof(rm), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	rm.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_CFA_L2_SET_RX_MASK };
	rm.num_mc_entries = 2;
	rm.mc_tbl_addr = 0x70000;
	assert_int_equal(btc_hwrm(&C, &rm, sizeof(rm), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	rm.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_CFA_L2_SET_RX_MASK };
	rm.mc_tbl_addr = btc_iova(&C, mct);
	assert_int_equal(btc_hwrm(&C, &rm, sizeof(rm), NULL, 0), 0);

	/* n-tuple filters */
	good.flags = 0;
	good.enables = BNXT_NTUPLE_ENABLES_L2_FILTER_ID | BNXT_NTUPLE_ENABLES_ETHERTYPE |
		       BNXT_NTUPLE_ENABLES_IPADDR_TYPE | BNXT_NTUPLE_ENABLES_DST_IPADDR |
		       BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK | BNXT_NTUPLE_ENABLES_IP_PROTOCOL |
		       BNXT_NTUPLE_ENABLES_DST_PORT | BNXT_NTUPLE_ENABLES_DST_PORT_MASK |
		       BNXT_NTUPLE_ENABLES_DST_ID;
	good.l2_filter_id = l2;
	good.ethertype = __builtin_bswap16(0x0800);
	good.ip_addr_type = BNXT_NTUPLE_IP_ADDR_TYPE_IPV4;
	good.ip_protocol = 17;
	memcpy(good.dst_ipaddr, "\x0a\x00\x00\x02", 4);
	memset(good.dst_ipaddr_mask, 0xff, 4);
	good.dst_port = __builtin_bswap16(4791);
	good.dst_port_mask = 0xffff;
	good.dst_id = v;
	in = good;
	in.flags = BNXT_NTUPLE_FLAGS_DEST_RFS_RING_IDX;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_FLAGS);
	in = good;
	in.enables |= BNXT_NTUPLE_ENABLES_RFS_RING_TBL_IDX;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_ENABLES);
	in = good;
	in.enables &= ~BNXT_NTUPLE_ENABLES_DST_ID;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_ENABLES);
	in = good;
	in.dst_id = 55;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.l2_filter_id = l2 + 1;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.enables &= ~BNXT_NTUPLE_ENABLES_IPADDR_TYPE;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.ip_addr_type = 5;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.ethertype = __builtin_bswap16(0x86dd);
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.ip_protocol = 1;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_PARAMS);
	in = good;
	in.enables &= ~BNXT_NTUPLE_ENABLES_DST_PORT;
	assert_int_equal(nt_alloc(&in, NULL), BNXT_HWRM_ERR_INVALID_ENABLES);
	in = good;
	assert_int_equal(nt_alloc(&in, &nt), 0);
	assert_true(nt >> 32);
	/* the L2 filter is named by the rule */
	assert_int_equal(l2_free(l2), BNXT_HWRM_ERR_INVALID_PARAMS);
	nf.ntuple_filter_id = nt;
	assert_int_equal(btc_hwrm(&C, &nf, sizeof(nf), NULL, 0), 0);
	nf.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_CFA_NTUPLE_FILTER_FREE };
	assert_int_equal(btc_hwrm(&C, &nf, sizeof(nf), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(l2_free(l2), 0);
	assert_int_equal(l2_free(l2), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(vnic_free(v), 0);
}

/* FUNC_RESET frees every resource; the context memory stays. */
static void test_func_reset_frees_all(void **state)
{
	struct qset q;
	uint16_t v, first_id;
	uint64_t l2;
	REQ(struct bnxt_hwrm_func_reset_input, rst, BNXT_HWRM_FUNC_RESET);
	struct btc_ring again;
	struct btc_ring_opts o = { .stat_ctx = -1 };
	uint32_t sid;

	(void)state;
	make_rx(&q, true);
	first_id = q.nq.id;
	assert_int_equal(btc_stat_alloc(&C, &sid, NULL), 0);
	assert_int_equal(vnic_alloc(BNXT_VNIC_ALLOC_FLAGS_DEFAULT, &v), 0);
	assert_int_equal(vnic_cfg(v, DFLT_RINGS, q.rx.id, q.cq.id), 0);
	assert_int_equal(l2_alloc(L2_FLAGS, L2_EN, C.mac, v, &l2), 0);
	rst.enables = 0x2;
	assert_int_equal(btc_hwrm(&C, &rst, sizeof(rst), NULL, 0), BNXT_HWRM_ERR_INVALID_ENABLES);
	rst.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_RESET };
	rst.enables = 0;
	assert_int_equal(btc_hwrm(&C, &rst, sizeof(rst), NULL, 0), 0);
	assert_int_equal(l2_free(l2), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(vnic_free(v), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_ring_free(&C, &q.agg, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	assert_int_equal(btc_ring_free(&C, &q.nq, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	{
		REQ(struct bnxt_hwrm_stat_ctx_free_input, sf, BNXT_HWRM_STAT_CTX_FREE);

		sf.stat_ctx_id = sid;
		assert_int_equal(btc_hwrm(&C, &sf, sizeof(sf), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);
	}
	/* ids and DPIs are free again; no BUSY: the context memory stayed */
	C.next_dpi = 17;
	assert_int_equal(btc_ring_alloc(&C, &again, BNXT_RING_TYPE_NQ, 64, &o), 0);
	assert_int_equal(again.id, first_id);
	assert_int_equal(again.dpi, 17);
}

/* A client that goes away takes the function with it: the next one starts
 * from power-on. */
static void test_disconnect_resets(void **state)
{
	struct qset q;
	struct btc_ring nq;
	struct btc_ring_opts o = { .stat_ctx = -1 };

	(void)state;
	make_rx(&q, true);
	btc_close(&C);
	assert_int_equal(btc_open(&C, S.path[0]), 0);
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), BNXT_HWRM_ERR_BUSY);
	bring();
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	assert_int_equal(nq.id, q.nq.id);
}

/* ---- link ---- */

static void test_port_phy_and_link_events(void **state)
{
	REQ(struct bnxt_hwrm_port_phy_qcfg_input, pq, BNXT_HWRM_PORT_PHY_QCFG);
	struct bnxt_hwrm_port_phy_qcfg_output po;
	REQ(struct bnxt_hwrm_func_cfg_input, fc, BNXT_HWRM_FUNC_CFG);
	struct btc_ring nq;
	struct btc_ring_opts o = { .stat_ctx = -1, .logical_id = 3 };
	struct bnxt_async_event_cmpl ev;
	int efd[4];

	(void)state;
	/* two devices on a wire: the link is up */
	btc_close(&C);
	btc_sim_stop(&S);
	assert_int_equal(btc_sim_start(&S, "", "", true), 0);
	assert_int_equal(btc_open(&C, S.path[0]), 0);
	bring();
	assert_int_equal(btc_hwrm(&C, &pq, sizeof(pq), &po, sizeof(po)), 0);
	assert_int_equal(C.resp_len, sizeof(po));
	assert_int_equal(po.link, BNXT_PORT_PHY_QCFG_LINK_LINK);
	assert_int_equal(po.link_speed, BNXT_LINK_SPEED_100GB);
	assert_int_equal(po.duplex_cfg, 1);
	pq.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_PORT_PHY_QCFG };
	pq.port_id = 1;
	assert_int_equal(btc_hwrm(&C, &pq, sizeof(pq), NULL, 0), BNXT_HWRM_ERR_INVALID_PARAMS);

	/* async events on an NQ, which interrupts when armed (MSI-X vector 3) */
	for (int i = 0; i < 4; i++) {
		efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		assert_true(efd[i] >= 0);
	}
	assert_int_equal(zn_bus_set_irqs(C.bus, ZN_IRQ_MSIX, 0, 4, efd), 0);
	assert_int_equal(btc_ring_alloc(&C, &nq, BNXT_RING_TYPE_NQ, 64, &o), 0);
	fc.fid = BNXT_FID_SELF;
	fc.enables = BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR;
	fc.async_event_cr = nq.id;
	assert_int_equal(btc_hwrm(&C, &fc, sizeof(fc), NULL, 0), 0);
	btc_db(&C, &nq, BNXT_DBR_TYPE_NQ_ARM, 0);
	assert_int_equal(zn_sim_bnxt_set_link(S.dev[0], false), 0);
	assert_true(btc_cq_wait(&nq, 1, BTC_TIMEOUT_MS));
	assert_true(btc_cq_peek(&nq, 0, &ev));
	assert_int_equal(ev.type & BNXT_CMPL_TYPE_MASK, BNXT_CMPL_TYPE_HWRM_ASYNC_EVENT);
	assert_int_equal(ev.event_id, BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE);
	assert_int_equal(ev.event_data1 & BNXT_ASYNC_LINK_DATA1_LINK_UP, 0);
	{
		struct pollfd p = { .fd = efd[3], .events = POLLIN };
		uint64_t n;

		assert_int_equal(poll(&p, 1, BTC_TIMEOUT_MS), 1);
		assert_int_equal(read(efd[3], &n, sizeof(n)), sizeof(n));
		assert_int_equal(read(efd[0], &n, sizeof(n)), -1);	/* other vectors quiet */
	}
	nq.cons++;
	pq.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_PORT_PHY_QCFG };
	pq.port_id = 0;
	assert_int_equal(btc_hwrm(&C, &pq, sizeof(pq), &po, sizeof(po)), 0);
	assert_int_equal(po.link, BNXT_PORT_PHY_QCFG_LINK_NO_LINK);
	/* and up again; the NQ is not armed now: an entry, no interrupt */
	btc_db(&C, &nq, BNXT_DBR_TYPE_NQ, nq.cons);
	assert_int_equal(zn_sim_bnxt_set_link(S.dev[0], true), 0);
	assert_true(btc_cq_wait(&nq, 1, BTC_TIMEOUT_MS));
	assert_true(btc_cq_peek(&nq, 0, &ev));
	assert_int_equal(ev.event_data1 & BNXT_ASYNC_LINK_DATA1_LINK_UP, 1);
	assert_int_equal(CNT("async_events"), 2);
	assert_int_equal(CNT("irqs"), 1);
	assert_int_equal(btc_counter(&S, 1, "async_events"), 0);	/* the peer registered none */
	assert_int_equal(zn_sim_bnxt_set_link(NULL, true), -EINVAL);
	for (int i = 0; i < 4; i++)
		close(efd[i]);
}

static void test_link_down_unplugged(void **state)
{
	REQ(struct bnxt_hwrm_port_phy_qcfg_input, pq, BNXT_HWRM_PORT_PHY_QCFG);
	struct bnxt_hwrm_port_phy_qcfg_output po;

	(void)state;
	assert_int_equal(btc_hwrm(&C, &pq, sizeof(pq), &po, sizeof(po)), 0);
	assert_int_equal(po.link, BNXT_PORT_PHY_QCFG_LINK_NO_LINK);
	assert_int_equal(CNT("link_up"), 0);
}

static int setup_fail(void **state)
{
	(void)state;
	return start(",fail_cmd=0x15");
}

static int setup_delay(void **state)
{
	(void)state;
	return start(",valid_delay_ms=500");
}

/* ---- what DPDK's bnxt PMD sends (hw-docs/dpdk-bnxt.md 3, 4) ---- */

static void test_dpdk_cmds(void **state)
{
	struct qset q;
	uint16_t v;
	uint32_t sid;
	void *stats;
	struct bnxt_hwrm_ring_alloc_input_long ra;
	uint16_t cq0 = 0;

	(void)state;
	/* VNIC_QCAPS: TPA v2 aggregations, without which the PMD does not start */
	{
		REQ(struct bnxt_hwrm_vnic_qcaps_input, in, BNXT_HWRM_VNIC_QCAPS);
		struct bnxt_hwrm_vnic_qcaps_output o;

		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
		assert_int_equal(o.max_aggs_supported, 8);	/* open aggregations per ring */
	}
	/* FUNC_RESOURCE_QCAPS: the maxima again, and the NQ count (MSI-X) */
	{
		REQ(struct bnxt_hwrm_func_qcfg_input, in, BNXT_HWRM_FUNC_RESOURCE_QCAPS);
		struct bnxt_hwrm_func_resource_qcaps_output o;

		in.fid = BNXT_FID_SELF;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
		assert_int_equal(C.resp_len, 64);
		assert_int_equal(o.max_msix, 9);		/* 8 queues + async */
		assert_int_equal(o.max_tx_rings, 8);
		assert_int_equal(o.max_rx_rings, 16);
		assert_int_equal(o.max_cmpl_rings, 16);
		assert_int_equal(o.max_stat_ctx, 17);
		assert_int_equal(o.min_tx_rings, 0);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_RESOURCE_QCAPS };
		in.fid = 5;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)),
				 BNXT_HWRM_ERR_INVALID_PARAMS);
	}
	make_rx(&q, false);
	/* FUNC_CFG admin_mtu: the PMD asks for the chip's largest, 9574 */
	{
		REQ(struct bnxt_hwrm_func_cfg_input, in, BNXT_HWRM_FUNC_CFG);
		REQ(struct bnxt_hwrm_func_qcfg_input, qin, BNXT_HWRM_FUNC_QCFG);
		struct bnxt_hwrm_func_qcfg_output qo;

		in.fid = BNXT_FID_SELF;
		in.enables = BNXT_FUNC_CFG_ENABLES_ADMIN_MTU;
		in.admin_mtu = 9574;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), 0);
		qin.fid = BNXT_FID_SELF;
		assert_int_equal(btc_hwrm(&C, &qin, sizeof(qin), &qo, sizeof(qo)), 0);
		assert_int_equal(qo.admin_mtu, 9574);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_FUNC_CFG };
		in.admin_mtu = 9575;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0),
				 BNXT_HWRM_ERR_INVALID_PARAMS);
	}
	/* RING_ALLOC page_size 0 for a contiguous ring, as the PMD sends it */
	ra = ring_req(BNXT_RING_TYPE_L2_CMPL, 64);
	ra.base.page_size = 0;
	ra.base.nq_ring_id = q.nq.id;
	ra.base.enables = BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
	assert_int_equal(ring_send(&ra, &cq0), 0);
	assert_true(cq0 != 0);
	/* VNIC_PLCMODES_QCFG: what PLCMODES_CFG set, with DFLT_VNIC */
	assert_int_equal(vnic_alloc(BNXT_VNIC_ALLOC_FLAGS_DEFAULT, &v), 0);
	assert_int_equal(vnic_cfg(v, DFLT_RINGS, q.rx.id, q.cq.id), 0);
	assert_int_equal(plc(v, 0, BNXT_PLCMODES_CFG_ENABLES_JUMBO_THRESH_VALID, 2048, 0, 0), 0);
	{
		REQ(struct bnxt_hwrm_vnic_plcmodes_qcfg_input, in, BNXT_HWRM_VNIC_PLCMODES_QCFG);
		struct bnxt_hwrm_vnic_plcmodes_qcfg_output o;

		in.vnic_id = v;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
		assert_int_equal(C.resp_len, sizeof(o));
		assert_int_equal(o.flags, BNXT_PLCMODES_QCFG_FLAGS_DFLT_VNIC);
		assert_int_equal(o.jumbo_thresh, 2048);
		assert_int_equal(o.hds_threshold, 0);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_PLCMODES_QCFG };
		in.vnic_id = 77;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)),
				 BNXT_HWRM_ERR_INVALID_PARAMS);
	}
	/* VNIC_TPA_CFG: off is taken (the PMD's LRO-off start); LRO mode (TPA
	 * without GRO) is not modelled and refused */
	{
		REQ(struct bnxt_hwrm_vnic_tpa_cfg_input, in, BNXT_HWRM_VNIC_TPA_CFG);

		in.vnic_id = v;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), 0);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_TPA_CFG };
		in.flags = BNXT_TPA_CFG_FLAGS_TPA;
		in.enables = 0xb;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0),
				 BNXT_HWRM_ERR_INVALID_FLAGS);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_TPA_CFG };
		in.flags = 0x200;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0),
				 BNXT_HWRM_ERR_INVALID_FLAGS);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_VNIC_TPA_CFG };
		in.flags = 0;
		in.enables = 0x20;	/* past TNL_TPA_EN */
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0),
				 BNXT_HWRM_ERR_INVALID_ENABLES);
	}
	/* STAT_CTX_QUERY / CLR_STATS: the counters by HWRM (testpmd's port
	 * stats come from here) */
	assert_int_equal(btc_stat_alloc(&C, &sid, &stats), 0);
	{
		REQ(struct bnxt_hwrm_stat_ctx_query_input, in, BNXT_HWRM_STAT_CTX_QUERY);
		struct bnxt_hwrm_stat_ctx_query_output o;

		in.stat_ctx_id = sid;
		memset(&o, 0xee, sizeof(o));
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
		assert_int_equal(C.resp_len, 176);
		assert_int_equal(o.tx_ucast_pkts, 0);
		assert_int_equal(o.rx_agg_aborts, 0);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_QUERY };
		in.flags = BNXT_STAT_CTX_QUERY_FLAGS_COUNTER_MASK;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)), 0);
		assert_true(o.rx_ucast_bytes == UINT64_MAX && o.tx_bcast_pkts == UINT64_MAX);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_QUERY };
		in.flags = 0;
		in.stat_ctx_id = sid + 1;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), &o, sizeof(o)),
				 BNXT_HWRM_ERR_INVALID_PARAMS);
		in.hdr = (struct bnxt_hwrm_req_hdr){ .req_type = BNXT_HWRM_STAT_CTX_CLR_STATS };
		in.stat_ctx_id = sid;
		assert_int_equal(btc_hwrm(&C, &in, sizeof(in), NULL, 0), 0);
	}
	assert_int_equal(CNT("hwrm_unsupported"), 0);
}

/* legacy_db_map=1: BAR2 mapped whole, a doorbell stored at the legacy page
 * is seen by the poll (DPDK's PMD rings every ring there). */
static void test_legacy_db_mapped(void **state)
{
	struct zn_region_info ri;
	int64_t end;

	(void)state;
	assert_int_equal(C.bus->ops->get_region_info(C.bus, 2, &ri), 0);
	assert_true(ri.flags & ZN_REGION_F_MMAP);
	assert_int_equal(ri.nr_sparse, 1);
	assert_int_equal(ri.sparse[0].offset, 0);
	assert_int_equal(ri.sparse[0].size, ri.size);
	bring();
	/* an SQ doorbell for a ring that does not exist: seen, and dropped */
	assert_int_equal(zn_bus_write64(C.bus, 2, 0x10000, bnxt_db64(BNXT_DBR_TYPE_SQ, 0x7f, 5)),
			 0);
	end = btc_now_ms() + BTC_TIMEOUT_MS;
	while (CNT("db_bad_ring") < 1 && btc_now_ms() < end)
		btc_sleep_ms(1);
	assert_int_equal(CNT("db_legacy_polled"), 1);
	assert_int_equal(CNT("db_bad_ring"), 1);
	assert_int_equal(CNT("db_legacy"), 0);	/* no trapped write */
}

static int setup_legacy_map(void **state)
{
	(void)state;
	return start(",legacy_db_map=1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pci_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ver_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window32_seq_echo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_header_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resp_addr_unmapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_trigger, setup, teardown),
		cmocka_unit_test_setup_teardown(test_valid_byte_last, setup_delay, teardown),
		cmocka_unit_test_setup_teardown(test_short_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_before_backing_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backing_store_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_func_qcaps_qcfg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_func_qcaps_qcfg_legacy_db, setup_nomdb, teardown),
		cmocka_unit_test_setup_teardown(test_func_cfg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drv_rgtr_unrgtr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_qportcfg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail_cmd_fault, setup_fail, teardown),
		cmocka_unit_test_setup_teardown(test_ring_alloc_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stat_ctx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vnic_cmds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rss_cmds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plcmodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_func_reset_frees_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disconnect_resets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_phy_and_link_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_down_unplugged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dpdk_cmds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legacy_db_mapped, setup_legacy_map, teardown),
	};

	/* ZN_TEST_CASE=glob runs a subset (debugging) */
	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
