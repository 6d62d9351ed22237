/* SPDX-License-Identifier: MIT */
#include "tests/unit/support/zcrx_user.h"

#include <errno.h>
#include <sys/mman.h>

#define ZU_PAGE 4096u

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int zcrx_user_register(struct io_uring *ring, int ifindex, uint32_t rxq, size_t area_len,
		       uint32_t rq_entries, struct zcrx_user *z)
{
	struct io_uring_zcrx_area_reg ar = { 0 };
	struct io_uring_region_desc region = { 0 };
	struct io_uring_zcrx_ifq_reg reg = { 0 };
	/* the ring's head and tail share a page before the entries */
	size_t rq_len = (rq_entries * sizeof(struct io_uring_zcrx_rqe) + 2 * ZU_PAGE - 1) &
			~(size_t)(ZU_PAGE - 1);
	uint8_t *rq_mem = map_anon(rq_len);
	int rc;

	z->area = map_anon(area_len);
	if (!rq_mem || !z->area)
		return -ENOMEM;
	ar.addr = (uintptr_t)z->area;
	ar.len = area_len;
	region.user_addr = (uintptr_t)rq_mem;
	region.size = rq_len;
	region.flags = IORING_MEM_REGION_TYPE_USER;
	reg.if_idx = (uint32_t)ifindex;
	reg.if_rxq = rxq;
	reg.rq_entries = rq_entries;
	reg.area_ptr = (uintptr_t)&ar;
	reg.region_ptr = (uintptr_t)&region;
	rc = io_uring_register_ifq(ring, &reg);
	if (rc)
		return rc;
	z->zcrx_id = reg.zcrx_id;
	z->token = ar.rq_area_token;
	z->rq = (struct io_uring_zcrx_rq){
		.khead = (__u32 *)(rq_mem + reg.offsets.head),
		.ktail = (__u32 *)(rq_mem + reg.offsets.tail),
		.rqes = (struct io_uring_zcrx_rqe *)(rq_mem + reg.offsets.rqes),
		.ring_entries = reg.rq_entries,
	};
	return 0;
}
