/* SPDX-License-Identifier: MIT */
/*
 * IORING_REGISTER_MEM_REGION: the ring's one parameter region, as Linux
 * io_uring/register.c io_register_mem_region and io_uring/memmap.c
 * io_create_region. With IORING_MEM_REGION_REG_WAIT_ARG (only on a ring
 * still R_DISABLED: no waiter can be looking) it holds the
 * struct io_uring_reg_wait entries IORING_ENTER_EXT_ARG_REG names by
 * offset (wait_arg.c).
 *
 * The memory is the program's (IORING_MEM_REGION_TYPE_USER: it must be
 * mapped writable, the kernel's pinning would fail otherwise) or zcnic's:
 * then, as for a zcrx refill region (core/zcrx/region.c), it is a memfd
 * that the program maps with mmap(ring_fd, rd.mmap_offset) through the
 * compat header's mmap, and each mapping lives on its own. Linux pins a
 * program's pages; zcnic reads them where they are, so the program must
 * keep them mapped while the ring lives.
 */
#include <errno.h>
#include <string.h>

#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"
#include "zcnic/mem.h"

#define REGION_PAGE		4096ull
#define REGION_MAX_PAGES	((uint64_t)INT32_MAX)	/* the kernel's -E2BIG bound */
#define PARAM_REGION_OFF	0x20000000ull	/* Linux: IORING_MAP_OFF_PARAM_REGION */

int zn_uring_region_check(const struct io_uring_region_desc *rd)
{
	for (unsigned i = 0; i < 4; i++)
		if (rd->__resv[i])
			return -EINVAL;
	if (rd->flags & ~(uint32_t)IORING_MEM_REGION_TYPE_USER)
		return -EINVAL;
	/* user_addr is set if and only if the memory is the program's */
	if (!!(rd->flags & IORING_MEM_REGION_TYPE_USER) != !!rd->user_addr)
		return -EFAULT;
	if (!rd->size || rd->id || rd->mmap_offset)
		return -EINVAL;
	if (rd->size / REGION_PAGE > REGION_MAX_PAGES)
		return -E2BIG;
	if ((rd->user_addr | rd->size) & (REGION_PAGE - 1))
		return -EINVAL;
	if (rd->user_addr + rd->size < rd->user_addr)
		return -EOVERFLOW;
	if (!(rd->flags & IORING_MEM_REGION_TYPE_USER))
		return 0;
	return zn_user_range_ok(rd->user_addr, rd->size, true);
}

static void param_free(struct zn_uring *r, void *arg)
{
	(void)arg;
	zn_dma_region_free(r->param_mem);
	r->param_mem = NULL;
}

/* zcnic's memory for rd (zeroed, as the kernel's __GFP_ZERO pages). */
static int param_alloc(struct zn_uring *r, struct io_uring_region_desc *rd)
{
	int rc = zn_dma_region_alloc("uring-param", (size_t)rd->size, -1, ZN_DMA_NO_HUGE,
				     &r->param_mem);

	if (rc)
		return rc;
	rc = zn_uring_on_exit(r, param_free, NULL);
	if (rc < 0) {
		param_free(r, NULL);
		return rc;
	}
	memset(r->param_mem->va, 0, rd->size);
	rd->mmap_offset = PARAM_REGION_OFF;
	return 0;
}

int zn_uring_register_mem_region(struct zn_uring *r, const struct io_uring_mem_region_reg *arg)
{
	struct io_uring_mem_region_reg reg;
	struct io_uring_region_desc rd;
	void *rd_uptr;
	int rc;

	if (r->param_set)
		return -EBUSY;
	if (zn_ucopy_from(&reg, arg, sizeof(reg)))
		return -EFAULT;
	rd_uptr = (void *)(uintptr_t)reg.region_uptr;
	if (zn_ucopy_from(&rd, rd_uptr, sizeof(rd)))
		return -EFAULT;
	if (reg.__resv[0] || reg.__resv[1])
		return -EINVAL;
	if (reg.flags & ~(uint64_t)IORING_MEM_REGION_REG_WAIT_ARG)
		return -EINVAL;
	if ((reg.flags & IORING_MEM_REGION_REG_WAIT_ARG) && !atomic_load(&r->disabled))
		return -EINVAL;
	rc = zn_uring_region_check(&rd);
	if (rc)
		return rc;
	if (!(rd.flags & IORING_MEM_REGION_TYPE_USER)) {
		rc = param_alloc(r, &rd);
		if (rc)
			return rc;
	}
	if (zn_ucopy_to(rd_uptr, &rd, sizeof(rd))) {
		if (r->param_mem)
			param_free(r, NULL);	/* the exit callback then finds nothing */
		return -EFAULT;
	}
	if (reg.flags & IORING_MEM_REGION_REG_WAIT_ARG) {
		r->cq_wait_arg = r->param_mem ? r->param_mem->va : (void *)(uintptr_t)rd.user_addr;
		r->cq_wait_size = rd.size;
	}
	r->param_set = true;
	return 0;
}

int zn_uring_param_region_fd(struct zn_uring *r, uint64_t off, uint64_t len)
{
	if (off != PARAM_REGION_OFF || !r->param_mem)
		return -EINVAL;
	return len && len <= r->param_mem->len ? r->param_mem->fd : -EINVAL;
}
