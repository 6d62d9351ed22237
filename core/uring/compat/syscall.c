/* SPDX-License-Identifier: MIT */
/*
 * syscall(2) as <liburing.h> routes it (io_uring_compat_syscall): the three
 * io_uring system calls on zcnic rings, the rest to the C library. Linux
 * io_uring_setup(2), io_uring_enter(2), io_uring_register(2) return -1 and
 * set errno where liburing's wrappers return -errno.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ZN_COMPAT_NO_MMAP
#define ZN_COMPAT_NO_SYSCALL	/* this file calls the real one */
#include "compat/liburing.h"
#include "zcnic/handle.h"

/* A zcnic handle (ring, socket, ...): zcnic answers for it. */
static bool ours(long fd)
{
	return fd >= 0 && fd <= INT32_MAX && zn_handle_type((int)fd) >= 0;
}

long io_uring_compat_syscall(long number, ...)
{
	long a[6];
	va_list ap;
	int rc;

	/* The C library's syscall reads six argument registers whatever the
	 * call; so does this (unused ones are never looked at). */
	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	switch (number) {
	case __NR_io_uring_setup:
		rc = io_uring_setup((unsigned)a[0], (struct io_uring_params *)a[1]);
		break;
	case __NR_io_uring_enter:
		if (!ours((int)a[0]) && !((unsigned)a[3] & IORING_ENTER_REGISTERED_RING))
			goto os;
		rc = io_uring_enter2((unsigned)a[0], (unsigned)a[1], (unsigned)a[2], (unsigned)a[3],
				     (void *)a[4], (size_t)a[5]);
		break;
	case __NR_io_uring_register:
		if ((int)a[0] != -1 && !ours((int)a[0]) &&
		    !((unsigned)a[1] & IORING_REGISTER_USE_REGISTERED_RING))
			goto os;
		rc = io_uring_register((unsigned)a[0], (unsigned)a[1], (const void *)a[2],
				       (unsigned)a[3]);
		break;
	default:
		goto os;
	}
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return rc;
os:
	return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
