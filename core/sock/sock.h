/* SPDX-License-Identifier: MIT */
/*
 * Inside a zcnic socket (include/zcnic/socket.h): the seam between the
 * socket handle, its protocol, the ring that polls it, and the network ops
 * (op_send.c, op_recv.c, op_recv_zc.c).
 *
 * The protocol sits behind struct zn_sock_proto: the ops call the socket
 * (zn_sock_recv, zn_sock_send, ...), never a protocol's endpoint. UDP
 * (udp_sock.c, over core/net's endpoints) and TCP (tcp_sock.c, over the
 * netif's TCP engine, core/net/tcp.h) are the protocols.
 *
 * A socket is listed by the binding of the first ring that used it
 * (zn_sock_bind); other rings of the same thread may use it too. Each
 * (ring, netdev) pair has one poll hook, a "binding", that runs:
 *
 *   zn_netdev_poll(dev)                  the NIC: receive, deliver, reap, send;
 *                                        each send completion goes straight to
 *                                        s->tx_done (zn_sock_tx_done)
 *   for every socket of the thread's bindings on that netdev:
 *     rx: datagrams on its receive list and a receiver armed
 *         -> s->rx_serve(s)              (RECV and RECV_ZC install theirs)
 *     tx: sends waiting for room
 *         -> s->tx_serve(s)              (SEND / SEND_ZC install theirs)
 *
 * Level-triggered: a socket with work left (a receiver that stopped half
 * way, sends still waiting) is served again on the next pass, not only
 * when its endpoint says its list became non-empty.
 */
#ifndef ZCNIC_CORE_SOCK_SOCK_H
#define ZCNIC_CORE_SOCK_SOCK_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/debug/owner.h"
#include "core/net/netif.h"
#include "core/uring/uring_op.h"
#include "zcnic/netdev.h"
#include "zcnic/socket.h"

struct zn_sock_binding;
struct zn_sock;

/*
 * A protocol under a socket. Receive hands out datagram descriptors whose
 * buffers are the caller's until rx_release; send queues one message and
 * its completion comes back later through zn_sock_tx_done with the cookie
 * (UDP: when the NIC finished reading the frame; a stream protocol would
 * call it when the peer acknowledged the bytes).
 */
struct zn_sock_proto {
	const char *name;
	/* Make s->pcb for a socket on s->dev: 0 or -errno. */
	int (*open)(struct zn_sock *s, const struct zn_socket_conf *conf);
	void (*close)(struct zn_sock *s);
	uint32_t (*rx_pending)(struct zn_sock *s);
	/* Up to n descriptors; a stream protocol stops at max bytes (cutting a
	 * descriptor in two), a datagram protocol ignores max. */
	uint32_t (*recv)(struct zn_sock *s, struct zn_udp_rx *out, uint32_t n, uint32_t max);
	void (*rx_release)(struct zn_sock *s, const struct zn_udp_rx *d);
	/* more: MSG_MORE, more data follows soon (a stream holds a runt
	 * segment back; a datagram protocol never sees it: op_send.c corks) */
	int (*send)(struct zn_sock *s, const struct zn_addr4 *dst, const struct zn_net_seg *segs,
		    uint32_t nseg, uint64_t cookie, bool more);
	/* Sends queued or in flight will not come back to zn_sock_tx_done. */
	void (*tx_forget)(struct zn_sock *s);
	/*
	 * A byte stream (TCP): sends are not messages (no MTU limit, no
	 * destination), a receive takes bytes across descriptors, and rx_eof
	 * says what comes after the last byte: 0 more may come, 1 the peer
	 * closed (a receive returns 0), -errno the connection failed.
	 */
	bool stream;
	int (*rx_eof)(struct zn_sock *s);
	/* The socket's events now, as the protocol's poll in Linux (POLLIN,
	 * POLLOUT, ...) for a socket with a pcb; it must not consume an error. */
	uint32_t (*poll)(struct zn_sock *s);
};

struct zn_sock {
	int handle;
	/* NULL until the socket has a netdev: one made by IORING_OP_SOCKET
	 * gets it at BIND or CONNECT (op_sock.c); pcb is NULL until then */
	struct zn_netdev *dev;
	const struct zn_sock_proto *proto;
	void *pcb;				/* the protocol's (UDP: its endpoint) */
	struct zn_addr4 local;			/* as bound (port 0: not yet) */
	struct zn_addr4 remote;			/* UDP: the connected peer; 0: none */
	bool rd_shut;				/* shutdown(SHUT_RD): receives see EOF */
	/* The ring whose binding lists it (the first to use it; another ring
	 * of the same thread when that one exits); NULL before. Every ring of
	 * that thread may issue requests on it (zn_sock_bind). */
	struct zn_uring *ring;
	struct zn_sock_binding *bind;
	int close_id;				/* zn_netdev_on_close registration */
	bool closing;
	/* zn_socket_close from a thread other than its rings': the owner
	 * closes it on its next pass or when its ring exits (atomic) */
	bool close_req;
	/* Its ring is being destroyed: completions still coming in (while any
	 * socket of the ring drains its sends) post no CQE. */
	bool ring_exiting;
	/* The ring owner's thread: requests, serve passes and kicks assert it. */
	struct zn_owner owner;
	/* the ops' state; NULL serve functions are skipped */
	void (*rx_serve)(struct zn_sock *s);	/* datagrams are waiting */
	void (*tx_serve)(struct zn_sock *s);	/* waiting sends may go now */
	/* A send's completion (zn_sock_tx_done); runs inside the netdev's poll
	 * and must not send, close or poll. */
	void (*tx_done)(struct zn_sock *s, uint64_t cookie, int32_t status);
	/* A ring of the thread that issued requests on the socket exits while
	 * the socket stays (sock.c): drop what would still post to it. */
	void (*ring_gone)(struct zn_sock *s, struct zn_uring *r);
	void *rx_priv;				/* receive side (RECV queue, RECV_ZC request) */
	void *tx_priv;				/* send side (notification slots, bounce buffers) */
	/*
	 * The ops drop their state here when the socket closes or its ring
	 * exits. Requests still queued complete with -ECANCELED (at ring exit
	 * there are none: the ops' cancel() removed them first).
	 */
	void (*rx_fini)(struct zn_sock *s);
	void (*tx_fini)(struct zn_sock *s);
	/* Connection set-up waiting on the socket (CONNECT, ACCEPT: op_sock.c):
	 * served on every pass while set, dropped like the others. */
	void (*ctl_serve)(struct zn_sock *s);
	void (*ctl_fini)(struct zn_sock *s);
	void *ctl_priv;
};

/*
 * The socket behind a request's resolved file (req->file): NULL if it is
 * not a live socket (the op then fails with -ENOTSOCK, as the kernel does
 * for a non-socket fd) or another thread's rings serve it (-EBUSY).
 */
struct zn_sock *zn_sock_of_req(const struct zn_uring_req *req);
/* Why zn_sock_of_req gave NULL: -EBUSY for a socket another thread's rings
 * serve (zn_sock_bind), -ENOTSOCK for a handle that is no socket. */
int zn_sock_req_err(const struct zn_uring_req *req);
/* The socket behind handle fd, for its owner; NULL if none. */
struct zn_sock *zn_sock_from_handle(int fd);
/*
 * Let ring r issue requests on s: the first ring ties s to itself; any
 * other ring of the same thread is let in, and made to poll s's netdev
 * and serve s as well. 0; -EBUSY for a ring of another thread (the
 * socket's queues have no locks); -ENOSPC (the ring has no hook slot).
 */
int zn_sock_bind(struct zn_sock *s, struct zn_uring *r);
/* Is s served by another thread's rings (its queues are not this thread's)? */
bool zn_sock_foreign(const struct zn_sock *s);
/* Ask for the socket to be served on the next pass even without a new event. */
void zn_sock_kick(struct zn_sock *s);

/* A socket of protocol proto on d: its handle (> 0), or -errno. */
int zn_sock_create(struct zn_netdev *d, const struct zn_sock_proto *proto,
		   const struct zn_socket_conf *conf);
/* A socket with no netdev yet (IORING_OP_SOCKET): its handle or -errno. */
int zn_sock_create_detached(const struct zn_sock_proto *proto);
/* Give a detached socket its netdev and open its protocol there: 0 or
 * -errno (the socket stays detached). */
int zn_sock_attach(struct zn_sock *s, struct zn_netdev *d, const struct zn_socket_conf *conf);

/* Sends the NIC (TCP: the peer) has not completed yet (op_send.c). */
uint32_t zn_sock_tx_inflight(struct zn_sock *s);
/* Has the socket a free send slot (op_send.c)? true before its first send. */
bool zn_sock_tx_room(struct zn_sock *s);

/* The protocols (tcp_sock.c, udp_sock.c). */
extern const struct zn_sock_proto zn_tcp_sock_proto;
extern const struct zn_sock_proto zn_udp_sock_proto;
/* A UDP socket's default destination (CONNECT): its endpoint is opened
 * again with the peer as RX filter. 0 or -errno (the old endpoint stays). */
int zn_udp_sock_connect(struct zn_sock *s, const struct zn_addr4 *dst);
/* Give a detached UDP socket the netdev that routes to dst_ip and an
 * ephemeral port (op_sock.c): 0, -ENETUNREACH, -EADDRINUSE. */
int zn_sock_autobind(struct zn_sock *s, uint32_t dst_ip);
/* A TCP socket's addresses as getsockname/getpeername give them (0: none). */
void zn_tcp_sock_name(struct zn_sock *s, struct zn_addr4 *local, struct zn_addr4 *remote);
/* Is s a TCP socket that listens? */
bool zn_tcp_sock_listening(const struct zn_sock *s);

static inline uint32_t zn_sock_rx_pending(struct zn_sock *s)
{
	if (!s->pcb)
		return 0;
	/* a socket shut for reading has its EOF to deliver */
	return s->proto->rx_pending(s) + (s->rd_shut ? 1 : 0);
}

static inline uint32_t zn_sock_recv(struct zn_sock *s, struct zn_udp_rx *out, uint32_t n)
{
	return s->proto->recv(s, out, n, UINT32_MAX);
}

/* A stream's bytes: at most max of them. */
static inline uint32_t zn_sock_recv_max(struct zn_sock *s, struct zn_udp_rx *out, uint32_t n,
					uint32_t max)
{
	return s->proto->recv(s, out, n, max);
}

static inline int zn_sock_rx_eof(struct zn_sock *s)
{
	if (s->rd_shut)
		return 1;
	return s->proto->rx_eof ? s->proto->rx_eof(s) : 0;
}

/* Every protocol's descriptors address their bytes the same way: no hook. */
static inline const uint8_t *zn_sock_rx_data(struct zn_sock *s, const struct zn_udp_rx *d,
					     uint32_t i)
{
	(void)s;
	return zn_rx_seg_data(d, i);
}

static inline void zn_sock_rx_release(struct zn_sock *s, const struct zn_udp_rx *d)
{
	s->proto->rx_release(s, d);
}

static inline int zn_sock_send(struct zn_sock *s, const struct zn_addr4 *dst,
			       const struct zn_net_seg *segs, uint32_t nseg, uint64_t cookie,
			       bool more)
{
	if (!s->pcb)
		return -ENOTCONN;
	return s->proto->send(s, dst, segs, nseg, cookie, more);
}

/* The protocol hands a send's cookie back (exactly once per accepted send,
 * unless tx_forget came first). */
static inline void zn_sock_tx_done(struct zn_sock *s, uint64_t cookie, int32_t status)
{
	if (s->tx_done)
		s->tx_done(s, cookie, status);
}

static inline void zn_sock_tx_forget(struct zn_sock *s)
{
	s->proto->tx_forget(s);
}

#endif
