/* SPDX-License-Identifier: MIT */
/*
 * Message dispatch: header checks, the handshake gate, the per-command
 * handlers, and the reply/refusal helpers every handler uses.
 *
 * Every refusal is an error reply (header only, ERROR flag, errno; vfio-user
 * spec "Header") unless the command set NO_REPLY, and is counted under one
 * reason (ZN_VFU_ERRORS). Nothing a client sends makes the server crash or
 * leak: fds of refused messages are closed by the caller.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/vfu/priv.h"

#define DIRTY_PAGES_CMD	14	/* removed from the protocol; unknown here */

static const char *const cmd_names[ZN_VFU_MAX_COMMAND] = {
	[0] = "UNKNOWN",
	[ZN_VFU_VERSION] = "VERSION",
	[ZN_VFU_DMA_MAP] = "DMA_MAP",
	[ZN_VFU_DMA_UNMAP] = "DMA_UNMAP",
	[ZN_VFU_DEVICE_GET_INFO] = "DEVICE_GET_INFO",
	[ZN_VFU_DEVICE_GET_REGION_INFO] = "DEVICE_GET_REGION_INFO",
	[ZN_VFU_DEVICE_GET_REGION_IO_FDS] = "DEVICE_GET_REGION_IO_FDS",
	[ZN_VFU_DEVICE_GET_IRQ_INFO] = "DEVICE_GET_IRQ_INFO",
	[ZN_VFU_DEVICE_SET_IRQS] = "DEVICE_SET_IRQS",
	[ZN_VFU_REGION_READ] = "REGION_READ",
	[ZN_VFU_REGION_WRITE] = "REGION_WRITE",
	[ZN_VFU_DMA_READ] = "DMA_READ",
	[ZN_VFU_DMA_WRITE] = "DMA_WRITE",
	[ZN_VFU_DEVICE_RESET] = "DEVICE_RESET",
	[ZN_VFU_REGION_WRITE_MULTI] = "REGION_WRITE_MULTI",
	[ZN_VFU_DEVICE_FEATURE] = "DEVICE_FEATURE",
	[ZN_VFU_MIG_DATA_READ] = "MIG_DATA_READ",
	[ZN_VFU_MIG_DATA_WRITE] = "MIG_DATA_WRITE",
};

static const struct {
	const char *key;
	int err;
	const char *what;
} err_table[ZN_VFU_ERR_COUNT] = {
#define ZN_VFU_X(n, k, e, w) [ZN_VFU_ERR_##n] = { k, e, w },
	ZN_VFU_ERRORS(ZN_VFU_X)
#undef ZN_VFU_X
};

const char *zn_vfu_cmd_name(unsigned cmd)
{
	if (cmd >= ZN_VFU_MAX_COMMAND || !cmd_names[cmd])
		return cmd_names[0];
	return cmd_names[cmd];
}

const char *zn_vfu_err_name(enum zn_vfu_err e)
{
	return (unsigned)e < ZN_VFU_ERR_COUNT ? err_table[e].key : "?";
}

int zn_vfu_err_errno(enum zn_vfu_err e)
{
	return (unsigned)e < ZN_VFU_ERR_COUNT ? err_table[e].err : 0;
}

void vfu_send_error(struct zn_vfu_dev *dev, const struct zn_vfu_hdr *req, int err)
{
	struct zn_vfu_hdr h = {
		.msg_id = req->msg_id,
		.cmd = req->cmd,
		.msg_size = sizeof(h),
		.flags = ZN_VFU_F_TYPE_REPLY | ZN_VFU_F_ERROR,
		.error_no = (uint32_t)err,
	};

	if (req->flags & ZN_VFU_F_NO_REPLY)
		return;
	vfu_conn_queue(dev, &h, sizeof(h), NULL, 0);
}

int vfu_refuse(struct zn_vfu_dev *dev, const struct vfu_req *rq, enum zn_vfu_err why,
	       int err, const char *fmt, ...)
{
	char detail[160];
	va_list ap;

	if (!err)
		err = err_table[why].err;
	VFU_INC(dev->stats.errors[why]);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	ZN_SIM_LOG_RL_AT(&dev->rl_refuse, ZN_SIM_LOG_WARN, "vfu",
			 "%s: %s msg %u refused: %s [%s]: %s (%s)", dev->name,
			 zn_vfu_cmd_name(rq->hdr.cmd), rq->hdr.msg_id, err_table[why].what,
			 zn_vfu_err_name(why), detail, strerror(err));
	vfu_send_error(dev, &rq->hdr, err);
	return -err;
}

int vfu_reply(struct zn_vfu_dev *dev, const struct vfu_req *rq, const void *payload,
	      size_t len, const int *fds, unsigned nfds)
{
	struct zn_vfu_hdr h = {
		.msg_id = rq->hdr.msg_id,
		.cmd = rq->hdr.cmd,
		.msg_size = (uint32_t)(sizeof(h) + len),
		.flags = ZN_VFU_F_TYPE_REPLY,
	};
	uint8_t stackbuf[256], *buf = stackbuf;
	int ret;

	if (rq->hdr.flags & ZN_VFU_F_NO_REPLY)
		return 0;
	if (sizeof(h) + len > sizeof(stackbuf)) {
		buf = malloc(sizeof(h) + len);
		if (!buf) {
			vfu_send_error(dev, &rq->hdr, ENOMEM);
			return -ENOMEM;
		}
	}
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	ret = vfu_conn_queue(dev, buf, sizeof(h) + len, fds, nfds);
	if (buf != stackbuf)
		free(buf);
	return ret;
}

static int handle_get_info(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	struct zn_vfu_device_info in, out = {
		.argsz = sizeof(out),
		.flags = ZN_VFU_DEV_F_PCI | ZN_VFU_DEV_F_RESET,
		.num_regions = ZN_VFU_PCI_NUM_REGIONS,
		.num_irqs = ZN_VFU_PCI_NUM_IRQS,
	};

	if (rq->len != sizeof(in))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u, want %zu",
				  rq->len, sizeof(in));
	memcpy(&in, rq->data, sizeof(in));
	if (in.argsz < sizeof(out))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_ARGSZ, 0, "argsz %u < %zu",
				  in.argsz, sizeof(out));
	/* vfio-user spec DEVICE_GET_INFO: "all other fields must be zero" */
	if (in.flags || in.num_regions || in.num_irqs)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_NONZERO_FIELD, 0,
				  "flags/num_regions/num_irqs must be zero");
	return vfu_reply(dev, rq, &out, sizeof(out), NULL, 0);
}

static int handle_reset(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	if (rq->len)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u, want 0", rq->len);
	ZN_SIM_INFO("vfu", "%s: device reset by the client", dev->name);
	vfu_dev_reset(dev, ZN_VFU_RESET_DEVICE);
	return vfu_reply(dev, rq, NULL, 0, NULL, 0);
}

void vfu_dispatch(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	unsigned cmd = rq->hdr.cmd;
	bool known = cmd < ZN_VFU_MAX_COMMAND && cmd != 0 && cmd != DIRTY_PAGES_CMD;

	VFU_INC(dev->stats.msgs[known ? cmd : 0]);
	if ((rq->hdr.flags & ZN_VFU_F_TYPE_MASK) != ZN_VFU_F_TYPE_COMMAND ||
	    (rq->hdr.flags & ~(ZN_VFU_F_TYPE_MASK | ZN_VFU_F_NO_REPLY))) {
		vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_TYPE, 0, "flags %#x: not a command",
			   rq->hdr.flags);
		return;
	}
	/* vfio-user spec "Connection Initiation": VERSION comes first. */
	if (!dev->conn.negotiated && cmd != ZN_VFU_VERSION) {
		vfu_refuse(dev, rq, ZN_VFU_ERR_NOT_NEGOTIATED, 0,
			   "%s before VERSION, closing", zn_vfu_cmd_name(cmd));
		dev->conn.closing = true;
		return;
	}
	/* Only DMA_MAP and SET_IRQS carry fds; they check their own. */
	if (rq->nfds && cmd != ZN_VFU_DMA_MAP && cmd != ZN_VFU_DEVICE_SET_IRQS && known &&
	    cmd != ZN_VFU_VERSION) {
		vfu_refuse(dev, rq, ZN_VFU_ERR_UNEXPECTED_FDS, 0, "%u fds with %s", rq->nfds,
			   zn_vfu_cmd_name(cmd));
		return;
	}
	switch (cmd) {
	case ZN_VFU_VERSION:
		if (dev->conn.negotiated)
			vfu_refuse(dev, rq, ZN_VFU_ERR_VERSION_AGAIN, 0, "already negotiated");
		else
			vfu_handle_version(dev, rq);
		break;
	case ZN_VFU_DMA_MAP:
		vfu_handle_dma_map(dev, rq);
		break;
	case ZN_VFU_DMA_UNMAP:
		vfu_handle_dma_unmap(dev, rq);
		break;
	case ZN_VFU_DEVICE_GET_INFO:
		handle_get_info(dev, rq);
		break;
	case ZN_VFU_DEVICE_GET_REGION_INFO:
		vfu_handle_region_info(dev, rq);
		break;
	case ZN_VFU_DEVICE_GET_IRQ_INFO:
		vfu_handle_get_irq_info(dev, rq);
		break;
	case ZN_VFU_DEVICE_SET_IRQS:
		vfu_handle_set_irqs(dev, rq);
		break;
	case ZN_VFU_REGION_READ:
	case ZN_VFU_REGION_WRITE:
		vfu_handle_region_rw(dev, rq);
		break;
	case ZN_VFU_DEVICE_RESET:
		handle_reset(dev, rq);
		break;
	case ZN_VFU_DEVICE_GET_REGION_IO_FDS:	/* KVM ioeventfds: no KVM here */
	case ZN_VFU_DMA_READ:			/* server -> client only */
	case ZN_VFU_DMA_WRITE:
	case ZN_VFU_REGION_WRITE_MULTI:		/* not offered (write_multiple) */
	case ZN_VFU_DEVICE_FEATURE:		/* migration and dirty logging */
	case ZN_VFU_MIG_DATA_READ:
	case ZN_VFU_MIG_DATA_WRITE:
		vfu_refuse(dev, rq, ZN_VFU_ERR_UNSUPPORTED_CMD, 0, "not implemented by zn-nicsim");
		break;
	default:
		vfu_refuse(dev, rq, ZN_VFU_ERR_UNKNOWN_CMD, 0, "command %u", cmd);
		break;
	}
}
