/* SPDX-License-Identifier: MIT */
/*
 * zcnic handles: the "file descriptors" of zcnic objects.
 *
 * An SQE names its file by an int (sqe->fd), and liburing programs keep
 * rings in ints (ring.ring_fd). In zcnic these ints are handles from one
 * process-wide table: rings (core/uring), sockets (core/sock), and
 * whatever later layers register. A handle is usable as sqe->fd, in the
 * registered-file table (io_uring_register_files) and as a MSG_RING target.
 *
 * Shape of a handle (always a positive int):
 *
 *     bit 31   30..29   28     27 ......... 16   15 ......... 0
 *      0        0       1      generation        table index
 *
 * Bit 28 keeps handles clear of real file descriptors (which stay below
 * 2^28 under any RLIMIT_NOFILE), so an OS fd passed by mistake is never
 * taken for a zcnic object. The generation changes on every close, so a
 * stale handle fails with -EBADF instead of reaching the slot's next owner
 * (until the 12-bit generation wraps).
 *
 * Lifetime: zn_handle_get() takes a reference that keeps the object alive
 * until zn_handle_put(); zn_handle_close() invalidates the handle at once
 * (new gets fail) and then waits for references already taken to be put.
 * References are for short uses (one MSG_RING post), never held across a
 * wait. The owner of an object may use zn_handle_peek() (no reference):
 * only the owner closes it, so it cannot vanish under the owner.
 */
#ifndef ZCNIC_HANDLE_H
#define ZCNIC_HANDLE_H

#include <stdbool.h>

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

#define ZN_HANDLE_BASE		(1 << 28)
#define ZN_HANDLE_MAX		65536	/* live handles per process */

enum zn_handle_type {
	ZN_HANDLE_ANY = 0,	/* for lookups: match any type */
	ZN_HANDLE_URING = 1,	/* struct zn_uring (core/uring) */
	ZN_HANDLE_SOCKET = 2,	/* a socket of core/sock */
	ZN_HANDLE_ZCRX = 3,	/* an exported zcrx interface queue */
	ZN_HANDLE_TEST = 14,	/* tests: a handle that is none of the above */
	ZN_HANDLE_TYPE_MAX = 15,
};

/* New handle for obj (not NULL): the handle, -EINVAL or -EMFILE (table full). */
int zn_handle_alloc(enum zn_handle_type type, void *obj);
/* The object, with a reference, or NULL (stale, closed, or another type). */
void *zn_handle_get(int h, enum zn_handle_type type);
void zn_handle_put(int h);
/* The object without a reference (the owner's own use), or NULL. */
void *zn_handle_peek(int h, enum zn_handle_type type);
/* The type of a live handle, or -EBADF. */
int zn_handle_type(int h);
/* Does h have the shape of a handle (live or not)? */
static inline bool zn_handle_is_handle(int h)
{
	return h >= ZN_HANDLE_BASE && h < 2 * ZN_HANDLE_BASE;
}
/*
 * Invalidate h and wait until its references are put; the object is the
 * caller's to free afterwards. 0, or -EBADF if h is not live.
 */
int zn_handle_close(int h);

#pragma GCC visibility pop

#endif
