/* SPDX-License-Identifier: MIT */
/*
 * zn-bench kernel path: the system liburing (Debian's 2.3), never zcnic's
 * include/compat/liburing.h (the Makefile compiles kern_*.c without
 * -Iinclude/compat). liburing 2.3 carries its own copy of the uAPI header,
 * older than the kernels we run on; the few later definitions we use are
 * the Linux uAPI's (include/uapi/linux/io_uring.h), named here when missing.
 */
#ifndef ZN_BENCH_KERN_URING_H
#define ZN_BENCH_KERN_URING_H

#include <liburing.h>

#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE	(1U << 3)	/* Linux 6.2 */
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED	(1U << 31)	/* in a notification's res */
#endif
#ifndef IORING_CQE_F_NOTIF
#define IORING_CQE_F_NOTIF		(1U << 3)
#endif

/* A fatal CQE or setup error that means "this kernel cannot", not "it broke". */
static inline int kern_unsupported(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP || err == -ENOSYS;
}

#endif
