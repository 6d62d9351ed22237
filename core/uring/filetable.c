/* SPDX-License-Identifier: MIT */
/*
 * core/uring: the registered-file table's slot allocation and its lock.
 *
 * Slot allocation is Linux io_uring/filetable.c: IORING_FILE_INDEX_ALLOC
 * takes the first free slot from a hint up to the end of the allocation
 * range, then from the range's start up to the hint (io_file_bitmap_get);
 * filling a slot moves the hint past it, emptying one moves the hint to it.
 * The range is the whole table when it is registered and
 * IORING_REGISTER_FILE_ALLOC_RANGE narrows it (io_register_file_alloc_range:
 * unreadable -EFAULT, off + len wrapping -EOVERFLOW, resv or past the table
 * -EINVAL). No free slot, or no table, -ENFILE.
 *
 * The lock: the owner thread alone uses the table, except that a MSG_RING
 * SEND_FD from a ring on another thread installs into it (Linux takes the
 * target's uring_lock for that). Every write of files[] and of the
 * allocation state holds this lock; the owner reads slots without it, with
 * relaxed atomic loads (zn_uring_fixed_file). The table itself (files,
 * nfiles) changes only in the owner, under the lock.
 */
#include <errno.h>
#include <sched.h>

#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"

void zn_files_lock(struct zn_uring *r)
{
	while (atomic_exchange_explicit(&r->files_lock, 1, memory_order_acquire))
		sched_yield();	/* held for a few stores; rare across threads */
}

void zn_files_unlock(struct zn_uring *r)
{
	atomic_store_explicit(&r->files_lock, 0, memory_order_release);
}

void zn_files_set_slot(struct zn_uring *r, unsigned idx, int h)
{
	int old = r->files[idx];

	__atomic_store_n(&r->files[idx], h, __ATOMIC_RELAXED);
	if (old != -1 && h == -1)
		r->file_alloc_hint = idx;
	else if (old == -1 && h != -1)
		r->file_alloc_hint = idx + 1;
}

void zn_files_alloc_range(struct zn_uring *r, uint32_t off, uint32_t len)
{
	r->file_alloc_start = off;
	r->file_alloc_end = off + len;
	r->file_alloc_hint = off;
}

static int first_free(const struct zn_uring *r, uint32_t from, uint32_t end)
{
	for (uint32_t i = from; i < end; i++)
		if (r->files[i] == -1)
			return (int)i;
	return -1;
}

/*
 * io_file_bitmap_get, step for step: [hint, end), then [start, old hint).
 * As there, a hint left past the range by a slot filled outside it widens
 * the second search to that hint.
 */
static int alloc_slot(struct zn_uring *r)
{
	uint32_t end = r->file_alloc_end;
	int slot;

	if (!r->files)
		return -ENFILE;
	for (;;) {
		slot = first_free(r, r->file_alloc_hint, end < r->nfiles ? end : r->nfiles);
		if (slot >= 0)
			return slot;
		if (r->file_alloc_hint == r->file_alloc_start)
			return -ENFILE;
		end = r->file_alloc_hint;
		r->file_alloc_hint = r->file_alloc_start;
	}
}

int zn_files_install(struct zn_uring *r, int h, uint32_t file_slot)
{
	bool alloc = file_slot == IORING_FILE_INDEX_ALLOC;
	int slot;

	if (alloc) {
		slot = alloc_slot(r);
		if (slot < 0)
			return slot;
		file_slot = (uint32_t)slot;
	} else {
		file_slot--;	/* 0 wraps and fails as past the table */
	}
	if (!r->files)
		return -ENXIO;
	if (file_slot >= r->nfiles)
		return -EINVAL;
	zn_files_set_slot(r, file_slot, h);
	return alloc ? (int)file_slot : 0;
}

int zn_files_register_alloc_range(struct zn_uring *r, const void *arg, unsigned nr)
{
	struct io_uring_file_index_range range;
	uint32_t end;

	if (!arg || nr)
		return -EINVAL;
	if (zn_ucopy_from(&range, arg, sizeof(range)))
		return -EFAULT;
	if (__builtin_add_overflow(range.off, range.len, &end))
		return -EOVERFLOW;
	if (range.resv || end > r->nfiles)
		return -EINVAL;
	zn_files_lock(r);
	zn_files_alloc_range(r, range.off, range.len);
	zn_files_unlock(r);
	return 0;
}

int zn_files_check_handle(int h)
{
	/* an int that is no handle (an OS fd) is kept, fails when used (rsrc.c) */
	if (h < 0 || (zn_handle_is_handle(h) && zn_handle_type(h) < 0))
		return -EBADF;
	return 0;
}
