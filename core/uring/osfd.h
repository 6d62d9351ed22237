/* SPDX-License-Identifier: MIT */
/*
 * core/uring: requests on OS file descriptors (pipes, eventfds, regular
 * files, kernel sockets), the numbers that are no zcnic handle.
 *
 * A request that would block (a read of an empty pipe, a write into a full
 * one) is never waited for in the ring thread: its op arms it here
 * (osfd_wait.c) with the poll events it needs, and every pass of the ring
 * looks at all armed fds with one poll(2) of zero timeout; a ready one is
 * disarmed and handed back to its op, which tries again (and may arm
 * again). In interrupt wait mode the armed fds are in an epoll set whose fd
 * the ring sleeps on, so a ready pipe wakes a sleeping ring.
 */
#ifndef ZN_URING_OSFD_H
#define ZN_URING_OSFD_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/uring/uring_priv.h"
#include "zcnic/handle.h"

/* An OS fd (not a zcnic handle, not negative). */
static inline bool zn_osfd_is_os(int fd)
{
	return fd >= 0 && !zn_handle_is_handle(fd);
}

/* Does fd name something open: a live handle or an open OS fd? */
static inline bool zn_osfd_open(int fd)
{
	if (fd < 0)
		return false;
	if (zn_handle_is_handle(fd))
		return zn_handle_type(fd) >= 0;
	return fcntl(fd, F_GETFD) >= 0;
}

/* The fd is ready (revents) for a request that was armed: the op retries. */
typedef void (*zn_osfd_ready_fn)(struct zn_uring_req *req, short revents);

/* The head of the pdu of every op that arms requests (first member). */
struct zn_osfd_arm {
	zn_osfd_ready_fn ready;
	uint32_t seq;		/* which arming (0: not armed) */
	uint32_t slot;		/* index in the ring's armed array */
	int fd;
	short events;
};

/*
 * Wait until fd shows one of events (POLLIN, POLLOUT, ...; POLLERR, POLLHUP
 * and POLLNVAL always count), then call ready with the request disarmed.
 * The request must be in flight (the op returned or will return
 * ZN_URING_ISSUE_ASYNC). 0 or -ENOMEM / -ENOSPC.
 */
int zn_osfd_arm(struct zn_uring_req *req, int fd, short events, zn_osfd_ready_fn ready);
/* Take an armed request out (a cancel); nothing if it is not armed. */
void zn_osfd_disarm(struct zn_uring_req *req);
/*
 * Interrupt wait mode, for poll.c's hook: put fd in the ring's epoll set
 * (events, one shot) and give the epoll fd to sleep on, or -errno.
 * A regular file, which epoll refuses, is always ready: -EPERM.
 */
int zn_osfd_epoll_add(struct zn_uring *r, int fd, uint32_t events);

#endif
