/* SPDX-License-Identifier: MIT */
/*
 * IORING_OP_SEND, IORING_OP_SENDMSG, IORING_OP_SEND_ZC and
 * IORING_OP_SENDMSG_ZC on zcnic sockets (see core/sock/net_ops.h for the
 * path a send takes). SENDMSG is SENDMSG_ZC's msghdr with SEND's copy and
 * no notification (io_sendmsg_prep: ioprio outside POLL_FIRST|BUNDLE|
 * VECTORIZED -EINVAL, BUNDLE -EINVAL, addr2 or file_index -EINVAL). A
 * socket made by IORING_OP_SOCKET with no netdev yet: a UDP send to an
 * address binds it (inet_autobind), none is -EDESTADDRREQ; TCP -EPIPE.
 *
 * SQE validation and error codes follow the kernel's io_uring/net.c
 * (io_sendmsg_prep, io_send_setup, io_send_zc_prep, io_sendmsg_zc,
 * io_sendrecv_fail) and, for what the socket layer would say, udp_sendmsg:
 *  - SEND: ioprio outside POLL_FIRST|BUNDLE|VECTORIZED|FIXED_BUF -EINVAL;
 *    FIXED_BUF with BUNDLE or VECTORIZED -EINVAL; BUNDLE needs provided
 *    buffers, which zcnic does not have: -EINVAL (logged); __pad3 -EINVAL.
 *  - SEND_ZC/SENDMSG_ZC: __pad2[0], addr3 or IOSQE_CQE_SKIP_SUCCESS -EINVAL with
 *    no notification (the kernel checks them before allocating one). Every
 *    later failure, at prep or at issue, completes with F_MORE and one
 *    notification (res 0, or IORING_NOTIF_USAGE_ZC_COPIED with
 *    REPORT_USAGE: nothing went out zero-copy), posted after the result.
 *    ioprio outside POLL_FIRST|FIXED_BUF|REPORT_USAGE|VECTORIZED -EINVAL;
 *    SENDMSG_ZC with addr2 or file_index -EINVAL. addr3 must be 0
 *    (-EINVAL, no notification), as in every released kernel read; a 2026
 *    patch making it the notification's user_data is not followed yet.
 *  - destination: sqe->addr2/addr_len (SEND, SEND_ZC) or msg_name: read at
 *    prep (addr_len > 128 -EINVAL, unreadable -EFAULT); at send time fewer
 *    than 16 bytes or port 0 -EINVAL, a family other than AF_INET/AF_UNSPEC
 *    -EAFNOSUPPORT. None given: the connected peer, or -EDESTADDRREQ.
 *  - payload above the netdev's MTU - 28: -EMSGSIZE (no IP fragmentation);
 *    a TCP socket has no such limit: zero-copy pieces of any size go to
 *    its send queue (read again until acknowledged; the VA is given for
 *    the software checksum), and a copied send goes in pieces of what a
 *    slot's bounce buffers hold (ZN_UDP_MAX_SEGS of them, one segment
 *    each), one after the other, as tcp_sendmsg fills its send queue:
 *    the request completes with its whole length once every piece is
 *    queued. A full send queue (slots, bounce buffers, the connection's
 *    chunks) keeps it waiting if nothing went yet or with MSG_WAITALL
 *    (io_net_retry); else it completes short with the bytes queued, as
 *    io_uring's non-blocking tcp_sendmsg; an error after some bytes
 *    completes with the bytes (io_send: done_io). A ZC send cut in
 *    pieces is notified by its last piece, or right after its result
 *    when it ends short. The destination is ignored;
 *    a bad buffer (NULL, unmapped, unreadable) -EFAULT, detected without
 *    touching it; FIXED_BUF with a range outside registered buffer
 *    buf_index, or a bad index, -EFAULT (at issue, as io_import_reg_buf).
 *  - msg_flags: MSG_DONTWAIT (a full TX path fails with -EAGAIN instead of
 *    waiting), MSG_NOSIGNAL, MSG_WAITALL, MSG_CONFIRM, MSG_DONTROUTE,
 *    MSG_EOR, MSG_ZEROCOPY are accepted (UDP ignores them); MSG_OOB is
 *    -EOPNOTSUPP (UDP's answer); any other bit -EINVAL (logged).
 *  - MSG_MORE: TCP holds a runt segment back until a send without it
 *    (zn_tcp_send_flags). UDP corks as udp_sendmsg / ip_append_data: each
 *    piece keeps its own slot (copied, or zero copy with its own
 *    notification) and completes at once with its byte count; the send
 *    without MSG_MORE sends all pieces as one datagram to the first
 *    piece's destination (later addresses are ignored, as Linux appends
 *    before looking at them), and the NIC's completion of that frame
 *    notifies every piece in order. A total above MTU - 28 is -EMSGSIZE
 *    and drops what was pending (udp_flush_pending_frames), as does any
 *    other failure of a piece, and close. A corked datagram carries a UDP
 *    checksum (its pieces' VAs are kept, they may have to be copied). Pieces beyond one frame's segments are copied together into
 *    one bounce buffer (REPORT_USAGE: ZC_COPIED). The last free slot is
 *    kept for the send that ends a datagram: a MSG_MORE send that would
 *    take it is -ENOBUFS. SENDMSG_ZC: msg_control must be empty
 *    (no UDP control messages here; -EINVAL, logged).
 *
 * A full TX path (the socket's ZN_SOCK_SEND_MAX send slots, the netif's
 * header slab, an ARP queue, bounce buffers) does not fail the send: the
 * request waits and is retried on the next poll, in submission order per
 * socket. POLL_FIRST
 * sends wait for the next poll from the start.
 *
 * Zero copy (SEND_ZC, SENDMSG_ZC): a registered buffer is made reachable on
 * first use with a netdev (net_mem.c); plain memory already in a zn DMA
 * region mapped to the netdev goes as it is; anything else is copied into a
 * bounce buffer (REPORT_USAGE: ZC_COPIED). Zero-copy segments go without
 * their VA, so core/net leaves the UDP checksum 0 (RFC 768, IPv4) instead
 * of reading the payload; copied payloads get a checksum.
 *
 * Departures from the kernel, on purpose:
 *  - the result CQE of a send means "queued to the NIC", not "handed to
 *    the stack"; the notification means "the NIC finished reading it";
 *  - a send cancelled by a failed link predecessor gets -ECANCELED without
 *    F_MORE and no notification (the kernel posts F_MORE and a
 *    notification: it allocated one at prep; ours is made at issue);
 *  - sends still waiting when their socket closes complete with -ECANCELED
 *    (no F_MORE); sends already queued get their notification once the NIC
 *    is done: close waits for that (at most TX_DRAIN_MS);
 *  - the iovec array of SENDMSG_ZC / VECTORIZED is read at issue (normally
 *    inside the submit call), not at prep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "base/clock.h"
#include "core/sock/net_ops.h"
#include "zcnic/log.h"

#define SEND_LOG	"uring-send"
/* close / ring exit: how long to wait for the NIC to finish every send
 * before the buffers go back (a loaded model can take far longer than a
 * NIC; releasing early lets the device read freed memory) */
#define TX_DRAIN_MS	3000
#define IOV_BATCH	32	/* iovecs read at once on the copy path */
#define NET_MAX_IOV	1024	/* UIO_MAXIOV */

#define SEND_IOPRIO	(IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_BUNDLE |		\
			 IORING_SEND_VECTORIZED | IORING_RECVSEND_FIXED_BUF)
#define ZC_IOPRIO	(IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_FIXED_BUF |	\
			 IORING_SEND_ZC_REPORT_USAGE | IORING_SEND_VECTORIZED)
#define SEND_MSG_OK	(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_WAITALL | MSG_CONFIRM |	\
			 MSG_DONTROUTE | MSG_EOR | MSG_ZEROCOPY | MSG_MORE)

enum { K_SEND = 0, K_SEND_ZC, K_SENDMSG_ZC, K_SENDMSG };

#define SENDMSG_IOPRIO	(IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_BUNDLE |	\
			 IORING_SEND_VECTORIZED)
#define IS_ZC(p)	((p)->kind == K_SEND_ZC || (p)->kind == K_SENDMSG_ZC)

struct send_pdu {
	uint64_t addr;			/* buffer, or iovec array (vec) */
	uint64_t notif_ud;
	struct zn_uring_req *next;	/* the socket's wait FIFO */
	struct tx_state *tx;		/* while waiting */
	uint32_t len;			/* bytes, or iovec count (vec) */
	uint32_t msg_flags;
	struct net_dst dst;
	uint16_t flags;			/* ioprio */
	uint16_t buf_index;
	uint16_t slot;			/* captured slot + 1; 0: none */
	uint8_t kind;
	uint8_t vec;
	int16_t err;			/* ZC: a prep failure, reported at issue */
	uint8_t last : 1;		/* a stream: the captured piece ends the request */
	uint8_t own_notif : 1;		/* ZC cut short: the request posts its notification */
	uint32_t done;			/* a stream: bytes queued by earlier pieces */
};
_Static_assert(sizeof(struct send_pdu) <= ZN_URING_REQ_PDU, "send pdu too big");

#define PDU(req) ((struct send_pdu *)(req)->pdu)

struct tx_slot {
	struct zn_net_seg seg[ZN_UDP_MAX_SEGS];
	struct net_fixmap *fm[ZN_UDP_MAX_SEGS];
	void *bounce[ZN_UDP_MAX_SEGS];	/* a copy: one buffer, a stream's up to all */
	void *gather;			/* a corked datagram's pieces copied together */
	struct zn_uring *ring;		/* the ring that sent it: its notification goes there */
	uint64_t notif_ud;
	uint32_t nseg, len;
	uint16_t next_free;
	uint16_t cork_next;		/* the datagram's next piece: slot + 1; 0 none */
	bool busy;			/* handed to zn_sock_send, not completed */
	bool notif, report, copied, used;
};

struct tx_state {
	struct zn_sock *s;
	struct net_dev *nd;
	uint32_t mtu_payload;
	uint32_t inflight;		/* slots handed to zn_sock_send */
	uint32_t nfree;
	uint16_t free_head;
	struct zn_uring_req *wait_head, *wait_tail;
	/* UDP cork: the pieces of a datagram whose sends had MSG_MORE */
	uint16_t cork_head, cork_tail;	/* slot + 1; 0: nothing pending */
	uint32_t cork_len, cork_nseg, cork_nslot;
	struct net_dst cork_dst;	/* the first piece's; later ones are ignored */
	struct zn_net_seg cork_seg[ZN_UDP_MAX_SEGS];
	struct tx_slot slot[ZN_SOCK_SEND_MAX];
};

/* ---- slots ----------------------------------------------------------------- */

static struct tx_slot *slot_alloc(struct tx_state *tx, uint16_t *idx)
{
	struct tx_slot *sl;

	if (!tx->nfree)
		return NULL;
	*idx = tx->free_head;
	sl = &tx->slot[*idx];
	tx->free_head = sl->next_free;
	tx->nfree--;
	/* a free slot holds no buffer and no mapping (slot_release), and its
	 * segments are written up to nseg: only the send's own fields start over */
	sl->notif_ud = 0;
	sl->nseg = sl->len = 0;
	sl->cork_next = 0;
	sl->busy = sl->notif = sl->report = sl->copied = sl->used = false;
	return sl;
}

/* Give back what a slot holds (the NIC is done with it, or never saw it). */
static void slot_release(struct tx_state *tx, uint16_t idx)
{
	struct tx_slot *sl = &tx->slot[idx];

	if (sl->gather)
		zn_net_bounce_put(tx->nd, sl->gather);
	for (uint32_t i = 0; i < ZN_UDP_MAX_SEGS; i++) {
		zn_net_fixmap_put(sl->fm[i]);
		sl->fm[i] = NULL;
		if (sl->bounce[i])
			zn_net_bounce_put(tx->nd, sl->bounce[i]);
		sl->bounce[i] = NULL;
	}
	sl->gather = NULL;
	sl->next_free = tx->free_head;
	tx->free_head = idx;
	tx->nfree++;
}

static int32_t notif_res(bool report, bool copied)
{
	return report && copied ? (int32_t)IORING_NOTIF_USAGE_ZC_COPIED : 0;
}

/* A chain of slots (one datagram, or one alone) is done with: each
 * piece's notification, in order, then its slot is free. */
static void chain_done(struct tx_state *tx, uint16_t idx)
{
	for (uint16_t next = (uint16_t)(idx + 1); next; ) {
		struct tx_slot *sl = &tx->slot[next - 1];
		uint16_t i = (uint16_t)(next - 1);

		next = sl->cork_next;
		sl->busy = false;
		if (sl->notif && !tx->s->ring_exiting)
			zn_uring_post_cqe(sl->ring, sl->notif_ud,
					  notif_res(sl->report, sl->copied || !sl->used),
					  IORING_CQE_F_NOTIF, NULL, 0);
		slot_release(tx, i);
	}
}

/* The NIC finished frame idx (its chain's first slot). */
static void slot_done(struct tx_state *tx, uint16_t idx)
{
	tx->inflight--;
	chain_done(tx, idx);
}

/* ---- capturing a payload ---------------------------------------------------- */

/* The iovecs of a vectored send, n of them from index first. */
static int iov_read(const struct send_pdu *p, uint32_t first, uint32_t n, struct iovec *out)
{
	return zn_ucopy_from(out, (const struct iovec *)(uintptr_t)p->addr + first,
			     n * sizeof(*out));
}

static int fixed_check(struct zn_uring *r, const struct send_pdu *p, const struct iovec *v)
{
	if (!(p->flags & IORING_RECVSEND_FIXED_BUF))
		return 0;
	return zn_uring_fixed_buf(r, p->buf_index, (uintptr_t)v->iov_base, v->iov_len, NULL);
}

/* Zero copy, if every piece is reachable by the device. 1 done, 0 no, < 0 error. */
static int capture_zc(struct tx_state *tx, struct zn_uring *r, const struct send_pdu *p,
		      const struct iovec *v, uint32_t n, struct tx_slot *sl)
{
	struct zn_netdev *dev = tx->s->dev;
	/* a corked piece may have to be copied together with the others */
	bool keep_va = tx->s->proto->stream || (p->msg_flags & MSG_MORE) || tx->cork_head;
	uint32_t k = 0;
	int rc;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t iova;

		rc = fixed_check(r, p, &v[i]);
		if (rc)
			return rc;
		if (!v[i].iov_len)
			continue;	/* nothing to send from it; a segment may not be empty */
		if (p->flags & IORING_RECVSEND_FIXED_BUF) {
			if (!zn_net_fixmap_get(r, p->buf_index, dev, (uintptr_t)v[i].iov_base,
					       (uint32_t)v[i].iov_len, &iova, &sl->fm[k]))
				return 0;
		} else if (zn_netdev_iova(dev, v[i].iov_base, v[i].iov_len, &iova)) {
			return 0;
		}
		/* UDP: no VA, core/net does not read the payload (checksum 0);
		 * TCP must have its checksum: computed from the VA until the
		 * device fills it in (no TX checksum offload yet) */
		sl->seg[k].iova = iova;
		sl->seg[k].va = keep_va ? v[i].iov_base : NULL;
		sl->seg[k].len = (uint32_t)v[i].iov_len;
		k++;
	}
	sl->nseg = k;
	sl->used = k > 0;
	return 1;
}

/* Copy bytes [skip, skip + len) of the iovecs into dst (every iovec's
 * range is checked, as the kernel imports them all). */
static int copy_span(struct zn_uring *r, const struct send_pdu *p, const struct iovec *v,
		     uint32_t n, uint64_t skip, uint8_t *dst, uint32_t len)
{
	for (uint32_t i = 0; i < n; i++) {
		int rc = fixed_check(r, p, &v[i]);
		uint32_t from = skip < v[i].iov_len ? (uint32_t)skip : (uint32_t)v[i].iov_len;
		uint32_t take = (uint32_t)v[i].iov_len - from < len ?
				(uint32_t)v[i].iov_len - from : len;

		if (rc)
			return rc;
		if (take && zn_ucopy_from(dst, (const uint8_t *)v[i].iov_base + from, take))
			return -EFAULT;
		skip -= from;
		dst += take;
		len -= take;
	}
	return 0;
}

/* copy_span over the request's iovecs: v when they are at hand, else read
 * in batches (more than a slot keeps). */
static int copy_at(struct zn_uring *r, const struct send_pdu *p, const struct iovec *v,
		   uint32_t n, uint64_t skip, uint8_t *dst, uint32_t len)
{
	struct iovec batch[IOV_BATCH];
	int rc = 0;

	if (v)
		return copy_span(r, p, v, n, skip, dst, len);
	for (uint32_t i = 0; !rc && i < p->len; i += IOV_BATCH) {
		uint32_t m = p->len - i < IOV_BATCH ? p->len - i : IOV_BATCH;
		uint64_t blen = 0, take;

		if (iov_read(p, i, m, batch))
			return -EFAULT;
		for (uint32_t k = 0; k < m; k++)
			blen += batch[k].iov_len;
		take = skip < blen ? (blen - skip < len ? blen - skip : len) : 0;
		rc = copy_span(r, p, batch, m, skip, dst, (uint32_t)take);
		skip -= skip < blen ? skip : blen;
		dst += take;
		len -= (uint32_t)take;
	}
	return rc;
}

/* Copy bytes [skip, skip + total) of the payload into bounce buffers:
 * one, or for a stream's piece larger than one up to a slot's segments. */
static int capture_copy(struct tx_state *tx, struct zn_uring *r, const struct send_pdu *p,
			const struct iovec *v, uint32_t n, uint64_t skip, uint32_t total,
			struct tx_slot *sl)
{
	uint32_t off = 0, bsz = zn_net_bounce_size(tx->nd), k;
	uint64_t iova;
	void *b;
	int rc;

	if (!total) {
		/* an empty datagram; the ranges are still checked */
		for (uint32_t i = 0; v && i < n; i++)
			if ((rc = fixed_check(r, p, &v[i])))
				return rc;
		sl->nseg = 0;
		sl->copied = true;
		return 0;
	}
	for (k = 0; off < total && k < ZN_UDP_MAX_SEGS; k++) {
		uint32_t len = bsz && total - off > bsz ? bsz : total - off;

		rc = zn_net_bounce_get(tx->nd, len, &b, &iova);
		if (rc)
			return rc;	/* the caller releases what the slot took */
		sl->bounce[k] = b;
		rc = copy_at(r, p, v, n, skip + off, b, len);
		if (rc)
			return rc;
		sl->seg[k] = (struct zn_net_seg){ .iova = iova, .va = b, .len = len };
		sl->nseg = k + 1;
		off += len;
	}
	sl->copied = true;
	return off < total ? -EMSGSIZE : 0;
}

/* The byte count of a vectored send; iovecs read in batches. */
static int iov_total(const struct send_pdu *p, uint64_t *total)
{
	struct iovec batch[IOV_BATCH];

	*total = 0;
	for (uint32_t i = 0; i < p->len; i += IOV_BATCH) {
		uint32_t m = p->len - i < IOV_BATCH ? p->len - i : IOV_BATCH;

		if (iov_read(p, i, m, batch))
			return -EFAULT;
		for (uint32_t k = 0; k < m; k++) {
			if ((ssize_t)batch[k].iov_len < 0)
				return -EINVAL;
			*total += batch[k].iov_len;
		}
	}
	return 0;
}

/* Fill slot sl with req's payload: 0 or -errno (-EAGAIN: wait and retry). */
static int capture(struct tx_state *tx, struct zn_uring_req *req, struct tx_slot *sl)
{
	struct send_pdu *p = PDU(req);
	struct iovec one, few[ZN_UDP_MAX_SEGS], *v;
	uint64_t total;
	uint32_t n;
	int rc;

	sl->ring = req->ring;
	if (p->vec) {
		rc = iov_total(p, &total);
		if (rc)
			return rc;
		n = p->len;
		v = NULL;
		if (n <= ZN_UDP_MAX_SEGS) {
			if (iov_read(p, 0, n, few))
				return -EFAULT;
			v = few;
		}
	} else {
		one.iov_base = (void *)(uintptr_t)p->addr;
		one.iov_len = p->len;
		total = p->len;
		n = 1;
		v = &one;
	}
	/* a corked datagram's pieces together (ip_append_data's check) */
	if (total > tx->mtu_payload - tx->cork_len)
		return -EMSGSIZE;
	sl->len = (uint32_t)total;
	p->last = 1;
	if (IS_ZC(p) && v && !p->done) {
		rc = capture_zc(tx, req->ring, p, v, n, sl);
		if (rc)
			return rc < 0 ? rc : 0;
		/* some piece is not reachable: undo, then copy it all */
		for (uint32_t i = 0; i < ZN_UDP_MAX_SEGS; i++) {
			zn_net_fixmap_put(sl->fm[i]);
			sl->fm[i] = NULL;
		}
	}
	/* A stream's copy goes in pieces of what a slot's bounce buffers
	 * hold, from where the last piece ended (send_stream); a datagram is
	 * whole. */
	if (tx->s->proto->stream) {
		uint64_t cap = (uint64_t)zn_net_bounce_size(tx->nd) * ZN_UDP_MAX_SEGS;

		total -= total < p->done ? total : p->done;
		if (cap && total > cap) {
			total = cap;
			p->last = 0;
		}
		sl->len = (uint32_t)total;
	}
	return capture_copy(tx, req->ring, p, v, n, p->done, (uint32_t)total, sl);
}

/* ---- sending ------------------------------------------------------------------ */

static int msg_flags_check(uint32_t f)
{
	if (f & MSG_OOB)
		return -EOPNOTSUPP;
	if (f & ~(uint32_t)SEND_MSG_OK) {
		ZN_LOG_RL(ZN_LOG_WARN, SEND_LOG, "send msg_flags 0x%x not supported (known: "
			  "MSG_DONTWAIT, MSG_NOSIGNAL, MSG_WAITALL, MSG_CONFIRM, MSG_DONTROUTE, "
			  "MSG_EOR, MSG_ZEROCOPY, MSG_MORE): -EINVAL", f & ~(uint32_t)SEND_MSG_OK);
		return -EINVAL;
	}
	return 0;
}

/* The ZC bookkeeping of a slot that the NIC (or the cork) now holds: a
 * stream request cut in pieces is notified by its last. */
static void slot_take(struct tx_slot *sl, const struct send_pdu *p)
{
	sl->notif = IS_ZC(p) && p->last;
	sl->notif_ud = p->notif_ud;
	sl->report = p->flags & IORING_SEND_ZC_REPORT_USAGE;
}

/* A corked datagram is dropped (an error, or the socket closes), as
 * udp_flush_pending_frames: its pieces' notifications, their slots free. */
static void cork_flush(struct tx_state *tx)
{
	if (tx->cork_head)
		chain_done(tx, (uint16_t)(tx->cork_head - 1));
	tx->cork_head = tx->cork_tail = 0;
	tx->cork_len = tx->cork_nseg = tx->cork_nslot = 0;
}

/* A MSG_MORE send on a datagram socket: its slot joins the pending datagram. */
static int cork_add(struct tx_state *tx, const struct send_pdu *p, uint16_t idx)
{
	struct tx_slot *sl = &tx->slot[idx];

	if (!tx->cork_head) {
		tx->cork_head = (uint16_t)(idx + 1);
		tx->cork_dst = p->dst;
	} else {
		tx->slot[tx->cork_tail - 1].cork_next = (uint16_t)(idx + 1);
	}
	tx->cork_tail = (uint16_t)(idx + 1);
	tx->cork_len += sl->len;
	tx->cork_nseg += sl->nseg;
	tx->cork_nslot++;
	slot_take(sl, p);
	return (int)sl->len;
}

/* The pieces of the pending datagram and slot idx's, as one segment list:
 * the pieces as they are, or copied together into one bounce buffer when
 * they are more than a frame takes. */
static int cork_gather(struct tx_state *tx, uint16_t idx, const struct zn_net_seg **segs,
		       uint32_t *nseg)
{
	struct tx_slot *last = &tx->slot[idx];
	uint32_t k = 0, off = 0;
	uint64_t iova;
	int rc;

	if (tx->cork_nseg + last->nseg <= ZN_UDP_MAX_SEGS) {
		for (uint16_t n = tx->cork_head; n; n = tx->slot[n - 1].cork_next)
			for (uint32_t i = 0; i < tx->slot[n - 1].nseg; i++)
				tx->cork_seg[k++] = tx->slot[n - 1].seg[i];
		for (uint32_t i = 0; i < last->nseg; i++)
			tx->cork_seg[k++] = last->seg[i];
		*segs = tx->cork_seg;
		*nseg = k;
		return 0;
	}
	if (!last->gather) {
		rc = zn_net_bounce_get(tx->nd, tx->cork_len + last->len, &last->gather, &iova);
		if (rc)
			return rc;
		for (uint16_t n = tx->cork_head; n; n = tx->slot[n - 1].cork_next) {
			struct tx_slot *sl = &tx->slot[n - 1];

			for (uint32_t i = 0; i < sl->nseg; off += sl->seg[i++].len)
				memcpy((uint8_t *)last->gather + off, sl->seg[i].va, sl->seg[i].len);
			sl->copied = true;
		}
		for (uint32_t i = 0; i < last->nseg; off += last->seg[i++].len)
			memcpy((uint8_t *)last->gather + off, last->seg[i].va, last->seg[i].len);
		last->copied = true;
		tx->cork_seg[0] = (struct zn_net_seg){ .iova = iova, .va = last->gather, .len = off };
	}
	*segs = tx->cork_seg;
	*nseg = 1;
	return 0;
}

/*
 * One attempt: bytes queued (>= 0), -EAGAIN (wait; a captured slot stays
 * with the request), or another -errno (nothing held any more).
 */
static int try_one(struct tx_state *tx, struct zn_uring_req *req)
{
	struct send_pdu *p = PDU(req);
	const struct net_dst *d = &p->dst;
	const struct zn_net_seg *segs;
	struct zn_addr4 dst = { 0 };
	bool stream = tx->s->proto->stream, more = p->msg_flags & MSG_MORE;
	struct tx_slot *sl;
	uint32_t nseg;
	uint16_t idx, head;
	int rc;

	/* a pending datagram goes where its first piece said (udp_sendmsg
	 * appends before it looks at the address) */
	if (!stream && tx->cork_head)
		d = &tx->cork_dst;
	if (d->state == NET_DST_BAD)
		return d->err;
	if (!p->slot) {
		/* the last free slot is kept for the send that ends a datagram */
		if (!stream && more && tx->cork_nslot + 1 >= ZN_SOCK_SEND_MAX)
			return -ENOBUFS;
		sl = slot_alloc(tx, &idx);
		if (!sl)
			return -EAGAIN;
		rc = capture(tx, req, sl);
		if (rc) {
			slot_release(tx, idx);
			/* ip_append_data failed: udp_sendmsg drops the datagram */
			if (rc != -EAGAIN && !stream)
				cork_flush(tx);
			return rc;
		}
		if (!stream && more)
			return cork_add(tx, p, idx);
		p->slot = (uint16_t)(idx + 1);
	}
	idx = (uint16_t)(p->slot - 1);
	sl = &tx->slot[idx];
	segs = sl->seg;
	nseg = sl->nseg;
	head = idx;
	if (!stream && tx->cork_head) {
		rc = cork_gather(tx, idx, &segs, &nseg);
		if (rc == -EAGAIN)
			return rc;
		if (rc) {
			p->slot = 0;
			slot_release(tx, idx);
			cork_flush(tx);
			return rc;
		}
		head = (uint16_t)(tx->cork_head - 1);
	}
	if (d->state == NET_DST_OK) {
		dst.ip = d->ip;
		dst.port = d->port;
	}
	rc = zn_sock_send(tx->s, d->state == NET_DST_OK ? &dst : NULL, segs, nseg, head,
			  stream && more);
	if (rc == -EAGAIN)
		return rc;
	p->slot = 0;
	if (rc) {
		slot_release(tx, idx);
		if (!stream)
			cork_flush(tx);
		/* core/net's "no destination" when we gave none: not connected */
		return rc == -EINVAL && d->state == NET_DST_NONE ? -EDESTADDRREQ : rc;
	}
	slot_take(sl, p);
	if (head != idx) {
		/* the datagram's last piece: one frame, one completion for all */
		tx->slot[tx->cork_tail - 1].cork_next = (uint16_t)(idx + 1);
		tx->cork_head = tx->cork_tail = 0;
		tx->cork_len = tx->cork_nseg = tx->cork_nslot = 0;
	}
	tx->slot[head].busy = true;
	tx->inflight++;
	return (int)sl->len;
}

static void wait_drop_slot(struct tx_state *tx, struct zn_uring_req *req);

/*
 * A stream send, piece after piece from where the last one ended, as
 * io_send with done_io: the whole request is queued, or -EAGAIN with
 * nothing queued yet (wait), or with MSG_WAITALL (wait for the rest:
 * io_net_retry). Else what was queued ends it: a full send queue
 * without MSG_WAITALL (tcp_sendmsg's short non-blocking send) or an
 * error after some bytes (the bytes, not the error).
 */
static int try_send(struct tx_state *tx, struct zn_uring_req *req)
{
	struct send_pdu *p = PDU(req);
	int rc = -EAGAIN;

	if (!tx->s->proto->stream)
		return try_one(tx, req);
	for (uint32_t i = 0; i < ZN_SOCK_SEND_MAX; i++) {
		rc = try_one(tx, req);
		if (rc < 0)
			break;
		p->done += (uint32_t)rc;
		if (p->last)
			return (int)p->done;
	}
	if (rc >= 0)
		rc = -EAGAIN;	/* every slot went: the rest on the next pass */
	if (!p->done || (rc == -EAGAIN && (p->msg_flags & MSG_WAITALL) &&
			 !(p->msg_flags & MSG_DONTWAIT)))
		return rc;
	wait_drop_slot(tx, req);
	p->own_notif = IS_ZC(p);
	return (int)p->done;
}

static void wait_push(struct tx_state *tx, struct zn_uring_req *req)
{
	PDU(req)->next = NULL;
	PDU(req)->tx = tx;
	if (tx->wait_tail)
		PDU(tx->wait_tail)->next = req;
	else
		tx->wait_head = req;
	tx->wait_tail = req;
}

static struct zn_uring_req *wait_pop(struct tx_state *tx)
{
	struct zn_uring_req *req = tx->wait_head;

	if (req) {
		tx->wait_head = PDU(req)->next;
		if (!tx->wait_head)
			tx->wait_tail = NULL;
		PDU(req)->tx = NULL;
	}
	return req;
}

static void wait_drop_slot(struct tx_state *tx, struct zn_uring_req *req)
{
	if (PDU(req)->slot) {
		slot_release(tx, (uint16_t)(PDU(req)->slot - 1));
		PDU(req)->slot = 0;
	}
}

/* A waiting request's outcome: its CQE now, and for a failed ZC send the
 * notification right behind it. */
static void finish_async(struct zn_uring_req *req, int rc)
{
	struct send_pdu *p = PDU(req);
	struct zn_uring *r = req->ring;
	uint64_t ud = p->notif_ud;
	bool zc = IS_ZC(p);
	bool report = p->flags & IORING_SEND_ZC_REPORT_USAGE;

	bool own = p->own_notif;

	zn_uring_req_complete(req, rc, zc ? IORING_CQE_F_MORE : 0);
	/* req may be gone now (its link went on) */
	if (zc && (rc < 0 || own))
		zn_uring_post_cqe(r, ud, notif_res(report, true), IORING_CQE_F_NOTIF, NULL, 0);
}

/*
 * A send's completion, straight from the protocol's TX reap with the
 * cookie try_send gave it (the slot index): the one place a send ends.
 */
static void send_done(struct zn_sock *s, uint64_t cookie, int32_t status)
{
	(void)status;	/* dropped frames are notified too: the buffers are free */
	slot_done(s->tx_priv, (uint16_t)cookie);
}

/* The binding's poll, after the netdev's (whose completions freed room):
 * the waiters, in order. */
static void tx_serve(struct zn_sock *s)
{
	struct tx_state *tx = s->tx_priv;
	struct zn_uring_req *req;

	if (!tx || !tx->wait_head)
		return;
	while ((req = tx->wait_head)) {
		int rc = try_send(tx, req);

		if (rc == -EAGAIN && !(PDU(req)->msg_flags & MSG_DONTWAIT))
			break;
		wait_pop(tx);
		finish_async(req, rc);
	}
}

/* The socket closes or its ring exits: waiters are cancelled, frames on the
 * NIC are waited for (their notifications posted while the ring lives). */
static void tx_fini(struct zn_sock *s)
{
	struct tx_state *tx = s->tx_priv;
	struct zn_uring_req *req;
	uint64_t end;

	if (!tx)
		return;
	while ((req = wait_pop(tx))) {
		wait_drop_slot(tx, req);
		/* a stream send part way: what went (io_sendrecv_fail's done_io) */
		if (PDU(req)->done) {
			PDU(req)->own_notif = IS_ZC(PDU(req));
			finish_async(req, (int)PDU(req)->done);
		} else {
			zn_uring_req_complete(req, -ECANCELED, 0);
		}
	}
	cork_flush(tx);	/* a datagram never ended: dropped, as udp_destroy_sock */
	end = zn_now_ms() + TX_DRAIN_MS;
	while (tx->inflight && zn_now_ms() <= end)
		zn_netdev_poll(s->dev);
	if (tx->inflight) {
		ZN_WARN(SEND_LOG, "socket %d: the NIC did not complete %u sends within %u ms of "
			"close; their buffers are released now (the device may still read them)",
			s->handle, tx->inflight, TX_DRAIN_MS);
		zn_sock_tx_forget(s);
		for (uint16_t i = 0; i < ZN_SOCK_SEND_MAX; i++)
			if (tx->slot[i].busy)
				slot_done(tx, i);
	}
	zn_net_dev_put(tx->nd);
	free(tx);
	s->tx_priv = NULL;
	s->tx_done = NULL;
	s->ring_gone = NULL;
}

/* Ring r exits while the socket lives on with another ring of the thread:
 * the sends r made complete without a notification to post. */
static void tx_ring_gone(struct zn_sock *s, struct zn_uring *r)
{
	struct tx_state *tx = s->tx_priv;

	if (!tx)
		return;
	for (uint16_t i = 0; i < ZN_SOCK_SEND_MAX; i++)
		if (tx->slot[i].ring == r)	/* in flight or in a cork */
			tx->slot[i].notif = false;
}

uint32_t zn_sock_tx_inflight(struct zn_sock *s)
{
	struct tx_state *tx = s->tx_priv;

	return tx ? tx->inflight : 0;
}

bool zn_sock_tx_room(struct zn_sock *s)
{
	struct tx_state *tx = s->tx_priv;

	return !tx || tx->nfree;
}

static struct tx_state *tx_get(struct zn_sock *s)
{
	struct tx_state *tx = s->tx_priv;
	const struct zn_netdev_conf *c;

	if (tx)
		return tx;
	tx = calloc(1, sizeof(*tx));
	if (!tx)
		return NULL;
	tx->nd = zn_net_dev_get(s->dev);
	if (!tx->nd) {
		free(tx);
		return NULL;
	}
	c = zn_netdev_conf(s->dev);
	tx->s = s;
	/* a stream's send is cut into segments below: no message limit */
	tx->mtu_payload = s->proto->stream ? UINT32_MAX : c->mtu - ZN_IPV4_HLEN - ZN_UDP_HLEN;
	for (uint16_t i = 0; i < ZN_SOCK_SEND_MAX; i++)
		tx->slot[i].next_free = (uint16_t)(i + 1);
	tx->nfree = ZN_SOCK_SEND_MAX;
	s->tx_priv = tx;
	s->tx_serve = tx_serve;
	s->tx_done = send_done;
	s->tx_fini = tx_fini;
	s->ring_gone = tx_ring_gone;
	return tx;
}

/* ---- the ops -------------------------------------------------------------------- */

/* A ZC send that failed before reaching the NIC (its result CQE is posted
 * when issue returns): F_MORE on it, and its notification after it. */
static void zc_fail(struct zn_uring_req *req)
{
	struct send_pdu *p = PDU(req);

	if (!zn_net_notif_defer(req->ring, p->notif_ud,
				notif_res(p->flags & IORING_SEND_ZC_REPORT_USAGE, true)))
		req->cflags = IORING_CQE_F_MORE;
}

static int send_issue(struct zn_uring_req *req)
{
	struct send_pdu *p = PDU(req);
	struct zn_sock *s = zn_sock_of_req(req);
	struct tx_state *tx;
	int rc;

	if (p->err) {
		rc = p->err;
		goto out;
	}
	if (!s) {
		rc = zn_sock_req_err(req);
		goto out;
	}
	rc = msg_flags_check(p->msg_flags);
	if (rc)
		goto out;
	if (!s->dev) {
		/* no netdev yet (IORING_OP_SOCKET): a UDP send to an address
		 * binds like inet_autobind; a stream is not connected */
		rc = s->proto->stream ? -EPIPE : p->dst.state == NET_DST_NONE ? -EDESTADDRREQ :
		     p->dst.state == NET_DST_BAD ? p->dst.err : zn_sock_autobind(s, p->dst.ip);
		if (rc)
			goto out;
	}
	rc = zn_sock_bind(s, req->ring);
	if (rc)
		goto out;
	tx = tx_get(s);
	if (!tx) {
		rc = -ENOMEM;
		goto out;
	}
	/* behind earlier waiters, or asked to wait for the next poll */
	if (tx->wait_head || (p->flags & IORING_RECVSEND_POLL_FIRST)) {
		if (tx->wait_head && (p->msg_flags & MSG_DONTWAIT)) {
			rc = -EAGAIN;
			goto out;
		}
		wait_push(tx, req);
		return ZN_URING_ISSUE_ASYNC;
	}
	rc = try_send(tx, req);
	if (rc == -EAGAIN && !(p->msg_flags & MSG_DONTWAIT)) {
		wait_push(tx, req);
		return ZN_URING_ISSUE_ASYNC;
	}
out:
	req->res = rc;
	if (IS_ZC(p)) {
		if (rc >= 0 && !p->own_notif)
			req->cflags = IORING_CQE_F_MORE;	/* the slot posts the notification */
		else
			zc_fail(req);
	}
	return ZN_URING_ISSUE_DONE;
}

static void send_cancel(struct zn_uring_req *req)
{
	struct send_pdu *p = PDU(req);
	struct tx_state *tx = p->tx;
	struct zn_uring_req **pp;

	if (!tx)
		return;
	for (pp = &tx->wait_head; *pp; pp = &PDU(*pp)->next)
		if (*pp == req) {
			*pp = p->next;
			break;
		}
	tx->wait_tail = NULL;
	for (struct zn_uring_req *q = tx->wait_head; q; q = PDU(q)->next)
		tx->wait_tail = q;
	wait_drop_slot(tx, req);
	p->tx = NULL;
}

/* sqe->addr2/addr_len, the "sendto" form. */
static int dst_from_sqe(struct send_pdu *p, const struct io_uring_sqe *sqe)
{
	if (!sqe->addr2)
		return 0;
	return zn_net_dst_read((const void *)(uintptr_t)sqe->addr2, sqe->addr_len, &p->dst);
}

static void pdu_init(struct zn_uring_req *req, const struct io_uring_sqe *sqe, uint8_t kind)
{
	struct send_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->addr = sqe->addr;
	p->len = sqe->len;
	p->flags = sqe->ioprio;
	p->msg_flags = sqe->msg_flags;
	p->notif_ud = req->user_data;
}

static int send_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct send_pdu *p = PDU(req);

	pdu_init(req, sqe, K_SEND);
	if ((int32_t)sqe->len < 0)
		return -EINVAL;
	if (p->flags & ~SEND_IOPRIO)
		return -EINVAL;
	if ((p->flags & IORING_RECVSEND_FIXED_BUF) &&
	    (p->flags & (IORING_RECVSEND_BUNDLE | IORING_SEND_VECTORIZED)))
		return -EINVAL;
	if (p->flags & IORING_RECVSEND_BUNDLE) {
		ZN_LOG_RL(ZN_LOG_WARN, SEND_LOG, "SEND with IORING_RECVSEND_BUNDLE needs provided "
			  "buffers, which zcnic does not offer: -EINVAL");
		return -EINVAL;
	}
	p->buf_index = sqe->buf_index;
	if (sqe->__pad3[0])
		return -EINVAL;
	if (p->flags & IORING_SEND_VECTORIZED) {
		if (p->len > NET_MAX_IOV)
			return -EINVAL;
		p->vec = 1;
	}
	return dst_from_sqe(p, sqe);
}

/*
 * A ZC send that fails after the point where the kernel allocated its
 * notification: the failure is reported at issue, where its result CQE
 * is certain to be posted before the notification (a failure at prep
 * could have its CQE suppressed by a CQE_SKIP_SUCCESS link head, and the
 * notification would come alone). Departure: such a send fails as its
 * chain reaches it, not at submission.
 */
static int zc_later(struct send_pdu *p, int err)
{
	p->err = (int16_t)err;
	return 0;
}

/* SENDMSG and SENDMSG_ZC: the msghdr, read now as the kernel copies it at
 * prep (io_sendmsg_setup, __copy_msghdr): 0 or -errno. */
static int msghdr_prep(struct send_pdu *p, const struct io_uring_sqe *sqe)
{
	struct msghdr m;
	int rc;

	if (sqe->addr2 || sqe->file_index)
		return -EINVAL;
	if (zn_ucopy_from(&m, (const void *)(uintptr_t)sqe->addr, sizeof(m)))
		return -EFAULT;
	if (m.msg_name) {
		/* a negative length -EINVAL, a longer one cut to
		 * sockaddr_storage; udp_sendmsg judges what is left */
		int nl = (int)m.msg_namelen;

		if (nl < 0)
			return -EINVAL;
		rc = zn_net_dst_read(m.msg_name, nl > (int)sizeof(struct sockaddr_storage) ?
				     (int)sizeof(struct sockaddr_storage) : nl, &p->dst);
		if (rc)
			return rc;
	}
	if (m.msg_controllen) {
		ZN_LOG_RL(ZN_LOG_WARN, SEND_LOG, "SENDMSG with control messages: zcnic sockets "
			  "take none: -EINVAL");
		return -EINVAL;
	}
	if (m.msg_iovlen > NET_MAX_IOV)
		return -EMSGSIZE;
	p->addr = (uintptr_t)m.msg_iov;
	p->len = (uint32_t)m.msg_iovlen;
	p->vec = 1;
	return 0;
}

/* SEND_ZC and SENDMSG_ZC, io_send_zc_prep's order. */
static int zc_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe, uint8_t kind)
{
	struct send_pdu *p = PDU(req);
	int rc;

	pdu_init(req, sqe, kind);
	if (sqe->__pad2[0] || sqe->addr3)
		return -EINVAL;
	if (req->sqe_flags & IOSQE_CQE_SKIP_SUCCESS)
		return -EINVAL;	/* the kernel does not support it "just yet" */
	/* from here on the kernel holds a notification: failures get one */
	if (p->flags & ~ZC_IOPRIO) {
		p->flags = 0;	/* rejected before REPORT_USAGE took effect */
		return zc_later(p, -EINVAL);
	}
	p->buf_index = sqe->buf_index;
	if (kind == K_SEND_ZC) {
		if (sqe->__pad3[0])
			return zc_later(p, -EINVAL);
		rc = dst_from_sqe(p, sqe);
		if (rc)
			return zc_later(p, rc);
		if (p->flags & IORING_SEND_VECTORIZED) {
			if (p->len > NET_MAX_IOV)
				return zc_later(p, -EINVAL);
			p->vec = 1;
		}
		return 0;
	}
	rc = msghdr_prep(p, sqe);
	return rc ? zc_later(p, rc) : 0;
}

/* SENDMSG, io_sendmsg_prep's order: copied like SEND, no notification. */
static int sendmsg_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct send_pdu *p = PDU(req);

	pdu_init(req, sqe, K_SENDMSG);
	if (p->flags & ~SENDMSG_IOPRIO)
		return -EINVAL;
	if (p->flags & IORING_RECVSEND_BUNDLE)
		return -EINVAL;
	return msghdr_prep(p, sqe);
}

static int send_zc_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	return zc_prep(req, sqe, K_SEND_ZC);
}

static int sendmsg_zc_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	return zc_prep(req, sqe, K_SENDMSG_ZC);
}

const struct zn_uring_op zn_send_op = {
	.name = "SEND", .flags = ZN_URING_OP_NEEDS_FILE,
	.prep = send_prep, .issue = send_issue, .cancel = send_cancel,
};

const struct zn_uring_op zn_sendmsg_op = {
	.name = "SENDMSG", .flags = ZN_URING_OP_NEEDS_FILE,
	.prep = sendmsg_prep, .issue = send_issue, .cancel = send_cancel,
};

const struct zn_uring_op zn_send_zc_op = {
	.name = "SEND_ZC", .flags = ZN_URING_OP_NEEDS_FILE,
	.prep = send_zc_prep, .issue = send_issue, .cancel = send_cancel,
};

const struct zn_uring_op zn_sendmsg_zc_op = {
	.name = "SENDMSG_ZC", .flags = ZN_URING_OP_NEEDS_FILE,
	.prep = sendmsg_zc_prep, .issue = send_issue, .cancel = send_cancel,
};
