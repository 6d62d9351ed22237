/* SPDX-License-Identifier: MIT */
/*
 * core/uring: MSG_RING's IORING_MSG_SEND_FD (io_uring_prep_msg_ring_fd),
 * Linux io_uring/msg_ring.c io_msg_send_fd / io_msg_install_complete:
 *  - sqe->len != 0, or the target is the sending ring: -EINVAL; a target
 *    still R_DISABLED: -EBADFD;
 *  - sqe->addr3 names a slot of the sender's registered files; past the
 *    table, empty or no table: -EBADF;
 *  - sqe->file_index is the target slot + 1, or IORING_FILE_INDEX_ALLOC
 *    (a free slot of the target's allocation range): installed over
 *    whatever the slot held; the target without a table -ENXIO (-ENFILE
 *    with ALLOC), a slot past its table -EINVAL, no free slot -ENFILE;
 *  - the target gets {sqe->off, the slot (ALLOC) or 0, 0} unless
 *    IORING_MSG_RING_CQE_SKIP (FLAGS_PASS is accepted and changes nothing);
 *    the sender's result is the same value.
 * The handle is copied, as Linux takes a file reference: the slot in the
 * sender keeps it too.
 *
 * A target owned by another thread: Linux installs under the target's
 * uring_lock (or, for a DEFER_TASKRUN target, in its task); here the
 * table's lock (filetable.c) guards the install, and the target's CQE
 * comes through its inbox like a DATA message's (msg_ring.c), behind the
 * messages this ring sent it before.
 */
#include <errno.h>

#include "core/uring/uring_priv.h"

int zn_msg_send_fd(struct zn_uring *self, struct zn_uring *t, const struct zn_msg_fd *m)
{
	int h, ret;

	if (m->len || t == self)
		return -EINVAL;
	if (atomic_load_explicit(&t->disabled, memory_order_acquire))
		return -EBADFD;
	if (m->src_fd >= self->nfiles)
		return -EBADF;
	h = zn_uring_fixed_file(self, m->src_fd);
	if (h < 0)
		return -EBADF;
	zn_files_lock(t);
	ret = zn_files_install(t, h, m->dst_fd);
	zn_files_unlock(t);
	if (ret < 0 || (m->flags & IORING_MSG_RING_CQE_SKIP))
		return ret;
	/* the file is in; Linux's -EOVERFLOW (CQE lost) is -ENOMEM here */
	return zn_inbox_post(t, m->user_data, ret, 0) ? -ENOMEM : ret;
}
