/* SPDX-License-Identifier: MIT */
/*
 * zcnic sockets: what an io_uring program's sqe->fd names.
 *
 * A socket (core/sock) is a UDP endpoint of core/net on a netdev, in a handle
 * (ZN_HANDLE_SOCKET, include/zcnic/handle.h) so that it works as sqe->fd,
 * in io_uring_register_files and with IOSQE_FIXED_FILE. It is the one
 * place a ported liburing program changes:
 *
 *     kernel:  fd = socket(AF_INET, SOCK_DGRAM, 0); bind(fd, ...); connect(fd, ...);
 *     zcnic:   fd = zn_udp_socket(dev, &(struct zn_socket_conf){ .local = ...,
 *                                   .remote = ..., .rxq = 1 });
 *
 * zn_udp_socket installs the n-tuple rule that steers (local ip:port
 * [, remote ip:port]) to RX queue rxq. Everything after that (SEND, RECV,
 * SEND_ZC, SENDMSG_ZC, RECV_ZC) goes through the ring.
 *
 * Or the set-up goes through the ring as well, with liburing names only
 * (io_uring_prep_socket, _bind, _listen, _accept, _multishot_accept,
 * _connect, _shutdown, _close): SOCKET's result is such a handle. It has no
 * netdev yet (the SQE has no field for one): BIND gives it the netdev that
 * owns the address (INADDR_ANY: the lowest ifindex open), CONNECT without
 * BIND the netdev on whose subnet the destination lies (else one with a
 * gateway). core/sock/op_sock.c has the rules and error codes.
 *
 * Polling: the first request on a socket ties it to that ring; the ring
 * then polls the socket's netdev inside its submit and wait calls (a poll
 * hook, one per netdev per ring). A socket is used from one ring, the
 * netdev's owner thread's.
 */
#ifndef ZCNIC_SOCKET_H
#define ZCNIC_SOCKET_H

#include <stdbool.h>
#include <stdint.h>

#include "zcnic/net.h"
#include "zcnic/netdev.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

struct zn_socket_conf {
	struct zn_addr4 local;	/* ip 0: the netdev's; port != 0 (network order) */
	struct zn_addr4 remote;	/* connected peer (default destination, RX filter); 0: none */
	uint16_t rxq;		/* RX queue its flow is steered to */
	uint32_t rx_ring;	/* datagrams queued before RECV takes them; 0 = 1024 */
};

/* A UDP socket: its handle (> 0), or -EINVAL, -EADDRINUSE, -EMFILE, -ENOMEM,
 * or the flow rule's error (logged). */
int zn_udp_socket(struct zn_netdev *d, const struct zn_socket_conf *conf);
/* Close: requests in flight on it complete with -ECANCELED (RECV/RECV_ZC)
 * or get their notification once the NIC is done (sends; TCP: once the
 * peer acknowledged them, then FIN, or RST with unread data). 0 or -EBADF. */
int zn_socket_close(int fd);

/*
 * TCP (core/net/tcp.h, RFC 9293). A socket on conf->local (port 0: an
 * ephemeral one at connect; remote and rxq are not used: TCP segments are
 * taken from every RX queue the netdev polls). Then either
 *
 *     zn_tcp_connect(fd, &dst, timeout_ms)     active open
 *     zn_tcp_listen(fd, backlog); nfd = zn_tcp_accept(fd, &peer, timeout_ms)
 *
 * and SEND, SEND_ZC (notification once the peer acknowledged every byte:
 * the buffer is read again by retransmissions until then), RECV through
 * the ring. The calls that wait poll the netdev themselves, at most
 * timeout_ms (0: do not wait; < 0: 60 s), on the netdev's owner thread.
 */
int zn_tcp_socket(struct zn_netdev *d, const struct zn_socket_conf *conf);
/* 0 connected; -EINPROGRESS (timeout 0: the SYN is out), -ECONNREFUSED,
 * -ETIMEDOUT, -EADDRINUSE, -EBADF, -EINVAL. Called again on a connect in
 * progress: waits for it (timeout 0: -EALREADY); after it: 0 was said
 * already, so -EISCONN, or its error (once; the socket may connect again). */
int zn_tcp_connect(int fd, const struct zn_addr4 *dst, int timeout_ms);
/* 0; -EDESTADDRREQ (no local port), -EADDRINUSE, -EISCONN, -EBADF. */
int zn_tcp_listen(int fd, int backlog);
/* A connected socket's handle (> 0) and its peer; -EAGAIN (timeout 0),
 * -ETIMEDOUT, -EINVAL (not listening), -EBADF. */
int zn_tcp_accept(int fd, struct zn_addr4 *peer, int timeout_ms);
/* FIN after what is queued (shutdown(SHUT_WR)): 0, -ENOTCONN, -EBADF. */
int zn_tcp_shutdown(int fd);

/*
 * Options (Linux's socket options by another name), on a socket before
 * connect or on a connection; an accepted connection takes its listener's.
 * 0, -EBADF, -EINVAL (zn_tcp_congestion: -ENOENT for a name it lacks).
 *   zn_tcp_keepalive: SO_KEEPALIVE with TCP_KEEPIDLE/KEEPINTVL/KEEPCNT in
 *     ms (0: Linux's 7200 s, 75 s, 9); unanswered probes end it, -ETIMEDOUT.
 *   zn_tcp_user_timeout: TCP_USER_TIMEOUT (ms, 0 off): a SYN or data
 *     unacknowledged that long ends the connection with -ETIMEDOUT; it also
 *     bounds how long a close lingers on unacknowledged data (then a RST).
 *   zn_tcp_congestion: TCP_CONGESTION, "cubic" (the default) or "reno".
 *   zn_tcp_cork: TCP_CORK (only full segments until off).
 *   zn_tcp_nodelay: TCP_NODELAY (no Nagle delay for a short segment).
 */
int zn_tcp_keepalive(int fd, bool on, uint32_t idle_ms, uint32_t intvl_ms, uint32_t cnt);
int zn_tcp_user_timeout(int fd, uint32_t ms);
int zn_tcp_congestion(int fd, const char *name);
int zn_tcp_cork(int fd, bool on);
int zn_tcp_nodelay(int fd, bool on);

#pragma GCC visibility pop

#endif
