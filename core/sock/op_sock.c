/* SPDX-License-Identifier: MIT */
/*
 * Socket set-up through the ring: IORING_OP_SOCKET, BIND, LISTEN, CONNECT,
 * ACCEPT (multishot too), SHUTDOWN and CLOSE on zcnic sockets, with the
 * SQE checks of the kernel's io_uring/net.c and openclose.c (io_socket_prep,
 * io_bind_prep, io_listen_prep, io_connect_prep, io_accept_prep,
 * io_shutdown_prep, io_close_prep) and the answers of its socket layer
 * (__sys_socket, inet_bind, inet_listen, inet_stream_connect,
 * ip4_datagram_connect, inet_accept, inet_shutdown).
 *
 * Which netdev: SOCKET makes a socket with no netdev (sqe->fd is the
 * domain, as in the kernel, so nothing in the SQE can name an interface).
 * It takes one the way Linux picks a source interface:
 *   BIND to an address   the netdev that owns the address; INADDR_ANY:
 *                        the open netdev with the lowest ifindex (a zcnic
 *                        socket lives on one netdev: bind to the address
 *                        of the one you mean when several are open);
 *   CONNECT unbound      the netdev on whose subnet the destination lies
 *                        (one that is not itself the destination), else
 *                        the first with a gateway; none: -ENETUNREACH.
 * Until then RECV says -ENOTCONN and SEND -EPIPE (TCP) / -ENOTCONN (UDP).
 *
 * CONNECT and ACCEPT that cannot finish at once wait on the socket: the
 * ring's poll of its netdev serves them (ctl_serve) until the handshake
 * ends (0, -ECONNREFUSED on RST, -ETIMEDOUT when the SYN retries run out)
 * or a connection is there to take. Multishot ACCEPT posts one CQE per
 * connection with IORING_CQE_F_MORE and stays armed; its last CQE (no
 * F_MORE) carries the error that ended it (-ECANCELED when the listener
 * closes).
 *
 * Departures, on purpose: no direct descriptors (file_index != 0 is
 * -EINVAL, logged); AF_INET only (-EAFNOSUPPORT); TCP BIND does not check
 * the port (-EADDRINUSE comes at LISTEN or CONNECT; port 0 takes the next
 * ephemeral one, as inet_bind); LISTEN on a socket never bound is
 * -EDESTADDRREQ (Linux binds an ephemeral port); SHUTDOWN of a
 * listener's read side does not stop it listening; TCP CONNECT to
 * AF_UNSPEC (disconnect) is -EAFNOSUPPORT.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/clock.h"
#include "core/sock/net_ops.h"
#include "zcnic/log.h"

#define SOCKOP_LOG	"uring-sock"
#define ACCEPT_IOPRIO	(IORING_ACCEPT_MULTISHOT | IORING_ACCEPT_DONTWAIT |	\
			 IORING_ACCEPT_POLL_FIRST)
#define EPHEMERAL_LO	32768	/* Linux's ip_local_port_range */
#define EPHEMERAL_HI	60999
#define EPHEMERAL_TRIES	64

/* A sockaddr as the SQE named it, read at prep (move_addr_to_kernel). */
struct sa4 {
	uint16_t family;
	uint16_t port;		/* network order */
	uint32_t ip;		/* network order */
	int32_t len;
};

struct sockop_pdu {
	struct sa4 sa;
	uint64_t addr, addr2;		/* ACCEPT: sockaddr and socklen_t pointers */
	struct zn_uring_req *next;	/* the socket's wait list */
	struct ctl_state *ctl;		/* while waiting */
	uint32_t arg;			/* backlog, how, protocol, accept flags */
	uint32_t type;			/* SOCKET: type and flags */
	uint16_t ioprio;
};
_Static_assert(sizeof(struct sockop_pdu) <= ZN_URING_REQ_PDU, "sockop pdu too big");

#define PDU(req) ((struct sockop_pdu *)(req)->pdu)

struct ctl_state {
	struct zn_uring_req *head;
};

/* ---- reading the SQE ------------------------------------------------------- */

static int sa_read(uint64_t uaddr, int64_t ulen, struct sa4 *sa)
{
	struct sockaddr_storage ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;

	if (ulen < 0 || ulen > (int64_t)sizeof(ss))
		return -EINVAL;
	memset(&ss, 0, sizeof(ss));
	if (ulen && zn_ucopy_from(&ss, (const void *)(uintptr_t)uaddr, (size_t)ulen))
		return -EFAULT;
	sa->family = sin->sin_family;
	sa->port = sin->sin_port;
	sa->ip = sin->sin_addr.s_addr;
	sa->len = (int32_t)ulen;
	return 0;
}

static int no_direct(const struct io_uring_sqe *sqe, const char *op)
{
	if (!sqe->file_index)
		return 0;
	ZN_LOG_RL(ZN_LOG_WARN, SOCKOP_LOG, "%s into a direct descriptor (file_index): zcnic "
		  "sockets are handles already, use the result as the fd: -EINVAL", op);
	return -EINVAL;
}

/* ---- choosing a netdev ------------------------------------------------------ */

static struct zn_netdev *dev_by_ip(uint32_t ip)
{
	for (int i = 1; i <= ZN_NETDEV_MAX; i++) {
		struct zn_netdev *d = zn_netdev_by_ifindex(i);

		if (d && (!ip || zn_netdev_conf(d)->ip == ip))
			return d;
	}
	return NULL;
}

static struct zn_netdev *dev_route(uint32_t dst)
{
	struct zn_netdev *gw = NULL;

	for (int i = 1; i <= ZN_NETDEV_MAX; i++) {
		struct zn_netdev *d = zn_netdev_by_ifindex(i);
		const struct zn_netdev_conf *c;
		uint32_t mask;

		if (!d)
			continue;
		c = zn_netdev_conf(d);
		mask = htonl(c->prefix_len >= 32 ? 0xffffffffu : ~(0xffffffffu >> c->prefix_len));
		if (((c->ip ^ dst) & mask) == 0 && c->ip != dst)
			return d;
		if (c->gateway && !gw)
			gw = d;
	}
	return gw;
}

/* The next port of Linux's ephemeral range, network order. */
static uint16_t ephemeral_port(void)
{
	static __thread uint32_t next;
	uint16_t port;

	if (!next)
		next = EPHEMERAL_LO + (uint32_t)(zn_now_ms() % (EPHEMERAL_HI - EPHEMERAL_LO));
	port = htons((uint16_t)next);
	next = next >= EPHEMERAL_HI ? EPHEMERAL_LO : next + 1;
	return port;
}

/* Attach a socket with port 0 to an ephemeral port (inet_autobind; TCP:
 * inet_bind's port 0, which a later LISTEN needs). */
static int port0_attach(struct zn_sock *s, struct zn_netdev *d, struct zn_socket_conf *c)
{
	int rc = -EADDRINUSE;

	if (c->local.port)
		return zn_sock_attach(s, d, c);
	for (int i = 0; i < EPHEMERAL_TRIES && rc == -EADDRINUSE; i++) {
		c->local.port = ephemeral_port();
		rc = zn_sock_attach(s, d, c);
	}
	return rc;
}

int zn_sock_autobind(struct zn_sock *s, uint32_t dst_ip)
{
	struct zn_netdev *d = dev_route(dst_ip);
	struct zn_socket_conf c = { 0 };

	if (!d)
		return -ENETUNREACH;
	c.local.ip = zn_netdev_conf(d)->ip;
	return port0_attach(s, d, &c);
}

/* ---- waiting set-up requests --------------------------------------------- */

static void ctl_push(struct ctl_state *ctl, struct zn_uring_req *req)
{
	struct zn_uring_req **pp = &ctl->head;

	while (*pp)
		pp = &PDU(*pp)->next;
	PDU(req)->next = NULL;
	PDU(req)->ctl = ctl;
	*pp = req;
}

static void ctl_unlink(struct ctl_state *ctl, struct zn_uring_req *req)
{
	for (struct zn_uring_req **pp = &ctl->head; *pp; pp = &PDU(*pp)->next)
		if (*pp == req) {
			*pp = PDU(req)->next;
			break;
		}
	PDU(req)->ctl = NULL;
}

static void ctl_serve(struct zn_sock *s);

static void ctl_fini(struct zn_sock *s)
{
	struct ctl_state *ctl = s->ctl_priv;
	struct zn_uring_req *req;

	if (!ctl)
		return;
	while ((req = ctl->head)) {
		ctl_unlink(ctl, req);
		zn_uring_req_complete(req, -ECANCELED, 0);
	}
	free(ctl);
	s->ctl_priv = NULL;
}

static struct ctl_state *ctl_get(struct zn_sock *s)
{
	struct ctl_state *ctl = s->ctl_priv;

	if (ctl)
		return ctl;
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return NULL;
	s->ctl_priv = ctl;
	s->ctl_serve = ctl_serve;
	s->ctl_fini = ctl_fini;
	return ctl;
}

/* Wait on s (bound to the request's ring): ASYNC, or DONE with req->res. */
static int ctl_wait(struct zn_sock *s, struct zn_uring_req *req)
{
	struct ctl_state *ctl;
	int rc = zn_sock_bind(s, req->ring);

	if (!rc) {
		ctl = ctl_get(s);
		if (ctl) {
			ctl_push(ctl, req);
			return ZN_URING_ISSUE_ASYNC;
		}
		rc = -ENOMEM;
	}
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

static void ctl_cancel(struct zn_uring_req *req)
{
	if (PDU(req)->ctl)
		ctl_unlink(PDU(req)->ctl, req);
}

/* ---- SOCKET ------------------------------------------------------------------ */

static int socket_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct sockop_pdu *p = PDU(req);
	uint32_t flags;

	memset(p, 0, sizeof(*p));
	if (sqe->addr || sqe->rw_flags || sqe->buf_index)
		return -EINVAL;
	p->sa.family = (uint16_t)sqe->fd;
	p->sa.len = sqe->fd;		/* the domain, whole */
	p->type = (uint32_t)sqe->off;
	p->arg = sqe->len;
	flags = p->type & ~0xfu;	/* SOCK_TYPE_MASK */
	if (flags & ~(uint32_t)(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	return no_direct(sqe, "SOCKET");
}

static int socket_issue(struct zn_uring_req *req)
{
	struct sockop_pdu *p = PDU(req);
	const struct zn_sock_proto *proto;
	uint32_t type = p->type & 0xfu;
	int proto_nr = (int)p->arg;

	if (p->sa.len != AF_INET) {
		req->res = -EAFNOSUPPORT;	/* no IPv6 (or anything else) on zcnic */
		return ZN_URING_ISSUE_DONE;
	}
	/* sock_create, then inet_create's protocol match */
	if (type >= 10 /* SOCK_MAX */)
		req->res = -EINVAL;
	else if (type == SOCK_STREAM)
		req->res = proto_nr == 0 || proto_nr == IPPROTO_TCP ? 0 : -EPROTONOSUPPORT;
	else if (type == SOCK_DGRAM)
		req->res = proto_nr == 0 || proto_nr == IPPROTO_UDP ? 0 : -EPROTONOSUPPORT;
	else
		req->res = -ESOCKTNOSUPPORT;
	if (req->res)
		return ZN_URING_ISSUE_DONE;
	proto = type == SOCK_STREAM ? &zn_tcp_sock_proto : &zn_udp_sock_proto;
	req->res = zn_sock_create_detached(proto);
	return ZN_URING_ISSUE_DONE;
}

/* ---- BIND -------------------------------------------------------------------- */

static int bind_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct sockop_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->len || sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	return sa_read(sqe->addr, (int64_t)sqe->addr2, &p->sa);
}

static int do_bind(struct zn_sock *s, const struct sa4 *sa)
{
	struct zn_socket_conf c = { 0 };
	struct zn_netdev *d;

	if (sa->len < (int32_t)sizeof(struct sockaddr_in))
		return -EINVAL;
	if (sa->family != AF_INET && !(sa->family == AF_UNSPEC && !sa->ip))
		return -EAFNOSUPPORT;
	d = dev_by_ip(sa->ip);
	if (!d)
		return -EADDRNOTAVAIL;
	if (s->dev)
		return -EINVAL;	/* bound already */
	c.local.ip = zn_netdev_conf(d)->ip;
	c.local.port = sa->port;
	return port0_attach(s, d, &c);
}

static int bind_issue(struct zn_uring_req *req)
{
	struct zn_sock *s = zn_sock_of_req(req);

	req->res = s ? do_bind(s, &PDU(req)->sa) : zn_sock_req_err(req);
	return ZN_URING_ISSUE_DONE;
}

/* ---- LISTEN ------------------------------------------------------------------ */

static int listen_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct sockop_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->addr || sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in || sqe->addr2)
		return -EINVAL;
	p->arg = sqe->len;
	return 0;
}

static int listen_issue(struct zn_uring_req *req)
{
	struct zn_sock *s = zn_sock_of_req(req);
	int rc;

	if (!s)
		rc = zn_sock_req_err(req);
	else if (!s->proto->stream)
		rc = -EOPNOTSUPP;	/* sock_no_listen */
	else if (!s->dev)
		rc = -EDESTADDRREQ;
	else {
		rc = zn_tcp_listen(s->handle, (int)PDU(req)->arg);
		if (rc == -EISCONN)
			rc = -EINVAL;	/* inet_listen: not SS_UNCONNECTED */
		/* SYNs come whether or not an ACCEPT waits (the kernel answers
		 * them in softirq): this ring polls the listener's netdev from
		 * now on, so a CONNECT from the same thread completes */
		if (!rc)
			rc = zn_sock_bind(s, req->ring);
	}
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

/* ---- CONNECT ----------------------------------------------------------------- */

static int connect_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct sockop_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->len || sqe->buf_index || sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	return sa_read(sqe->addr, (int64_t)sqe->addr2, &p->sa);
}

/* The TCP handshake's state: -EINPROGRESS (wait), 0, or its error. */
static int tcp_connect_step(struct zn_sock *s, const struct sa4 *sa)
{
	struct zn_addr4 dst = { .ip = sa->ip, .port = sa->port };
	int rc = zn_tcp_connect(s->handle, &dst, 0);

	return rc == -EALREADY ? -EINPROGRESS : rc == -EISCONN ? 0 : rc;
}

static int udp_connect(struct zn_sock *s, const struct sa4 *sa)
{
	struct zn_addr4 dst = { .ip = sa->ip, .port = sa->port };
	struct zn_socket_conf c = { 0 };
	struct zn_netdev *d;

	if (sa->len >= 2 && sa->family == AF_UNSPEC)	/* disconnect */
		return s->dev && s->remote.ip ? zn_udp_sock_connect(s, &(struct zn_addr4){ 0 }) : 0;
	if (sa->len < (int32_t)sizeof(struct sockaddr_in))
		return -EINVAL;
	if (sa->family != AF_INET)
		return -EAFNOSUPPORT;
	if (!sa->ip || !sa->port)
		return -EINVAL;	/* core/net has no "this host" nor port 0 */
	if (s->dev)
		return zn_udp_sock_connect(s, &dst);
	d = dev_route(sa->ip);
	if (!d)
		return -ENETUNREACH;
	c.local.ip = zn_netdev_conf(d)->ip;
	c.remote = dst;
	return port0_attach(s, d, &c);
}

static int connect_issue(struct zn_uring_req *req)
{
	struct sockop_pdu *p = PDU(req);
	struct zn_sock *s = zn_sock_of_req(req);
	struct zn_netdev *d;
	int rc;

	if (!s) {
		rc = zn_sock_req_err(req);
		goto out;
	}
	if (!s->proto->stream) {
		rc = udp_connect(s, &p->sa);
		goto out;
	}
	if (p->sa.len < 2) {
		rc = -EINVAL;
		goto out;
	}
	if (zn_tcp_sock_listening(s)) {
		rc = -EISCONN;	/* inet_stream_connect on a listener */
		goto out;
	}
	if (p->sa.len < (int32_t)sizeof(struct sockaddr_in)) {
		rc = -EINVAL;
		goto out;
	}
	if (p->sa.family != AF_INET) {
		rc = -EAFNOSUPPORT;
		goto out;
	}
	if (!s->dev) {
		d = dev_route(p->sa.ip);
		rc = d ? zn_sock_attach(s, d, &(struct zn_socket_conf){ 0 }) : -ENETUNREACH;
		if (rc)
			goto out;
	}
	rc = zn_tcp_connect(s->handle, &(struct zn_addr4){ .ip = p->sa.ip, .port = p->sa.port }, 0);
	/* else connected already (-EISCONN), in progress for another request
	 * (-EALREADY), or failed at once */
	if (rc == -EINPROGRESS)
		return ctl_wait(s, req);
out:
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

/* ---- ACCEPT ------------------------------------------------------------------ */

static int accept_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct sockop_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->len || sqe->buf_index)
		return -EINVAL;
	p->addr = sqe->addr;
	p->addr2 = sqe->addr2;
	p->arg = sqe->accept_flags;
	p->ioprio = sqe->ioprio;
	if (p->ioprio & ~ACCEPT_IOPRIO)
		return -EINVAL;
	if (no_direct(sqe, "ACCEPT"))
		return -EINVAL;
	if (p->arg & ~(uint32_t)(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	return 0;
}

/* The peer into (addr, *addrlen), as move_addr_to_user: 0 or -errno. */
static int peer_out(const struct sockop_pdu *p, const struct zn_addr4 *peer)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = peer->port,
				   .sin_addr.s_addr = peer->ip };
	socklen_t ulen, klen = sizeof(sin);

	if (!p->addr)
		return 0;
	if (zn_ucopy_from(&ulen, (const void *)(uintptr_t)p->addr2, sizeof(ulen)))
		return -EFAULT;
	if ((int)ulen < 0)
		return -EINVAL;
	if (ulen > klen)
		ulen = klen;
	if (ulen && zn_ucopy_to((void *)(uintptr_t)p->addr, &sin, ulen))
		return -EFAULT;
	if (zn_ucopy_to((void *)(uintptr_t)p->addr2, &klen, sizeof(klen)))
		return -EFAULT;
	return 0;
}

/* One connection off the listener: its handle, -EAGAIN, or an error. */
static int accept_one(struct zn_sock *s, const struct sockop_pdu *p)
{
	struct zn_addr4 peer;
	int h = zn_tcp_accept(s->handle, &peer, 0);
	int rc;

	if (h < 0)
		return h;
	rc = peer_out(p, &peer);
	if (rc) {
		zn_socket_close(h);	/* the kernel drops the new file too */
		return rc;
	}
	return h;
}

/*
 * Take what there is: single shot DONE with the handle; multishot posts
 * one F_MORE CQE per connection. -EAGAIN when the listener is empty (the
 * request waits), else DONE with the error that ended it.
 */
static int accept_drain(struct zn_sock *s, struct zn_uring_req *req)
{
	struct sockop_pdu *p = PDU(req);

	for (;;) {
		int h = accept_one(s, p);

		if (h < 0)
			return h;
		if (!(p->ioprio & IORING_ACCEPT_MULTISHOT))
			return h;
		if (zn_uring_post_cqe(req->ring, req->user_data, h, IORING_CQE_F_MORE, NULL, 0) < 0) {
			/* no room for the CQE: the multishot ends on it, as in the kernel */
			return h;
		}
	}
}

static int accept_issue(struct zn_uring_req *req)
{
	struct sockop_pdu *p = PDU(req);
	struct zn_sock *s = zn_sock_of_req(req);
	int rc;

	if (!s) {
		rc = zn_sock_req_err(req);
		goto out;
	}
	if (!s->proto->stream) {
		rc = -EOPNOTSUPP;	/* sock_no_accept */
		goto out;
	}
	if (!zn_tcp_sock_listening(s)) {
		rc = -EINVAL;		/* inet_accept: not listening */
		goto out;
	}
	rc = -EAGAIN;
	if (!(p->ioprio & IORING_ACCEPT_POLL_FIRST))
		rc = accept_drain(s, req);
	if (rc != -EAGAIN || (p->ioprio & IORING_ACCEPT_DONTWAIT))
		goto out;
	return ctl_wait(s, req);
out:
	req->res = rc;
	return ZN_URING_ISSUE_DONE;
}

/* ---- serving the waiters --------------------------------------------------- */

static void ctl_serve(struct zn_sock *s)
{
	struct ctl_state *ctl = s->ctl_priv;
	struct zn_uring_req *req, *next;

	for (req = ctl ? ctl->head : NULL; req; req = next) {
		struct sockop_pdu *p = PDU(req);
		int rc;

		next = p->next;
		rc = req->opcode == IORING_OP_CONNECT ? tcp_connect_step(s, &p->sa)
						      : accept_drain(s, req);
		if (rc == -EINPROGRESS || rc == -EAGAIN)
			continue;
		ctl_unlink(ctl, req);
		zn_uring_req_complete(req, rc, 0);
		/* a completed link may have closed the socket: stop here */
		if (s->ctl_priv != ctl)
			return;
		next = ctl->head;	/* the list may have changed under us */
	}
}

/* ---- SHUTDOWN ---------------------------------------------------------------- */

static int shutdown_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct sockop_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->off || sqe->addr || sqe->rw_flags || sqe->buf_index || sqe->splice_fd_in ||
	    sqe->addr3)
		return -EINVAL;
	p->arg = sqe->len;
	return 0;
}

static int do_shutdown(struct zn_sock *s, uint32_t how)
{
	int rc;

	if (how > SHUT_RDWR)
		return -EINVAL;
	if (!s->dev)
		return -ENOTCONN;
	if (!s->proto->stream) {
		if (!s->remote.ip)
			return -ENOTCONN;
		if (how != SHUT_WR)
			s->rd_shut = true;
		return 0;
	}
	if (zn_tcp_sock_listening(s))
		return 0;	/* a listener: nothing to shut (see the departures) */
	if (how != SHUT_RD) {
		rc = zn_tcp_shutdown(s->handle);
		if (rc)
			return rc;
	}
	if (how != SHUT_WR && !s->rd_shut) {
		s->rd_shut = true;
		zn_sock_kick(s);	/* RECVs waiting: their EOF */
	}
	return 0;
}

static int shutdown_issue(struct zn_uring_req *req)
{
	struct zn_sock *s = zn_sock_of_req(req);

	req->res = s ? do_shutdown(s, PDU(req)->arg) : zn_sock_req_err(req);
	return ZN_URING_ISSUE_DONE;
}

/* ---- CLOSE ------------------------------------------------------------------- */

static int close_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct sockop_pdu *p = PDU(req);

	memset(p, 0, sizeof(*p));
	if (sqe->off || sqe->addr || sqe->len || sqe->rw_flags || sqe->buf_index)
		return -EINVAL;
	if (req->sqe_flags & IOSQE_FIXED_FILE)
		return -EBADF;
	if (sqe->file_index) {
		ZN_LOG_RL(ZN_LOG_WARN, SOCKOP_LOG, "CLOSE of a direct descriptor: zcnic has "
			  "none (-EINVAL)");
		return -EINVAL;
	}
	p->arg = (uint32_t)sqe->fd;
	return 0;
}

/* A zcnic socket's handle; anything else is not ours to close (-EBADF). */
static int close_issue(struct zn_uring_req *req)
{
	struct zn_sock *s = zn_sock_from_handle((int)PDU(req)->arg);

	/* another thread's socket: the ops' rule (docs/uring.md, "Sockets and
	 * rings"); zn_socket_close, the close(2) of ported code, defers instead */
	if (s && zn_sock_foreign(s)) {
		req->res = -EBUSY;
		return ZN_URING_ISSUE_DONE;
	}
	req->res = zn_socket_close((int)PDU(req)->arg);
	return ZN_URING_ISSUE_DONE;
}

/* ---- the ops ----------------------------------------------------------------- */

const struct zn_uring_op zn_socket_op = {
	.name = "SOCKET", .prep = socket_prep, .issue = socket_issue,
};

const struct zn_uring_op zn_bind_op = {
	.name = "BIND", .flags = ZN_URING_OP_NEEDS_FILE, .prep = bind_prep, .issue = bind_issue,
};

const struct zn_uring_op zn_listen_op = {
	.name = "LISTEN", .flags = ZN_URING_OP_NEEDS_FILE, .prep = listen_prep,
	.issue = listen_issue,
};

const struct zn_uring_op zn_connect_op = {
	.name = "CONNECT", .flags = ZN_URING_OP_NEEDS_FILE, .prep = connect_prep,
	.issue = connect_issue, .cancel = ctl_cancel,
};

const struct zn_uring_op zn_accept_op = {
	.name = "ACCEPT", .flags = ZN_URING_OP_NEEDS_FILE, .prep = accept_prep,
	.issue = accept_issue, .cancel = ctl_cancel,
};

const struct zn_uring_op zn_shutdown_op = {
	.name = "SHUTDOWN", .flags = ZN_URING_OP_NEEDS_FILE, .prep = shutdown_prep,
	.issue = shutdown_issue,
};

const struct zn_uring_op zn_close_op = {
	.name = "CLOSE", .prep = close_prep, .issue = close_issue,
};
