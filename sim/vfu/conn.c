/* SPDX-License-Identifier: MIT */
/*
 * The client connection: a SOCK_STREAM byte stream cut into messages, the fds
 * that come with them, and the queue of replies.
 *
 * Framing: the receiver asks for exactly the bytes that finish the current
 * part (the 16-byte header, then msg_size - 16 bytes of body), so one read
 * never runs into the next message and the fds a read returns belong to the
 * message being assembled. A sender attaches fds to a message's first byte
 * (vfio-user spec "Header"; libvfio-user takes them from the header read).
 * More fds than ZN_VFU_MAX_MSG_FDS arrive as MSG_CTRUNC: the message is
 * refused and every fd that did arrive is closed.
 *
 * The same state machine runs without a socket (zn_vfu_dev_feed) for the
 * fuzzer: one parser, one dispatcher.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/vfu/priv.h"

#define SKIP_CHUNK	65536u	/* buffer used to discard an oversized body */
#define READ_BUDGET	64	/* messages per readable event, for fairness */

static void rx_reset(struct vfu_conn *c)
{
	c->hdr_have = 0;
	c->body_have = 0;
	c->body_need = 0;
	c->skip = 0;
	c->nfds = 0;
	c->fds_truncated = false;
}

static void close_fds(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static bool rx_mid_message(const struct vfu_conn *c)
{
	return c->hdr_have > 0 || c->skip > 0;
}

int vfu_conn_open(struct zn_vfu_dev *dev, int sock)
{
	struct vfu_conn *c = &dev->conn;

	memset(c, 0, sizeof(*c));
	c->active = true;
	c->sock = sock;
	c->out_tail = &c->out_head;
	/* vfio-user spec "Version": what a peer assumes of a silent one. */
	c->client_max_fds = ZN_VFU_DEFAULT_MAX_MSG_FDS;
	c->client_max_xfer = ZN_VFU_DEFAULT_MAX_XFER;
	c->pgsizes = ZN_VFU_DEFAULT_PGSIZES;
	c->max_dma_maps = ZN_VFU_DEFAULT_MAX_DMA_MAPS;
	c->t_open = zn_vfu_now_ns();
	VFU_INC(dev->stats.clients);
	return 0;
}

static void conn_close(struct zn_vfu_dev *dev, enum zn_sim_log_level level, const char *why)
{
	struct vfu_conn *c = &dev->conn;
	struct vfu_out *o, *next;

	if (!c->active)
		return;
	if (rx_mid_message(c))
		VFU_INC(dev->stats.errors[ZN_VFU_ERR_TRUNCATED]);
	ZN_SIM_LOG_AT(level, "vfu", "%s: client disconnected: %s", dev->name, why);
	if (c->sock >= 0)
		close(c->sock);
	for (o = c->out_head; o; o = next) {
		next = o->next;
		free(o);
	}
	close_fds(c->fds, c->nfds);
	free(c->body);
	memset(c, 0, sizeof(*c));
	c->sock = -1;
	/* vfio-user spec "Client Disconnection": unmap all client memory,
	 * close every fd the client passed; then a fresh device for the next. */
	vfu_dma_unmap_all(dev);
	vfu_irq_close_all(dev);
	vfu_dev_reset(dev, ZN_VFU_RESET_LOST_CONN);
	/* Counted last: whoever sees the count sees the clean-up done. */
	VFU_INC(dev->stats.disconnects);
}

void vfu_conn_close(struct zn_vfu_dev *dev, const char *why)
{
	conn_close(dev, ZN_SIM_LOG_INFO, why);
}

/* Drops a client that keeps the server waiting past its limit. */
int vfu_conn_check_stall(struct zn_vfu_dev *dev, uint64_t now, uint64_t *deadline)
{
	struct vfu_conn *c = &dev->conn;
	char why[160];
	uint64_t since, limit;
	const char *what;

	if (!c->active || c->sock < 0)
		return 0;
	if (c->out_head) {
		since = c->t_tx;
		limit = dev->stall_ns;
		what = "did not read its replies";
	} else if (rx_mid_message(c)) {
		since = c->t_rx;
		limit = dev->stall_ns;
		what = "stopped inside a message";
	} else if (!c->negotiated) {
		since = c->t_open;
		limit = dev->handshake_ns;
		what = "sent no VERSION";
	} else {
		return 0;	/* idle between messages: its right */
	}
	if (now - since < limit) {
		if (since + limit < *deadline)
			*deadline = since + limit;
		return 0;
	}
	snprintf(why, sizeof(why), "stalled: %s within %llu ms; dropped, serving the next client",
		 what, (unsigned long long)(limit / 1000000u));
	VFU_INC(dev->stats.errors[ZN_VFU_ERR_STALLED]);
	conn_close(dev, ZN_SIM_LOG_WARN, why);
	return -1;
}

/* Where the next received bytes go, and how many the parser wants. */
static void *rx_buf(struct vfu_conn *c, size_t *want)
{
	if (c->hdr_have < sizeof(c->hdr)) {
		*want = sizeof(c->hdr) - c->hdr_have;
		return c->hdr + c->hdr_have;
	}
	if (c->skip) {
		*want = c->skip < c->body_cap ? c->skip : c->body_cap;
		return c->body;
	}
	*want = c->body_need - c->body_have;
	return c->body + c->body_have;
}

static int grow_body(struct vfu_conn *c, size_t need)
{
	uint8_t *nb;

	if (need <= c->body_cap)
		return 0;
	nb = realloc(c->body, need);
	if (!nb)
		return -ENOMEM;
	c->body = nb;
	c->body_cap = need;
	return 0;
}

static void rx_add_fds(struct zn_vfu_dev *dev, int *fds, unsigned n, bool truncated)
{
	struct vfu_conn *c = &dev->conn;

	for (unsigned i = 0; i < n; i++) {
		/* fds riding on a body we discard belong to a refused message */
		if (c->skip || c->nfds == ZN_VFU_MAX_MSG_FDS) {
			if (!c->skip)
				c->fds_truncated = true;
			close(fds[i]);
		} else {
			c->fds[c->nfds++] = fds[i];
		}
		fds[i] = -1;
	}
	if (truncated)
		c->fds_truncated = true;
}

static void message_complete(struct zn_vfu_dev *dev)
{
	struct vfu_conn *c = &dev->conn;
	struct vfu_req rq = {
		.data = c->body,
		.len = (uint32_t)c->body_need,
		.fds = c->fds,
		.nfds = c->nfds,
	};

	memcpy(&rq.hdr, c->hdr, sizeof(rq.hdr));
	if (c->fds_truncated)
		vfu_refuse(dev, &rq, ZN_VFU_ERR_TOO_MANY_FDS, 0,
			   "more than %u fds (max_msg_fds)", ZN_VFU_MAX_MSG_FDS);
	else
		vfu_dispatch(dev, &rq);
	close_fds(c->fds, c->nfds);	/* whatever the handler did not keep */
	rx_reset(c);
}

static void header_complete(struct zn_vfu_dev *dev)
{
	struct vfu_conn *c = &dev->conn;
	struct vfu_req rq = { .len = 0 };

	memcpy(&rq.hdr, c->hdr, sizeof(rq.hdr));
	if (rq.hdr.msg_size < sizeof(struct zn_vfu_hdr)) {
		/* Without a length the stream cannot be resynchronised. */
		close_fds(c->fds, c->nfds);
		c->nfds = 0;
		vfu_refuse(dev, &rq, ZN_VFU_ERR_BAD_MSG_SIZE, 0,
			   "msg_size %u < %zu, closing", rq.hdr.msg_size, sizeof(rq.hdr));
		c->closing = true;
		return;
	}
	if (rq.hdr.msg_size > ZN_VFU_MAX_MSG_SIZE) {
		close_fds(c->fds, c->nfds);
		c->nfds = 0;
		vfu_refuse(dev, &rq, ZN_VFU_ERR_OVERSIZED, 0, "msg_size %u > %zu",
			   rq.hdr.msg_size, (size_t)ZN_VFU_MAX_MSG_SIZE);
		/* Answered now; its body is read and dropped to stay in step. */
		if (grow_body(c, SKIP_CHUNK)) {
			c->closing = true;
			return;
		}
		c->skip = rq.hdr.msg_size - sizeof(struct zn_vfu_hdr);
		return;
	}
	c->body_need = rq.hdr.msg_size - sizeof(struct zn_vfu_hdr);
	if (grow_body(c, c->body_need ? c->body_need : 1)) {
		vfu_send_error(dev, &rq.hdr, ENOMEM);
		c->closing = true;
		return;
	}
	if (c->body_need == 0)
		message_complete(dev);
}

static void rx_done(struct zn_vfu_dev *dev, size_t n)
{
	struct vfu_conn *c = &dev->conn;

	if (c->hdr_have < sizeof(c->hdr)) {
		c->hdr_have += n;
		if (c->hdr_have == sizeof(c->hdr))
			header_complete(dev);
		return;
	}
	if (c->skip) {
		c->skip -= n;
		if (!c->skip)
			rx_reset(c);
		return;
	}
	c->body_have += n;
	if (c->body_have == c->body_need)
		message_complete(dev);
}

/* ---- Replies ---- */

int vfu_conn_queue(struct zn_vfu_dev *dev, const void *msg, size_t len, const int *fds,
		   unsigned nfds)
{
	struct vfu_conn *c = &dev->conn;
	struct vfu_out *o;

	if (c->sock < 0) {
		if (c->sink)
			c->sink(c->sink_arg, msg, len, fds, nfds);
		return 0;
	}
	o = malloc(sizeof(*o) + len);
	if (!o)
		return -ENOMEM;
	o->next = NULL;
	o->len = len;
	o->sent = 0;
	o->nfds = nfds;
	if (nfds)
		memcpy(o->fds, fds, sizeof(int) * nfds);
	memcpy(o->data, msg, len);
	if (!c->out_head)
		c->t_tx = zn_vfu_now_ns();
	*c->out_tail = o;
	c->out_tail = &o->next;
	return 0;
}

int vfu_sock_writable(struct zn_vfu_dev *dev)
{
	struct vfu_conn *c = &dev->conn;
	struct vfu_out *o;

	while ((o = c->out_head)) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * ZN_VFU_MAX_MSG_FDS)];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov = { o->data + o->sent, o->len - o->sent };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (o->sent == 0 && o->nfds) {
			struct cmsghdr *cm;

			memset(&cbuf, 0, sizeof(cbuf));
			mh.msg_control = cbuf.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * o->nfds);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * o->nfds);
			memcpy(CMSG_DATA(cm), o->fds, sizeof(int) * o->nfds);
		}
		n = sendmsg(c->sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			vfu_conn_close(dev, errno == EPIPE || errno == ECONNRESET ?
					    "peer closed while we replied" : "sendmsg failed");
			return -1;
		}
		o->sent += (size_t)n;	/* the fds went with the first byte */
		c->t_tx = zn_vfu_now_ns();
		if (o->sent < o->len)
			continue;
		c->out_head = o->next;
		if (!c->out_head)
			c->out_tail = &c->out_head;
		free(o);
	}
	if (c->closing) {
		vfu_conn_close(dev, "closed by the server after a protocol error");
		return -1;
	}
	return 0;
}

bool vfu_conn_want_read(const struct zn_vfu_dev *dev)
{
	/* Replies first: a client that pipelines without reading is paused. */
	return dev->conn.active && !dev->conn.closing && !dev->conn.out_head;
}

bool vfu_conn_want_write(const struct zn_vfu_dev *dev)
{
	return dev->conn.active && dev->conn.out_head;
}

int vfu_sock_readable(struct zn_vfu_dev *dev)
{
	struct vfu_conn *c = &dev->conn;

	for (int budget = READ_BUDGET; budget > 0 && vfu_conn_want_read(dev); ) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * ZN_VFU_MAX_MSG_FDS)];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf) };
		int fds[ZN_VFU_MAX_MSG_FDS];
		unsigned nfds = 0;
		size_t want;
		ssize_t n;

		iov.iov_base = rx_buf(c, &want);
		iov.iov_len = want;
		n = recvmsg(c->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			vfu_conn_close(dev, "recvmsg failed");
			return -1;
		}
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (nfds < ZN_VFU_MAX_MSG_FDS)
					fds[nfds++] = fd;
				else
					close(fd);
			}
		}
		if (n == 0) {
			close_fds(fds, nfds);
			vfu_conn_close(dev, "end of stream");
			return -1;
		}
		rx_add_fds(dev, fds, nfds, mh.msg_flags & MSG_CTRUNC);
		if (!rx_mid_message(c)) {
			budget--;
			c->t_rx = zn_vfu_now_ns();
		}
		rx_done(dev, (size_t)n);
		if (vfu_sock_writable(dev) < 0)
			return -1;
	}
	return 0;
}

/* ---- Without a socket ---- */

int zn_vfu_dev_attach_buffer(struct zn_vfu_dev *dev, zn_vfu_reply_sink_fn sink, void *arg)
{
	if (!dev->realized || dev->conn.active)
		return -EBUSY;
	vfu_conn_open(dev, -1);
	dev->conn.sink = sink;
	dev->conn.sink_arg = arg;
	return 0;
}

int zn_vfu_dev_feed(struct zn_vfu_dev *dev, const void *data, size_t len, int *fds,
		    unsigned nfds)
{
	struct vfu_conn *c = &dev->conn;
	const uint8_t *p = data;

	if (!c->active || c->sock >= 0 || c->closing) {
		close_fds(fds, nfds);
		return -ECONNRESET;
	}
	rx_add_fds(dev, fds, nfds, false);
	while (len && !c->closing) {
		size_t want;
		void *dst = rx_buf(c, &want);

		if (want > len)
			want = len;
		memcpy(dst, p, want);
		p += want;
		len -= want;
		rx_done(dev, want);
	}
	return c->closing ? -ECONNRESET : 0;
}

void zn_vfu_dev_detach(struct zn_vfu_dev *dev)
{
	if (dev->conn.active && dev->conn.sock < 0)
		vfu_conn_close(dev, "detached");
}
