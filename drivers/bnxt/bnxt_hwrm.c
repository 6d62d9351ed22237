/* SPDX-License-Identifier: MIT */
/*
 * The HWRM firmware channel (hw-docs/bnxt.md §3): one command at a time,
 * written into the BAR0 request window (or sent as a short command), then
 * the response polled in host memory until its valid byte says it is whole.
 *
 * Rules that matter:
 *  - the response buffer is zeroed before each command, so an old valid byte
 *    is never taken for a new one;
 *  - a response counts only when resp_len is non-zero, seq_id is ours and the
 *    byte at resp_len - 1 is 1 (the firmware writes it last); out-of-sequence
 *    responses are ignored, as Linux does;
 *  - resp_len, not our struct size, says how long the response is: fields we
 *    know but the firmware did not send read as zero (bnxt_resp_has);
 *  - after a timeout nobody knows what the firmware is doing with our
 *    buffers: the channel is marked dead and every later command fails fast
 *    (until recovery, bnxt_init.c, resets the function);
 *  - a busy firmware (BUSY, HOT_RESET_PROGRESS, RESOURCE_LOCKED) is asked
 *    again a few times, backing off, before the error counts.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "drivers/bnxt/bnxt.h"
#include "zcnic/log.h"

#define HWRM_SPIN_POLLS		200	/* busy polls before sleeping */
#define HWRM_SLEEP_NS		20000	/* then this long between polls */
#define HWRM_RESET_TIMEOUT_MULT	4	/* FUNC_RESET ([L] bnxt_hwrm.h via [REF] §2.4) */
#define HWRM_ERR_OUT_LEN	16	/* bnxt_hwrm_err_output */
#define HWRM_BUSY_RETRIES	4	/* then the -EBUSY stands */
#define HWRM_BUSY_WAIT_MS	5	/* doubled after each try: 5..40 ms */

static const struct {
	uint16_t type;
	const char *name;
} cmd_names[] = {
	{ BNXT_HWRM_VER_GET, "VER_GET" },
	{ BNXT_HWRM_FUNC_DRV_IF_CHANGE, "FUNC_DRV_IF_CHANGE" },
	{ BNXT_HWRM_FUNC_RESET, "FUNC_RESET" },
	{ BNXT_HWRM_FUNC_QCAPS, "FUNC_QCAPS" },
	{ BNXT_HWRM_FUNC_QCFG, "FUNC_QCFG" },
	{ BNXT_HWRM_FUNC_CFG, "FUNC_CFG" },
	{ BNXT_HWRM_FUNC_DRV_UNRGTR, "FUNC_DRV_UNRGTR" },
	{ BNXT_HWRM_FUNC_DRV_RGTR, "FUNC_DRV_RGTR" },
	{ BNXT_HWRM_PORT_PHY_QCFG, "PORT_PHY_QCFG" },
	{ BNXT_HWRM_QUEUE_QPORTCFG, "QUEUE_QPORTCFG" },
	{ BNXT_HWRM_VNIC_ALLOC, "VNIC_ALLOC" },
	{ BNXT_HWRM_VNIC_FREE, "VNIC_FREE" },
	{ BNXT_HWRM_VNIC_CFG, "VNIC_CFG" },
	{ BNXT_HWRM_VNIC_RSS_CFG, "VNIC_RSS_CFG" },
	{ BNXT_HWRM_VNIC_PLCMODES_CFG, "VNIC_PLCMODES_CFG" },
	{ BNXT_HWRM_VNIC_QCAPS, "VNIC_QCAPS" },
	{ BNXT_HWRM_VNIC_UPDATE, "VNIC_UPDATE" },
	{ BNXT_HWRM_RING_ALLOC, "RING_ALLOC" },
	{ BNXT_HWRM_RING_FREE, "RING_FREE" },
	{ BNXT_HWRM_RING_GRP_ALLOC, "RING_GRP_ALLOC" },
	{ BNXT_HWRM_RING_GRP_FREE, "RING_GRP_FREE" },
	{ BNXT_HWRM_VNIC_RSS_COS_LB_CTX_ALLOC, "VNIC_RSS_COS_LB_CTX_ALLOC" },
	{ BNXT_HWRM_VNIC_RSS_COS_LB_CTX_FREE, "VNIC_RSS_COS_LB_CTX_FREE" },
	{ BNXT_HWRM_CFA_L2_FILTER_ALLOC, "CFA_L2_FILTER_ALLOC" },
	{ BNXT_HWRM_CFA_L2_FILTER_FREE, "CFA_L2_FILTER_FREE" },
	{ BNXT_HWRM_CFA_L2_SET_RX_MASK, "CFA_L2_SET_RX_MASK" },
	{ BNXT_HWRM_CFA_NTUPLE_FILTER_ALLOC, "CFA_NTUPLE_FILTER_ALLOC" },
	{ BNXT_HWRM_CFA_NTUPLE_FILTER_FREE, "CFA_NTUPLE_FILTER_FREE" },
	{ BNXT_HWRM_STAT_CTX_ALLOC, "STAT_CTX_ALLOC" },
	{ BNXT_HWRM_STAT_CTX_FREE, "STAT_CTX_FREE" },
	{ BNXT_HWRM_FUNC_BACKING_STORE_QCAPS, "FUNC_BACKING_STORE_QCAPS" },
	{ BNXT_HWRM_FUNC_BACKING_STORE_CFG, "FUNC_BACKING_STORE_CFG" },
};

const char *zn_bnxt_hwrm_cmd_name(uint16_t req_type)
{
	for (size_t i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
		if (cmd_names[i].type == req_type)
			return cmd_names[i].name;
	return "HWRM command";
}

const char *zn_bnxt_hwrm_err_name(uint16_t error_code)
{
	switch (error_code) {
	case BNXT_HWRM_ERR_SUCCESS: return "SUCCESS";
	case BNXT_HWRM_ERR_FAIL: return "FAIL";
	case BNXT_HWRM_ERR_INVALID_PARAMS: return "INVALID_PARAMS";
	case BNXT_HWRM_ERR_RESOURCE_ACCESS_DENIED: return "RESOURCE_ACCESS_DENIED";
	case BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR: return "RESOURCE_ALLOC_ERROR";
	case BNXT_HWRM_ERR_INVALID_FLAGS: return "INVALID_FLAGS";
	case BNXT_HWRM_ERR_INVALID_ENABLES: return "INVALID_ENABLES";
	case BNXT_HWRM_ERR_UNSUPPORTED_TLV: return "UNSUPPORTED_TLV";
	case BNXT_HWRM_ERR_NO_BUFFER: return "NO_BUFFER";
	case BNXT_HWRM_ERR_UNSUPPORTED_OPTION_ERR: return "UNSUPPORTED_OPTION";
	case BNXT_HWRM_ERR_HOT_RESET_PROGRESS: return "HOT_RESET_PROGRESS";
	case BNXT_HWRM_ERR_HOT_RESET_FAIL: return "HOT_RESET_FAIL";
	case BNXT_HWRM_ERR_KEY_HASH_COLLISION: return "KEY_HASH_COLLISION";
	case BNXT_HWRM_ERR_KEY_ALREADY_EXISTS: return "KEY_ALREADY_EXISTS";
	case BNXT_HWRM_ERR_HWRM_ERROR: return "HWRM_ERROR";
	case BNXT_HWRM_ERR_BUSY: return "BUSY";
	case BNXT_HWRM_ERR_RESOURCE_LOCKED: return "RESOURCE_LOCKED";
	case BNXT_HWRM_ERR_PF_UNAVAILABLE: return "PF_UNAVAILABLE";
	case BNXT_HWRM_ERR_ENTITY_NOT_PRESENT: return "ENTITY_NOT_PRESENT";
	case BNXT_HWRM_ERR_CMD_NOT_SUPPORTED: return "CMD_NOT_SUPPORTED";
	default: return "unknown error";
	}
}

int zn_bnxt_hwrm_errno(uint16_t error_code)
{
	switch (error_code) {
	case BNXT_HWRM_ERR_SUCCESS:
		return 0;
	case BNXT_HWRM_ERR_INVALID_PARAMS:
	case BNXT_HWRM_ERR_INVALID_FLAGS:
	case BNXT_HWRM_ERR_INVALID_ENABLES:
	case BNXT_HWRM_ERR_UNSUPPORTED_TLV:
	case BNXT_HWRM_ERR_UNSUPPORTED_OPTION_ERR:
		return -EINVAL;
	case BNXT_HWRM_ERR_RESOURCE_ACCESS_DENIED:
		return -EACCES;
	case BNXT_HWRM_ERR_RESOURCE_ALLOC_ERROR:
	case BNXT_HWRM_ERR_NO_BUFFER:
		return -ENOSPC;
	case BNXT_HWRM_ERR_BUSY:
	case BNXT_HWRM_ERR_HOT_RESET_PROGRESS:
	case BNXT_HWRM_ERR_RESOURCE_LOCKED:
		return -EBUSY;
	case BNXT_HWRM_ERR_KEY_ALREADY_EXISTS:
	case BNXT_HWRM_ERR_KEY_HASH_COLLISION:
		return -EEXIST;
	case BNXT_HWRM_ERR_ENTITY_NOT_PRESENT:
		return -ENOENT;
	case BNXT_HWRM_ERR_PF_UNAVAILABLE:
		return -ENODEV;
	case BNXT_HWRM_ERR_CMD_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

int zn_bnxt_hwrm_init(struct bnxt *bp)
{
	struct bnxt_hwrm *h = &bp->hwrm;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = zn_dma_region_alloc("bnxt-hwrm", BNXT_HWRM_RESP_BUF + BNXT_HWRM_SREQ_BUF, -1,
				 ZN_DMA_NO_HUGE, &h->dma);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: cannot allocate the HWRM response buffer: %s",
		       bp->name, strerror(-rc));
		return rc;
	}
	rc = zn_bus_dma_map(bp->bus, h->dma);
	if (rc < 0) {
		ZN_ERR(BNXT_LOG, "%s: cannot DMA-map the HWRM response buffer: %s",
		       bp->name, strerror(-rc));
		zn_dma_region_free(h->dma);
		h->dma = NULL;
		return rc;
	}
	h->resp = h->dma->va;
	h->resp_iova = h->dma->iova;
	h->sreq = (uint8_t *)h->dma->va + BNXT_HWRM_RESP_BUF;
	h->sreq_iova = h->dma->iova + BNXT_HWRM_RESP_BUF;
	h->win_len = BNXT_HWRM_MAX_REQ_LEN;
	h->max_resp_len = BNXT_HWRM_MAX_RESP_LEN;
	h->timeout_ms = BNXT_HWRM_DFLT_TIMEOUT_MS;
	h->max_timeout_ms = BNXT_HWRM_MAX_TIMEOUT_S * 1000u;
	return 0;
}

void zn_bnxt_hwrm_fini(struct bnxt *bp)
{
	struct bnxt_hwrm *h = &bp->hwrm;

	if (!h->dma)
		return;
	zn_bus_dma_unmap(bp->bus, h->dma);
	zn_dma_region_free(h->dma);
	h->dma = NULL;
	h->resp = NULL;
	h->sreq = NULL;
}

/* §3.2 step 3: the request in 32-bit stores, then zeros to the window end. */
static int write_window(struct bnxt *bp, const void *buf, uint32_t len, uint32_t win)
{
	const uint8_t *p = buf;
	int rc;

	for (uint32_t off = 0; off < win; off += 4) {
		uint32_t w = 0;

		if (off < len)
			memcpy(&w, p + off, len - off >= 4 ? 4 : len - off);
		rc = zn_bus_write32(bp->bus, BNXT_BAR_REGS, BNXT_GRCPF_REG_CHIMP_COMM + off, w);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static uint16_t rd16(volatile const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static int send_once(struct bnxt *bp, void *req, uint32_t req_len, void *resp,
		     uint32_t resp_size, uint32_t min_resp, uint16_t cmpl_ring,
		     uint16_t *seq_out, bool retry)
{
	struct bnxt_hwrm *h = &bp->hwrm;
	struct bnxt_hwrm_req_hdr *hdr = req;
	uint16_t type = hdr->req_type, seq, rlen = 0, got_seq = 0;
	const char *cname = zn_bnxt_hwrm_cmd_name(type);
	bool short_cmd, other_seq = false;
	uint32_t timeout, polls = 0;
	uint64_t deadline;
	int rc;

	if (h->dead) {
		if (h->resetting)	/* recovery tears down what the reset freed */
			return -EIO;
		ZN_ERR(BNXT_LOG, "%s: %s not sent: an earlier command timed out and the "
		       "firmware channel is in an unknown state; close and reopen the port "
		       "after resetting the device", bp->name, cname);
		return -EIO;
	}
	if (!h->resp || req_len < sizeof(*hdr) || (req_len & 3) ||
	    req_len > BNXT_HWRM_SREQ_BUF || resp_size > BNXT_HWRM_RESP_BUF)
		return -EINVAL;

	seq = h->seq++;
	hdr->cmpl_ring = cmpl_ring;
	hdr->seq_id = seq;
	hdr->target_id = BNXT_HWRM_TARGET_ID_HWRM;
	hdr->resp_addr = h->resp_iova;
	if (seq_out)
		*seq_out = seq;
	/* §3.2 step 1: no stale valid byte may survive into this command. */
	memset((void *)h->resp, 0, BNXT_HWRM_RESP_BUF);
	zn_dma_wmb();

	/* §3.5: longer than the window, or the firmware insists. */
	short_cmd = req_len > h->win_len || h->short_cmd_required;
	if (short_cmd) {
		struct bnxt_hwrm_short_input si = {
			.req_type = type,
			.signature = BNXT_HWRM_SHORT_SIGNATURE,
			.target_id = 0,
			.size = (uint16_t)req_len,
			.req_addr = h->sreq_iova,
		};

		if (!h->short_cmd && !h->short_cmd_required) {
			ZN_ERR(BNXT_LOG, "%s: %s is %u bytes, longer than the %u-byte request "
			       "window, and the firmware does not accept short commands",
			       bp->name, cname, req_len, h->win_len);
			return -EOPNOTSUPP;
		}
		if (h->max_ext_req_len && req_len > h->max_ext_req_len) {
			ZN_ERR(BNXT_LOG, "%s: %s is %u bytes, longer than the firmware's "
			       "max_ext_req_len %u", bp->name, cname, req_len, h->max_ext_req_len);
			return -E2BIG;
		}
		memcpy(h->sreq, req, req_len);
		zn_dma_wmb();
		rc = write_window(bp, &si, sizeof(si), sizeof(si));
	} else {
		rc = write_window(bp, req, req_len, h->win_len);
	}
	if (rc == 0)
		rc = zn_bus_write32(bp->bus, BNXT_BAR_REGS, BNXT_GRCPF_REG_CHIMP_COMM_TRIGGER,
				    BNXT_HWRM_TRIGGER_VALUE);
	if (rc < 0) {
		/* A lost vfio-user server: the bus said so once, and every later
		 * command (a teardown sends a dozen) fails the same way. */
		if (rc != -ENOTCONN && rc != -EPIPE)
			ZN_ERR(BNXT_LOG, "%s: %s: writing the request to BAR0 failed: %s",
			       bp->name, cname, strerror(-rc));
		return rc;
	}

	timeout = h->timeout_ms;
	if (type == BNXT_HWRM_FUNC_RESET)
		timeout *= HWRM_RESET_TIMEOUT_MULT;
	if (timeout > h->max_timeout_ms)
		timeout = h->max_timeout_ms;
	deadline = zn_now_ms() + timeout;

	/* §3.3: resp_len, then our seq_id, then the valid byte written last. */
	for (;;) {
		rlen = rd16(h->resp + offsetof(struct bnxt_hwrm_resp_hdr, resp_len));
		got_seq = rd16(h->resp + offsetof(struct bnxt_hwrm_resp_hdr, seq_id));
		if (rlen) {
			if (got_seq != seq) {
				other_seq = true;
			} else if (rlen < sizeof(struct bnxt_hwrm_resp_hdr) ||
				   rlen > BNXT_HWRM_RESP_BUF) {
				ZN_ERR(BNXT_LOG, "%s: %s: response length %u is outside 8..%u; "
				       "the device wrote garbage", bp->name, cname, rlen,
				       BNXT_HWRM_RESP_BUF);
				return -EIO;
			} else if (h->resp[rlen - 1] == BNXT_HWRM_RESP_VALID_KEY) {
				break;
			}
		}
		if (zn_now_ms() > deadline) {
			h->dead = true;
			if (other_seq)
				ZN_ERR(BNXT_LOG, "%s: %s (0x%x) timed out after %u ms: the only "
				       "response carried seq_id %u, not ours (%u); the device is "
				       "treated as failed", bp->name, cname, type, timeout,
				       got_seq, seq);
			else
				ZN_ERR(BNXT_LOG, "%s: %s (0x%x) timed out after %u ms with no "
				       "complete response; the device is treated as failed",
				       bp->name, cname, type, timeout);
			return -ETIMEDOUT;
		}
		if (++polls > HWRM_SPIN_POLLS) {
			struct timespec ts = { 0, HWRM_SLEEP_NS };

			nanosleep(&ts, NULL);
		}
	}
	zn_dma_rmb();

	{
		struct bnxt_hwrm_resp_hdr rh;
		uint8_t cmd_err = 0;

		memcpy(&rh, (const void *)h->resp, sizeof(rh));
		if (rh.req_type != type) {
			ZN_ERR(BNXT_LOG, "%s: %s: the response is for req_type 0x%x",
			       bp->name, cname, rh.req_type);
			return -EIO;
		}
		if (rh.error_code) {
			rc = zn_bnxt_hwrm_errno(rh.error_code);
			if (rlen >= HWRM_ERR_OUT_LEN)
				cmd_err = h->resp[offsetof(struct bnxt_hwrm_err_output, cmd_err)];
			if (rc == -EBUSY && retry) {
				ZN_WARN(BNXT_LOG, "%s: %s (0x%x): firmware busy (0x%x %s): "
					"asking again", bp->name, cname, type, rh.error_code,
					zn_bnxt_hwrm_err_name(rh.error_code));
				return rc;
			}
			ZN_ERR(BNXT_LOG, "%s: %s (0x%x) failed: firmware error 0x%x %s "
			       "(cmd_err %u) -> %s", bp->name, cname, type, rh.error_code,
			       zn_bnxt_hwrm_err_name(rh.error_code), cmd_err, strerror(-rc));
			return rc;
		}
		if (rlen < min_resp) {
			ZN_ERR(BNXT_LOG, "%s: %s: response of %u bytes, at least %u expected",
			       bp->name, cname, rlen, min_resp);
			return -EIO;
		}
		if (resp) {
			uint32_t n = rlen < resp_size ? rlen : resp_size;

			memcpy(resp, (const void *)h->resp, n);
			memset((uint8_t *)resp + n, 0, resp_size - n);
		}
		/* As Linux does: the next command cannot see this valid byte. */
		h->resp[rlen - 1] = 0;
	}
	return 0;
}

int zn_bnxt_hwrm_send_cmpl(struct bnxt *bp, void *req, uint32_t req_len, void *resp,
			   uint32_t resp_size, uint32_t min_resp, uint16_t cmpl_ring,
			   uint16_t *seq_out)
{
	for (unsigned i = 0;; i++) {
		bool retry = i < HWRM_BUSY_RETRIES;
		int rc = send_once(bp, req, req_len, resp, resp_size, min_resp, cmpl_ring,
				   seq_out, retry);

		if (rc != -EBUSY || !retry)
			return rc;
		nanosleep(&(struct timespec){ 0, (HWRM_BUSY_WAIT_MS << i) * 1000000L }, NULL);
	}
}

int zn_bnxt_hwrm_send(struct bnxt *bp, void *req, uint32_t req_len, void *resp,
		      uint32_t resp_size, uint32_t min_resp)
{
	return zn_bnxt_hwrm_send_cmpl(bp, req, req_len, resp, resp_size, min_resp,
				      BNXT_HWRM_CMPL_RING_NONE, NULL);
}
