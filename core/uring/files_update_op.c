/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_OP_FILES_UPDATE (io_uring_prep_files_update), Linux
 * io_uring/rsrc.c io_files_update_prep / io_files_update /
 * io_files_update_with_index_alloc:
 *  - prep: ioprio, rw_flags or splice_fd_in set, or len 0: -EINVAL;
 *    off is the first slot (its low 32 bits), addr the int array, len its
 *    count;
 *  - off = IORING_FILE_INDEX_ALLOC: each handle goes into a free slot of
 *    the allocation range (filetable.c) and the slot's index is written
 *    back over it in the array; no table -ENXIO, an array entry that
 *    cannot be read -EFAULT, a bad handle (-1 included) -EBADF, no free
 *    slot -ENFILE, an index that cannot be written back -EFAULT (the slot
 *    is emptied again);
 *  - otherwise the register op's update (rsrc.c): off + len wrapping
 *    -EOVERFLOW, no table -ENXIO, past the table -EINVAL, SKIP keeps a
 *    slot, -1 empties it;
 *  - the result is the number of slots done, or the first error when none
 *    was.
 */
#include <errno.h>

#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"

struct files_update_pdu {
	uint64_t arg;
	uint32_t offset, nr;
};

static int files_update_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct files_update_pdu *p = (struct files_update_pdu *)req->pdu;

	if (sqe->ioprio || sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	p->offset = (uint32_t)sqe->off;
	p->nr = sqe->len;
	if (!p->nr)
		return -EINVAL;
	p->arg = sqe->addr;
	return 0;
}

static int update_alloc(struct zn_uring *r, int *fds, uint32_t nr)
{
	uint32_t done;
	int ret = 0;

	if (!r->files)
		return -ENXIO;
	for (done = 0; done < nr; done++) {
		/* user memory, maybe NULL: no pointer arithmetic on it */
		void *at = (void *)((uintptr_t)fds + done * sizeof(int));
		int h;

		if (zn_ucopy_from(&h, at, sizeof(h))) {
			ret = -EFAULT;
			break;
		}
		ret = zn_files_check_handle(h);
		if (ret)
			break;
		zn_files_lock(r);
		ret = zn_files_install(r, h, IORING_FILE_INDEX_ALLOC);
		zn_files_unlock(r);
		if (ret < 0)
			break;
		if (zn_ucopy_to(at, &ret, sizeof(ret))) {
			zn_files_lock(r);
			zn_files_set_slot(r, (unsigned)ret, -1);
			zn_files_unlock(r);
			ret = -EFAULT;
			break;
		}
	}
	return done ? (int)done : ret;
}

static int files_update_issue(struct zn_uring_req *req)
{
	const struct files_update_pdu *p = (const struct files_update_pdu *)req->pdu;
	int *fds = (int *)(uintptr_t)p->arg;

	if (p->offset == IORING_FILE_INDEX_ALLOC)
		req->res = update_alloc(req->ring, fds, p->nr);
	else if ((uint64_t)p->offset + p->nr > UINT32_MAX)
		req->res = -EOVERFLOW;
	else
		req->res = zn_uring_files_update(req->ring, p->offset, fds, p->nr);
	return ZN_URING_ISSUE_DONE;
}

const struct zn_uring_op zn_files_update_op = {
	.name = "FILES_UPDATE",
	.prep = files_update_prep,
	.issue = files_update_issue,
};
