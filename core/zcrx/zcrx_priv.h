/* SPDX-License-Identifier: MIT */
/*
 * core/zcrx internals: the area (buffers and their states), the refill
 * ring, the interface queue. See include/zcnic/zcrx.h for the states.
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
#ifndef ZCNIC_CORE_ZCRX_PRIV_H
#define ZCNIC_CORE_ZCRX_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/liburing/io_uring.h"
#include "core/debug/owner.h"
#include "zcnic/mem.h"
#include "zcnic/netdev.h"
#include "zcnic/port.h"
#include "zcnic/zcrx.h"

#define ZCRX_LOG "zcrx"

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

int zn_zcrx_area_init(struct zn_zcrx_area *a, void *base, size_t len, uint64_t iova);
void zn_zcrx_area_fini(struct zn_zcrx_area *a);
/* Provider alloc: FREE -> NIC (nic ref taken); how many it gave. */
uint32_t zn_zcrx_area_alloc(struct zn_zcrx_area *a, struct zn_buf *bufs, uint32_t n);
/* Provider put: the stack drops its reference; ids outside the area ignored (counted). */
void zn_zcrx_area_put(struct zn_zcrx_area *a, const uint32_t *ids, uint32_t n);
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
/* One refill entry: -1 when it dropped a reference, else the reason it was ignored. */
int zn_zcrx_area_rqe(struct zn_zcrx_area *a, const struct io_uring_zcrx_rqe *rqe);
/* Teardown: the user's references are gone (the kernel's io_zcrx_scrub). */
void zn_zcrx_area_scrub(struct zn_zcrx_area *a);
/* Recount every state from the buffers: 0 when consistent, else -1. */
int zn_zcrx_area_check(const struct zn_zcrx_area *a);
void zn_zcrx_area_stats(const struct zn_zcrx_area *a, struct zn_zcrx_stats *st);

/*
 * The refill ring in application memory (current kernels' layout):
 *
 *   +0    head   u32, written by zcnic (store-release): entries before it are consumed
 *   +64   tail   u32, written by the application (store-release) after filling rqes
 *   +128  rqes   rq_entries x struct io_uring_zcrx_rqe
 *
 * The application owns the slots from head to head + entries not yet
 * published; zcnic reads the slots from its cached head to tail. zcnic
 * never trusts tail: at most `entries` slots are read per pass, whatever
 * tail says, and head advances by what was read.
 */
#define ZN_ZCRX_RQ_HEAD_OFF	0
#define ZN_ZCRX_RQ_TAIL_OFF	64
#define ZN_ZCRX_RQ_RQES_OFF	128

struct zn_zcrx_rq {
	uint32_t *khead, *ktail;
	struct io_uring_zcrx_rqe *rqes;
	uint32_t entries, mask;
	uint32_t cached_head;
};

void zn_zcrx_rq_init(struct zn_zcrx_rq *rq, void *mem, uint32_t entries);
/* One pass over the refill ring: entries consumed. */
uint32_t zn_zcrx_refill(struct zn_zcrx_rq *rq, struct zn_zcrx_area *a);

/* ---- interface queues (ifq.c) ---- */

struct zn_zcrx_ring;

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

struct zn_zcrx_ifq {
	struct zn_uring *ring;
	struct zn_zcrx_ring *rctx;
	uint32_t id;
	struct zn_netdev *dev;		/* NULL once the netdev closed */
	uint16_t rxq;
	struct zn_zcrx_area area;
	struct zn_zcrx_rq rq;
	struct zn_dma_region *region;
	bool region_owned;		/* adopted by us: freed with the area */
	bool dma_mapped;
	bool attached;			/* our provider is (or was, until detached) the queue's */
	bool registered;		/* still in its ring's list */
	int close_id;
	unsigned refs;
	struct zn_owner owner;		/* the thread that refills and receives */
	struct zn_buf_provider prov;
	struct zn_zcrx_waiter *waiters;
	struct zn_zcrx_ifq *next;	/* ring's list */
	struct zn_zcrx_ifq *gnext;	/* process-wide list (queue ownership) */
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

/* Is [p, p+len) mapped with (write) access in this process? 0 or -EFAULT. */
int zn_zcrx_user_range_ok(uint64_t addr, uint64_t len, bool write);

#endif
