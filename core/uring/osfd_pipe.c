/* SPDX-License-Identifier: MIT */
/*
 * core/uring: SPLICE, TEE and PIPE on OS fds, as Linux io_uring/splice.c
 * and openclose.c:
 *  - SPLICE (splice_fd_in with its offset splice_off_in, to fd at off; -1:
 *    no offset) and TEE (offsets must be 0): splice_flags outside
 *    SPLICE_F_FD_IN_FIXED and SPLICE_F_* -EINVAL; an offset on a pipe
 *    -ESPIPE (the kernel's). Linux runs them in an io-wq worker, blocking;
 *    here a pipe end that is empty (in) or full (out) arms the request
 *    (osfd.h) instead of blocking the ring thread;
 *  - PIPE: fd, off, addr3 -EINVAL; pipe_flags outside O_CLOEXEC,
 *    O_NONBLOCK, O_DIRECT, O_NOTIFICATION_PIPE -EINVAL; the two fds are
 *    written to addr (-EFAULT: both closed again). Into registered-file
 *    slots (file_index): -EOPNOTSUPP, the table holds no files of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "core/mem/ucopy.h"
#include "core/uring/osfd.h"

#define SPLICE_FLAGS (SPLICE_F_FD_IN_FIXED | SPLICE_F_MOVE | SPLICE_F_NONBLOCK |	\
	SPLICE_F_MORE | SPLICE_F_GIFT)

struct pipe_pdu {
	struct zn_osfd_arm arm;		/* SPLICE / TEE waiting on a pipe */
	uint64_t off;			/* SPLICE: out offset; PIPE: where the fds go */
	uint64_t off_in;
	uint32_t len;
	uint32_t flags;
	int32_t fd_in;
};
_Static_assert(sizeof(struct pipe_pdu) <= ZN_URING_REQ_PDU, "pipe pdu too big");

#define PDU(req) ((struct pipe_pdu *)(req)->pdu)

/* ---- PIPE ---- */

#define PIPE_FLAGS (O_CLOEXEC | O_NONBLOCK | O_DIRECT | 0x80	/* O_NOTIFICATION_PIPE */)

static int pipe_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct pipe_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->fd || sqe->off || sqe->addr3)
		return -EINVAL;
	p->off = sqe->addr;
	p->flags = sqe->pipe_flags;
	if (p->flags & ~(uint32_t)PIPE_FLAGS)
		return -EINVAL;
	if (sqe->file_index && (p->flags & O_CLOEXEC))
		return -EINVAL;
	return sqe->file_index ? -EOPNOTSUPP : 0;
}

static int pipe_issue(struct zn_uring_req *req)
{
	int fds[2], rc = pipe2(fds, (int)PDU(req)->flags) ? -errno : 0;

	if (!rc && zn_ucopy_to((void *)(uintptr_t)PDU(req)->off, fds, sizeof(fds))) {
		close(fds[0]);
		close(fds[1]);
		rc = -EFAULT;
	}
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

/* ---- SPLICE, TEE ---- */

static int splice_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct pipe_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	p->len = sqe->len;
	p->flags = sqe->splice_flags;
	if (p->flags & ~SPLICE_FLAGS)
		return -EINVAL;
	p->fd_in = sqe->splice_fd_in;
	p->off_in = sqe->splice_off_in;
	p->off = sqe->off;
	if (req->opcode == IORING_OP_TEE && (p->off_in || p->off))
		return -EINVAL;
	return zn_handle_is_handle(req->file) ? -EOPNOTSUPP : 0;
}

static void splice_ready(struct zn_uring_req *req, short revents);

/* One attempt: bytes or -errno; INT32_MIN when a pipe end would block. */
static int splice_try(struct zn_uring_req *req, int *wait_fd, short *wait_ev)
{
	struct pipe_pdu *p = PDU(req);
	unsigned flags = (p->flags & ~SPLICE_F_FD_IN_FIXED) | SPLICE_F_NONBLOCK;
	int in = p->fd_in, out = req->file;
	loff_t off_in = (loff_t)p->off_in, off_out = (loff_t)p->off;
	ssize_t rc;

	if (p->flags & SPLICE_F_FD_IN_FIXED)
		in = in < 0 ? -EBADF : zn_uring_fixed_file(req->ring, (unsigned)in);
	if (in < 0 || zn_handle_is_handle(in))
		return -EBADF;
	if (req->opcode == IORING_OP_TEE)
		rc = tee(in, out, p->len, flags);
	else
		rc = splice(in, (int64_t)p->off_in == -1 ? NULL : &off_in, out,
			    (int64_t)p->off == -1 ? NULL : &off_out, p->len, flags);
	if (rc >= 0)
		return rc > INT32_MAX ? INT32_MAX : (int)rc;
	if (errno != EAGAIN || (p->flags & SPLICE_F_NONBLOCK))
		return -errno;
	/* which end is it: nothing to read, or no room to write */
	struct pollfd pin = { .fd = in, .events = POLLIN };

	*wait_fd = poll(&pin, 1, 0) == 1 ? out : in;
	*wait_ev = *wait_fd == in ? POLLIN : POLLOUT;
	return INT32_MIN;
}

static int splice_run(struct zn_uring_req *req)
{
	short ev = 0;
	int fd = -1, res = splice_try(req, &fd, &ev);

	if (res != INT32_MIN)
		return res;
	res = zn_osfd_arm(req, fd, ev, splice_ready);
	return res ? res : INT32_MIN;
}

static void splice_ready(struct zn_uring_req *req, short revents)
{
	int res = splice_run(req);

	(void)revents;
	if (res != INT32_MIN)
		zn_uring_req_complete(req, res, 0);
}

static int splice_issue(struct zn_uring_req *req)
{
	int res = splice_run(req);

	if (res == INT32_MIN)
		return ZN_URING_ISSUE_ASYNC;
	req->res = res;
	return ZN_URING_ISSUE_DONE;
}

static void splice_cancel(struct zn_uring_req *req)
{
	zn_osfd_disarm(req);
}


const struct zn_uring_op zn_osfd_splice_op = {
	.name = "SPLICE", .flags = ZN_URING_OP_NEEDS_FILE, .prep = splice_prep,
	.issue = splice_issue, .cancel = splice_cancel,
};
const struct zn_uring_op zn_osfd_pipe_op = {
	.name = "PIPE", .prep = pipe_prep, .issue = pipe_issue,
};
const struct zn_uring_op zn_osfd_tee_op = {
	.name = "TEE", .flags = ZN_URING_OP_NEEDS_FILE, .prep = splice_prep,
	.issue = splice_issue, .cancel = splice_cancel,
};
