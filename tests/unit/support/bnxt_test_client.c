/* SPDX-License-Identifier: MIT */
/* A hand-driven bnxt client and an in-process zn-nicsim for model tests;
 * see bnxt_test_client.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "sim/log.h"
#include "sim/vfu/vfu.h"
#include "tests/unit/support/bnxt_test_client.h"

void btc_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int64_t btc_now_ms(void)
{
	return (int64_t)zn_now_ms();
}

static void spin_pause(void)
{
	struct timespec ts = { 0, 5000 };

	nanosleep(&ts, NULL);
}

/* ---- in-process zn-nicsim ---- */

static void *loop_main(void *arg)
{
	zn_vfu_loop_run(arg);
	return NULL;
}

int btc_sim_start(struct btc_sim *s, const char *opts0, const char *opts1, bool wire)
{
	const char *opts[2] = { opts0, opts1 };
	char err[256], spec[256];

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/zn-bnxt-test-XXXXXX");
	if (!mkdtemp(s->dir))
		return -1;
	s->ndev = opts1 ? 2 : 1;
	for (unsigned i = 0; i < s->ndev; i++) {
		char dir[sizeof(s->dir)];

		snprintf(spec, sizeof(spec), "bnxt%u=bnxt%s", i, opts[i] ? opts[i] : "");
		if (zn_sim_device_create(spec, &s->dev[i], err, sizeof(err))) {
			fprintf(stderr, "btc_sim_start: %s: %s\n", spec, err);
			return -1;
		}
		memcpy(dir, s->dir, sizeof(dir));
		snprintf(s->path[i], sizeof(s->path[i]), "%s/bnxt%u.sock", dir, i);
	}
	if (zn_vfu_loop_new(&s->loop))
		return -1;
	if (wire && (s->ndev != 2 ||
		     zn_sim_wire_pair(zn_sim_device_port(s->dev[0], 0),
				      zn_sim_device_port(s->dev[1], 0), &s->wire) ||
		     zn_vfu_loop_add_poller(s->loop, zn_sim_wire_poll, s->wire)))
		return -1;
	for (unsigned i = 0; i < s->ndev; i++)
		if (zn_vfu_dev_listen(s->dev[i]->dev, s->path[i]) ||
		    zn_vfu_loop_add_dev(s->loop, s->dev[i]->dev))
			return -1;
	if (pthread_create(&s->thread, NULL, loop_main, s->loop))
		return -1;
	s->running = true;
	return 0;
}

void btc_sim_stop(struct btc_sim *s)
{
	if (s->running) {
		zn_vfu_loop_stop(s->loop);
		pthread_join(s->thread, NULL);
	}
	zn_sim_wire_free(s->wire);
	for (unsigned i = 0; i < s->ndev; i++)
		zn_sim_device_free(s->dev[i]);
	zn_vfu_loop_free(s->loop);
	if (s->dir[0])
		rmdir(s->dir);
	memset(s, 0, sizeof(*s));
}

struct counter_q {
	const char *key;
	uint64_t v;
	bool found;
};

static void counter_emit(void *ctx, const char *key, uint64_t v)
{
	struct counter_q *q = ctx;
	const char *k = strstr(key, ".model.");

	if (k && !strcmp(k + 7, q->key)) {
		q->v = v;
		q->found = true;
	}
}

uint64_t btc_counter(struct btc_sim *s, unsigned i, const char *key)
{
	struct counter_q q = { key, 0, false };

	zn_sim_device_stats(s->dev[i], counter_emit, &q);
	if (!q.found) {
		fprintf(stderr, "btc_counter: no model counter '%s'\n", key);
		abort();
	}
	return q.v;
}

/* ---- the client ---- */

int btc_open(struct btc *c, const char *sock_path)
{
	struct zn_bus_open_opts o = { .timeout_ms = BTC_TIMEOUT_MS };
	char spec[160];
	void *va = NULL;
	uint64_t size;
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(spec, sizeof(spec), "vfio-user:%s", sock_path);
	rc = zn_bus_open(spec, &o, &c->bus);
	if (rc)
		return rc;
	if ((rc = zn_bus_enable_bus_master(c->bus)) || (rc = zn_bus_map_bar(c->bus, 0, NULL, NULL)) ||
	    (rc = zn_bus_map_bar(c->bus, 2, &va, &size)))
		goto err;
	c->bar2 = va;
	rc = zn_dma_region_alloc("btc", BTC_MEM_LEN, -1, ZN_DMA_NO_HUGE, &c->mem);
	if (rc)
		goto err;
	rc = zn_bus_dma_map(c->bus, c->mem);
	if (rc)
		goto err;
	c->resp = btc_alloc(c, 4096, 4096);
	c->req = btc_alloc(c, 4096, 4096);
	return 0;
err:
	btc_close(c);
	return rc;
}

void btc_close(struct btc *c)
{
	zn_bus_close(c->bus);
	if (c->mem)
		zn_dma_region_free(c->mem);
	memset(c, 0, sizeof(*c));
}

void *btc_alloc(struct btc *c, size_t len, size_t align)
{
	size_t at = (c->brk + align - 1) & ~(align - 1);
	uint8_t *p;

	if (at + len > c->mem->len)
		return NULL;
	c->brk = at + len;
	p = (uint8_t *)c->mem->va + at;
	memset(p, 0, len);
	return p;
}

uint64_t btc_iova(const struct btc *c, const void *va)
{
	return c->mem->iova + (uint64_t)((const uint8_t *)va - (const uint8_t *)c->mem->va);
}

static int send_window(struct btc *c, const void *win, size_t wlen)
{
	int rc = 0;

	if (c->window32) {
		for (size_t i = 0; i < wlen && !rc; i += 4) {
			uint32_t w;

			memcpy(&w, (const uint8_t *)win + i, 4);
			rc = zn_bus_write32(c->bus, 0, BNXT_GRCPF_REG_CHIMP_COMM + i, w);
		}
	} else {
		rc = c->bus->ops->region_write(c->bus, 0, BNXT_GRCPF_REG_CHIMP_COMM, win, wlen);
	}
	if (!rc)
		rc = zn_bus_write32(c->bus, 0, BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER,
				    BNXT_HWRM_TRIGGER_VALUE);
	return rc;
}

static int send_req(struct btc *c, const void *req, size_t len)
{
	uint8_t win[BNXT_HWRM_MAX_REQ_LEN] = { 0 };

	if (len > BNXT_HWRM_MAX_REQ_LEN || c->force_short) {
		struct bnxt_hwrm_short_input si = {
			.req_type = ((const struct bnxt_hwrm_req_hdr *)req)->req_type,
			.signature = BNXT_HWRM_SHORT_SIGNATURE,
			.size = (uint16_t)len,
			.req_addr = btc_iova(c, c->req),
		};

		memset(c->req, 0, 1024);
		memcpy(c->req, req, len);
		memcpy(win, &si, sizeof(si));
		return send_window(c, win, sizeof(si));
	}
	memcpy(win, req, len);
	return send_window(c, win, sizeof(win));
}

static int wait_resp(struct btc *c, uint16_t seq, void *resp, size_t cap)
{
	int64_t end = btc_now_ms() + BTC_TIMEOUT_MS;
	const struct bnxt_hwrm_resp_hdr *h = (const void *)c->resp;

	do {
		uint16_t len = __atomic_load_n(&h->resp_len, __ATOMIC_ACQUIRE);

		if (len && h->seq_id == seq && len <= BNXT_HWRM_MAX_RESP_LEN &&
		    __atomic_load_n(&c->resp[len - 1], __ATOMIC_ACQUIRE) ==
			    BNXT_HWRM_RESP_VALID_KEY) {
			c->resp_len = len;
			if (resp)
				memcpy(resp, c->resp, len < cap ? len : cap);
			return h->error_code;
		}
		spin_pause();
	} while (btc_now_ms() < end);
	return -ETIMEDOUT;
}

int btc_hwrm(struct btc *c, void *req, size_t len, void *resp, size_t cap)
{
	struct bnxt_hwrm_req_hdr *h = req;
	int rc;

	h->seq_id = ++c->seq;
	if (!h->target_id)
		h->target_id = BNXT_HWRM_TARGET_ID_HWRM;
	if (!h->cmpl_ring)
		h->cmpl_ring = BNXT_HWRM_CMPL_RING_NONE;
	if (!h->resp_addr)
		h->resp_addr = btc_iova(c, c->resp);
	memset(c->resp, 0, BNXT_HWRM_MAX_RESP_LEN);
	if (resp)
		memset(resp, 0, cap);
	rc = send_req(c, req, len);
	if (rc)
		return rc;
	return wait_resp(c, h->seq_id, resp, cap);
}

int btc_hwrm_raw(struct btc *c, const void *req, size_t len, bool wait)
{
	const struct bnxt_hwrm_req_hdr *h = req;
	uint8_t win[BNXT_HWRM_MAX_REQ_LEN] = { 0 };
	int rc;

	memset(c->resp, 0, BNXT_HWRM_MAX_RESP_LEN);
	memcpy(win, req, len < sizeof(win) ? len : sizeof(win));
	rc = send_window(c, win, sizeof(win));
	if (rc || !wait)
		return rc;
	return wait_resp(c, h->seq_id, NULL, 0);
}

/* ---- bring-up ---- */

static int bs_type(struct btc *c, uint32_t entries, uint16_t esize, uint8_t *lvl, uint64_t *dir)
{
	size_t bytes = (size_t)entries * esize, npages = (bytes + 4095) / 4096;
	uint8_t *mem = btc_alloc(c, npages ? npages * 4096 : 4096, 4096);
	uint64_t *pte;

	if (!mem)
		return -ENOMEM;
	if (npages <= 1) {
		*lvl = BNXT_BS_PG_SIZE_4K | BNXT_BS_LVL_0;
		*dir = btc_iova(c, mem);
		return 0;
	}
	pte = btc_alloc(c, 4096, 4096);
	if (!pte)
		return -ENOMEM;
	for (size_t i = 0; i < npages; i++)
		pte[i] = btc_iova(c, mem + i * 4096) | BNXT_PTU_PTE_VALID;
	*lvl = BNXT_BS_PG_SIZE_4K | BNXT_BS_LVL_1;
	*dir = btc_iova(c, pte);
	return 0;
}

int btc_backing_store(struct btc *c)
{
	struct bnxt_hwrm_hdr_only_input q = { .hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_QCAPS };
	struct bnxt_hwrm_func_backing_store_qcaps_output o;
	struct bnxt_hwrm_func_backing_store_cfg_input in = {
		.hdr.req_type = BNXT_HWRM_FUNC_BACKING_STORE_CFG };
	uint32_t tqm;
	int rc = btc_hwrm(c, &q, sizeof(q), &o, sizeof(o));

	if (rc)
		return rc;
	in.enables = BNXT_BS_CFG_ENABLES_QP | BNXT_BS_CFG_ENABLES_SRQ | BNXT_BS_CFG_ENABLES_CQ |
		     BNXT_BS_CFG_ENABLES_VNIC | BNXT_BS_CFG_ENABLES_STAT |
		     BNXT_BS_CFG_ENABLES_TQM_SP;
	in.qp_num_qp1_entries = o.qp_min_qp1_entries;
	in.qp_num_l2_entries = o.qp_max_l2_entries;
	in.qp_num_entries = (uint32_t)o.qp_min_qp1_entries + o.qp_max_l2_entries;
	in.qp_entry_size = o.qp_entry_size;
	in.srq_num_l2_entries = o.srq_max_l2_entries;
	in.srq_num_entries = o.srq_max_l2_entries;
	in.srq_entry_size = o.srq_entry_size;
	in.cq_num_l2_entries = o.cq_max_l2_entries;
	in.cq_num_entries = o.cq_max_l2_entries;
	in.cq_entry_size = o.cq_entry_size;
	in.vnic_num_vnic_entries = o.vnic_max_vnic_entries;
	in.vnic_num_ring_table_entries = o.vnic_max_ring_table_entries;
	in.vnic_entry_size = o.vnic_entry_size;
	in.stat_num_entries = o.stat_max_entries;
	in.stat_entry_size = o.stat_entry_size;
	in.tqm_entry_size = o.tqm_entry_size;
	tqm = in.qp_num_l2_entries + in.qp_num_qp1_entries;
	if (o.tqm_entries_multiple > 1)
		tqm = (tqm + o.tqm_entries_multiple - 1) / o.tqm_entries_multiple *
		      o.tqm_entries_multiple;
	if (tqm < o.tqm_min_entries_per_ring)
		tqm = o.tqm_min_entries_per_ring;
	if (tqm > o.tqm_max_entries_per_ring)
		tqm = o.tqm_max_entries_per_ring;
	in.tqm_sp_num_entries = in.qp_num_l2_entries + in.vnic_num_vnic_entries +
				2u * in.qp_num_qp1_entries + o.tqm_min_entries_per_ring;
	if (in.tqm_sp_num_entries > o.tqm_max_entries_per_ring)
		in.tqm_sp_num_entries = o.tqm_max_entries_per_ring;
	if ((rc = bs_type(c, in.qp_num_entries, in.qp_entry_size, &in.qpc_pg_size_lvl,
			  &in.qpc_page_dir)) ||
	    (rc = bs_type(c, in.srq_num_entries, in.srq_entry_size, &in.srq_pg_size_lvl,
			  &in.srq_page_dir)) ||
	    (rc = bs_type(c, in.cq_num_entries, in.cq_entry_size, &in.cq_pg_size_lvl,
			  &in.cq_page_dir)) ||
	    (rc = bs_type(c, (uint32_t)in.vnic_num_vnic_entries + in.vnic_num_ring_table_entries,
			  in.vnic_entry_size, &in.vnic_pg_size_lvl, &in.vnic_page_dir)) ||
	    (rc = bs_type(c, in.stat_num_entries, in.stat_entry_size, &in.stat_pg_size_lvl,
			  &in.stat_page_dir)) ||
	    (rc = bs_type(c, in.tqm_sp_num_entries, in.tqm_entry_size, &in.tqm_sp_pg_size_lvl,
			  &in.tqm_sp_page_dir)))
		return rc;
	for (unsigned i = 0; i < o.tqm_fp_rings_count && i < 8; i++) {
		in.enables |= BNXT_BS_CFG_ENABLES_TQM_RING(i);
		in.tqm_ring_num_entries[i] = tqm;
		rc = bs_type(c, tqm, in.tqm_entry_size, &in.tqm_ring_pg_size_lvl[i],
			     &in.tqm_ring_page_dir[i]);
		if (rc)
			return rc;
	}
	return btc_hwrm(c, &in, sizeof(in), NULL, 0);
}

int btc_bringup(struct btc *c)
{
	struct bnxt_hwrm_ver_get_input ver = { .hdr.req_type = BNXT_HWRM_VER_GET,
					       .hwrm_intf_maj = 1, .hwrm_intf_min = 10,
					       .hwrm_intf_upd = 3 };
	struct bnxt_hwrm_func_reset_input rst = { .hdr.req_type = BNXT_HWRM_FUNC_RESET };
	struct bnxt_hwrm_func_qcaps_input qc = { .hdr.req_type = BNXT_HWRM_FUNC_QCAPS,
						 .fid = BNXT_FID_SELF };
	struct bnxt_hwrm_func_qcfg_input qf = { .hdr.req_type = BNXT_HWRM_FUNC_QCFG,
						.fid = BNXT_FID_SELF };
	struct bnxt_hwrm_func_drv_rgtr_input rg = {
		.hdr.req_type = BNXT_HWRM_FUNC_DRV_RGTR,
		.enables = BNXT_FUNC_DRV_RGTR_ENABLES_OS_TYPE | BNXT_FUNC_DRV_RGTR_ENABLES_VER |
			   BNXT_FUNC_DRV_RGTR_ENABLES_ASYNC_EVENT_FWD,
		.os_type = BNXT_FUNC_DRV_RGTR_OS_TYPE_OTHER,
		.async_event_fwd = { 1u << BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE |
				     1u << BNXT_ASYNC_EVENT_RESET_NOTIFY },
	};
	struct bnxt_hwrm_queue_qportcfg_input qp = { .hdr.req_type = BNXT_HWRM_QUEUE_QPORTCFG };
	struct bnxt_hwrm_func_qcaps_output_long caps;
	struct bnxt_hwrm_func_qcfg_output_long cfg;
	int rc;

	if ((rc = btc_hwrm(c, &ver, sizeof(ver), NULL, 0)) ||
	    (rc = btc_hwrm(c, &rst, sizeof(rst), NULL, 0)) ||
	    (rc = btc_hwrm(c, &qc, sizeof(qc), &caps, sizeof(caps))))
		return rc;
	caps.hdr.resp_len = c->resp_len;
	memcpy(c->mac, caps.mac_address, 6);
	c->multidb = bnxt_qcaps_multi_l2_db(&caps);
	if ((rc = btc_backing_store(c)) || (rc = btc_hwrm(c, &qf, sizeof(qf), &cfg, sizeof(cfg))))
		return rc;
	if (c->multidb) {
		uint32_t page = bnxt_db_page_bytes(cfg.db_page_size);

		if (!BNXT_RESP_HAS(c->resp_len, bnxt_hwrm_func_qcfg_output_long,
				   l2_db_multi_page_size_kb) ||
		    !cfg.l2_db_multi_page_size_kb || page != BNXT_DB_PAGE_4K || !c->bar2) {
			c->multidb = false;
		} else {
			c->next_dpi = bnxt_mdb_first_dpi(false, page);
			c->end_dpi = c->next_dpi +
				     bnxt_mdb_num_dpis(cfg.l2_db_multi_page_size_kb, page);
		}
	}
	if ((rc = btc_hwrm(c, &rg, sizeof(rg), NULL, 0)) ||
	    (rc = btc_hwrm(c, &qp, sizeof(qp), NULL, 0)))
		return rc;
	return 0;
}

/* ---- rings ---- */

int btc_ring_alloc(struct btc *c, struct btc_ring *r, uint8_t type, uint32_t size,
		   const struct btc_ring_opts *o)
{
	struct bnxt_hwrm_ring_alloc_input_long in = { .base.hdr.req_type = BNXT_HWRM_RING_ALLOC };
	struct bnxt_hwrm_ring_alloc_output out;
	struct bnxt_hwrm_ring_alloc_input *b = &in.base;
	int rc;

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->size = size;
	r->dpi = -1;
	r->va = btc_alloc(c, (size_t)size * 16, 4096);
	if (!r->va)
		return -ENOMEM;
	r->iova = btc_iova(c, r->va);
	b->ring_type = type;
	b->page_tbl_addr = r->iova;
	b->page_size = 12;
	b->length = size;
	b->logical_id = o->logical_id;
	b->cmpl_ring_id = o->cmpl_ring_id;
	b->rx_ring_id = o->rx_ring_id;
	b->nq_ring_id = o->nq_id;
	b->rx_buf_size = o->rx_buf_size;
	b->cq_handle = o->cq_handle;
	b->int_mode = o->int_mode ? o->int_mode : BNXT_RING_ALLOC_INT_MODE_MSIX;
	switch (type) {
	case BNXT_RING_TYPE_L2_CMPL:
		b->enables = BNXT_RING_ALLOC_ENABLES_NQ_RING_ID_VALID;
		break;
	case BNXT_RING_TYPE_RX:
		b->enables = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID;
		break;
	case BNXT_RING_TYPE_RX_AGG:
		b->enables = BNXT_RING_ALLOC_ENABLES_RX_BUF_SIZE_VALID |
			     BNXT_RING_ALLOC_ENABLES_RX_RING_ID_VALID;
		break;
	}
	if (o->stat_ctx >= 0 && type != BNXT_RING_TYPE_L2_CMPL && type != BNXT_RING_TYPE_NQ) {
		b->enables |= BNXT_RING_ALLOC_ENABLES_STAT_CTX_ID_VALID;
		b->stat_ctx_id = (uint32_t)o->stat_ctx;
	}
	if (c->multidb && !o->legacy_db && c->next_dpi < c->end_dpi) {
		b->enables |= BNXT_RING_ALLOC_ENABLES_DPI_VALID;
		in.dpi = (uint16_t)c->next_dpi;
	}
	rc = btc_hwrm(c, &in, sizeof(in), &out, sizeof(out));
	if (rc)
		return rc;
	r->id = out.ring_id;
	if (b->enables & BNXT_RING_ALLOC_ENABLES_DPI_VALID)
		r->dpi = (int)c->next_dpi++;
	return 0;
}

int btc_ring_free(struct btc *c, struct btc_ring *r, uint16_t cmpl_ring)
{
	struct bnxt_hwrm_ring_free_input in = { .hdr.req_type = BNXT_HWRM_RING_FREE,
						.hdr.cmpl_ring = cmpl_ring, .ring_type = r->type,
						.ring_id = r->id };

	return btc_hwrm(c, &in, sizeof(in), NULL, 0);
}

int btc_stat_alloc(struct btc *c, uint32_t *id, void **stats)
{
	struct bnxt_hwrm_stat_ctx_alloc_input in = { .hdr.req_type = BNXT_HWRM_STAT_CTX_ALLOC };
	struct bnxt_hwrm_stat_ctx_alloc_output out;
	void *mem = btc_alloc(c, BTC_STATS_LEN, 64);
	int rc;

	if (!mem)
		return -ENOMEM;
	in.stats_dma_addr = btc_iova(c, mem);
	in.stats_dma_length = BTC_STATS_LEN;
	in.update_period_ms = 0;
	rc = btc_hwrm(c, &in, sizeof(in), &out, sizeof(out));
	if (rc)
		return rc;
	*id = out.stat_ctx_id;
	if (stats)
		*stats = mem;
	return 0;
}

void btc_db_raw(struct btc *c, int dpi, uint64_t v)
{
	if (dpi >= 0 && c->bar2) {
		__atomic_store_n((uint64_t *)(c->bar2 + bnxt_mdb_db_off((uint32_t)dpi,
									BNXT_DB_PAGE_4K)),
				 v, __ATOMIC_RELEASE);
		return;
	}
	zn_bus_write64(c->bus, BNXT_BAR_DB, bnxt_db_legacy_off_p5(false), v);
}

void btc_db(struct btc *c, const struct btc_ring *r, enum bnxt_dbr_type t, uint32_t idx)
{
	btc_db_raw(c, r->dpi, bnxt_db64(t, r->id, idx & (r->size - 1)));
}

bool btc_cq_peek(const struct btc_ring *cq, uint32_t off, void *out)
{
	uint32_t raw = cq->cons + off;
	const uint8_t *slot = cq->va + (raw & (cq->size - 1)) * 16u;

	if (!bnxt_cmpl_valid(slot, raw, cq->size))
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (out)
		memcpy(out, slot, 16);
	return true;
}

bool btc_cq_wait(const struct btc_ring *cq, uint32_t n, int timeout_ms)
{
	int64_t end = btc_now_ms() + timeout_ms;

	do {
		if (n == 0 || btc_cq_peek(cq, n - 1, NULL)) {
			for (uint32_t i = 0; i < n; i++)
				if (!btc_cq_peek(cq, i, NULL))
					return false;
			return true;
		}
		spin_pause();
	} while (btc_now_ms() < end);
	return false;
}

bool btc_cq_quiet(const struct btc_ring *cq, int ms)
{
	int64_t end = btc_now_ms() + ms;

	do {
		if (btc_cq_peek(cq, 0, NULL))
			return false;
		spin_pause();
	} while (btc_now_ms() < end);
	return true;
}

/* ---- a whole port ---- */

static int hwrm_simple(struct btc *c, void *req, size_t len)
{
	return btc_hwrm(c, req, len, NULL, 0);
}

static int port_rss(struct btc_port *p)
{
	struct btc *c = p->c;
	struct bnxt_hwrm_hdr_only_input ca = { .hdr.req_type = BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC };
	struct bnxt_hwrm_vnic_rss_cos_lb_ctx_alloc_output co;
	struct bnxt_hwrm_vnic_rss_cfg_input in = { .hdr.req_type = BNXT_HWRM_VNIC_RSS_CFG };
	uint8_t pad[24] = { 0 };
	int rc;

	memcpy(pad, &ca, sizeof(ca));
	rc = btc_hwrm(c, pad, sizeof(pad), &co, sizeof(co));
	if (rc)
		return rc;
	p->rss_tbl = btc_alloc(c, BNXT_RSS_TABLE_SIZE_P5, 64);
	p->rss_key = btc_alloc(c, BNXT_RSS_KEY_SIZE, 64);
	if (!p->rss_tbl || !p->rss_key)
		return -ENOMEM;
	for (unsigned e = 0; e < BNXT_RSS_TABLE_ENTRIES_P5; e++) {
		p->rss_tbl[e].rx_ring_id = p->q[e % p->cfg.nq].rx.id;
		p->rss_tbl[e].cmpl_ring_id = p->q[e % p->cfg.nq].cq.id;
	}
	memcpy(p->rss_key, p->cfg.rss_key, BNXT_RSS_KEY_SIZE);
	in.hash_type = p->cfg.rss_hash_type;
	in.vnic_id = p->vnic;
	in.ring_table_pair_index = 0;
	in.ring_grp_tbl_addr = btc_iova(c, p->rss_tbl);
	in.hash_key_tbl_addr = btc_iova(c, p->rss_key);
	in.rss_ctx_idx = co.rss_cos_lb_ctx_id;
	return hwrm_simple(c, &in, sizeof(in));
}

static int vnic_setup(struct btc_port *p, uint16_t *id, uint32_t alloc_flags, unsigned qi)
{
	struct btc *c = p->c;
	struct bnxt_hwrm_vnic_alloc_input va = { .hdr.req_type = BNXT_HWRM_VNIC_ALLOC,
						 .flags = alloc_flags };
	struct bnxt_hwrm_vnic_alloc_output vo;
	struct bnxt_hwrm_vnic_cfg_input vc = { .hdr.req_type = BNXT_HWRM_VNIC_CFG };
	struct bnxt_hwrm_vnic_plcmodes_cfg_input pm = { .hdr.req_type = BNXT_HWRM_VNIC_PLCMODES_CFG };
	int rc = btc_hwrm(c, &va, sizeof(va), &vo, sizeof(vo));

	if (rc)
		return rc;
	*id = (uint16_t)vo.vnic_id;
	vc.vnic_id = *id;
	vc.flags = p->cfg.vnic_flags;
	vc.enables = BNXT_VNIC_CFG_ENABLES_DEFAULT_RX_RING_ID |
		     BNXT_VNIC_CFG_ENABLES_DEFAULT_CMPL_RING_ID | BNXT_VNIC_CFG_ENABLES_MRU;
	vc.default_rx_ring_id = p->q[qi].rx.id;
	vc.default_cmpl_ring_id = p->q[qi].cq.id;
	vc.mru = 9000 + 18;
	if ((rc = hwrm_simple(c, &vc, sizeof(vc))))
		return rc;
	if (!p->cfg.plc_flags)
		return 0;
	pm.vnic_id = *id;
	pm.flags = p->cfg.plc_flags;
	pm.enables = BNXT_PLCMODES_CFG_ENABLES_JUMBO_THRESH_VALID |
		     BNXT_PLCMODES_CFG_ENABLES_HDS_THRESHOLD_VALID;
	pm.jumbo_thresh = p->cfg.jumbo_thresh;
	pm.hds_threshold = p->cfg.hds_threshold;
	return hwrm_simple(c, &pm, sizeof(pm));
}

int btc_port_queue_vnic(struct btc_port *p, unsigned qi)
{
	return vnic_setup(p, &p->q[qi].vnic, 0, qi);
}

int btc_port_open(struct btc *c, struct btc_port *p, const struct btc_port_cfg *cfg)
{
	struct btc_ring_opts o = { .stat_ctx = -1 };
	struct bnxt_hwrm_func_cfg_input fc = { .hdr.req_type = BNXT_HWRM_FUNC_CFG };
	struct bnxt_hwrm_cfa_l2_filter_alloc_input l2 = {
		.hdr.req_type = BNXT_HWRM_CFA_L2_FILTER_ALLOC };
	struct bnxt_hwrm_cfa_l2_filter_alloc_output l2o;
	struct bnxt_hwrm_cfa_l2_set_rx_mask_input rm = {
		.hdr.req_type = BNXT_HWRM_CFA_L2_SET_RX_MASK };
	struct bnxt_hwrm_stat_ctx_alloc_input sa = { .hdr.req_type = BNXT_HWRM_STAT_CTX_ALLOC };
	struct bnxt_hwrm_stat_ctx_alloc_output so;
	int rc;

	memset(p, 0, sizeof(*p));
	p->c = c;
	p->cfg = *cfg;
	if ((rc = btc_bringup(c)))
		return rc;
	o.legacy_db = cfg->legacy_db;
	/* NQ 0 also takes the async events */
	if ((rc = btc_ring_alloc(c, &p->nq, BNXT_RING_TYPE_NQ, 64, &o)))
		return rc;
	fc.fid = BNXT_FID_SELF;
	fc.enables = BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR;
	fc.async_event_cr = p->nq.id;
	if ((rc = hwrm_simple(c, &fc, sizeof(fc))))
		return rc;
	btc_db(c, &p->nq, BNXT_DBR_TYPE_NQ, 0);
	/* TX queue */
	sa.stats_dma_length = BTC_STATS_LEN;
	sa.update_period_ms = cfg->stats_period_ms;
	p->tx_stats = btc_alloc(c, BTC_STATS_LEN, 64);
	sa.stats_dma_addr = btc_iova(c, p->tx_stats);
	if ((rc = btc_hwrm(c, &sa, sizeof(sa), &so, sizeof(so))))
		return rc;
	p->tx_stat = so.stat_ctx_id;
	o.nq_id = p->nq.id;
	if ((rc = btc_ring_alloc(c, &p->txcq, BNXT_RING_TYPE_L2_CMPL, cfg->cq_size, &o)))
		return rc;
	btc_db(c, &p->txcq, BNXT_DBR_TYPE_CQ, 0);
	o.cmpl_ring_id = p->txcq.id;
	o.stat_ctx = (int)p->tx_stat;
	if ((rc = btc_ring_alloc(c, &p->tx, BNXT_RING_TYPE_TX, cfg->tx_size, &o)))
		return rc;
	p->txbuf = btc_alloc(c, (size_t)cfg->tx_size * BTC_TX_CHUNK, 4096);
	if (!p->txbuf)
		return -ENOMEM;
	/* RX queues */
	for (unsigned i = 0; i < cfg->nq; i++) {
		struct btc_q *q = &p->q[i];

		memset(&sa.hdr, 0, sizeof(sa.hdr));
		sa.hdr.req_type = BNXT_HWRM_STAT_CTX_ALLOC;
		q->stats = btc_alloc(c, BTC_STATS_LEN, 64);
		sa.stats_dma_addr = btc_iova(c, q->stats);
		if ((rc = btc_hwrm(c, &sa, sizeof(sa), &so, sizeof(so))))
			return rc;
		q->stat = so.stat_ctx_id;
		q->vnic = 0xffff;
		o.stat_ctx = -1;
		if ((rc = btc_ring_alloc(c, &q->cq, BNXT_RING_TYPE_L2_CMPL, cfg->cq_size, &o)))
			return rc;
		btc_db(c, &q->cq, BNXT_DBR_TYPE_CQ, 0);
		o.stat_ctx = (int)q->stat;
		o.rx_buf_size = cfg->rx_buf;
		if ((rc = btc_ring_alloc(c, &q->rx, BNXT_RING_TYPE_RX, cfg->rx_size, &o)))
			return rc;
		o.rx_ring_id = q->rx.id;
		o.rx_buf_size = cfg->agg_buf;
		if ((rc = btc_ring_alloc(c, &q->agg, BNXT_RING_TYPE_RX_AGG, cfg->agg_size, &o)))
			return rc;
		q->rxbuf = btc_alloc(c, (size_t)cfg->rx_size * cfg->rx_buf, 64);
		q->aggbuf = btc_alloc(c, (size_t)cfg->agg_size * cfg->agg_buf, 4096);
		if (!q->rxbuf || !q->aggbuf)
			return -ENOMEM;
		if (!cfg->no_fill)
			btc_rx_post(p, i, cfg->rx_size - 1, cfg->agg_size - 1);
	}
	/* default VNIC, our MAC, broadcast */
	if ((rc = vnic_setup(p, &p->vnic, BNXT_VNIC_ALLOC_FLAGS_DEFAULT, 0)))
		return rc;
	if (cfg->rss_hash_type && (rc = port_rss(p)))
		return rc;
	l2.flags = BNXT_L2_FILTER_ALLOC_FLAGS_PATH_RX | BNXT_L2_FILTER_ALLOC_FLAGS_OUTERMOST |
		   BNXT_L2_FILTER_ALLOC_FLAGS_TRAFFIC_L2 | BNXT_L2_FILTER_ALLOC_FLAGS_XDP_DISABLE;
	l2.enables = BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR |
		     BNXT_L2_FILTER_ALLOC_ENABLES_L2_ADDR_MASK | BNXT_L2_FILTER_ALLOC_ENABLES_DST_ID;
	memcpy(l2.l2_addr, c->mac, 6);
	memset(l2.l2_addr_mask, 0xff, 6);
	l2.dst_id = p->vnic;
	if ((rc = btc_hwrm(c, &l2, sizeof(l2), &l2o, sizeof(l2o))))
		return rc;
	p->l2 = l2o.l2_filter_id;
	rm.vnic_id = p->vnic;
	rm.mask = BNXT_RX_MASK_BCAST;
	return hwrm_simple(c, &rm, sizeof(rm));
}

void btc_rx_post(struct btc_port *p, unsigned qi, uint32_t n_rx, uint32_t n_agg)
{
	struct btc_q *q = &p->q[qi];

	for (uint32_t i = 0; i < n_agg; i++) {
		uint32_t s = q->agg.prod & (q->agg.size - 1);
		struct bnxt_rx_bd bd = {
			.flags_type = BNXT_RX_BD_TYPE_AGG,
			.len = p->cfg.agg_buf,
			.opaque = s,
			.addr = btc_iova(p->c, q->aggbuf + (size_t)s * p->cfg.agg_buf),
		};

		memcpy(q->agg.va + s * 16u, &bd, sizeof(bd));
		q->agg.prod++;
	}
	for (uint32_t i = 0; i < n_rx; i++) {
		uint32_t s = q->rx.prod & (q->rx.size - 1);
		struct bnxt_rx_bd bd = {
			.flags_type = BNXT_RX_BD_TYPE_PKT,
			.len = p->cfg.rx_buf,
			.opaque = s,
			.addr = btc_iova(p->c, q->rxbuf + (size_t)s * p->cfg.rx_buf),
		};

		memcpy(q->rx.va + s * 16u, &bd, sizeof(bd));
		q->rx.prod++;
	}
	/* BDs visible before the doorbells; AGG before RX (hw-docs/bnxt.md 7.3) */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (n_agg)
		btc_db(p->c, &q->agg, BNXT_DBR_TYPE_SRQ, q->agg.prod);
	if (n_rx)
		btc_db(p->c, &q->rx, BNXT_DBR_TYPE_SRQ, q->rx.prod);
}

uint32_t btc_tx_space(const struct btc_port *p)
{
	return p->tx.size - 1 - (p->tx.prod - p->tx.cons);
}

uint32_t btc_tx_queue(struct btc_port *p, const void *frame, size_t len, uint16_t flags)
{
	unsigned nbd = (unsigned)((len + BTC_TX_CHUNK - 1) / BTC_TX_CHUNK);
	uint32_t opaque = p->tx_seq;
	const uint8_t *f = frame;

	if (!nbd || nbd > btc_tx_space(p) || p->tx_seq - p->tx_done >= BTC_TX_TRACK)
		return UINT32_MAX;
	for (unsigned i = 0; i < nbd; i++) {
		uint32_t s = p->tx.prod & (p->tx.size - 1);
		size_t n = len - (size_t)i * BTC_TX_CHUNK;
		struct bnxt_tx_bd bd = { 0 };

		if (n > BTC_TX_CHUNK)
			n = BTC_TX_CHUNK;
		memcpy(p->txbuf + (size_t)s * BTC_TX_CHUNK, f + (size_t)i * BTC_TX_CHUNK, n);
		bd.len = (uint16_t)n;
		bd.addr = btc_iova(p->c, p->txbuf + (size_t)s * BTC_TX_CHUNK);
		if (i == 0) {
			bd.flags_type = BNXT_TX_BD_TYPE_SHORT | bnxt_tx_bd_cnt(nbd) |
					bnxt_tx_lhint((uint32_t)len) | flags;
			bd.opaque = opaque;
		}
		if (i == nbd - 1)
			bd.flags_type |= BNXT_TX_BD_FLAGS_PACKET_END;
		memcpy(p->tx.va + s * 16u, &bd, sizeof(bd));
		p->tx.prod++;
	}
	p->tx_end[opaque % BTC_TX_TRACK] = p->tx.prod;
	p->tx_seq++;
	return opaque;
}

void btc_tx_kick(struct btc_port *p)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	btc_db(p->c, &p->tx, BNXT_DBR_TYPE_SQ, p->tx.prod);
}

unsigned btc_tx_reap(struct btc_port *p, struct bnxt_tx_cmpl *out, unsigned max)
{
	struct bnxt_tx_cmpl cmp;
	unsigned n = 0;

	while (btc_cq_peek(&p->txcq, 0, &cmp)) {
		if (out && n < max)
			out[n] = cmp;
		/* a completion covers its packet and every one before it */
		if ((cmp.flags_type & BNXT_CMPL_TYPE_MASK) == BNXT_CMPL_TYPE_TX_L2 &&
		    cmp.opaque - p->tx_done < p->tx_seq - p->tx_done) {
			p->tx.cons = p->tx_end[cmp.opaque % BTC_TX_TRACK];
			p->tx_done = cmp.opaque + 1;
		}
		p->txcq.cons++;
		n++;
	}
	if (n)
		btc_db(p->c, &p->txcq, BNXT_DBR_TYPE_CQ, p->txcq.cons);
	return n;
}

bool btc_rx_next(struct btc_port *p, unsigned qi, struct btc_rx_pkt *out)
{
	struct btc_q *q = &p->q[qi];
	struct bnxt_rx_pkt_cmpl lo;
	unsigned n;

	if (!btc_cq_peek(&q->cq, 0, &lo) || !btc_cq_peek(&q->cq, 1, &out->hi))
		return false;
	out->lo = lo;
	n = bnxt_rx_agg_bufs(lo.agg_bufs_v1);
	for (unsigned i = 0; i < n; i++)
		if (!btc_cq_peek(&q->cq, 2 + i, &out->agg[i]))
			return false;
	out->nagg = n;
	out->len = 0;
	if ((lo.flags_type & BNXT_CMPL_TYPE_MASK) == BNXT_CMPL_TYPE_RX_L2 &&
	    lo.opaque < q->rx.size && lo.len <= p->cfg.rx_buf) {
		memcpy(out->data, q->rxbuf + (size_t)lo.opaque * p->cfg.rx_buf, lo.len);
		out->len = lo.len;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct bnxt_rx_agg_cmpl *a = &out->agg[i];

		if (a->opaque < q->agg.size && a->len <= p->cfg.agg_buf &&
		    out->len + a->len <= sizeof(out->data)) {
			memcpy(out->data + out->len, q->aggbuf + (size_t)a->opaque * p->cfg.agg_buf,
			       a->len);
			out->len += a->len;
		}
	}
	q->cq.cons += 2 + n;
	p->rx_pend[qi]++;
	p->agg_pend[qi] += n;
	if (++p->pkt_pend[qi] >= p->cfg.rx_batch)
		btc_rx_flush(p, qi);
	return true;
}

void btc_rx_flush(struct btc_port *p, unsigned qi)
{
	struct btc_q *q = &p->q[qi];

	btc_db(p->c, &q->cq, BNXT_DBR_TYPE_CQ, q->cq.cons);
	btc_rx_post(p, qi, p->rx_pend[qi], p->agg_pend[qi]);
	p->rx_pend[qi] = p->agg_pend[qi] = p->pkt_pend[qi] = 0;
}

size_t btc_udp4_frame(uint8_t *f, const uint8_t *dst, const uint8_t *src, size_t payload,
		      uint8_t seed)
{
	static const uint8_t ip[20] = { 0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0,
					10, 0, 0, 1, 10, 0, 0, 2 };
	size_t len = 42 + payload;
	uint32_t s = 0;

	memset(f, 0, 60);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	memcpy(f + 14, ip, 20);
	f[16] = (uint8_t)((28 + payload) >> 8);
	f[17] = (uint8_t)(28 + payload);
	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)(f[14 + i] << 8 | f[15 + i]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	f[24] = (uint8_t)(~s >> 8);
	f[25] = (uint8_t)~s;
	f[34] = 40000 >> 8, f[35] = 40000 & 0xff;
	f[36] = 4791 >> 8, f[37] = 4791 & 0xff;
	f[38] = (uint8_t)((8 + payload) >> 8);
	f[39] = (uint8_t)(8 + payload);
	for (size_t i = 0; i < payload; i++)
		f[42 + i] = (uint8_t)(seed + i * 7);
	return len < 60 ? 60 : len;
}

double btc_pair_rate(struct btc_port *tx, struct btc_port *rx, const uint8_t *frame, size_t len,
		     unsigned total, unsigned *got)
{
	static struct btc_rx_pkt pkt;
	const unsigned burst = 32;
	/* in flight: what the receiver's AGG ring holds while up to a batch of
	 * frames waits to be re-posted (each frame takes nagg AGG buffers) */
	unsigned nagg = (unsigned)((len + rx->cfg.agg_buf - 1) / rx->cfg.agg_buf);
	unsigned hold = rx->cfg.rx_batch > 1 ? rx->cfg.rx_batch : 1;
	unsigned window = (rx->cfg.agg_size - 1) / nagg > hold ? (rx->cfg.agg_size - 1) / nagg - hold :
								   1;
	unsigned sent = 0, in = 0;
	int64_t t0 = btc_now_ms(), end = t0 + 20000, t1;

	if (window > 128)
		window = 128;

	while (in < total && btc_now_ms() < end) {
		unsigned n = burst, space;

		btc_tx_reap(tx, NULL, 0);
		/* a burst's last packet asks for the completion that frees it all */
		space = btc_tx_space(tx) / (unsigned)((len + BTC_TX_CHUNK - 1) / BTC_TX_CHUNK);
		if (n > total - sent)
			n = total - sent;
		if (n > window - (sent - in))
			n = window - (sent - in);
		if (n > space)
			n = space;
		for (unsigned i = 0; i < n; i++)
			if (btc_tx_queue(tx, frame, len,
					 i + 1 < n ? BNXT_TX_BD_FLAGS_NO_CMPL : 0) == UINT32_MAX)
				return -1;
		sent += n;
		if (n)
			btc_tx_kick(tx);
		while (btc_rx_next(rx, 0, &pkt)) {
			if (pkt.len != len)
				break;
			in++;
		}
		if (rx->pkt_pend[0] && in == sent)
			btc_rx_flush(rx, 0);
	}
	t1 = btc_now_ms();
	*got = in;
	return in * 1000.0 / (double)(t1 > t0 ? t1 - t0 : 1);
}

bool btc_rx_wait(struct btc_port *p, unsigned qi, struct btc_rx_pkt *out, int timeout_ms)
{
	int64_t end = btc_now_ms() + timeout_ms;

	do {
		if (btc_rx_next(p, qi, out))
			return true;
		spin_pause();
	} while (btc_now_ms() < end);
	return false;
}
