/* SPDX-License-Identifier: MIT */
/*
 * For programs ported from the kernel's sockets (docs/uring.md, "Porting
 * a liburing program"): the BSD calls by zcnic names, so a port renames
 * its set-up calls and changes nothing else.
 *
 *     kernel                              zcnic
 *     fd = socket(AF_INET, type, 0)       fd = zn_socket(AF_INET, type, 0)
 *     bind / connect / listen / accept    zn_bind / zn_connect / zn_listen / zn_accept
 *     getsockname / getpeername           zn_getsockname / zn_getpeername
 *     setsockopt, shutdown                zn_setsockopt, zn_shutdown
 *     recv, send, recvmsg, sendmsg        zn_recv, zn_send, zn_recvmsg, zn_sendmsg
 *     close(fd)                           zn_socket_close(fd)
 *     if_nametoindex("eth1")              zn_netdev_ifindex(zn_env_netdev(1))
 *
 * Same arguments, same results: -1 with errno set, as libc. Each call runs
 * the ring's own op (IORING_OP_SOCKET, BIND, CONNECT, LISTEN, ACCEPT) on a
 * private ring of the calling thread, so the rules and error codes are
 * those of core/sock/op_sock.c: the netdev is the one that owns the bound
 * address, or (CONNECT unbound) the one whose subnet holds the
 * destination. A blocking CONNECT or ACCEPT polls every netdev the
 * thread's sockets live on, so both ends of a connection may be made by
 * one thread. The sockets work as sqe->fd on any ring of that thread.
 */
#ifndef ZCNIC_BSD_H
#define ZCNIC_BSD_H

#include <sys/socket.h>
#include <sys/types.h>

#include "zcnic/netdev.h"
#include "zcnic/socket.h"

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

/*
 * The netdevs a ported program runs on, brought up on first use (by this
 * call, or by zn_socket when the program opened no netdev itself) and kept
 * until exit:
 *   $ZN_NETDEVS = "SPEC@IP/LEN[,SPEC@IP/LEN]": those (SPEC as
 *     zn_netdev_open takes it: a PCI address, "vfio-user:PATH", ...);
 *   unset: a private zn-nicsim (include/zcnic/nicsim.h: two ports of
 *     $ZN_NICSIM_MODEL on a pair wire), port i as ZN_ENV_NET "(i + 1)/24".
 * $ZN_NETDEV_RXQ: RX queues of each (default 1); $ZN_NETDEV_MTU: their L3
 * MTU (default 1500, on the private zn-nicsim ZN_ENV_SIM_MTU: datagrams of
 * up to 8972 bytes go whole, as over the kernel's loopback).
 * Netdev i, or NULL (no such netdev; why is logged, errno set).
 */
#define ZN_ENV_NET	"10.0.0."
#define ZN_ENV_MAX	2
#define ZN_ENV_SIM_MTU	9000
struct zn_netdev *zn_env_netdev(unsigned i);

int zn_socket(int domain, int type, int protocol);
int zn_bind(int fd, const struct sockaddr *addr, socklen_t len);
int zn_connect(int fd, const struct sockaddr *addr, socklen_t len);
int zn_listen(int fd, int backlog);
int zn_accept(int fd, struct sockaddr *addr, socklen_t *len);
int zn_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int zn_shutdown(int fd, int how);
/* Blocking recv(2)/send(2)/recvmsg(2)/sendmsg(2) through the ring's ops (MSG_WAITALL,
 * MSG_DONTWAIT, MSG_TRUNC, ... as those ops take them). */
ssize_t zn_recv(int fd, void *buf, size_t len, int flags);
ssize_t zn_send(int fd, const void *buf, size_t len, int flags);
ssize_t zn_recvmsg(int fd, struct msghdr *msg, int flags);
ssize_t zn_sendmsg(int fd, const struct msghdr *msg, int flags);
int zn_getsockname(int fd, struct sockaddr *addr, socklen_t *len);
int zn_getpeername(int fd, struct sockaddr *addr, socklen_t *len);
/*
 * SO_REUSEADDR, SO_REUSEPORT (zcnic keeps no TIME_WAIT binding and
 * checks ports itself), SO_ZEROCOPY (every send may be zero copy),
 * TCP_NODELAY and SO_KEEPALIVE are taken; other options ENOPROTOOPT.
 */
int zn_setsockopt(int fd, int level, int name, const void *val, socklen_t len);

#pragma GCC visibility pop

#endif
