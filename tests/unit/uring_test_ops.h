/* SPDX-License-Identifier: MIT */
/*
 * Test ops for the conformance tests of the engine's own ops (timeouts,
 * cancellation, provided buffers), installed with zn_uring_op_override under
 * opcodes zcnic does not implement, so that no socket or NIC is needed:
 *  - HOLD (IORING_OP_READ): stays in flight until released or cancelled (a
 *    RECV waiting for a datagram, as the engine sees it); sqe->len is the
 *    result it completes with when released;
 *  - STUCK (IORING_OP_WRITE): the same without a cancel callback (a request
 *    its op cannot stop: -EALREADY);
 *  - BSEL (IORING_OP_READV): IOSQE_BUFFER_SELECT "receive" of sqe->len bytes
 *    of value (uint8_t)sqe->off into a provided buffer: res = bytes, the
 *    buffer's CQE flags; sqe->off bit 32 set: select, then give it back and
 *    complete with -EAGAIN (a request that ends without using its buffer).
 */
#ifndef ZN_URING_TEST_OPS_H
#define ZN_URING_TEST_OPS_H

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "core/uring/uring_op.h"

#define TOP_HOLD	IORING_OP_READ
#define TOP_STUCK	IORING_OP_WRITE
#define TOP_BSEL	IORING_OP_READV
#define TOP_MAX_HELD	64

static struct zn_uring_req *top_held[TOP_MAX_HELD];
static unsigned top_nheld, top_cancels;

static int top_hold_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	req->pdu64[0] = sqe->len;
	return 0;
}

static int top_hold_issue(struct zn_uring_req *req)
{
	if (top_nheld == TOP_MAX_HELD) {
		req->res = -ENOSPC;
		return ZN_URING_ISSUE_DONE;
	}
	top_held[top_nheld++] = req;
	return ZN_URING_ISSUE_ASYNC;
}

static void top_forget(struct zn_uring_req *req)
{
	for (unsigned i = 0; i < top_nheld; i++)
		if (top_held[i] == req) {
			top_held[i] = top_held[--top_nheld];
			return;
		}
}

static void top_hold_cancel(struct zn_uring_req *req)
{
	top_forget(req);
	top_cancels++;
}

/* Complete every held request with its result (from a poll pass, as an op does). */
static inline unsigned top_release_all(void)
{
	unsigned n = 0;

	while (top_nheld) {
		struct zn_uring_req *req = top_held[--top_nheld];

		zn_uring_req_complete(req, (int32_t)req->pdu64[0], 0);
		n++;
	}
	return n;
}

static int top_bsel_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	req->pdu64[0] = sqe->len;
	req->pdu64[1] = sqe->off;
	return 0;
}

static int top_bsel_issue(struct zn_uring_req *req)
{
	uint32_t len = (uint32_t)req->pdu64[0];
	void *addr = NULL;
	int bid;

	if (!(req->sqe_flags & IOSQE_BUFFER_SELECT)) {
		req->res = -EINVAL;
		return ZN_URING_ISSUE_DONE;
	}
	bid = zn_uring_buf_select(req, &addr, &len);
	if (bid < 0) {
		req->res = bid;
		return ZN_URING_ISSUE_DONE;
	}
	if (req->pdu64[1] & (1ull << 32)) {
		zn_uring_buf_recycle(req, bid);
		req->res = -EAGAIN;
		return ZN_URING_ISSUE_DONE;
	}
	memset(addr, (int)(uint8_t)req->pdu64[1], len);
	req->cflags = zn_uring_buf_done(req, bid, len);
	req->res = (int32_t)len;
	return ZN_URING_ISSUE_DONE;
}

static const struct zn_uring_op top_hold_op = {
	.name = "test-hold", .flags = ZN_URING_OP_NEEDS_FILE, .prep = top_hold_prep, .issue = top_hold_issue,
	.cancel = top_hold_cancel,
};

static const struct zn_uring_op top_stuck_op = {
	.name = "test-stuck", .flags = ZN_URING_OP_NEEDS_FILE, .prep = top_hold_prep, .issue = top_hold_issue,
};

static const struct zn_uring_op top_bsel_op = {
	.name = "test-bsel", .flags = ZN_URING_OP_BUFFER_SELECT,
	.prep = top_bsel_prep, .issue = top_bsel_issue,
};

static inline void top_install(void)
{
	top_nheld = top_cancels = 0;
	zn_uring_op_override(TOP_HOLD, &top_hold_op);
	zn_uring_op_override(TOP_STUCK, &top_stuck_op);
	zn_uring_op_override(TOP_BSEL, &top_bsel_op);
}

static inline void top_uninstall(void)
{
	zn_uring_op_override(TOP_HOLD, NULL);
	zn_uring_op_override(TOP_STUCK, NULL);
	zn_uring_op_override(TOP_BSEL, NULL);
}

static inline void top_prep_hold(struct io_uring_sqe *sqe, unsigned op, int fd, int res,
				 uint64_t user_data)
{
	io_uring_prep_rw((int)op, sqe, fd, NULL, (unsigned)res, 0);
	sqe->user_data = user_data;
}

/* CMocka set-up for tests of one 16-entry ring with the test ops installed. */
static inline int top_ring_setup(void **state)
{
	struct io_uring *ring = calloc(1, sizeof(*ring));

	if (!ring || io_uring_queue_init(16, ring, 0)) {
		free(ring);
		return -1;
	}
	top_install();
	*state = ring;
	return 0;
}

static inline int top_ring_teardown(void **state)
{
	io_uring_queue_exit(*state);
	free(*state);
	top_uninstall();
	return 0;
}

#endif
