/* SPDX-License-Identifier: MIT */
/*
 * IORING_REGISTER_ZCRX_CTRL (core/opdef/opdef.c names it for the ring's
 * register dispatch). Checks and results as Linux io_uring/zcrx.c
 * (io_zcrx_ctrl): nr_args != 0 -EINVAL; reserved words -EFAULT; an unknown
 * zcrx_id -ENXIO; ZCRX_CTRL_FLUSH_RQ (its reserved words -EINVAL) consumes
 * the refill ring now, as the next poll pass would, and gives 0;
 * ZCRX_CTRL_EXPORT and unknown ops -EOPNOTSUPP (an exported zcrx is a file
 * another process imports; zcnic has no such file, docs/uring.md).
 */
#include <errno.h>

#include "core/zcrx/zcrx_priv.h"

int zn_zcrx_ctrl(struct zn_uring *r, struct zcrx_ctrl *ctrl, unsigned nr_args)
{
	struct zn_zcrx_ifq *ifq;
	int rc = -EOPNOTSUPP;
	unsigned i;

	if (nr_args)
		return -EINVAL;
	if (!ctrl)
		return -EFAULT;
	if (ctrl->__resv[0] || ctrl->__resv[1])
		return -EFAULT;
	ifq = zn_zcrx_ifq_get(r, ctrl->zcrx_id);
	if (!ifq)
		return -ENXIO;
	if (ctrl->op == ZCRX_CTRL_FLUSH_RQ) {
		rc = 0;
		for (i = 0; i < 6; i++)
			if (ctrl->zc_flush.__resv[i])
				rc = -EINVAL;
		if (!rc)
			zn_zcrx_ifq_refill(ifq);
	}
	zn_zcrx_ifq_put(ifq);
	return rc;
}
