/* SPDX-License-Identifier: MIT */
/*
 * The client's DMA windows, and the server-to-client DMA_READ / DMA_WRITE
 * they serve (QEMU docs/interop/vfio-user.rst, "VFIO_USER_DMA_READ" and
 * "VFIO_USER_DMA_WRITE"): a server that does not map our memory by fd reads
 * and writes it with these messages, and the client must answer them.
 *
 * Every request is checked against the windows the client mapped: the whole
 * range [address, address + count) inside one window, no wrap, count within
 * the max_data_xfer_size we announced. Nothing outside a window is touched.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus/vfio_user_priv.h"

int zn_vfuc_win_add(struct zn_vfuc_conn *c, uint64_t iova, uint64_t len, void *va)
{
	if (c->nwin == c->capwin) {
		size_t cap = c->capwin ? c->capwin * 2 : 8;
		struct zn_vfuc_win *w = realloc(c->win, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		c->win = w;
		c->capwin = cap;
	}
	c->win[c->nwin++] = (struct zn_vfuc_win){ iova, len, va };
	return 0;
}

void zn_vfuc_win_del(struct zn_vfuc_conn *c, uint64_t iova, uint64_t len)
{
	for (size_t i = 0; i < c->nwin; i++) {
		if (c->win[i].iova == iova && c->win[i].len == len) {
			c->win[i] = c->win[--c->nwin];
			return;
		}
	}
}

void zn_vfuc_win_free(struct zn_vfuc_conn *c)
{
	free(c->win);
	c->win = NULL;
	c->nwin = c->capwin = 0;
}

int zn_vfuc_dma_check(const struct zn_vfuc_win *win, size_t nwin, uint16_t cmd,
		      const struct zn_vfu_dma_access *a, uint64_t plen, uint8_t **va)
{
	uint64_t data = cmd == ZN_VFU_DMA_WRITE ? a->count : 0;

	*va = NULL;
	if (cmd != ZN_VFU_DMA_READ && cmd != ZN_VFU_DMA_WRITE)
		return -EINVAL;
	if (plen < sizeof(*a) || plen - sizeof(*a) != data)
		return -EINVAL;
	if (a->count > ZN_VFU_MAX_XFER)
		return -E2BIG;
	if (a->addr + a->count < a->addr)
		return -EFAULT;
	for (size_t i = 0; i < nwin; i++) {
		const struct zn_vfuc_win *w = &win[i];

		if (a->addr >= w->iova && a->addr - w->iova < w->len &&
		    a->count <= w->len - (a->addr - w->iova)) {
			*va = w->va + (a->addr - w->iova);
			return 0;
		}
	}
	return -EFAULT;
}
