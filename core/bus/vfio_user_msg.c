/* SPDX-License-Identifier: MIT */
/*
 * vfio-user client transport: connect, send a command with its fds, wait for
 * its reply. Framing per the specification's "Header" section (QEMU
 * docs/interop/vfio-user.rst): a 16-byte header, msg_size counting it, fds as
 * SCM_RIGHTS with the first byte of their message.
 *
 * The socket is non-blocking and every wait is a poll() against one deadline
 * per exchange, so that a stuck server costs at most the timeout. Sends use
 * MSG_NOSIGNAL: a dead server is an -EPIPE, never a SIGPIPE.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "core/bus/vfio_user_priv.h"
#include "zcnic/log.h"

#define CONNECT_RETRY_MS	10	/* socket there, not listening yet: try again */
#define MAX_REQ_IOV		4
#define DRAIN_CHUNK		4096
/* The errno a server may put in an error reply is a small positive number. */
#define MAX_ERRNO		4095
/* Server commands served per zn_vfuc_service call, so that a server that
 * floods us cannot keep the caller's poll loop from its own work. */
#define SERVICE_BUDGET		64

static const char *const cmd_names[] = {
	[ZN_VFU_VERSION] = "VERSION",
	[ZN_VFU_DMA_MAP] = "DMA_MAP",
	[ZN_VFU_DMA_UNMAP] = "DMA_UNMAP",
	[ZN_VFU_DEVICE_GET_INFO] = "DEVICE_GET_INFO",
	[ZN_VFU_DEVICE_GET_REGION_INFO] = "DEVICE_GET_REGION_INFO",
	[ZN_VFU_DEVICE_GET_REGION_IO_FDS] = "DEVICE_GET_REGION_IO_FDS",
	[ZN_VFU_DEVICE_GET_IRQ_INFO] = "DEVICE_GET_IRQ_INFO",
	[ZN_VFU_DEVICE_SET_IRQS] = "DEVICE_SET_IRQS",
	[ZN_VFU_REGION_READ] = "REGION_READ",
	[ZN_VFU_REGION_WRITE] = "REGION_WRITE",
	[ZN_VFU_DMA_READ] = "DMA_READ",
	[ZN_VFU_DMA_WRITE] = "DMA_WRITE",
	[ZN_VFU_DEVICE_RESET] = "DEVICE_RESET",
	[ZN_VFU_REGION_WRITE_MULTI] = "REGION_WRITE_MULTI",
	[ZN_VFU_DEVICE_FEATURE] = "DEVICE_FEATURE",
	[ZN_VFU_MIG_DATA_READ] = "MIG_DATA_READ",
	[ZN_VFU_MIG_DATA_WRITE] = "MIG_DATA_WRITE",
};

const char *zn_vfuc_cmd_name(uint16_t cmd)
{
	if (cmd < sizeof(cmd_names) / sizeof(cmd_names[0]) && cmd_names[cmd])
		return cmd_names[cmd];
	return "command?";
}

void zn_vfuc_close_fds(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

/* Wait for ev on fd until the deadline. Errors and hang-ups count as ready:
 * the following send or recv reports them. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = ev };

	for (;;) {
		int64_t left = deadline - (int64_t)zn_now_ms();
		int rc;

		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

int zn_vfuc_connect(const char *path, int timeout_ms, int *sock_out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int64_t deadline = (int64_t)zn_now_ms() + timeout_ms;
	int err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		ZN_ERR(ZN_VFUC_LOG, "socket path '%s' is longer than %zu bytes; use a shorter path",
		       path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	/*
	 * A socket file that exists but refuses (a server between bind() and
	 * listen(), or a full backlog) is worth waiting for, until the deadline.
	 * A path that does not exist fails at once: it is far more often a typo
	 * than a server about to start, and a caller starting one waits for its
	 * ready signal (zn-nicsim --ready-fd) before it connects.
	 */
	for (;;) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		if (s < 0) {
			err = errno;
			break;
		}
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			*sock_out = s;
			return 0;
		}
		err = errno;
		close(s);
		if (err != ECONNREFUSED && err != EAGAIN && err != EINTR)
			break;
		if ((int64_t)zn_now_ms() + CONNECT_RETRY_MS > deadline)
			break;
		poll(NULL, 0, CONNECT_RETRY_MS);
	}
	if (err == ENOENT)
		ZN_ERR(ZN_VFUC_LOG, "cannot connect to a vfio-user server: no socket at %s; check "
		       "the path, or start the server (e.g. zn-nicsim) first", path);
	else
		ZN_ERR(ZN_VFUC_LOG, "cannot connect to a vfio-user server at %s within %d ms: %s; "
		       "is the server (e.g. zn-nicsim) running?", path, timeout_ms, strerror(err));
	return -err;
}

static int errno_to_conn(int err)
{
	if (err == EPIPE)
		return -EPIPE;
	if (err == ECONNRESET || err == ENOTCONN || err == ECONNREFUSED)
		return -ENOTCONN;
	return -err;
}

static void mark_dead(struct zn_vfuc_conn *c)
{
	if (c->dead)
		return;
	c->dead = true;
	/* Let the server see the end at once, and drop whatever is in flight. */
	shutdown(c->sock, SHUT_RDWR);
}

static int send_msg(struct zn_vfuc_conn *c, const struct zn_vfu_hdr *hdr,
		    const struct iovec *req, unsigned nreq, const int *fds,
		    unsigned nfds, int64_t deadline)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * ZN_VFUC_SEND_FDS_MAX)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov[1 + MAX_REQ_IOV];
	struct iovec *cur = iov;
	unsigned niov = 1;

	if (nreq > MAX_REQ_IOV || nfds > ZN_VFUC_SEND_FDS_MAX)
		return -EINVAL;
	iov[0] = (struct iovec){ (void *)hdr, sizeof(*hdr) };
	for (unsigned i = 0; i < nreq; i++)
		if (req[i].iov_len)
			iov[niov++] = req[i];

	for (bool first = true; niov > 0;) {
		struct msghdr mh = { .msg_iov = cur, .msg_iovlen = niov };
		ssize_t n;

		if (first && nfds) {
			struct cmsghdr *cm;

			memset(&ctl, 0, sizeof(ctl));
			mh.msg_control = ctl.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
		}
		n = sendmsg(c->sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			int rc;

			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return errno_to_conn(errno);
			rc = wait_fd(c->sock, POLLOUT, deadline);
			if (rc < 0)
				return rc;
			continue;
		}
		/* The fds went with the first byte that was accepted. */
		if (n > 0)
			first = false;
		while (niov > 0 && (size_t)n >= cur->iov_len) {
			n -= (ssize_t)cur->iov_len;
			cur++;
			niov--;
		}
		if (niov > 0) {
			cur->iov_base = (char *)cur->iov_base + n;
			cur->iov_len -= (size_t)n;
		}
	}
	return 0;
}

struct rx_fds {
	int fd[ZN_VFU_MAX_MSG_FDS];
	unsigned n;
	bool overflow;		/* more than we announced: protocol error */
};

static void take_fds(struct msghdr *mh, struct rx_fds *rx)
{
	if (mh->msg_flags & MSG_CTRUNC)
		rx->overflow = true;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;
		int *p;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		p = (int *)(void *)CMSG_DATA(cm);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, p + i, sizeof(fd));
			if (rx->n < ZN_VFU_MAX_MSG_FDS) {
				rx->fd[rx->n++] = fd;
			} else {
				close(fd);
				rx->overflow = true;
			}
		}
	}
}

/* Read exactly len bytes (buf NULL: discard them), collecting any fds. */
static int recv_bytes(struct zn_vfuc_conn *c, void *buf, size_t len,
		      struct rx_fds *rx, int64_t deadline)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * ZN_VFU_MAX_MSG_FDS)];
		struct cmsghdr align;
	} ctl;
	char scratch[DRAIN_CHUNK];
	size_t got = 0;

	while (got < len) {
		struct iovec iov = buf ? (struct iovec){ (char *)buf + got, len - got }
				       : (struct iovec){ scratch, len - got < sizeof(scratch)
								   ? len - got : sizeof(scratch) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
		};
		ssize_t n = recvmsg(c->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n < 0) {
			int rc;

			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return errno_to_conn(errno);
			rc = wait_fd(c->sock, POLLIN, deadline);
			if (rc < 0)
				return rc;
			continue;
		}
		take_fds(&mh, rx);
		if (n == 0)
			return -ENOTCONN;
		got += (size_t)n;
	}
	return 0;
}

static int transport_error(struct zn_vfuc_conn *c, const char *what, int rc, bool sending,
			   int timeout_ms)
{
	if (rc == -ETIMEDOUT)
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: no %s within %d ms; the server is stuck, "
		       "dropping the connection", c->who, what,
		       sending ? "room to send" : "reply", timeout_ms);
	else if (rc == -ENOTCONN || rc == -EPIPE)
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: the server closed the connection (%s); "
		       "the device is gone", c->who, what, strerror(-rc));
	else
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: %s failed: %s", c->who, what,
		       sending ? "send" : "receive", strerror(-rc));
	mark_dead(c);
	return rc;
}

/*
 * A command from the server (its header h is in): DMA_READ or DMA_WRITE on a
 * window we mapped, answered at once, whether we are waiting for a reply of
 * our own or servicing the socket (specification, "Command Concurrency":
 * neither side may stall the other). A DMA_WRITE's data goes straight into
 * the window once its range checked out; anything refused is read and
 * dropped, so the stream stays in step. Returns 0, or a transport error.
 */
static int serve_server_cmd(struct zn_vfuc_conn *c, const struct zn_vfu_hdr *h,
			    struct rx_fds *rx, int64_t deadline)
{
	uint64_t plen = h->msg_size - sizeof(*h);
	struct zn_vfu_hdr r = {
		.msg_id = h->msg_id, .cmd = h->cmd, .msg_size = sizeof(r),
		.flags = ZN_VFU_F_TYPE_REPLY,
	};
	struct zn_vfu_dma_access a = { 0 };
	struct iovec iov[2] = { { &a, sizeof(a) }, { NULL, 0 } };
	uint8_t *va = NULL;
	int err = 0, rc;

	if ((h->cmd == ZN_VFU_DMA_READ || h->cmd == ZN_VFU_DMA_WRITE) && plen >= sizeof(a)) {
		rc = recv_bytes(c, &a, sizeof(a), rx, deadline);
		if (rc < 0)
			return rc;
		plen -= sizeof(a);
		err = -zn_vfuc_dma_check(c->win, c->nwin, h->cmd, &a, plen + sizeof(a), &va);
	} else {
		err = h->cmd == ZN_VFU_DMA_READ || h->cmd == ZN_VFU_DMA_WRITE ? EINVAL
									   : EOPNOTSUPP;
	}
	if (!err && (rx->n || rx->overflow))
		err = EINVAL;	/* no server command carries fds */
	/* An accepted DMA_WRITE's data (plen == count) lands in the window, a
	 * refused message's rest is dropped; an accepted DMA_READ has no more. */
	rc = 0;
	if (err)
		rc = recv_bytes(c, NULL, plen, rx, deadline);
	else if (h->cmd == ZN_VFU_DMA_WRITE)
		rc = recv_bytes(c, va, plen, rx, deadline);
	zn_vfuc_close_fds(rx->fd, rx->n);
	rx->n = 0;
	rx->overflow = false;
	if (rc < 0)
		return rc;
	if (err) {
		c->dma_refused++;
		ZN_LOG_RL(ZN_LOG_WARN, ZN_VFUC_LOG, "%s: refusing server command %s (%u) "
			  "[%#" PRIx64 ", +%#" PRIx64 "): %s", c->who, zn_vfuc_cmd_name(h->cmd),
			  h->cmd, a.addr, a.count,
			  err == EFAULT ? "not inside a DMA window we mapped" : strerror(err));
		r.flags |= ZN_VFU_F_ERROR;
		r.error_no = (uint32_t)err;
		if (h->flags & ZN_VFU_F_NO_REPLY)
			return 0;
		return send_msg(c, &r, NULL, 0, NULL, 0, deadline);
	}
	if (h->cmd == ZN_VFU_DMA_READ) {
		c->dma_reads++;
		iov[1] = (struct iovec){ va, a.count };
	} else {
		c->dma_writes++;
	}
	if (h->flags & ZN_VFU_F_NO_REPLY)
		return 0;
	/* The reply repeats address and count (64-bit, as the request and
	 * libvfio-user have it), then a DMA_READ's data, sent from the window. */
	r.msg_size = (uint32_t)(sizeof(r) + sizeof(a) + iov[1].iov_len);
	return send_msg(c, &r, iov, 2, NULL, 0, deadline);
}

/* A message header from the server is in h: is its size one we can take? */
static int check_msg_size(struct zn_vfuc_conn *c, const struct zn_vfu_hdr *h, const char *what)
{
	if (h->msg_size >= sizeof(*h) && h->msg_size <= ZN_VFU_MAX_MSG_SIZE)
		return 0;
	ZN_ERR(ZN_VFUC_LOG, "%s: %s: message of msg_size %u from the server "
	       "(must be 16..%zu); dropping the connection", c->who, what,
	       h->msg_size, (size_t)ZN_VFU_MAX_MSG_SIZE);
	mark_dead(c);
	return h->msg_size < sizeof(*h) ? -EPROTO : -EMSGSIZE;
}

int zn_vfuc_service(struct zn_vfuc_conn *c)
{
	int served = 0;

	while (served < SERVICE_BUDGET) {
		struct rx_fds rx = { .n = 0 };
		struct zn_vfu_hdr h;
		int64_t deadline;
		ssize_t n;
		char b;
		int rc;

		if (c->dead)
			return -ENOTCONN;
		n = recv(c->sock, &b, 1, MSG_PEEK | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			break;
		if (n <= 0)
			return transport_error(c, "service", n == 0 ? -ENOTCONN
								: errno_to_conn(errno), false, 0);
		/* A message has begun: the rest is due within the timeout. */
		deadline = (int64_t)zn_now_ms() + c->timeout_ms;
		rc = recv_bytes(c, &h, sizeof(h), &rx, deadline);
		if (rc == 0)
			rc = check_msg_size(c, &h, "service");
		if (rc == 0 && (h.flags & ZN_VFU_F_TYPE_MASK) != ZN_VFU_F_TYPE_COMMAND) {
			ZN_ERR(ZN_VFUC_LOG, "%s: a reply (msg_id %u, command %u) with no request "
			       "outstanding; dropping the connection", c->who, h.msg_id, h.cmd);
			mark_dead(c);
			rc = -EPROTO;
		}
		if (rc == 0)
			rc = serve_server_cmd(c, &h, &rx, deadline);
		zn_vfuc_close_fds(rx.fd, rx.n);
		if (rc == -EPROTO || rc == -EMSGSIZE)
			return rc;
		if (rc < 0)
			return transport_error(c, "service", rc, false, c->timeout_ms);
		served++;
	}
	return served;
}

int zn_vfuc_call(struct zn_vfuc_conn *c, struct zn_vfuc_xact *x)
{
	int timeout = x->timeout_ms > 0 ? x->timeout_ms : c->timeout_ms;
	int64_t deadline = (int64_t)zn_now_ms() + timeout;
	struct zn_vfu_hdr h = { .cmd = x->cmd, .flags = ZN_VFU_F_TYPE_COMMAND };
	const char *name = zn_vfuc_cmd_name(x->cmd);
	struct rx_fds rx = { .n = 0 };
	size_t size = sizeof(h), plen;
	uint16_t id;
	int rc;

	x->reply_len = 0;
	x->nrfds = 0;
	if (c->dead)
		return -ENOTCONN;
	for (unsigned i = 0; i < x->nreq; i++)
		size += x->req[i].iov_len;
	if (size > ZN_VFU_MAX_MSG_SIZE)
		return -EMSGSIZE;
	id = c->next_id++;
	h.msg_id = id;
	h.msg_size = (uint32_t)size;
	rc = send_msg(c, &h, x->req, x->nreq, x->fds, x->nfds, deadline);
	if (rc < 0)
		return transport_error(c, name, rc, true, timeout);

	for (;;) {
		rc = recv_bytes(c, &h, sizeof(h), &rx, deadline);
		if (rc < 0)
			goto transport;
		rc = check_msg_size(c, &h, name);
		if (rc < 0)
			goto close_fds;
		if ((h.flags & ZN_VFU_F_TYPE_MASK) != ZN_VFU_F_TYPE_COMMAND)
			break;
		rc = serve_server_cmd(c, &h, &rx, deadline);
		if (rc < 0)
			goto transport;
	}
	if ((h.flags & ZN_VFU_F_TYPE_MASK) != ZN_VFU_F_TYPE_REPLY ||
	    h.msg_id != id || h.cmd != x->cmd) {
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: got type %u msg_id %u command %u, expected a "
		       "reply with msg_id %u command %u; dropping the connection",
		       c->who, name, h.flags & ZN_VFU_F_TYPE_MASK, h.msg_id, h.cmd, id, x->cmd);
		rc = -EPROTO;
		goto dead;
	}
	plen = h.msg_size - sizeof(h);
	if (h.flags & ZN_VFU_F_ERROR) {
		/* The spec has an error reply be the header alone, but some servers
		 * add a payload (or fds): read and drop them, keep the errno. */
		rc = recv_bytes(c, NULL, plen, &rx, deadline);
		if (rc < 0)
			goto transport;
		zn_vfuc_close_fds(rx.fd, rx.n);
		rc = h.error_no > 0 && h.error_no <= MAX_ERRNO ? -(int)h.error_no : -EIO;
		ZN_DEBUG(ZN_VFUC_LOG, "%s: %s: server says %s (error %u; %zu payload bytes, "
			 "%u fds dropped)", c->who, name, strerror(-rc), h.error_no, plen, rx.n);
		return rc;
	}
	if (plen > x->reply_max) {
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: reply of %zu payload bytes, at most %zu expected; "
		       "dropping the connection", c->who, name, plen, x->reply_max);
		rc = -EMSGSIZE;
		goto dead;
	}
	rc = recv_bytes(c, x->reply, plen, &rx, deadline);
	if (rc < 0)
		goto transport;

	/* The whole reply is in: from here on the stream is in step. */
	if (rx.overflow) {
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: reply carries more than %u fds", c->who, name,
		       ZN_VFU_MAX_MSG_FDS);
		rc = -EPROTO;
		goto close_fds;
	}
	if (rx.n && (!x->rfds || rx.n > x->rfds_max)) {
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: reply carries %u fds where %u may come; "
		       "closed them", c->who, name, rx.n, x->rfds ? x->rfds_max : 0);
		rc = -EPROTO;
		goto close_fds;
	}
	if (rx.n)
		memcpy(x->rfds, rx.fd, sizeof(int) * rx.n);
	x->nrfds = rx.n;
	x->reply_len = plen;
	return 0;

transport:
	zn_vfuc_close_fds(rx.fd, rx.n);
	return transport_error(c, name, rc, false, timeout);
dead:
	mark_dead(c);
close_fds:
	zn_vfuc_close_fds(rx.fd, rx.n);
	return rc;
}
