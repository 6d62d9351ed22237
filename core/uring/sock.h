/* SPDX-License-Identifier: MIT */
/*
 * Inside a zcnic socket (include/zcnic/socket.h): the seam between the
 * socket handle, the ring that polls it, and the network ops (op_send.c,
 * op_recv.c, op_recv_zc.c).
 *
 * A socket is tied to one ring by its first request (zn_sock_bind). Each
 * (ring, netdev) pair has one poll hook, a "binding", that runs:
 *
 *   zn_netdev_poll(dev)                  the NIC: receive, deliver, reap, send
 *   for every socket of the binding:
 *     rx: datagrams on its receive list and a receiver armed
 *         -> s->rx_serve(s)              (RECV and RECV_ZC install theirs)
 *     tx: send completions on the endpoint
 *         -> s->tx_serve(s)              (SEND / SEND_ZC install theirs)
 *
 * Level-triggered: a socket with work left (a receiver that stopped half
 * way, completions not yet taken) is served again on the next pass, not
 * only when its endpoint says its list became non-empty.
 */
#ifndef ZCNIC_CORE_URING_SOCK_H
#define ZCNIC_CORE_URING_SOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/uring/uring_priv.h"
#include "zcnic/net.h"
#include "zcnic/netdev.h"
#include "zcnic/socket.h"

struct zn_sock_binding;

struct zn_sock {
	int handle;
	struct zn_netdev *dev;
	struct zn_udp_ep *ep;
	struct zn_uring *ring;			/* tied to (first request); NULL before */
	struct zn_sock_binding *bind;
	int close_id;				/* zn_netdev_on_close registration */
	bool closing;
	/* the ops' state; NULL serve functions are skipped */
	void (*rx_serve)(struct zn_sock *s);	/* datagrams are waiting */
	void (*tx_serve)(struct zn_sock *s);	/* send completions may be waiting */
	void *rx_priv;				/* receive side (RECV queue, RECV_ZC request) */
	void *tx_priv;				/* send side (notification slots, bounce buffers) */
	/*
	 * The ops drop their state here when the socket closes or its ring
	 * exits. Requests still queued complete with -ECANCELED (at ring exit
	 * there are none: the ops' cancel() removed them first).
	 */
	void (*rx_fini)(struct zn_sock *s);
	void (*tx_fini)(struct zn_sock *s);
};

/*
 * The socket behind a request's resolved file (req->file): NULL if it is
 * not a live socket (the op then fails with -ENOTSOCK, as the kernel does
 * for a non-socket fd).
 */
struct zn_sock *zn_sock_of_req(const struct zn_uring_req *req);
/* The socket behind handle fd, for its owner; NULL if none. */
struct zn_sock *zn_sock_from_handle(int fd);
/*
 * Tie s to ring r (no-op if already tied to r) and make r poll its netdev.
 * 0, -EBUSY (tied to another ring), -ENOSPC (the ring has no hook slot).
 */
int zn_sock_bind(struct zn_sock *s, struct zn_uring *r);
/* Ask for the socket to be served on the next pass even without a new event. */
void zn_sock_kick(struct zn_sock *s);

#endif
