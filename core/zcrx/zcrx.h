/* SPDX-License-Identifier: MIT */
/*
 * core/zcrx's interface to the layer that receives into it (RECV_ZC in
 * core/sock/op_recv_zc.c) and to the ring engine's composition root: the
 * area's buffer states, the receiver's waiter, the interface queue as an
 * opaque object. Internal (not installed); core/zcrx/zcrx_priv.h is for
 * core/zcrx alone.
 *
 * A buffer carries two kinds of reference, as a kernel niov does (page
 * pool reference + user reference):
 *   nic   1 while the stack below (core/port's mux, the driver, core/net's
 *         receive lists, a datagram RECV_ZC keeps) still holds the buffer
 *         id and will hand it back through the provider's put();
 *   uref  CQEs the application holds that point into the buffer.
 * The state says where the buffer is; it goes back to FREE only when both
 * are zero.
 */
#ifndef ZCNIC_CORE_ZCRX_ZCRX_H
#define ZCNIC_CORE_ZCRX_ZCRX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/liburing/io_uring.h"
#include "zcnic/netdev.h"
#include "zcnic/zcrx.h"

#define ZCRX_LOG "zcrx"

struct zn_uring;
struct zn_zcrx_ifq;

enum { ZB_FREE = 0, ZB_NIC, ZB_STACK, ZB_USER, ZB_STATES };

struct zn_zcrx_buf {
	uint32_t uref;
	uint8_t state;
	uint8_t nic;
};

struct zn_zcrx_area {
	uint8_t *base;
	size_t len;
	uint64_t iova;
	uint32_t nbufs;
	struct zn_zcrx_buf *bufs;
	uint32_t *free;			/* stack of free buffer indices */
	uint32_t nfree;
	uint32_t cnt[ZB_STATES];
	struct zn_zcrx_stats st;	/* counters; the state counts are filled on read */
};

/* The buffer index of a payload pointer inside the area, or -1. */
static inline int64_t zn_zcrx_area_index(const struct zn_zcrx_area *a, const void *p)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)a->base;

	return off < a->len ? (int64_t)(off >> ZN_ZCRX_BUF_SHIFT) : -1;
}
/* RECV_ZC took a datagram holding buffer idx: NIC -> STACK. */
void zn_zcrx_area_take(struct zn_zcrx_area *a, uint32_t idx);
/* A CQE now points into idx: user ref + 1 (STACK -> USER). */
void zn_zcrx_area_user_get(struct zn_zcrx_area *a, uint32_t idx);
/* Copy fallback: a free buffer (FREE -> STACK, no nic ref), or -1 if none. */
int64_t zn_zcrx_area_copy_get(struct zn_zcrx_area *a);
/* The copy's CQE could not be posted: back to FREE. */
void zn_zcrx_area_copy_abort(struct zn_zcrx_area *a, uint32_t idx);
/*
 * An armed RECV_ZC receiver: polled once per ring pass (after the refill
 * ring), so that a datagram it keeps (CQ was full) is served even when no
 * new datagram arrives on its socket.
 */
struct zn_zcrx_waiter {
	struct zn_zcrx_waiter *next, *prev;
	void (*poll)(struct zn_zcrx_waiter *w);
	bool linked;
};

/* The ifq with that id on r (a reference, for RECV_ZC), or NULL. */
struct zn_zcrx_ifq *zn_zcrx_ifq_get(struct zn_uring *r, uint32_t id);
void zn_zcrx_ifq_put(struct zn_zcrx_ifq *ifq);
void zn_zcrx_waiter_add(struct zn_zcrx_ifq *ifq, struct zn_zcrx_waiter *w);
void zn_zcrx_waiter_del(struct zn_zcrx_ifq *ifq, struct zn_zcrx_waiter *w);
/* Run the refill ring now (RECV_ZC before it falls back to copies). */
void zn_zcrx_ifq_refill(struct zn_zcrx_ifq *ifq);
/* The ring's ifq handler (IORING_REGISTER_ZCRX_IFQ). */
int zn_zcrx_register(struct zn_uring *r, struct io_uring_zcrx_ifq_reg *reg);
/* IORING_REGISTER_ZCRX_CTRL (ctrl.c). */
int zn_zcrx_ctrl(struct zn_uring *r, struct zcrx_ctrl *ctrl, unsigned nr_args);
/* The memfd behind an allocated refill region of r at mmap offset off that
 * holds len bytes (zn_uring_plugins.region_fd), or -EINVAL. */
int zn_zcrx_region_fd(struct zn_uring *r, uint64_t off, uint64_t len);

/* What RECV_ZC needs to know of an ifq: its area, the RX queue and netdev
 * it receives from, its id (for messages); a reference more. */
struct zn_zcrx_area *zn_zcrx_ifq_area(struct zn_zcrx_ifq *ifq);
uint16_t zn_zcrx_ifq_rxq(const struct zn_zcrx_ifq *ifq);
struct zn_netdev *zn_zcrx_ifq_dev(const struct zn_zcrx_ifq *ifq);
uint32_t zn_zcrx_ifq_id(const struct zn_zcrx_ifq *ifq);
void zn_zcrx_ifq_hold(struct zn_zcrx_ifq *ifq);

#endif
