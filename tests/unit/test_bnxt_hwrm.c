/*
 * drivers/bnxt: the HWRM channel and the bring-up / teardown sequences,
 * against the fake function of bnxt_fake.h: request bytes exactly as the
 * device reads them, responses (valid byte, seq_id, length), timeouts, error
 * codes to errno with their message, short commands; then probe, start and
 * stop in hw-docs/bnxt.md §4 order, in multi-doorbell and legacy mode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "base/clock.h"
#include "bnxt_fake.h"
#include "drivers/bnxt/bnxt.h"

#define SHORT_TIMEOUT_MS 25

struct ctx {
	struct fake_fw *f;
	struct bnxt *bp;
};

static int setup_channel(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	c->f = fake_new(false);
	c->bp = calloc(1, sizeof(*c->bp));
	c->bp->bus = &c->f->dev;
	snprintf(c->bp->name, sizeof(c->bp->name), "bnxt test");
	assert_int_equal(zn_bnxt_hwrm_init(c->bp), 0);
	c->bp->hwrm.short_cmd = true;
	c->bp->hwrm.max_ext_req_len = 336;
	fake_logs_start();
	*state = c;
	return 0;
}

static int teardown_channel(void **state)
{
	struct ctx *c = *state;

	zn_bnxt_hwrm_fini(c->bp);
	free(c->bp);
	fake_free(c->f);
	free(c);
	zn_log_set_sink(NULL, NULL);
	return 0;
}

/* The device reads exactly our 24 bytes, then zeros to the 128-byte window. */
static void test_request_bytes_exact(void **state)
{
	struct ctx *c = *state;
	struct bnxt_hwrm_func_qcaps_input req = {
		.hdr.req_type = BNXT_HWRM_FUNC_QCAPS,
		.fid = BNXT_FID_SELF,
	};
	struct bnxt_hwrm_func_qcaps_output_long r;
	uint8_t want[128] = { 0 };
	static const uint8_t mac[6] = FAKE_MAC;
	uint64_t iova = c->bp->hwrm.resp_iova;

	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), &r, sizeof(r), 0x28), 0);
	want[0] = 0x15;				/* req_type */
	want[2] = 0xff, want[3] = 0xff;		/* cmpl_ring: none */
	want[4] = 0, want[5] = 0;		/* seq_id 0 */
	want[6] = 0xff, want[7] = 0xff;		/* target_id: the firmware */
	for (int i = 0; i < 8; i++)
		want[8 + i] = (uint8_t)(iova >> (8 * i));
	want[0x10] = 0xff, want[0x11] = 0xff;	/* fid */
	assert_int_equal(c->f->nlog, 1);
	assert_false(c->f->log[0].short_cmd);
	assert_memory_equal(c->f->log[0].bytes, want, sizeof(want));
	assert_int_equal(c->f->log[0].win_writes, 128 / 4);
	assert_int_equal(c->f->triggers, 1);
	/* The response came through: 136 bytes (no flags_ext3), the rest zero. */
	assert_int_equal(r.hdr.resp_len, 136);
	assert_memory_equal(r.mac_address, mac, 6);
	assert_int_equal(r.max_rx_rings, 32);
	assert_false(bnxt_qcaps_multi_l2_db(&r));
	for (size_t i = 136; i < sizeof(r); i++)
		assert_int_equal(((uint8_t *)&r)[i], 0);
	/* Our copy of the valid byte is cleared for the next command. */
	assert_int_equal(c->bp->hwrm.resp[135], 0);
}

static void test_seq_ids_increase(void **state)
{
	struct ctx *c = *state;

	for (int i = 0; i < 3; i++) {
		struct bnxt_hwrm_func_reset_input req = { .hdr.req_type = BNXT_HWRM_FUNC_RESET };

		assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), 0);
		assert_int_equal(FAKE_REQ(c->f, i, struct bnxt_hwrm_req_hdr)->seq_id, i);
	}
}

/* FUNC_CFG (160 bytes) does not fit the window: the 16-byte short input
 * goes there, the request is read from host memory. */
static void test_short_command(void **state)
{
	struct ctx *c = *state;
	struct bnxt_hwrm_func_cfg_input req;
	const struct bnxt_hwrm_short_input *si = (const void *)c->f->win;

	memset(&req, 0, sizeof(req));
	req.hdr.req_type = BNXT_HWRM_FUNC_CFG;
	req.fid = BNXT_FID_SELF;
	req.num_tx_rings = 3;
	req.async_event_cr = 0x77;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), 0);
	assert_true(c->f->log[0].short_cmd);
	assert_int_equal(c->f->log[0].len, 160);
	assert_int_equal(c->f->log[0].win_writes, 16 / 4);
	assert_int_equal(si->req_type, BNXT_HWRM_FUNC_CFG);
	assert_int_equal(si->signature, 0x4321);
	assert_int_equal(si->target_id, 0);
	assert_int_equal(si->size, 160);
	assert_true(si->req_addr == c->bp->hwrm.sreq_iova);
	assert_memory_equal(c->f->log[0].bytes, &req, sizeof(req));

	/* SHORT_CMD_REQUIRED sends even a 24-byte request that way. */
	c->bp->hwrm.short_cmd_required = true;
	{
		struct bnxt_hwrm_func_reset_input r2 = { .hdr.req_type = BNXT_HWRM_FUNC_RESET };

		assert_int_equal(zn_bnxt_hwrm_send(c->bp, &r2, sizeof(r2), NULL, 0, 0), 0);
		assert_true(c->f->log[1].short_cmd);
		assert_int_equal(c->f->log[1].len, 24);
	}
}

static void test_short_command_refused(void **state)
{
	struct ctx *c = *state;
	struct bnxt_hwrm_func_cfg_input req;

	memset(&req, 0, sizeof(req));
	req.hdr.req_type = BNXT_HWRM_FUNC_CFG;
	c->bp->hwrm.max_ext_req_len = 128;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), -E2BIG);
	assert_true(fake_logs_have("FUNC_CFG is 160 bytes, longer than the firmware's "
				   "max_ext_req_len 128"));
	c->bp->hwrm.short_cmd = false;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), -EOPNOTSUPP);
	assert_true(fake_logs_have("the firmware does not accept short commands"));
	assert_int_equal(c->f->triggers, 0);
	assert_false(c->bp->hwrm.dead);
}

/* An answer with another seq_id is not ours: wait, time out, mark dead. */
static void test_wrong_seq_times_out(void **state)
{
	struct ctx *c = *state;
	struct bnxt_hwrm_func_reset_input req = { .hdr.req_type = BNXT_HWRM_FUNC_QCFG };
	uint32_t trig;

	c->bp->hwrm.timeout_ms = SHORT_TIMEOUT_MS;
	c->f->mis = FAKE_WRONG_SEQ;
	c->f->mis_type = 0xffff;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), -ETIMEDOUT);
	assert_true(fake_logs_have("FUNC_QCFG (0x16) timed out after 25 ms: the only response "
				   "carried seq_id 1, not ours (0)"));
	assert_true(c->bp->hwrm.dead);
	/* Dead channel: the next command fails at once, nothing is written. */
	trig = c->f->triggers;
	c->f->mis = FAKE_OK;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), -EIO);
	assert_int_equal(c->f->triggers, trig);
	assert_true(fake_logs_have("an earlier command timed out"));
}

static void test_missing_valid_byte_times_out(void **state)
{
	struct ctx *c = *state;
	struct bnxt_hwrm_func_reset_input req = { .hdr.req_type = BNXT_HWRM_FUNC_QCFG };

	c->bp->hwrm.timeout_ms = SHORT_TIMEOUT_MS;
	c->f->mis = FAKE_NO_VALID;
	c->f->mis_type = 0xffff;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), -ETIMEDOUT);
	assert_true(fake_logs_have("timed out after 25 ms with no complete response"));
}

/* No answer at all; FUNC_RESET waits four times the command timeout. */
static void test_silent_firmware(void **state)
{
	struct ctx *c = *state;
	struct bnxt_hwrm_func_reset_input req = { .hdr.req_type = BNXT_HWRM_FUNC_RESET };
	uint64_t t0;

	c->bp->hwrm.timeout_ms = SHORT_TIMEOUT_MS;
	c->f->mis = FAKE_SILENT;
	c->f->mis_type = 0xffff;
	t0 = zn_now_ms();
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), -ETIMEDOUT);
	assert_true(zn_now_ms() - t0 >= 4 * SHORT_TIMEOUT_MS);
	assert_true(zn_now_ms() - t0 < 40 * SHORT_TIMEOUT_MS);
	assert_true(fake_logs_have("FUNC_RESET (0x11) timed out after 100 ms"));
}

static void test_error_codes(void **state)
{
	static const struct {
		uint16_t code;
		int err;
		const char *name;
	} t[] = {
		{ BNXT_HWRM_ERR_FAIL, -EIO, "FAIL" },
		{ BNXT_HWRM_ERR_INVALID_PARAMS, -EINVAL, "INVALID_PARAMS" },
		{ BNXT_HWRM_ERR_RESOURCE_ACCESS_DENIED, -EACCES, "RESOURCE_ACCESS_DENIED" },
		{ BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR, -ENOSPC, "RESOURCE_ALLOC_ERROR" },
		{ BNXT_HWRM_ERR_INVALID_FLAGS, -EINVAL, "INVALID_FLAGS" },
		{ BNXT_HWRM_ERR_INVALID_ENABLES, -EINVAL, "INVALID_ENABLES" },
		{ BNXT_HWRM_ERR_BUSY, -EBUSY, "BUSY" },
		{ BNXT_HWRM_ERR_KEY_ALREADY_EXISTS, -EEXIST, "KEY_ALREADY_EXISTS" },
		{ BNXT_HWRM_ERR_ENTITY_NOT_PRESENT, -ENOENT, "ENTITY_NOT_PRESENT" },
		{ BNXT_HWRM_ERR_CMD_NOT_SUPPORTED, -EOPNOTSUPP, "CMD_NOT_SUPPORTED" },
		{ 0x1234, -EIO, "unknown error" },
	};
	struct ctx *c = *state;

	c->f->mis = FAKE_ERROR;
	c->f->mis_type = BNXT_HWRM_RING_ALLOC;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bnxt_hwrm_ring_alloc_input req = { .hdr.req_type = BNXT_HWRM_RING_ALLOC };
		char msg[160];

		c->f->err_code = t[i].code;
		c->f->cmd_err = (uint8_t)(i + 1);
		fake_logs.n = 0;
		assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), t[i].err);
		snprintf(msg, sizeof(msg), "RING_ALLOC (0x50) failed: firmware error 0x%x %s "
			 "(cmd_err %zu) -> %s", t[i].code, t[i].name, i + 1, strerror(-t[i].err));
		assert_true(fake_logs_have(msg));
		assert_false(c->bp->hwrm.dead);
	}
	/* The channel is still good. */
	{
		struct bnxt_hwrm_func_reset_input req = { .hdr.req_type = BNXT_HWRM_FUNC_RESET };

		assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), NULL, 0, 0), 0);
	}
}

static void test_bad_responses(void **state)
{
	struct ctx *c = *state;
	struct bnxt_hwrm_ver_get_input req = { .hdr.req_type = BNXT_HWRM_VER_GET };
	struct bnxt_hwrm_ver_get_output r;

	c->f->mis_type = 0xffff;
	c->f->mis = FAKE_BAD_LEN;
	c->f->bad_len = 5000;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), &r, sizeof(r), 0x80), -EIO);
	assert_true(fake_logs_have("response length 5000 is outside 8..4096"));
	c->f->bad_len = 4;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), &r, sizeof(r), 0x80), -EIO);
	c->f->bad_len = 16;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), &r, sizeof(r), 0x80), -EIO);
	assert_true(fake_logs_have("VER_GET: response of 16 bytes, at least 128 expected"));
	c->f->mis = FAKE_WRONG_TYPE;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), &r, sizeof(r), 0x80), -EIO);
	assert_true(fake_logs_have("VER_GET: the response is for req_type 0x1"));
	c->f->mis = FAKE_OK;
	assert_int_equal(zn_bnxt_hwrm_send(c->bp, &req, sizeof(req), &r, sizeof(r), 0x80), 0);
	assert_int_equal(r.chip_num, BNXT_CHIP_NUM_57508);
}

/* ---- bring-up and teardown through the driver's probe/ops -------------- */

struct port_ctx {
	struct fake_fw *f;
	struct zn_port port;
	struct fake_prov *prov;
};

static int setup_port_common(void **state, bool multidb)
{
	struct port_ctx *c = calloc(1, sizeof(*c));

	c->f = fake_new(multidb);
	c->port.bus = &c->f->dev;
	c->prov = fake_prov_new(2048, 1024);
	fake_logs_start();
	assert_int_equal(zn_bnxt_driver.probe(&c->port, BNXT_PCI_VENDOR_BROADCOM, BNXT_DEV_57508), 0);
	*state = c;
	return 0;
}

static int setup_port_mdb(void **state)
{
	return setup_port_common(state, true);
}

static int setup_port_legacy(void **state)
{
	return setup_port_common(state, false);
}

static int teardown_port(void **state)
{
	struct port_ctx *c = *state;

	if (c->port.ops)
		c->port.ops->close(&c->port);
	fake_prov_free(c->prov);
	fake_free(c->f);
	free(c);
	zn_log_set_sink(NULL, NULL);
	return 0;
}

static void expect_types(const struct fake_fw *f, unsigned from, const uint16_t *types, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (from + i >= f->nlog || f->log[from + i].type != types[i])
			fail_msg("command %u: got %s (0x%x), want %s (0x%x)", from + i,
				 from + i < f->nlog ? zn_bnxt_hwrm_cmd_name(f->log[from + i].type) : "none",
				 from + i < f->nlog ? f->log[from + i].type : 0,
				 zn_bnxt_hwrm_cmd_name(types[i]), types[i]);
	}
}

/* §4 steps 2-8, and what each request carries. */
static void test_probe_sequence(void **state)
{
	struct port_ctx *c = *state;
	struct bnxt *bp = c->port.priv;
	static const uint16_t want[] = {
		BNXT_HWRM_VER_GET, BNXT_HWRM_FUNC_RESET, BNXT_HWRM_FUNC_QCAPS,
		BNXT_HWRM_FUNC_BACKING_STORE_QCAPS, BNXT_HWRM_FUNC_BACKING_STORE_CFG,
		BNXT_HWRM_FUNC_QCFG, BNXT_HWRM_FUNC_DRV_RGTR, BNXT_HWRM_QUEUE_QPORTCFG,
	};
	const struct bnxt_hwrm_ver_get_input *vg = FAKE_REQ(c->f, 0, struct bnxt_hwrm_ver_get_input);
	const struct bnxt_hwrm_func_reset_input *fr =
		FAKE_REQ(c->f, 1, struct bnxt_hwrm_func_reset_input);
	const struct bnxt_hwrm_func_backing_store_cfg_input *bs =
		FAKE_REQ(c->f, 4, struct bnxt_hwrm_func_backing_store_cfg_input);
	const struct bnxt_hwrm_func_drv_rgtr_input *rg =
		FAKE_REQ(c->f, 6, struct bnxt_hwrm_func_drv_rgtr_input);
	const uint64_t *pte;
	const uint8_t *qp;

	assert_int_equal(c->f->nlog, sizeof(want) / sizeof(want[0]));
	expect_types(c->f, 0, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(vg->hwrm_intf_maj, 1);
	assert_int_equal(vg->hwrm_intf_min, 10);
	assert_int_equal(vg->hwrm_intf_upd, 3);
	assert_int_equal(fr->enables, 0);
	/* Backing store: short command of 256 bytes; counts as DPDK asks them. */
	assert_true(c->f->log[4].short_cmd);
	assert_int_equal(c->f->log[4].len, BNXT_BS_CFG_LEGACY_LEN);
	assert_int_equal(bs->enables, BNXT_BS_CFG_ENABLES_QP | BNXT_BS_CFG_ENABLES_SRQ |
				      BNXT_BS_CFG_ENABLES_CQ | BNXT_BS_CFG_ENABLES_VNIC |
				      BNXT_BS_CFG_ENABLES_STAT | BNXT_BS_CFG_ENABLES_TQM_SP |
				      BNXT_BS_CFG_ENABLES_TQM_RING(0) |
				      BNXT_BS_CFG_ENABLES_TQM_RING(1));
	assert_int_equal(bs->qp_num_entries, 32);
	assert_int_equal(bs->qp_num_qp1_entries, 2);
	assert_int_equal(bs->qp_num_l2_entries, 30);
	assert_int_equal(bs->qp_entry_size, 256);
	assert_int_equal(bs->qpc_pg_size_lvl, BNXT_BS_PG_SIZE_4K | BNXT_BS_LVL_1);
	assert_int_equal(bs->srq_pg_size_lvl, BNXT_BS_PG_SIZE_4K | BNXT_BS_LVL_0);
	assert_int_equal(bs->srq_num_entries, 16);
	assert_int_equal(bs->vnic_num_vnic_entries, 8);
	assert_int_equal(bs->vnic_num_ring_table_entries, 8);
	assert_int_equal(bs->stat_num_entries, 32);
	/* TQM: rounded to the multiple of 8, within 16..128. */
	assert_int_equal(bs->tqm_ring_num_entries[0], 32);
	/* 30 L2 QPs + 8 VNICs + 2 x 2 QP1 + 16 = 58, rounded up to 64. */
	assert_int_equal(bs->tqm_sp_num_entries, 64);
	assert_int_equal(bs->tqm_entry_size, 128);
	/* Level 1: a page of PTEs, each page | VALID; QP memory is initialised. */
	pte = (const uint64_t *)(uintptr_t)bs->qpc_page_dir;
	assert_true(pte[0] & BNXT_PTU_PTE_VALID);
	assert_true((pte[1] & ~0xfffull) == (pte[0] & ~0xfffull) + 4096);
	assert_false(pte[1] & (BNXT_PTU_PTE_LAST | BNXT_PTU_PTE_NEXT_TO_LAST));
	qp = (const uint8_t *)(uintptr_t)(pte[0] & ~0xfffull);
	assert_int_equal(qp[0], 0xab);
	assert_int_equal(qp[8191], 0xab);
	assert_int_equal(((const uint8_t *)(uintptr_t)bs->srq_page_dir)[0], 0);
	/* TQM_SP (a ring type) is 64 x 128 = 2 pages: LAST / NEXT_TO_LAST. */
	pte = (const uint64_t *)(uintptr_t)bs->tqm_sp_page_dir;
	assert_true(bs->tqm_sp_pg_size_lvl == (BNXT_BS_PG_SIZE_4K | BNXT_BS_LVL_1));
	assert_true(pte[0] & BNXT_PTU_PTE_NEXT_TO_LAST);
	assert_true(pte[1] & BNXT_PTU_PTE_LAST);
	/* FUNC_DRV_RGTR: OS type, version, events 0 (link) and 8 (reset). */
	assert_int_equal(rg->enables, BNXT_FUNC_DRV_RGTR_ENABLES_OS_TYPE |
				      BNXT_FUNC_DRV_RGTR_ENABLES_VER |
				      BNXT_FUNC_DRV_RGTR_ENABLES_ASYNC_EVENT_FWD);
	assert_int_equal(rg->async_event_fwd[0], 0x101);
	/* What probe learnt. */
	assert_int_equal(bp->tx_cos_queue, 5);
	assert_true(bp->multi_db);
	assert_int_equal(bp->first_dpi, 17);
	assert_int_equal(bp->num_dpis, 64);
	assert_int_equal(bp->hwrm.timeout_ms, 200);
	assert_true(c->f->bs_done);
}

static void configure_port(struct port_ctx *c, uint16_t nrx, uint16_t ntx)
{
	const struct zn_port_ops *ops = c->port.ops;
	struct zn_port_conf pc = { .nb_rxq = nrx, .nb_txq = ntx, .mtu = 1500 };
	struct zn_rxq_conf rq = { .ring_size = 64, .hds_thresh = 0, .hdr_buf_size = 256,
				  .payload = &c->prov->prov, .numa_node = -1 };
	struct zn_txq_conf tq = { .ring_size = 64, .numa_node = -1 };

	assert_int_equal(ops->configure(&c->port, &pc), 0);
	for (uint16_t q = 0; q < nrx; q++)
		assert_int_equal(ops->rxq_setup(&c->port, q, &rq), 0);
	for (uint16_t q = 0; q < ntx; q++)
		assert_int_equal(ops->txq_setup(&c->port, q, &tq), 0);
}

static uint64_t bar2_u64(const struct fake_fw *f, uint64_t off)
{
	uint64_t v;

	memcpy(&v, f->bar2 + off, 8);
	return v;
}

/* §4 steps 9-17, the teardown, and each ring's own doorbell page. */
static void check_start_stop(struct port_ctx *c, bool multidb)
{
	static const uint16_t start_seq[] = {
		BNXT_HWRM_FUNC_CFG, BNXT_HWRM_RING_ALLOC, BNXT_HWRM_FUNC_CFG,
		/* txq 0 */
		BNXT_HWRM_STAT_CTX_ALLOC, BNXT_HWRM_RING_ALLOC, BNXT_HWRM_RING_ALLOC,
		/* rxq 0, rxq 1 */
		BNXT_HWRM_STAT_CTX_ALLOC, BNXT_HWRM_RING_ALLOC, BNXT_HWRM_RING_ALLOC,
		BNXT_HWRM_RING_ALLOC,
		BNXT_HWRM_STAT_CTX_ALLOC, BNXT_HWRM_RING_ALLOC, BNXT_HWRM_RING_ALLOC,
		BNXT_HWRM_RING_ALLOC,
		BNXT_HWRM_VNIC_ALLOC, BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC, BNXT_HWRM_VNIC_CFG,
		BNXT_HWRM_VNIC_RSS_CFG, BNXT_HWRM_VNIC_PLCMODES_CFG, BNXT_HWRM_CFA_L2_FILTER_ALLOC,
		BNXT_HWRM_CFA_L2_SET_RX_MASK, BNXT_HWRM_PORT_PHY_QCFG,
	};
	static const uint16_t stop_seq[] = {
		BNXT_HWRM_CFA_L2_SET_RX_MASK, BNXT_HWRM_CFA_L2_FILTER_FREE, BNXT_HWRM_VNIC_FREE,
		BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE,
		BNXT_HWRM_RING_FREE, BNXT_HWRM_RING_FREE,	/* rxq 0: AGG, RX */
		BNXT_HWRM_RING_FREE, BNXT_HWRM_RING_FREE,	/* rxq 1 */
		BNXT_HWRM_RING_FREE,				/* txq 0: TX */
		BNXT_HWRM_RING_FREE, BNXT_HWRM_STAT_CTX_FREE,	/* rxq CQs, stat ctxs */
		BNXT_HWRM_RING_FREE, BNXT_HWRM_STAT_CTX_FREE,
		BNXT_HWRM_RING_FREE, BNXT_HWRM_STAT_CTX_FREE,	/* txq CQ */
		BNXT_HWRM_RING_FREE,				/* NQ */
	};
	const struct zn_port_ops *ops = c->port.ops;
	struct bnxt *bp = c->port.priv;
	unsigned base = c->f->nlog, n = sizeof(start_seq) / sizeof(start_seq[0]);
	const struct bnxt_hwrm_func_cfg_input *cfg;
	const struct bnxt_hwrm_ring_alloc_input_long *ra;
	const struct bnxt_rxq *rq;
	uint16_t nq_id, rx_cq_id, rx_id;

	configure_port(c, 2, 1);
	assert_int_equal(ops->start(&c->port), 0);
	assert_int_equal(c->f->nlog - base, n);
	expect_types(c->f, base, start_seq, n);

	cfg = FAKE_REQ(c->f, base, struct bnxt_hwrm_func_cfg_input);
	assert_true(c->f->log[base].short_cmd);
	assert_int_equal(cfg->num_tx_rings, 1);
	assert_int_equal(cfg->num_rx_rings, 4);		/* 2 RX + 2 AGG */
	assert_int_equal(cfg->num_cmpl_rings, 3);
	assert_int_equal(cfg->num_stat_ctxs, 3);
	assert_int_equal(cfg->num_vnics, 3);
	assert_int_equal(cfg->num_msix, 1);
	/* NQ: type 5, MSI-X, 4 KiB pages; its id becomes async_event_cr. */
	ra = FAKE_REQ(c->f, base + 1, struct bnxt_hwrm_ring_alloc_input_long);
	assert_int_equal(ra->base.ring_type, BNXT_RING_TYPE_NQ);
	assert_int_equal(ra->base.int_mode, BNXT_RING_ALLOC_INT_MODE_MSIX);
	assert_int_equal(ra->base.page_size, 12);
	nq_id = bp->nq.id;
	cfg = FAKE_REQ(c->f, base + 2, struct bnxt_hwrm_func_cfg_input);
	assert_int_equal(cfg->enables, BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR);
	assert_int_equal(cfg->async_event_cr, nq_id);
	if (multidb) {
		assert_true(ra->base.enables & BNXT_RING_ALLOC_ENABLES_DPI_VALID);
		assert_int_equal(ra->dpi, 17);
		assert_int_equal(c->f->log[base + 1].len, 128);	/* window read */
	} else {
		assert_false(ra->base.enables & BNXT_RING_ALLOC_ENABLES_DPI_VALID);
	}
	/* TX ring: its CQ, the lossy CoS queue, its stat context. */
	ra = FAKE_REQ(c->f, base + 5, struct bnxt_hwrm_ring_alloc_input_long);
	assert_int_equal(ra->base.ring_type, BNXT_RING_TYPE_TX);
	assert_int_equal(ra->base.cmpl_ring_id, bp->txq[0]->cq_ring.id);
	assert_int_equal(ra->base.queue_id, 5);
	assert_int_equal(ra->base.enables & ~BNXT_RING_ALLOC_ENABLES_DPI_VALID,
			 BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID);
	/* RX queue 0: CQ on the NQ, RX with the header size, AGG under the RX. */
	rq = bp->rxq[0];
	rx_cq_id = rq->cq.id;
	rx_id = rq->rx.id;
	ra = FAKE_REQ(c->f, base + 7, struct bnxt_hwrm_ring_alloc_input_long);
	assert_int_equal(ra->base.ring_type, BNXT_RING_TYPE_L2_CMPL);
	assert_int_equal(ra->base.nq_ring_id, nq_id);
	assert_true(ra->base.enables & BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID);
	assert_int_equal(ra->base.length, 256);		/* 2 x 64 + 128 */
	ra = FAKE_REQ(c->f, base + 8, struct bnxt_hwrm_ring_alloc_input_long);
	assert_int_equal(ra->base.ring_type, BNXT_RING_TYPE_RX);
	assert_int_equal(ra->base.rx_buf_size, 256);
	assert_int_equal(ra->base.length, 64);
	ra = FAKE_REQ(c->f, base + 9, struct bnxt_hwrm_ring_alloc_input_long);
	assert_int_equal(ra->base.ring_type, BNXT_RING_TYPE_RX_AGG);
	assert_int_equal(ra->base.rx_ring_id, rx_id);
	assert_int_equal(ra->base.rx_buf_size, 1024);
	assert_int_equal(ra->base.length, 128);
	assert_true(ra->base.enables & BNXT_RING_ALLOC_ENABLES_RX_RING_ID_VALID);
	/* VNIC_CFG names RX queue 0 and its CQ; PLCMODES splits from 0 bytes. */
	{
		const struct bnxt_hwrm_vnic_cfg_input *vc =
			FAKE_REQ(c->f, base + 16, struct bnxt_hwrm_vnic_cfg_input);
		const struct bnxt_hwrm_vnic_plcmodes_cfg_input *pm =
			FAKE_REQ(c->f, base + 18, struct bnxt_hwrm_vnic_plcmodes_cfg_input);
		const struct bnxt_hwrm_vnic_rss_cfg_input *rc =
			FAKE_REQ(c->f, base + 17, struct bnxt_hwrm_vnic_rss_cfg_input);
		const struct bnxt_rss_entry_p5 *tbl =
			(const void *)(uintptr_t)rc->ring_grp_tbl_addr;
		const struct bnxt_hwrm_cfa_l2_filter_alloc_input *l2 =
			FAKE_REQ(c->f, base + 19, struct bnxt_hwrm_cfa_l2_filter_alloc_input);
		static const uint8_t mac[6] = FAKE_MAC;

		assert_int_equal(vc->enables, 0x60);
		assert_int_equal(vc->default_rx_ring_id, rx_id);
		assert_int_equal(vc->default_cmpl_ring_id, rx_cq_id);
		assert_int_equal(vc->mru, 1518);
		assert_int_equal(pm->flags, BNXT_PLCMODES_CFG_FLAGS_JUMBO_PLACEMENT |
					    BNXT_PLCMODES_CFG_FLAGS_HDS_IPV4 |
					    BNXT_PLCMODES_CFG_FLAGS_HDS_IPV6);
		assert_int_equal(pm->jumbo_thresh, 256);
		assert_int_equal(pm->hds_threshold, 0);
		assert_int_equal(rc->hash_type, 0x3f);
		assert_int_equal(rc->ring_table_pair_index, 0);
		/* The default table alternates the two queues: {RX ring, CQ} pairs. */
		assert_int_equal(tbl[0].rx_ring_id, bp->rxq[0]->rx.id);
		assert_int_equal(tbl[0].cmpl_ring_id, bp->rxq[0]->cq.id);
		assert_int_equal(tbl[1].rx_ring_id, bp->rxq[1]->rx.id);
		assert_int_equal(tbl[63].cmpl_ring_id, bp->rxq[1]->cq.id);
		assert_memory_equal(l2->l2_addr, mac, 6);
		assert_int_equal(l2->dst_id, bp->vnic_id);
		assert_int_equal(FAKE_REQ(c->f, base + 20,
					  struct bnxt_hwrm_cfa_l2_set_rx_mask_input)->mask,
				 BNXT_RX_MASK_BCAST);
	}
	/* Doorbells: AGG and RX producers posted, CQ and NQ at 0. */
	if (multidb) {
		uint64_t agg_off = bnxt_mdb_db_off(rq->agg.db.dpi, 4096);
		uint64_t rx_off = bnxt_mdb_db_off(rq->rx.db.dpi, 4096);

		assert_int_equal(rq->cq.db.dpi, 20);	/* NQ 17, TX CQ 18, TX 19 */
		assert_int_equal(rq->rx.db.dpi, 21);
		assert_int_equal(rq->agg.db.dpi, 22);
		assert_true(bar2_u64(c->f, agg_off) == bnxt_db64(BNXT_DBR_TYPE_SRQ, rq->agg.id, 127));
		assert_true(bar2_u64(c->f, rx_off) == bnxt_db64(BNXT_DBR_TYPE_SRQ, rx_id, 63));
		assert_true(bar2_u64(c->f, bnxt_mdb_db_off(17, 4096)) ==
			    bnxt_db64(BNXT_DBR_TYPE_NQ, nq_id, 0));
		assert_true(bar2_u64(c->f, bnxt_mdb_db_off(rq->cq.db.dpi, 4096)) ==
			    bnxt_db64(BNXT_DBR_TYPE_CQ, rx_cq_id, 0));
		assert_true(bar2_u64(c->f, 0x10000) == 0);	/* the shared page is unused */
	} else {
		/* Everything shares one register: the last write was rxq 1's RX. */
		assert_true(bar2_u64(c->f, 0x10000) ==
			    bnxt_db64(BNXT_DBR_TYPE_SRQ, bp->rxq[1]->rx.id, 63));
	}
	assert_int_equal(fake_prov_held(c->prov), 2 * 127);
	assert_true(bp->link.up);
	assert_int_equal(bp->link.speed_mbps, 100000);

	base = c->f->nlog;
	ops->stop(&c->port);
	n = sizeof(stop_seq) / sizeof(stop_seq[0]);
	assert_int_equal(c->f->nlog - base, n);
	expect_types(c->f, base, stop_seq, n);
	/* Producer rings are freed with cmpl_ring = their CQ (HWRM_DONE there). */
	assert_int_equal(FAKE_REQ(c->f, base + 4, struct bnxt_hwrm_req_hdr)->cmpl_ring, rx_cq_id);
	assert_int_equal(FAKE_REQ(c->f, base + 4, struct bnxt_hwrm_ring_free_input)->ring_type,
			 BNXT_RING_TYPE_RX_AGG);
	assert_int_equal(FAKE_REQ(c->f, base + 5, struct bnxt_hwrm_ring_free_input)->ring_id, rx_id);
	assert_int_equal(FAKE_REQ(c->f, base + 9, struct bnxt_hwrm_req_hdr)->cmpl_ring, 0xffff);
	assert_int_equal(FAKE_REQ(c->f, base, struct bnxt_hwrm_cfa_l2_set_rx_mask_input)->mask, 0);
	assert_true(bp->rxq[0]->last_hwrm_done & BNXT_HWRM_DONE_SEEN);
	assert_false(fake_logs_have("no HWRM_DONE"));
	/* Nothing left on the device; every payload buffer back. */
	assert_int_equal(c->f->live_rings, 0);
	assert_int_equal(c->f->live_vnics, 0);
	assert_int_equal(c->f->live_stats, 0);
	assert_int_equal(c->f->live_filters, 0);
	assert_int_equal(c->f->live_rss, 0);
	assert_int_equal(fake_prov_held(c->prov), 0);
	assert_int_equal(c->prov->double_puts, 0);
	if (multidb)
		for (uint32_t i = 0; i < bp->num_dpis; i++)
			assert_int_equal(bp->dpi_used[i], 0);
}

static void test_start_stop_multidb(void **state)
{
	check_start_stop(*state, true);
}

static void test_start_stop_legacy(void **state)
{
	struct port_ctx *c = *state;

	assert_false(((struct bnxt *)c->port.priv)->multi_db);
	check_start_stop(c, false);
}

/* Start and stop 20 times, then close: balanced, FUNC_DRV_UNRGTR last. */
static void test_start_stop_20_times(void **state)
{
	struct port_ctx *c = *state;

	configure_port(c, 2, 2);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(c->port.ops->start(&c->port), 0);
		assert_int_equal(c->f->live_vnics, 1);
		c->port.ops->stop(&c->port);
		assert_int_equal(c->f->live_rings, 0);
		assert_int_equal(c->f->live_stats, 0);
		assert_int_equal(fake_prov_held(c->prov), 0);
	}
	c->port.ops->close(&c->port);
	c->port.ops = NULL;
	assert_int_equal(c->f->log[c->f->nlog - 1].type, BNXT_HWRM_FUNC_DRV_UNRGTR);
	assert_int_equal(c->prov->double_puts, 0);
}

/* A failure in the middle of start undoes what was allocated. */
static void test_start_failure_unwinds(void **state)
{
	struct port_ctx *c = *state;

	configure_port(c, 2, 1);
	c->f->mis = FAKE_ERROR;
	c->f->mis_type = BNXT_HWRM_VNIC_PLCMODES_CFG;
	c->f->err_code = BNXT_HWRM_ERR_INVALID_PARAMS;
	assert_int_equal(c->port.ops->start(&c->port), -EINVAL);
	assert_int_equal(c->f->live_rings, 0);
	assert_int_equal(c->f->live_vnics, 0);
	assert_int_equal(c->f->live_stats, 0);
	assert_int_equal(c->f->live_rss, 0);
	assert_int_equal(fake_prov_held(c->prov), 0);
	c->f->mis = FAKE_OK;
	assert_int_equal(c->port.ops->start(&c->port), 0);
	c->port.ops->stop(&c->port);
}

/* n-tuple rule: a VNIC for the queue (once), the match fields big-endian. */
static void test_ntuple_rules(void **state)
{
	struct port_ctx *c = *state;
	struct bnxt *bp = c->port.priv;
	struct zn_flow_match m = {
		.ip_version = 4, .ip_proto = 17,
		.dst_ip = { 10, 0, 0, 2 },
		.dst_port = __builtin_bswap16(4791),
	};
	const struct bnxt_hwrm_cfa_ntuple_filter_alloc_input *nt;
	uint32_t id1, id2;
	unsigned base;

	configure_port(c, 2, 1);
	assert_int_equal(c->port.ops->flow_add(&c->port, &m, 1, &id1), -EAGAIN);
	assert_int_equal(c->port.ops->start(&c->port), 0);
	base = c->f->nlog;
	assert_int_equal(c->port.ops->flow_add(&c->port, &m, 1, &id1), 0);
	{
		static const uint16_t want[] = {
			BNXT_HWRM_VNIC_ALLOC, BNXT_HWRM_VNIC_CFG, BNXT_HWRM_VNIC_PLCMODES_CFG,
			BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC,
		};

		expect_types(c->f, base, want, 4);
	}
	assert_int_equal(FAKE_REQ(c->f, base, struct bnxt_hwrm_vnic_alloc_input)->flags, 0);
	assert_int_equal(FAKE_REQ(c->f, base + 1, struct bnxt_hwrm_vnic_cfg_input)->default_rx_ring_id,
			 bp->rxq[1]->rx.id);
	nt = FAKE_REQ(c->f, base + 3, struct bnxt_hwrm_cfa_ntuple_filter_alloc_input);
	assert_int_equal(nt->enables, BNXT_NTUPLE_ENABLES_L2_FILTER_ID |
				      BNXT_NTUPLE_ENABLES_ETHERTYPE |
				      BNXT_NTUPLE_ENABLES_IPADDR_TYPE | BNXT_NTUPLE_ENABLES_DST_ID |
				      BNXT_NTUPLE_ENABLES_IP_PROTOCOL |
				      BNXT_NTUPLE_ENABLES_DST_IPADDR |
				      BNXT_NTUPLE_ENABLES_DST_IPADDR_MASK |
				      BNXT_NTUPLE_ENABLES_DST_PORT | BNXT_NTUPLE_ENABLES_DST_PORT_MASK);
	assert_true(nt->l2_filter_id == bp->l2_filter_id);
	assert_int_equal(((const uint8_t *)&nt->ethertype)[0], 0x08);
	assert_int_equal(((const uint8_t *)&nt->ethertype)[1], 0x00);
	assert_int_equal(nt->ip_addr_type, 4);
	assert_int_equal(nt->ip_protocol, 17);
	assert_int_equal(nt->dst_id, bp->rxq[1]->steer_vnic);
	assert_memory_equal(nt->dst_ipaddr, ((uint8_t[]){ 10, 0, 0, 2, 0 }), 5);
	assert_memory_equal(nt->dst_ipaddr_mask, ((uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0 }), 5);
	assert_int_equal(((const uint8_t *)&nt->dst_port)[0], 4791 >> 8);
	assert_int_equal(((const uint8_t *)&nt->dst_port)[1], 4791 & 0xff);
	/* A second rule to the same queue reuses its VNIC. */
	base = c->f->nlog;
	m.dst_port = __builtin_bswap16(4792);
	assert_int_equal(c->port.ops->flow_add(&c->port, &m, 1, &id2), 0);
	assert_int_equal(c->f->nlog - base, 1);
	assert_int_not_equal(id1, id2);
	assert_int_equal(c->f->live_ntuple, 2);
	assert_int_equal(c->port.ops->flow_del(&c->port, id1), 0);
	assert_int_equal(c->port.ops->flow_del(&c->port, id1), -ENOENT);
	assert_int_equal(c->f->live_ntuple, 1);
	m.ip_version = 5;
	assert_int_equal(c->port.ops->flow_add(&c->port, &m, 1, &id1), -EINVAL);
	c->port.ops->stop(&c->port);
	assert_int_equal(c->f->live_ntuple, 0);
	assert_int_equal(c->f->live_vnics, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_request_bytes_exact, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_seq_ids_increase, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_short_command, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_short_command_refused, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_wrong_seq_times_out, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_missing_valid_byte_times_out, setup_channel,
						teardown_channel),
		cmocka_unit_test_setup_teardown(test_silent_firmware, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_error_codes, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_bad_responses, setup_channel, teardown_channel),
		cmocka_unit_test_setup_teardown(test_probe_sequence, setup_port_mdb, teardown_port),
		cmocka_unit_test_setup_teardown(test_start_stop_multidb, setup_port_mdb, teardown_port),
		cmocka_unit_test_setup_teardown(test_start_stop_legacy, setup_port_legacy, teardown_port),
		cmocka_unit_test_setup_teardown(test_start_stop_20_times, setup_port_mdb, teardown_port),
		cmocka_unit_test_setup_teardown(test_start_failure_unwinds, setup_port_mdb, teardown_port),
		cmocka_unit_test_setup_teardown(test_ntuple_rules, setup_port_legacy, teardown_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
