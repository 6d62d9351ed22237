/* SPDX-License-Identifier: MIT */
/*
 * bnxt_badbd: malformed TX BDs must come back as error completions from the
 * bnxt model (hw-docs/bnxt.md section 14, "TX"), without the driver: this
 * program brings a TX ring up itself over core/bus with hand-built HWRM
 * requests and rings from drivers/bnxt/bnxt_hw.h, so that what the model
 * answers is judged against the interface document alone.
 *
 *   bnxt_badbd vfio-user:DIR/bnxt0.sock
 *
 * Bring-up (hw-docs/bnxt.md section 4, the TX part): VER_GET, FUNC_RESET,
 * FUNC_QCAPS, FUNC_BACKING_STORE_QCAPS/CFG, FUNC_DRV_RGTR, QUEUE_QPORTCFG,
 * FUNC_CFG, RING_ALLOC NQ, STAT_CTX_ALLOC, RING_ALLOC L2_CMPL, RING_ALLOC
 * TX. Doorbells go to the shared P5 doorbell at BAR2 + 0x10000, which the
 * model traps (no doorbell is lost, however slow). Teardown: FUNC_DRV_UNRGTR,
 * which frees every resource of the function.
 *
 * Prints TAP lines and "# bnxt_badbd: P passed, F failed"; exits non-zero
 * on any failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drivers/bnxt/bnxt_hw.h"
#include "tests/progs/prog_tap.h"
#include "zcnic/bus.h"
#include "zcnic/mem.h"

#define REGION_LEN		(4u << 20)
#define BS_REGION_LEN		(32u << 20)
#define PAGE			4096u
#define NQ_SIZE			64
#define CQ_SIZE			256
#define TX_SIZE			256
#define HWRM_TIMEOUT_MS		3000
#define CMPL_WAIT_MS		3000
#define UNMAPPED_IOVA		0x7ff000000000ull	/* far from any region */
#define FRAME_LEN		60
#define BIG_FRAME_LEN		1500
#define SENTINEL		0xfffe

struct hw {
	struct zn_bus_dev *d;
	struct zn_dma_region *r, *bs;
	size_t bump, bs_bump;
	uint16_t seq;
	uint16_t max_ext_req_len;
	uint8_t *resp, *shortbuf;
	uint64_t resp_iova, short_iova;
	uint16_t nq_id, cq_id, tx_id, queue_id;
	uint32_t stat_id;
	uint8_t *cq;
	uint32_t cq_raw;
	struct bnxt_tx_bd *tx;
	uint32_t tx_prod;
	uint8_t *frame, *big;
	uint64_t frame_iova, big_iova;
};

static struct hw hw;

/* ---- memory ---- */

static void *carve(size_t len, uint64_t *iova)
{
	size_t off = (hw.bump + PAGE - 1) & ~(size_t)(PAGE - 1);
	uint8_t *p;

	if (off + len > hw.r->len)
		return NULL;
	hw.bump = off + len;
	p = (uint8_t *)hw.r->va + off;
	*iova = hw.r->iova + off;
	memset(p, 0, len);
	return p;
}

static void *carve_bs(size_t len, uint64_t *iova)
{
	size_t off = (hw.bs_bump + PAGE - 1) & ~(size_t)(PAGE - 1);

	if (off + len > hw.bs->len)
		return NULL;
	hw.bs_bump = off + len;
	*iova = hw.bs->iova + off;
	return (uint8_t *)hw.bs->va + off;
}

/* ---- HWRM (hw-docs/bnxt.md section 3) ---- */

static const char *hwrm_name(uint16_t t)
{
	switch (t) {
	case BNXT_HWRM_VER_GET: return "VER_GET";
	case BNXT_HWRM_FUNC_RESET: return "FUNC_RESET";
	case BNXT_HWRM_FUNC_QCAPS: return "FUNC_QCAPS";
	case BNXT_HWRM_FUNC_CFG: return "FUNC_CFG";
	case BNXT_HWRM_FUNC_DRV_RGTR: return "FUNC_DRV_RGTR";
	case BNXT_HWRM_FUNC_DRV_UNRGTR: return "FUNC_DRV_UNRGTR";
	case BNXT_HWRM_QUEUE_QPORTCFG: return "QUEUE_QPORTCFG";
	case BNXT_HWRM_RING_ALLOC: return "RING_ALLOC";
	case BNXT_HWRM_STAT_CTX_ALLOC: return "STAT_CTX_ALLOC";
	case BNXT_HWRM_FUNC_BACKING_STORE_QCAPS: return "FUNC_BACKING_STORE_QCAPS";
	case BNXT_HWRM_FUNC_BACKING_STORE_CFG: return "FUNC_BACKING_STORE_CFG";
	default: return "HWRM";
	}
}

static int write_window(const void *req, uint32_t len, uint32_t pad_to)
{
	const uint8_t *b = req;

	for (uint32_t off = 0; off < pad_to; off += 4) {
		uint32_t w = 0;
		int rc;

		if (off < len)
			memcpy(&w, b + off, len - off < 4 ? len - off : 4);
		rc = zn_bus_write32(hw.d, BNXT_BAR_REGS, BNXT_GRCPF_REG_CHIMP_COMM + off, w);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Sends req (len bytes, header filled here) and copies up to out_len bytes
 * of the response to out. Returns the HWRM error_code (0 = success), or a
 * negative errno when the channel failed.
 */
static int hwrm(void *req, uint32_t len, void *out, uint32_t out_len)
{
	struct bnxt_hwrm_req_hdr *h = req;
	volatile struct bnxt_hwrm_resp_hdr *rh = (volatile void *)hw.resp;
	uint64_t deadline = zn_now_ms() + HWRM_TIMEOUT_MS;
	uint16_t seq = hw.seq++;
	int rc;

	h->cmpl_ring = BNXT_HWRM_CMPL_RING_NONE;
	h->seq_id = seq;
	h->target_id = BNXT_HWRM_TARGET_ID_HWRM;
	h->resp_addr = hw.resp_iova;
	memset(hw.resp, 0, PAGE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (len > BNXT_HWRM_MAX_REQ_LEN) {
		struct bnxt_hwrm_short_input s = {
			.req_type = h->req_type, .signature = BNXT_HWRM_SHORT_SIGNATURE,
			.size = (uint16_t)len, .req_addr = hw.short_iova,
		};

		memcpy(hw.shortbuf, req, len);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		rc = write_window(&s, sizeof(s), sizeof(s));
	} else {
		rc = write_window(req, len, BNXT_HWRM_MAX_REQ_LEN);
	}
	if (!rc)
		rc = zn_bus_write32(hw.d, BNXT_BAR_REGS, BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER,
				    BNXT_HWRM_TRIGGER_VALUE);
	if (rc) {
		tap_diag("%s: writing the request failed: %s", hwrm_name(h->req_type), strerror(-rc));
		return rc;
	}
	for (;;) {
		uint16_t rlen = rh->resp_len;

		if (rlen >= sizeof(struct bnxt_hwrm_resp_hdr) && rh->seq_id == seq &&
		    rlen <= PAGE && hw.resp[rlen - 1] == BNXT_HWRM_RESP_VALID_KEY) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			memcpy(out, hw.resp, out_len < rlen ? out_len : rlen);
			if (rh->error_code)
				tap_diag("%s: error_code %#x", hwrm_name(h->req_type), rh->error_code);
			return rh->error_code;
		}
		if (zn_now_ms() > deadline) {
			tap_diag("%s: no response within %d ms", hwrm_name(h->req_type),
				 HWRM_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
	}
}

static int bring_up_function(void)
{
	struct bnxt_hwrm_ver_get_output ver = { 0 };
	struct bnxt_hwrm_plain_output plain;
	struct bnxt_hwrm_func_qcaps_output qcaps = { 0 };
	struct bnxt_hwrm_func_drv_rgtr_output rgtr_out;
	struct bnxt_hwrm_queue_qportcfg_output qp = { 0 };
	int rc;

	struct bnxt_hwrm_ver_get_input vg = { .hdr.req_type = BNXT_HWRM_VER_GET };
	vg.hwrm_intf_maj = 1;
	vg.hwrm_intf_min = 10;
	vg.hwrm_intf_upd = 3;
	rc = hwrm(&vg, sizeof(vg), &ver, sizeof(ver));
	if (!tap_check(rc == 0 && ver.hwrm_intf_maj_8b == 1 && ver.max_req_win_len >= 128 &&
		       bnxt_chip_num_is_p5(ver.chip_num),
		       "VER_GET: interface 1.x, window %u, chip %#x (P5)", ver.max_req_win_len,
		       ver.chip_num))
		return -EIO;
	hw.max_ext_req_len = ver.max_ext_req_len;

	struct bnxt_hwrm_func_reset_input fr = { .hdr.req_type = BNXT_HWRM_FUNC_RESET };
	if (hwrm(&fr, sizeof(fr), &plain, sizeof(plain)))
		return -EIO;

	struct bnxt_hwrm_func_qcaps_input fq = { .hdr.req_type = BNXT_HWRM_FUNC_QCAPS };
	fq.fid = BNXT_FID_SELF;
	if (hwrm(&fq, sizeof(fq), &qcaps, sizeof(qcaps)))
		return -EIO;

	rc = -EIO;
	{
		struct bnxt_hwrm_hdr_only_input bq = { .hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_QCAPS };
		struct bnxt_hwrm_func_backing_store_qcaps_output bs = { 0 };
		struct bnxt_hwrm_func_backing_store_cfg_input cfg = {
			.hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_CFG };
		struct {
			uint32_t enable, entries, size;
			uint8_t *lvl;
			uint64_t *dir;
			uint32_t *num;
			uint16_t *esz;
		} t[] = {
			{ BNXT_BS_CFG_ENABLES_QP, 0, 0, &cfg.qpc_pg_size_lvl, &cfg.qpc_page_dir,
			  &cfg.qp_num_entries, &cfg.qp_entry_size },
			{ BNXT_BS_CFG_ENABLES_SRQ, 0, 0, &cfg.srq_pg_size_lvl, &cfg.srq_page_dir,
			  &cfg.srq_num_entries, &cfg.srq_entry_size },
			{ BNXT_BS_CFG_ENABLES_CQ, 0, 0, &cfg.cq_pg_size_lvl, &cfg.cq_page_dir,
			  &cfg.cq_num_entries, &cfg.cq_entry_size },
			{ BNXT_BS_CFG_ENABLES_VNIC, 0, 0, &cfg.vnic_pg_size_lvl, &cfg.vnic_page_dir,
			  NULL, &cfg.vnic_entry_size },
			{ BNXT_BS_CFG_ENABLES_STAT, 0, 0, &cfg.stat_pg_size_lvl, &cfg.stat_page_dir,
			  &cfg.stat_num_entries, &cfg.stat_entry_size },
			{ BNXT_BS_CFG_ENABLES_TQM_SP, 0, 0, &cfg.tqm_sp_pg_size_lvl,
			  &cfg.tqm_sp_page_dir, &cfg.tqm_sp_num_entries, &cfg.tqm_entry_size },
#define TQM_RING(n) { BNXT_BS_CFG_ENABLES_TQM_RING(n), 0, 0, &cfg.tqm_ring_pg_size_lvl[n], \
		      &cfg.tqm_ring_page_dir[n], &cfg.tqm_ring_num_entries[n], &cfg.tqm_entry_size }
			TQM_RING(0), TQM_RING(1), TQM_RING(2), TQM_RING(3),
			TQM_RING(4), TQM_RING(5), TQM_RING(6), TQM_RING(7),
#undef TQM_RING
		};
		uint32_t mult, tqm_ring, tqm_sp;

		if (hwrm(&bq, sizeof(bq), &bs, sizeof(bs)))
			return -EIO;
		/* The counts DPDK asks for ([REF] section 9). */
		t[0].entries = bs.qp_min_qp1_entries + bs.qp_max_l2_entries;
		t[0].size = bs.qp_entry_size;
		t[1].entries = bs.srq_max_l2_entries;
		t[1].size = bs.srq_entry_size;
		t[2].entries = bs.cq_max_l2_entries;
		t[2].size = bs.cq_entry_size;
		t[3].entries = bs.vnic_max_vnic_entries + bs.vnic_max_ring_table_entries;
		t[3].size = bs.vnic_entry_size;
		t[4].entries = bs.stat_max_entries;
		t[4].size = bs.stat_entry_size;
		/* TQM: DPDK's sizing ([REF] section 9), in multiples of tqm_entries_multiple */
		mult = bs.tqm_entries_multiple ? bs.tqm_entries_multiple : 1;
		tqm_ring = (bs.qp_max_l2_entries + bs.qp_min_qp1_entries + mult - 1) / mult * mult;
		if (tqm_ring < bs.tqm_min_entries_per_ring)
			tqm_ring = bs.tqm_min_entries_per_ring;
		if (tqm_ring > bs.tqm_max_entries_per_ring)
			tqm_ring = bs.tqm_max_entries_per_ring;
		tqm_sp = bs.qp_max_l2_entries + bs.vnic_max_vnic_entries +
			 2u * bs.qp_min_qp1_entries + bs.tqm_min_entries_per_ring;
		tqm_sp = (tqm_sp + mult - 1) / mult * mult;
		if (tqm_sp > bs.tqm_max_entries_per_ring)
			tqm_sp = bs.tqm_max_entries_per_ring;
		t[5].entries = tqm_sp;
		t[5].size = bs.tqm_entry_size;
		for (int r = 0; r < 8; r++) {
			t[6 + r].entries = tqm_ring;
			t[6 + r].size = bs.tqm_entry_size;
		}
		cfg.qp_num_qp1_entries = bs.qp_min_qp1_entries;
		cfg.qp_num_l2_entries = bs.qp_max_l2_entries;
		cfg.srq_num_l2_entries = bs.srq_max_l2_entries;
		cfg.cq_num_l2_entries = bs.cq_max_l2_entries;
		cfg.vnic_num_vnic_entries = bs.vnic_max_vnic_entries;
		cfg.vnic_num_ring_table_entries = bs.vnic_max_ring_table_entries;
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			size_t bytes = (size_t)t[i].entries * t[i].size;
			size_t pages = (bytes + PAGE - 1) / PAGE;
			uint64_t iova, pte_iova;
			uint8_t *mem;

			if (!bytes)
				continue;
			if (pages > PAGE / 8) {
				tap_diag("backing store type %zu wants %zu pages; more than one PTE page",
					 i, pages);
				return -E2BIG;
			}
			mem = carve_bs(pages * PAGE, &iova);
			if (!mem)
				return -ENOMEM;
			memset(mem, (bs.ctx_init_mask & t[i].enable) ? bs.ctx_kind_initializer : 0,
			       pages * PAGE);
			if (pages == 1) {
				*t[i].lvl = BNXT_BS_PG_SIZE_4K | BNXT_BS_LVL_0;
				*t[i].dir = iova;
			} else {
				uint64_t *pte = carve_bs(PAGE, &pte_iova);

				if (!pte)
					return -ENOMEM;
				for (size_t p = 0; p < pages; p++)
					pte[p] = (iova + p * PAGE) | BNXT_PTU_PTE_VALID;
				*t[i].lvl = BNXT_BS_PG_SIZE_4K | BNXT_BS_LVL_1;
				*t[i].dir = pte_iova;
			}
			if (t[i].num)
				*t[i].num = t[i].entries;
			*t[i].esz = (uint16_t)t[i].size;
			cfg.enables |= t[i].enable;
		}
		if (hwrm(&cfg, hw.max_ext_req_len >= sizeof(cfg) ? sizeof(cfg) : BNXT_BS_CFG_LEGACY_LEN,
			 &plain, sizeof(plain)))
			return -EIO;
	}

	struct bnxt_hwrm_func_drv_rgtr_input rg = { .hdr.req_type = BNXT_HWRM_FUNC_DRV_RGTR };
	rg.enables = BNXT_FUNC_DRV_RGTR_ENABLES_OS_TYPE | BNXT_FUNC_DRV_RGTR_ENABLES_VER |
		     BNXT_FUNC_DRV_RGTR_ENABLES_ASYNC_EVENT_FWD;
	rg.os_type = BNXT_FUNC_DRV_RGTR_OS_TYPE_OTHER;
	rg.async_event_fwd[0] = 1u << BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE |
				1u << BNXT_ASYNC_EVENT_RESET_NOTIFY;
	if (hwrm(&rg, sizeof(rg), &rgtr_out, sizeof(rgtr_out)))
		return -EIO;

	struct bnxt_hwrm_queue_qportcfg_input qc = { .hdr.req_type = BNXT_HWRM_QUEUE_QPORTCFG };
	qc.flags = BNXT_QUEUE_QPORTCFG_FLAGS_PATH_TX;
	if (hwrm(&qc, sizeof(qc), &qp, sizeof(qp)))
		return -EIO;
	hw.queue_id = qp.queue[0].id;
	for (int i = 0; i < 8 && i < qp.max_configurable_queues; i++)
		if (qp.queue[i].service_profile == BNXT_QUEUE_PROFILE_LOSSY) {
			hw.queue_id = qp.queue[i].id;
			break;
		}

	struct bnxt_hwrm_func_cfg_input fc = { .hdr.req_type = BNXT_HWRM_FUNC_CFG };
	fc.fid = BNXT_FID_SELF;
	fc.enables = BNXT_FUNC_CFG_ENABLES_NUM_CMPL_RINGS | BNXT_FUNC_CFG_ENABLES_NUM_TX_RINGS |
		     BNXT_FUNC_CFG_ENABLES_NUM_STAT_CTXS | BNXT_FUNC_CFG_ENABLES_NUM_MSIX;
	fc.num_cmpl_rings = 1;
	fc.num_tx_rings = 1;
	fc.num_stat_ctxs = 1;
	fc.num_msix = 1;
	if (hwrm(&fc, sizeof(fc), &plain, sizeof(plain)))
		return -EIO;
	return 0;
}

static int ring_alloc(uint8_t type, uint64_t ring_iova, uint32_t len, uint16_t *id)
{
	struct bnxt_hwrm_ring_alloc_output out = { 0 };
	struct bnxt_hwrm_ring_alloc_input ra = { .hdr.req_type = BNXT_HWRM_RING_ALLOC };

	ra.ring_type = type;
	ra.page_tbl_addr = ring_iova;
	ra.page_size = 12;
	ra.length = len;
	switch (type) {
	case BNXT_RING_TYPE_NQ:
		ra.int_mode = BNXT_RING_ALLOC_INT_MODE_MSIX;
		break;
	case BNXT_RING_TYPE_L2_CMPL:
		ra.enables = BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
		ra.nq_ring_id = hw.nq_id;
		ra.cq_handle = 0x1234;
		break;
	case BNXT_RING_TYPE_TX:
		ra.enables = BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID;
		ra.cmpl_ring_id = hw.cq_id;
		ra.queue_id = hw.queue_id;
		ra.stat_ctx_id = hw.stat_id;
		break;
	}
	if (hwrm(&ra, sizeof(ra), &out, sizeof(out)))
		return -EIO;
	*id = out.ring_id;
	return 0;
}

static int db(enum bnxt_dbr_type type, uint32_t xid, uint32_t idx)
{
	return zn_bus_write64(hw.d, BNXT_BAR_DB, BNXT_DB_PF_OFFSET_P5, bnxt_db64(type, xid, idx));
}

static int bring_up_rings(void)
{
	struct bnxt_hwrm_stat_ctx_alloc_output so = { 0 };
	uint64_t nq_iova, cq_iova, tx_iova, st_iova;

	if (!carve(NQ_SIZE * BNXT_CMPL_SIZE, &nq_iova) ||
	    !(hw.cq = carve(CQ_SIZE * BNXT_CMPL_SIZE, &cq_iova)) ||
	    !(hw.tx = carve(TX_SIZE * BNXT_BD_SIZE, &tx_iova)) ||
	    !carve(sizeof(struct bnxt_ctx_hw_stats), &st_iova) ||
	    !(hw.frame = carve(PAGE, &hw.frame_iova)) ||
	    !(hw.big = carve(BIG_FRAME_LEN, &hw.big_iova)))
		return -ENOMEM;
	if (ring_alloc(BNXT_RING_TYPE_NQ, nq_iova, NQ_SIZE, &hw.nq_id) ||
	    db(BNXT_DBR_TYPE_NQ, hw.nq_id, 0))
		return -EIO;

	struct bnxt_hwrm_stat_ctx_alloc_input sa = { .hdr.req_type = BNXT_HWRM_STAT_CTX_ALLOC };
	sa.stats_dma_addr = st_iova;
	sa.stats_dma_length = sizeof(struct bnxt_ctx_hw_stats);
	if (hwrm(&sa, sizeof(sa), &so, sizeof(so)))
		return -EIO;
	hw.stat_id = so.stat_ctx_id;
	if (ring_alloc(BNXT_RING_TYPE_L2_CMPL, cq_iova, CQ_SIZE, &hw.cq_id) ||
	    db(BNXT_DBR_TYPE_CQ, hw.cq_id, 0) ||
	    ring_alloc(BNXT_RING_TYPE_TX, tx_iova, TX_SIZE, &hw.tx_id))
		return -EIO;
	/* A broadcast frame: nobody on the wire needs to know our MAC. */
	memset(hw.frame, 0xff, 6);
	memcpy(hw.frame + 6, "\x02\x00\x00\xba\xdb\xd0\x88\xb5", 8);	/* local experimental type */
	memset(hw.frame + 14, 0x5a, PAGE - 14);
	memcpy(hw.big, hw.frame, 14);
	memset(hw.big + 14, 0xa5, BIG_FRAME_LEN - 14);
	return 0;
}

/* ---- the test packets ---- */

enum want { WANT_OK, WANT_NONE, WANT_ERR, WANT_ANY };

struct expect {
	uint32_t opaque;
	enum want want;
	uint16_t errors;	/* WANT_ERR: bits that must be set (0: any error bit) */
	const char *what;
	bool seen;
	uint16_t got_flags, got_errors;
};

static struct expect exp_[32];
static unsigned nexp;

static void expect(uint32_t opaque, enum want w, uint16_t errors, const char *what)
{
	exp_[nexp++] = (struct expect){ .opaque = opaque, .want = w, .errors = errors, .what = what };
}

static void bd(uint16_t flags_type, uint16_t len, uint32_t opaque, uint64_t addr)
{
	struct bnxt_tx_bd *b = &hw.tx[hw.tx_prod % TX_SIZE];

	b->flags_type = flags_type;
	b->len = len;
	b->opaque = opaque;
	b->addr = addr;
	hw.tx_prod++;
}

/* A well-formed one-BD packet. */
static void good(uint32_t opaque, uint16_t extra_flags)
{
	bd(BNXT_TX_BD_TYPE_SHORT | BNXT_TX_BD_FLAGS_PACKET_END | bnxt_tx_bd_cnt(1) |
	   bnxt_tx_lhint(FRAME_LEN) | extra_flags, FRAME_LEN, opaque, hw.frame_iova);
}

static void post_packets(void)
{
	const uint16_t end1 = BNXT_TX_BD_FLAGS_PACKET_END | bnxt_tx_bd_cnt(1);

	/* errors 0 below: the ERROR flag is required, the bits are the model's choice */
	good(1, 0);
	expect(1, WANT_OK, 0, "a well-formed packet");

	bd(BNXT_TX_BD_TYPE_SHORT | end1, 0, 2, hw.frame_iova);
	expect(2, WANT_ERR, BNXT_TX_CMPL_ERRORS_ZERO_LENGTH_PKT, "a zero-length BD");

	bd(BNXT_TX_BD_TYPE_SHORT | end1 | BNXT_TX_BD_FLAGS_NO_CMPL, 0, 3, hw.frame_iova);
	expect(3, WANT_ERR, BNXT_TX_CMPL_ERRORS_ZERO_LENGTH_PKT,
	       "a zero-length BD with NO_CMPL (errors complete anyway)");

	bd(BNXT_TX_BD_TYPE_SHORT | end1, FRAME_LEN, 4, UNMAPPED_IOVA);
	expect(4, WANT_ERR, BNXT_TX_CMPL_ERRORS_DMA_ERROR, "a BD pointing at unmapped memory");

	bd(BNXT_TX_BD_TYPE_SHORT | end1 | BNXT_TX_BD_FLAGS_LHINT_LT512, BIG_FRAME_LEN, 5,
	   hw.big_iova);
	expect(5, WANT_ERR, BNXT_TX_CMPL_ERRORS_HINT_TOO_SHORT,
	       "a 1500-byte packet with the <512 length hint");

	bd(BNXT_RX_BD_TYPE_PKT | end1, FRAME_LEN, 6, hw.frame_iova);
	expect(6, WANT_ERR, BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT,
	       "a first BD of RX type on a TX ring");

	/* BD_CNT 2 but PACKET_END on the first BD. Whether the model then skips
	 * the second slot or sends it as a packet of its own is its choice. */
	bd(BNXT_TX_BD_TYPE_SHORT | BNXT_TX_BD_FLAGS_PACKET_END | bnxt_tx_bd_cnt(2), FRAME_LEN, 7,
	   hw.frame_iova);
	good(8, 0);
	expect(7, WANT_ERR, BNXT_TX_CMPL_ERRORS_BUFFER_ERROR_BAD_FMT,
	       "BD_CNT 2 with PACKET_END on the first BD");
	expect(8, WANT_ANY, 0, "the slot after a BD_CNT mismatch");

	bd(BNXT_TX_BD_TYPE_SHORT | end1, 40, 9, hw.frame_iova);
	expect(9, WANT_ERR, 0, "a 40-byte packet (below the 52-byte minimum)");

	good(10, BNXT_TX_BD_FLAGS_NO_CMPL);
	expect(10, WANT_NONE, 0, "a well-formed packet with NO_CMPL");

	/* two BDs, correct: header + rest */
	bd(BNXT_TX_BD_TYPE_SHORT | bnxt_tx_bd_cnt(2) | bnxt_tx_lhint(FRAME_LEN), 14, 11,
	   hw.frame_iova);
	bd(BNXT_TX_BD_TYPE_SHORT | BNXT_TX_BD_FLAGS_PACKET_END, FRAME_LEN - 14, 0,
	   hw.frame_iova + 14);
	expect(11, WANT_OK, 0, "a well-formed two-BD packet after the bad ones");

	bd(BNXT_TX_BD_TYPE_SHORT | end1 | BNXT_TX_BD_FLAGS_NO_CMPL, FRAME_LEN, 12, UNMAPPED_IOVA);
	expect(12, WANT_ERR, BNXT_TX_CMPL_ERRORS_DMA_ERROR,
	       "a BD pointing at unmapped memory, with NO_CMPL");
	bd(BNXT_TX_BD_TYPE_SHORT | end1 | BNXT_TX_BD_FLAGS_LHINT_LT512 | BNXT_TX_BD_FLAGS_NO_CMPL,
	   BIG_FRAME_LEN, 13, hw.big_iova);
	expect(13, WANT_ERR, BNXT_TX_CMPL_ERRORS_HINT_TOO_SHORT,
	       "a 1500-byte packet with the <512 hint, with NO_CMPL");

	good(SENTINEL, 0);
	expect(SENTINEL, WANT_OK, 0, "the last packet");
}

static struct expect *find(uint32_t opaque)
{
	for (unsigned i = 0; i < nexp; i++)
		if (exp_[i].opaque == opaque)
			return &exp_[i];
	return NULL;
}

/* Reads TX completions until the sentinel's, or the deadline. */
static unsigned reap(unsigned *unexpected)
{
	uint64_t deadline = zn_now_ms() + CMPL_WAIT_MS;
	unsigned n = 0;

	*unexpected = 0;
	while (zn_now_ms() < deadline) {
		uint8_t *slot = hw.cq + (hw.cq_raw % CQ_SIZE) * BNXT_CMPL_SIZE;
		struct bnxt_tx_cmpl c;
		struct expect *e;

		if (!bnxt_cmpl_valid(slot, hw.cq_raw, CQ_SIZE))
			continue;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		memcpy(&c, slot, sizeof(c));
		hw.cq_raw += bnxt_cmpl_slots(c.flags_type & BNXT_CMPL_TYPE_MASK);
		db(BNXT_DBR_TYPE_CQ, hw.cq_id, hw.cq_raw % CQ_SIZE);
		n++;
		if ((c.flags_type & BNXT_CMPL_TYPE_MASK) != BNXT_CMPL_TYPE_TX_L2) {
			tap_diag("completion of type %#x on the TX CQ", c.flags_type & 0x3f);
			(*unexpected)++;
			continue;
		}
		e = find(c.opaque);
		if (!e || e->seen) {
			tap_diag("completion with opaque %#x: %s", c.opaque,
				 e ? "twice" : "never posted");
			(*unexpected)++;
			continue;
		}
		e->seen = true;
		e->got_flags = c.flags_type;
		e->got_errors = c.errors_v & (uint16_t)~BNXT_CMPL_V;
		if (c.opaque == SENTINEL)
			break;
	}
	return n;
}

static void judge(void)
{
	for (unsigned i = 0; i < nexp; i++) {
		const struct expect *e = &exp_[i];
		bool err = e->got_flags & BNXT_TX_CMPL_FLAGS_ERROR;

		switch (e->want) {
		case WANT_OK:
			tap_check(e->seen && !err && !e->got_errors,
				  "%s: completed without error (seen %d, flags %#x, errors %#x)",
				  e->what, e->seen, e->got_flags, e->got_errors);
			break;
		case WANT_NONE:
			tap_check(!e->seen, "%s: no completion", e->what);
			break;
		case WANT_ERR:
			tap_check(e->seen && err && (e->got_errors & e->errors) == e->errors,
				  "%s: error completion with errors %#x (seen %d, flags %#x, "
				  "errors %#x)", e->what, e->errors, e->seen, e->got_flags,
				  e->got_errors);
			break;
		case WANT_ANY:
			tap_diag("%s: %s", e->what, !e->seen ? "no completion" :
				 err ? "error completion" : "sent");
			break;
		}
	}
}

int main(int argc, char **argv)
{
	struct zn_bus_open_opts opts = { .timeout_ms = HWRM_TIMEOUT_MS };
	uint16_t vendor = 0, device = 0;
	unsigned unexpected = 0, n;
	bool mapped = false, bs_mapped = false;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: bnxt_badbd vfio-user:DIR/DEV.sock\n");
		return 2;
	}
	rc = zn_bus_open(argv[1], &opts, &hw.d);
	if (!tap_check(rc == 0, "open %s (%s)", argv[1], strerror(-rc)))
		return tap_done("bnxt_badbd");
	zn_bus_cfg_read16(hw.d, 0, &vendor);
	zn_bus_cfg_read16(hw.d, 2, &device);
	if (!tap_check(vendor == BNXT_PCI_VENDOR_BROADCOM && bnxt_dev_is_p5(device),
		       "a P5 bnxt (%04x:%04x)", vendor, device))
		goto out;
	if (zn_bus_enable_bus_master(hw.d) ||
	    zn_dma_region_alloc("badbd", REGION_LEN, -1, 0, &hw.r) ||
	    zn_dma_region_alloc("badbd-bs", BS_REGION_LEN, -1, 0, &hw.bs))
		goto out;
	mapped = zn_bus_dma_map(hw.d, hw.r) == 0;
	bs_mapped = zn_bus_dma_map(hw.d, hw.bs) == 0;
	if (!tap_check(mapped && bs_mapped, "DMA memory mapped"))
		goto out;
	hw.resp = carve(PAGE, &hw.resp_iova);
	hw.shortbuf = carve(PAGE, &hw.short_iova);
	rc = bring_up_function();
	if (!tap_check(rc == 0, "function bring-up (HWRM up to FUNC_CFG)"))
		goto out;
	rc = bring_up_rings();
	if (!tap_check(rc == 0, "NQ, stat context, CQ and TX ring allocated (nq %u, cq %u, tx %u)",
		       hw.nq_id, hw.cq_id, hw.tx_id))
		goto out;

	/* A doorbell naming no ring must be dropped, not crash anything. */
	db(BNXT_DBR_TYPE_SQ, 0xfffff, 1);

	post_packets();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	db(BNXT_DBR_TYPE_SQ, hw.tx_id, hw.tx_prod % TX_SIZE);
	n = reap(&unexpected);
	tap_diag("%u completions read", n);
	judge();
	tap_check(unexpected == 0, "no completion that was not asked for");
	{
		struct bnxt_hwrm_plain_output plain;
		struct bnxt_hwrm_func_drv_unrgtr_input un = { .hdr.req_type = BNXT_HWRM_FUNC_DRV_UNRGTR };

		tap_check(hwrm(&un, sizeof(un), &plain, sizeof(plain)) == 0,
			  "FUNC_DRV_UNRGTR after the bad BDs");
	}
out:
	if (bs_mapped)
		zn_bus_dma_unmap(hw.d, hw.bs);
	if (mapped)
		zn_bus_dma_unmap(hw.d, hw.r);
	zn_bus_close(hw.d);
	if (hw.bs)
		zn_dma_region_free(hw.bs);
	if (hw.r)
		zn_dma_region_free(hw.r);
	return tap_done("bnxt_badbd");
}
