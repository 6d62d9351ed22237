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
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/zcrx/zcrx_priv.h"

#define ZCRX_MMAP_OFF	0x30000000ull	/* Linux: IORING_MAP_OFF_ZCRX_REGION */
#define ZCRX_MMAP_SHIFT	16		/* Linux: IORING_OFF_ZCRX_SHIFT */

uint64_t zn_zcrx_region_off(uint32_t id)
{
	return ZCRX_MMAP_OFF | (uint64_t)id << ZCRX_MMAP_SHIFT;
}

int zn_zcrx_region_alloc(struct zn_zcrx_ifq *ifq, uint64_t size, uint64_t off)
{
	int fd = memfd_create("zcnic:zcrx-refill", MFD_CLOEXEC), rc;
	void *p;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size)) {
		rc = -errno;
		goto err;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		goto err;
	}
	ifq->rq_mem = p;
	ifq->rq_len = size;
	ifq->rq_off = off;
	ifq->rq_fd = fd;
	return 0;

err:
	close(fd);
	return rc == -EFBIG || rc == -EINVAL ? -ENOMEM : rc;
}

void zn_zcrx_region_free(struct zn_zcrx_ifq *ifq)
{
	if (!ifq->rq_mem)
		return;
	munmap(ifq->rq_mem, ifq->rq_len);
	close(ifq->rq_fd);
	ifq->rq_mem = NULL;
}
