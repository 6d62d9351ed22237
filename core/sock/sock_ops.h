/* SPDX-License-Identifier: MIT */
/*
 * What core/sock plugs into the ring engine, for its composition root
 * (core/opdef/opdef.c; the mechanism is in core/uring/uring_op.h).
 */
#ifndef ZCNIC_CORE_SOCK_SOCK_OPS_H
#define ZCNIC_CORE_SOCK_SOCK_OPS_H

#include "core/uring/uring_op.h"

extern const struct zn_uring_op zn_send_op;
extern const struct zn_uring_op zn_send_zc_op;
extern const struct zn_uring_op zn_sendmsg_zc_op;
extern const struct zn_uring_op zn_recv_op;
extern const struct zn_uring_op zn_recv_zc_op;
extern const struct zn_uring_op zn_sendmsg_op;
extern const struct zn_uring_op zn_recvmsg_op;
extern const struct zn_uring_op zn_socket_op;
extern const struct zn_uring_op zn_bind_op;
extern const struct zn_uring_op zn_listen_op;
extern const struct zn_uring_op zn_connect_op;
extern const struct zn_uring_op zn_accept_op;
extern const struct zn_uring_op zn_shutdown_op;
extern const struct zn_uring_op zn_close_op;

/* A ring's registered buffers are about to be unregistered: drop the
 * device mappings made of them (core/sock/net_mem.c). */
void zn_sock_bufs_unregistering(struct zn_uring *r);

/* IORING_OP_POLL_ADD's view of a socket (core/sock/sock_poll.c; the
 * contract is zn_uring_plugins.poll_ready's). */
int zn_sock_poll_ready(struct zn_uring *r, int fd, uint32_t *seq);

#endif
