/* SPDX-License-Identifier: MIT */
/*
 * core/uring: 32-byte CQEs in the 16-byte slots of an IORING_SETUP_CQE_MIXED
 * ring, as Linux io_uring/io_uring.c posts them (io_get_cqe_overflow,
 * io_cqe_cache_refill): such a CQE carries IORING_CQE_F_32 and takes two
 * adjacent slots, its big_cqe words in the second; the two never wrap, so a
 * CQE that would start in the last slot is preceded by a pad CQE {0, 0,
 * IORING_CQE_F_SKIP} there, which readers step over (liburing's peek and
 * batch helpers consume it). CQ space is counted in slots (zn_cq_slots);
 * the caller has made sure they are free.
 */
#include "core/uring/uring_priv.h"

void zn_cq_write_mixed32(struct zn_uring *r, uint64_t user_data, int32_t res, uint32_t cflags,
			 const uint64_t big[2])
{
	struct zn_uring_shared *sh = r->sh;
	uint32_t tail = sh->cq_tail;
	struct io_uring_cqe *cqe;

	if ((tail & r->cq_mask) == r->cq_mask) {
		cqe = &r->cqes[tail & r->cq_mask];
		cqe->user_data = 0;
		cqe->res = 0;
		cqe->flags = IORING_CQE_F_SKIP;
		tail++;
	}
	cqe = &r->cqes[tail & r->cq_mask];
	cqe->user_data = user_data;
	cqe->res = res;
	cqe->flags = cflags;
	cqe->big_cqe[0] = big ? big[0] : 0;
	cqe->big_cqe[1] = big ? big[1] : 0;
	/* pad and CQE before the tail that hands them over */
	zn_store_rel(&sh->cq_tail, tail + 2);
	r->st.cqes++;
}
