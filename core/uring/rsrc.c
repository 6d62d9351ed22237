/* SPDX-License-Identifier: MIT */
/*
 * core/uring: registered buffers and registered files.
 *
 * Limits and error codes follow the kernel's io_uring/rsrc.c
 * (io_sqe_buffers_register, io_buffer_validate, io_sqe_files_register):
 * a second registration is -EBUSY, nr == 0 is -EINVAL, more than 16384
 * buffers -EINVAL, a NULL base with a length -EFAULT, an address range that
 * wraps -EOVERFLOW; unregistering nothing is -ENXIO.
 *
 * Files are zcnic handles (include/zcnic/handle.h); -1 is an empty slot.
 * Differences from the kernel, on purpose: the table may hold ring handles
 * (the kernel refuses io_uring fds; zcnic has no reference cycles to fear),
 * and a non-negative int that is not handle-shaped (an OS fd a ported
 * program registers alongside its zcnic sockets) is kept and fails only
 * when used (-EBADF, or -EBADFD for MSG_RING), instead of failing the
 * registration. A handle-shaped value that is not live is -EBADF at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"

int zn_uring_register_buffers(struct zn_uring *r, const struct iovec *iov, unsigned nr)
{
	struct iovec *t;
	unsigned i;

	if (r->bufs)
		return -EBUSY;
	if (!nr || nr > ZN_URING_MAX_REG_BUFFERS)
		return -EINVAL;
	if (!iov)
		return -EFAULT;
	for (i = 0; i < nr; i++) {
		uintptr_t base = (uintptr_t)iov[i].iov_base;

		if (!base) {
			if (iov[i].iov_len)
				return -EFAULT;
			continue;	/* sparse slot */
		}
		if (base + iov[i].iov_len < base)
			return -EOVERFLOW;
	}
	t = malloc(sizeof(*t) * nr);
	if (!t)
		return -ENOMEM;
	memcpy(t, iov, sizeof(*t) * nr);
	r->bufs = t;
	r->nbufs = nr;
	return 0;
}

int zn_uring_unregister_buffers(struct zn_uring *r)
{
	if (!r->bufs)
		return -ENXIO;
	if (zn_uring_plugins.bufs_unregistering)
		zn_uring_plugins.bufs_unregistering(r);
	free(r->bufs);
	r->bufs = NULL;
	r->nbufs = 0;
	return 0;
}

int zn_uring_fixed_buf(struct zn_uring *r, unsigned idx, uint64_t addr, uint64_t len, void **ptr)
{
	const struct iovec *b;
	uint64_t base;

	if (idx >= r->nbufs)
		return -EFAULT;
	b = &r->bufs[idx];
	base = (uintptr_t)b->iov_base;
	if (!base || addr < base || addr + len < addr || addr + len > base + b->iov_len)
		return -EFAULT;
	if (ptr)
		*ptr = (void *)(uintptr_t)addr;
	return 0;
}

/* A new table (or none), seen whole by a SEND_FD installer (filetable.c);
 * allocation ranges over all of it. */
static void files_publish(struct zn_uring *r, int *t, unsigned nr)
{
	zn_files_lock(r);
	r->files = t;
	r->nfiles = nr;
	zn_files_alloc_range(r, 0, nr);
	zn_files_unlock(r);
}

int zn_uring_register_files(struct zn_uring *r, const int *handles, unsigned nr)
{
	unsigned i;
	int *t;

	if (r->files)
		return -EBUSY;
	if (!nr)
		return -EINVAL;
	if (nr > ZN_URING_MAX_REG_FILES)
		return -EMFILE;
	if (!handles)
		return -EFAULT;
	for (i = 0; i < nr; i++) {
		int h = handles[i];

		if (h == -1)
			continue;
		if (h < 0)	/* IORING_REGISTER_FILES_SKIP too: fget(-2) */
			return -EBADF;
		if (zn_handle_is_handle(h) && zn_handle_type(h) < 0)
			return -EBADF;
	}
	t = malloc(sizeof(*t) * nr);
	if (!t)
		return -ENOMEM;
	memcpy(t, handles, sizeof(*t) * nr);
	files_publish(r, t, nr);
	return 0;
}

/* A table of nr empty slots (IORING_RSRC_REGISTER_SPARSE). */
static int files_sparse(struct zn_uring *r, unsigned nr)
{
	int *t;

	if (r->files)
		return -EBUSY;
	if (!nr)
		return -EINVAL;
	if (nr > ZN_URING_MAX_REG_FILES)
		return -EMFILE;
	t = malloc(sizeof(*t) * nr);
	if (!t)
		return -ENOMEM;
	for (unsigned i = 0; i < nr; i++)
		t[i] = -1;
	files_publish(r, t, nr);
	return 0;
}

/* IORING_REGISTER_FILES2: tags would need CQEs at removal (not kept). */
int zn_uring_register_files2(struct zn_uring *r, const struct io_uring_rsrc_register *rr,
			     unsigned size)
{
	if (size != sizeof(*rr))
		return -EINVAL;
	if (!rr->nr || rr->resv2 || (rr->flags & ~IORING_RSRC_REGISTER_SPARSE))
		return -EINVAL;
	if ((rr->flags & IORING_RSRC_REGISTER_SPARSE) && rr->data)
		return -EINVAL;
	if (rr->tags)
		return -EOPNOTSUPP;
	if (!rr->data)
		return files_sparse(r, rr->nr);
	return zn_uring_register_files(r, (const int *)(uintptr_t)rr->data, rr->nr);
}

/*
 * io_sqe_files_update: slots off.. take the given handles (-1 empties a
 * slot, IORING_REGISTER_FILES_SKIP keeps it); the count done, or the
 * first error when none was.
 */
int zn_uring_files_update(struct zn_uring *r, unsigned off, const int *handles, unsigned nr)
{
	unsigned done;
	int err = 0;

	if (!r->files)
		return -ENXIO;
	if ((uint64_t)off + nr > r->nfiles)
		return -EINVAL;
	for (done = 0; done < nr; done++) {
		int h;

		/* user memory: NULL is -EFAULT, not pointer arithmetic */
		if (zn_ucopy_from(&h, (const void *)((uintptr_t)handles + done * sizeof(h)),
				  sizeof(h))) {
			err = -EFAULT;
			break;
		}
		if (h == IORING_REGISTER_FILES_SKIP)
			continue;
		/* the old file goes first: a bad new one leaves the slot empty */
		zn_files_lock(r);
		zn_files_set_slot(r, off + done, -1);
		err = h == -1 ? 0 : zn_files_check_handle(h);
		if (!err)
			zn_files_set_slot(r, off + done, h);
		zn_files_unlock(r);
		if (err)
			break;
	}
	return done ? (int)done : err;
}

int zn_uring_unregister_files(struct zn_uring *r)
{
	int *t = r->files;

	if (!t)
		return -ENXIO;
	files_publish(r, NULL, 0);
	free(t);
	return 0;
}

const struct iovec *zn_uring_buf(const struct zn_uring *r, unsigned idx)
{
	return idx < r->nbufs ? &r->bufs[idx] : NULL;
}

int zn_uring_fixed_file(struct zn_uring *r, unsigned idx)
{
	int h;

	if (idx >= r->nfiles)
		return -EBADF;
	/* a SEND_FD from another thread may be filling it (filetable.c) */
	h = __atomic_load_n(&r->files[idx], __ATOMIC_RELAXED);
	return h == -1 ? -EBADF : h;
}

int zn_uring_register_ifq(struct zn_uring *r, struct io_uring_zcrx_ifq_reg *reg)
{
	if (!zn_uring_plugins.register_ifq)
		return -EOPNOTSUPP;
	return zn_uring_plugins.register_ifq(r, reg);
}
