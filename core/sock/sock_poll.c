/* SPDX-License-Identifier: MIT */
/*
 * IORING_OP_POLL_ADD on a zcnic socket (core/uring/poll.c asks through
 * zn_uring_plugins.poll_ready): the events Linux's protocol poll reports
 * (udp_poll, tcp_poll), read on every pass of the ring that polls.
 *
 * The polling ring is let onto the socket as any request of it would be
 * (zn_sock_bind), so that its passes poll the netdev and the events can
 * change; a socket another thread's rings serve is -EBUSY, as its other
 * requests.
 */
#include <errno.h>
#include <poll.h>

#include "core/sock/sock.h"
#include "core/sock/sock_ops.h"

int zn_sock_poll_ready(struct zn_uring *r, int fd, uint32_t *seq)
{
	struct zn_sock *s = zn_sock_from_handle(fd);
	uint32_t m;

	if (!s)
		return -ENOENT;
	if (zn_sock_foreign(s))
		return -EBUSY;
	zn_owner_enter(&s->owner, "socket");
	if (s->dev)
		(void)zn_sock_bind(s, r);	/* no hook slot: still readable as is */
	if (s->pcb)
		m = s->proto->poll(s);
	else	/* no netdev yet: a TCP socket is closed, a UDP one writable */
		m = POLLOUT | POLLWRNORM | (s->proto->stream ? POLLHUP : POLLWRBAND);
	if (s->rd_shut)
		m |= POLLIN | POLLRDNORM | POLLRDHUP;
	if (!zn_sock_tx_room(s))
		m &= ~(uint32_t)(POLLOUT | POLLWRNORM | POLLWRBAND);
	*seq = zn_sock_rx_pending(s);
	return (int)m;
}
