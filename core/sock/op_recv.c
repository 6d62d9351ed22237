/* SPDX-License-Identifier: MIT */
/*
 * IORING_OP_RECV and IORING_OP_RECVMSG on zcnic sockets: UDP, the next
 * datagram copied into (addr, len) or the msghdr's iovecs; TCP, the bytes
 * there are up to len (0 at EOF, the connection's error once after it
 * failed); with MSG_WAITALL the request waits until len bytes came (or
 * all the iovecs hold), completing earlier only at EOF or an error with
 * the bytes received (recv_waitall). RECVMSG writes back what
 * ____sys_recvmsg does: msg_name (the datagram's source, cut to
 * msg_namelen) and msg_namelen (16; 0 for a stream), msg_flags (MSG_TRUNC
 * for a cut datagram), msg_controllen 0; its iovecs (at most 64, else
 * -EINVAL, logged; above UIO_MAXIOV -EMSGSIZE) are read when data is
 * there, the msghdr at prep too. Requests are served in submission order per socket; one
 * that finds nothing waits (in flight) until the socket's binding sees a
 * datagram on the endpoint and calls rx_serve.
 *
 * Validation follows the kernel's io_recvmsg_prep / io_recv:
 * addr2 != 0, len < 0, ioprio outside POLL_FIRST|MULTISHOT|BUNDLE|
 * FIXED_BUF, FIXED_BUF with MULTISHOT or BUNDLE, optlen without MULTISHOT:
 * -EINVAL. FIXED_BUF: (addr, len) must lie in registered buffer buf_index,
 * else -EFAULT (before anything is received). A buffer that cannot be
 * written gets -EFAULT and the datagram is dropped, as udp_recvmsg does.
 * res = bytes copied: a datagram longer than len is cut (the rest lost);
 * with MSG_TRUNC res is the datagram's real length, as UDP reports it.
 *
 * Provided buffers (IOSQE_BUFFER_SELECT, core/uring/kbuf.c), as io_recv:
 * the group's next buffer is taken when data is there (len, if not 0, caps
 * it; RECVMSG: the one iovec's length, more than one iovec -EINVAL); the
 * CQE names it (IORING_CQE_F_BUFFER | bid << IORING_CQE_BUFFER_SHIFT); a
 * result <= 0 gives it back, first in its group. As the kernel picks the
 * buffer before it looks for data, an empty group fails the issue with
 * -ENOBUFS at once (unless POLL_FIRST); data that finds the group empty
 * stays queued and the request ends with -ENOBUFS.
 * RECV multishot (IORING_RECV_MULTISHOT; needs BUFFER_SELECT, no
 * MSG_WAITALL, else -EINVAL): one CQE with IORING_CQE_F_MORE per datagram
 * or per buffer's worth of stream, until a result <= 0 ends it without
 * F_MORE: -ENOBUFS (group dry), 0 (EOF; also a UDP datagram of 0 bytes, as
 * Linux), an error; optlen, if not 0, is the total byte budget, the CQE
 * that spends it is the last.
 *
 * RECVMSG multishot (also needs BUFFER_SELECT): each buffer holds struct
 * io_uring_recvmsg_out, the name and control areas the msghdr sizes (read
 * at prep), then the payload (recvmsg_mshot_into).
 * Not offered (-EINVAL, one log line): BUNDLE.
 * msg_flags: MSG_DONTWAIT (nothing there: -EAGAIN), MSG_TRUNC, MSG_WAITALL
 * (a datagram is whole anyway), MSG_NOSIGNAL, MSG_CMSG_CLOEXEC accepted;
 * MSG_ERRQUEUE -EAGAIN (the error queue is always empty); others -EINVAL.
 * A socket closing with RECVs waiting completes them with -ECANCELED.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/sock/net_ops.h"
#include "zcnic/log.h"

#define RECV_LOG	"uring-recv"
#define RECV_IOPRIO	(IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT |	\
			 IORING_RECVSEND_BUNDLE | IORING_RECVSEND_FIXED_BUF)
#define RECVMSG_MAX_IOV	64
#define RECV_MSG_OK	(MSG_DONTWAIT | MSG_TRUNC | MSG_WAITALL | MSG_NOSIGNAL | MSG_CMSG_CLOEXEC)

struct recv_pdu {
	uint64_t addr;			/* buffer, or msghdr (RECVMSG) */
	struct zn_uring_req *next;	/* the socket's wait FIFO */
	struct rx_state *rx;		/* while waiting */
	uint32_t len;
	uint32_t msg_flags;
	uint32_t mshot_left;		/* multishot byte budget (mshot_lim) */
	uint16_t flags;
	uint16_t buf_index;
	uint8_t msg;			/* RECVMSG */
	uint8_t bsel;			/* IOSQE_BUFFER_SELECT */
	uint8_t mshot;			/* IORING_RECV_MULTISHOT */
	uint8_t mshot_lim;		/* mshot_left counts */
	uint8_t mshot_end;		/* RECVMSG multishot: this CQE is the last */
	uint32_t mnamelen, mctrllen;	/* RECVMSG multishot: the buffer's layout */
	uint32_t done;			/* MSG_WAITALL on a stream: bytes received so far */
};
_Static_assert(sizeof(struct recv_pdu) <= ZN_URING_REQ_PDU, "recv pdu too big");

#define PDU(req) ((struct recv_pdu *)(req)->pdu)

struct rx_state {
	struct zn_sock *s;
	struct zn_uring_req *wait_head, *wait_tail;
};

/*
 * Where received bytes go: RECV's one buffer, or RECVMSG's iovecs (read
 * from the msghdr when the data is there; at most RECVMSG_MAX_IOV).
 */
struct sink {
	struct iovec v[RECVMSG_MAX_IOV];
	uint32_t n;
	uint64_t cap;
};

static int sink_init(const struct recv_pdu *p, struct sink *k, struct msghdr *m,
		     void *buf, uint32_t blen)
{
	k->cap = 0;
	if (p->msg && zn_ucopy_from(m, (const void *)(uintptr_t)p->addr, sizeof(*m)))
		return -EFAULT;
	if (!p->msg || p->bsel) {
		if (!p->bsel) {
			buf = (void *)(uintptr_t)p->addr;
			blen = p->len;
		}
		k->v[0] = (struct iovec){ buf, blen };
		k->n = 1;
		k->cap = blen;
		return 0;
	}
	if (m->msg_iovlen > RECVMSG_MAX_IOV)
		return -EMSGSIZE;
	k->n = (uint32_t)m->msg_iovlen;
	if (k->n && zn_ucopy_from(k->v, m->msg_iov, k->n * sizeof(k->v[0])))
		return -EFAULT;
	for (uint32_t i = 0; i < k->n; i++) {
		if ((ssize_t)k->v[i].iov_len < 0)
			return -EINVAL;
		k->cap += k->v[i].iov_len;
	}
	if (k->cap > INT32_MAX)
		k->cap = INT32_MAX;
	return 0;
}

/* The sink without its first skip bytes (a MSG_WAITALL receive's rest). */
static void sink_skip(struct sink *k, uint64_t skip)
{
	uint32_t i = 0, j = 0;

	k->cap -= skip < k->cap ? skip : k->cap;
	for (; i < k->n; i++) {
		if (skip >= k->v[i].iov_len) {
			skip -= k->v[i].iov_len;
			continue;
		}
		k->v[j].iov_base = (uint8_t *)k->v[i].iov_base + skip;
		k->v[j++].iov_len = k->v[i].iov_len - skip;
		skip = 0;
	}
	k->n = j;
}

/* Copy len bytes to offset off of the sink (off + len <= cap). */
static int sink_put(const struct sink *k, uint64_t off, const uint8_t *src, uint32_t len)
{
	for (uint32_t i = 0; i < k->n && len; i++) {
		uint64_t l = k->v[i].iov_len, n;

		if (off >= l) {
			off -= l;
			continue;
		}
		n = l - off < len ? l - off : len;
		if (zn_ucopy_to((uint8_t *)k->v[i].iov_base + off, src, n))
			return -EFAULT;
		src += n;
		len -= (uint32_t)n;
		off = 0;
	}
	return 0;
}

/* RECVMSG's answers in the user's msghdr, as ____sys_recvmsg writes them:
 * the source address (datagrams; a stream has none: namelen 0), the
 * flags, no control data. */
static int msg_out(const struct recv_pdu *p, struct msghdr *m, const struct zn_addr4 *src,
		   int flags)
{
	struct msghdr *um = (struct msghdr *)(uintptr_t)p->addr;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t klen = src ? sizeof(sin) : 0;
	size_t zero = 0;

	if (m->msg_name) {
		if (src) {
			uint32_t n = m->msg_namelen < klen ? m->msg_namelen : klen;

			sin.sin_port = src->port;
			sin.sin_addr.s_addr = src->ip;
			if (n && zn_ucopy_to(m->msg_name, &sin, n))
				return -EFAULT;
		}
		if (zn_ucopy_to(&um->msg_namelen, &klen, sizeof(klen)))
			return -EFAULT;
	}
	if (zn_ucopy_to(&um->msg_flags, &flags, sizeof(flags)) ||
	    zn_ucopy_to(&um->msg_controllen, &zero, sizeof(zero)))
		return -EFAULT;
	return 0;
}

/* A stream: the bytes there are, up to the sink's room, across descriptors
 * (a descriptor longer than what is left is cut, the rest stays queued);
 * none: 0 at EOF, the connection's error, or -EAGAIN. */
static int recv_stream(struct zn_sock *s, const struct sink *k)
{
	struct zn_udp_rx d;
	uint32_t off = 0;
	int rc = 0;

	while (off < k->cap && !rc && zn_sock_recv_max(s, &d, 1, (uint32_t)(k->cap - off))) {
		for (uint32_t i = 0; i < d.nseg; i++) {
			const uint8_t *src = zn_sock_rx_data(s, &d, i);

			if (!src) {
				rc = -EIO;
				break;
			}
			if (sink_put(k, off, src, d.seg[i].len)) {
				rc = -EFAULT;
				break;
			}
			off += d.seg[i].len;
		}
		zn_sock_rx_release(s, &d);
	}
	if (off)
		return (int)off;
	if (rc)
		return rc;
	rc = zn_sock_rx_eof(s);
	return rc > 0 || !k->cap ? 0 : rc < 0 ? rc : -EAGAIN;
}

/*
 * One datagram (or a stream's bytes) into the sink: the bytes copied, or
 * -errno. A datagram's length and source go to *dlen and *src; *dlen stays
 * as it was for a stream and for the EOF of a socket shut for reading.
 */
static int recv_sink(struct zn_sock *s, const struct sink *k, struct zn_addr4 *src,
		     uint32_t *dlen)
{
	struct zn_udp_rx d;
	uint32_t off = 0;
	int rc = 0;

	if (s->proto->stream)
		return recv_stream(s, k);
	if (s->rd_shut && !s->proto->rx_pending(s))
		return 0;	/* shut for reading, nothing left */
	if (!zn_sock_recv(s, &d, 1))
		return -EAGAIN;
	for (uint32_t i = 0; i < d.nseg && off < k->cap; i++) {
		const uint8_t *src_b = zn_sock_rx_data(s, &d, i);
		uint32_t n;

		if (!src_b) {	/* also past the segments a descriptor can hold */
			rc = -EIO;
			break;
		}
		n = d.seg[i].len < k->cap - off ? d.seg[i].len : (uint32_t)(k->cap - off);
		if (sink_put(k, off, src_b, n)) {
			rc = -EFAULT;
			break;
		}
		off += n;
	}
	zn_sock_rx_release(s, &d);
	if (rc)
		return rc;
	*src = d.src;
	*dlen = d.len;
	return (int)off;
}

#define NO_DGRAM UINT32_MAX

/* MSG_WAITALL waits for the whole length on a stream (io_net_retry); with
 * a provided buffer it does not (one buffer, one receive). */
static bool waitall(const struct zn_sock *s, const struct recv_pdu *p)
{
	return s->proto->stream && (p->msg_flags & MSG_WAITALL) && !p->bsel && !p->mshot;
}

/*
 * A stream receive with MSG_WAITALL, as io_recv with done_io: the bytes
 * add up until the sink is full (its whole length), -EAGAIN while more
 * are needed (the request waits, first in line); EOF or an error after
 * some bytes ends it with the bytes (the error is taken, as tcp_recvmsg
 * does: the next receive sees EOF); MSG_DONTWAIT ends it with what came.
 */
static int recv_waitall(struct zn_sock *s, struct zn_uring_req *req, struct sink *k,
			struct msghdr *m)
{
	struct recv_pdu *p = PDU(req);
	uint64_t want;
	int rc;

	sink_skip(k, p->done);
	want = k->cap;
	rc = recv_sink(s, k, NULL, NULL);
	if (rc > 0) {
		p->done += (uint32_t)rc;
		if ((uint64_t)rc < want && !(p->msg_flags & MSG_DONTWAIT))
			return -EAGAIN;
	}
	if (rc < 0 && (!p->done || (rc == -EAGAIN && !(p->msg_flags & MSG_DONTWAIT))))
		return rc;
	if (p->msg && msg_out(p, m, NULL, 0))
		return -EFAULT;
	return (int)p->done;
}

/* Take one datagram (or a stream's bytes) into (buf, blen) (a provided
 * buffer) or the request's own buffers: the CQE's res. */
static int recv_into(struct zn_sock *s, struct zn_uring_req *req, void *buf, uint32_t blen)
{
	struct recv_pdu *p = PDU(req);
	struct zn_addr4 src = { 0 };
	uint32_t dlen = NO_DGRAM;
	struct sink k;
	struct msghdr m;
	int rc;

	rc = sink_init(p, &k, &m, buf, blen);
	if (rc)
		return rc;
	if (waitall(s, p))
		return recv_waitall(s, req, &k, &m);
	rc = recv_sink(s, &k, &src, &dlen);
	if (rc < 0)
		return rc;
	if (s->proto->stream) {
		if (p->msg && msg_out(p, &m, NULL, 0))
			return -EFAULT;
		return rc;
	}
	if (dlen == NO_DGRAM)
		return rc;
	if (p->msg && msg_out(p, &m, &src, (uint32_t)rc < dlen ? MSG_TRUNC : 0))
		return -EFAULT;
	return (int)((p->msg_flags & MSG_TRUNC) ? dlen : (uint32_t)rc);
}

/*
 * Multishot RECVMSG, as io_recvmsg_multishot: the provided buffer gets
 * struct io_uring_recvmsg_out, then msg_namelen bytes for the source
 * address (cut to them; namelen says its real length, 0 for a stream),
 * msg_controllen bytes of control area (left empty: no control messages
 * here, controllen 0), then the payload (payloadlen: the bytes copied, or
 * the datagram's real length with MSG_TRUNC asked; flags MSG_TRUNC when it
 * was cut). res = header + name + control + payload bytes; a buffer that
 * cannot hold the first three: -EFAULT. A payload of 0 bytes (EOF, an empty
 * datagram) ends the multishot.
 */
static int recvmsg_mshot_into(struct zn_sock *s, struct zn_uring_req *req, uint8_t *buf,
			      uint32_t blen)
{
	struct recv_pdu *p = PDU(req);
	uint64_t hdr = sizeof(struct io_uring_recvmsg_out) + (uint64_t)p->mnamelen + p->mctrllen;
	struct io_uring_recvmsg_out out = { 0 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct zn_addr4 src = { 0 };
	uint32_t dlen = NO_DGRAM, n;
	struct sink k;
	int rc;

	if (blen < hdr)
		return -EFAULT;
	k.v[0] = (struct iovec){ buf + hdr, blen - hdr };
	k.n = 1;
	k.cap = blen - hdr;
	rc = recv_sink(s, &k, &src, &dlen);
	if (rc < 0)
		return rc;
	out.payloadlen = (uint32_t)rc;
	if (!s->proto->stream && dlen != NO_DGRAM) {
		out.namelen = sizeof(sin);
		if ((uint32_t)rc < dlen)
			out.flags = MSG_TRUNC;
		if (p->msg_flags & MSG_TRUNC)
			out.payloadlen = dlen;
		sin.sin_port = src.port;
		sin.sin_addr.s_addr = src.ip;
		n = p->mnamelen < sizeof(sin) ? p->mnamelen : sizeof(sin);
		if (n && zn_ucopy_to(buf + sizeof(out), &sin, n))
			return -EFAULT;
	}
	if (zn_ucopy_to(buf, &out, sizeof(out)))
		return -EFAULT;
	if (!rc)
		p->mshot_end = 1;
	return (int)(hdr + (uint64_t)rc);
}

/* recv_into, with a provided buffer picked first if the request selects
 * one: *cflags names the buffer that holds the result; none used (res <=
 * 0), it goes back to its group. */
static int recv_one(struct zn_sock *s, struct zn_uring_req *req, uint32_t *cflags)
{
	struct recv_pdu *p = PDU(req);
	uint32_t blen = p->len;
	void *buf = NULL;
	int bid, rc;

	*cflags = 0;
	if (!p->bsel)
		return recv_into(s, req, NULL, 0);
	if (p->mshot_lim && (!blen || blen > p->mshot_left))
		blen = p->mshot_left;
	bid = zn_uring_buf_select(req, &buf, &blen);
	if (bid < 0)
		return bid;
	if (p->msg && p->mshot)
		rc = recvmsg_mshot_into(s, req, buf, blen);
	else
		rc = recv_into(s, req, buf, blen);
	if (rc > 0)
		*cflags = zn_uring_buf_done(req, bid, (uint32_t)rc);
	else
		zn_uring_buf_recycle(req, bid);
	return rc;
}

/*
 * Serve req with the data there: true when it is finished with *res and
 * *cflags; false when a multishot RECV posted what there was (F_MORE) and
 * waits for more.
 */
static bool recv_serve(struct zn_sock *s, struct zn_uring_req *req, int *res, uint32_t *cflags)
{
	struct recv_pdu *p = PDU(req);
	int rc;

	for (;;) {
		rc = recv_one(s, req, cflags);
		if (!p->mshot) {
			if (rc == -EAGAIN && p->done)
				return false;	/* MSG_WAITALL: the rest to come */
			break;
		}
		if (rc == -EAGAIN)
			return false;
		if (rc <= 0 || p->mshot_end)
			break;
		if (p->mshot_lim) {
			p->mshot_left -= (uint32_t)rc < p->mshot_left ? (uint32_t)rc : p->mshot_left;
			if (!p->mshot_left)
				break;	/* the budget is spent: this CQE is the last */
		}
		zn_uring_post_cqe(req->ring, req->user_data, rc, *cflags | IORING_CQE_F_MORE,
				  NULL, 0);
		if (!zn_sock_rx_pending(s))
			return false;
	}
	*res = rc;
	return true;
}

/* The kernel takes the buffer before it looks for data: an empty group
 * fails the issue even with nothing received. The buffer goes back. */
static int buf_probe(struct zn_uring_req *req)
{
	struct recv_pdu *p = PDU(req);
	uint32_t len = p->len;
	void *addr;
	int bid = zn_uring_buf_select(req, &addr, &len);

	if (bid < 0)
		return bid;
	zn_uring_buf_recycle(req, bid);
	/* multishot RECVMSG: a buffer without room for the header fails now
	 * (io_recvmsg_prep_multishot runs right after the selection) */
	if (p->msg && p->mshot &&
	    len < sizeof(struct io_uring_recvmsg_out) + (uint64_t)p->mnamelen + p->mctrllen)
		return -EFAULT;
	return 0;
}

static void rx_push(struct rx_state *rx, struct zn_uring_req *req)
{
	PDU(req)->next = NULL;
	PDU(req)->rx = rx;
	if (rx->wait_tail)
		PDU(rx->wait_tail)->next = req;
	else
		rx->wait_head = req;
	rx->wait_tail = req;
}

static struct zn_uring_req *rx_pop(struct rx_state *rx)
{
	struct zn_uring_req *req = rx->wait_head;

	if (req) {
		rx->wait_head = PDU(req)->next;
		if (!rx->wait_head)
			rx->wait_tail = NULL;
		PDU(req)->rx = NULL;
	}
	return req;
}

/* Datagrams wait on the endpoint: hand them to the waiting RECVs in order. */
static void rx_serve(struct zn_sock *s)
{
	struct rx_state *rx = s->rx_priv;
	struct zn_uring_req *req;
	uint32_t cflags;
	int res;

	while (rx && (req = rx->wait_head) && zn_sock_rx_pending(s)) {
		if (!recv_serve(s, req, &res, &cflags))
			break;	/* a multishot stays first, waiting for more */
		rx_pop(rx);
		zn_uring_req_complete(req, res, cflags);
		rx = s->rx_priv;	/* a completed link may have gone on to anything */
	}
}

static void rx_fini(struct zn_sock *s)
{
	struct rx_state *rx = s->rx_priv;
	struct zn_uring_req *req;

	if (!rx)
		return;
	/* MSG_WAITALL part way: what came (io_sendrecv_fail's done_io) */
	while ((req = rx_pop(rx)))
		zn_uring_req_complete(req, PDU(req)->done ? (int)PDU(req)->done : -ECANCELED, 0);
	free(rx);
	s->rx_priv = NULL;
}

static struct rx_state *rx_get(struct zn_sock *s)
{
	struct rx_state *rx = s->rx_priv;

	if (rx)
		return rx;
	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return NULL;
	rx->s = s;
	s->rx_priv = rx;
	s->rx_serve = rx_serve;
	s->rx_fini = rx_fini;
	return rx;
}

static int recv_issue(struct zn_uring_req *req)
{
	struct recv_pdu *p = PDU(req);
	struct zn_sock *s = zn_sock_of_req(req);
	struct rx_state *rx;
	int rc;

	if (!s) {
		rc = zn_sock_req_err(req);
		goto out;
	}
	if (p->msg_flags & MSG_ERRQUEUE) {
		rc = -EAGAIN;
		goto out;
	}
	if (p->msg_flags & ~(uint32_t)RECV_MSG_OK) {
		ZN_LOG_RL(ZN_LOG_WARN, RECV_LOG, "RECV msg_flags 0x%x not supported (known: "
			  "MSG_DONTWAIT, MSG_TRUNC, MSG_WAITALL, MSG_NOSIGNAL, MSG_CMSG_CLOEXEC): "
			  "-EINVAL", p->msg_flags & ~(uint32_t)RECV_MSG_OK);
		rc = -EINVAL;
		goto out;
	}
	if (p->flags & IORING_RECVSEND_FIXED_BUF) {
		rc = zn_uring_fixed_buf(req->ring, p->buf_index, p->addr, p->len, NULL);
		if (rc)
			goto out;
	}
	rc = zn_sock_bind(s, req->ring);
	if (rc)
		goto out;
	rx = rx_get(s);
	if (!rx) {
		rc = -ENOMEM;
		goto out;
	}
	if (!(p->flags & IORING_RECVSEND_POLL_FIRST)) {
		if (!rx->wait_head && zn_sock_rx_pending(s)) {
			uint32_t cflags;

			if (recv_serve(s, req, &rc, &cflags)) {
				req->cflags = cflags;
				goto out;
			}
		} else if (p->bsel) {
			rc = buf_probe(req);
			if (rc)
				goto out;
		}
	}
	if (p->msg_flags & MSG_DONTWAIT) {
		rc = -EAGAIN;
		goto out;
	}
	rx_push(rx, req);
	return ZN_URING_ISSUE_ASYNC;
out:
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

static void recv_cancel(struct zn_uring_req *req)
{
	struct recv_pdu *p = PDU(req);
	struct rx_state *rx = p->rx;
	struct zn_uring_req **pp;

	if (!rx)
		return;
	for (pp = &rx->wait_head; *pp; pp = &PDU(*pp)->next)
		if (*pp == req) {
			*pp = p->next;
			break;
		}
	rx->wait_tail = NULL;
	for (struct zn_uring_req *q = rx->wait_head; q; q = PDU(q)->next)
		rx->wait_tail = q;
	p->rx = NULL;
}

static int recv_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct recv_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->addr2)
		return -EINVAL;
	p->addr = sqe->addr;
	p->len = sqe->len;
	if ((int32_t)p->len < 0)
		return -EINVAL;
	p->flags = sqe->ioprio;
	if (p->flags & ~RECV_IOPRIO)
		return -EINVAL;
	if ((p->flags & IORING_RECVSEND_FIXED_BUF) &&
	    ((req->sqe_flags & IOSQE_BUFFER_SELECT) ||
	     (p->flags & (IORING_RECV_MULTISHOT | IORING_RECVSEND_BUNDLE))))
		return -EINVAL;
	p->buf_index = sqe->buf_index;
	p->msg_flags = sqe->msg_flags;
	p->bsel = !!(req->sqe_flags & IOSQE_BUFFER_SELECT);
	if (p->flags & IORING_RECVSEND_BUNDLE) {
		ZN_LOG_RL(ZN_LOG_WARN, RECV_LOG, "RECV with BUNDLE is not supported by "
			  "zcnic: -EINVAL");
		return -EINVAL;
	}
	if (p->flags & IORING_RECV_MULTISHOT) {
		if (!p->bsel || (p->msg_flags & MSG_WAITALL))
			return -EINVAL;
		p->mshot = 1;
		p->mshot_left = sqe->optlen;
		p->mshot_lim = sqe->optlen != 0;
	} else if (sqe->optlen) {
		return -EINVAL;
	}
	return 0;
}

/* RECVMSG: io_recvmsg_prep's checks, then the msghdr (read now, as the
 * kernel copies it at prep; its iovecs are read when data is there). */
static int recvmsg_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct recv_pdu *p = PDU(req);
	struct msghdr m;
	int rc;

	rc = recv_prep(req, &(struct io_uring_sqe){ .opcode = sqe->opcode, .fd = sqe->fd,
			 .addr = sqe->addr, .addr2 = sqe->addr2, .len = 0, .ioprio = sqe->ioprio,
			 .msg_flags = sqe->msg_flags, .buf_index = sqe->buf_index });
	if (rc)
		return rc;
	if (p->flags & IORING_RECVSEND_FIXED_BUF)
		return -EINVAL;	/* a msghdr names its own buffers */
	p->msg = 1;
	if (zn_ucopy_from(&m, (const void *)(uintptr_t)p->addr, sizeof(m)))
		return -EFAULT;
	if ((int)m.msg_namelen < 0)
		return -EINVAL;
	if (p->mshot) {
		/* the header, name and control area must fit an int (io_recvmsg_mshot_prep) */
		if ((uint64_t)sizeof(struct io_uring_recvmsg_out) + m.msg_namelen +
		    m.msg_controllen > INT32_MAX)
			return -EOVERFLOW;
		p->mnamelen = m.msg_namelen;
		p->mctrllen = (uint32_t)m.msg_controllen;
	}
	if (p->bsel) {
		struct iovec v = { 0 };

		/* the provided buffer stands in for the one iovec, whose length caps it */
		if (m.msg_iovlen > 1)
			return -EINVAL;
		if (m.msg_iovlen && zn_ucopy_from(&v, m.msg_iov, sizeof(v)))
			return -EFAULT;
		p->len = v.iov_len > INT32_MAX ? INT32_MAX : (uint32_t)v.iov_len;
		return 0;
	}
	if (m.msg_iovlen > 1024)	/* UIO_MAXIOV */
		return -EMSGSIZE;
	if (m.msg_iovlen > RECVMSG_MAX_IOV) {
		ZN_LOG_RL(ZN_LOG_WARN, RECV_LOG, "RECVMSG with %zu iovecs: zcnic takes at most "
			  "%u (-EINVAL)", (size_t)m.msg_iovlen, RECVMSG_MAX_IOV);
		return -EINVAL;
	}
	return 0;
}

const struct zn_uring_op zn_recvmsg_op = {
	.name = "RECVMSG", .flags = ZN_URING_OP_NEEDS_FILE | ZN_URING_OP_BUFFER_SELECT,
	.prep = recvmsg_prep, .issue = recv_issue, .cancel = recv_cancel,
};

const struct zn_uring_op zn_recv_op = {
	.name = "RECV", .flags = ZN_URING_OP_NEEDS_FILE | ZN_URING_OP_BUFFER_SELECT,
	.prep = recv_prep, .issue = recv_issue, .cancel = recv_cancel,
};
