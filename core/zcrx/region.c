/* SPDX-License-Identifier: MIT */
/*
 * The refill region zcnic allocates when a program registers an interface
 * queue without one (io_uring_region_desc without
 * IORING_MEM_REGION_TYPE_USER): Linux allocates it in the kernel and the
 * program maps it with mmap(ring_fd, rd.mmap_offset).
 *
 * A zcnic ring handle is no file, so the region is a memfd: the ifq keeps
 * one shared mapping of it (the refill ring zcnic reads), and the compat
 * header routes the program's mmap of a ring handle to a mapping of the
 * memfd (core/uring/compat/liburing.c). Each mapping has its own life, as
 * a mapping of a kernel region does: the program may unmap before or after
 * the ring is gone, and the memory goes when both are.
 *
 * The offsets are Linux's for zcrx regions: 0x30000000 | id << 16.
 */
#include "core/zcrx/zcrx_priv.h"
#include "zcnic/mem.h"

#define ZCRX_MMAP_OFF	0x30000000ull	/* Linux: IORING_MAP_OFF_ZCRX_REGION */
#define ZCRX_MMAP_SHIFT	16		/* Linux: IORING_OFF_ZCRX_SHIFT */

uint64_t zn_zcrx_region_off(uint32_t id)
{
	return ZCRX_MMAP_OFF | (uint64_t)id << ZCRX_MMAP_SHIFT;
}

int zn_zcrx_region_alloc(struct zn_zcrx_ifq *ifq, uint64_t size, uint64_t off)
{
	/* a DMA region is a memfd with one shared mapping: what is needed here */
	int rc = zn_dma_region_alloc("zcrx-refill", (size_t)size, -1, ZN_DMA_NO_HUGE,
				     &ifq->rq_region);

	if (rc)
		return rc;
	ifq->rq_mem = ifq->rq_region->va;
	ifq->rq_len = size;
	ifq->rq_off = off;
	ifq->rq_fd = ifq->rq_region->fd;
	return 0;
}

void zn_zcrx_region_free(struct zn_zcrx_ifq *ifq)
{
	if (!ifq->rq_mem)
		return;
	zn_dma_region_free(ifq->rq_region);
	ifq->rq_region = NULL;
	ifq->rq_mem = NULL;
}
