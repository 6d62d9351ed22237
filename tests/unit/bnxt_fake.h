/* SPDX-License-Identifier: MIT */
/*
 * A fake bnxt function behind a fake bus, for the driver's unit tests: it
 * takes HWRM requests from the BAR0 window exactly as hw-docs/bnxt.md §3
 * describes (32-bit window writes, the trigger, short commands by DMA) and
 * answers them with the layouts of drivers/bnxt/bnxt_hw.h. It hands out ids,
 * writes HWRM_DONE on the CQ a RING_FREE names, keeps every request in a
 * log, and can misbehave on request: wrong seq_id, no valid byte, no answer,
 * an error code, a garbage length. BAR2 is plain memory, so doorbells can be
 * read back. Included by one test file each (static functions).
 */
#ifndef ZN_TEST_BNXT_FAKE_H
#define ZN_TEST_BNXT_FAKE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/bnxt/bnxt.h"
#include "fake_prov.h"
#include "zcnic/bus.h"
#include "zcnic/log.h"

/* Each test file uses a part of this header. */
#define FAKE_STATIC static __attribute__((unused))

#define FAKE_BAR0_SIZE		0x1000
#define FAKE_BAR2_SIZE		0x80000
#define FAKE_LOG_MAX		512
#define FAKE_MAX_RINGS		256
#define FAKE_MAC		{ 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 }

enum fake_misbehave {
	FAKE_OK = 0,
	FAKE_WRONG_SEQ,		/* answer with seq_id + 1 */
	FAKE_NO_VALID,		/* whole response but the valid byte */
	FAKE_SILENT,		/* no response at all */
	FAKE_ERROR,		/* error_code = err_code, cmd_err */
	FAKE_BAD_LEN,		/* resp_len = bad_len */
	FAKE_WRONG_TYPE,	/* req_type echo + 1 */
};

struct fake_req {
	uint16_t type;
	uint16_t len;		/* bytes of the request as the device read it */
	uint16_t win_writes;	/* 32-bit window stores before the trigger */
	bool short_cmd;
	uint8_t bytes[336] __attribute__((aligned(16)));
};

struct fake_ring {
	bool live;
	uint8_t type;
	uint32_t size;
	uint8_t *va;
	uint32_t prod;		/* completions written (CQ) */
	uint16_t dpi;
};

struct fake_fw {
	struct zn_bus_dev dev;
	uint8_t win[256];
	uint32_t win_writes;	/* 32-bit stores into the window since the last trigger */
	uint32_t triggers;
	uint32_t bar2_writes;	/* trapped doorbell writes */
	uint8_t *bar2;
	bool multidb;		/* offer MULTI_L2_DB_SUPPORTED */
	bool no_short;		/* VER_GET without SHORT_CMD_SUPPORTED */
	/* misbehaviour, for the next matching command (type 0xffff: any) */
	enum fake_misbehave mis;
	uint16_t mis_type;
	uint16_t err_code;
	uint8_t cmd_err;
	uint16_t bad_len;
	/* log */
	unsigned nlog;
	struct fake_req log[FAKE_LOG_MAX];
	/* resources */
	uint16_t next_id;
	struct fake_ring ring[FAKE_MAX_RINGS];
	unsigned live_rings, live_vnics, live_stats, live_filters, live_ntuple, live_rss;
	bool bs_done;
};

FAKE_STATIC struct fake_fw *fake_of(struct zn_bus_dev *d)
{
	return (struct fake_fw *)d;
}

FAKE_STATIC void fake_put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

FAKE_STATIC struct fake_ring *fake_ring_by_id(struct fake_fw *f, uint16_t id)
{
	return id < FAKE_MAX_RINGS && f->ring[id].live ? &f->ring[id] : NULL;
}

/* Post a 16-byte record on a fake CQ with the phase of its slot. */
FAKE_STATIC void fake_cq_post(struct fake_ring *r, const void *rec)
{
	uint8_t *slot = r->va + (size_t)(r->prod & (r->size - 1)) * 16;
	uint8_t tmp[16];

	memcpy(tmp, rec, 16);
	tmp[8] = (uint8_t)((tmp[8] & ~1u) | bnxt_cmpl_phase(r->prod, r->size));
	memcpy(slot, tmp, 8);
	memcpy(slot + 12, tmp + 12, 4);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(slot + 8, tmp + 8, 4);
	r->prod++;
}

/* Build the answer to one request in out; returns the response length. */
FAKE_STATIC uint16_t fake_answer(struct fake_fw *f, const uint8_t *req, uint8_t *out)
{
	const struct bnxt_hwrm_req_hdr *h = (const void *)req;
	uint16_t len = 16;

	switch (h->req_type) {
	case BNXT_HWRM_VER_GET: {
		struct bnxt_hwrm_ver_get_output *r = (void *)out;

		r->hwrm_intf_maj_8b = 1;
		r->hwrm_intf_min_8b = 10;
		r->hwrm_intf_upd_8b = 3;
		r->hwrm_fw_maj_8b = 230;
		r->chip_num = BNXT_CHIP_NUM_57508;
		r->max_req_win_len = 128;
		r->max_resp_len = 704;
		r->def_req_timeout = 200;
		r->dev_caps_cfg = f->no_short ? 0 : BNXT_VER_GET_DEV_CAPS_SHORT_CMD_SUPPORTED;
		r->always_1 = 1;
		r->max_ext_req_len = 336;
		len = sizeof(*r);
		break;
	}
	case BNXT_HWRM_FUNC_QCAPS: {
		struct bnxt_hwrm_func_qcaps_output_long *r = (void *)out;
		static const uint8_t mac[6] = FAKE_MAC;

		r->fid = 0;
		r->port_id = 0;
		memcpy(r->mac_address, mac, 6);
		r->max_rsscos_ctx = 16;
		r->max_cmpl_rings = 32;
		r->max_tx_rings = 16;
		r->max_rx_rings = 32;
		r->max_l2_ctxs = 8;
		r->max_vnics = 16;
		r->max_stat_ctx = 32;
		if (f->multidb) {
			r->flags_ext3 = BNXT_FUNC_QCAPS_FLAGS_EXT3_MULTI_L2_DB_SUPPORTED;
			len = sizeof(*r);
		} else {
			len = sizeof(struct bnxt_hwrm_func_qcaps_output);
		}
		break;
	}
	case BNXT_HWRM_FUNC_BACKING_STORE_QCAPS: {
		struct bnxt_hwrm_func_backing_store_qcaps_output *r = (void *)out;

		r->qp_max_entries = 64;
		r->qp_min_qp1_entries = 2;
		r->qp_max_l2_entries = 30;
		r->qp_entry_size = 256;		/* 32 x 256 = 2 pages: level 1 */
		r->srq_max_l2_entries = 16;
		r->srq_max_entries = 32;
		r->srq_entry_size = 64;
		r->cq_max_l2_entries = 32;
		r->cq_max_entries = 64;
		r->cq_entry_size = 64;
		r->vnic_max_vnic_entries = 8;
		r->vnic_max_ring_table_entries = 8;
		r->vnic_entry_size = 64;
		r->stat_max_entries = 32;
		r->stat_entry_size = 64;
		r->tqm_entry_size = 128;
		r->tqm_min_entries_per_ring = 16;
		r->tqm_max_entries_per_ring = 128;
		r->tqm_entries_multiple = 8;
		r->tqm_fp_rings_count = 2;
		r->ctx_kind_initializer = 0xab;
		r->ctx_init_mask = BNXT_BS_CTX_INIT_MASK_QP | BNXT_BS_CTX_INIT_MASK_CQ;
		len = sizeof(*r);
		break;
	}
	case BNXT_HWRM_FUNC_BACKING_STORE_CFG:
		f->bs_done = true;
		break;
	case BNXT_HWRM_FUNC_QCFG: {
		struct bnxt_hwrm_func_qcfg_output_long *r = (void *)out;

		r->admin_mtu = 1500;
		r->mru = 1518;
		r->l2_doorbell_bar_size_kb = FAKE_BAR2_SIZE / 1024;
		r->db_page_size = 0;
		if (f->multidb) {
			r->l2_db_multi_page_size_kb = 256;	/* 64 DPIs, 17..80 */
			len = sizeof(*r);
		} else {
			len = sizeof(struct bnxt_hwrm_func_qcfg_output);
		}
		break;
	}
	case BNXT_HWRM_QUEUE_QPORTCFG: {
		struct bnxt_hwrm_queue_qportcfg_output *r = (void *)out;

		r->max_configurable_queues = 2;
		r->queue[0].id = 0;
		r->queue[0].service_profile = BNXT_QUEUE_PROFILE_LOSSLESS;
		r->queue[1].id = 5;
		r->queue[1].service_profile = BNXT_QUEUE_PROFILE_LOSSY;
		len = sizeof(*r);
		break;
	}
	case BNXT_HWRM_RING_ALLOC: {
		const struct bnxt_hwrm_ring_alloc_input_long *in = (const void *)req;
		struct bnxt_hwrm_ring_alloc_output *r = (void *)out;
		uint16_t id = 1;

		while (id < FAKE_MAX_RINGS - 1 && f->ring[id].live)
			id++;		/* the lowest free ring id, never 0 */

		f->ring[id].live = true;
		f->ring[id].type = in->base.ring_type;
		f->ring[id].size = in->base.length;
		f->ring[id].va = (uint8_t *)(uintptr_t)in->base.page_tbl_addr;
		f->ring[id].prod = 0;
		f->ring[id].dpi = (in->base.enables & BNXT_RING_ALLOC_ENABLES_DPI_VALID) ? in->dpi : 0;
		f->live_rings++;
		r->ring_id = id;
		break;
	}
	case BNXT_HWRM_RING_FREE: {
		const struct bnxt_hwrm_ring_free_input *in = (const void *)req;
		struct fake_ring *cq = fake_ring_by_id(f, h->cmpl_ring);

		if (fake_ring_by_id(f, in->ring_id)) {
			f->ring[in->ring_id].live = false;
			f->live_rings--;
		}
		if (cq) {
			struct bnxt_hwrm_done_cmpl d = {
				.type = BNXT_CMPL_TYPE_HWRM_DONE,
				.sequence_id = h->seq_id,
			};

			fake_cq_post(cq, &d);
		}
		break;
	}
	case BNXT_HWRM_STAT_CTX_ALLOC:
		((struct bnxt_hwrm_stat_ctx_alloc_output *)(void *)out)->stat_ctx_id = f->next_id++;
		f->live_stats++;
		break;
	case BNXT_HWRM_STAT_CTX_FREE:
		f->live_stats--;
		break;
	case BNXT_HWRM_VNIC_ALLOC:
		((struct bnxt_hwrm_vnic_alloc_output *)(void *)out)->vnic_id = f->next_id++;
		f->live_vnics++;
		break;
	case BNXT_HWRM_VNIC_FREE:
		f->live_vnics--;
		break;
	case BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC:
		((struct bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output *)(void *)out)->rss_cos_lb_ctx_id =
			f->next_id++;
		f->live_rss++;
		break;
	case BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE:
		f->live_rss--;
		break;
	case BNXT_HWRM_CFA_L2_FILTER_ALLOC:
		((struct bnxt_hwrm_cfa_l2_filter_alloc_output *)(void *)out)->l2_filter_id =
			0x1000000000ull + f->next_id++;
		f->live_filters++;
		len = 24;
		break;
	case BNXT_HWRM_CFA_L2_FILTER_FREE:
		f->live_filters--;
		break;
	case BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC:
		((struct bnxt_hwrm_cfa_ntuple_filter_alloc_output *)(void *)out)->ntuple_filter_id =
			0x2000000000ull + f->next_id++;
		f->live_ntuple++;
		len = 24;
		break;
	case BNXT_HWRM_CFA_NTUPLE_FILTER_FREE:
		f->live_ntuple--;
		break;
	case BNXT_HWRM_PORT_PHY_QCFG: {
		struct bnxt_hwrm_port_phy_qcfg_output *r = (void *)out;

		r->link = BNXT_PORT_PHY_QCFG_LINK_LINK;
		r->link_speed = BNXT_LINK_SPEED_100GB;
		r->duplex_cfg = 1;
		len = sizeof(*r);
		break;
	}
	default:
		break;
	}
	return len;
}

FAKE_STATIC void fake_trigger(struct fake_fw *f)
{
	uint8_t req[336] = { 0 }, out[BNXT_HWRM_RESP_BUF];
	const struct bnxt_hwrm_req_hdr *h;
	struct fake_req *lr;
	uint16_t sig, len;
	uint8_t *resp;
	bool misbehave;

	memcpy(&sig, f->win + 2, 2);
	f->triggers++;
	/* A full log keeps answering; the last entry is overwritten. */
	lr = &f->log[f->nlog < FAKE_LOG_MAX ? f->nlog++ : FAKE_LOG_MAX - 1];
	lr->win_writes = (uint16_t)f->win_writes;
	if (sig == BNXT_HWRM_SHORT_SIGNATURE) {
		const struct bnxt_hwrm_short_input *si = (const void *)f->win;

		lr->len = si->size > sizeof(req) ? sizeof(req) : si->size;
		memcpy(req, (const void *)(uintptr_t)si->req_addr, lr->len);
		lr->short_cmd = true;
	} else {
		memcpy(req, f->win, 128);
		lr->len = 128;
		lr->short_cmd = false;
	}
	memcpy(lr->bytes, req, sizeof(lr->bytes));
	h = (const void *)req;
	lr->type = h->req_type;
	f->win_writes = 0;

	misbehave = f->mis && (f->mis_type == 0xffff || f->mis_type == h->req_type);
	if (misbehave && f->mis == FAKE_SILENT)
		return;
	memset(out, 0, sizeof(out));
	len = fake_answer(f, req, out);
	if (misbehave && f->mis == FAKE_ERROR) {
		struct bnxt_hwrm_err_output *e = (void *)out;

		memset(out, 0, 16);
		e->hdr.error_code = f->err_code;
		e->cmd_err = f->cmd_err;
		len = 16;
	}
	fake_put16(out + 0x2, misbehave && f->mis == FAKE_WRONG_TYPE ? h->req_type + 1 : h->req_type);
	fake_put16(out + 0x4, misbehave && f->mis == FAKE_WRONG_SEQ ? h->seq_id + 1 : h->seq_id);
	resp = (uint8_t *)(uintptr_t)h->resp_addr;
	if (misbehave && f->mis == FAKE_BAD_LEN) {
		/* A length the buffer can hold is honoured (valid byte and all);
		 * an impossible one comes with the header only. */
		fake_put16(out + 0x6, f->bad_len);
		if (f->bad_len < 8 || f->bad_len > BNXT_HWRM_RESP_BUF) {
			memcpy(resp, out, 8);
			return;
		}
		len = f->bad_len;
	}
	fake_put16(out + 0x6, len);
	/* Everything but the valid byte, then the valid byte (§3.3). */
	memcpy(resp, out, len - 1u);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (!(misbehave && f->mis == FAKE_NO_VALID))
		resp[len - 1] = BNXT_HWRM_RESP_VALID_KEY;
}

FAKE_STATIC int fake_region_write(struct zn_bus_dev *d, uint32_t index, uint64_t off, const void *buf,
			     size_t len)
{
	struct fake_fw *f = fake_of(d);

	if (index == ZN_BUS_CONFIG)
		return 0;
	if (index == BNXT_BAR_DB) {
		if (off + len > FAKE_BAR2_SIZE)
			return -EINVAL;
		memcpy(f->bar2 + off, buf, len);
		f->bar2_writes++;
		return 0;
	}
	if (index != BNXT_BAR_REGS || len != 4)
		return -EINVAL;
	if (off + 4 <= sizeof(f->win) && off < BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER) {
		memcpy(f->win + off, buf, 4);
		f->win_writes++;
		return 0;
	}
	if (off == BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER) {
		uint32_t v;

		memcpy(&v, buf, 4);
		if (v == BNXT_HWRM_TRIGGER_VALUE)
			fake_trigger(f);
		return 0;
	}
	return -EINVAL;
}

FAKE_STATIC int fake_region_read(struct zn_bus_dev *d, uint32_t index, uint64_t off, void *buf,
			    size_t len)
{
	static const uint16_t ids[2] = { BNXT_PCI_VENDOR_BROADCOM, BNXT_DEV_57508 };

	(void)d;
	memset(buf, 0, len);
	if (index == ZN_BUS_CONFIG && off == 0 && len >= 2)
		memcpy(buf, &ids[0], 2);
	else if (index == ZN_BUS_CONFIG && off == 2 && len >= 2)
		memcpy(buf, &ids[1], 2);
	else if (index == ZN_BUS_CONFIG && off == 4 && len >= 2)
		fake_put16(buf, 0x6);	/* memory + bus master stick */
	return 0;
}

FAKE_STATIC int fake_region_info(struct zn_bus_dev *d, uint32_t index, struct zn_region_info *info)
{
	(void)d;
	memset(info, 0, sizeof(*info));
	info->index = index;
	info->flags = ZN_REGION_F_READ | ZN_REGION_F_WRITE;
	if (index == BNXT_BAR_REGS)
		info->size = FAKE_BAR0_SIZE;
	else if (index == BNXT_BAR_DB) {
		info->size = FAKE_BAR2_SIZE;
		info->flags |= ZN_REGION_F_MMAP;
	}
	return 0;
}

FAKE_STATIC int fake_map_region(struct zn_bus_dev *d, uint32_t index, void **va)
{
	if (index != BNXT_BAR_DB)
		return -EINVAL;
	*va = fake_of(d)->bar2;
	return 0;
}

FAKE_STATIC int fake_unmap_region(struct zn_bus_dev *d, uint32_t index)
{
	d->region_va[index] = NULL;
	return 0;
}

FAKE_STATIC int fake_dma(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	(void)d;
	(void)r;
	return 0;
}

FAKE_STATIC int fake_reset(struct zn_bus_dev *d)
{
	(void)d;
	return 0;
}

FAKE_STATIC const struct zn_bus_ops fake_bus_ops = {
	.name = "fake",
	.get_region_info = fake_region_info,
	.map_region = fake_map_region,
	.unmap_region = fake_unmap_region,
	.region_read = fake_region_read,
	.region_write = fake_region_write,
	.dma_map = fake_dma,
	.dma_unmap = fake_dma,
	.reset = fake_reset,
};

FAKE_STATIC struct fake_fw *fake_new(bool multidb)
{
	struct fake_fw *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->dev.ops = &fake_bus_ops;
	snprintf(f->dev.name, sizeof(f->dev.name), "fake0");
	f->bar2 = calloc(1, FAKE_BAR2_SIZE);
	f->multidb = multidb;
	f->next_id = 1;
	return f;
}

FAKE_STATIC void fake_free(struct fake_fw *f)
{
	if (!f)
		return;
	free(f->bar2);
	free(f);
}

/* The i-th logged request as a struct. */
#define FAKE_REQ(f, i, type) ((const type *)(const void *)(f)->log[(i)].bytes)

#endif
