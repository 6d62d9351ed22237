/* SPDX-License-Identifier: MIT */
/* The UDP protocol under a zcnic socket: a core/net UDP endpoint. */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "core/sock/sock.h"

#define UDP_SOCK_DFLT_RX_RING	1024

static struct zn_udp_ep *ep_of(struct zn_sock *s)
{
	return s->pcb;
}

static void udp_tx_done(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status)
{
	(void)ep;
	zn_sock_tx_done(arg, cookie, status);
}

static int udp_open(struct zn_sock *s, const struct zn_socket_conf *conf)
{
	struct zn_udp_conf uc;
	struct zn_udp_ep *ep;
	int rc;

	memset(&uc, 0, sizeof(uc));
	uc.local = conf->local;
	uc.remote = conf->remote;
	uc.rxq = conf->rxq;
	if (zn_netdev_is_queue(s->dev)) {
		/* RSS brings its flows to the one queue the netdev polls */
		uc.rxq = zn_netdev_rxq(s->dev);
		uc.no_steer = true;
	}
	uc.rx_ring = conf->rx_ring ? conf->rx_ring : UDP_SOCK_DFLT_RX_RING;
	uc.tx_done = udp_tx_done;
	uc.arg = s;
	rc = zn_udp_open(zn_netdev_netif(s->dev), &uc, &ep);
	if (rc == 0)
		s->pcb = ep;
	return rc;
}

static void udp_close(struct zn_sock *s)
{
	zn_udp_close(ep_of(s));
	s->pcb = NULL;
}

static uint32_t udp_rx_pending(struct zn_sock *s)
{
	return zn_udp_rx_pending(ep_of(s));
}

/* udp_poll: readable with a datagram queued; writable (the socket's send
 * slots are counted by zn_sock_poll_ready). */
static uint32_t udp_poll(struct zn_sock *s)
{
	return (udp_rx_pending(s) ? POLLIN | POLLRDNORM : 0) | POLLOUT | POLLWRNORM | POLLWRBAND;
}

static uint32_t udp_recv(struct zn_sock *s, struct zn_udp_rx *out, uint32_t n, uint32_t max)
{
	(void)max;	/* a datagram is whole */
	return zn_udp_recv(ep_of(s), out, n);
}

static void udp_rx_release(struct zn_sock *s, const struct zn_udp_rx *d)
{
	zn_udp_rx_release(ep_of(s), d);
}

static int udp_send(struct zn_sock *s, const struct zn_addr4 *dst, const struct zn_net_seg *segs,
		    uint32_t nseg, uint64_t cookie, bool more)
{
	(void)more;	/* whole datagrams only: corking is op_send.c's */
	return zn_udp_send(ep_of(s), dst, segs, nseg, cookie);
}

static void udp_tx_forget(struct zn_sock *s)
{
	zn_udp_tx_forget(ep_of(s));
}

const struct zn_sock_proto zn_udp_sock_proto = {
	.name = "udp",
	.open = udp_open,
	.close = udp_close,
	.rx_pending = udp_rx_pending,
	.recv = udp_recv,
	.rx_release = udp_rx_release,
	.send = udp_send,
	.tx_forget = udp_tx_forget,
	.poll = udp_poll,
};

int zn_udp_sock_connect(struct zn_sock *s, const struct zn_addr4 *dst)
{
	struct zn_socket_conf c = { .local = s->local, .remote = *dst };
	struct zn_udp_ep *old = ep_of(s);
	int rc;

	/* the port is the old endpoint's until it closes: close, then open
	 * with the new filter, and back to the old one if that fails */
	zn_udp_close(old);
	s->pcb = NULL;
	rc = udp_open(s, &c);
	if (rc) {
		c.remote = s->remote;
		if (udp_open(s, &c))
			s->pcb = NULL;	/* sends say -ENOTCONN, nothing is received */
		return rc;
	}
	s->remote = *dst;
	return 0;
}

int zn_udp_socket(struct zn_netdev *d, const struct zn_socket_conf *conf)
{
	return zn_sock_create(d, &zn_udp_sock_proto, conf);
}
