/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_OP_ASYNC_CANCEL and the matching behind it (also used
 * by IORING_REGISTER_SYNC_CANCEL, register.c).
 *
 * The kernel's io_uring/cancel.c:
 *  - prep: off or file_index != 0, or a flag outside IORING_ASYNC_CANCEL_*:
 *    -EINVAL; FD or OP together with ANY: -EINVAL. FD takes sqe->fd (a fixed
 *    slot with IOSQE_FIXED_FILE or FD_FIXED; -EBADF when it names nothing),
 *    OP takes the opcode from sqe->len;
 *  - a request matches on user_data (sqe->addr) unless FD or OP is given
 *    without USERDATA; ANY matches every request;
 *  - without ALL/ANY: the first match is cancelled: 0, -ENOENT when none,
 *    -EALREADY when it cannot be stopped; with ALL/ANY: the number cancelled
 *    (0 when none);
 *  - the cancelled request completes with -ECANCELED (its links too).
 *
 * Only requests in flight can be cancelled: those an op holds (a RECV or a
 * send waiting on its socket, a RECV_ZC multishot, a TIMEOUT). Which ops can
 * be stopped is the op's business: the plug-in API's cancel callback
 * (uring_op.h) detaches the request from the op's own lists, so this file
 * never reaches into another layer. LINK_TIMEOUTs are not matched (they are
 * not in flight on their own), as in the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/uring/osfd.h"

#define CANCEL_FLAGS (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_FD |		\
	IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_FD_FIXED |		\
	IORING_ASYNC_CANCEL_USERDATA | IORING_ASYNC_CANCEL_OP)

struct cancel_pdu {
	struct zn_cancel_data cd;
	int32_t fd;
};

static bool match(const struct zn_uring_req *req, const struct zn_cancel_data *cd)
{
	bool by_ud = (cd->flags & IORING_ASYNC_CANCEL_USERDATA) ||
		!(cd->flags & (IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_OP));

	if (cd->flags & IORING_ASYNC_CANCEL_ANY)
		return true;
	if ((cd->flags & IORING_ASYNC_CANCEL_FD) && req->file != cd->file)
		return false;
	if ((cd->flags & IORING_ASYNC_CANCEL_OP) && req->opcode != cd->opcode)
		return false;
	return !by_ud || req->user_data == cd->user_data;
}

int zn_uring_cancel(struct zn_uring *r, const struct zn_cancel_data *cd)
{
	bool all = cd->flags & (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY);
	struct zn_uring_req *q, **snap = NULL;
	unsigned n = 0, i;
	int nr = 0, rc;

	if (!all) {
		for (q = zn_uring_inflight_first(r); q; q = zn_uring_inflight_next(q))
			if (match(q, cd))
				return zn_uring_req_cancel(q, -ECANCELED);
		return -ENOENT;
	}
	/*
	 * ALL: the matches as they stand now. Cancelling one may issue others
	 * (a hard link's next member); those are not taken (the kernel's
	 * cancel sequence number does the same).
	 */
	for (q = zn_uring_inflight_first(r); q; q = zn_uring_inflight_next(q))
		n += match(q, cd);
	if (!n)
		return 0;
	snap = malloc(sizeof(*snap) * n);
	if (!snap)
		return -ENOMEM;
	n = 0;
	for (q = zn_uring_inflight_first(r); q; q = zn_uring_inflight_next(q))
		if (match(q, cd))
			snap[n++] = q;
	for (i = 0; i < n; i++) {
		/* still the same request? (none of them completes another) */
		if (!zn_uring_req_is_inflight(r, snap[i]))
			continue;
		rc = zn_uring_req_cancel(snap[i], -ECANCELED);
		nr += rc == 0;
	}
	free(snap);
	return nr;
}

static int cancel_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct cancel_pdu *p = (struct cancel_pdu *)req->pdu;

	memset(p, 0, sizeof(*p));
	if (sqe->off || sqe->splice_fd_in)
		return -EINVAL;
	p->cd.user_data = sqe->addr;
	p->cd.flags = sqe->cancel_flags;
	if (p->cd.flags & ~CANCEL_FLAGS)
		return -EINVAL;
	if (p->cd.flags & IORING_ASYNC_CANCEL_FD) {
		if (p->cd.flags & IORING_ASYNC_CANCEL_ANY)
			return -EINVAL;
		p->fd = sqe->fd;
	}
	if (p->cd.flags & IORING_ASYNC_CANCEL_OP) {
		if (p->cd.flags & IORING_ASYNC_CANCEL_ANY)
			return -EINVAL;
		p->cd.opcode = (uint8_t)sqe->len;
	}
	return 0;
}

/* The handle FD names (fixed or not): 0, or -EBADF. */
int zn_uring_cancel_resolve_fd(struct zn_uring *r, struct zn_cancel_data *cd, int fd, bool fixed)
{
	int h = fd;

	if (fixed)
		h = fd < 0 ? -EBADF : zn_uring_fixed_file(r, (unsigned)fd);
	if (!zn_osfd_open(h))	/* a live handle or an open OS fd */
		return -EBADF;
	cd->file = h;
	return 0;
}

static int cancel_issue(struct zn_uring_req *req)
{
	struct cancel_pdu *p = (struct cancel_pdu *)req->pdu;
	int rc;

	if (p->cd.flags & IORING_ASYNC_CANCEL_FD) {
		rc = zn_uring_cancel_resolve_fd(req->ring, &p->cd, p->fd,
						(req->sqe_flags & IOSQE_FIXED_FILE) ||
						(p->cd.flags & IORING_ASYNC_CANCEL_FD_FIXED));
		if (rc) {
			req->res = rc;
			return ZN_URING_ISSUE_DONE;
		}
	}
	req->res = zn_uring_cancel(req->ring, &p->cd);
	return ZN_URING_ISSUE_DONE;
}

const struct zn_uring_op zn_async_cancel_op = {
	.name = "ASYNC_CANCEL", .prep = cancel_prep, .issue = cancel_issue,
};
