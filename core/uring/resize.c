/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_REGISTER_RESIZE_RINGS, as Linux io_uring/register.c
 * io_register_resize_rings:
 *  - only DEFER_TASKRUN rings (hence SINGLE_ISSUER): -EINVAL otherwise;
 *    an unreadable argument -EFAULT; flags other than CQSIZE and CLAMP
 *    -EINVAL;
 *  - the ring's NO_SQARRAY, SQE128, CQE32, SQE_MIXED, CQE_MIXED are kept;
 *    sizes are checked and rounded as at set-up (CQ = 2 x SQ unless
 *    CQSIZE, CLAMP clamps), and written back with the new offsets before
 *    anything moves (also when the resize then fails);
 *  - SQEs published but not consumed and CQEs not yet reaped are copied
 *    by ring position, with their heads and tails; if either does not fit
 *    the new size: -EOVERFLOW and the ring is left as it was. SQ dropped,
 *    SQ and CQ flags and the CQ overflow count carry over; CQEs in the
 *    overflow list stay there.
 * The old memory is freed: a program must take the new pointers, as
 * liburing's io_uring_resize_rings does (the compat layer's does too).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"

#define RESIZE_FLAGS	(IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP)
#define COPY_FLAGS	(IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQE128 | IORING_SETUP_CQE32 | \
			 IORING_SETUP_SQE_MIXED | IORING_SETUP_CQE_MIXED)

/* Copy what the old rings hold into n; false when it does not fit. */
static bool copy_pending(const struct zn_uring *r, struct zn_uring_rings *n,
			 uint32_t sq_entries, uint32_t cq_entries)
{
	const struct zn_uring_shared *o = r->sh;
	size_t sqe_sz = sizeof(struct io_uring_sqe) << r->sqe_shift;
	size_t cqe_sz = sizeof(struct io_uring_cqe) << r->cqe_shift;
	struct io_uring_cqe *ncqes = (struct io_uring_cqe *)((char *)n->sh + n->cqes_off);
	uint32_t head = zn_load_acq(&o->sq_head), tail = zn_load_acq(&o->sq_tail), i;

	if (tail - head > sq_entries)
		return false;
	for (i = head; i != tail; i++)
		memcpy((char *)n->sqes + (i & (sq_entries - 1)) * sqe_sz,
		       (const char *)r->sqes + (i & r->sq_mask) * sqe_sz, sqe_sz);
	n->sh->sq_head = head;
	n->sh->sq_tail = tail;

	head = zn_load_acq(&o->cq_head);
	tail = o->cq_tail;
	if (tail - head > cq_entries)
		return false;
	for (i = head; i != tail; i++)
		memcpy((char *)ncqes + (i & (cq_entries - 1)) * cqe_sz,
		       (const char *)r->cqes + (i & r->cq_mask) * cqe_sz, cqe_sz);
	n->sh->cq_head = head;
	n->sh->cq_tail = tail;
	n->sh->sq_dropped = o->sq_dropped;
	n->sh->sq_flags = __atomic_load_n(&o->sq_flags, __ATOMIC_RELAXED);
	n->sh->cq_flags = o->cq_flags;
	n->sh->cq_overflow = o->cq_overflow;
	return true;
}

int zn_uring_resize_rings(struct zn_uring *r, void *arg, unsigned nr_args)
{
	struct zn_uring_rings n, old;
	struct io_uring_params p;
	int rc;

	if (!arg || nr_args != 1)
		return -EINVAL;
	if (!(r->flags & IORING_SETUP_DEFER_TASKRUN))
		return -EINVAL;
	if (zn_ucopy_from(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.flags & ~RESIZE_FLAGS)
		return -EINVAL;
	p.flags |= r->flags & COPY_FLAGS;
	rc = zn_uring_fill_params(p.sq_entries, &p);
	if (rc)
		return rc;
	rc = zn_uring_rings_alloc(&n, p.flags, p.sq_entries, p.cq_entries);
	if (rc)
		return rc;
	zn_uring_fill_offsets(p.flags, n.cqes_off, &p);
	if (zn_ucopy_to(arg, &p, sizeof(p))) {
		rc = -EFAULT;
		goto out_free;
	}
	if (!copy_pending(r, &n, p.sq_entries, p.cq_entries)) {
		rc = -EOVERFLOW;
		goto out_free;
	}
	old = (struct zn_uring_rings){ .sh = r->sh, .sqes = r->sqes };
	zn_uring_rings_install(r, &n, p.sq_entries, p.cq_entries);
	n = old;
	rc = 0;
out_free:
	free(n.sh);
	free(n.sqes);
	return rc;
}
