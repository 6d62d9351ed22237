/* SPDX-License-Identifier: MIT */
/*
 * Reading and writing memory an SQE names, without trusting it.
 *
 * The kernel copies user memory with fault handling and fails the request
 * with -EFAULT; a userspace io_uring must not crash on a bad pointer
 * either. process_vm_readv/writev on our own pid is the kernel doing the
 * copy for us: an unmapped or unreadable page gives EFAULT, never SIGSEGV.
 * It costs one system call per copy, so memory zcnic knows is mapped (a
 * live zcnic DMA region it allocated itself: freeing one removes it from
 * the registry before unmapping it) is copied with memcpy; other memory
 * (the copy paths: SEND, RECV, the SEND_ZC bounce fallback) pays the call,
 * and the zero-copy paths do not read user memory at all. A process where the call is refused (a seccomp filter)
 * falls back to a pipe: write() from the source faults the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/mem/ucopy.h"
#include "zcnic/log.h"
#include "zcnic/mem.h"

#define UCOPY_PIPE_CHUNK	65536

static int vm_state;	/* 0 untried, 1 works, -1 refused: use the pipe */

static int pipe_copy(void *dst, const void *src, size_t len)
{
	static __thread int p[2] = { -1, -1 };
	size_t done = 0;

	if (p[0] < 0 && pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
		return -ENOMEM;
	while (done < len) {
		size_t n = len - done < UCOPY_PIPE_CHUNK ? len - done : UCOPY_PIPE_CHUNK;
		ssize_t w = write(p[1], (const char *)src + done, n);

		if (w < 0)
			return errno == EFAULT ? -EFAULT : -EIO;
		/* what the pipe took comes back out whole */
		if (read(p[0], (char *)dst + done, (size_t)w) != w)
			return -EIO;
		done += (size_t)w;
	}
	return 0;
}

static int vm_copy(void *dst, const void *src, size_t len, bool to_user)
{
	struct iovec l = { .iov_base = dst, .iov_len = len };
	struct iovec r = { .iov_base = (void *)src, .iov_len = len };
	ssize_t n;

	if (!len)
		return 0;
	{
		/* Adopted regions are left out: their addresses are the
		 * application's, which may unmap them behind our back. */
		const void *user = to_user ? dst : src;
		const struct zn_dma_region *reg = zn_mem_find(user);

		if (reg && !reg->adopted &&
		    (uintptr_t)user + len <= (uintptr_t)reg->va + reg->len &&
		    (uintptr_t)user + len > (uintptr_t)user) {
			memcpy(dst, src, len);
			return 0;
		}
	}
	if (vm_state >= 0) {
		if (to_user) {
			l.iov_base = (void *)src;
			r.iov_base = dst;
			n = process_vm_writev(getpid(), &l, 1, &r, 1, 0);
		} else {
			n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
		}
		if (n == (ssize_t)len) {
			vm_state = 1;
			return 0;
		}
		if (n >= 0 || errno == EFAULT)
			return -EFAULT;	/* a partial copy stopped at a bad page */
		if (errno != EPERM && errno != ENOSYS)
			return -EFAULT;
		if (!vm_state)
			ZN_INFO("uring", "process_vm_readv refused (%s): user copies go through a pipe",
				strerror(errno));
		vm_state = -1;
	}
	return pipe_copy(dst, src, len);
}

int zn_ucopy_from(void *dst, const void *src, size_t len)
{
	return vm_copy(dst, src, len, false);
}

int zn_ucopy_to(void *dst, const void *src, size_t len)
{
	/* the pipe fallback writes our bytes into dst by read(): faults there too */
	return vm_copy(dst, src, len, true);
}
