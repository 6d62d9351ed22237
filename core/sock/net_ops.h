/* SPDX-License-Identifier: MIT */
/*
 * The network ops of the ring (SEND, RECV, SEND_ZC, SENDMSG_ZC) over zcnic
 * sockets (core/sock/sock.h): what op_send.c, op_recv.c, net_mem.c and
 * ucopy.c share.
 *
 * Send path, one socket:
 *
 *   issue ---> tx state: wait FIFO (requests that found the TX path full,
 *              |          or asked POLL_FIRST) ---- tx_serve retries, in order
 *              v
 *   capture: a send slot (at most ZN_SOCK_SEND_MAX per socket); payload
 *            segments by IOVA (registered buffer made DMA-reachable, or a
 *            zn region mapped to the netdev), else copied into a bounce
 *            buffer of the netdev's pool
 *              v
 *   zn_sock_send(cookie = slot index) -> result CQE (bytes; SEND_ZC: F_MORE)
 *              |  the cookie rides in the netif's TX slot; the driver
 *              |  carries the netif slot's index and hands it back
 *              v
 *   netif TX reap -> endpoint tx_done -> zn_sock_tx_done -> send_done(slot):
 *             bounce buffer back, registered-buffer mapping unreferenced,
 *             SEND_ZC: notification CQE
 *
 * One cookie and one callback from the request to the NIC and back: no
 * layer below keeps a completion list. A stream protocol will call
 * zn_sock_tx_done when the peer acknowledged the bytes instead.
 *
 * Notifications of sends that failed (their result CQE is posted by the
 * ring core after prep/issue returns) wait on the ring's list and are
 * posted by a poll hook of the ring: always after their result.
 *
 * Everything here belongs to the thread that owns the ring and its netdevs
 * (a ring polls its netdevs inside its owner's calls).
 */
#ifndef ZCNIC_CORE_SOCK_NET_OPS_H
#define ZCNIC_CORE_SOCK_NET_OPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/mem/ucopy.h"
#include "core/sock/sock.h"
#include "core/sock/sock_ops.h"
#include "zcnic/mem.h"

/*
 * Sends a socket may have captured at once: in flight to the NIC (result
 * CQE posted, notification not yet) or waiting with their payload taken.
 * The one in-flight limit of the send path: core/net and the drivers keep
 * none of their own per sender (the netif's header slab, ARP queues and
 * the bounce pool are shared resources that make a send wait when they
 * run out). A send past it waits in the socket's FIFO until a completion
 * frees a slot; with MSG_DONTWAIT it fails with -EAGAIN.
 */
#define ZN_SOCK_SEND_MAX	512

/* ---- a destination as the SQE or msghdr gave it ---------------------------- */

enum { NET_DST_NONE = 0, NET_DST_OK, NET_DST_BAD };

struct net_dst {
	uint32_t ip;		/* network order */
	uint16_t port;		/* network order */
	uint8_t state;		/* NET_DST_* */
	int8_t err;		/* NET_DST_BAD: what the send fails with (-errno) */
};

/* Read a sockaddr of ulen bytes at uaddr (move_addr_to_kernel + UDP's
 * checks): 0 with *d filled (maybe NET_DST_BAD, failing at send time),
 * or -EINVAL / -EFAULT now. */
int zn_net_dst_read(const void *uaddr, int64_t ulen, struct net_dst *d);

/* ---- per netdev: the bounce pool (net_mem.c) ------------------------------ */

struct net_dev;

/* The netdev's state, created on first use; NULL on failure (logged). A
 * reference for the caller. */
struct net_dev *zn_net_dev_get(struct zn_netdev *dev);
void zn_net_dev_put(struct net_dev *nd);
/* A bounce buffer (DMA memory mapped to the netdev) of at least len bytes:
 * 0, -EAGAIN (pool empty: retry after completions), -EMSGSIZE, -ENOMEM. */
int zn_net_bounce_get(struct net_dev *nd, uint32_t len, void **va, uint64_t *iova);
void zn_net_bounce_put(struct net_dev *nd, void *va);
/* The bytes a bounce buffer holds (0: no pool could be made). */
uint32_t zn_net_bounce_size(struct net_dev *nd);

/* ---- per ring: registered buffers mapped to netdevs, late notifications -- */

/* A registered buffer made DMA-reachable for one netdev. */
struct net_fixmap;

/*
 * The IOVA of [addr, addr+len) inside registered buffer idx of ring r, for
 * netdev dev: 1 and a reference on *fm (drop with zn_net_fixmap_put once
 * the NIC is done), or 0 when the buffer cannot be made reachable (the
 * caller copies). The range must have been checked with zn_uring_fixed_buf.
 */
int zn_net_fixmap_get(struct zn_uring *r, unsigned idx, struct zn_netdev *dev, uint64_t addr,
		      uint32_t len, uint64_t *iova, struct net_fixmap **fm);
void zn_net_fixmap_put(struct net_fixmap *fm);

/* Queue a notification CQE to be posted after the current submission
 * (its result CQE goes first). 0 or -ENOMEM. */
int zn_net_notif_defer(struct zn_uring *r, uint64_t user_data, int32_t res);

#endif
