/* SPDX-License-Identifier: MIT */
/*
 * The function's life cycle in the mlx5 model (hw-docs/mlx5.md 4, 6, 7,
 * 13a): ENABLE_HCA, ISSI, capabilities, page supply, INIT/TEARDOWN_HCA,
 * DISABLE_HCA, the NIC vport, the port registers. Object contexts live in
 * slots of the pages the driver gave (MSIM_CTX_SIZE bytes each), written
 * there by DMA: a create that finds no free slot fails with NO_RES and asks
 * for a page more.
 */
#include <errno.h>
#include <string.h>

#include "sim/mlx5/priv.h"

/* Pages below this index are boot and init pages (firmware's own); context
 * slots live in the pages after them. */
#define FW_PAGES	(MSIM_BOOT_PAGES + MSIM_INIT_PAGES)

static unsigned slot_pages(const struct msim *m)
{
	return m->npages > FW_PAGES ? m->npages - FW_PAGES : 0;
}

static unsigned pages_returnable(const struct msim *m);

static int pages_wanted(const struct msim *m, uint16_t op_mod)
{
	int want;

	if (m->state == MS_TORN || m->state == MS_DISABLED)
		return -(int)m->npages;
	switch (op_mod) {
	case ZN_MLX5_PAGES_BOOT:
		want = MSIM_BOOT_PAGES - (int)m->npages;
		break;
	case ZN_MLX5_PAGES_INIT:
		want = FW_PAGES - (int)m->npages;
		break;
	default:
		if (m->state != MS_INIT)
			return 0;
		want = (int)(FW_PAGES + m->reg_target) - (int)m->npages;
		if (want < 0)
			return -(int)pages_returnable(m);
		break;
	}
	return want > 0 ? want : 0;
}

static void page_request(struct msim *m)
{
	uint8_t data[28] = { 0 };
	int want = pages_wanted(m, ZN_MLX5_PAGES_REGULAR);

	if (!want || !msim_eq_for_event(m, ZN_MLX5_EVENT_PAGE_REQUEST))
		return;
	MSIM_INC(m, page_requests);
	zn_mlx5_st_be32(data + 4, (uint32_t)want);
	msim_event(m, ZN_MLX5_EVENT_PAGE_REQUEST, 0, data);
}

int msim_slot_alloc(struct msim *m, const void *ctx, size_t len)
{
	unsigned n = slot_pages(m) * MSIM_SLOTS_PER_PAGE;
	uint8_t buf[MSIM_CTX_SIZE] = { 0 };

	for (unsigned s = 0; s < n; s++) {
		uint64_t addr;

		if (m->slot_used[s / 8] & (1u << (s % 8)))
			continue;
		addr = m->pages[FW_PAGES + s / MSIM_SLOTS_PER_PAGE] +
		       (uint64_t)(s % MSIM_SLOTS_PER_PAGE) * MSIM_CTX_SIZE;
		memcpy(buf, ctx, len < sizeof(buf) ? len : sizeof(buf));
		if (zn_vfu_dma_write(m->dev, addr, buf, sizeof(buf))) {
			/* A page the driver gave is gone from its DMA map. */
			MSIM_INC(m, ctx_dma_errors);
			msim_fatal(m, ZN_MLX5_HEALTH_SYND_ICM_PAGE_ERR, 0);
			return -1;
		}
		MSIM_INC(m, ctx_writes);
		m->slot_used[s / 8] |= (uint8_t)(1u << (s % 8));
		m->slots_used++;
		if (n - m->slots_used < MSIM_LOW_SLOTS) {
			m->reg_target++;
			page_request(m);
		}
		return (int)s;
	}
	MSIM_INC(m, no_page_refusals);
	if (m->state == MS_INIT && FW_PAGES + m->reg_target <= m->npages)
		m->reg_target = m->npages - FW_PAGES + 1;
	page_request(m);
	return -1;
}

void msim_slot_free(struct msim *m, int slot)
{
	unsigned need;

	if (slot < 0)
		return;
	m->slot_used[slot / 8] &= (uint8_t)~(1u << (slot % 8));
	m->slots_used--;
	/* Fewer objects: the device wants fewer pages, and offers back whole
	 * free pages at the end of its list. */
	need = (m->slots_used + MSIM_LOW_SLOTS + MSIM_SLOTS_PER_PAGE - 1) / MSIM_SLOTS_PER_PAGE;
	if (need < MSIM_REGULAR_PAGES)
		need = MSIM_REGULAR_PAGES;
	if (m->state == MS_INIT && need < m->reg_target) {
		m->reg_target = need;
		page_request(m);
	}
}

/* ---- commands ---- */

static int enable_hca(struct msim *m, struct msim_cmd *c)
{
	if (!msim_lens(m, c, ZN_MLX5_SZ_ENABLE_HCA_IN, ZN_MLX5_SZ_ENABLE_HCA_OUT))
		return 0;
	if (ZN_MLX5_GET(c->in, ENABLE_HCA_IN_FUNCTION_ID))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "function_id not 0");
	if (m->state != MS_DISABLED)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 2, "already enabled");
	m->state = MS_ENABLED;
	m->issi_set = false;
	m->reg_target = MSIM_REGULAR_PAGES;
	return 0;
}

static int disable_hca(struct msim *m, struct msim_cmd *c)
{
	if (!msim_lens(m, c, ZN_MLX5_SZ_DISABLE_HCA_IN, ZN_MLX5_SZ_DISABLE_HCA_OUT))
		return 0;
	if (ZN_MLX5_GET(c->in, DISABLE_HCA_IN_FUNCTION_ID))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "function_id not 0");
	msim_free_objects(m);
	MSIM_ADD(m, pages_leaked, m->npages);
	m->npages = 0;
	m->state = MS_DISABLED;
	return 0;
}

static int query_issi(struct msim *m, struct msim_cmd *c)
{
	if (!msim_lens(m, c, ZN_MLX5_SZ_QUERY_ISSI_IN, ZN_MLX5_SZ_QUERY_ISSI_OUT))
		return 0;
	ZN_MLX5_SET(c->out, QUERY_ISSI_OUT_CURRENT_ISSI, m->issi_set ? ZN_MLX5_ISSI : 0);
	ZN_MLX5_SET(c->out, QUERY_ISSI_OUT_SUPPORTED_ISSI, 1u << ZN_MLX5_ISSI | 1u);
	return 0;
}

static int set_issi(struct msim *m, struct msim_cmd *c)
{
	uint64_t v;

	if (!msim_lens(m, c, ZN_MLX5_SZ_SET_ISSI_IN, ZN_MLX5_SZ_SET_ISSI_OUT))
		return 0;
	v = ZN_MLX5_GET(c->in, SET_ISSI_IN_CURRENT_ISSI);
	if (v != ZN_MLX5_ISSI)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "unsupported ISSI");
	if (m->state != MS_ENABLED)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 2, "ISSI after INIT_HCA");
	m->issi_set = true;
	return 0;
}

static int query_pages(struct msim *m, struct msim_cmd *c)
{
	if (!msim_lens(m, c, ZN_MLX5_SZ_QUERY_PAGES_IN, ZN_MLX5_SZ_QUERY_PAGES_OUT))
		return 0;
	if (c->op_mod < ZN_MLX5_PAGES_BOOT || c->op_mod > ZN_MLX5_PAGES_REGULAR)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OP_ERR, 1, "op_mod not BOOT/INIT/REGULAR");
	if (ZN_MLX5_GET(c->in, QUERY_PAGES_IN_FUNCTION_ID))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2, "function_id not 0");
	ZN_MLX5_SET(c->out, QUERY_PAGES_OUT_NUM_PAGES, (uint32_t)pages_wanted(m, c->op_mod));
	return 0;
}

static bool page_held(const struct msim *m, uint64_t a)
{
	for (unsigned i = 0; i < m->npages; i++)
		if (m->pages[i] == a)
			return true;
	return false;
}

static int give_pages(struct msim *m, struct msim_cmd *c, uint32_t n)
{
	const uint8_t *pas = ZN_MLX5_CADDR(c->in, MANAGE_PAGES_IN_PAS);
	static const uint8_t zero[ZN_MLX5_PAGE_SIZE];

	if (n == 0)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3, "no entries");
	if (c->inlen < ZN_MLX5_SZ_MANAGE_PAGES_IN + 8ull * n)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR, 4,
				 "input shorter than input_num_entries addresses");
	if (m->state == MS_TORN)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 5, "GIVE after teardown");
	if (m->npages + n > MSIM_MAX_PAGES)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 6, "more pages than the model holds");
	/* All or nothing: every address is checked before one is taken. */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = zn_mlx5_ld_be64(pas + 8 * i);

		if (!a || (a & (ZN_MLX5_PAGE_SIZE - 1)) || page_held(m, a))
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 7,
					 "page address zero, unaligned or already given");
		for (uint32_t j = 0; j < i; j++)
			if (zn_mlx5_ld_be64(pas + 8 * j) == a)
				return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 7,
						 "page given twice in one list");
		if (zn_vfu_dma_probe(m->dev, a, ZN_MLX5_PAGE_SIZE, ZN_VFU_DMA_TO_RAM))
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 8,
					 "page not in the device's DMA windows");
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = zn_mlx5_ld_be64(pas + 8 * i);

		/* Firmware owns the page from now on: its old contents are gone. */
		zn_vfu_dma_write(m->dev, a, zero, sizeof(zero));
		m->pages[m->npages++] = a;
	}
	MSIM_ADD(m, pages_given, n);
	return 0;
}

/* Pages the model can hand back now: after teardown all; before, the free
 * slot pages above what it wants (taken from the end). */
static unsigned pages_returnable(const struct msim *m)
{
	unsigned n = 0;

	if (m->state == MS_TORN || m->state == MS_DISABLED)
		return m->npages;
	while (m->npages - n > FW_PAGES + m->reg_target) {
		unsigned p = m->npages - n - 1 - FW_PAGES;
		bool busy = false;

		for (unsigned s = p * MSIM_SLOTS_PER_PAGE; s < (p + 1) * MSIM_SLOTS_PER_PAGE; s++)
			busy |= (m->slot_used[s / 8] >> (s % 8)) & 1;
		if (busy)
			break;
		n++;
	}
	return n;
}

static int take_pages(struct msim *m, struct msim_cmd *c, uint32_t n)
{
	unsigned k = pages_returnable(m);
	uint8_t *pas = ZN_MLX5_ADDR(c->out, MANAGE_PAGES_OUT_PAS);

	if (n == 0)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 9, "no entries");
	if (c->outlen < ZN_MLX5_SZ_MANAGE_PAGES_OUT + 8ull * n)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, 10,
				 "output shorter than input_num_entries addresses");
	if (k > n)
		k = n;
	for (unsigned i = 0; i < k; i++)
		zn_mlx5_st_be64(pas + 8 * i, m->pages[--m->npages]);
	ZN_MLX5_SET(c->out, MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES, k);
	MSIM_ADD(m, pages_returned, k);
	return 0;
}

static int manage_pages(struct msim *m, struct msim_cmd *c)
{
	uint32_t n;

	if (!msim_lens(m, c, ZN_MLX5_SZ_MANAGE_PAGES_IN, ZN_MLX5_SZ_MANAGE_PAGES_OUT))
		return 0;
	if (ZN_MLX5_GET(c->in, MANAGE_PAGES_IN_FUNCTION_ID))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2, "function_id not 0");
	n = (uint32_t)ZN_MLX5_GET(c->in, MANAGE_PAGES_IN_INPUT_NUM_ENTRIES);
	switch (c->op_mod) {
	case ZN_MLX5_PAGES_CANT_GIVE:
		return 0;
	case ZN_MLX5_PAGES_GIVE:
		return give_pages(m, c, n);
	case ZN_MLX5_PAGES_TAKE:
		return take_pages(m, c, n);
	default:
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OP_ERR, 1, "op_mod not 0/1/2");
	}
}

static void general_caps(const struct msim *m, uint8_t *cap)
{
	ZN_MLX5_SET(cap, CAP_PORT_TYPE, ZN_MLX5_CAP_PORT_TYPE_ETH);
	ZN_MLX5_SET(cap, CAP_NUM_PORTS, 1);
	ZN_MLX5_SET(cap, CAP_CQE_VERSION, 1);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_EQ_SZ, 22);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_EQ, 4);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_CQ_SZ, 22);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_CQ, 16);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_WQ_SZ, 16);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_RQ, 16);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_SQ, 16);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_TIR, 16);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_TIS, 16);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_RQT, 8);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_RQT_SIZE, 10);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_PD, 16);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_TRANSPORT_DOMAIN, 8);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_MKEY, 16);
	ZN_MLX5_SET(cap, CAP_STRIDING_RQ, 1);
	ZN_MLX5_SET(cap, CAP_EXT_STRIDE_NUM_RANGE, 1);
	ZN_MLX5_SET(cap, CAP_LOG_MIN_STRIDE_SZ_RQ, 6);
	ZN_MLX5_SET(cap, CAP_LOG_MAX_STRIDE_SZ_RQ, 13);
	ZN_MLX5_SET(cap, CAP_SHAMPO, 1);
	ZN_MLX5_SET(cap, CAP_UAR_4K, 1);
	ZN_MLX5_SET(cap, CAP_LOG_BF_REG_SIZE, 8);
	ZN_MLX5_SET(cap, CAP_CMDIF_CHECKSUM, m->cmdif_checksum);
	ZN_MLX5_SET(cap, CAP_ETH_NET_OFFLOADS, 1);
	ZN_MLX5_SET(cap, CAP_NIC_FLOW_TABLE, 1);
}

static int query_hca_cap(struct msim *m, struct msim_cmd *c)
{
	uint8_t *cap = ZN_MLX5_ADDR(c->out, QUERY_HCA_CAP_OUT_CAPABILITY);

	if (!msim_lens(m, c, ZN_MLX5_SZ_QUERY_HCA_CAP_IN, ZN_MLX5_SZ_QUERY_HCA_CAP_OUT))
		return 0;
	switch (c->op_mod >> 1) {
	case ZN_MLX5_CAP_GENERAL:
		general_caps(m, cap);
		break;
	case ZN_MLX5_CAP_ETHERNET_OFFLOADS:
		ZN_MLX5_SET(cap, ETH_CAP_CSUM_CAP, 1);
		ZN_MLX5_SET(cap, ETH_CAP_MAX_LSO_CAP, MSIM_LOG_MAX_LSO);
		ZN_MLX5_SET(cap, ETH_CAP_WQE_INLINE_MODE, ZN_MLX5_CAP_INLINE_MODE_NOT_REQUIRED);
		ZN_MLX5_SET(cap, ETH_CAP_RSS_IND_TBL_CAP, 10);
		break;
	case ZN_MLX5_CAP_DEV_SHAMPO:
		ZN_MLX5_SET(cap, SHAMPO_CAP_LOG_MAX_RESERVATION_SIZE, 20);
		ZN_MLX5_SET(cap, SHAMPO_CAP_LOG_MIN_RESERVATION_SIZE, 12);
		ZN_MLX5_SET(cap, SHAMPO_CAP_MIN_MSS_SIZE, 64);
		ZN_MLX5_SET(cap, SHAMPO_CAP_MAX_LOG_HEADERS_ENTRY_SIZE, 10);
		break;
	default:
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OP_ERR, 1, "capability type not modelled");
	}
	return 0;
}

static int set_hca_cap(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *cap = ZN_MLX5_CADDR(c->in, SET_HCA_CAP_IN_CAPABILITY);

	if (!msim_lens(m, c, ZN_MLX5_SZ_SET_HCA_CAP_IN, ZN_MLX5_SZ_SET_HCA_CAP_OUT))
		return 0;
	if (c->op_mod >> 1 != ZN_MLX5_CAP_GENERAL || (c->op_mod & 1))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OP_ERR, 1, "only general caps are settable");
	if (m->state != MS_ENABLED)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 2, "after INIT_HCA");
	if (ZN_MLX5_GET(cap, CAP_CMDIF_CHECKSUM) || ZN_MLX5_GET(cap, CAP_LOG_UAR_PAGE_SZ))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3,
				 "cmdif_checksum and log_uar_page_sz must be 0");
	return 0;
}

static int init_hca(struct msim *m, struct msim_cmd *c)
{
	if (!msim_lens(m, c, ZN_MLX5_SZ_INIT_HCA_IN, ZN_MLX5_SZ_INIT_HCA_OUT))
		return 0;
	if (m->state != MS_ENABLED)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 1, "INIT_HCA twice");
	if (!m->issi_set)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 2, "SET_ISSI first");
	if (m->npages < FW_PAGES)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 3,
				 "boot and init pages not given");
	m->state = MS_INIT;
	m->admin_up = true;
	if (m->fatal_after_ms)
		m->fatal_due_ns = msim_timer_ns() + (uint64_t)m->fatal_after_ms * 1000000;
	return 0;
}

static int teardown_hca(struct msim *m, struct msim_cmd *c)
{
	uint64_t profile;

	if (!msim_lens(m, c, ZN_MLX5_SZ_TEARDOWN_HCA_IN, ZN_MLX5_SZ_TEARDOWN_HCA_OUT))
		return 0;
	profile = ZN_MLX5_GET(c->in, TEARDOWN_HCA_IN_PROFILE);
	if (profile != ZN_MLX5_TEARDOWN_GRACEFUL && profile != ZN_MLX5_TEARDOWN_FORCE_CLOSE)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "profile not 0/1");
	if (m->state != MS_INIT)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 2, "not initialized");
	msim_free_objects(m);
	m->state = MS_TORN;
	m->admin_up = false;
	return 0;
}

/* ---- vport and port registers ---- */

static int query_vport_state(struct msim *m, struct msim_cmd *c)
{
	if (!msim_lens(m, c, ZN_MLX5_SZ_QUERY_VPORT_STATE_IN, ZN_MLX5_SZ_QUERY_VPORT_STATE_OUT))
		return 0;
	if (c->op_mod || ZN_MLX5_GET(c->in, QUERY_VPORT_STATE_IN_OTHER_VPORT))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "only this vNIC's vport");
	ZN_MLX5_SET(c->out, QUERY_VPORT_STATE_OUT_ADMIN_STATE,
		    m->admin_up ? ZN_MLX5_VPORT_STATE_UP : ZN_MLX5_VPORT_STATE_DOWN);
	ZN_MLX5_SET(c->out, QUERY_VPORT_STATE_OUT_STATE,
		    m->link_up ? ZN_MLX5_VPORT_STATE_UP : ZN_MLX5_VPORT_STATE_DOWN);
	return 0;
}

static int query_nic_vport(struct msim *m, struct msim_cmd *c)
{
	if (!msim_lens(m, c, ZN_MLX5_SZ_QUERY_NIC_VPORT_IN, ZN_MLX5_SZ_QUERY_NIC_VPORT_OUT))
		return 0;
	if (ZN_MLX5_GET(c->in, QUERY_NIC_VPORT_IN_OTHER_VPORT))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "other_vport");
	memcpy(ZN_MLX5_ADDR(c->out, QUERY_NIC_VPORT_OUT_CONTEXT), m->vport_ctx,
	       sizeof(m->vport_ctx));
	return 0;
}

static int modify_nic_vport(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *ctx = ZN_MLX5_CADDR(c->in, MODIFY_NIC_VPORT_IN_CONTEXT);
	uint32_t fs;

	if (!msim_lens(m, c, ZN_MLX5_SZ_MODIFY_NIC_VPORT_IN, ZN_MLX5_SZ_MODIFY_NIC_VPORT_OUT))
		return 0;
	fs = (uint32_t)ZN_MLX5_GET(c->in, MODIFY_NIC_VPORT_IN_FIELD_SELECT);
	if (fs & ~(ZN_MLX5_NIC_VPORT_FS_PROMISC | ZN_MLX5_NIC_VPORT_FS_MTU |
		   ZN_MLX5_NIC_VPORT_FS_ROCE_EN | (1u << 7)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1,
				 "field_select names a field the model does not change");
	if (fs & ZN_MLX5_NIC_VPORT_FS_MTU) {
		uint64_t mtu = ZN_MLX5_GET(ctx, NIC_VPORT_MTU);

		if (mtu < 68 || mtu > ZN_SIM_FRAME_MAX + 22)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2, "mtu out of range");
		ZN_MLX5_SET(m->vport_ctx, NIC_VPORT_MTU, mtu);
	}
	if (fs & ZN_MLX5_NIC_VPORT_FS_PROMISC) {
		ZN_MLX5_SET(m->vport_ctx, NIC_VPORT_PROMISC_UC, ZN_MLX5_GET(ctx, NIC_VPORT_PROMISC_UC));
		ZN_MLX5_SET(m->vport_ctx, NIC_VPORT_PROMISC_MC, ZN_MLX5_GET(ctx, NIC_VPORT_PROMISC_MC));
		ZN_MLX5_SET(m->vport_ctx, NIC_VPORT_PROMISC_ALL,
			    ZN_MLX5_GET(ctx, NIC_VPORT_PROMISC_ALL));
	}
	if (fs & (1u << 7))
		ZN_MLX5_SET(m->vport_ctx, NIC_VPORT_MIN_WQE_INLINE_MODE,
			    ZN_MLX5_GET(ctx, NIC_VPORT_MIN_WQE_INLINE_MODE));
	return 0;
}

static int access_reg(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *rin = ZN_MLX5_CADDR(c->in, ACCESS_REG_IN_REGISTER_DATA);
	uint8_t *rout = ZN_MLX5_ADDR(c->out, ACCESS_REG_OUT_REGISTER_DATA);
	uint16_t id;
	bool write = c->op_mod == ZN_MLX5_ACCESS_REG_WRITE;

	if (!msim_lens(m, c, ZN_MLX5_SZ_ACCESS_REGISTER_IN + 16, ZN_MLX5_SZ_ACCESS_REGISTER_OUT + 16))
		return 0;
	if (c->op_mod > ZN_MLX5_ACCESS_REG_READ)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_OP_ERR, 1, "op_mod not read/write");
	id = (uint16_t)ZN_MLX5_GET(c->in, ACCESS_REG_IN_REGISTER_ID);
	if (id != ZN_MLX5_REG_PAOS && id != ZN_MLX5_REG_PMTU)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2, "register not modelled");
	if (ZN_MLX5_GET(rin, PAOS_LOCAL_PORT) != 1)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3, "local_port not 1");
	if (id == ZN_MLX5_REG_PAOS) {
		if (write && ZN_MLX5_GET(rin, PAOS_ASE)) {
			uint64_t st = ZN_MLX5_GET(rin, PAOS_ADMIN_STATUS);

			if (st != ZN_MLX5_PAOS_STATUS_UP && st != ZN_MLX5_PAOS_STATUS_DOWN)
				return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 4,
						 "admin_status not up/down");
			m->admin_up = st == ZN_MLX5_PAOS_STATUS_UP;
			msim_link_poll(m);
		}
		ZN_MLX5_SET(rout, PAOS_LOCAL_PORT, 1);
		ZN_MLX5_SET(rout, PAOS_ADMIN_STATUS,
			    m->admin_up ? ZN_MLX5_PAOS_STATUS_UP : ZN_MLX5_PAOS_STATUS_DOWN);
		ZN_MLX5_SET(rout, PAOS_OPER_STATUS,
			    m->link_up ? ZN_MLX5_PAOS_STATUS_UP : ZN_MLX5_PAOS_STATUS_DOWN);
		return 0;
	}
	if (write) {
		uint64_t mtu = ZN_MLX5_GET(rin, PMTU_ADMIN_MTU);

		if (mtu < 68 || mtu > ZN_SIM_FRAME_MAX + 22)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 5, "admin_mtu out of range");
		m->admin_mtu = (uint16_t)mtu;
	}
	ZN_MLX5_SET(rout, PMTU_LOCAL_PORT, 1);
	ZN_MLX5_SET(rout, PMTU_MAX_MTU, ZN_SIM_FRAME_MAX + 22);
	ZN_MLX5_SET(rout, PMTU_ADMIN_MTU, m->admin_mtu);
	ZN_MLX5_SET(rout, PMTU_OPER_MTU, m->admin_mtu);
	return 0;
}

int msim_hca_cmd(struct msim *m, struct msim_cmd *c)
{
	switch (c->opcode) {
	case ZN_MLX5_CMD_OP_ENABLE_HCA:
		return enable_hca(m, c);
	case ZN_MLX5_CMD_OP_DISABLE_HCA:
		return disable_hca(m, c);
	case ZN_MLX5_CMD_OP_QUERY_ISSI:
		return query_issi(m, c);
	case ZN_MLX5_CMD_OP_SET_ISSI:
		return set_issi(m, c);
	case ZN_MLX5_CMD_OP_QUERY_PAGES:
		return query_pages(m, c);
	case ZN_MLX5_CMD_OP_MANAGE_PAGES:
		return manage_pages(m, c);
	case ZN_MLX5_CMD_OP_QUERY_HCA_CAP:
		return query_hca_cap(m, c);
	case ZN_MLX5_CMD_OP_SET_HCA_CAP:
		return set_hca_cap(m, c);
	case ZN_MLX5_CMD_OP_INIT_HCA:
		return init_hca(m, c);
	case ZN_MLX5_CMD_OP_TEARDOWN_HCA:
		return teardown_hca(m, c);
	case ZN_MLX5_CMD_OP_QUERY_VPORT_STATE:
		return query_vport_state(m, c);
	case ZN_MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
		return query_nic_vport(m, c);
	case ZN_MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT:
		return modify_nic_vport(m, c);
	case ZN_MLX5_CMD_OP_ACCESS_REG:
		return access_reg(m, c);
	default:
		return -ENOENT;
	}
}

void msim_link_poll(struct msim *m)
{
	bool up = m->admin_up && m->port.wire && m->state == MS_INIT;
	uint8_t data[28] = { 0 };

	if (up == m->link_up)
		return;
	m->link_up = up;
	MSIM_INC(m, link_changes);
	data[8] = 1 << 4;	/* port 1, EQE byte 0x28 */
	msim_event(m, ZN_MLX5_EVENT_PORT_CHANGE,
		   up ? ZN_MLX5_PORT_CHANGE_ACTIVE : ZN_MLX5_PORT_CHANGE_DOWN, data);
}
