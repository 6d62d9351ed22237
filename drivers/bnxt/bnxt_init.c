/* SPDX-License-Identifier: MIT */
/*
 * Function bring-up, hw-docs/bnxt.md §4 steps 2-8, in the documented order:
 * everything the driver learns from the firmware before any ring exists.
 * Steps 9-17 (resources, rings, VNICs, filters) are bnxt_start.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define HSI_MAJ			1	/* the interface version we speak: 1.10.3 */
#define HSI_MIN			10
#define HSI_UPD			3
#define DEV_NOT_RDY_TRIES	50	/* VER_GET retries while the firmware boots */
#define DEV_NOT_RDY_WAIT_MS	20
#define DRV_VER_MAJ		0	/* zcnic 0.1.0, reported in FUNC_DRV_RGTR */
#define DRV_VER_MIN		1
#define DRV_VER_UPD		0

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* §4 step 2: VER_GET. Our HSI version in, the channel's limits out. */
static int ver_get(struct bnxt *bp)
{
	struct bnxt_hwrm_ver_get_output r;
	int rc;

	for (unsigned try = 0;; try++) {
		struct bnxt_hwrm_ver_get_input req = {
			.hdr.req_type = BNXT_HWRM_VER_GET,
			.hwrm_intf_maj = HSI_MAJ,
			.hwrm_intf_min = HSI_MIN,
			.hwrm_intf_upd = HSI_UPD,
		};

		rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &r, sizeof(r),
				       offsetof(struct bnxt_hwrm_ver_get_output, hwrm_intf_major));
		if (rc < 0)
			return rc;
		if (!(r.flags & BNXT_VER_GET_FLAGS_DEV_NOT_RDY))
			break;
		if (try >= DEV_NOT_RDY_TRIES) {
			ZN_ERR(BNXT_LOG, "%s: VER_GET: the firmware still reports DEV_NOT_RDY "
			       "after %u ms; reset the device", bp->name,
			       DEV_NOT_RDY_TRIES * DEV_NOT_RDY_WAIT_MS);
			return -EAGAIN;
		}
		sleep_ms(DEV_NOT_RDY_WAIT_MS);
	}

	bp->intf_maj = r.hwrm_intf_maj_8b;
	bp->intf_min = r.hwrm_intf_min_8b;
	bp->intf_upd = r.hwrm_intf_upd_8b;
	bp->fw_maj = r.hwrm_fw_maj_8b;
	bp->fw_min = r.hwrm_fw_min_8b;
	bp->fw_bld = r.hwrm_fw_bld_8b;
	bp->fw_rsvd = r.hwrm_fw_rsvd_8b;
	bp->chip_num = r.chip_num;
	bp->dev_caps = r.dev_caps_cfg;
	if (r.hwrm_intf_maj_8b != HSI_MAJ) {
		ZN_ERR(BNXT_LOG, "%s: VER_GET: firmware interface %u.%u.%u, zcnic speaks %u.x",
		       bp->name, r.hwrm_intf_maj_8b, r.hwrm_intf_min_8b, r.hwrm_intf_upd_8b,
		       HSI_MAJ);
		return -EPROTO;
	}
	if (r.max_req_win_len < BNXT_HWRM_MAX_REQ_LEN) {
		ZN_ERR(BNXT_LOG, "%s: VER_GET: request window of %u bytes, at least %u needed",
		       bp->name, r.max_req_win_len, BNXT_HWRM_MAX_REQ_LEN);
		return -EPROTO;
	}
	if (!bnxt_chip_num_is_p5(r.chip_num)) {
		ZN_ERR(BNXT_LOG, "%s: VER_GET: chip_num 0x%04x is not a P5 (BCM5750x) chip, "
		       "although the PCI id 0x%04x says P5", bp->name, r.chip_num, bp->device);
		return -ENODEV;
	}
	/* Requests longer than 128 bytes go by short command anyway (§3.5). */
	bp->hwrm.win_len = BNXT_HWRM_MAX_REQ_LEN;
	if (r.max_resp_len)
		bp->hwrm.max_resp_len = r.max_resp_len;
	if (r.def_req_timeout)
		bp->hwrm.timeout_ms = r.def_req_timeout;
	if (BNXT_RESP_HAS(r.hdr.resp_len, bnxt_hwrm_ver_get_output, max_ext_req_len))
		bp->hwrm.max_ext_req_len = r.max_ext_req_len;
	if (BNXT_RESP_HAS(r.hdr.resp_len, bnxt_hwrm_ver_get_output, max_req_timeout) &&
	    r.max_req_timeout)
		bp->hwrm.max_timeout_ms = r.max_req_timeout * 1000u;
	if (bp->hwrm.timeout_ms > bp->hwrm.max_timeout_ms)
		bp->hwrm.timeout_ms = bp->hwrm.max_timeout_ms;
	bp->hwrm.short_cmd = r.dev_caps_cfg & BNXT_VER_GET_DEV_CAPS_SHORT_CMD_SUPPORTED;
	bp->hwrm.short_cmd_required = r.dev_caps_cfg & BNXT_VER_GET_DEV_CAPS_SHORT_CMD_REQUIRED;
	ZN_INFO(BNXT_LOG, "%s: firmware %u.%u.%u.%u, interface %u.%u.%u, chip 0x%04x, "
		"command timeout %u ms", bp->name, bp->fw_maj, bp->fw_min, bp->fw_bld,
		bp->fw_rsvd, bp->intf_maj, bp->intf_min, bp->intf_upd, bp->chip_num,
		bp->hwrm.timeout_ms);
	return 0;
}

/* §4 step 3: FUNC_RESET, enables 0: this function's resources, whatever an
 * earlier user (or a crashed process) left behind. */
static int func_reset(struct bnxt *bp)
{
	struct bnxt_hwrm_func_reset_input req = { .hdr.req_type = BNXT_HWRM_FUNC_RESET };

	return zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
}

/* §4 step 4: FUNC_QCAPS: our MAC, the maxima, and (§7.4) whether rings may
 * have doorbell pages of their own. */
static int func_qcaps(struct bnxt *bp)
{
	struct bnxt_hwrm_func_qcaps_input req = {
		.hdr.req_type = BNXT_HWRM_FUNC_QCAPS,
		.fid = BNXT_FID_SELF,
	};
	struct bnxt_hwrm_func_qcaps_output_long r;
	int rc;

	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &r, sizeof(r),
			       offsetof(struct bnxt_hwrm_func_qcaps_output_long, max_encap_records));
	if (rc < 0)
		return rc;
	bp->fid = r.fid;
	bp->port_id = r.port_id;
	memcpy(bp->mac, r.mac_address, ZN_ETH_ALEN);
	bp->max_rsscos_ctx = r.max_rsscos_ctx;
	bp->max_cmpl_rings = r.max_cmpl_rings;
	bp->max_tx_rings = r.max_tx_rings;
	bp->max_rx_rings = r.max_rx_rings;
	bp->max_l2_ctxs = r.max_l2_ctxs;
	bp->max_vnics = r.max_vnics;
	bp->max_stat_ctx = r.max_stat_ctx;
	bp->multi_db_cap = bnxt_qcaps_multi_l2_db(&r);
	if (BNXT_RESP_HAS(r.hdr.resp_len, bnxt_hwrm_func_qcaps_output_long, flags_ext3))
		bp->qcaps_flags_ext3 = r.flags_ext3;
	if (!(bp->mac[0] | bp->mac[1] | bp->mac[2] | bp->mac[3] | bp->mac[4] | bp->mac[5]))
		ZN_WARN(BNXT_LOG, "%s: FUNC_QCAPS gave no MAC address", bp->name);
	if (!bp->max_rx_rings || !bp->max_tx_rings || !bp->max_cmpl_rings ||
	    !bp->max_vnics || !bp->max_stat_ctx) {
		ZN_ERR(BNXT_LOG, "%s: FUNC_QCAPS: the function has no rings, VNICs or stat "
		       "contexts (rx %u tx %u cmpl %u vnic %u stat %u)", bp->name,
		       bp->max_rx_rings, bp->max_tx_rings, bp->max_cmpl_rings, bp->max_vnics,
		       bp->max_stat_ctx);
		return -ENODEV;
	}
	return 0;
}

/* §4 step 6: FUNC_QCFG: MTU, MRU and the doorbell geometry. */
static int func_qcfg(struct bnxt *bp)
{
	struct bnxt_hwrm_func_qcfg_input req = {
		.hdr.req_type = BNXT_HWRM_FUNC_QCFG,
		.fid = BNXT_FID_SELF,
	};
	struct bnxt_hwrm_func_qcfg_output_long r;
	int rc;

	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &r, sizeof(r),
			       offsetof(struct bnxt_hwrm_func_qcfg_output_long, roce_vnic_id));
	if (rc < 0)
		return rc;
	bp->admin_mtu = r.admin_mtu;
	bp->mru = r.mru;
	bp->l2_db_bar_kb = r.l2_doorbell_bar_size_kb;
	bp->db_page_code = r.db_page_size;
	if (BNXT_RESP_HAS(r.hdr.resp_len, bnxt_hwrm_func_qcfg_output_long,
			  l2_db_multi_page_size_kb))
		bp->l2_db_multi_kb = r.l2_db_multi_page_size_kb;
	return 0;
}

/* §7.4 rule 1: one doorbell page per ring when the firmware offers it and
 * says how large the pages are; the shared legacy doorbell otherwise. */
static int doorbell_mode(struct bnxt *bp)
{
	uint64_t limit = bp->bar2_size;

	if (bp->l2_db_bar_kb && (uint64_t)bp->l2_db_bar_kb * 1024u < limit)
		limit = (uint64_t)bp->l2_db_bar_kb * 1024u;
	bp->legacy_db_off = bnxt_db_legacy_off_p5(bp->vf);
	if (bp->legacy_db_off + 8 > bp->bar2_size) {
		ZN_ERR(BNXT_LOG, "%s: BAR2 is %llu bytes, too small for the doorbell at 0x%llx",
		       bp->name, (unsigned long long)bp->bar2_size,
		       (unsigned long long)bp->legacy_db_off);
		return -ENODEV;
	}
	bp->multi_db = false;
	if (bp->multi_db_cap && bp->l2_db_multi_kb && bnxt_db_page_bytes(bp->db_page_code)) {
		uint32_t page = bnxt_db_page_bytes(bp->db_page_code);
		uint32_t first = bnxt_mdb_first_dpi(bp->vf, page);
		uint32_t n = bnxt_mdb_num_dpis(bp->l2_db_multi_kb, page);

		/* Only pages inside what the function may map. */
		if ((uint64_t)(first + n) * page > limit)
			n = limit / page > first ? (uint32_t)(limit / page - first) : 0;
		if (n) {
			bp->dpi_used = calloc(n, 1);
			if (!bp->dpi_used)
				return -ENOMEM;
			bp->multi_db = true;
			bp->db_page_bytes = page;
			bp->first_dpi = first;
			bp->num_dpis = n;
		} else {
			ZN_WARN(BNXT_LOG, "%s: multi-doorbell pages lie outside BAR2 (%llu "
				"bytes); using the shared doorbell", bp->name,
				(unsigned long long)limit);
		}
	}
	if (bp->multi_db)
		ZN_INFO(BNXT_LOG, "%s: doorbells: one %u-byte page per ring, DPI %u..%u",
			bp->name, bp->db_page_bytes, bp->first_dpi,
			bp->first_dpi + bp->num_dpis - 1);
	else
		ZN_INFO(BNXT_LOG, "%s: doorbells: the shared legacy doorbell at BAR2+0x%llx%s",
			bp->name, (unsigned long long)bp->legacy_db_off,
			bp->multi_db_cap ? " (multi-doorbell offered without page geometry)" : "");
	return 0;
}

/* §4 step 7: FUNC_DRV_RGTR, with the async events we want forwarded. */
static int drv_rgtr(struct bnxt *bp)
{
	struct bnxt_hwrm_func_drv_rgtr_input req = {
		.hdr.req_type = BNXT_HWRM_FUNC_DRV_RGTR,
		.enables = BNXT_FUNC_DRV_RGTR_ENABLES_OS_TYPE | BNXT_FUNC_DRV_RGTR_ENABLES_VER |
			   BNXT_FUNC_DRV_RGTR_ENABLES_ASYNC_EVENT_FWD,
		.os_type = BNXT_FUNC_DRV_RGTR_OS_TYPE_OTHER,
		.ver_maj_8b = DRV_VER_MAJ,
		.ver_min_8b = DRV_VER_MIN,
		.ver_upd_8b = DRV_VER_UPD,
		.ver_maj = DRV_VER_MAJ,
		.ver_min = DRV_VER_MIN,
		.ver_upd = DRV_VER_UPD,
	};
	static const uint8_t events[] = {
		BNXT_ASYNC_EVENT_LINK_STATUS_CHANGE, BNXT_ASYNC_EVENT_RESET_NOTIFY,
	};
	struct bnxt_hwrm_func_drv_rgtr_output r;
	int rc;

	/* Event id n is bit n % 32 of word n / 32. */
	for (size_t i = 0; i < sizeof(events); i++)
		req.async_event_fwd[events[i] / 32] |= 1u << (events[i] % 32);
	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &r, sizeof(r), 0);
	if (rc == 0)
		bp->registered = true;
	return rc;
}

/* §4 step 8: QUEUE_QPORTCFG on the TX path: a lossy CoS queue for TX rings. */
static int queue_qportcfg(struct bnxt *bp)
{
	struct bnxt_hwrm_queue_qportcfg_input req = {
		.hdr.req_type = BNXT_HWRM_QUEUE_QPORTCFG,
		.flags = BNXT_QUEUE_QPORTCFG_FLAGS_PATH_TX,
		.port_id = bp->port_id,
	};
	struct bnxt_hwrm_queue_qportcfg_output r;
	unsigned n;
	int rc;

	rc = zn_bnxt_hwrm_send(bp, &req, sizeof(req), &r, sizeof(r),
			       offsetof(struct bnxt_hwrm_queue_qportcfg_output,
					queue_id0_service_profile_type));
	if (rc < 0)
		return rc;
	n = r.max_configurable_queues < 8 ? r.max_configurable_queues : 8;
	if (n == 0) {
		ZN_ERR(BNXT_LOG, "%s: QUEUE_QPORTCFG: the port has no CoS queue for TX rings",
		       bp->name);
		return -ENODEV;
	}
	for (unsigned i = 0; i < n; i++) {
		if (r.queue[i].service_profile == BNXT_QUEUE_PROFILE_LOSSY) {
			bp->tx_cos_queue = r.queue[i].id;
			return 0;
		}
	}
	bp->tx_cos_queue = r.queue[0].id;
	ZN_WARN(BNXT_LOG, "%s: QUEUE_QPORTCFG: no lossy CoS queue; TX rings use queue %u "
		"(profile %u)", bp->name, r.queue[0].id, r.queue[0].service_profile);
	return 0;
}

int zn_bnxt_fw_init(struct bnxt *bp)
{
	int rc;

	rc = ver_get(bp);					/* step 2 */
	if (rc == 0)
		rc = func_reset(bp);				/* step 3 */
	if (rc == 0)
		rc = func_qcaps(bp);				/* step 4 */
	if (rc == 0 && !bp->vf)
		rc = zn_bnxt_ctx_init(bp);			/* step 5: PF only */
	if (rc == 0)
		rc = func_qcfg(bp);				/* step 6 */
	if (rc == 0)
		rc = doorbell_mode(bp);				/* §7.4 */
	if (rc == 0)
		rc = drv_rgtr(bp);				/* step 7 */
	if (rc == 0)
		rc = queue_qportcfg(bp);			/* step 8 */
	if (rc < 0) {
		zn_bnxt_fw_fini(bp);
		return rc;
	}
	ZN_INFO(BNXT_LOG, "%s: up: MAC %02x:%02x:%02x:%02x:%02x:%02x, max rings rx %u tx %u "
		"cmpl %u, vnics %u, stat ctxs %u", bp->name, bp->mac[0], bp->mac[1], bp->mac[2],
		bp->mac[3], bp->mac[4], bp->mac[5], bp->max_rx_rings, bp->max_tx_rings,
		bp->max_cmpl_rings, bp->max_vnics, bp->max_stat_ctx);
	return 0;
}

/* The end of §4's teardown: unregister, and only then release the backing
 * store the firmware may have used until now. */
void zn_bnxt_fw_fini(struct bnxt *bp)
{
	if (bp->registered && !bp->hwrm.dead) {
		struct bnxt_hwrm_func_drv_unrgtr_input req = {
			.hdr.req_type = BNXT_HWRM_FUNC_DRV_UNRGTR,
		};

		zn_bnxt_hwrm_send(bp, &req, sizeof(req), NULL, 0, 0);
	}
	bp->registered = false;
	/* A dead channel means the firmware may still use our memory: stop it
	 * with a function-level reset before that memory goes back to the OS. */
	if (bp->hwrm.dead && bp->ctx_dma && zn_bus_reset(bp->bus) < 0)
		ZN_WARN(BNXT_LOG, "%s: device reset failed after a firmware timeout", bp->name);
	zn_bnxt_ctx_free(bp);
	free(bp->dpi_used);
	bp->dpi_used = NULL;
	bp->multi_db = false;
}

/* Re-installs the flow rules saved in flows under their old ids: the free
 * slots are held while the others are added, lowest first, as flow_add
 * takes the lowest free slot. */
static int flows_restore(struct bnxt *bp, const struct bnxt_flow *saved)
{
	uint32_t id;
	int rc = 0;

	for (uint32_t i = 0; i < BNXT_MAX_FLOWS; i++)
		bp->flows[i].used = !saved[i].used;
	for (uint32_t i = 0; i < BNXT_MAX_FLOWS && rc == 0; i++)
		if (saved[i].used)
			rc = zn_bnxt_flow_add(bp, &saved[i].m, saved[i].q, &id);
	for (uint32_t i = 0; i < BNXT_MAX_FLOWS; i++)
		if (!saved[i].used)
			bp->flows[i].used = false;
	return rc;
}

int zn_bnxt_recover(struct bnxt *bp, const char *why)
{
	static struct bnxt_flow saved[BNXT_MAX_FLOWS];
	bool started = bp->started;
	int rc;

	if (bp->gone)
		return -ENODEV;
	if (bp->fw_fatal) {
		ZN_ERR(BNXT_LOG, "%s: %s: the firmware stopped with a fatal error; the port "
		       "cannot come back without a reset from outside", bp->name, why);
		bp->gone = true;
		/* nothing will answer: the teardown asks nothing */
		bp->hwrm.dead = true;
		bp->hwrm.resetting = true;
		return -ENODEV;
	}
	ZN_WARN(BNXT_LOG, "%s: %s: resetting the function and bringing the port back",
		bp->name, why);
	memcpy(saved, bp->flows, sizeof(saved));
	/* The rings and filters died with the function: forget them without
	 * asking the firmware, then reset it (a timed-out command may still
	 * be running) before our memory is reused. */
	bp->hwrm.dead = true;
	bp->hwrm.resetting = true;
	zn_bnxt_stop(bp);
	zn_bnxt_fw_fini(bp);
	rc = zn_bus_reset(bp->bus);
	bp->hwrm.dead = false;
	bp->hwrm.resetting = false;
	bp->reset_notified = false;
	if (rc == 0)
		rc = zn_bus_enable_bus_master(bp->bus);
	if (rc == 0)
		rc = zn_bnxt_fw_init(bp);
	/* Until the flow rules are back their frames would land on the default
	 * queue (zcrx takes no frame from a queue not its own): the RX rings
	 * come up without buffers, the device drops and counts what arrives
	 * meanwhile, and the buffers go in last. */
	bp->recovering = true;
	if (rc == 0 && started)
		rc = zn_bnxt_start(bp);
	if (rc == 0 && started)
		rc = flows_restore(bp, saved);
	bp->recovering = false;
	for (uint16_t q = 0; rc == 0 && started && q < bp->conf.nb_rxq; q++)
		zn_bnxt_rxq_post_initial(bp->rxq[q]);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: the port did not come back after the reset: %s", bp->name,
		       strerror(-rc));
		bp->gone = true;
		return rc;
	}
	bp->recoveries++;
	return 0;
}
