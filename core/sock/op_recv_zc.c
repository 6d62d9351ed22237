/* SPDX-License-Identifier: MIT */
/*
 * IORING_OP_RECV_ZC on zcnic UDP and TCP sockets, after the kernel's
 * io_recvzc_prep, io_recvzc and io_zcrx_recv / io_zcrx_recv_skb
 * (torvalds/linux io_uring/net.c and io_uring/zcrx.c).
 *
 * Prep: addr, addr2, addr3 and msg_flags must be 0, ioprio must have
 * IORING_RECV_MULTISHOT and nothing but IORING_RECVSEND_POLL_FIRST besides,
 * zcrx_ifq_idx must name an ifq of the ring: else -EINVAL. Issue: a fd that
 * is no handle -EBADF, a handle that is not a socket -ENOTSOCK.
 *
 * Multishot: for every payload segment the socket hands up (a datagram's
 * segments; a TCP connection's in-order descriptors, in sequence order),
 * one data CQE {res = bytes, IORING_CQE_F_MORE, big half = {off = area id
 * << 48 | byte offset in the area, 0}}, posted without overflow. Segments
 * in the area go zero-copy; any other bytes (the queue's pool buffers from
 * before the area was swapped in, core/net's copies, TCP segments from
 * another RX queue) are copied into free area buffers, at most one buffer
 * per CQE (the kernel's copy fallback).
 * The request ends with a final CQE without F_MORE:
 *   0          len bytes received (len 0: no limit); TCP: the peer's FIN
 *              after the last byte (and at once on every later request)
 *   -ENOSPC    CQ full; what was not posted stays for the next RECV_ZC
 *   -ENOMEM    no free area buffer for a copy; same
 *   -EFAULT    a datagram from an RX queue that is not this ifq's (the
 *              kernel's answer to a fragment of another page pool); the
 *              datagram stays, so a RECV on the right path can take it
 *   -ECONNRESET, -ETIMEDOUT, ...  TCP: the connection failed, after every
 *              byte received before it; -ENOTCONN on a listener
 *   -ECANCELED the socket was closed (a UDP socket has no EOF, only the
 *              close, as for zcnic's RECV)
 * What stays is kept per socket as a cursor (datagram, segment, byte), so
 * a datagram (or TCP descriptor) cut by a full CQ or by len continues, in
 * order, in the next request. One RECV_ZC at a time per socket: a second
 * one while the first is armed is -EBUSY (the kernel lets them race).
 *
 * TCP's window: bytes of a descriptor the cursor holds count against the
 * receive window until their CQE is posted (each buffer goes back to the
 * engine as its last byte is posted, reopening the window); what the
 * application holds through CQEs does not, as in Linux, where the skb is
 * consumed and only the net_iov's user reference stays. What bounds the
 * window instead is the area itself: the ifq tells core/net how many
 * buffers its queue can still fill, so an area the application does not
 * refill closes the window rather than making the NIC drop, and refills
 * reopen it (docs/tcp.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sock/sock.h"
#include "core/zcrx/zcrx.h"
#include "zcnic/log.h"

#define RZC_DGRAMS_PER_CALL	32	/* like the kernel's IO_SKBS_PER_CALL_LIMIT (20) */
#define RZC_ARMED		1

/* Per socket: the armed request and the cursor. */
struct rzc {
	struct zn_zcrx_waiter w;	/* first: container_of by cast */
	struct zn_sock *s;
	struct zn_zcrx_ifq *ifq;	/* referenced; the armed / last request's */
	struct zn_zcrx_area *area;	/* ifq's, and its RX queue */
	uint16_t rxq;
	bool stream;			/* the socket's protocol is a stream (TCP) */
	struct zn_uring_req *req;
	bool have;			/* d is a datagram taken off the socket */
	uint32_t seg, seg_off;
	struct zn_udp_rx d;
	/* segments whose bytes are all posted, given back in one call (rel_flush) */
	struct zn_udp_rx rel;
};

struct rzc_pdu {
	struct zn_zcrx_ifq *ifq;	/* looked up at prep (no reference) */
	uint32_t len;			/* 0: no limit */
	uint32_t got;
	struct rzc *rz;
};

#define PDU(req) ((struct rzc_pdu *)(req)->pdu)
_Static_assert(sizeof(struct rzc_pdu) <= ZN_URING_REQ_PDU, "pdu");

static int rzc_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct rzc_pdu *pdu = PDU(req);
	struct zn_zcrx_ifq *ifq;

	if (sqe->addr2 || sqe->addr || sqe->addr3)
		return -EINVAL;
	ifq = zn_zcrx_ifq_get(req->ring, sqe->zcrx_ifq_idx);
	if (!ifq)
		return -EINVAL;
	zn_zcrx_ifq_put(ifq);		/* registered ifqs live as long as the ring */
	if (sqe->msg_flags)
		return -EINVAL;
	if (req->ioprio & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT))
		return -EINVAL;
	if (!(req->ioprio & IORING_RECV_MULTISHOT))
		return -EINVAL;
	memset(pdu, 0, sizeof(*pdu));
	pdu->ifq = ifq;
	pdu->len = sqe->len;
	return 0;
}

/*
 * The stack's references end in batches: a segment whose last byte is
 * posted joins rz->rel, and rel goes back to its queue's provider in one
 * call (one provider put for up to ZN_RX_MAX_SEGS buffers instead of one
 * per buffer) when it is full, when a segment of another queue comes, and
 * at the end of every pass. A stream socket's segments go back at once:
 * each reopens TCP's receive window by its bytes.
 */
static void rel_flush(struct rzc *rz)
{
	if (!rz->rel.nseg)
		return;
	zn_sock_rx_release(rz->s, &rz->rel);
	rz->rel.nseg = 0;
	rz->rel.len = 0;
}

/* Segments i .. i+n-1 of the cursor's datagram are done with. */
static void release_from(struct rzc *rz, uint32_t i, uint32_t n)
{
	for (uint32_t k = i; k < i + n; k++) {
		if (rz->rel.nseg == ZN_RX_MAX_SEGS || (rz->rel.nseg && rz->rel.queue != rz->d.queue))
			rel_flush(rz);
		rz->rel.queue = rz->d.queue;
		rz->rel.seg[rz->rel.nseg++] = rz->d.seg[k];
		rz->rel.len += rz->d.seg[k].len;
		if (rz->stream)
			rel_flush(rz);
	}
}

/*
 * A datagram from a queue that is not the ifq's: -EFAULT (below). A TCP
 * segment is taken from whichever queue it came on, and one that is not in
 * the area goes through the copy fallback, as the kernel copies a fragment
 * that is not a net_iov.
 */
static bool wrong_queue(const struct rzc *rz)
{
	return !rz->stream && (rz->d.queue != rz->rxq || rz->s->dev != zn_zcrx_ifq_dev(rz->ifq));
}

/* Nothing more on the socket: RZC_ARMED, or the final result of a stream's
 * end (0 at EOF, the connection's error after a reset or a timeout). */
static int rzc_idle(struct rzc *rz)
{
	int eof = zn_sock_rx_eof(rz->s);

	if (!rz->s->proto->stream || !eof)
		return RZC_ARMED;
	return eof > 0 ? 0 : eof;
}

static int post(struct zn_uring_req *req, uint32_t res, uint64_t off)
{
	uint64_t big[2] = { off, 0 };

	return zn_uring_post_cqe(req->ring, req->user_data, (int32_t)res, IORING_CQE_F_MORE,
				 big, ZN_CQE_NO_OVERFLOW);
}

/* One segment from the cursor, at most `room` bytes: bytes posted or -errno. */
static int one_cqe(struct rzc *rz, const uint8_t *p, uint32_t left)
{
	struct zn_zcrx_area *a = rz->area;
	int64_t idx = zn_zcrx_area_index(a, p);
	uint32_t in_buf = ZN_ZCRX_BUF_SIZE - (uint32_t)(((uintptr_t)p - (uintptr_t)a->base) &
							 (ZN_ZCRX_BUF_SIZE - 1));
	int rc;

	if (idx >= 0 && left <= in_buf) {
		rc = post(rz->req, left, (uint64_t)(p - a->base));
		if (rc)
			return rc;
		zn_zcrx_area_user_get(a, (uint32_t)idx);
		a->st.zc_bytes += left;
		a->st.cqes++;
		return (int)left;
	}
	/* copy fallback: one area buffer per CQE */
	if (left > ZN_ZCRX_BUF_SIZE)
		left = ZN_ZCRX_BUF_SIZE;
	idx = zn_zcrx_area_copy_get(a);
	if (idx < 0) {
		zn_zcrx_ifq_refill(rz->ifq);
		idx = zn_zcrx_area_copy_get(a);
		if (idx < 0)
			return -ENOMEM;
	}
	memcpy(a->base + ((size_t)idx << ZN_ZCRX_BUF_SHIFT), p, left);
	rc = post(rz->req, left, (uint64_t)idx << ZN_ZCRX_BUF_SHIFT);
	if (rc) {
		zn_zcrx_area_copy_abort(a, (uint32_t)idx);
		return rc;
	}
	zn_zcrx_area_user_get(a, (uint32_t)idx);
	a->st.copies++;
	a->st.copy_bytes += left;
	a->st.cqes++;
	return (int)left;
}

/* One pass over what the socket holds: RZC_ARMED, or the final result. */
static int rzc_pass(struct rzc *rz)
{
	struct zn_uring_req *req = rz->req;
	struct rzc_pdu *pdu = PDU(req);
	struct zn_zcrx_area *a = rz->area;

	for (unsigned n = 0; n < RZC_DGRAMS_PER_CALL;) {
		bool fresh = !rz->have;

		if (fresh) {
			if (pdu->len && pdu->got >= pdu->len)
				return 0;
			if (!zn_sock_recv(rz->s, &rz->d, 1))
				return rzc_idle(rz);
			rz->have = true;
			rz->seg = rz->seg_off = 0;
			n++;
		}
		if (wrong_queue(rz)) {
			ZN_LOG_RL(ZN_LOG_WARN, ZCRX_LOG, "RECV_ZC: a datagram came on rx queue %u, "
				  "not on ifq %u's queue %u; steer the flow to that queue",
				  rz->d.queue, zn_zcrx_ifq_id(rz->ifq), rz->rxq);
			return -EFAULT;
		}
		/* a datagram just taken off the socket: its area buffers are the stack's */
		if (fresh)
			for (uint32_t i = 0; i < rz->d.nseg; i++) {
				int64_t idx = zn_zcrx_area_index(a, zn_sock_rx_data(rz->s, &rz->d, i));

				if (idx >= 0)
					zn_zcrx_area_take(a, (uint32_t)idx);
			}
		while (rz->seg < rz->d.nseg) {
			const uint8_t *p = zn_sock_rx_data(rz->s, &rz->d, rz->seg);
			uint32_t left = rz->d.seg[rz->seg].len - rz->seg_off;
			int rc;

			if (pdu->len && pdu->got >= pdu->len)
				return 0;
			if (pdu->len && left > pdu->len - pdu->got)
				left = pdu->len - pdu->got;
			if (!p)
				return -EFAULT;	/* the provider cannot say: nothing to read */
			rc = one_cqe(rz, p + rz->seg_off, left);
			if (rc < 0)
				return rc;
			pdu->got += (uint32_t)rc;
			rz->seg_off += (uint32_t)rc;
			if (rz->seg_off == rz->d.seg[rz->seg].len) {
				/* the stack's reference ends here; the user's goes on */
				release_from(rz, rz->seg, 1);
				rz->seg++;
				rz->seg_off = 0;
			}
		}
		rz->have = false;
	}
	return RZC_ARMED;
}

/* Serve the armed request: RZC_ARMED, or the final result. */
static int rzc_run(struct rzc *rz)
{
	int res = rzc_pass(rz);

	rel_flush(rz);
	return res;
}

static void rzc_disarm(struct rzc *rz)
{
	zn_zcrx_waiter_del(rz->ifq, &rz->w);
	rz->req = NULL;
}

static void rzc_serve_now(struct rzc *rz)
{
	struct zn_uring_req *req = rz->req;
	int res;

	if (!req)
		return;
	res = rzc_run(rz);
	if (res == RZC_ARMED)
		return;
	rzc_disarm(rz);
	zn_uring_req_complete(req, res, 0);
}

static void rzc_serve(struct zn_sock *s)
{
	rzc_serve_now(s->rx_priv);
}

static void rzc_waiter_poll(struct zn_zcrx_waiter *w)
{
	struct rzc *rz = (struct rzc *)w;

	/* only what the socket's own hook does not see: a datagram kept */
	if (rz->have)
		rzc_serve_now(rz);
}

static void rzc_fini(struct zn_sock *s)
{
	struct rzc *rz = s->rx_priv;

	if (rz->req) {
		struct zn_uring_req *req = rz->req;

		rzc_disarm(rz);
		zn_uring_req_complete(req, -ECANCELED, 0);
	}
	if (rz->have)
		release_from(rz, rz->seg, rz->d.nseg - rz->seg);
	rel_flush(rz);
	zn_zcrx_ifq_put(rz->ifq);
	free(rz);
	s->rx_priv = NULL;
}

static int rzc_issue(struct zn_uring_req *req)
{
	struct rzc_pdu *pdu = PDU(req);
	struct zn_sock *s;
	struct rzc *rz;
	int rc;

	if (req->file < 0 || zn_handle_type(req->file) < 0) {
		req->res = -EBADF;
		return ZN_URING_ISSUE_DONE;
	}
	s = zn_sock_of_req(req);
	if (!s) {
		req->res = zn_sock_req_err(req);
		return ZN_URING_ISSUE_DONE;
	}
	if (s->rx_serve && s->rx_serve != rzc_serve) {
		req->res = -EBUSY;	/* a RECV owns the receive side */
		return ZN_URING_ISSUE_DONE;
	}
	rz = s->rx_priv;
	if (rz && rz->req) {
		req->res = -EBUSY;
		return ZN_URING_ISSUE_DONE;
	}
	rc = zn_sock_bind(s, req->ring);
	if (rc < 0) {
		req->res = rc;
		return ZN_URING_ISSUE_DONE;
	}
	if (!rz) {
		rz = calloc(1, sizeof(*rz));
		if (!rz) {
			req->res = -ENOMEM;
			return ZN_URING_ISSUE_DONE;
		}
		rz->s = s;
		rz->stream = s->proto->stream;
		rz->w.poll = rzc_waiter_poll;
		s->rx_priv = rz;
		s->rx_serve = rzc_serve;
		s->rx_fini = rzc_fini;
	}
	if (rz->ifq != pdu->ifq) {
		if (rz->ifq)
			zn_zcrx_ifq_put(rz->ifq);
		rz->ifq = pdu->ifq;
		zn_zcrx_ifq_hold(rz->ifq);
		rz->area = zn_zcrx_ifq_area(rz->ifq);
		rz->rxq = zn_zcrx_ifq_rxq(rz->ifq);
	}
	pdu->rz = rz;
	rz->req = req;
	zn_zcrx_waiter_add(rz->ifq, &rz->w);
	if (!(req->ioprio & IORING_RECVSEND_POLL_FIRST)) {
		int res = rzc_run(rz);

		if (res != RZC_ARMED) {
			rzc_disarm(rz);
			req->res = res;
			return ZN_URING_ISSUE_DONE;
		}
	}
	return ZN_URING_ISSUE_ASYNC;
}

static void rzc_cancel(struct zn_uring_req *req)
{
	struct rzc *rz = PDU(req)->rz;

	if (rz && rz->req == req)
		rzc_disarm(rz);
}

const struct zn_uring_op zn_recv_zc_op = {
	.name = "RECV_ZC", .flags = ZN_URING_OP_NEEDS_FILE,
	.prep = rzc_prep, .issue = rzc_issue, .cancel = rzc_cancel,
};

