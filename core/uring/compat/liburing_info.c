/* SPDX-License-Identifier: MIT */
/*
 * liburing's version and sizing calls, and the ring-fd calls that have no
 * meaning for a ring in process memory (include/compat/liburing.h says
 * what each answers and why).
 */
#include <errno.h>

#define ZN_COMPAT_NO_MMAP
#include "compat/liburing.h"

int io_uring_major_version(void)
{
	return IO_URING_VERSION_MAJOR;
}

int io_uring_minor_version(void)
{
	return IO_URING_VERSION_MINOR;
}

/* liburing's sense: true when the library is older than major.minor. */
bool io_uring_check_version(int major, int minor)
{
	return major > io_uring_major_version() ||
	       (major == io_uring_major_version() && minor > io_uring_minor_version());
}

int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring, struct io_uring_params *p,
			    void *buf, size_t buf_size)
{
	(void)entries, (void)ring, (void)p, (void)buf, (void)buf_size;
	return -EINVAL;
}

ssize_t io_uring_memory_size(unsigned entries, unsigned flags)
{
	(void)entries, (void)flags;
	return -EINVAL;
}

ssize_t io_uring_memory_size_params(unsigned entries, struct io_uring_params *p)
{
	(void)entries, (void)p;
	return -EINVAL;
}

ssize_t io_uring_mlock_size(unsigned entries, unsigned flags)
{
	(void)entries, (void)flags;
	return 0;
}

ssize_t io_uring_mlock_size_params(unsigned entries, struct io_uring_params *p)
{
	(void)entries, (void)p;
	return 0;
}

int io_uring_ring_dontfork(struct io_uring *ring)
{
	return ring->sq.ring_ptr ? 0 : -EINVAL;
}

int io_uring_close_ring_fd(struct io_uring *ring)
{
	(void)ring;
	return -EOPNOTSUPP;	/* IORING_FEAT_REG_REG_RING is not reported */
}
