/* SPDX-License-Identifier: MIT */
/*
 * The HWRM channel of the bnxt model (hw-docs/bnxt.md 3, 14 "HWRM channel")
 * and the function-level commands: VER_GET, FUNC_RESET, FUNC_QCAPS,
 * FUNC_QCFG, FUNC_CFG, FUNC_DRV_RGTR/UNRGTR, FUNC_DRV_IF_CHANGE,
 * PORT_PHY_QCFG, QUEUE_QPORTCFG, FUNC_BACKING_STORE_QCAPS/CFG.
 *
 * A trigger write copies the 128-byte window; the next poll runs the command
 * (as firmware would, after the trigger write has completed), DMA-writes the
 * response with its valid byte last, and posts HWRM_DONE when asked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/bnxt/priv.h"

/* What VER_GET reports (model choices, hw-docs/bnxt-model.md) */
#define BSIM_HSI_MAJ		1
#define BSIM_HSI_MIN		10
#define BSIM_HSI_UPD		3
#define BSIM_FW_MAJ		230
#define BSIM_FW_MIN		0
#define BSIM_FW_BLD		157
#define BSIM_DEF_REQ_TIMEOUT_MS	500
#define BSIM_MAX_REQ_TIMEOUT_S	40
#define BSIM_CHIP_REV		1

/* What FUNC_BACKING_STORE_QCAPS reports: small, the model keeps no context
 * there, but every number a driver computes with is non-zero. */
#define BS_QP_L2		64
#define BS_QP_ENTRY		256
#define BS_SRQ_L2		64
#define BS_SRQ_ENTRY		128
#define BS_CQ_L2		128
#define BS_CQ_ENTRY		64
#define BS_VNIC			64
#define BS_VNIC_RING_TBL	64
#define BS_VNIC_ENTRY		64
#define BS_STAT			256
#define BS_STAT_ENTRY		32
#define BS_TQM_ENTRY		64
#define BS_TQM_MIN		32
#define BS_TQM_MAX		1024
#define BS_TQM_RINGS		8
#define BS_REQUIRED		(BNXT_BS_CFG_ENABLES_QP | BNXT_BS_CFG_ENABLES_SRQ | \
				 BNXT_BS_CFG_ENABLES_CQ | BNXT_BS_CFG_ENABLES_VNIC | \
				 BNXT_BS_CFG_ENABLES_STAT | BNXT_BS_CFG_ENABLES_TQM_SP | \
				 0x3fc0u /* TQM_RING0..7 */)
#define BS_KNOWN		(BS_REQUIRED | BNXT_BS_CFG_ENABLES_MRAV | BNXT_BS_CFG_ENABLES_TIM)

#define QUEUE_LOSSY_ID		0
#define QUEUE_LOSSLESS_ID	1

int bsim_refuse(struct bsim *m, const struct bsim_req *rq, int code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
			 "%s: HWRM req_type %#x seq %u refused with %#x: %s", m->name,
			 rq->hdr->req_type, rq->hdr->seq_id, code, msg);
	return code;
}

bool bsim_need_bs(struct bsim *m, const struct bsim_req *rq, int *code)
{
	if (m->bs_done)
		return true;
	*code = bsim_refuse(m, rq, BNXT_HWRM_ERR_BUSY,
			    "no context memory yet: FUNC_BACKING_STORE_CFG must come first");
	return false;
}

static bool fid_ok(uint16_t fid)
{
	return fid == BNXT_FID_SELF || fid == BSIM_FID;
}

/* ---- VER_GET ---- */

static int cmd_ver_get(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	struct bnxt_hwrm_ver_get_output *o = (void *)rs->b;

	(void)rq;
	rs->len = sizeof(*o);
	o->hwrm_intf_maj_8b = BSIM_HSI_MAJ;
	o->hwrm_intf_min_8b = BSIM_HSI_MIN;
	o->hwrm_intf_upd_8b = BSIM_HSI_UPD;
	o->hwrm_fw_maj_8b = BSIM_FW_MAJ;
	o->hwrm_fw_min_8b = BSIM_FW_MIN;
	o->hwrm_fw_bld_8b = BSIM_FW_BLD;
	o->dev_caps_cfg = BNXT_VER_GET_DEV_CAPS_SHORT_CMD_SUPPORTED;
	snprintf(o->hwrm_fw_name, sizeof(o->hwrm_fw_name), "zn-nicsim");
	snprintf(o->active_pkg_name, sizeof(o->active_pkg_name), "zn-nicsim bnxt");
	o->chip_num = BNXT_CHIP_NUM_57508;
	o->chip_rev = BSIM_CHIP_REV;
	o->max_req_win_len = BNXT_HWRM_MAX_REQ_LEN;
	o->max_resp_len = BNXT_HWRM_MAX_RESP_LEN;
	o->def_req_timeout = BSIM_DEF_REQ_TIMEOUT_MS;
	/* [D-HSI]: data-path commands are refused with BUSY until the PF has
	 * given its context memory; this flag says so. */
	o->flags = m->bs_done ? 0 : BNXT_VER_GET_FLAGS_DEV_NOT_RDY_BACKING_STORE;
	o->always_1 = 1;
	o->hwrm_intf_major = BSIM_HSI_MAJ;
	o->hwrm_intf_minor = BSIM_HSI_MIN;
	o->hwrm_intf_build = BSIM_HSI_UPD;
	o->hwrm_fw_major = BSIM_FW_MAJ;
	o->hwrm_fw_minor = BSIM_FW_MIN;
	o->hwrm_fw_build = BSIM_FW_BLD;
	o->max_ext_req_len = BSIM_MAX_EXT_REQ;
	o->max_req_timeout = BSIM_MAX_REQ_TIMEOUT_S;
	return 0;
}

/* ---- FUNC_* ---- */

static int cmd_func_reset(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_reset_input *in = (const void *)rq->b;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (in->enables & ~BNXT_FUNC_RESET_ENABLES_VF_ID_VALID)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES, "enables %#x",
				   in->enables);
	if (in->enables)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "no VF %u: a PF "
				   "without VFs", in->vf_id);
	if (in->func_reset_level > BNXT_FUNC_RESET_LEVEL_RESETVF)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "func_reset_level %u",
				   in->func_reset_level);
	bsim_free_all(m);
	memset(&m->rsv, 0, sizeof(m->rsv));
	return 0;
}

static int cmd_func_qcaps(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_qcaps_input *in = (const void *)rq->b;
	struct bnxt_hwrm_func_qcaps_output_long *o = (void *)rs->b;

	/* multidb=0 is older firmware: the 136-byte layout, no flags_ext3 */
	rs->len = m->multidb ? sizeof(struct bnxt_hwrm_func_qcaps_output_long) :
			       sizeof(struct bnxt_hwrm_func_qcaps_output);
	if (!fid_ok(in->fid))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "fid %#x", in->fid);
	o->fid = BSIM_FID;
	o->port_id = BSIM_PORT_ID;
	memcpy(o->mac_address, m->mac, 6);
	o->max_rsscos_ctx = (uint16_t)m->max.rss;
	o->max_cmpl_rings = (uint16_t)m->max.cq;
	o->max_tx_rings = (uint16_t)m->max.tx;
	o->max_rx_rings = (uint16_t)m->max.rx;
	o->max_l2_ctxs = (uint16_t)m->max.l2;
	o->max_vnics = (uint16_t)m->max.vnic;
	o->max_stat_ctx = (uint16_t)m->max.stat;
	o->max_rx_em_flows = BSIM_MAX_NTUPLE;
	o->max_rx_wm_flows = BSIM_MAX_NTUPLE;
	o->max_mcast_filters = BSIM_MAX_MC;
	o->max_msix_vfs = 0;
	for (int i = 0; i < 8; i++)
		o->device_serial_number[i] = (uint8_t)(m->dsn >> (8 * i));
	if (m->multidb)
		o->flags_ext3 = BNXT_FUNC_QCAPS_FLAGS_EXT3_MULTI_L2_DB_SUPPORTED;
	return 0;
}

static int cmd_func_qcfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_qcfg_input *in = (const void *)rq->b;
	struct bnxt_hwrm_func_qcfg_output_long *o = (void *)rs->b;
	uint64_t db_end = (uint64_t)(m->first_dpi + (m->multidb ? m->ndpi : 0)) * BSIM_DB_PAGE;

	rs->len = m->multidb ? sizeof(struct bnxt_hwrm_func_qcfg_output_long) :
			       sizeof(struct bnxt_hwrm_func_qcfg_output);
	if (!fid_ok(in->fid))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "fid %#x", in->fid);
	o->fid = BSIM_FID;
	o->port_id = BSIM_PORT_ID;
	o->vlan = 0;
	memcpy(o->mac_address, m->mac, 6);
	o->alloc_rsscos_ctx = (uint16_t)m->rsv.rss;
	o->alloc_cmpl_rings = (uint16_t)m->rsv.cq;
	o->alloc_tx_rings = (uint16_t)m->rsv.tx;
	o->alloc_rx_rings = (uint16_t)m->rsv.rx;
	o->alloc_l2_ctx = (uint16_t)m->rsv.l2;
	o->alloc_vnics = (uint16_t)m->rsv.vnic;
	o->admin_mtu = m->admin_mtu;
	o->mru = m->mru;
	o->stat_ctx_id = 0xffff;
	o->port_pf_cnt = 1;
	o->dflt_vnic_id = 0xffff;
	for (unsigned i = 0; i < BSIM_MAX_VNICS; i++)
		if (m->vnic[i].used && m->vnic[i].is_default)
			o->dflt_vnic_id = m->vnic[i].id;
	o->max_mtu_configured = (uint16_t)m->mtu;
	o->alloc_stat_ctx = (uint16_t)m->rsv.stat;
	o->alloc_msix = (uint16_t)m->rsv.nq;
	o->l2_doorbell_bar_size_kb = (uint16_t)(db_end / 1024);
	o->always_1 = 1;
	o->db_page_size = BNXT_FUNC_QCFG_DB_PAGE_SIZE_4KB;
	o->host_mtu = (uint16_t)m->mtu;
	if (m->multidb)
		o->l2_db_multi_page_size_kb = (uint16_t)(m->ndpi * BSIM_DB_PAGE / 1024);
	return 0;
}

/* What the function may reserve: no guaranteed minimum beyond none (a PF
 * without VFs owns everything), the maxima of FUNC_QCAPS, NQs as MSI-X. */
static int cmd_func_resource_qcaps(struct bsim *m, const struct bsim_req *rq,
				   struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_qcfg_input *in = (const void *)rq->b;
	struct bnxt_hwrm_func_resource_qcaps_output *o = (void *)rs->b;

	rs->len = sizeof(*o);
	if (!fid_ok(in->fid))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "fid %#x", in->fid);
	o->max_msix = (uint16_t)m->max.nq;
	o->max_rsscos_ctx = (uint16_t)m->max.rss;
	o->max_cmpl_rings = (uint16_t)m->max.cq;
	o->max_tx_rings = (uint16_t)m->max.tx;
	o->max_rx_rings = (uint16_t)m->max.rx;
	o->max_l2_ctxs = (uint16_t)m->max.l2;
	o->max_vnics = (uint16_t)m->max.vnic;
	o->max_stat_ctx = (uint16_t)m->max.stat;
	o->max_tx_scheduler_inputs = (uint16_t)m->max.tx;
	return 0;
}

/* FUNC_CFG num_* fields: (enable bit, request field offset, pointer to the
 * reservation, its maximum) */
static int reserve(struct bsim *m, const struct bsim_req *rq, const char *what, uint16_t want,
		   unsigned max, unsigned used, unsigned *rsv)
{
	if (want > max)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR,
				   "%u %s asked, the function has %u", want, what, max);
	if (want < used)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR,
				   "%u %s asked, %u are allocated", want, what, used);
	*rsv = want;
	return 0;
}

static int cmd_func_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_cfg_input *in = (const void *)rq->b;
	const uint32_t known = BNXT_FUNC_CFG_ENABLES_ADMIN_MTU | BNXT_FUNC_CFG_ENABLES_MRU |
			       BNXT_FUNC_CFG_ENABLES_NUM_RSSCOS_CTXS |
			       BNXT_FUNC_CFG_ENABLES_NUM_CMPL_RINGS |
			       BNXT_FUNC_CFG_ENABLES_NUM_TX_RINGS |
			       BNXT_FUNC_CFG_ENABLES_NUM_RX_RINGS |
			       BNXT_FUNC_CFG_ENABLES_NUM_L2_CTXS | BNXT_FUNC_CFG_ENABLES_NUM_VNICS |
			       BNXT_FUNC_CFG_ENABLES_NUM_STAT_CTXS |
			       BNXT_FUNC_CFG_ENABLES_DFLT_MAC_ADDR |
			       BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR |
			       BNXT_FUNC_CFG_ENABLES_NUM_HW_RING_GRPS |
			       BNXT_FUNC_CFG_ENABLES_NUM_MSIX | BNXT_FUNC_CFG_ENABLES_HOST_MTU;
	uint32_t en = in->enables;
	struct bsim_counts rsv = m->rsv;
	struct bsim_ring *cr = NULL;
	int rc = 0;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (!fid_ok(in->fid))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "fid %#x", in->fid);
	if (en & ~known)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "enables %#x: unsupported bits %#x", en, en & ~known);
	if (in->flags & ~BNXT_FUNC_CFG_FLAGS_STD_TX_RING_MODE_DISABLE)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_HW_RING_GRPS) && in->num_hw_ring_grps)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "%u ring groups: P5 has none", in->num_hw_ring_grps);
	/* admin_mtu is a ceiling the administrator puts on the function, up to
	 * what the chip can carry, not the port's MTU: DPDK's PMD always asks
	 * for the chip's largest (hw-docs/dpdk-bnxt.md 4). */
	if ((en & BNXT_FUNC_CFG_ENABLES_ADMIN_MTU) &&
	    (in->admin_mtu < 68 || in->admin_mtu > BSIM_ADMIN_MTU_MAX))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "admin_mtu %u (68-%u)",
				   in->admin_mtu, BSIM_ADMIN_MTU_MAX);
	if ((en & BNXT_FUNC_CFG_ENABLES_MRU) && in->mru > m->mtu + BSIM_FRAME_OVERHEAD)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "mru %u (at most %u)",
				   in->mru, m->mtu + BSIM_FRAME_OVERHEAD);
	if ((en & BNXT_FUNC_CFG_ENABLES_HOST_MTU) && in->host_mtu > m->mtu)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "host_mtu %u",
				   in->host_mtu);
	if ((en & BNXT_FUNC_CFG_ENABLES_DFLT_MAC_ADDR) &&
	    ((in->dflt_mac_addr[0] & 1) || !memcmp(in->dflt_mac_addr, "\0\0\0\0\0\0", 6)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "dflt_mac_addr is not a unicast address");
	if (en & BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR) {
		cr = bsim_ring_by_id(m, in->async_event_cr);
		if (!cr || (cr->kind != BK_NQ && cr->kind != BK_CQ))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "async_event_cr %#x is not a CQ or NQ", in->async_event_cr);
	}
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_RSSCOS_CTXS) &&
	    (rc = reserve(m, rq, "RSS contexts", in->num_rsscos_ctxs, m->max.rss, m->used.rss,
			  &rsv.rss)))
		return rc;
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_CMPL_RINGS) &&
	    (rc = reserve(m, rq, "completion rings", in->num_cmpl_rings, m->max.cq, m->used.cq,
			  &rsv.cq)))
		return rc;
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_TX_RINGS) &&
	    (rc = reserve(m, rq, "TX rings", in->num_tx_rings, m->max.tx, m->used.tx, &rsv.tx)))
		return rc;
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_RX_RINGS) &&
	    (rc = reserve(m, rq, "RX rings (AGG rings included)", in->num_rx_rings, m->max.rx,
			  m->used.rx, &rsv.rx)))
		return rc;
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_L2_CTXS) &&
	    (rc = reserve(m, rq, "L2 contexts", in->num_l2_ctxs, m->max.l2, m->used.l2, &rsv.l2)))
		return rc;
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_VNICS) &&
	    (rc = reserve(m, rq, "VNICs", in->num_vnics, m->max.vnic, m->used.vnic, &rsv.vnic)))
		return rc;
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_STAT_CTXS) &&
	    (rc = reserve(m, rq, "stat contexts", in->num_stat_ctxs, m->max.stat, m->used.stat,
			  &rsv.stat)))
		return rc;
	if ((en & BNXT_FUNC_CFG_ENABLES_NUM_MSIX) &&
	    (rc = reserve(m, rq, "NQs (num_msix)", in->num_msix, m->max.nq, m->used.nq, &rsv.nq)))
		return rc;
	/* all checked: apply */
	m->rsv = rsv;
	if (en & BNXT_FUNC_CFG_ENABLES_ADMIN_MTU)
		m->admin_mtu = in->admin_mtu;
	if (en & BNXT_FUNC_CFG_ENABLES_MRU)
		m->mru = in->mru;
	if (en & BNXT_FUNC_CFG_ENABLES_DFLT_MAC_ADDR)
		memcpy(m->mac, in->dflt_mac_addr, 6);
	if (en & BNXT_FUNC_CFG_ENABLES_ASYNC_EVENT_CR)
		m->async_cr = cr;
	return 0;
}

static int cmd_drv_rgtr(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_drv_rgtr_input *in = (const void *)rq->b;
	const uint32_t flags = BNXT_FUNC_DRV_RGTR_FLAGS_FWD_ALL_MODE |
			       BNXT_FUNC_DRV_RGTR_FLAGS_FWD_NONE_MODE |
			       BNXT_FUNC_DRV_RGTR_FLAGS_16BIT_VER_MODE |
			       BNXT_FUNC_DRV_RGTR_FLAGS_HOT_RESET_SUPPORT |
			       BNXT_FUNC_DRV_RGTR_FLAGS_ERROR_RECOVERY_SUPPORT |
			       BNXT_FUNC_DRV_RGTR_FLAGS_MASTER_SUPPORT;
	const uint32_t enables = BNXT_FUNC_DRV_RGTR_ENABLES_OS_TYPE |
				 BNXT_FUNC_DRV_RGTR_ENABLES_VER |
				 BNXT_FUNC_DRV_RGTR_ENABLES_TIMESTAMP |
				 BNXT_FUNC_DRV_RGTR_ENABLES_VF_REQ_FWD |
				 BNXT_FUNC_DRV_RGTR_ENABLES_ASYNC_EVENT_FWD;

	rs->len = sizeof(struct bnxt_hwrm_func_drv_rgtr_output);
	if (in->enables & ~enables)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES, "enables %#x",
				   in->enables);
	if ((in->flags & ~flags) ||
	    ((in->flags & BNXT_FUNC_DRV_RGTR_FLAGS_FWD_ALL_MODE) &&
	     (in->flags & BNXT_FUNC_DRV_RGTR_FLAGS_FWD_NONE_MODE)))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if (in->enables & BNXT_FUNC_DRV_RGTR_ENABLES_ASYNC_EVENT_FWD)
		memcpy(m->async_fwd, in->async_event_fwd, sizeof(m->async_fwd));
	else
		memset(m->async_fwd, 0, sizeof(m->async_fwd));
	m->registered = true;
	return 0;
}

static int cmd_drv_unrgtr(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_drv_unrgtr_input *in = (const void *)rq->b;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (in->flags & ~BNXT_FUNC_DRV_UNRGTR_FLAGS_PREPARE_FOR_SHUTDOWN)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	/* The driver lets go of the function: everything it had goes, and
	 * with it the context memory (hw-docs/bnxt.md 4, teardown). */
	bsim_free_all(m);
	memset(&m->rsv, 0, sizeof(m->rsv));
	memset(m->async_fwd, 0, sizeof(m->async_fwd));
	m->registered = false;
	m->bs_done = false;
	return 0;
}

static int cmd_drv_if_change(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_drv_if_change_input *in = (const void *)rq->b;

	rs->len = sizeof(struct bnxt_hwrm_func_drv_if_change_output);
	if (in->flags & ~BNXT_FUNC_DRV_IF_CHANGE_FLAGS_UP)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	return 0;
}

static int cmd_port_phy_qcfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_port_phy_qcfg_input *in = (const void *)rq->b;
	struct bnxt_hwrm_port_phy_qcfg_output *o = (void *)rs->b;

	rs->len = sizeof(*o);
	if (in->port_id != BSIM_PORT_ID)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "port_id %u",
				   in->port_id);
	o->link = m->link_up ? BNXT_PORT_PHY_QCFG_LINK_LINK : BNXT_PORT_PHY_QCFG_LINK_NO_LINK;
	o->link_speed = m->link_up ? BNXT_LINK_SPEED_100GB : 0;
	o->duplex_cfg = 1;
	o->duplex_state = 1;
	o->pause = 0;
	o->active_lanes = m->link_up ? 4 : 0;
	snprintf(o->phy_vendor_name, sizeof(o->phy_vendor_name), "zn-nicsim");
	return 0;
}

static int cmd_queue_qportcfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_queue_qportcfg_input *in = (const void *)rq->b;
	struct bnxt_hwrm_queue_qportcfg_output *o = (void *)rs->b;

	rs->len = sizeof(*o);
	if (in->flags & ~BNXT_QUEUE_QPORTCFG_FLAGS_PATH_RX)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if (in->port_id != BSIM_PORT_ID)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS, "port_id %u",
				   in->port_id);
	o->max_configurable_queues = 2;
	o->max_configurable_lossless_queues = 1;
	for (int i = 0; i < 8; i++) {
		o->queue[i].id = 0xff;
		o->queue[i].service_profile = BNXT_QUEUE_PROFILE_UNKNOWN;
	}
	o->queue[0].id = QUEUE_LOSSY_ID;
	o->queue[0].service_profile = BNXT_QUEUE_PROFILE_LOSSY;
	o->queue[1].id = QUEUE_LOSSLESS_ID;
	o->queue[1].service_profile = BNXT_QUEUE_PROFILE_LOSSLESS;
	snprintf(o->qid_name[0], sizeof(o->qid_name[0]), "lossy");
	snprintf(o->qid_name[1], sizeof(o->qid_name[1]), "lossless");
	return 0;
}

bool bsim_queue_id_ok(uint16_t id)
{
	return id == QUEUE_LOSSY_ID || id == QUEUE_LOSSLESS_ID;
}

/* ---- backing store ---- */

static int cmd_bs_qcaps(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	struct bnxt_hwrm_func_backing_store_qcaps_output *o = (void *)rs->b;

	(void)m;
	(void)rq;
	rs->len = sizeof(*o);
	o->qp_max_entries = BS_QP_L2;
	o->qp_min_qp1_entries = 0;
	o->qp_max_l2_entries = BS_QP_L2;
	o->qp_entry_size = BS_QP_ENTRY;
	o->srq_max_l2_entries = BS_SRQ_L2;
	o->srq_max_entries = BS_SRQ_L2;
	o->srq_entry_size = BS_SRQ_ENTRY;
	o->cq_max_l2_entries = BS_CQ_L2;
	o->cq_max_entries = BS_CQ_L2;
	o->cq_entry_size = BS_CQ_ENTRY;
	o->vnic_max_vnic_entries = BS_VNIC;
	o->vnic_max_ring_table_entries = BS_VNIC_RING_TBL;
	o->vnic_entry_size = BS_VNIC_ENTRY;
	o->stat_max_entries = BS_STAT;
	o->stat_entry_size = BS_STAT_ENTRY;
	o->tqm_entry_size = BS_TQM_ENTRY;
	o->tqm_min_entries_per_ring = BS_TQM_MIN;
	o->tqm_max_entries_per_ring = BS_TQM_MAX;
	o->tqm_entries_multiple = 1;
	o->tqm_fp_rings_count = BS_TQM_RINGS;
	return 0;
}

static uint64_t bs_page_bytes(uint8_t pg_size_lvl)
{
	static const uint64_t sizes[] = { 4096, 8192, 65536, 2ull << 20, 8ull << 20, 1ull << 30 };
	unsigned code = (pg_size_lvl & BNXT_BS_PG_SIZE_MASK) >> 4;

	return code < sizeof(sizes) / sizeof(sizes[0]) ? sizes[code] : 0;
}

/* One enabled context type: its entry count and size against QCAPS, and the
 * pages it describes (level 0: page_dir is the page; level 1: a page of
 * PTEs, each VALID with a page-aligned address) mapped and writable. */
static int bs_check(struct bsim *m, const struct bsim_req *rq, const char *what, uint8_t pg_lvl,
		    uint64_t dir, uint64_t entries, uint64_t min, uint64_t max, uint16_t esize,
		    uint16_t want_esize)
{
	uint64_t page = bs_page_bytes(pg_lvl), bytes = entries * esize, npages;
	unsigned lvl = pg_lvl & BNXT_BS_LVL_MASK;

	if (entries < min || entries > max)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "%s: %llu entries, want %llu-%llu%s", what,
				   (unsigned long long)entries, (unsigned long long)min,
				   (unsigned long long)max,
				   !rq->is_short && entries == 0 ?
					   " (a request above 128 bytes goes by short command)" : "");
	if (esize != want_esize)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "%s: entry size %u, FUNC_BACKING_STORE_QCAPS says %u", what, esize,
				   want_esize);
	if (!page || lvl > BNXT_BS_LVL_1)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "%s: page size/level byte %#x (levels 0 and 1, sizes 4K-1G)", what,
				   pg_lvl);
	if (!bytes)
		return 0;
	if (dir & (page - 1))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "%s: page_dir %#llx not aligned to the %llu-byte page", what,
				   (unsigned long long)dir, (unsigned long long)page);
	npages = (bytes + page - 1) / page;
	if (lvl == BNXT_BS_LVL_0) {
		if (npages > 1)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "%s: %llu bytes need level 1 with %llu-byte pages", what,
					   (unsigned long long)bytes, (unsigned long long)page);
		if (zn_vfu_dma_probe(m->dev, dir, page, ZN_VFU_DMA_TO_RAM))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "%s: page %#llx not mapped writable", what,
					   (unsigned long long)dir);
		return 0;
	}
	if (npages > page / 8)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "%s: %llu pages do not fit one PTE page", what,
				   (unsigned long long)npages);
	if (zn_vfu_dma_probe(m->dev, dir, npages * 8, ZN_VFU_DMA_FROM_RAM))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "%s: PTE page %#llx not mapped", what, (unsigned long long)dir);
	for (uint64_t i = 0; i < npages; i++) {
		uint64_t pte, addr;

		if (zn_vfu_dma_read(m->dev, dir + 8 * i, &pte, 8))
			return BNXT_HWRM_ERR_INVALID_PARAMS;
		addr = pte & ~(uint64_t)(BNXT_PTU_PTE_VALID | BNXT_PTU_PTE_LAST |
					 BNXT_PTU_PTE_NEXT_TO_LAST);
		if (!(pte & BNXT_PTU_PTE_VALID) || (addr & (page - 1)) ||
		    zn_vfu_dma_probe(m->dev, addr, page, ZN_VFU_DMA_TO_RAM))
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "%s: PTE %llu = %#llx: not VALID, unaligned or unmapped",
					   what, (unsigned long long)i, (unsigned long long)pte);
	}
	return 0;
}

static int cmd_bs_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs)
{
	const struct bnxt_hwrm_func_backing_store_cfg_input *in = (const void *)rq->b;
	uint32_t en = in->enables;
	int rc;

	rs->len = sizeof(struct bnxt_hwrm_plain_output);
	if (in->flags & ~BNXT_BS_CFG_FLAGS_PREBOOT_MODE)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_FLAGS, "flags %#x", in->flags);
	if (en & ~BS_KNOWN)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "enables %#x: unsupported types %#x", en, en & ~BS_KNOWN);
	if ((en & BS_REQUIRED) != BS_REQUIRED)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_ENABLES,
				   "enables %#x: QP, SRQ, CQ, VNIC, STAT, TQM_SP and the %d TQM "
				   "rings are all needed (missing %#x)", en, BS_TQM_RINGS,
				   BS_REQUIRED & ~en);
	for (unsigned i = 0; i < BSIM_MAX_RINGS; i++)
		if (m->ring[i].kind != BK_FREE)
			return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "context memory in use (rings allocated)");
	if (in->qp_num_l2_entries > BS_QP_L2 || in->qp_num_qp1_entries > 0)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "QP: %u L2 / %u QP1 entries (at most %u / 0)",
				   in->qp_num_l2_entries, in->qp_num_qp1_entries, BS_QP_L2);
	if (in->srq_num_l2_entries > BS_SRQ_L2 || in->cq_num_l2_entries > BS_CQ_L2)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "SRQ/CQ L2 entries %u/%u above %u/%u", in->srq_num_l2_entries,
				   in->cq_num_l2_entries, BS_SRQ_L2, BS_CQ_L2);
	if (in->vnic_num_vnic_entries > BS_VNIC || in->vnic_num_ring_table_entries > BS_VNIC_RING_TBL)
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "VNIC: %u VNIC / %u ring table entries (at most %u / %u)",
				   in->vnic_num_vnic_entries, in->vnic_num_ring_table_entries,
				   BS_VNIC, BS_VNIC_RING_TBL);
	if ((rc = bs_check(m, rq, "QP", in->qpc_pg_size_lvl, in->qpc_page_dir, in->qp_num_entries,
			   1, BS_QP_L2, in->qp_entry_size, BS_QP_ENTRY)) ||
	    (rc = bs_check(m, rq, "SRQ", in->srq_pg_size_lvl, in->srq_page_dir,
			   in->srq_num_entries, 1, BS_SRQ_L2, in->srq_entry_size, BS_SRQ_ENTRY)) ||
	    (rc = bs_check(m, rq, "CQ", in->cq_pg_size_lvl, in->cq_page_dir, in->cq_num_entries, 1,
			   BS_CQ_L2, in->cq_entry_size, BS_CQ_ENTRY)) ||
	    (rc = bs_check(m, rq, "VNIC", in->vnic_pg_size_lvl, in->vnic_page_dir,
			   (uint64_t)in->vnic_num_vnic_entries + in->vnic_num_ring_table_entries, 1,
			   BS_VNIC + BS_VNIC_RING_TBL, in->vnic_entry_size, BS_VNIC_ENTRY)) ||
	    (rc = bs_check(m, rq, "STAT", in->stat_pg_size_lvl, in->stat_page_dir,
			   in->stat_num_entries, 1, BS_STAT, in->stat_entry_size, BS_STAT_ENTRY)) ||
	    (rc = bs_check(m, rq, "TQM_SP", in->tqm_sp_pg_size_lvl, in->tqm_sp_page_dir,
			   in->tqm_sp_num_entries, 1, BS_TQM_MAX, in->tqm_entry_size,
			   BS_TQM_ENTRY)))
		return rc;
	for (int i = 0; i < BS_TQM_RINGS; i++) {
		char what[16];

		snprintf(what, sizeof(what), "TQM ring %d", i);
		rc = bs_check(m, rq, what, in->tqm_ring_pg_size_lvl[i], in->tqm_ring_page_dir[i],
			      in->tqm_ring_num_entries[i], BS_TQM_MIN, BS_TQM_MAX,
			      in->tqm_entry_size, BS_TQM_ENTRY);
		if (rc)
			return rc;
	}
	/* MRAV and TIM (RoCE) have no entries to give */
	if (((en & BNXT_BS_CFG_ENABLES_MRAV) && in->mrav_num_entries) ||
	    ((en & BNXT_BS_CFG_ENABLES_TIM) && in->tim_num_entries))
		return bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "MRAV/TIM entries %u/%u: the function has none",
				   in->mrav_num_entries, in->tim_num_entries);
	m->bs_done = true;
	return 0;
}

/* ---- dispatch ---- */

typedef int (*bsim_cmd_fn)(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);

static const struct {
	uint16_t req_type;
	bsim_cmd_fn fn;
} cmds[] = {
	{ BNXT_HWRM_VER_GET, cmd_ver_get },
	{ BNXT_HWRM_FUNC_DRV_IF_CHANGE, cmd_drv_if_change },
	{ BNXT_HWRM_FUNC_RESET, cmd_func_reset },
	{ BNXT_HWRM_FUNC_QCAPS, cmd_func_qcaps },
	{ BNXT_HWRM_FUNC_QCFG, cmd_func_qcfg },
	{ BNXT_HWRM_FUNC_CFG, cmd_func_cfg },
	{ BNXT_HWRM_FUNC_DRV_UNRGTR, cmd_drv_unrgtr },
	{ BNXT_HWRM_FUNC_DRV_RGTR, cmd_drv_rgtr },
	{ BNXT_HWRM_PORT_PHY_QCFG, cmd_port_phy_qcfg },
	{ BNXT_HWRM_QUEUE_QPORTCFG, cmd_queue_qportcfg },
	{ BNXT_HWRM_VNIC_ALLOC, bsim_cmd_vnic_alloc },
	{ BNXT_HWRM_VNIC_FREE, bsim_cmd_vnic_free },
	{ BNXT_HWRM_VNIC_CFG, bsim_cmd_vnic_cfg },
	{ BNXT_HWRM_VNIC_RSS_CFG, bsim_cmd_rss_cfg },
	{ BNXT_HWRM_VNIC_PLCMODES_CFG, bsim_cmd_plcmodes_cfg },
	{ BNXT_HWRM_VNIC_TPA_CFG, bsim_cmd_tpa_cfg },
	{ BNXT_HWRM_VNIC_QCAPS, bsim_cmd_vnic_qcaps },
	{ BNXT_HWRM_VNIC_UPDATE, bsim_cmd_vnic_update },
	{ BNXT_HWRM_VNIC_PLCMODES_QCFG, bsim_cmd_plcmodes_qcfg },
	{ BNXT_HWRM_RING_ALLOC, bsim_cmd_ring_alloc },
	{ BNXT_HWRM_RING_FREE, bsim_cmd_ring_free },
	{ BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC, bsim_cmd_rss_ctx_alloc },
	{ BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE, bsim_cmd_rss_ctx_free },
	{ BNXT_HWRM_CFA_L2_FILTER_ALLOC, bsim_cmd_l2_alloc },
	{ BNXT_HWRM_CFA_L2_FILTER_FREE, bsim_cmd_l2_free },
	{ BNXT_HWRM_CFA_L2_SET_RX_MASK, bsim_cmd_rx_mask },
	{ BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC, bsim_cmd_ntuple_alloc },
	{ BNXT_HWRM_CFA_NTUPLE_FILTER_FREE, bsim_cmd_ntuple_free },
	{ BNXT_HWRM_STAT_CTX_ALLOC, bsim_cmd_stat_alloc },
	{ BNXT_HWRM_STAT_CTX_FREE, bsim_cmd_stat_free },
	{ BNXT_HWRM_STAT_CTX_QUERY, bsim_cmd_stat_query },
	{ BNXT_HWRM_STAT_CTX_CLR_STATS, bsim_cmd_stat_clr },
	{ BNXT_HWRM_FUNC_RESOURCE_QCAPS, cmd_func_resource_qcaps },
	{ BNXT_HWRM_FUNC_BACKING_STORE_QCAPS, cmd_bs_qcaps },
	{ BNXT_HWRM_FUNC_BACKING_STORE_CFG, cmd_bs_cfg },
};

/* DMA the response: every byte but the last, then (release) the valid byte,
 * unless valid_delay_ms holds it back. */
static void respond(struct bsim *m, uint64_t addr, const struct bsim_resp *rs)
{
	uint8_t valid = BNXT_HWRM_RESP_VALID_KEY;

	if (!addr || (addr & 15)) {
		BSIM_INC(m, hwrm_no_response);
		ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: HWRM resp_addr %#llx is not 16-byte aligned: no response",
				 m->name, (unsigned long long)addr);
		return;
	}
	/* the whole response must land, or none of it */
	if (zn_vfu_dma_probe(m->dev, addr, rs->len, ZN_VFU_DMA_TO_RAM) ||
	    zn_vfu_dma_write(m->dev, addr, rs->b, rs->len - 1u)) {
		BSIM_INC(m, hwrm_no_response);
		ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: HWRM resp_addr %#llx (+%u) is not mapped writable: no response",
				 m->name, (unsigned long long)addr, rs->len);
		return;
	}
	if (m->valid_delay_ms) {
		m->valid_pending = true;
		m->valid_addr = addr + rs->len - 1u;
		m->valid_due_ns = zn_vfu_now_ns() + (uint64_t)m->valid_delay_ms * 1000000ull;
		return;
	}
	/* release: the response is whole before its valid byte says so */
	zn_dma_wmb();
	zn_vfu_dma_write(m->dev, addr + rs->len - 1u, &valid, 1);
}

static void run(struct bsim *m, struct bsim_req *rq, bool is_short)
{
	const struct bnxt_hwrm_req_hdr *h = rq->hdr;
	struct bsim_resp rs;
	struct bnxt_hwrm_resp_hdr *out = (void *)rs.b;
	struct bsim_ring *done = NULL;
	int code = -1;

	memset(&rs, 0, sizeof(rs));
	BSIM_INC(m, hwrm_cmds);
	if (h->target_id != BNXT_HWRM_TARGET_ID_HWRM) {
		code = bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
				   "target_id %#x (only the firmware, 0xffff)", h->target_id);
	} else if (h->cmpl_ring != BNXT_HWRM_CMPL_RING_NONE) {
		done = bsim_ring_by_id(m, h->cmpl_ring);
		if (!done || (done->kind != BK_CQ && done->kind != BK_NQ))
			code = bsim_refuse(m, rq, BNXT_HWRM_ERR_INVALID_PARAMS,
					   "cmpl_ring %#x is not a CQ or NQ", h->cmpl_ring);
	}
	if (code < 0 && bsim_fault_cmd(m, rq, &code))
		return;		/* cmd-hang: the driver times out */
	if (code < 0 && m->fail_cmd == h->req_type) {
		BSIM_INC(m, hwrm_fault_fails);
		code = bsim_refuse(m, rq, BNXT_HWRM_ERR_FAIL, "fail_cmd fault injection");
	}
	if (code < 0) {
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			if (cmds[i].req_type == h->req_type) {
				code = cmds[i].fn(m, rq, &rs);
				break;
			}
		}
	}
	if (code < 0) {
		BSIM_INC(m, hwrm_unsupported);
		code = bsim_refuse(m, rq, BNXT_HWRM_ERR_CMD_NOT_SUPPORTED, "unknown command%s",
				   is_short ? " (short)" : "");
	}
	if (code || rs.len < sizeof(struct bnxt_hwrm_plain_output)) {
		if (code)
			BSIM_INC(m, hwrm_errors);
		memset(&rs, 0, sizeof(rs));
		rs.len = sizeof(struct bnxt_hwrm_err_output);
	}
	out->error_code = (uint16_t)code;
	out->req_type = h->req_type;
	out->seq_id = h->seq_id;
	out->resp_len = rs.len;
	/* HWRM_DONE before the response: the ring it names (a CQ being freed,
	 * say) still exists unless this command freed it. */
	if (done && h->cmpl_ring != BNXT_HWRM_CMPL_RING_NONE) {
		done = bsim_ring_by_id(m, h->cmpl_ring);
		if (done && (done->kind == BK_CQ || done->kind == BK_NQ))
			bsim_hwrm_done(m, done, h->seq_id);
	}
	respond(m, h->resp_addr, &rs);
}

void bsim_hwrm_exec(struct bsim *m, const void *win, size_t len)
{
	struct bsim_req rq;
	struct bnxt_hwrm_short_input si;

	memset(rq.b, 0, sizeof(rq.b));
	memcpy(rq.b, win, len < BNXT_HWRM_MAX_REQ_LEN ? len : BNXT_HWRM_MAX_REQ_LEN);
	rq.hdr = (const void *)rq.b;
	rq.is_short = false;
	memcpy(&si, rq.b, sizeof(si));
	if (si.signature != BNXT_HWRM_SHORT_SIGNATURE) {
		run(m, &rq, false);
		return;
	}
	/* Short command (hw-docs/bnxt.md 3.5): the request is in host memory. */
	BSIM_INC(m, hwrm_short_cmds);
	if (si.size < sizeof(struct bnxt_hwrm_req_hdr) || si.size > BSIM_MAX_EXT_REQ ||
	    (si.req_addr & 15)) {
		BSIM_INC(m, hwrm_bad_short);
		ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: short command req_type %#x: size %u (16-%u) or req_addr %#llx "
				 "(16-byte aligned) invalid: no response", m->name, si.req_type,
				 si.size, BSIM_MAX_EXT_REQ, (unsigned long long)si.req_addr);
		return;
	}
	memset(rq.b, 0, sizeof(rq.b));
	rq.is_short = true;
	if (zn_vfu_dma_read(m->dev, si.req_addr, rq.b, si.size)) {
		BSIM_INC(m, hwrm_bad_short);
		ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: short command req_type %#x: req_addr %#llx +%u not mapped: "
				 "no response", m->name, si.req_type,
				 (unsigned long long)si.req_addr, si.size);
		return;
	}
	if (rq.hdr->req_type != si.req_type) {
		struct bsim_resp rs = { .len = sizeof(struct bnxt_hwrm_err_output) };
		struct bnxt_hwrm_resp_hdr *out = (void *)rs.b;

		BSIM_INC(m, hwrm_cmds);
		BSIM_INC(m, hwrm_bad_short);
		BSIM_INC(m, hwrm_errors);
		out->error_code = (uint16_t)bsim_refuse(m, &rq, BNXT_HWRM_ERR_INVALID_PARAMS,
							"short command req_type %#x differs",
							si.req_type);
		out->req_type = rq.hdr->req_type;
		out->seq_id = rq.hdr->seq_id;
		out->resp_len = rs.len;
		respond(m, rq.hdr->resp_addr, &rs);
		return;
	}
	run(m, &rq, true);
}

int bsim_hwrm_trigger(struct bsim *m, uint32_t value)
{
	if (value != BNXT_HWRM_TRIGGER_VALUE) {
		BSIM_INC(m, hwrm_bad_trigger);
		ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: HWRM trigger written with %#x, not 1: ignored", m->name, value);
		return 0;
	}
	if (m->hwrm_pending) {
		BSIM_INC(m, hwrm_overlap);
		ZN_SIM_LOG_RL_AT(&m->rl_hwrm, ZN_SIM_LOG_WARN, BSIM_LOG,
				 "%s: HWRM trigger while a command runs: ignored (one at a time)",
				 m->name);
		return 0;
	}
	memcpy(m->hwrm_win, m->win, sizeof(m->hwrm_win));
	m->hwrm_pending = true;
	return 0;
}

int bsim_hwrm_mapped_poll(struct bsim *m)
{
	volatile uint32_t *trig;
	uint32_t v;

	if (!m->bar0)
		return 0;
	trig = (volatile uint32_t *)(m->bar0 + BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER);
	/* acquire: the window stores made before the trigger are visible */
	v = __atomic_load_n(trig, __ATOMIC_ACQUIRE);
	if (!v)
		return 0;
	/* Consumed: the driver's next trigger (after this response) is new. */
	__atomic_store_n(trig, 0, __ATOMIC_RELAXED);
	memcpy(m->win, m->bar0, sizeof(m->win));
	bsim_hwrm_trigger(m, v);
	return 1;
}

int bsim_hwrm_poll(struct bsim *m, uint64_t now_ns, uint64_t *deadline_ns)
{
	int work = 0;

	if (m->valid_pending) {
		if (now_ns < m->valid_due_ns) {
			if (m->valid_due_ns < *deadline_ns)
				*deadline_ns = m->valid_due_ns;
			return 0;	/* the next command waits for this one */
		}
		uint8_t valid = BNXT_HWRM_RESP_VALID_KEY;

		zn_dma_wmb();
		zn_vfu_dma_write(m->dev, m->valid_addr, &valid, 1);
		m->valid_pending = false;
		work++;
	}
	if (m->hwrm_pending) {
		m->hwrm_pending = false;
		bsim_hwrm_exec(m, m->hwrm_win, sizeof(m->hwrm_win));
		work++;
	}
	return work;
}
