/* SPDX-License-Identifier: MIT */
/* Receive side of the mlx5 model: frames from the wire. */
#include "sim/mlx5/priv.h"

void msim_rx(void *opaque, const void *frame, size_t len)
{
	struct msim *m = opaque;

	(void)frame;
	(void)len;
	MSIM_INC(m, rx_dropped);
}
